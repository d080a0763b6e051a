/* Hours lost (store/report.c): a real store in a scratch directory, results
 * put through store_put as attribd puts them, and store_report_json's
 * sums, groups, top nodes and switches, weeks and unknown GPU counts
 * checked against figures worked out by hand here; a bad grouping, an
 * empty store, a revision, and its time on 100,000 results. */
#include <json-c/json.h>
#include <sqlite3.h>
#include <time.h>
#include "testutil.h"
#include "store.h"
#include "report.h"

#define SINCE 1793491200LL /* 2026-11-01T00:00:00Z */
#define UNTIL 1795996800LL /* 2026-11-30T00:00:00Z */
#define W48 1795608000LL   /* 2026-11-25T12:00:00Z, Wednesday of 2026-W48 */
#define W47 1794916800LL   /* 2026-11-17T12:00:00Z */
#define W45 1793707200LL   /* 2026-11-03T12:00:00Z */
#define OUTSIDE 1792454400LL

struct fjob {
	const char *id;
	long attempt;
	const char *sub, *user, *partition, *culprits, *sw;
	long long gpus, ended, seconds;
	const char *trust; /* the root cause's, NULL: vouched for */
};

/* The hand-worked figures of the tests below come from these:
 * 1.0 InfraHW 8 GPUs 2 h = 16, 1.1 InfraHW 8 x 1 h = 8 (two culprits: 4
 * each), 2 UserCode 2 x 3 h = 6, 3 SchedTimeLimit 4 x 0.5 h = 2, 4 Pass
 * (not counted), 5 unattributed with no GPU count, 6 InfraNet 1 x 1 h = 1
 * in W47, 8 UserConfig 2 x 1 h = 2 in W45, 7 outside the window. */
static const struct fjob fixture[] = {
	{ "1", 0, "InfraHW", "alice", "gpu", "node-01", "leaf-1", 8, W48, 7200 },
	{ "1", 1, "InfraHW", "alice", "gpu", "node-01,node-02", NULL, 8, W48 + 3600, 3600 },
	{ "2", 0, "UserCode", "bob", "debug", NULL, NULL, 2, W48, 10800 },
	{ "3", 0, "SchedTimeLimit", "bob", "debug", NULL, NULL, 4, W48, 1800 },
	{ "4", 0, "Pass", "bob", "debug", NULL, NULL, 8, W48, 36000 },
	{ "5", 0, "unattributed", NULL, NULL, NULL, NULL, -1, W48, 600 },
	{ "6", 0, "InfraNet", "alice", "gpu", NULL, "leaf-2", 1, W47, 3600 },
	{ "7", 0, "InfraHW", "alice", "gpu", "node-03", NULL, 8, OUTSIDE, 3600 },
	{ "8", 0, "UserConfig", "carol", "debug", NULL, NULL, 2, W45, 3600 },
};

static char *result_of(const struct fjob *j)
{
	json_object *o = json_object_new_object(), *c = json_object_new_array();
	char when[40], *copy = j->culprits ? strdup(j->culprits) : NULL, *save = NULL;
	char *out;

	for (char *n = copy ? strtok_r(copy, ",", &save) : NULL; n; n = strtok_r(NULL, ",", &save))
		json_object_array_add(c, json_object_new_string(n));
	free(copy);
	json_object_object_add(o, "job_id", json_object_new_string(j->id));
	json_object_object_add(o, "outcome",
			       json_object_new_string(strcmp(j->sub, "Pass") ? "Fail" : "Pass"));
	json_object_object_add(o, "sub_domain", json_object_new_string(j->sub));
	if (strcmp(j->sub, "unattributed") && strcmp(j->sub, "Pass")) { /* a cause */
		json_object *rc = json_object_new_object();

		json_object_object_add(rc, "code", json_object_new_string("x.cause"));
		if (j->trust)
			json_object_object_add(rc, "trust", json_object_new_string(j->trust));
		json_object_object_add(o, "root_cause", rc);
	}
	json_object_object_add(o, "culprit_nodes", c);
	if (j->sw)
		json_object_object_add(o, "culprit_switch", json_object_new_string(j->sw));
	json_object_object_add(o, "end_time",
			       json_object_new_string(time_format_sec(j->ended, when, sizeof(when))));
	out = strdup(json_object_to_json_string(o));
	json_object_put(o);
	return out;
}

