/* The store: STATE/attrib.db (SQLite, WAL, mode 0600).  One result per job
 * attempt, keyed by (job_id, attempt): the result and the queue entry of its
 * accounting comment are written in one transaction, so a job attempt is
 * attributed exactly once however often the service is killed. */
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <json-c/json.h>
#include "contract.h"
#include "timefmt.h"
#include "internal.h"

/* A result's end_time (RFC 3339) as Unix time, NULL when it has none; the
 * JSON is what a store holds, so it may not be JSON at all. */
#define ENDED_OF(json) \
	"(CASE WHEN json_valid(" json ") THEN CAST(strftime('%s'," \
	" json_extract(" json ", '$.end_time')) AS INTEGER) END)"

/* A result's culprit switch (its culprit_switch: a name, or an object
 * with one), NULL when it names none. */
#define SWITCH_OF(json) \
	"(CASE WHEN json_valid(" json ") THEN CASE json_type(" json ", '$.culprit_switch')" \
	" WHEN 'text' THEN json_extract(" json ", '$.culprit_switch')" \
	" WHEN 'object' THEN json_extract(" json ", '$.culprit_switch.name') END END)"

/* Whether a result stored before the engine said "job-output" rests on
 * evidence its job's user could not have written (migration 12): its
 * root cause (or, without one, each candidate of role root) without a
 * "trust", with a line shown outside app/.  Results stored since are
 * judged by result_cause_vouched (common/contract.c) on the engine's own
 * "trust"; this reads what the old ones show (at most a few lines of each
 * symptom, so a cause with a node line past them counts as the job's word:
 * less blame, never more). */
#define VOUCHED_OF_RESULT \
	"(CASE WHEN NOT json_valid(result_json) THEN 0" \
	" WHEN json_type(result_json, '$.root_cause') = 'object' THEN" \
	"  json_type(result_json, '$.root_cause.trust') IS NULL" \
	"  AND EXISTS (SELECT 1 FROM json_each(result_json, '$.root_cause.evidence') e" \
	"   WHERE json_extract(e.value, '$.file') NOT LIKE 'app/%')" \
	" ELSE EXISTS (SELECT 1 FROM json_each(result_json, '$.symptoms') s" \
	"  WHERE json_extract(s.value, '$.role') = 'root')" \
	" AND NOT EXISTS (SELECT 1 FROM json_each(result_json, '$.symptoms') s" \
	"  WHERE json_extract(s.value, '$.role') = 'root' AND (json_type(s.value, '$.trust') IS NOT NULL" \
	"   OR NOT EXISTS (SELECT 1 FROM json_each(s.value, '$.evidence') e" \
	"    WHERE json_extract(e.value, '$.file') NOT LIKE 'app/%'))) END)"

/* The schema's history.  Step N brings a store from version N-1 to N
 * (PRAGMA user_version); a released step is never edited, since stores of
 * its version exist: a change is a new step at the end, and
 * t/store-migrate.c gets a fixture of the version before it.  Every step
 * due runs in one transaction with the new user_version, so a store is at
 * one version or the next, never between (a failed step leaves it as it
 * was). */
