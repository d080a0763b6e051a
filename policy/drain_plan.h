/* Draining from a stored diagnosis: which nodes (the plan), and the
 * reason Slurm shows (sinfo -R).  Used by attribd's drain policy
 * (drain_policy.h) and attrib drain alike. */
#ifndef ATTRIB_DRAIN_PLAN_H
#define ATTRIB_DRAIN_PLAN_H

#include <json-c/json.h>
#include <stddef.h>

#define DRAIN_REASON_MAX 100
#define DRAIN_MAX_NODES 64

struct drain_plan {
	const char *nodes[DRAIN_MAX_NODES]; /* point into the result or force[] */
	int n;
	char reason[DRAIN_REASON_MAX + 1];
	char refusal[256];
};

/* "attrib: <root cause> <device> (job N)", sanitised, at most
 * DRAIN_REASON_MAX characters (sinfo -R shows it). */
void drain_reason(struct json_object *result, char *buf, size_t len);
/* "attrib: repeat offender: <what> (finding N)", sanitised as above. */
void drain_reason_finding(const char *what, long long finding, char *buf, size_t len);
/* The nodes to drain: the result's drain actions, or force[] (each must be
 * a node the diagnosis names).  -1 with p->refusal when it refuses. */
int drain_plan(struct json_object *result, char *const *force, int nforce, struct drain_plan *p);

#endif