static void put_job(store *s, const struct fjob *j)
{
	char *json = result_of(j);
	struct store_row r = {
		.job_id = j->id,
		.attempt = j->attempt,
		.user = j->user,
		.sub_domain = j->sub,
		.culprits = j->culprits,
		.created = j->ended + 60,
		.started = j->ended - j->seconds,
		.gpus = j->gpus,
		.partition = j->partition,
		.result_json = json,
	};

	ck_assert_int_eq(store_put(s, &r, NULL, r.created), 1);
	free(json);
}

static store *filled(char **dir)
{
	char db[600], err[512];
	store *s;

	*dir = tmpdir();
	snprintf(db, sizeof(db), "%s/attrib.db", *dir);
	s = store_open(db, false, err, sizeof(err));
	ck_assert_msg(s != NULL, "%s", err);
	for (size_t i = 0; i < sizeof(fixture) / sizeof(*fixture); i++)
		put_job(s, &fixture[i]);
	return s;
}

static double num(json_object *o, const char *k)
{
	json_object *v;

	ck_assert_msg(json_object_object_get_ex(o, k, &v), "no %s in %s", k, json_object_to_json_string(o));
	return json_object_get_double(v);
}

static json_object *must_get(json_object *o, const char *k)
{
	json_object *v = NULL;

	ck_assert_msg(json_object_object_get_ex(o, k, &v), "no %s", k);
	return v;
}

/* group i of array a: its key (under name), jobs and hours */
static void group_is(json_object *a, size_t i, const char *name, const char *key, long jobs, double h)
{
	json_object *g = json_object_array_get_idx(a, i);

	ck_assert_msg(g != NULL, "no group %zu in %s", i, json_object_to_json_string(a));
	ck_assert_str_eq(json_object_get_string(must_get(g, name)), key);
	ck_assert_int_eq(num(g, "jobs"), jobs);
	ck_assert_double_eq_tol(num(g, "gpu_hours"), h, 0.0005);
}

static json_object *report(store *s, const char *by)
{
	char err[256] = "";
	json_object *o = store_report_json(s, SINCE, UNTIL, by, err, sizeof(err));

	ck_assert_msg(o != NULL, "%s", err);
	return o;
}

START_TEST(sums_and_domains)
{
	char *dir;
	store *s = filled(&dir);
	json_object *o = report(s, NULL), *d = must_get(o, "domains");

	ck_assert_str_eq(json_object_get_string(must_get(o, "since")), "2026-11-01T00:00:00Z");
	ck_assert_str_eq(json_object_get_string(must_get(o, "until")), "2026-11-30T00:00:00Z");
	ck_assert_str_eq(json_object_get_string(must_get(o, "by")), "sub_domain");
	ck_assert_int_eq(num(o, "jobs"), 7); /* not Pass, not job 7 */
	ck_assert_double_eq_tol(num(o, "gpu_hours"), 35, 0.0005);
	ck_assert_int_eq(num(o, "unknown_gpus"), 1);
	ck_assert_double_eq_tol(num(d, "infra"), 25, 0.0005);
	ck_assert_double_eq_tol(num(d, "user"), 8, 0.0005);
	ck_assert_double_eq_tol(num(d, "scheduler"), 2, 0.0005);
	ck_assert_double_eq_tol(num(d, "unknown"), 0, 0.0005);
	ck_assert_int_eq(json_object_object_length(d), 4);

	json_object *g = must_get(o, "groups");
	ck_assert_int_eq(json_object_array_length(g), 6);
	group_is(g, 0, "key", "InfraHW", 2, 24);
	group_is(g, 1, "key", "UserCode", 1, 6);
	group_is(g, 2, "key", "SchedTimeLimit", 1, 2);
	group_is(g, 3, "key", "UserConfig", 1, 2);
	group_is(g, 4, "key", "InfraNet", 1, 1);
	group_is(g, 5, "key", "unattributed", 1, 0);
	ck_assert_double_eq_tol(num(json_object_array_get_idx(g, 0), "share"), 24.0 / 35, 0.0005);

	/* top nodes: job 1.1's 8 hours shared by its two culprits */
	json_object *n = must_get(o, "top_nodes");
	ck_assert_int_eq(json_object_array_length(n), 2);
	group_is(n, 0, "node", "node-01", 2, 20);
	group_is(n, 1, "node", "node-02", 1, 4);
	json_object *w = must_get(o, "top_switches");
	ck_assert_int_eq(json_object_array_length(w), 2);
	group_is(w, 0, "switch", "leaf-1", 1, 16);
	group_is(w, 1, "switch", "leaf-2", 1, 1);
	json_object_put(o);
	store_close(s);
	rmtree(dir);
}
END_TEST

