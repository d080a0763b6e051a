/* What the store's files (store/ files) share and nobody else sees: the
 * connection.  store.c owns opening, the schema's migrations and the
 * results; each further concern of the store (a table and its queries)
 * is a file of its own beside it. */
#ifndef ATTRIB_STORE_INTERNAL_H
#define ATTRIB_STORE_INTERNAL_H

#include <sqlite3.h>
#include "store.h"

struct store {
	sqlite3 *db;
};

/* A prepared query's rows through fn, then the statement finalized; fn
 * returning nonzero stops.  store_rows_of: results rows (job_id, attempt,
 * cluster, user, state, sub_domain, culprits, root_code, created,
 * result_json), their count or -1; store_drains_of: drains rows (job_id,
 * attempt, node, reason, decision, decided_by, created), 0 or -1. */
int store_rows_of(sqlite3_stmt *st, int (*fn)(const struct store_row *row, void *arg), void *arg);
int store_drains_of(sqlite3_stmt *st, int (*fn)(const struct drain_row *r, void *arg), void *arg);

#endif
