/* Fleet findings (findings.h): the table `findings`, one row per finding,
 * the cited job attempts as a JSON array in the row (SQLite's json_each
 * reads them when a job's findings are asked for). */
#include <json-c/json.h>
#include <stdlib.h>
#include "internal.h"
#include "findings.h"

long long store_add_finding(store *s, const char *kind, const char *subject, const char *summary,
			    const struct finding_job *jobs, size_t njobs, long long now)
{
	json_object *a = json_object_new_array();
	sqlite3_stmt *st;
	long long id = -1;

	for (size_t i = 0; i < njobs; i++) {
		json_object *j = json_object_new_object();

		json_object_object_add(j, "job_id", json_object_new_string(jobs[i].job_id));
		json_object_object_add(j, "attempt", json_object_new_int64(jobs[i].attempt));
		json_object_array_add(a, j);
	}
	if (sqlite3_prepare_v2(
		    s->db,
		    "INSERT INTO findings(kind, subject, summary, jobs, created) VALUES(?1,?2,?3,?4,?5)", -1,
		    &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, subject, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, summary, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN), -1,
				  SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, 5, now);
		if (sqlite3_step(st) == SQLITE_DONE)
			id = sqlite3_last_insert_rowid(s->db);
		sqlite3_finalize(st);
	}
	json_object_put(a);
	return id;
}

/* Runs a prepared query of findings rows (id, kind, subject, summary, jobs,
 * created) through fn. */
static int each_row(sqlite3_stmt *st, int (*fn)(const struct finding_row *f, void *arg), void *arg)
{
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct finding_row f = {
			.id = sqlite3_column_int64(st, 0),
			.kind = (const char *)sqlite3_column_text(st, 1),
			.subject = (const char *)sqlite3_column_text(st, 2),
			.summary = (const char *)sqlite3_column_text(st, 3),
			.jobs_json = (const char *)sqlite3_column_text(st, 4),
			.created = sqlite3_column_int64(st, 5),
		};
		int r = fn(&f, arg);

		if (r) {
			sqlite3_finalize(st);
			return r;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

int store_each_finding(store *s, long long since, const char *kind, const char *subject,
		       int (*fn)(const struct finding_row *f, void *arg), void *arg)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(
		    s->db,
		    "SELECT id, kind, subject, summary, jobs, created FROM findings"
		    " WHERE created >= ?1 AND (?2 IS NULL OR kind = ?2) AND (?3 IS NULL OR subject = ?3)"
		    " ORDER BY created DESC, id DESC",
		    -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, since);
	sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, subject, -1, SQLITE_STATIC);
	return each_row(st, fn, arg);
}

int store_job_findings(store *s, const char *job_id, int (*fn)(const struct finding_row *f, void *arg),
		       void *arg)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(s->db,
			       "SELECT id, kind, subject, summary, jobs, created FROM findings f"
			       " WHERE EXISTS (SELECT 1 FROM json_each(f.jobs) j"
			       "  WHERE json_extract(j.value, '$.job_id') = ?1)"
			       " ORDER BY created DESC, id DESC",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, job_id, -1, SQLITE_STATIC);
	return each_row(st, fn, arg);
}

long long store_latest_finding(store *s, const char *kind, const char *subject, long long since)
{
	sqlite3_stmt *st;
	long long t = -1;
	int rc;

	if (sqlite3_prepare_v2(
		    s->db,
		    "SELECT MAX(created) FROM findings WHERE kind = ?1 AND subject = ?2 AND created >= ?3",
		    -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, subject, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, since);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		t = sqlite3_column_type(st, 0) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return t;
}

int store_add_finding_drain(store *s, long long id, const char *job_id, long attempt, const char *node,
			    const char *reason, const char *decision, const char *by, long long now)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(
		    s->db,
		    "INSERT INTO drains(job_id, attempt, node, reason, decision, decided_by, created,"
		    " finding) VALUES (?1,?2,?3,?4,?5,?6,?7,?8)",
		    -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, job_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, attempt);
	sqlite3_bind_text(st, 3, node, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, reason, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, decision, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, by, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 7, now);
	sqlite3_bind_int64(st, 8, id);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	sqlite3_finalize(st);
	return rc;
}

int store_finding_drains(store *s, long long id, int (*fn)(const struct drain_row *r, void *arg), void *arg)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(s->db,
			       "SELECT job_id, attempt, node, reason, decision, decided_by, created"
			       " FROM drains WHERE finding = ?1 ORDER BY created, rowid",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	return store_drains_of(st, fn, arg);
}
