/* End-to-end: every case directory under t/cases/ (written for this
 * project, each with expected.json) and the bundled example go through
 * the real catalog; the result must keep doc/formats.md and give the
 * expected verdict, culprits, confidence (where expected.json gives one)
 * and no drain outside drain_ok.  Optional checks of expected.json:
 * root_code, evidence_contains, forbid_actions, inspect, hang, set_aside
 * (codes set aside), set_aside_as ({code: the set_aside reason}),
 * downstream (codes that must all be downstream of the cause),
 * culprit_switch, coverage_contains. */
#include <dirent.h>
#include "testutil.h"

static attrib_catalog *cat;

static const char *rules_dir(void)
{
	static char buf[4096];

	if (getenv("ATTRIB_RULES"))
		return getenv("ATTRIB_RULES");
	snprintf(buf, sizeof(buf), "%s/rules", SRCDIR);
	return buf;
}

static bool in_array(struct json_object *arr, const char *s)
{
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++)
		if (!strcmp(json_object_get_string(json_object_array_get_idx(arr, i)), s))
			return true;
	return false;
}

/* The result's checks (doc/formats.md, "The result"). */
static void check_contract(const char *name, struct json_object *r, struct json_object *job)
{
	const char *sub = json_object_get_string(json_member(r, "sub_domain"));
	struct json_object *nodes = json_member(job, "nodes"), *v;

	ck_assert_str_eq(json_object_get_string(json_member(r, "schema")), "attrib.result/v1");
	ck_assert_str_eq(json_object_get_string(json_member(r, "job_id")),
			 json_object_get_string(json_member(job, "job_id")));
	ck_assert_msg(sub_domain_domain(sub) != NULL, "%s: sub_domain %s", name, sub);
	ck_assert_str_eq(json_object_get_string(json_member(r, "domain")), sub_domain_domain(sub));
	ck_assert_str_eq(json_object_get_string(json_member(r, "outcome")),
			 strcmp(sub, "Pass") ? "Fail" : "Pass");
	ck_assert_msg(confidence_rank(json_object_get_string(json_member(r, "confidence"))) >= 0,
		      "%s: confidence %s", name, json_object_get_string(json_member(r, "confidence")));
	/* an open verdict is never more than low */
	if (!strcmp(sub, "ambiguous") || !strcmp(sub, "unattributed"))
		ck_assert_str_eq(json_object_get_string(json_member(r, "confidence")), "low");
	v = json_member(r, "culprit_nodes");
	for (size_t i = 0; i < json_object_array_length(v); i++)
		ck_assert_msg(in_array(nodes, json_object_get_string(json_object_array_get_idx(v, i))),
			      "%s: culprit is not a job node", name);
	v = json_member(r, "actions");
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		struct json_object *a = json_object_array_get_idx(v, i);
		const char *what = json_object_get_string(json_member(a, "action"));

		ck_assert_msg(action_valid(what), "%s: action %s", name, what);
		/* an action is about a node of the job, or the switch blamed */
		if (json_member(a, "switch")) {
			ck_assert_str_eq(json_object_get_string(json_member(a, "switch")),
					 json_object_get_string(json_member(r, "culprit_switch")));
			ck_assert_msg(strcmp(what, "drain"), "%s: a switch is never drained", name);
			continue;
		}
		ck_assert(in_array(nodes, json_object_get_string(json_member(a, "node"))));
		if (!strcmp(what, "drain"))
			ck_assert_msg(in_array(json_member(r, "culprit_nodes"),
					       json_object_get_string(json_member(a, "node"))),
				      "%s: drain of a node that is not a culprit", name);
	}
	v = json_member(r, "symptoms");
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		const char *role = json_object_get_string(
			json_member(json_object_array_get_idx(v, i), "role"));

		ck_assert_msg(!strcmp(role, "root") || !strcmp(role, "downstream") ||
				      !strcmp(role, "interesting"),
			      "%s: role %s", name, role);
	}
	v = json_member(r, "coverage");
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		const char *st = json_object_get_string(
			json_member(json_object_array_get_idx(v, i), "status"));

		ck_assert(!strcmp(st, "missing") || !strcmp(st, "error") || !strcmp(st, "info"));
	}
	ck_assert(json_object_is_type(json_member(r, "explanation"), json_type_string));
}

