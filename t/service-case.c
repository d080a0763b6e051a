/* Case building as the job's user (Check; needs root: skipped otherwise).
 *
 * The job's std_out/std_err are user-controlled paths read by a root
 * service.  These tests make a real unprivileged user (attrib-test-user,
 * created with useradd -M when absent) and show that only that user's own
 * regular files are read: a symlink to /etc/shadow, a FIFO, a device,
 * another user's file, a file the user may not read, and a path swapped
 * back and forth between a good file and a symlink while it is read never
 * give anything but the user's own bytes. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "casebuild.h"
#include "conf.h"
#include "log.h"
#include "spool.h"
#include "testutil.h"
#include "userfile.h"

#define TEST_USER "attrib-test-user"

static uid_t uid;
static gid_t gid;
static char *base; /* 0755 root directory; base/home is the user's */

static void as_user_file(const char *rel, const char *text, mode_t mode)
{
	char *p = path_join(base, rel);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, mode);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	ck_assert_int_eq(chown(p, uid, gid), 0);
	ck_assert_int_eq(chmod(p, mode), 0);
	free(p);
}

static char *read_user(const char *rel, size_t max, bool *missing, char *err, size_t errlen)
{
	char *p = path_join(base, rel);
	size_t len;
	char *data = read_tail_as_user(p, uid, gid, max, &len, missing, err, errlen);

	free(p);
	return data;
}

static void setup(void)
{
	struct passwd *pw = getpwnam(TEST_USER);

	ck_assert_msg(pw != NULL, "no user " TEST_USER);
	uid = pw->pw_uid;
	gid = pw->pw_gid;
	base = tmpdir();
	ck_assert_int_eq(chmod(base, 0755), 0);
	mkdir_p(base, "home");
	char *home = path_join(base, "home");
	ck_assert_int_eq(chown(home, uid, gid), 0);
	ck_assert_int_eq(chmod(home, 0755), 0);
	free(home);
	log_set_level(LOGL_ERROR);
}

static void teardown(void)
{
	rmtree(base);
}

START_TEST(reads_own_file)
{
	char err[256];
	bool missing;
	char *d;

	as_user_file("home/out.txt", "line 1\nline 2\n", 0600);
	d = read_user("home/out.txt", 1 << 20, &missing, err, sizeof(err));
	ck_assert_msg(d != NULL, "%s", err);
	ck_assert_str_eq(d, "line 1\nline 2\n");
	free(d);
	/* the end only, from a whole line */
	as_user_file("home/big.txt", "aaaa\nbbbb\ncccc\ndddd\n", 0600);
	d = read_user("home/big.txt", 12, &missing, err, sizeof(err));
	ck_assert_str_eq(d, "cccc\ndddd\n");
	free(d);
	d = read_user("home/none.txt", 100, &missing, err, sizeof(err));
	ck_assert_ptr_null(d);
	ck_assert(missing);
}
END_TEST

START_TEST(symlink_to_shadow_not_read)
{
	char err[256], *p = path_join(base, "home/slurm.out");
	bool missing;

	ck_assert_int_eq(symlink("/etc/shadow", p), 0);
	ck_assert_int_eq(lchown(p, uid, gid), 0);
	free(p);
	ck_assert_ptr_null(read_user("home/slurm.out", 1 << 20, &missing, err, sizeof(err)));
	ck_assert_str_eq(err, "is a symbolic link");
	ck_assert(!missing);
	/* a symlink to the user's own file is refused too */
	as_user_file("home/real.out", "mine\n", 0600);
	p = path_join(base, "home/link.out");
	ck_assert_int_eq(symlink("real.out", p), 0);
	free(p);
	ck_assert_ptr_null(read_user("home/link.out", 1 << 20, &missing, err, sizeof(err)));
}
END_TEST

START_TEST(fifo_does_not_block)
{
	char err[256], *p = path_join(base, "home/fifo.out");
	bool missing;

	ck_assert_int_eq(mkfifo(p, 0600), 0);
	ck_assert_int_eq(chown(p, uid, gid), 0);
	free(p);
	alarm(5); /* a blocked open would end the test here */
	ck_assert_ptr_null(read_user("home/fifo.out", 1 << 20, &missing, err, sizeof(err)));
	alarm(0);
	ck_assert_str_eq(err, "not a regular file");
	/* a device the user may open is not a file either */
	size_t len;
	ck_assert_ptr_null(read_tail_as_user("/dev/null", uid, gid, 100, &len, &missing, err, sizeof(err)));
	ck_assert_str_eq(err, "not a regular file");
}
END_TEST