START_TEST(groups_by_each_dimension)
{
	char *dir;
	store *s = filled(&dir);
	json_object *o, *g;
	double share = 0;

	o = report(s, "node");
	g = must_get(o, "groups");
	ck_assert_int_eq(json_object_array_length(g), 3);
	group_is(g, 0, "key", "node-01", 2, 20);
	group_is(g, 1, "key", "(none)", 5, 11);
	group_is(g, 2, "key", "node-02", 1, 4);
	for (size_t i = 0; i < 3; i++)
		share += num(json_object_array_get_idx(g, i), "share");
	ck_assert_double_eq_tol(share, 1, 0.002); /* shared hours: shares add up */
	json_object_put(o);

	o = report(s, "user");
	g = must_get(o, "groups");
	ck_assert_int_eq(json_object_array_length(g), 4);
	group_is(g, 0, "key", "alice", 3, 25);
	group_is(g, 1, "key", "bob", 2, 8);
	group_is(g, 2, "key", "carol", 1, 2);
	group_is(g, 3, "key", "(unknown)", 1, 0);
	json_object_put(o);

	o = report(s, "partition");
	g = must_get(o, "groups");
	group_is(g, 0, "key", "gpu", 3, 25);
	group_is(g, 1, "key", "debug", 3, 10);
	json_object_put(o);

	o = report(s, "domain");
	g = must_get(o, "groups");
	group_is(g, 0, "key", "infra", 3, 25);
	group_is(g, 1, "key", "user", 2, 8);
	group_is(g, 2, "key", "scheduler", 1, 2);
	group_is(g, 3, "key", "unknown", 1, 0);
	json_object_put(o);

	o = report(s, "switch");
	g = must_get(o, "groups");
	group_is(g, 0, "key", "(none)", 5, 18);
	group_is(g, 1, "key", "leaf-1", 1, 16);
	group_is(g, 2, "key", "leaf-2", 1, 1);
	json_object_put(o);
	store_close(s);
	rmtree(dir);
}
END_TEST

/* W45 to W48, W46 without a failed job at 0 */
START_TEST(weeks_trend)
{
	char *dir;
	store *s = filled(&dir);
	json_object *o = report(s, NULL), *w = must_get(o, "weeks"), *x;
	const char *names[] = { "2026-W45", "2026-W46", "2026-W47", "2026-W48" };
	const double h[] = { 2, 0, 1, 32 };

	ck_assert_int_eq(json_object_array_length(w), 4);
	for (size_t i = 0; i < 4; i++) {
		x = json_object_array_get_idx(w, i);
		ck_assert_str_eq(json_object_get_string(must_get(x, "week")), names[i]);
		ck_assert_double_eq_tol(num(x, "gpu_hours"), h[i], 0.0005);
	}
	x = must_get(json_object_array_get_idx(w, 3), "by_sub_domain");
	ck_assert_double_eq_tol(num(x, "InfraHW"), 24, 0.0005);
	ck_assert_double_eq_tol(num(x, "UserCode"), 6, 0.0005);
	ck_assert_double_eq_tol(num(x, "unattributed"), 0, 0.0005);
	ck_assert(!json_object_object_get_ex(x, "Pass", NULL));
	ck_assert_int_eq(json_object_object_length(
				 must_get(json_object_array_get_idx(w, 1), "by_sub_domain")),
			 0);
	json_object_put(o);

	/* a week across the new year is its Thursday's: 2027-01-01 is 2026-W53 */
	struct store_row r = { .job_id = "90",
			       .sub_domain = "InfraHW",
			       .created = 1798804800,
			       .started = 1798801200,
			       .gpus = 1,
			       .result_json = "{\"end_time\":\"2027-01-01T12:00:00Z\"}" };
	char err[256];

	ck_assert_int_eq(store_put(s, &r, NULL, r.created), 1);
	o = store_report_json(s, 1798761600, 1798848000, "sub_domain", err, sizeof(err));
	ck_assert_msg(o != NULL, "%s", err);
	w = must_get(o, "weeks");
	ck_assert_int_eq(json_object_array_length(w), 1);
	ck_assert_str_eq(json_object_get_string(must_get(json_object_array_get_idx(w, 0), "week")),
			 "2026-W53");
	ck_assert_double_eq_tol(num(o, "gpu_hours"), 1, 0.0005);
	json_object_put(o);
	store_close(s);
	rmtree(dir);
}
END_TEST

