/* attribd's drain policy carried out: the decisions of policy/
 * drain_policy.c drained through Slurm, recorded in the store, counted in
 * the metrics and logged. */
#include <stdio.h>
#include "accounting.h"
#include "attrib.h"
#include "conf.h"
#include "contract.h"
#include "drain_apply.h"
#include "drain_plan.h"
#include "drain_policy.h"
#include "findings.h"
#include "log.h"
#include "metrics.h"
#include "slurmapi.h"
#include "store.h"

/* Slurm's state, when the service has a slurm.conf (accounting_init found
 * one); without it libslurm would not know where slurmctld is. */
static int service_state(const char *node, struct drain_node_state *st, char *err, size_t errlen, void *arg)
{
	if (!accounting_enabled()) {
		snprintf(err, errlen, "the service found no slurm.conf");
		return -1;
	}
	return drain_slurm_state(node, st, err, errlen, arg);
}

/* The drains done in the last hour, or the limit when they cannot be
 * counted (then nothing more is drained). */
static long recent_drains(const struct attrib_config *conf, store *s, long long now, const char *what)
{
	long recent = store_count_drains(s, now - 3600);

	if (recent < 0) {
		log_msg(LOGL_ERROR, "%s: cannot count the recent drains", what);
		recent = conf->drain_max_per_hour;
	}
	return recent;
}

/* Drains through Slurm what was decided DECIDE_DRAIN, then records,
 * counts and logs every decision; finding: the finding decided for, 0 for
 * a job's own diagnosis. */
static void carry_out(store *s, struct drain_decisions *d, const char *job_id, long attempt,
		      long long finding, long long now)
{
	char by[96], err[200];

	if (finding)
		snprintf(by, sizeof(by), "attribd (policy %s, finding %lld)", drain_mode_name(d->mode),
			 finding);
	else
		snprintf(by, sizeof(by), "attribd (policy %s)", drain_mode_name(d->mode));
	for (int i = 0; i < d->n; i++) {
		struct drain_verdict *v = &d->v[i];

		if (v->decision == DECIDE_DRAIN && drain_node(v->node, d->reason, err, sizeof(err)) < 0) {
			v->decision = DECIDE_FAILED;
			snprintf(v->why, sizeof(v->why), "Slurm refused the drain: %s", err);
		}
		const char *text = v->decision == DECIDE_DRAIN || v->decision == DECIDE_SUGGEST ? d->reason
												: v->why;
		const char *decision = drain_decision_name(v->decision);
		int rc = finding ? store_add_finding_drain(s, finding, job_id, attempt, v->node, text,
							   decision, by, now)
				 : store_add_drain(s, job_id, attempt, v->node, text, decision, by, now);

		if (rc < 0)
			log_msg(LOGL_ERROR, "job %s attempt %ld: cannot record the drain decision for %s",
				job_id, attempt, v->node);
		else
			metrics_note_drain(decision);
		log_msg(v->decision == DECIDE_FAILED ? LOGL_WARNING : LOGL_INFO,
			"job %s attempt %ld: %s %s (class %s, policy %s): %s", job_id, attempt, v->node,
			decision, *d->class_name ? d->class_name : "none", drain_mode_name(d->mode), text);
	}
}

void drain_policy_apply(const struct attrib_config *conf, const attrib_catalog *cat, store *s,
			struct json_object *result, const char *job_id, long attempt, long long now)
{
	struct drain_decisions d;
	char what[160];

	drain_policy_set_defaults(cat); /* the catalog in use decides them */
	snprintf(what, sizeof(what), "job %s attempt %ld", job_id, attempt);
	drain_policy_decide(conf, result, recent_drains(conf, s, now, what), service_state, NULL, &d);
	carry_out(s, &d, job_id, attempt, 0, now);
}

void drain_policy_apply_finding(const struct attrib_config *conf, store *s, long long finding,
				const char *class_name, const char *node, const char *reason,
				const char *job_id, long attempt, long long now)
{
	struct drain_decisions d;
	char what[160];

	snprintf(what, sizeof(what), "finding %lld", finding);
	drain_policy_decide_node(conf, class_name, node, reason, recent_drains(conf, s, now, what),
				 service_state, NULL, &d);
	carry_out(s, &d, job_id, attempt, finding, now);
}

void drain_policy_refuse_switch(store *s, struct json_object *result, const char *job_id, long attempt,
				const char *sw, long long now)
{
	struct drain_plan plan;
	struct json_object *under = NULL;
	char why[200];

	snprintf(why, sizeof(why), "switch %s blamed", sw);
	if (drain_plan(result, NULL, 0, &plan) < 0)
		plan.n = 0;
	json_object_object_get_ex(result, "switch_nodes", &under);
	for (size_t i = 0; i < result_array_len(under) && plan.n < DRAIN_MAX_NODES; i++)
		if (result_array_str(under, i))
			plan.nodes[plan.n++] = result_array_str(under, i);
	for (int i = 0; i < plan.n; i++) {
		if (store_add_drain(s, job_id, attempt, plan.nodes[i], why, DRAIN_REFUSED, "attribd (switch)",
				    now) < 0)
			log_msg(LOGL_ERROR, "job %s attempt %ld: cannot record the drain decision for %s",
				job_id, attempt, plan.nodes[i]);
		else
			metrics_note_drain(DRAIN_REFUSED);
		log_msg(LOGL_INFO, "job %s attempt %ld: %s not drained: %s", job_id, attempt, plan.nodes[i],
			why);
	}
}
