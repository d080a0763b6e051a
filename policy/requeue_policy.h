/* Requeueing a failed batch job without its culprit nodes: the decision,
 * for attribd's policy (RequeuePolicy, RequeueClasses, RequeueMax;
 * service/requeue_apply.h) and attrib requeue alike. */
#ifndef ATTRIB_REQUEUE_POLICY_H
#define ATTRIB_REQUEUE_POLICY_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include "conf.h"
#include "drain_plan.h" /* DRAIN_MAX_NODES */
#include "slurmapi.h"	/* requeue_state_fn */

enum requeue_mode { REQUEUE_MODE_OFF, REQUEUE_MODE_SUGGEST, REQUEUE_MODE_AUTO };
enum requeue_decision { RQ_NONE, RQ_REQUEUE, RQ_SUGGEST, RQ_REFUSE, RQ_FAILED };

struct requeue_verdict {
	enum requeue_decision decision;	    /* RQ_NONE: nothing to decide, nothing recorded */
	char class_name[64];		    /* the root cause's rule class ("" when none) */
	enum requeue_mode mode;		    /* of that class (the policy's) */
	const char *nodes[DRAIN_MAX_NODES]; /* the culprits, pointing into the result */
	int n;
	char node_list[512];  /* the same, comma-separated */
	char exc_nodes[1024]; /* the job's ExcNodeList now (from Slurm) */
	char why[512];	      /* RQ_REFUSE: the reason; else the root cause (drain_reason) */
};

const char *requeue_mode_name(enum requeue_mode m);
/* REQUEUE_DONE, REQUEUE_SUGGESTED, ... (store/requeue.h) */
const char *requeue_decision_name(enum requeue_decision d);
/* The policy's mode for a rule class: its own in RequeueClasses
 * (CLASS:MODE), else RequeuePolicy; *listed false (and off) when
 * RequeueClasses is set and does not name it; not set: every class. */
enum requeue_mode requeue_class_mode(const struct attrib_config *conf, const char *class_name, bool *listed);
/* Whether the diagnosis names an infrastructure culprit with confidence:
 * an infra domain, neither ambiguous nor unattributed, a root cause
 * vouched for (result_cause_vouched: not the job's own output alone, nor
 * only files anyone may write), at least one culprit node.  false with
 * why. */
bool requeue_confident(struct json_object *result, char *why, size_t whylen);
/* Decides for the job's stored diagnosis of attempt: requeue, suggest or
 * refuse (with why).  by_policy: attribd's (RequeuePolicy, RequeueClasses;
 * off, or a diagnosis outside the infra domain: RQ_NONE); else attrib
 * requeue (no class policy).  Then what Slurm says of the job (state() is
 * asked only past the diagnosis' checks): known, batch, requeueable, not
 * pending again, ended FAILED/NODE_FAIL/TIMEOUT, at the diagnosed attempt,
 * fewer than RequeueMax requeues, a culprit not excluded yet.  Pure but
 * for state(). */
void requeue_decide(const struct attrib_config *conf, struct json_object *result, const char *job_id,
		    long attempt, bool by_policy, requeue_state_fn state, void *arg,
		    struct requeue_verdict *v);

#endif
