/* The requeue decisions (requeue.h, table requeues): every failed batch job requeued
 * without its culprits, suggested, refused with the reason or failed with
 * Slurm's error, by attribd's policy or attrib requeue, with who decided. */
#include <sqlite3.h>
#include "internal.h"
#include "requeue.h"

int store_add_requeue(store *s, const struct requeue_row *r)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(s->db,
			       "INSERT INTO requeues(job_id, attempt, nodes, excluded, reason, decision,"
			       " decided_by, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, r->job_id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, r->attempt);
	sqlite3_bind_text(st, 3, r->nodes ? r->nodes : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, r->excluded ? r->excluded : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 5, r->reason ? r->reason : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 6, r->decision, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 7, r->by, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 8, r->created);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	sqlite3_finalize(st);
	return rc;
}

int store_each_requeue(store *s, const char *job_id, int (*fn)(const struct requeue_row *r, void *arg),
		       void *arg)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(
		    s->db,
		    "SELECT job_id, attempt, nodes, excluded, reason, decision, decided_by, created"
		    " FROM requeues WHERE job_id = ? ORDER BY created, rowid",
		    -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, job_id, -1, SQLITE_TRANSIENT);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct requeue_row r = {
			.job_id = (const char *)sqlite3_column_text(st, 0),
			.attempt = (long)sqlite3_column_int64(st, 1),
			.nodes = (const char *)sqlite3_column_text(st, 2),
			.excluded = (const char *)sqlite3_column_text(st, 3),
			.reason = (const char *)sqlite3_column_text(st, 4),
			.decision = (const char *)sqlite3_column_text(st, 5),
			.by = (const char *)sqlite3_column_text(st, 6),
			.created = sqlite3_column_int64(st, 7),
		};

		if (fn(&r, arg))
			break;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}
