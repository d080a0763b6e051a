/* attribd's drain policy (DrainPolicy, DrainClasses, DrainMinConfidence,
 * DrainMaxPerHour, DrainMaxFraction, DrainMaxNodes): the decisions, pure
 * but for the node state the caller gives (drain_state_fn).  Carried out
 * by attribd (service/drain_apply.h). */
#ifndef ATTRIB_DRAIN_POLICY_H
#define ATTRIB_DRAIN_POLICY_H

#include <json-c/json.h>
#include <stdbool.h>
#include "attrib.h"
#include "conf.h"
#include "drain_plan.h"
#include "slurmapi.h" /* drain_state_fn */

enum drain_mode { DRAIN_MODE_OFF, DRAIN_MODE_SUGGEST, DRAIN_MODE_AUTO };
enum drain_decision { DECIDE_DRAIN, DECIDE_SUGGEST, DECIDE_REFUSE, DECIDE_FAILED };

struct drain_verdict {
	const char *node; /* points into the result */
	enum drain_decision decision;
	char why[256]; /* DECIDE_REFUSE: the reason */
};

struct drain_decisions {
	char class_name[64];		   /* the root cause's rule class ("" when none) */
	enum drain_mode mode;		   /* of that class */
	char reason[DRAIN_REASON_MAX + 1]; /* for Slurm (drain_reason) */
	struct drain_verdict v[DRAIN_MAX_NODES];
	int n; /* 0: the diagnosis recommends no drain */
};

const char *drain_mode_name(enum drain_mode m);
/* DRAIN_DONE, DRAIN_SUGGESTED, ... (store.h) */
const char *drain_decision_name(enum drain_decision d);
/* The mode of a rule class: its own in DrainClasses (CLASS:MODE), else
 * DrainPolicy; *listed false (and off) when DrainClasses does not name it.
 * DrainClasses not set: the catalog's drain_by_default classes (as given
 * to drain_policy_set_defaults), in DrainPolicy's mode. */
enum drain_mode drain_class_mode(const struct attrib_config *conf, const char *class_name, bool *listed);
/* How many nodes of a partition of total nodes may be drained or down:
 * floor(fraction * total), but at least 1 when fraction > 0. */
int drain_fraction_allowed(double fraction, int total);
/* Decides, for each node the diagnosis recommends draining (its drain
 * actions), drain, suggest or refuse: the class's mode, then the node's
 * state (state() is asked only when the mode is not off), then
 * DrainMaxPerHour (drains_last_hour done already), then DrainMaxFraction.
 * Pure but for state(). */
void drain_policy_decide(const struct attrib_config *conf, struct json_object *result, long drains_last_hour,
			 drain_state_fn state, void *arg, struct drain_decisions *d);
/* The same for one node of a fleet finding's class (repeat-offender),
 * drained with reason. */
void drain_policy_decide_node(const struct attrib_config *conf, const char *class_name, const char *node,
			      const char *reason, long drains_last_hour, drain_state_fn state, void *arg,
			      struct drain_decisions *d);
/* The classes DrainClasses means when attrib.conf does not set it: the
 * catalog's drain_by_default ones (rules/00-base.yaml). */
void drain_policy_set_defaults(const attrib_catalog *cat);

#endif
