/* The store's queries for the dashboard's JSON API (service/api.c): the
 * results a page at a time, newest first, by keyset (the last row's
 * created, job_id and attempt; the index results_page), never OFFSET, so
 * the 2,000th page costs what the first does; and each culprit node's
 * faults per day (the Nodes page's sparklines). */
#include <stdio.h>
#include <stdlib.h>
#include "internal.h"

static void bind_opt(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static const char *col(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

/* The WHERE of f: only the conditions it sets, so that SQLite picks the
 * index that fits (results_sub, results_user, result_nodes_node or the
 * time order of results_page) rather than one plan for every filter.
 * Parameters: ?1 since, ?2 sub_domain, ?3 node, ?4 user. */
static void where_of(const struct store_filter *f, char *buf, size_t len)
{
	snprintf(buf, len, " WHERE created >= ?1%s%s%s", f->sub_domain ? " AND sub_domain = ?2" : "",
		 f->node ? " AND (job_id, attempt) IN (SELECT job_id, attempt FROM result_nodes WHERE node = "
			   "?3)"
			 : "",
		 f->user ? " AND user = ?4" : "");
}

static void bind_filter(sqlite3_stmt *st, const struct store_filter *f)
{
	sqlite3_bind_int64(st, 1, f->since);
	bind_opt(st, 2, f->sub_domain);
	bind_opt(st, 3, f->node);
	bind_opt(st, 4, f->user);
}

int store_page(store *s, const struct store_filter *f, const struct store_cursor *after,
	       int (*fn)(const struct store_row *row, void *arg), void *arg)
{
	sqlite3_stmt *st;
	char where[512], sql[1024];

	where_of(f, where, sizeof(where));
	snprintf(sql, sizeof(sql),
		 "SELECT job_id, attempt, cluster, user, state, sub_domain, culprits,"
		 " root_code, created, result_json FROM results%s%s"
		 " ORDER BY created DESC, job_id DESC, attempt DESC LIMIT ?5",
		 where, after && after->job_id ? " AND (created, job_id, attempt) < (?6, ?7, ?8)" : "");
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	bind_filter(st, f);
	sqlite3_bind_int64(st, 5, f->limit > 0 ? f->limit : -1);
	if (after && after->job_id) {
		sqlite3_bind_int64(st, 6, after->created);
		sqlite3_bind_text(st, 7, after->job_id, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, 8, after->attempt);
	}
	return store_rows_of(st, fn, arg);
}

long store_count(store *s, const struct store_filter *f)
{
	sqlite3_stmt *st;
	char where[512], sql[700];
	long n = -1;

	where_of(f, where, sizeof(where));
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM results%s", where);
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	bind_filter(st, f);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = (long)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

int store_node_days(store *s, long long since,
		    int (*fn)(const char *node, long long day, long count, void *arg), void *arg)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(s->db,
			       "SELECT n.node, coalesce(r.ended, r.created) / 86400 AS day, count(*)"
			       " FROM results r JOIN result_nodes n USING (job_id, attempt)"
			       " WHERE r.created >= ?1 AND n.culprit = 1 GROUP BY n.node, day ORDER BY 1, 2",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, since);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (fn(col(st, 0), sqlite3_column_int64(st, 1), (long)sqlite3_column_int64(st, 2), arg))
			break;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}
