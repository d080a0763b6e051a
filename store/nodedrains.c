/* The drains table seen from one node (undrain's questions): its latest
 * drain or undrain done by attrib, how often attrib drained it lately,
 * and the latest undrain decision recorded for it.  The table and its
 * writes are store.c's. */
#include <stdio.h>
#include <string.h>
#include "internal.h"
#include "nodedrains.h"

static void copy_col(sqlite3_stmt *st, int col, char *buf, size_t len)
{
	const unsigned char *t = sqlite3_column_text(st, col);

	snprintf(buf, len, "%s", t ? (const char *)t : "");
}

int store_last_drain_event(store *s, const char *node, struct node_drain_event *e)
{
	sqlite3_stmt *st;
	int rc;

	memset(e, 0, sizeof(*e));
	if (sqlite3_prepare_v2(s->db,
			       "SELECT job_id, attempt, decision, reason, created FROM drains WHERE node = ?"
			       " AND decision IN (?, ?, ?, ?) ORDER BY created DESC, rowid DESC LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, node, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, DRAIN_DONE, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, DRAIN_DONE_FORCED, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, UNDRAIN_DONE, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, UNDRAIN_DONE_FORCED, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		copy_col(st, 0, e->job_id, sizeof(e->job_id));
		e->attempt = (long)sqlite3_column_int64(st, 1);
		copy_col(st, 2, e->decision, sizeof(e->decision));
		copy_col(st, 3, e->reason, sizeof(e->reason));
		e->created = sqlite3_column_int64(st, 4);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

long store_count_node_drains(store *s, const char *node, long long since)
{
	sqlite3_stmt *st;
	long n = -1;

	if (sqlite3_prepare_v2(
		    s->db,
		    "SELECT count(*) FROM drains WHERE node = ? AND created >= ? AND decision IN (?, ?)", -1,
		    &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, node, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, since);
	sqlite3_bind_text(st, 3, DRAIN_DONE, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, DRAIN_DONE_FORCED, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = (long)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

int store_last_undrain(store *s, const char *node, long long since, char *decision, size_t dlen, char *reason,
		       size_t rlen)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(s->db,
			       "SELECT decision, reason FROM drains WHERE node = ? AND created >= ?"
			       " AND decision IN (?, ?, ?, ?, ?) ORDER BY created DESC, rowid DESC LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, node, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, since);
	sqlite3_bind_text(st, 3, UNDRAIN_DONE, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, UNDRAIN_DONE_FORCED, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, UNDRAIN_SUGGESTED, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, UNDRAIN_REFUSED, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, UNDRAIN_FAILED, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		copy_col(st, 0, decision, dlen);
		copy_col(st, 1, reason, rlen);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}