START_TEST(bad_by_and_empty_store)
{
	char *dir = tmpdir(), db[600], err[256] = "";
	store *s;
	json_object *o;

	snprintf(db, sizeof(db), "%s/attrib.db", dir);
	ck_assert_ptr_nonnull(s = store_open(db, false, err, sizeof(err)));
	ck_assert_ptr_null(store_report_json(s, 0, 0, "colour", err, sizeof(err)));
	ck_assert_msg(strstr(err, "\"colour\"") && strstr(err, "sub_domain"), "%s", err);
	o = store_report_json(s, 0, 0, "node", err, sizeof(err));
	ck_assert_msg(o != NULL, "%s", err);
	ck_assert_int_eq(num(o, "jobs"), 0);
	ck_assert_double_eq(num(o, "gpu_hours"), 0);
	ck_assert_int_eq(num(o, "unknown_gpus"), 0);
	ck_assert_int_eq(json_object_array_length(must_get(o, "groups")), 0);
	ck_assert_int_eq(json_object_array_length(must_get(o, "weeks")), 0);
	ck_assert_int_eq(json_object_array_length(must_get(o, "top_nodes")), 0);
	ck_assert_double_eq(num(must_get(o, "domains"), "infra"), 0);
	json_object_put(o);
	store_close(s);
	rmtree(dir);
}
END_TEST

/* Infrastructure verdicts only the job's own output tells of (trust
 * job-output), or files anyone may write (unauthenticated): 8 GPUs x 1 h
 * and 2 x 1 h in W48 on node-09 under leaf-9.  They are failed jobs and
 * keep their sub-domain, but the infra share, the culprit nodes and the
 * switches count what evidence only root, the kernel or Slurm writes
 * vouches for: their hours are "unknown", under no node or switch. */
START_TEST(job_output_is_not_infra)
{
	static const struct fjob own[] = {
		{ "9", 0, "InfraHW", "mal", "gpu", "node-09", "leaf-9", 8, W48, 3600, "job-output" },
		{ "10", 0, "InfraSW", "eve", "gpu", "node-09", NULL, 2, W48, 3600, "unauthenticated" },
	};
	char *dir;
	store *s = filled(&dir);
	json_object *o, *d, *g;

	for (size_t i = 0; i < 2; i++)
		put_job(s, &own[i]);
	o = report(s, NULL);
	d = must_get(o, "domains");
	ck_assert_int_eq(num(o, "jobs"), 9);
	ck_assert_double_eq_tol(num(o, "gpu_hours"), 45, 0.0005);
	ck_assert_double_eq_tol(num(d, "infra"), 25, 0.0005); /* as without them */
	ck_assert_double_eq_tol(num(d, "unknown"), 10, 0.0005);
	ck_assert_int_eq(num(must_get(o, "unvouched"), "jobs"), 2);
	ck_assert_double_eq_tol(num(must_get(o, "unvouched"), "gpu_hours"), 10, 0.0005);
	group_is(must_get(o, "groups"), 0, "key", "InfraHW", 3, 32); /* the diagnosis' own sub-domain */
	g = must_get(o, "top_nodes");
	ck_assert_int_eq(json_object_array_length(g), 2); /* node-01, node-02: not node-09 */
	group_is(g, 0, "node", "node-01", 2, 20);
	group_is(g, 1, "node", "node-02", 1, 4);
	g = must_get(o, "top_switches");
	ck_assert_int_eq(json_object_array_length(g), 2); /* leaf-1, leaf-2: not leaf-9 */
	group_is(g, 0, "switch", "leaf-1", 1, 16);
	json_object_put(o);

	o = report(s, "node");
	group_is(must_get(o, "groups"), 0, "key", "(none)", 7, 21); /* 11 before, and their 10 whole */
	group_is(must_get(o, "groups"), 1, "key", "node-01", 2, 20);
	json_object_put(o);
	o = report(s, "domain");
	group_is(must_get(o, "groups"), 0, "key", "infra", 3, 25);
	group_is(must_get(o, "groups"), 1, "key", "unknown", 3, 10);
	json_object_put(o);

	/* the same verdict vouched for counts as infra, under its node */
	static const struct fjob vouched = { "11",     0, "InfraHW", "ana", "gpu", "node-09",
					     "leaf-9", 8, W48,	     3600,  NULL };
	put_job(s, &vouched);
	o = report(s, NULL);
	ck_assert_double_eq_tol(num(must_get(o, "domains"), "infra"), 33, 0.0005);
	group_is(must_get(o, "top_nodes"), 0, "node", "node-01", 2, 20);
	group_is(must_get(o, "top_nodes"), 1, "node", "node-09", 1, 8);
	group_is(must_get(o, "top_switches"), 0, "switch", "leaf-1", 1, 16);
	group_is(must_get(o, "top_switches"), 1, "switch", "leaf-9", 1, 8);
	json_object_put(o);
	store_close(s);
	rmtree(dir);
}
END_TEST

