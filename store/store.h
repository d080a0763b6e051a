/* The store: STATE/attrib.db (SQLite), written by attribd, read (and its
 * drain decisions written) by attrib show, list, nodes and drain.  It links
 * SQLite and json-c only, so the command line can read it without the
 * daemon's libraries (Slurm, microhttpd, MUNGE).
 *
 * Its schema changes by numbered migrations (store.c): a store written by
 * any earlier release is brought to STORE_SCHEMA_VERSION when opened. */
#ifndef ATTRIB_STORE_H
#define ATTRIB_STORE_H

#include <stdbool.h>
#include <stddef.h>

/* the newest schema: the number of store.c's migrations */
#define STORE_SCHEMA_VERSION 13

typedef struct store store;

struct store_row {
	const char *job_id;
	long attempt;
	const char *cluster, *user, *state, *sub_domain, *culprits, *root_code;
	long long created;
	/* from the job record, for attrib report (store/report.h): when the
	 * job started (Unix time; <= 0: not known), its GPUs (< 0: not
	 * known) and partition (NULL: not known) */
	long long started, gpus;
	const char *partition;
	/* the result; its end_time and nodes become columns and rows when it
	 * is written (read through contract.h's result_view, once: no query
	 * reads paths inside the stored JSON) */
	const char *result_json;
	/* result_json read, when the writer has it (attribd: the result it
	 * just made); NULL: the store reads the text */
	const struct result_view *view;
};

struct store_filter {
	long long since; /* created >= since */
	const char *sub_domain, *node, *user;
	int limit; /* 0: no limit */
};

struct comment_item {
	char *job_id;
	long attempt;
	char *text;
	char *cluster;
	int tries;
};

/* Opens (creating when writable: mode 0600, WAL) or NULL with a reason,
 * the schema brought to STORE_SCHEMA_VERSION in one transaction.  readonly
 * (attrib show, list, nodes): an older store is upgraded first when this
 * process may write it, else refused with a reason. */
store *store_open(const char *path, bool readonly, char *err, size_t errlen);
void store_close(store *s);
/* 1 when (job, attempt) has a result, 0 when not, -1 on error. */
int store_has_result(store *s, const char *job_id, long attempt);
int store_has_any_result(store *s, const char *job_id);
/* In one transaction: the result (unless (job, attempt) has one: then
 * nothing, returns 0) and, when comment is not NULL, its queue entry.
 * Returns 1 when inserted, 0 when it was there, -1 on error. */
int store_put(store *s, const struct store_row *row, const char *comment, long long now);
/* A stored result replaced by a revised one (late evidence), its comment
 * queued again and its Webhook delivery done again, in one transaction.
 * 1 when revised, 0 when (job, attempt) has no result, -1 on error. */
int store_revise(store *s, const struct store_row *row, const char *comment, long long now);
/* The stored result of (job, attempt), or of the job's latest attempt when
 * attempt < 0; the caller frees.  NULL when none. */
char *store_get(store *s, const char *job_id, long attempt, long *attempt_out);
int store_list(store *s, const struct store_filter *f, int (*fn)(const struct store_row *row, void *arg),
	       void *arg);
/* Comments due at now (done = 0, next_try <= now), oldest first, at most
 * max; the caller frees with store_free_items. */
int store_due(store *s, long long now, int max, struct comment_item **items);
void store_free_items(struct comment_item *items, int n);
int store_comment_done(store *s, const char *job_id, long attempt);
int store_comment_retry(store *s, const char *job_id, long attempt, long long next_try);
long store_pending_comments(store *s);

/* The webhook's queue (service/webhook.c).  store_webhook_arm makes this
 * connection queue a delivery for every result it inserts, in store_put's
 * transaction.  Due items carry the stored result JSON in text. */
int store_webhook_arm(store *s);
int store_webhook_due(store *s, long long now, int max, struct comment_item **items);
int store_webhook_done(store *s, const char *job_id, long attempt, long long now);
int store_webhook_retry(store *s, const char *job_id, long attempt, long long next_try, const char *why);
long store_webhook_pending(store *s);
/* When the next delivery is due, -1 when none is pending. */
long long store_webhook_next(store *s);

/* The fleet view (`attrib nodes`): for results stored since since, one row
 * per (node, cause) where the node is a culprit (cause: the root code, else
 * the sub-domain), and one per node it was affected in (cause NULL), in
 * node order.  last: the latest job end among them (Unix time). */
struct node_fault_row {
	const char *node;
	bool culprit;
	const char *cause;
	long count;
	long long last;
};
int store_node_faults(store *s, long long since, int (*fn)(const struct node_fault_row *row, void *arg),
		      void *arg);

/* ---- api.c: the dashboard's queries (service/api.c) ---- */

/* Where a page of results ended: its last row (job_id NULL: the start). */
struct store_cursor {
	long long created;
	const char *job_id;
	long attempt;
};
/* The results of f (node: a culprit or affected node), newest first
 * (created, job_id, attempt, all descending), after the cursor, at most
 * f->limit; the number of rows, -1 on error. */
int store_page(store *s, const struct store_filter *f, const struct store_cursor *after,
	       int (*fn)(const struct store_row *row, void *arg), void *arg);
/* How many results f matches (f->limit ignored); -1 on error. */
long store_count(store *s, const struct store_filter *f);
/* Per culprit node, per day (Unix day: time / 86400 of the job's end) of
 * the results stored since since: how many jobs it was to blame for. */
int store_node_days(store *s, long long since,
		    int (*fn)(const char *node, long long day, long count, void *arg), void *arg);

/* Decisions in the drains table (column decision). */
#define DRAIN_DONE "drained"
#define DRAIN_DONE_FORCED "drained (forced)"
#define DRAIN_SUGGESTED "suggested"
#define DRAIN_REFUSED "refused"
#define DRAIN_FAILED "failed"
#define DRAIN_DRY_RUN "dry-run"

struct drain_row {
	const char *job_id;
	long attempt;
	const char *node, *reason, *decision, *by;
	long long created;
};
/* Every drain done, refused or only shown, with who decided it. */
int store_add_drain(store *s, const char *job_id, long attempt, const char *node, const char *reason,
		    const char *decision, const char *by, long long now);
/* Drains done (DRAIN_DONE, DRAIN_DONE_FORCED) since then, by anyone; -1 on error. */
long store_count_drains(store *s, long long since);
/* The drain decisions of a job (every attempt), oldest first. */
int store_each_drain(store *s, const char *job_id, int (*fn)(const struct drain_row *r, void *arg),
		     void *arg);
/* A drain decision as JSON (doc/formats.md: attrib show --json, the
 * findings, the dashboard's API), with its job_id when with_job; NULL when
 * out of memory (store/drainjson.c).  store_drain_json_add appends one
 * without its job_id to the json_object array arg: a callback of
 * store_each_drain. */
struct json_object;
struct json_object *store_drain_json(const struct drain_row *d, bool with_job);
int store_drain_json_add(const struct drain_row *d, void *array);

#endif
