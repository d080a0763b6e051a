/* A node's recent history in the store: the diagnoses that name it
 * (culprit or affected) with one of the counted outcomes, for attribd's
 * repeat-offender check (policy/repeat_policy.c).  Read from the columns and
 * result_nodes rows, never from the stored JSON. */
#ifndef ATTRIB_STORE_HISTORY_H
#define ATTRIB_STORE_HISTORY_H

#include "store.h"

struct history_row {
	const char *job_id;
	long attempt;
	const char *user;  /* NULL when the job record had none */
	const char *cause; /* the root code, else the sub-domain */
	long long when;	   /* the job's end, else when it was stored (Unix time) */
};

/* The diagnoses naming node whose job ended (else was stored) at or after
 * since, whose cause is vouched for (result_cause_vouched: never the job's
 * own output alone), whose sub-domain or root code is one of causes
 * (ncauses names) and whose sub-domain is none of excluded (nexcluded names): one
 * row per job attempt, oldest first.  fn returning nonzero stops (and is
 * returned); -1 on error. */
int store_node_history(store *s, const char *node, long long since, const char *const *causes, int ncauses,
		       const char *const *excluded, int nexcluded,
		       int (*fn)(const struct history_row *r, void *arg), void *arg);

#endif