static void check_case(const char *dir, const char *name)
{
	char err[512];
	char *p = path_join(dir, "expected.json");
	struct json_object *exp = json_object_from_file(p), *r, *job;
	free(p);
	ck_assert_msg(exp != NULL, "%s: no expected.json", name);
	p = path_join(dir, "job.json");
	job = json_object_from_file(p);
	free(p);

	r = attrib_analyze(cat, dir, NULL, err, sizeof(err));
	ck_assert_msg(r != NULL, "%s: %s", name, err);
	check_contract(name, r, job);
	/* the evidence scanned by one thread and by several, and every file
	 * cut into chunks of 256 bytes: the same result */
	for (int k = 0; k < 3; k++) {
		struct json_object *again;
		struct attrib_options opt = { .threads = k == 1 ? 5
						      : k	? 3
								: 1,
					      .chunk_bytes = k == 2 ? 256 : 0 };

		again = attrib_analyze(cat, dir, &opt, err, sizeof(err));
		ck_assert_msg(again != NULL, "%s: %s", name, err);
		ck_assert_msg(!strcmp(json_object_to_json_string(again), json_object_to_json_string(r)),
			      "%s: the result differs with %d threads%s", name, opt.threads,
			      k == 2 ? ", chunks of 256 bytes" : "");
		json_object_put(again);
	}

	const char *sub = json_object_get_string(json_member(r, "sub_domain"));
	ck_assert_msg(in_array(json_member(exp, "sub_domain"), sub), "%s: sub_domain %s, expected %s", name,
		      sub, json_object_to_json_string(json_member(exp, "sub_domain")));
	struct json_object *got = json_member(r, "culprit_nodes"), *want = json_member(exp, "culprit_nodes");
	ck_assert_msg(json_object_array_length(got) == json_object_array_length(want),
		      "%s: culprits %s, expected %s", name, json_object_to_json_string(got),
		      json_object_to_json_string(want));
	for (size_t i = 0; i < json_object_array_length(want); i++)
		ck_assert_msg(in_array(got, json_object_get_string(json_object_array_get_idx(want, i))),
			      "%s: culprits %s, expected %s", name, json_object_to_json_string(got),
			      json_object_to_json_string(want));
	struct json_object *acts = json_member(r, "actions");
	for (size_t i = 0; i < json_object_array_length(acts); i++) {
		struct json_object *a = json_object_array_get_idx(acts, i);

		if (!strcmp(json_object_get_string(json_member(a, "action")), "drain"))
			ck_assert_msg(in_array(json_member(exp, "drain_ok"),
					       json_object_get_string(json_member(a, "node"))),
				      "%s: false drain of %s", name,
				      json_object_get_string(json_member(a, "node")));
	}
	/* optional: actions that must not be given at all (a node taken out
	 * of service on evidence the job's user wrote) */
	struct json_object *forbid = json_member(exp, "forbid_actions");
	for (size_t i = 0; forbid && i < json_object_array_length(acts); i++) {
		struct json_object *a = json_object_array_get_idx(acts, i);
		const char *what = json_object_get_string(json_member(a, "action"));

		for (size_t k = 0; k < json_object_array_length(forbid); k++)
			ck_assert_msg(strcmp(what,
					     json_object_get_string(json_object_array_get_idx(forbid, k))),
				      "%s: action %s on %s", name, what,
				      json_member(a, "node") ? json_object_get_string(json_member(a, "node"))
							     : "a switch");
	}
	/* optional: how far the evidence supports the verdict */
	if (json_member(exp, "confidence"))
		ck_assert_msg(!strcmp(json_object_get_string(json_member(r, "confidence")),
				      json_object_get_string(json_member(exp, "confidence"))),
			      "%s: confidence %s, expected %s", name,
			      json_object_get_string(json_member(r, "confidence")),
			      json_object_get_string(json_member(exp, "confidence")));
	/* optional: the root cause's code and a piece of its evidence */
	if (json_member(exp, "root_code")) {
		struct json_object *rc = json_member(r, "root_cause");

		ck_assert_msg(rc != NULL, "%s: no root_cause", name);
		ck_assert_str_eq(json_object_get_string(json_member(rc, "code")),
				 json_object_get_string(json_member(exp, "root_code")));
	}
	/* optional: nodes to inspect, a hang reported, codes set aside */
	struct json_object *want_inspect = json_member(exp, "inspect");
	for (size_t i = 0; want_inspect && i < json_object_array_length(want_inspect); i++) {
		const char *node = json_object_get_string(json_object_array_get_idx(want_inspect, i));
		bool found = false;

		for (size_t k = 0; k < json_object_array_length(acts) && !found; k++) {
			struct json_object *a = json_object_array_get_idx(acts, k);

			found = !strcmp(json_object_get_string(json_member(a, "action")), "inspect") &&
				json_member(a, "node") &&
				!strcmp(json_object_get_string(json_member(a, "node")), node);
		}
		ck_assert_msg(found, "%s: no inspect action for %s", name, node);
	}
	if (json_member(exp, "hang"))
		ck_assert_msg((json_member(r, "hang") != NULL) ==
				      json_object_get_boolean(json_member(exp, "hang")),
			      "%s: hang %s, expected %s", name,
			      json_member(r, "hang") ? "reported" : "not reported",
			      json_object_get_boolean(json_member(exp, "hang")) ? "one" : "none");
	struct json_object *want_aside = json_member(exp, "set_aside");
	for (size_t i = 0; want_aside && i < json_object_array_length(want_aside); i++) {
		const char *code = json_object_get_string(json_object_array_get_idx(want_aside, i));
		struct json_object *syms = json_member(r, "symptoms");
		bool found = false;

		for (size_t k = 0; k < json_object_array_length(syms) && !found; k++) {
			struct json_object *y = json_object_array_get_idx(syms, k);

			found = !strcmp(json_object_get_string(json_member(y, "code")), code) &&
				json_member(y, "set_aside");
		}
		ck_assert_msg(found, "%s: %s not set aside", name, code);
	}
	/* optional: why a code was set aside (set_aside_as: {code: reason}),
	 * and codes that must be downstream of the cause (the scheduler's
	 * ending after a fault the job could not outlive) */
	struct json_object *want_why = json_member(exp, "set_aside_as");
	if (want_why) {
		json_object_object_foreach (want_why, code, why) {
			struct json_object *syms = json_member(r, "symptoms");
			bool found = false;

			for (size_t k = 0; k < json_object_array_length(syms) && !found; k++) {
				struct json_object *y = json_object_array_get_idx(syms, k);

				found = !strcmp(json_object_get_string(json_member(y, "code")), code) &&
					json_member(y, "set_aside") &&
					!strcmp(json_object_get_string(json_member(y, "set_aside")),
						json_object_get_string(why));
			}
			ck_assert_msg(found, "%s: %s not set aside as \"%s\"", name, code,
				      json_object_get_string(why));
		}
	}
	struct json_object *want_down = json_member(exp, "downstream");
	for (size_t i = 0; want_down && i < json_object_array_length(want_down); i++) {
		const char *code = json_object_get_string(json_object_array_get_idx(want_down, i));
		struct json_object *syms = json_member(r, "symptoms");
		bool found = false, other = false;

		for (size_t k = 0; k < json_object_array_length(syms); k++) {
			struct json_object *y = json_object_array_get_idx(syms, k);

			if (strcmp(json_object_get_string(json_member(y, "code")), code))
				continue;
			if (!strcmp(json_object_get_string(json_member(y, "role")), "downstream"))
				found = true;
			else
				other = true;
		}
		ck_assert_msg(found && !other, "%s: %s not downstream of the cause", name, code);
	}
	/* optional: the leaf switch blamed (absent: none may be), a coverage entry */
	const char *want_sw = json_object_get_string(json_member(exp, "culprit_switch"));
	const char *got_sw = json_object_get_string(json_member(r, "culprit_switch"));
	ck_assert_msg(want_sw ? got_sw && !strcmp(got_sw, want_sw) : !got_sw,
		      "%s: culprit_switch %s, expected %s", name, got_sw ? got_sw : "none",
		      want_sw ? want_sw : "none");
	if (json_member(exp, "coverage_contains"))
		ck_assert_msg(strstr(json_object_to_json_string(json_member(r, "coverage")),
				     json_object_get_string(json_member(exp, "coverage_contains"))),
			      "%s: no coverage entry says %s", name,
			      json_object_get_string(json_member(exp, "coverage_contains")));
	if (json_member(exp, "evidence_contains")) {
		const char *s = json_object_to_json_string(
			json_member(json_member(r, "root_cause"), "evidence"));

		ck_assert_msg(strstr(s, json_object_get_string(json_member(exp, "evidence_contains"))) !=
				      NULL,
			      "%s: root evidence lacks %s", name,
			      json_object_get_string(json_member(exp, "evidence_contains")));
	}
	json_object_put(r);
	json_object_put(exp);
	json_object_put(job);
}