static const char *const migrations[] = {
	/* 1 (0.1.0): one result per job attempt, the accounting comments' queue */
	"CREATE TABLE results("
	" job_id TEXT NOT NULL, attempt INTEGER NOT NULL, cluster TEXT, user TEXT,"
	" state TEXT, sub_domain TEXT, culprits TEXT, root_code TEXT,"
	" created INTEGER NOT NULL, result_json TEXT NOT NULL,"
	" PRIMARY KEY(job_id, attempt));"
	"CREATE INDEX results_created ON results(created);"
	"CREATE TABLE comment_queue("
	" job_id TEXT NOT NULL, attempt INTEGER NOT NULL, text TEXT NOT NULL,"
	" tries INTEGER NOT NULL DEFAULT 0, next_try INTEGER NOT NULL,"
	" done INTEGER NOT NULL DEFAULT 0,"
	" PRIMARY KEY(job_id, attempt));"
	"CREATE INDEX comment_queue_due ON comment_queue(done, next_try);",
	/* 2: every drain done, refused or shown, and who decided it */
	"CREATE TABLE drains("
	" job_id TEXT NOT NULL, attempt INTEGER NOT NULL, node TEXT NOT NULL,"
	" reason TEXT NOT NULL, decision TEXT NOT NULL, decided_by TEXT NOT NULL,"
	" created INTEGER NOT NULL);"
	"CREATE INDEX drains_created ON drains(created);",
	/* 3: the webhook's deliveries, one per result, kept once delivered */
	"CREATE TABLE webhook_queue("
	" job_id TEXT NOT NULL, attempt INTEGER NOT NULL,"
	" tries INTEGER NOT NULL DEFAULT 0, next_try INTEGER NOT NULL,"
	" done INTEGER NOT NULL DEFAULT 0, delivered INTEGER, last_error TEXT,"
	" PRIMARY KEY(job_id, attempt));"
	"CREATE INDEX webhook_queue_due ON webhook_queue(done, next_try);",
	/* 4: the job's end (Unix time) as a column: attrib nodes took it from
	 * the JSON of every result in its window, each time; the results
	 * stored before are given theirs */
	"ALTER TABLE results ADD COLUMN ended INTEGER;"
	"UPDATE results SET ended = " ENDED_OF("result_json") ";",
	/* 5: the nodes a result names, as rows (attrib nodes and attrib list
	 * --node read them there, not by paths inside every result's JSON);
	 * the results stored before are given theirs */
	"CREATE TABLE result_nodes("
	" job_id TEXT NOT NULL, attempt INTEGER NOT NULL, node TEXT NOT NULL,"
	" culprit INTEGER NOT NULL, PRIMARY KEY(job_id, attempt, node, culprit));"
	"CREATE INDEX result_nodes_node ON result_nodes(node);"
	"INSERT OR IGNORE INTO result_nodes SELECT r.job_id, r.attempt, n.value, 1"
	" FROM results r, json_each(r.result_json, '$.culprit_nodes') n"
	" WHERE json_valid(r.result_json) AND n.type = 'text';"
	"INSERT OR IGNORE INTO result_nodes SELECT r.job_id, r.attempt, n.value, 0"
	" FROM results r, json_each(r.result_json, '$.affected_nodes') n"
	" WHERE json_valid(r.result_json) AND n.type = 'text';",
	/* 6: fleet findings (store/findings.c): conclusions across jobs, each
	 * citing its job attempts */
	"CREATE TABLE findings("
	" id INTEGER PRIMARY KEY, kind TEXT NOT NULL, subject TEXT NOT NULL,"
	" summary TEXT NOT NULL, jobs TEXT NOT NULL, created INTEGER NOT NULL);"
	"CREATE INDEX findings_subject ON findings(kind, subject, created);"
	"CREATE INDEX findings_created ON findings(created);",
	/* 7: every requeue of a failed job without its culprits, done,
	 * suggested, refused or failed, and who decided it (store/requeue.c) */
	"CREATE TABLE requeues("
	" job_id TEXT NOT NULL, attempt INTEGER NOT NULL, nodes TEXT NOT NULL,"
	" excluded TEXT NOT NULL, reason TEXT NOT NULL, decision TEXT NOT NULL,"
	" decided_by TEXT NOT NULL, created INTEGER NOT NULL);"
	"CREATE INDEX requeues_job ON requeues(job_id);",
	/* 8: the nodes' health checks (attrib-collect --health, store/health.c),
	 * and the drains of one node found by its name (undrain) */
	"CREATE TABLE health_checks("
	" node TEXT NOT NULL, received INTEGER NOT NULL, checked INTEGER NOT NULL,"
	" command TEXT NOT NULL, status INTEGER NOT NULL, timed_out INTEGER NOT NULL,"
	" passed INTEGER NOT NULL, duration_ms INTEGER NOT NULL, output TEXT NOT NULL);"
	"CREATE INDEX health_checks_node ON health_checks(node, received);"
	"CREATE INDEX drains_node ON drains(node, created);",
	/* 9: the dashboard's pages by keyset (store/api.c), and a job's drains */
	"CREATE INDEX results_page ON results(created, job_id, attempt);"
	"CREATE INDEX results_sub ON results(sub_domain, created, job_id, attempt);"
	"CREATE INDEX results_user ON results(user, created, job_id, attempt);"
	"CREATE INDEX drains_job ON drains(job_id, attempt);",
	/* 10: a drain decided for a fleet finding (a repeat offender) names it;
	 * NULL for a drain decided for one job's diagnosis */
	"ALTER TABLE drains ADD COLUMN finding INTEGER;",
	/* 11: what attrib report sums (GPU-hours lost, store/report.c): the
	 * job's start (Unix time), its GPUs and partition from its record, and
	 * the result's culprit switch; the results stored before have no
	 * record here (NULL: not known), their switch is taken from them */
	"ALTER TABLE results ADD COLUMN started INTEGER;"
	"ALTER TABLE results ADD COLUMN gpus INTEGER;"
	"ALTER TABLE results ADD COLUMN partition TEXT;"
	"ALTER TABLE results ADD COLUMN culprit_switch TEXT;"
	/* the report's window by the job's end, read from this index alone
	 * (a scan of the table reads every result's JSON along) */
	"CREATE INDEX results_report ON results(ended, created, sub_domain, gpus, started,"
	" job_id, attempt, user, partition, culprit_switch);"
	"UPDATE results SET culprit_switch = " SWITCH_OF("result_json") ";",
	/* 12: whether the result's cause is vouched for by evidence its job's
	 * user could not have written (common/contract.h,
	 * result_cause_vouched): the fleet's reasoning (repeat offenders,
	 * the report's infrastructure share and culprits) counts only those;
	 * the results stored before are judged by what they show */
	"ALTER TABLE results ADD COLUMN vouched INTEGER;"
	"UPDATE results SET vouched = " VOUCHED_OF_RESULT ";"
	"DROP INDEX results_report;"
	"CREATE INDEX results_report ON results(ended, created, sub_domain, gpus, started,"
	" job_id, attempt, user, partition, culprit_switch, vouched);",
	/* 13: admins' labels (store/label.c): what the admin found of a
	 * diagnosis, every label kept, the latest counting */
	"CREATE TABLE labels("
	" id INTEGER PRIMARY KEY, job_id TEXT NOT NULL, attempt INTEGER NOT NULL,"
	" by TEXT NOT NULL, created INTEGER NOT NULL, confirm INTEGER NOT NULL,"
	" sub_domain TEXT, culprits TEXT NOT NULL DEFAULT '', cause TEXT, note TEXT);"
	"CREATE INDEX labels_job ON labels(job_id, attempt, created);",
};
_Static_assert(sizeof(migrations) / sizeof(*migrations) == STORE_SCHEMA_VERSION,
	       "STORE_SCHEMA_VERSION is the number of migrations");