START_TEST(other_users_file_not_read)
{
	char err[256], *p = path_join(base, "home/root.out");
	bool missing;

	/* readable by everyone, but root's: not the job's output */
	write_file(base, "home/root.out", "root's secret\n");
	ck_assert_int_eq(chmod(p, 0644), 0);
	free(p);
	ck_assert_ptr_null(read_user("home/root.out", 1 << 20, &missing, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "owned by uid 0"));
	/* nor a hard link to it (same inode, same owner) */
	char *a = path_join(base, "home/root.out"), *b = path_join(base, "home/hard.out");
	ck_assert_int_eq(link(a, b), 0);
	free(a);
	free(b);
	ck_assert_ptr_null(read_user("home/hard.out", 1 << 20, &missing, err, sizeof(err)));
}
END_TEST

START_TEST(read_with_the_users_rights)
{
	char err[256];
	bool missing;

	/* the user's own file that the user may not read (root could) */
	as_user_file("home/locked.out", "locked\n", 0000);
	ck_assert_ptr_null(read_user("home/locked.out", 1 << 20, &missing, err, sizeof(err)));
	ck_assert_str_eq(err, strerror(EACCES));
	/* the user's file in a directory only root may enter */
	mkdir_p(base, "private");
	char *d = path_join(base, "private");
	ck_assert_int_eq(chmod(d, 0700), 0);
	free(d);
	as_user_file("private/out.txt", "hidden\n", 0644);
	ck_assert_ptr_null(read_user("private/out.txt", 1 << 20, &missing, err, sizeof(err)));
	ck_assert_str_eq(err, strerror(EACCES));
	/* and the thread is root again afterwards */
	ck_assert_int_eq(setfsuid((uid_t)-1), 0);
	ck_assert_int_eq(setfsgid((gid_t)-1), 0);
	FILE *f = fopen("/etc/shadow", "r");
	ck_assert_ptr_nonnull(f);
	fclose(f);
}
END_TEST

/* The path flips between the user's file and a symlink to /etc/shadow (and
 * a root-owned file) while it is read: every read gives the user's bytes
 * or nothing. */
static volatile int flipping;

static void *flipper(void *arg)
{
	char *dst = path_join(base, "home/flip.out"), *good = path_join(base, "home/good.tmp"),
	     *rootf = path_join(base, "home/rootf.tmp"), *tmp = path_join(base, "home/next.tmp");

	(void)arg;
	while (flipping) {
		/* each rename swaps what the path names, atomically */
		if (link(good, tmp) == 0)
			rename(tmp, dst); /* the user's file */
		if (symlink("/etc/shadow", tmp) == 0)
			rename(tmp, dst); /* a symlink to /etc/shadow */
		if (link(rootf, tmp) == 0)
			rename(tmp, dst); /* root's file */
	}
	free(dst);
	free(good);
	free(rootf);
	free(tmp);
	return NULL;
}

START_TEST(path_swapped_while_read)
{
	char err[256];
	pthread_t t;
	bool missing;
	int good = 0;

	as_user_file("home/good.tmp", "the user's output\n", 0644);
	write_file(base, "home/rootf.tmp", "root only\n");
	flipping = 1;
	ck_assert_int_eq(pthread_create(&t, NULL, flipper, NULL), 0);
	for (int i = 0; i < 3000; i++) {
		char *d = read_user("home/flip.out", 1 << 20, &missing, err, sizeof(err));

		if (d) {
			ck_assert_str_eq(d, "the user's output\n");
			good++;
		}
		free(d);
	}
	flipping = 0;
	pthread_join(t, NULL);
	(void)good; /* how many reads won the race varies */
}
END_TEST

/* casebuild: a record whose std_out is a symlink to /etc/shadow and whose
 * std_err is the user's file. */