static int ncases;
static char **case_dirs;

static void find_cases(const char *root)
{
	DIR *d = opendir(root);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char *dir, *exp;

		if (e->d_name[0] == '.')
			continue;
		/* outside a test: no ck_assert (it reports progress to the runner) */
		if (asprintf(&dir, "%s/%s", root, e->d_name) < 0 ||
		    asprintf(&exp, "%s/expected.json", dir) < 0)
			abort();
		if (access(exp, R_OK) == 0) {
			case_dirs = xrealloc(case_dirs, (ncases + 1) * sizeof(char *));
			case_dirs[ncases++] = dir;
		} else {
			free(dir);
		}
		free(exp);
	}
	closedir(d);
}

START_TEST(one_case)
{
	const char *dir = case_dirs[_i];

	check_case(dir, strrchr(dir, '/') + 1);
}
END_TEST

START_TEST(rules_check_shipped_catalog)
{
	/* the shipped catalog loads and all its inline cases pass */
	ck_assert_ptr_nonnull(cat);
	ck_assert_int_eq(attrib_catalog_selftest(cat, stderr, 0), 0);
}
END_TEST

int main(void)
{
	char root[4096];
	Suite *s = suite_create("cases");
	TCase *t = tcase_create("cases");

	cat = attrib_catalog_load(rules_dir(), test_options(), stderr);
	snprintf(root, sizeof(root), "%s/t/cases", SRCDIR);
	find_cases(root);
	snprintf(root, sizeof(root), "%s/examples", SRCDIR);
	find_cases(root);
	if (!cat || !ncases) {
		fprintf(stderr, "cases: %s\n", cat ? "no cases found" : "the catalog does not load");
		return EXIT_FAILURE;
	}
	tcase_set_timeout(t, 60);
	tcase_add_test(t, rules_check_shipped_catalog);
	tcase_add_loop_test(t, one_case, 0, ncases);
	suite_add_tcase(s, t);
	int rc = run_suite(s);
	attrib_catalog_free(cat);
	return rc;
}
