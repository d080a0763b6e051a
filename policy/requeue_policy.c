/* Requeueing a failed batch job without its culprit nodes: whether the
 * diagnosis allows it and whether Slurm would, decided in one place for
 * attribd's policy (service/requeue_apply.c) and attrib requeue
 * (cli/requeue.c).
 *
 * A requeue sends the user's job back into the queue on the word of a
 * diagnosis, so only a confident one counts (an infrastructure culprit,
 * from evidence only root, the kernel or Slurm could have written: never
 * the job's own output alone, which would let a user send a job away from
 * any node it names), and only a job its user submitted requeueable.  RequeueMax bounds the loop a job failing on
 * every node would otherwise make.  Each limit refuses with its reason;
 * nothing is guessed. */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "conf.h"
#include "contract.h"
#include "drain_plan.h"
#include "requeue.h" /* the decisions' names (store/) */
#include "requeue_policy.h"
#include "slurmapi.h"

const char *requeue_mode_name(enum requeue_mode m)
{
	return m == REQUEUE_MODE_AUTO ? "auto" : m == REQUEUE_MODE_SUGGEST ? "suggest" : "off";
}

const char *requeue_decision_name(enum requeue_decision d)
{
	switch (d) {
	case RQ_REQUEUE:
		return REQUEUE_DONE;
	case RQ_SUGGEST:
		return REQUEUE_SUGGESTED;
	case RQ_REFUSE:
		return REQUEUE_REFUSED;
	case RQ_FAILED:
		return REQUEUE_FAILED;
	case RQ_NONE:
		break;
	}
	return "?";
}

static enum requeue_mode mode_of(const char *s)
{
	return s && !strcasecmp(s, "auto")	 ? REQUEUE_MODE_AUTO
		: s && !strcasecmp(s, "suggest") ? REQUEUE_MODE_SUGGEST
						 : REQUEUE_MODE_OFF;
}

enum requeue_mode requeue_class_mode(const struct attrib_config *conf, const char *class_name, bool *listed)
{
	*listed = !conf->nrequeue_classes;
	if (!conf->nrequeue_classes)
		return mode_of(conf->requeue_policy);
	for (int i = 0; class_name && i < conf->nrequeue_classes; i++) {
		const char *item = conf->requeue_classes[i], *colon = strchr(item, ':');
		size_t len = colon ? (size_t)(colon - item) : strlen(item);

		if (len == strlen(class_name) && !strncmp(item, class_name, len)) {
			*listed = true;
			return mode_of(colon ? colon + 1 : conf->requeue_policy);
		}
	}
	return REQUEUE_MODE_OFF;
}

bool requeue_confident(struct json_object *result, char *why, size_t whylen)
{
	struct result_view v;

	if (!result_view_of(result, &v)) {
		snprintf(why, whylen, "the stored result is not a diagnosis");
		return false;
	}
	if (!v.sub_domain || !v.domain || strcmp(v.domain, "infra")) {
		snprintf(why, whylen, "the diagnosis is %s, not an infrastructure fault",
			 v.sub_domain ? v.sub_domain : "missing");
		return false;
	}
	if (!result_cause_vouched(&v)) {
		bool own = v.root_trust && !strcmp(v.root_trust, TRUST_NAME_JOB_OUTPUT);

		snprintf(why, whylen, "the root cause (%s) comes from %s (trust: %s)",
			 v.root_code ? v.root_code : v.sub_domain,
			 own ? "the job's own output, which its user writes" : "a file anyone may write",
			 v.root_trust ? v.root_trust : "none");
		return false;
	}
	if (!result_array_len(v.culprit_nodes)) {
		snprintf(why, whylen, "the diagnosis (%s) names no culprit node", v.sub_domain);
		return false;
	}
	return true;
}

void requeue_decide(const struct attrib_config *conf, struct json_object *result, const char *job_id,
		    long attempt, bool by_policy, requeue_state_fn state, void *arg,
		    struct requeue_verdict *v)
{
	struct result_view view;
	struct requeue_job_state st;
	char err[256];
	bool listed;

