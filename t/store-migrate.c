/* The store's schema migrations (store/store.c): a store of every schema
 * version attrib has shipped, with data, opened by this attrib: every
 * result is found, with the drain decisions and both queues, and the
 * store is at the newest version.  The fixtures (t/store/):
 *   v1.sql, v2.sql       the schemas of service/store.c at the commits that
 *                        introduced them (git history), data written by hand
 *   v3-0.1.0.sql         the dump of a store written by the previous
 *                        release itself (attrib 0.1.0, commit 6d62856: its
 *                        attrib serve and attrib drain, run by
 *                        t/store/previous-release.sh)
 * and a failed step leaves a store as it was. */
#include <json-c/json.h>
#include <sqlite3.h>
#include "testutil.h"
#include "store.h"
#include "label.h"

static char *fixture_sql(const char *name)
{
	char path[1024];
	FILE *f;
	long n;
	char *sql;

	snprintf(path, sizeof(path), "%s/t/store/%s", SRCDIR, name);
	ck_assert_msg((f = fopen(path, "r")) != NULL, "%s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	sql = malloc(n + 1);
	ck_assert_int_eq(fread(sql, 1, n, f), (size_t)n);
	sql[n] = 0;
	fclose(f);
	return sql;
}

/* dir/attrib.db made from the fixture, as its release left it */
static void make_store(const char *dir, const char *fixture, char *db, size_t len)
{
	char *sql = fixture_sql(fixture);
	sqlite3 *raw;

	snprintf(db, len, "%s/attrib.db", dir);
	ck_assert_int_eq(sqlite3_open(db, &raw), SQLITE_OK);
	ck_assert_msg(sqlite3_exec(raw, sql, NULL, NULL, NULL) == SQLITE_OK, "%s: %s", fixture,
		      sqlite3_errmsg(raw));
	sqlite3_close(raw);
	free(sql);
}

static long long raw_int(const char *db, const char *sql)
{
	sqlite3 *raw;
	sqlite3_stmt *q;
	long long v = -1;

	ck_assert_int_eq(sqlite3_open_v2(db, &raw, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	ck_assert_msg(sqlite3_prepare_v2(raw, sql, -1, &q, NULL) == SQLITE_OK, "%s: %s", sql,
		      sqlite3_errmsg(raw));
	if (sqlite3_step(q) == SQLITE_ROW)
		v = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	sqlite3_close(raw);
	return v;
}

/* Every (job, attempt, result_json) of the store as it is, before it is
 * opened by this attrib. */
struct stored {
	char job[64];
	long attempt;
	char *json;
};

static int before(const char *db, struct stored *out, int max)
{
	sqlite3 *raw;
	sqlite3_stmt *q;
	int n = 0;

	ck_assert_int_eq(sqlite3_open_v2(db, &raw, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(raw, "SELECT job_id, attempt, result_json FROM results", -1, &q,
					    NULL),
			 SQLITE_OK);
	while (sqlite3_step(q) == SQLITE_ROW && n < max) {
		snprintf(out[n].job, sizeof(out[n].job), "%s", sqlite3_column_text(q, 0));
		out[n].attempt = (long)sqlite3_column_int64(q, 1);
		out[n].json = strdup((const char *)sqlite3_column_text(q, 2));
		n++;
	}
	sqlite3_finalize(q);
	sqlite3_close(raw);
	return n;
}

static int count_row(const struct store_row *r, void *arg)
{
	(void)r;
	++*(int *)arg;
	return 0;
}

static int count_drain(const struct drain_row *r, void *arg)
{
	(void)r;
	++*(int *)arg;
	return 0;
}

/* Opens the fixture's store with this attrib (read-write as attribd does,
 * or read-only as attrib show does) and finds everything it held. */
static void upgrade(const char *fixture, int version, bool readonly)
{
	char *d = tmpdir(), db[600], err[512];
	struct stored was[64];
	int n, listed = 0;
	long long drains, comments, webhooks;
	store *s;

	make_store(d, fixture, db, sizeof(db));
	ck_assert_int_eq(raw_int(db, "PRAGMA user_version"), version);
	n = before(db, was, 64);
	ck_assert_int_gt(n, 0);
	drains = version >= 2 ? raw_int(db, "SELECT count(*) FROM drains") : 0;
	comments = raw_int(db, "SELECT count(*) FROM comment_queue WHERE done = 0");
	webhooks = version >= 3 ? raw_int(db, "SELECT count(*) FROM webhook_queue WHERE done = 0") : 0;

	/* v5: the nodes each result names, counted here with json-c */
	long long culprit_rows = 0, affected_rows = 0;

	for (int i = 0; i < n; i++) {
		struct json_object *o = json_tokener_parse(was[i].json), *a;

		if (o && json_object_object_get_ex(o, "culprit_nodes", &a))
			culprit_rows += (long long)json_object_array_length(a);
		if (o && json_object_object_get_ex(o, "affected_nodes", &a))
			affected_rows += (long long)json_object_array_length(a);
		json_object_put(o);
	}
	s = store_open(db, readonly, err, sizeof(err));
	ck_assert_msg(s != NULL, "%s: %s", fixture, err);
	for (int i = 0; i < n; i++) {
		long got = -1;
		char *json = store_get(s, was[i].job, was[i].attempt, &got);

		ck_assert_msg(json != NULL, "%s: job %s attempt %ld lost", fixture, was[i].job,
			      was[i].attempt);
		ck_assert_str_eq(json, was[i].json);
		ck_assert_int_eq(got, was[i].attempt);
		free(json);
		free(was[i].json);
	}
	struct store_filter all = { .since = 0 };
	ck_assert_int_eq(store_list(s, &all, count_row, &listed), n);
	ck_assert_int_eq(listed, n);
	if (version >= 2) {
		int seen = 0;

		for (int i = 0; i < n; i++)
			if (i == 0 || strcmp(was[i].job, was[i - 1].job))
				store_each_drain(s, was[i].job, count_drain, &seen);
		ck_assert_int_eq(seen, drains);
	}
	if (!readonly) {
		ck_assert_int_eq(store_pending_comments(s), comments);
		ck_assert_int_eq(store_webhook_pending(s), webhooks);
	}
	store_close(s);
	ck_assert_int_eq(raw_int(db, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
	/* v4: each result's job end, filled in from its JSON (none for a
	 * result that is not JSON or has no end_time) */
	ck_assert_int_eq(raw_int(db,
				 "SELECT count(*) FROM results WHERE ended IS NOT"
				 " (CASE WHEN json_valid(result_json) THEN CAST(strftime('%s',"
				 " json_extract(result_json, '$.end_time')) AS INTEGER) END)"),
			 0);
	ck_assert_int_gt(raw_int(db, "SELECT count(*) FROM results WHERE ended > 1700000000"), 0);
	ck_assert_int_eq(raw_int(db, "SELECT count(*) FROM result_nodes WHERE culprit = 1"), culprit_rows);
	ck_assert_int_eq(raw_int(db, "SELECT count(*) FROM result_nodes WHERE culprit = 0"), affected_rows);
	/* the report's columns: not known for what was stored before */
	ck_assert_int_eq(raw_int(db,
				 "SELECT count(*) FROM results WHERE started IS NULL AND gpus IS NULL"
				 " AND partition IS NULL AND culprit_switch IS NULL"),
			 n);
	/* and it is a store this attrib writes on */
	s = store_open(db, false, err, sizeof(err));
	ck_assert_msg(s != NULL, "%s", err);
	struct store_row r = {
		.job_id = "9001",
		.attempt = 0,
		.created = 2,
		.started = 1796079600,
		.gpus = 4,
		.partition = "gpu",
		.sub_domain = "InfraHW",
		.culprits = "node-77",
		.result_json = "{\"end_time\":\"2026-12-01T00:00:00Z\","
			       "\"culprit_nodes\":[\"node-77\"],\"culprit_switch\":\"leaf-3\"}"
	};
	ck_assert_int_eq(store_put(s, &r, "c", 2), 1);
	/* v13: labels, on an upgraded store: kept, the latest counts */
	struct label_row l1 = { .job_id = "9001", .by = "t", .created = 3, .confirm = true };
	struct label_row l2 = { .job_id = "9001", .by = "t", .created = 4, .sub_domain = "UserCode" };
	struct label_row none = { .job_id = "9999", .by = "t", .created = 4, .sub_domain = "UserCode" };
	ck_assert_int_eq(store_add_label(s, &l1), 1);
	ck_assert_int_eq(store_add_label(s, &l2), 1);
	ck_assert_int_eq(store_add_label(s, &none), 0);
	store_close(s);
	ck_assert_int_eq(raw_int(db, "SELECT count(*) FROM labels WHERE job_id = '9001'"), 2);
	ck_assert_int_eq(raw_int(db,
				 "SELECT count(*) FROM labels WHERE job_id = '9001' AND confirm = 1"
				 " AND culprits = 'node-77' AND sub_domain = 'InfraHW'"),
			 1);
	ck_assert_int_eq(raw_int(db, "SELECT ended FROM results WHERE job_id = '9001'"), 1796083200);
	ck_assert_int_eq(raw_int(db,
				 "SELECT count(*) FROM results WHERE job_id = '9001' AND started = 1796079600"
				 " AND gpus = 4 AND partition = 'gpu' AND culprit_switch = 'leaf-3'"),
			 1);
	ck_assert_int_eq(raw_int(db,
				 "SELECT count(*) FROM result_nodes WHERE job_id = '9001'"
				 " AND node = 'node-77' AND culprit = 1"),
			 1);
	rmtree(d);
}

START_TEST(from_v1)
{
	upgrade("v1.sql", 1, false);
}
END_TEST

START_TEST(from_v2)
{
	upgrade("v2.sql", 2, false);
}
END_TEST

/* "opens a store written by the previous release and finds every result" */
START_TEST(from_previous_release)
{
	upgrade("v3-0.1.0.sql", 3, false);
}
END_TEST

/* attrib show, list and nodes on a store attribd has not upgraded yet */
START_TEST(readers_upgrade_first)
{
	upgrade("v1.sql", 1, true);
	upgrade("v3-0.1.0.sql", 3, true);
}
END_TEST

/* The numbered steps, on a job's end known by value: job 101 of v1 ended
 * 2026-11-29T08:12:01Z; the damaged result of job 103 has no end. */
START_TEST(ended_filled_in)
{
	char *d = tmpdir(), db[600], err[512];
	store *s;

	make_store(d, "v1.sql", db, sizeof(db));
	s = store_open(db, false, err, sizeof(err));
	ck_assert_msg(s != NULL, "%s", err);
	store_close(s);
	ck_assert_int_eq(raw_int(db, "SELECT ended FROM results WHERE job_id='101' AND attempt=0"),
			 1795939921);
	ck_assert_int_eq(raw_int(db, "SELECT ended IS NULL FROM results WHERE job_id='103'"), 1);
	rmtree(d);
}
END_TEST

/* Step 12 on the previous release's results: job 500's and 501's root
 * cause, an Xid 149 in node-02's kernel log, is vouched for; 502's, a
 * CUDA NVLink error only the job's own output (app/) shows, is not (the
 * fleet's reasoning does not count it); a result that is not JSON is not.
 * A result stored since is judged on its own "trust". */
START_TEST(vouched_filled_in)
{
	char *d = tmpdir(), db[600], err[512];
	sqlite3 *raw;
	store *s;

	make_store(d, "v3-0.1.0.sql", db, sizeof(db));
	ck_assert_int_eq(sqlite3_open(db, &raw), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(raw,
				      "INSERT INTO results(job_id, attempt, created, result_json)"
				      " VALUES('503', 0, 1, 'not json')",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(raw);
	s = store_open(db, false, err, sizeof(err));
	ck_assert_msg(s != NULL, "%s", err);
	store_close(s);
	ck_assert_int_eq(raw_int(db, "SELECT vouched FROM results WHERE job_id='500' AND attempt=0"), 1);
	ck_assert_int_eq(raw_int(db, "SELECT count(*) FROM results WHERE job_id='501' AND vouched=1"), 2);
	ck_assert_int_eq(raw_int(db, "SELECT vouched FROM results WHERE job_id='502'"), 0);
	ck_assert_int_eq(raw_int(db, "SELECT vouched FROM results WHERE job_id='503'"), 0);
	s = store_open(db, false, err, sizeof(err));
	struct store_row r = { .job_id = "504",
			       .created = 2,
			       .result_json = "{\"root_cause\":{\"code\":\"x\",\"trust\":\"job-output\","
					      "\"evidence\":[{\"file\":\"nodes/n/kern.log\"}]}}" };
	ck_assert_int_eq(store_put(s, &r, NULL, 2), 1);
	store_close(s);
	ck_assert_int_eq(raw_int(db, "SELECT vouched FROM results WHERE job_id='504'"), 0);
	rmtree(d);
}
END_TEST

/* A step that fails (here: the column it adds is there already) leaves the
 * store as it was: its version, its rows, no half-applied step. */
START_TEST(failed_step_rolls_back)
{
	char *d = tmpdir(), db[600], err[512];
	sqlite3 *raw;
	store *s;

	make_store(d, "v3-0.1.0.sql", db, sizeof(db));
	ck_assert_int_eq(sqlite3_open(db, &raw), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(raw,
				      "ALTER TABLE results ADD COLUMN ended TEXT;"
				      " UPDATE results SET ended = 'mine'",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(raw);
	long long n = raw_int(db, "SELECT count(*) FROM results");

	s = store_open(db, false, err, sizeof(err));
	ck_assert_ptr_null(s);
	ck_assert_msg(strstr(err, "from version 3 to 4") != NULL, "%s", err);
	ck_assert_int_eq(raw_int(db, "PRAGMA user_version"), 3);
	ck_assert_int_eq(raw_int(db, "SELECT count(*) FROM results"), n);
	ck_assert_int_eq(raw_int(db, "SELECT count(*) FROM results WHERE ended = 'mine'"), n);
	s = store_open(db, true, err, sizeof(err));
	ck_assert_ptr_null(s);
	ck_assert_msg(strstr(err, "not upgraded here") != NULL, "%s", err);
	rmtree(d);
}
END_TEST

/* A store of a newer attrib is refused, never downgraded; an empty file is
 * no store for the readers; a new store is made at the newest version. */
START_TEST(newer_empty_new)
{
	char *d = tmpdir(), db[600], err[512];
	sqlite3 *raw;
	store *s;

	snprintf(db, sizeof(db), "%s/attrib.db", d);
	ck_assert_int_eq(sqlite3_open(db, &raw), SQLITE_OK);
	sqlite3_close(raw);
	ck_assert_ptr_null(store_open(db, true, err, sizeof(err)));
	ck_assert_msg(strstr(err, "no attrib store") != NULL, "%s", err);
	s = store_open(db, false, err, sizeof(err));
	ck_assert_msg(s != NULL, "%s", err);
	store_close(s);
	ck_assert_int_eq(raw_int(db, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
	ck_assert_int_eq(sqlite3_open(db, &raw), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(raw, "PRAGMA user_version=99", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(raw);
	for (int ro = 0; ro < 2; ro++) {
		ck_assert_ptr_null(store_open(db, ro, err, sizeof(err)));
		ck_assert_msg(strstr(err, "newer than this attrib's") != NULL, "%s", err);
	}
	rmtree(d);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("store-migrate");
	TCase *tc = tcase_create("migrate");

	tcase_add_test(tc, from_v1);
	tcase_add_test(tc, from_v2);
	tcase_add_test(tc, from_previous_release);
	tcase_add_test(tc, readers_upgrade_first);
	tcase_add_test(tc, ended_filled_in);
	tcase_add_test(tc, vouched_filled_in);
	tcase_add_test(tc, failed_step_rolls_back);
	tcase_add_test(tc, newer_empty_new);
	suite_add_tcase(su, tc);
	return run_suite(su);
}