START_TEST(case_never_holds_shadow)
{
	struct attrib_config conf;
	struct json_object *rec, *cov = json_object_new_array();
	char buf[2048], err[256], *sp = path_join(base, "home/slurm-9.out");
	char *state = path_join(base, "state"), *fifo = path_join(base, "home/fifo.err");

	ck_assert_int_eq(config_load(NULL, &conf, stderr), 0);
	free(conf.state_dir);
	conf.state_dir = state;
	/* the service's own reading of the output (a bundle's is collect-node.sh's) */
	free(conf.read_job_output);
	conf.read_job_output = strdup("yes");
	ck_assert_int_eq(spool_prepare(conf.state_dir, err, sizeof(err)), 0);
	ck_assert_int_eq(symlink("/etc/shadow", sp), 0);
	free(sp);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	ck_assert_int_eq(chown(fifo, uid, gid), 0);
	free(fifo);
	as_user_file("home/train.err", "Traceback: CUDA error: oops\n", 0600);
	snprintf(buf, sizeof(buf),
		 "{\"schema\":\"attrib.job/v1\",\"job_id\":\"9\",\"nodes\":[\"a\"],"
		 "\"start_time\":\"2025-11-29T08:00:00Z\",\"end_time\":\"2025-11-29T08:20:00Z\","
		 "\"state\":\"FAILED\",\"uid\":%u,\"gid\":%u,\"work_dir\":\"%s/home\","
		 "\"std_out\":\"slurm-9.out\",\"std_err\":\"%s/home/train.err\"}",
		 (unsigned)uid, (unsigned)gid, base, base);
	rec = json_tokener_parse(buf);
	ck_assert_ptr_nonnull(rec);
	char *dir = casebuild(&conf, rec, "9", 0, NULL, cov, NULL, err, sizeof(err));
	ck_assert_msg(dir != NULL, "%s", err);
	char *app = path_join(dir, "app/train.err");
	ck_assert_int_eq(access(app, F_OK), 0);
	free(app);
	app = path_join(dir, "app/slurm-9.out");
	ck_assert_int_ne(access(app, F_OK), 0);
	free(app);
	const char *c = json_object_to_json_string_ext(cov, JSON_C_TO_STRING_NOSLASHESCAPE);
	ck_assert_ptr_nonnull(strstr(c, "app/slurm-9.out"));
	ck_assert_ptr_nonnull(strstr(c, "symbolic link"));
	free(dir);
	json_object_put(rec);

	/* the same with a FIFO as std_err: casebuild returns at once */
	json_object_put(cov);
	cov = json_object_new_array();
	snprintf(buf, sizeof(buf),
		 "{\"schema\":\"attrib.job/v1\",\"job_id\":\"10\",\"nodes\":[],"
		 "\"start_time\":\"2025-11-29T08:00:00Z\",\"end_time\":\"2025-11-29T08:20:00Z\","
		 "\"state\":\"FAILED\",\"uid\":%u,\"gid\":%u,\"std_err\":\"%s/home/fifo.err\"}",
		 (unsigned)uid, (unsigned)gid, base);
	rec = json_tokener_parse(buf);
	alarm(5);
	dir = casebuild(&conf, rec, "10", 0, NULL, cov, NULL, err, sizeof(err));
	alarm(0);
	ck_assert_ptr_nonnull(dir);
	ck_assert_ptr_nonnull(strstr(json_object_to_json_string_ext(cov, JSON_C_TO_STRING_NOSLASHESCAPE),
				     "not a regular file"));
	free(dir);
	json_object_put(rec);
	json_object_put(cov);

	/* nothing in any case file holds /etc/shadow's first line */
	char line[512] = "", cmd[2048];
	FILE *sh = fopen("/etc/shadow", "r");
	ck_assert_ptr_nonnull(sh);
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), sh));
	fclose(sh);
	line[strcspn(line, "\n'")] = 0;
	ck_assert_int_gt(strlen(line), 3);
	snprintf(cmd, sizeof(cmd), "grep -rqF -- '%s' '%s/state/cases'", line, base);
	ck_assert_int_ne(system(cmd), 0);
	conf.state_dir = NULL;
	config_free(&conf);
	free(state);
}
END_TEST

int main(void)
{
	if (geteuid() != 0) {
		fprintf(stderr, "service-case: needs root (setfsuid, chown, useradd); skipped\n");
		return 77;
	}
	if (!getpwnam(TEST_USER) &&
	    system("useradd -M -s /usr/sbin/nologin " TEST_USER " >/dev/null 2>&1 || "
		   "PATH=$PATH:/usr/sbin:/sbin useradd -M -s /usr/sbin/nologin " TEST_USER) != 0) {
		fprintf(stderr, "service-case: cannot create the user " TEST_USER "; skipped\n");
		return 77;
	}
	Suite *s = suite_create("service-case");
	TCase *t = tcase_create("as the job's user");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_set_timeout(t, 60);
	tcase_add_test(t, reads_own_file);
	tcase_add_test(t, symlink_to_shadow_not_read);
	tcase_add_test(t, fifo_does_not_block);
	tcase_add_test(t, other_users_file_not_read);
	tcase_add_test(t, read_with_the_users_rights);
	tcase_add_test(t, path_swapped_while_read);
	tcase_add_test(t, case_never_holds_shadow);
	suite_add_tcase(s, t);
	return run_suite(s);
}
