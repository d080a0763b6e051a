#include <check.h>
START_TEST(placeholder) { ck_assert_int_eq(1, 1); }
END_TEST
int main(void) { Suite *s = suite_create("x"); TCase *t = tcase_create("x"); tcase_add_test(t, placeholder); suite_add_tcase(s, t); SRunner *r = srunner_create(s); srunner_run_all(r, CK_NORMAL); int f = srunner_ntests_failed(r); srunner_free(r); return f != 0; }
