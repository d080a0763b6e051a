/* A node's drains and undrains in the drains table (store/nodedrains.c):
 * undrain's questions to the store (policy/undrain_apply.c). */
#ifndef ATTRIB_STORE_NODEDRAINS_H
#define ATTRIB_STORE_NODEDRAINS_H

#include "store.h"

/* Decisions of undrain in the drains table, beside the drains': the row's
 * job is that of the drain it undoes ("-" when there is none). */
#define UNDRAIN_DONE "undrained"
#define UNDRAIN_DONE_FORCED "undrained (forced)"
#define UNDRAIN_SUGGESTED "undrain suggested"
#define UNDRAIN_REFUSED "undrain refused"
#define UNDRAIN_FAILED "undrain failed"

struct node_drain_event {
	char job_id[128];
	long attempt;
	char decision[32]; /* DRAIN_DONE, DRAIN_DONE_FORCED, UNDRAIN_DONE, UNDRAIN_DONE_FORCED */
	char reason[256];
	long long created;
};
/* The node's latest drain or undrain done by attrib: 1 found, 0 none, -1
 * on error. */
int store_last_drain_event(store *s, const char *node, struct node_drain_event *e);
/* Drains of the node done by attrib since then; -1 on error. */
long store_count_node_drains(store *s, const char *node, long long since);
/* The latest undrain decision recorded for the node since then (any of
 * UNDRAIN_*): 1 found (decision and reason copied), 0 none, -1 error. */
int store_last_undrain(store *s, const char *node, long long since, char *decision, size_t dlen, char *reason,
		       size_t rlen);

#endif
