/* attribd's requeue policy (RequeuePolicy, RequeueClasses, RequeueMax):
 * after a diagnosis is stored, in the main loop (never an HTTP thread),
 * the failed batch job is requeued without its culprits, the requeue only
 * suggested, or refused with the reason (policy/requeue_policy.c decides).  It
 * runs right after the diagnosis because slurmctld forgets a finished job
 * MinJobAge seconds after its end: a job diagnosed later than that cannot
 * be requeued, and the refusal says so. */
#include <stdio.h>
#include "accounting.h"
#include "conf.h"
#include "log.h"
#include "metrics.h"
#include "requeue.h"
#include "requeue_apply.h"
#include "requeue_policy.h"
#include "slurmapi.h"
#include "store.h"

/* Slurm's state, when the service has a slurm.conf (accounting_init found
 * one); without it libslurm would not know where slurmctld is. */
static int service_state(const char *job_id, const char *const *nodes, int n, struct requeue_job_state *st,
			 char *err, size_t errlen, void *arg)
{
	if (!accounting_enabled()) {
		snprintf(err, errlen, "the service found no slurm.conf");
		return -1;
	}
	return requeue_slurm_state(job_id, nodes, n, st, err, errlen, arg);
}

void requeue_policy_apply(const struct attrib_config *conf, store *s, struct json_object *result,
			  const char *job_id, long attempt, long long now)
{
	struct requeue_verdict v;
	char by[64], excluded[1024] = "", err[512];

	requeue_decide(conf, result, job_id, attempt, true, service_state, NULL, &v);
	if (v.decision == RQ_NONE)
		return;
	if (v.decision == RQ_REQUEUE &&
	    requeue_job(job_id, v.exc_nodes, v.nodes, v.n, excluded, sizeof(excluded), err, sizeof(err)) <
		    0) {
		v.decision = RQ_FAILED;
		snprintf(v.why, sizeof(v.why), "Slurm refused the requeue: %.450s", err);
		excluded[0] = 0;
	}
	snprintf(by, sizeof(by), "attribd (policy %s)", requeue_mode_name(v.mode));
	struct requeue_row row = {
		.job_id = job_id,
		.attempt = attempt,
		.nodes = v.node_list,
		.excluded = excluded,
		.reason = v.why,
		.decision = requeue_decision_name(v.decision),
		.by = by,
		.created = now,
	};
	if (store_add_requeue(s, &row) < 0)
		log_msg(LOGL_ERROR, "job %s attempt %ld: cannot record the requeue decision", job_id,
			attempt);
	else
		metrics_note_requeue(row.decision);
	log_msg(v.decision == RQ_FAILED ? LOGL_WARNING : LOGL_INFO,
		"job %s attempt %ld: requeue without %s %s (class %s, policy %s)%s%s: %s", job_id, attempt,
		*v.node_list ? v.node_list : "-", row.decision, *v.class_name ? v.class_name : "none",
		requeue_mode_name(v.mode), *excluded ? ", ExcNodeList=" : "", excluded, v.why);
}
