/* The health_checks table: each node's health checks as attrib-collect
 * --health posted them (service/health_intake.c takes them in), the newest
 * HEALTH_KEEP of each node kept: every node reports every few minutes,
 * and only the latest decides an undrain. */
#include <string.h>
#include "internal.h"
#include "health.h"

int store_add_health(store *s, const struct health_row *h)
{
	sqlite3_stmt *st;
	int rc = -1;

	if (sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_prepare_v2(
		    s->db,
		    "INSERT INTO health_checks(node, received, checked, command, status, timed_out,"
		    " passed, duration_ms, output) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
		    -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, h->node, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, 2, h->received);
		sqlite3_bind_int64(st, 3, h->checked);
		sqlite3_bind_text(st, 4, h->command ? h->command : "", -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(st, 5, h->status);
		sqlite3_bind_int(st, 6, h->timed_out);
		sqlite3_bind_int(st, 7, h->passed);
		sqlite3_bind_int64(st, 8, h->duration_ms);
		sqlite3_bind_text(st, 9, h->output ? h->output : "", -1, SQLITE_TRANSIENT);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
		sqlite3_finalize(st);
	}
	if (rc == 0 &&
	    sqlite3_prepare_v2(s->db,
			       "DELETE FROM health_checks WHERE node = ?1 AND rowid NOT IN (SELECT rowid FROM"
			       " health_checks WHERE node = ?1 ORDER BY received DESC, rowid DESC LIMIT ?2)",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, h->node, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(st, 2, HEALTH_KEEP);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
		sqlite3_finalize(st);
	}
	sqlite3_exec(s->db, rc == 0 ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

int store_last_health(store *s, const char *node, long long since, bool *passed, long long *received)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(s->db,
			       "SELECT passed, received FROM health_checks WHERE node = ? AND received >= ?"
			       " ORDER BY received DESC, rowid DESC LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, node, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, since);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*passed = sqlite3_column_int(st, 0) != 0;
		*received = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

int store_each_health(store *s, const char *node, int limit, int (*fn)(const struct health_row *h, void *arg),
		      void *arg)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(
		    s->db,
		    "SELECT node, received, checked, command, status, timed_out, passed, duration_ms,"
		    " output FROM health_checks WHERE node = ? ORDER BY received DESC, rowid DESC"
		    " LIMIT ?",
		    -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, node, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 2, limit > 0 ? limit : HEALTH_KEEP);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct health_row h = {
			.node = (const char *)sqlite3_column_text(st, 0),
			.received = sqlite3_column_int64(st, 1),
			.checked = sqlite3_column_int64(st, 2),
			.command = (const char *)sqlite3_column_text(st, 3),
			.status = sqlite3_column_int(st, 4),
			.timed_out = sqlite3_column_int(st, 5) != 0,
			.passed = sqlite3_column_int(st, 6) != 0,
			.duration_ms = (long)sqlite3_column_int64(st, 7),
			.output = (const char *)sqlite3_column_text(st, 8),
		};

		if (fn(&h, arg))
			break;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}