/* late evidence revises a result: its hours are the revision's */
START_TEST(revision_counts_once)
{
	char *dir;
	store *s = filled(&dir);
	char *json = result_of(&fixture[2]);
	struct store_row r = { .job_id = "2",
			       .sub_domain = "InfraHW",
			       .created = W48,
			       .started = W48 - 10800,
			       .gpus = 4,
			       .result_json = json };
	json_object *o;

	ck_assert_int_eq(store_revise(s, &r, NULL, W48), 1);
	free(json);
	o = report(s, NULL);
	ck_assert_int_eq(num(o, "jobs"), 7);
	ck_assert_double_eq_tol(num(o, "gpu_hours"), 35 - 6 + 12, 0.0005);
	ck_assert_double_eq_tol(num(must_get(o, "domains"), "infra"), 25 + 12, 0.0005);
	json_object_put(o);
	store_close(s);
	rmtree(dir);
}
END_TEST

/* 100,000 failed results of 3 KB each (rows written in one transaction: store_put's
 * fsync per result would take minutes), each naming a culprit node: the
 * report by node, the costliest grouping, in well under a second on a
 * loaded machine (bounded here at 10 s for sanitizer builds). */
START_TEST(hundred_thousand_results)
{
	char *dir = tmpdir(), db[600], err[256];
	store *s;
	sqlite3 *raw;
	struct timespec t0, t1;
	json_object *o;

	snprintf(db, sizeof(db), "%s/attrib.db", dir);
	ck_assert_ptr_nonnull(s = store_open(db, false, err, sizeof(err)));
	ck_assert_int_eq(sqlite3_open(db, &raw), SQLITE_OK);
	ck_assert_int_eq(
		sqlite3_exec(
			raw,
			"BEGIN;"
			"WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i WHERE n < 100000)"
			" INSERT INTO results(job_id, attempt, user, sub_domain, created, result_json,"
			" ended, started, gpus, partition, culprit_switch, vouched)"
			" SELECT n, 0, 'u' || (n % 50), CASE n % 3 WHEN 0 THEN 'InfraHW'"
			" WHEN 1 THEN 'UserCode' ELSE 'SchedTimeLimit' END, 1795000000 + n,"
			" printf('{\"explanation\":\"%s\"}', hex(randomblob(1500))),"
			" 1795000000 + n, 1795000000 + n - 3600, 8, 'gpu', 'leaf-' || (n % 40), 1 FROM i;"
			"INSERT INTO result_nodes SELECT job_id, 0, 'node-' || (CAST(job_id AS INTEGER) % "
			"500),"
			" 1 FROM results;"
			"COMMIT;",
			NULL, NULL, NULL),
		SQLITE_OK);
	sqlite3_close(raw);
	clock_t c0 = clock();

	clock_gettime(CLOCK_MONOTONIC, &t0);
	o = store_report_json(s, SINCE, UNTIL, "node", err, sizeof(err));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double cpu = (double)(clock() - c0) / CLOCKS_PER_SEC;
	ck_assert_msg(o != NULL, "%s", err);
	double secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;

	printf("# store_report_json, by node, 100000 results: %.3f s (%.3f s of CPU)\n", secs, cpu);
	ck_assert_int_eq(num(o, "jobs"), 100000);
	ck_assert_double_eq_tol(num(o, "gpu_hours"), 800000, 0.0005);
	ck_assert_int_eq(json_object_array_length(must_get(o, "groups")), 500);
	ck_assert_int_eq(json_object_array_length(must_get(o, "top_nodes")), 10);
	ck_assert_int_eq(json_object_array_length(must_get(o, "top_switches")), 10);
	ck_assert_double_lt(secs, 10);
	json_object_put(o);
	store_close(s);
	if (getenv("KEEP"))
		printf("# kept %s\n", dir);
	else
		rmtree(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("report");
	TCase *t = tcase_create("report");

	tcase_set_timeout(t, 120);
	tcase_add_test(t, sums_and_domains);
	tcase_add_test(t, groups_by_each_dimension);
	tcase_add_test(t, weeks_trend);
	tcase_add_test(t, bad_by_and_empty_store);
	tcase_add_test(t, job_output_is_not_infra);
	tcase_add_test(t, revision_counts_once);
	tcase_add_test(t, hundred_thousand_results);
	suite_add_tcase(s, t);
	return run_suite(s);
}