static int fail(store *s, char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s: %s", what, s && s->db ? sqlite3_errmsg(s->db) : "out of memory");
	return -1;
}

static int user_version(store *s)
{
	sqlite3_stmt *st;
	int version = -1;

	if (sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			version = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	return version;
}

/* The steps from version to the newest, in the transaction open at the
 * caller's BEGIN IMMEDIATE (which commits or rolls back). */
static int migrate(store *s, int version, char *err, size_t errlen)
{
	char pragma[64];

	for (int v = version; v < STORE_SCHEMA_VERSION; v++)
		if (sqlite3_exec(s->db, migrations[v], NULL, NULL, NULL) != SQLITE_OK) {
			snprintf(err, errlen, "upgrading the schema from version %d to %d: %s", v, v + 1,
				 sqlite3_errmsg(s->db));
			return -1;
		}
	snprintf(pragma, sizeof(pragma), "PRAGMA user_version=%d", STORE_SCHEMA_VERSION);
	if (sqlite3_exec(s->db, pragma, NULL, NULL, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(s->db));
		return -1;
	}
	return 0;
}

static store *open_rw(const char *path, char *err, size_t errlen);

store *store_open(const char *path, bool readonly, char *err, size_t errlen)
{
	store *s;
	int version;

	if (!readonly)
		return open_rw(path, err, errlen);
	if (access(path, F_OK) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (!(s = calloc(1, sizeof(*s)))) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		fail(s, err, errlen, path);
		store_close(s);
		return NULL;
	}
	sqlite3_busy_timeout(s->db, 10000);
	version = user_version(s);
	if (version == STORE_SCHEMA_VERSION)
		return s;
	store_close(s);
	if (version > STORE_SCHEMA_VERSION) {
		snprintf(err, errlen, "%s: schema version %d is newer than this attrib's (%d)", path, version,
			 STORE_SCHEMA_VERSION);
		return NULL;
	}
	if (version < 1) {
		snprintf(err, errlen, "%s: no attrib store (schema version %d)", path, version);
		return NULL;
	}
	/* an older release's store: upgraded first (the readers' queries are
	 * the newest schema's), as attribd does when it starts */
	char why[400];
	if (!(s = open_rw(path, why, sizeof(why)))) {
		snprintf(err, errlen,
			 "%s: schema version %d, older than this attrib's (%d), and not "
			 "upgraded here (attribd upgrades it when it starts): %s",
			 path, version, STORE_SCHEMA_VERSION, why);
		return NULL;
	}
	store_close(s);
	return store_open(path, true, err, errlen);
}

static store *open_rw(const char *path, char *err, size_t errlen)
{
	store *s = calloc(1, sizeof(*s));
	int version;

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (access(path, F_OK) < 0) {
		/* created 0600 before SQLite opens it (its -wal and -shm files
		 * take the database's mode).  Only when it does not exist: closing
		 * any descriptor of the database drops every POSIX lock this
		 * process holds on it, those of its open connections included
		 * (the service opens one per thread); another process's sqlite3
		 * then believed itself the last user and deleted the live WAL,
		 * and with it every result stored since (t/live-faults.sh). */
		int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);

		if (fd < 0 && errno != EEXIST) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			free(s);
			return NULL;
		}
		if (fd >= 0) {
			fchmod(fd, 0600);
			close(fd);
		}
	}
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		fail(s, err, errlen, path);
		store_close(s);
		return NULL;
	}
	sqlite3_busy_timeout(s->db, 10000);
	if (sqlite3_exec(s->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;", NULL, NULL, NULL) !=
		    SQLITE_OK ||
	    sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
		fail(s, err, errlen, path);
		store_close(s);
		return NULL;
	}
	version = user_version(s);
	if (version > STORE_SCHEMA_VERSION) {
		snprintf(err, errlen, "%s: schema version %d is newer than this attrib's (%d)", path, version,
			 STORE_SCHEMA_VERSION);
		store_close(s);
		return NULL;
	}
	if (version < 0 || (version < STORE_SCHEMA_VERSION && migrate(s, version, err, errlen) < 0)) {
		if (version < 0)
			fail(s, err, errlen, path);
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		store_close(s);
		return NULL;
	}
	if (sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		fail(s, err, errlen, path);
		store_close(s);
		return NULL;
	}
	return s;
}