	memset(v, 0, sizeof(*v));
	result_view_of(result, &view);
	snprintf(v->class_name, sizeof(v->class_name), "%s", view.root_class ? view.root_class : "");
	if (by_policy) {
		v->mode = requeue_class_mode(conf, view.root_class, &listed);
		/* off, or not an infrastructure diagnosis at all: nothing to
		 * decide (a user's own failure is no requeue's business) */
		if (mode_of(conf->requeue_policy) == REQUEUE_MODE_OFF && !conf->nrequeue_classes)
			return;
		if (!view.domain || strcmp(view.domain, "infra"))
			return;
		if (listed && v->mode == REQUEUE_MODE_OFF)
			return;
	}
	for (size_t i = 0; i < result_array_len(view.culprit_nodes) && v->n < DRAIN_MAX_NODES; i++) {
		const char *node = result_array_str(view.culprit_nodes, i);
		size_t len = strlen(v->node_list);

		if (!node)
			continue;
		v->nodes[v->n++] = node;
		snprintf(v->node_list + len, sizeof(v->node_list) - len, "%s%s", len ? "," : "", node);
	}
	v->decision = RQ_REFUSE;
	if (!requeue_confident(result, v->why, sizeof(v->why)))
		return;
	if (by_policy && !listed) {
		snprintf(v->why, sizeof(v->why), "class %s is not in RequeueClasses",
			 *v->class_name ? v->class_name : "(none)");
		return;
	}
	if (conf->requeue_max <= 0) {
		snprintf(v->why, sizeof(v->why), "RequeueMax is %ld: no job is requeued", conf->requeue_max);
		return;
	}
	if (state(job_id, v->nodes, v->n, &st, err, sizeof(err), arg) < 0) {
		snprintf(v->why, sizeof(v->why), "Slurm cannot tell the job's state: %s", err);
		return;
	}
	snprintf(v->exc_nodes, sizeof(v->exc_nodes), "%s", st.exc_nodes);
	if (!st.found) {
		snprintf(v->why, sizeof(v->why),
			 "slurmctld no longer knows job %s (it forgets a finished job MinJobAge "
			 "seconds after its end): it cannot be requeued",
			 job_id);
		return;
	}
	if (!st.batch) {
		snprintf(v->why, sizeof(v->why),
			 "job %s is not a batch job (sbatch): Slurm requeues only those", job_id);
		return;
	}
	if (!st.requeueable) {
		snprintf(v->why, sizeof(v->why),
			 "job %s was not submitted requeueable (sbatch --requeue, or JobRequeue=1 in "
			 "slurm.conf): its user did not agree to run it again",
			 job_id);
		return;
	}
	if (st.pending) {
		snprintf(v->why, sizeof(v->why), "job %s is pending again (%s): requeued already", job_id,
			 st.state);
		return;
	}
	if (!st.failed) {
		snprintf(v->why, sizeof(v->why),
			 "job %s is %s: only a job that ended FAILED, NODE_FAIL or TIMEOUT is requeued",
			 job_id, st.state);
		return;
	}
	if (st.restart_cnt != attempt) {
		snprintf(v->why, sizeof(v->why),
			 "the diagnosis is of attempt %ld, and the job is at attempt %ld in Slurm", attempt,
			 st.restart_cnt);
		return;
	}
	if (st.restart_cnt >= conf->requeue_max) {
		snprintf(v->why, sizeof(v->why), "RequeueMax (%ld) reached: job %s was requeued %ld time%s",
			 conf->requeue_max, job_id, st.restart_cnt, st.restart_cnt == 1 ? "" : "s");
		return;
	}
	if (st.excluded >= v->n) {
		snprintf(v->why, sizeof(v->why), "job %s excludes %.200s already (ExcNodeList=%.200s)",
			 job_id, v->node_list, st.exc_nodes);
		return;
	}
	drain_reason(result, v->why, sizeof(v->why)); /* the cause, for the record */
	v->decision = by_policy && v->mode == REQUEUE_MODE_SUGGEST ? RQ_SUGGEST : RQ_REQUEUE;
}
