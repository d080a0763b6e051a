/* The requeue decisions (policy/requeue_policy.c): every failed batch job requeued
 * without its culprits, suggested, refused or failed, by attribd's policy
 * or attrib requeue, with who decided.  Written by both, read by attrib
 * show. */
#ifndef ATTRIB_STORE_REQUEUE_H
#define ATTRIB_STORE_REQUEUE_H

#include "store.h"

/* Decisions in the requeues table (column decision). */
#define REQUEUE_DONE "requeued"
#define REQUEUE_SUGGESTED "suggested"
#define REQUEUE_REFUSED "refused"
#define REQUEUE_FAILED "failed"
#define REQUEUE_DRY_RUN "dry-run"

struct requeue_row {
	const char *job_id;
	long attempt;	      /* the diagnosed attempt */
	const char *nodes;    /* the culprits to exclude, comma-separated ("" when none) */
	const char *excluded; /* the job's ExcNodeList set (REQUEUE_DONE), else "" */
	const char *reason;   /* why: the refusal, Slurm's error, or the root cause */
	const char *decision; /* REQUEUE_* */
	const char *by;	      /* "attribd (policy auto)", "attrib requeue (uid 0, alice)" */
	long long created;
};
int store_add_requeue(store *s, const struct requeue_row *r);
/* The requeue decisions of a job (every attempt), oldest first. */
int store_each_requeue(store *s, const char *job_id, int (*fn)(const struct requeue_row *r, void *arg),
		       void *arg);

#endif