void store_close(store *s)
{
	if (!s)
		return;
	sqlite3_close(s->db);
	free(s);
}

static int exists(store *s, const char *sql, const char *job_id, long attempt)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, job_id, -1, SQLITE_STATIC);
	if (attempt >= 0)
		sqlite3_bind_int64(st, 2, attempt);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

int store_has_result(store *s, const char *job_id, long attempt)
{
	return exists(s, "SELECT 1 FROM results WHERE job_id=?1 AND attempt=?2", job_id, attempt);
}

int store_has_any_result(store *s, const char *job_id)
{
	return exists(s, "SELECT 1 FROM results WHERE job_id=?1", job_id, -1);
}

static void bind_opt(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

/* A result's row: ?1 job_id, ?2 attempt, ?3..?8 its columns, its JSON as
 * parameter json_at and its end (Unix time, or NULL) after it (store_put
 * and store_revise write the same row); v: the result read, or NULL. */
static void bind_row(sqlite3_stmt *st, const struct store_row *r, int json_at, const struct result_view *v)
{
	double ended;

	sqlite3_bind_text(st, 1, r->job_id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, r->attempt);
	bind_opt(st, 3, r->cluster);
	bind_opt(st, 4, r->user);
	bind_opt(st, 5, r->state);
	bind_opt(st, 6, r->sub_domain);
	bind_opt(st, 7, r->culprits);
	bind_opt(st, 8, r->root_code);
	sqlite3_bind_text(st, json_at, r->result_json, -1, SQLITE_TRANSIENT);
	if (v && v->end_time && time_parse_rfc3339(v->end_time, &ended))
		sqlite3_bind_int64(st, json_at + 1, (long long)ended);
	else
		sqlite3_bind_null(st, json_at + 1);
}

/* The row's nodes in result_nodes, replacing what (job, attempt) had:
 * inside the caller's transaction.  0 or -1. */
static int put_nodes(store *s, const struct store_row *r, const struct result_view *view)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;

	if (sqlite3_prepare_v2(s->db, "DELETE FROM result_nodes WHERE job_id=?1 AND attempt=?2", -1, &st,
			       NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, r->job_id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, r->attempt);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto out;
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(s->db, "INSERT OR IGNORE INTO result_nodes VALUES(?1,?2,?3,?4)", -1, &st,
			       NULL) != SQLITE_OK)
		return -1;
	for (int culprit = 0; view && culprit < 2; culprit++) {
		struct json_object *a = culprit ? view->culprit_nodes : view->affected_nodes;

		for (size_t i = 0; i < result_array_len(a); i++) {
			const char *node = result_array_str(a, i);

			if (!node)
				continue;
			sqlite3_reset(st);
			sqlite3_bind_text(st, 1, r->job_id, -1, SQLITE_TRANSIENT);
			sqlite3_bind_int64(st, 2, r->attempt);
			sqlite3_bind_text(st, 3, node, -1, SQLITE_TRANSIENT);
			sqlite3_bind_int(st, 4, culprit);
			if (sqlite3_step(st) != SQLITE_DONE)
				goto out;
		}
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

/* The row's columns for attrib report (migrations 11, 12), inside the
 * caller's transaction; its switch from its result as stored, whether its
 * cause is vouched for from the result read (v; NULL: not JSON).  0 or
 * -1. */
static int put_report_columns(store *s, const struct store_row *r, const struct result_view *v)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(s->db,
			       "UPDATE results SET started=?3, gpus=?4, partition=?5, vouched=?6, "
			       "culprit_switch=" SWITCH_OF("result_json") " WHERE job_id=?1 AND attempt=?2",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int(st, 6, v && result_cause_vouched(v));
	sqlite3_bind_text(st, 1, r->job_id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, r->attempt);
	if (r->started > 0)
		sqlite3_bind_int64(st, 3, r->started);
	if (r->gpus >= 0)
		sqlite3_bind_int64(st, 4, r->gpus);
	bind_opt(st, 5, r->partition);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	sqlite3_finalize(st);
	return rc;
}

static int put_row(store *s, const struct store_row *r, const char *comment, long long now,
		   const struct result_view *v)
{
	sqlite3_stmt *st = NULL;
	int inserted;

	if (sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_prepare_v2(s->db,
			       "INSERT OR IGNORE INTO results(job_id, attempt, cluster, user, state,"
			       " sub_domain, culprits, root_code, created, result_json, ended)"
			       " VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)",
			       -1, &st, NULL) != SQLITE_OK)
		goto out;
	bind_row(st, r, 10, v);
	sqlite3_bind_int64(st, 9, r->created);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto out;
	inserted = sqlite3_changes(s->db) > 0;
	sqlite3_finalize(st);
	st = NULL;
	if (inserted && (put_nodes(s, r, v) < 0 || put_report_columns(s, r, v) < 0))
		goto out;
	if (inserted && comment) {
		if (sqlite3_prepare_v2(s->db,
				       "INSERT OR IGNORE INTO comment_queue(job_id, attempt, text,"
				       " tries, next_try, done) VALUES(?1,?2,?3,0,?4,0)",
				       -1, &st, NULL) != SQLITE_OK)
			goto out;
		sqlite3_bind_text(st, 1, r->job_id, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, 2, r->attempt);
		sqlite3_bind_text(st, 3, comment, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, 4, now);
		if (sqlite3_step(st) != SQLITE_DONE)
			goto out;
	}
	sqlite3_finalize(st);
	if (sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return inserted;
out:
	sqlite3_finalize(st);
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

static int revise_row(store *s, const struct store_row *r, const char *comment, long long now,
		      const struct result_view *v)
{
	static const char *const sql[] = {
		"UPDATE results SET cluster=?3, user=?4, state=?5, sub_domain=?6, culprits=?7,"
		" root_code=?8, result_json=?9, ended=?10"
		" WHERE job_id=?1 AND attempt=?2",
		/* the summary is written again (it replaces the earlier one) */
		"INSERT OR REPLACE INTO comment_queue(job_id, attempt, text, tries, next_try, done)"
		" SELECT ?1, ?2, ?3, 0, ?4, 0 WHERE ?3 IS NOT NULL",
		/* and the Webhook told again, when it has been told before */
		"UPDATE webhook_queue SET done=0, tries=0, next_try=?4, last_error=NULL"
		" WHERE job_id=?1 AND attempt=?2",
	};
	sqlite3_stmt *st = NULL;
	int changed = 0;

	if (sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return -1;
	for (size_t i = 0; i < sizeof(sql) / sizeof(*sql); i++) {
		if (sqlite3_prepare_v2(s->db, sql[i], -1, &st, NULL) != SQLITE_OK)
			goto out;
		if (i == 0) {
			bind_row(st, r, 9, v);
		} else {
			sqlite3_bind_text(st, 1, r->job_id, -1, SQLITE_TRANSIENT);
			sqlite3_bind_int64(st, 2, r->attempt);
			bind_opt(st, 3, comment);
			sqlite3_bind_int64(st, 4, now);
		}
		if (sqlite3_step(st) != SQLITE_DONE)
			goto out;
		if (i == 0 && !(changed = sqlite3_changes(s->db) > 0))
			goto out; /* nothing to revise */
		if (i == 0 && (put_nodes(s, r, v) < 0 || put_report_columns(s, r, v) < 0))
			goto out;
		sqlite3_finalize(st);
		st = NULL;
	}
	if (sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 1;
out:
	sqlite3_finalize(st);
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return changed ? -1 : 0;
}

/* The result read once (contract.h), for the columns and rows made of it;
 * a result that is not JSON is stored all the same, without them. */
static int with_view(store *s, const struct store_row *r, const char *comment, long long now,
		     int (*write)(store *, const struct store_row *, const char *, long long,
				  const struct result_view *))
{
	struct json_object *res;
	struct result_view view;
	int rc;

	if (r->view) /* the writer's own reading of it: parsed once */
		return write(s, r, comment, now, r->view);
	res = r->result_json ? json_tokener_parse(r->result_json) : NULL;
	rc = write(s, r, comment, now, res && result_view_of(res, &view) ? &view : NULL);

	json_object_put(res);
	return rc;
}

int store_put(store *s, const struct store_row *r, const char *comment, long long now)
{
	return with_view(s, r, comment, now, put_row);
}

int store_revise(store *s, const struct store_row *r, const char *comment, long long now)
{
	return with_view(s, r, comment, now, revise_row);
}

static char *dup_col(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? strdup((const char *)t) : NULL;
}

char *store_get(store *s, const char *job_id, long attempt, long *attempt_out)
{
	sqlite3_stmt *st;
	char *json = NULL;
	const char *sql = attempt >= 0
		? "SELECT result_json, attempt FROM results WHERE job_id=?1 AND attempt=?2"
		: "SELECT result_json, attempt FROM results WHERE job_id=?1"
		  " ORDER BY attempt DESC LIMIT 1";

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(st, 1, job_id, -1, SQLITE_STATIC);
	if (attempt >= 0)
		sqlite3_bind_int64(st, 2, attempt);
	if (sqlite3_step(st) == SQLITE_ROW) {
		json = dup_col(st, 0);
		if (attempt_out)
			*attempt_out = (long)sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	return json;
}

static const char *col(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

int store_rows_of(sqlite3_stmt *st, int (*fn)(const struct store_row *row, void *arg), void *arg)
{
	int rc, n = 0;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct store_row r = {
			.job_id = col(st, 0),
			.attempt = (long)sqlite3_column_int64(st, 1),
			.cluster = col(st, 2),
			.user = col(st, 3),
			.state = col(st, 4),
			.sub_domain = col(st, 5),
			.culprits = col(st, 6),
			.root_code = col(st, 7),
			.created = sqlite3_column_int64(st, 8),
			.result_json = col(st, 9),
		};

		n++;
		if (fn(&r, arg))
			break;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? n : -1;
}

int store_drains_of(sqlite3_stmt *st, int (*fn)(const struct drain_row *r, void *arg), void *arg)
{
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct drain_row r = {
			.job_id = col(st, 0),
			.attempt = (long)sqlite3_column_int64(st, 1),
			.node = col(st, 2),
			.reason = col(st, 3),
			.decision = col(st, 4),
			.by = col(st, 5),
			.created = sqlite3_column_int64(st, 6),
		};

		if (fn(&r, arg))
			break;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

int store_list(store *s, const struct store_filter *f, int (*fn)(const struct store_row *row, void *arg),
	       void *arg)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(
		    s->db,
		    "SELECT job_id, attempt, cluster, user, state, sub_domain, culprits,"
		    " root_code, created, result_json FROM results"
		    " WHERE created >= ?1"
		    " AND (?2 IS NULL OR sub_domain = ?2)"
		    " AND (?3 IS NULL OR EXISTS (SELECT 1 FROM result_nodes n WHERE n.job_id = results.job_id"
		    "  AND n.attempt = results.attempt AND n.culprit = 1 AND n.node = ?3))"
		    " AND (?4 IS NULL OR user = ?4)"
		    " ORDER BY created DESC, CAST(job_id AS INTEGER) DESC, job_id DESC, attempt DESC"
		    " LIMIT ?5",
		    -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, f->since);
	bind_opt(st, 2, f->sub_domain);
	bind_opt(st, 3, f->node);
	bind_opt(st, 4, f->user);
	sqlite3_bind_int64(st, 5, f->limit > 0 ? f->limit : -1);
	return store_rows_of(st, fn, arg);
}

int store_due(store *s, long long now, int max, struct comment_item **items)
{
	sqlite3_stmt *st;
	int n = 0;

	*items = NULL;
	if (sqlite3_prepare_v2(s->db,
			       "SELECT q.job_id, q.attempt, q.text, q.tries, r.cluster"
			       " FROM comment_queue q LEFT JOIN results r"
			       " ON r.job_id = q.job_id AND r.attempt = q.attempt"
			       " WHERE q.done = 0 AND q.next_try <= ?1"
			       " ORDER BY q.next_try, q.job_id, q.attempt LIMIT ?2",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, now);
	sqlite3_bind_int(st, 2, max);
	*items = calloc(max > 0 ? max : 1, sizeof(**items));
	if (!*items) {
		sqlite3_finalize(st);
		return -1;
	}
	while (n < max && sqlite3_step(st) == SQLITE_ROW) {
		struct comment_item *it = &(*items)[n++];

		it->job_id = dup_col(st, 0);
		it->attempt = (long)sqlite3_column_int64(st, 1);
		it->text = dup_col(st, 2);
		it->tries = sqlite3_column_int(st, 3);
		it->cluster = dup_col(st, 4);
	}
	sqlite3_finalize(st);
	return n;
}

void store_free_items(struct comment_item *items, int n)
{
	for (int i = 0; i < n; i++) {
		free(items[i].job_id);
		free(items[i].text);
		free(items[i].cluster);
	}
	free(items);
}

static int update(store *s, const char *sql, const char *job_id, long attempt, long long v)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, job_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, attempt);
	sqlite3_bind_int64(st, 3, v);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

int store_comment_done(store *s, const char *job_id, long attempt)
{
	return update(s, "UPDATE comment_queue SET done = ?3 WHERE job_id=?1 AND attempt=?2", job_id, attempt,
		      1);
}

int store_comment_retry(store *s, const char *job_id, long attempt, long long next_try)
{
	return update(s,
		      "UPDATE comment_queue SET tries = tries + 1, next_try = ?3"
		      " WHERE job_id=?1 AND attempt=?2",
		      job_id, attempt, next_try);
}

long store_pending_comments(store *s)
{
	sqlite3_stmt *st;
	long n = -1;

	if (sqlite3_prepare_v2(s->db, "SELECT count(*) FROM comment_queue WHERE done = 0", -1, &st, NULL) !=
	    SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		n = (long)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

int store_add_drain(store *s, const char *job_id, long attempt, const char *node, const char *reason,
		    const char *decision, const char *by, long long now)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(
		    s->db,
		    "INSERT INTO drains(job_id, attempt, node, reason, decision, decided_by, created)"
		    " VALUES (?, ?, ?, ?, ?, ?, ?)",
		    -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, job_id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, attempt);
	sqlite3_bind_text(st, 3, node, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, reason, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 5, decision, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 6, by, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 7, now);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	sqlite3_finalize(st);
	return rc;
}

/* ---- the webhook's queue ------------------------------------------------- */

int store_webhook_arm(store *s)
{
	/* A TEMP trigger lives as long as this connection: while the service
	 * runs with a Webhook, every result inserted through it gets its
	 * delivery queued in the same transaction (store_put's), so a crash
	 * can lose neither. */
	return sqlite3_exec(s->db,
			    "CREATE TEMP TRIGGER IF NOT EXISTS results_webhook"
			    " AFTER INSERT ON main.results BEGIN"
			    " INSERT OR IGNORE INTO webhook_queue(job_id, attempt, tries, next_try, done)"
			    " VALUES(NEW.job_id, NEW.attempt, 0, NEW.created, 0);"
			    " END",
			    NULL, NULL, NULL) == SQLITE_OK
		? 0
		: -1;
}

int store_webhook_due(store *s, long long now, int max, struct comment_item **items)
{
	sqlite3_stmt *st;
	int n = 0, rc;

	*items = NULL;
	if (max <= 0)
		return 0;
	if (sqlite3_prepare_v2(s->db,
			       "SELECT q.job_id, q.attempt, r.result_json, q.tries"
			       " FROM webhook_queue q JOIN results r"
			       " ON r.job_id = q.job_id AND r.attempt = q.attempt"
			       " WHERE q.done = 0 AND q.next_try <= ?1"
			       " ORDER BY q.next_try, r.created, q.job_id, q.attempt LIMIT ?2",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, now);
	sqlite3_bind_int(st, 2, max);
	if (!(*items = calloc(max, sizeof(**items)))) {
		sqlite3_finalize(st);
		return -1;
	}
	while (n < max && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct comment_item *it = &(*items)[n++];

		it->job_id = dup_col(st, 0);
		it->attempt = (long)sqlite3_column_int64(st, 1);
		it->text = dup_col(st, 2);
		it->tries = sqlite3_column_int(st, 3);
	}
	sqlite3_finalize(st);
	return n;
}

int store_webhook_done(store *s, const char *job_id, long attempt, long long now)
{
	return update(s,
		      "UPDATE webhook_queue SET done = 1, delivered = ?3, last_error = NULL"
		      " WHERE job_id=?1 AND attempt=?2",
		      job_id, attempt, now);
}

int store_webhook_retry(store *s, const char *job_id, long attempt, long long next_try, const char *why)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(s->db,
			       "UPDATE webhook_queue SET tries = tries + 1, next_try = ?3, last_error = ?4"
			       " WHERE job_id=?1 AND attempt=?2",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, job_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, attempt);
	sqlite3_bind_int64(st, 3, next_try);
	bind_opt(st, 4, why);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static long count_of(store *s, const char *sql)
{
	sqlite3_stmt *st;
	long n = -1;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		n = (long)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

long store_webhook_pending(store *s)
{
	return count_of(s, "SELECT count(*) FROM webhook_queue WHERE done = 0");
}

long long store_webhook_next(store *s)
{
	sqlite3_stmt *st;
	long long t = -1;

	if (sqlite3_prepare_v2(s->db, "SELECT min(next_try) FROM webhook_queue WHERE done = 0", -1, &st,
			       NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		t = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return t;
}

/* ---- the fleet view ------------------------------------------------------ */

int store_node_faults(store *s, long long since, int (*fn)(const struct node_fault_row *row, void *arg),
		      void *arg)
{
	sqlite3_stmt *st;
	int rc, n = 0;

	/* A row per (node, cause) for culprits, per node for affected.  The
	 * time a node was last seen is its job's end (column ended), or when
	 * the result was stored for results without. */
	if (sqlite3_prepare_v2(s->db,
			       "WITH r AS (SELECT job_id, attempt,"
			       "  coalesce(root_code, sub_domain, '?') AS cause,"
			       "  coalesce(ended, created) AS t"
			       "  FROM results WHERE created >= ?1)"
			       " SELECT n.node, 1, r.cause, count(*), max(r.t)"
			       "  FROM r JOIN result_nodes n USING (job_id, attempt) WHERE n.culprit = 1"
			       "  GROUP BY n.node, r.cause"
			       " UNION ALL"
			       " SELECT n.node, 0, NULL, count(*), max(r.t)"
			       "  FROM r JOIN result_nodes n USING (job_id, attempt) WHERE n.culprit = 0"
			       "  GROUP BY n.node"
			       " ORDER BY 1, 2 DESC, 4 DESC, 3",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, since);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct node_fault_row r = {
			.node = col(st, 0),
			.culprit = sqlite3_column_int(st, 1) != 0,
			.cause = col(st, 2),
			.count = (long)sqlite3_column_int64(st, 3),
			.last = sqlite3_column_int64(st, 4),
		};

		if (!r.node)
			continue;
		n++;
		if (fn(&r, arg))
			break;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? n : -1;
}

long store_count_drains(store *s, long long since)
{
	sqlite3_stmt *st;
	long n = -1;

	if (sqlite3_prepare_v2(s->db, "SELECT count(*) FROM drains WHERE created >= ? AND decision IN (?, ?)",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, since);
	sqlite3_bind_text(st, 2, DRAIN_DONE, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, DRAIN_DONE_FORCED, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = (long)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

int store_each_drain(store *s, const char *job_id, int (*fn)(const struct drain_row *r, void *arg), void *arg)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(s->db,
			       "SELECT job_id, attempt, node, reason, decision, decided_by, created"
			       " FROM drains WHERE job_id = ? ORDER BY created, rowid",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, job_id, -1, SQLITE_TRANSIENT);
	return store_drains_of(st, fn, arg);
}
