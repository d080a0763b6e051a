/* attrib_analyze is re-entrant (engine/attrib.h): attrib serve runs
 * analyses beside its HTTP, accounting and webhook threads.  Several
 * analyses of different cases at once, on threads of one process, each
 * with its own worker threads and its large files cut into chunks, must
 * give each case the result it gets alone.  The cases include logs in
 * named time zones (Europe/Berlin, America/Chicago) and a POSIX TZ
 * string, read while other threads read other zones. */
#include <dirent.h>
#include <pthread.h>
#include "testutil.h"

#define MAX_CASES 128
#define ROUNDS 3

static attrib_catalog *cat;
static char *dirs[MAX_CASES], *want[MAX_CASES];
static int ncases;

static char *analyze(const char *dir, const struct attrib_options *opt)
{
	char err[512];
	struct json_object *r = attrib_analyze(cat, dir, opt, err, sizeof(err));
	char *s;

	if (!r)
		return strdup_or_die(err);
	s = strdup_or_die(json_object_to_json_string_ext(r, JSON_C_TO_STRING_PLAIN));
	json_object_put(r);
	return s;
}

struct runner {
	int first; /* the cases it runs: first, first + stride, ... */
	int stride;
	const struct attrib_options *opt;
	int mismatches;
	char msg[512];
};

static void *run(void *p)
{
	struct runner *r = p;

	for (int round = 0; round < ROUNDS; round++)
		for (int i = r->first; i < ncases; i += r->stride) {
			char *got = analyze(dirs[i], r->opt);

			if (strcmp(got, want[i])) {
				if (!r->mismatches++)
					snprintf(r->msg, sizeof(r->msg), "%s", dirs[i]);
			}
			free(got);
		}
	return NULL;
}

/* A case in a zone given as a POSIX TZ string: the same times as UTC+1
 * in winter. */
static char *posix_zone_case(void)
{
	char *dir = tmpdir();

	write_file(dir, "job.json",
		   "{\"schema\": \"attrib.job/v1\", \"job_id\": \"78\", \"nodes\": [\"n1\"],"
		   " \"start_time\": \"2025-11-29T08:00:00Z\", \"end_time\": \"2025-11-29T08:20:00Z\","
		   " \"state\": \"FAILED\", \"exit_code\": \"1:0\", \"log_timezone\": "
		   "\"CET-1CEST,M3.5.0,M10.5.0/3\"}\n");
	mkdir_p(dir, "nodes/n1");
	write_file(
		dir, "nodes/n1/kern.log",
		"Nov 29 09:05:00 n1 kernel: NVRM: Xid (PCI:0000:3a:00): 79, pid='<unknown>', name=<unknown>, "
		"GPU has fallen off the bus.\n");
	return dir;
}

START_TEST(concurrent_analyses)
{
	char path[4096];
	struct dirent **names;
	int n;

	snprintf(path, sizeof(path), "%s/t/cases", SRCDIR);
	n = scandir(path, &names, NULL, alphasort);
	ck_assert_int_gt(n, 0);
	for (int i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.' && ncases < MAX_CASES - 1)
			dirs[ncases++] = path_join(path, names[i]->d_name);
		free(names[i]);
	}
	free(names);
	char *posix = posix_zone_case();
	dirs[ncases++] = strdup_or_die(posix);

	/* alone: one thread, each file whole */
	const struct attrib_options alone = { .threads = 1 }, together = { .threads = 2, .chunk_bytes = 300 };

	for (int i = 0; i < ncases; i++)
		want[i] = analyze(dirs[i], &alone);
	ck_assert_msg(strstr(want[ncases - 1], "\"first_time\":\"2025-11-29T08:05:00Z\""),
		      "the POSIX TZ zone was not read as UTC+1: %s", want[ncases - 1]);
	/* together: six analyses at once, each on two threads, the files cut
	 * into chunks of a few hundred bytes */
	struct runner r[6];
	pthread_t t[6];

	for (int k = 0; k < 6; k++) {
		r[k] = (struct runner){ .first = k, .stride = 6, .opt = &together };
		ck_assert_int_eq(pthread_create(&t[k], NULL, run, &r[k]), 0);
	}
	for (int k = 0; k < 6; k++) {
		pthread_join(t[k], NULL);
		ck_assert_msg(!r[k].mismatches, "%d results differ run concurrently (first: %s)",
			      r[k].mismatches, r[k].msg);
	}
	for (int i = 0; i < ncases; i++) {
		free(dirs[i]);
		free(want[i]);
	}
	rmtree(posix);
}
END_TEST

int main(void)
{
	char rules[4096];
	Suite *s = suite_create("reentrant");
	TCase *t = tcase_create("reentrant");

	snprintf(rules, sizeof(rules), "%s/rules", SRCDIR);
	cat = attrib_catalog_load(getenv("ATTRIB_RULES") ? getenv("ATTRIB_RULES") : rules, test_options(),
				  stderr);
	if (!cat)
		return EXIT_FAILURE;
	tcase_set_timeout(t, 600);
	tcase_add_test(t, concurrent_analyses);
	suite_add_tcase(s, t);
	int rc = run_suite(s);
	attrib_catalog_free(cat);
	return rc;
}
