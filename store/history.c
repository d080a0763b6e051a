/* A node's recent history (history.h): one query over results and
 * result_nodes, the cause lists given as JSON arrays (json_each), so the
 * lists stay data and the statement stays one. */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "history.h"

static char *json_list(const char *const *v, int n)
{
	json_object *a = json_object_new_array();
	char *s;

	for (int i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	s = strdup(json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN));
	json_object_put(a);
	return s;
}

int store_node_history(store *s, const char *node, long long since, const char *const *causes, int ncauses,
		       const char *const *excluded, int nexcluded,
		       int (*fn)(const struct history_row *r, void *arg), void *arg)
{
	char *in = json_list(causes, ncauses), *out = json_list(excluded, nexcluded);
	sqlite3_stmt *st = NULL;
	int rc = -1, step;

	if (!in || !out)
		goto done;
	/* a node both culprit and affected in one result: one row (DISTINCT) */
	if (sqlite3_prepare_v2(
		    s->db,
		    "SELECT DISTINCT r.job_id, r.attempt, r.user, coalesce(r.root_code, r.sub_domain),"
		    "  coalesce(r.ended, r.created) AS t"
		    " FROM result_nodes n JOIN results r USING (job_id, attempt)"
		    " WHERE n.node = ?1 AND coalesce(r.ended, r.created) >= ?2"
		    /* a node only affected counts when the diagnosis blames no
		     * node and no switch: when it blames another, or the switch
		     * above it, this one suffered from it */
		    "  AND (n.culprit = 1 OR (coalesce(r.culprits, '') = '' AND r.culprit_switch IS NULL))"
		    "  AND (r.sub_domain IN (SELECT value FROM json_each(?3))"
		    "   OR r.root_code IN (SELECT value FROM json_each(?3)))"
		    "  AND coalesce(r.sub_domain, '') NOT IN (SELECT value FROM json_each(?4))"
		    /* a cause only the job's output (or files anyone may
		     * write) tells of is the user's word: it blames no node
		     * across jobs */
		    "  AND r.vouched = 1"
		    " ORDER BY t, CAST(r.job_id AS INTEGER), r.job_id, r.attempt",
		    -1, &st, NULL) != SQLITE_OK)
		goto done;
	sqlite3_bind_text(st, 1, node, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, since);
	sqlite3_bind_text(st, 3, in, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, out, -1, SQLITE_STATIC);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct history_row r = {
			.job_id = (const char *)sqlite3_column_text(st, 0),
			.attempt = (long)sqlite3_column_int64(st, 1),
			.user = (const char *)sqlite3_column_text(st, 2),
			.cause = (const char *)sqlite3_column_text(st, 3),
			.when = sqlite3_column_int64(st, 4),
		};

		if (!r.job_id)
			continue;
		if ((rc = fn(&r, arg)))
			goto done;
	}
	rc = step == SQLITE_DONE ? 0 : -1;
done:
	sqlite3_finalize(st);
	free(in);
	free(out);
	return rc;
}
