/* attribd's drain policy: after a diagnosis is stored, whether its
 * culprit nodes are drained, only suggested or refused, and why.
 *
 * The candidates are the result's own drain actions (drain_plan: the engine
 * gives them only for an unambiguous infrastructure culprit), or the node
 * of a repeat-offender finding (repeat_policy.c: class repeat-offender).  A draining
 * mistake takes a healthy node out of service, so each limit refuses rather
 * than guesses, and every decision is recorded with its reason:
 *   - the root cause's rule class must be in DrainClasses; its mode is its
 *     own (CLASS:MODE) or DrainPolicy;
 *   - the diagnosis's confidence must be DrainMinConfidence or above
 *     (high by default: only a fault the node itself logged, or one the
 *     rest of the evidence corroborates); a finding has none to check;
 *   - a node Slurm already shows drained, failing or down is left alone;
 *   - DrainMaxPerHour counts drains actually done in the last hour, by the
 *     policy or by hand (attrib drain), plus those decided just before for
 *     the same diagnosis;
 *   - DrainMaxFraction: in every partition of the node, the nodes drained
 *     or down with this one must stay within floor(fraction * nodes), at
 *     least 1 when the fraction is above 0 (a 3-node partition at 0.05 may
 *     lose one node, not none: otherwise small partitions could never be
 *     drained automatically, and 0 says "never" plainly);
 *   - DrainMaxNodes: the nodes of the whole cluster Slurm shows drained
 *     with attrib's reason prefix, with this one and those decided just
 *     before, stay within it: an absolute cap, since a fraction of a
 *     10,000-node partition is hundreds of nodes.
 * A suggestion goes through the same limits, so "suggested" means the
 * policy in auto mode would have drained the node.
 *
 * These are the decisions only, Slurm's view of a node given by the
 * caller (drain_state_fn); attribd carries them out (service/drain_apply.c).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "attrib.h"
#include "conf.h"
#include "contract.h"
#include "drain_plan.h"
#include "drain_policy.h"
#include "findings.h"
#include "slurmapi.h"
#include "store.h" /* the decisions' names */

const char *drain_mode_name(enum drain_mode m)
{
	return m == DRAIN_MODE_AUTO ? "auto" : m == DRAIN_MODE_SUGGEST ? "suggest" : "off";
}

const char *drain_decision_name(enum drain_decision d)
{
	switch (d) {
	case DECIDE_DRAIN:
		return DRAIN_DONE;
	case DECIDE_SUGGEST:
		return DRAIN_SUGGESTED;
	case DECIDE_REFUSE:
		return DRAIN_REFUSED;
	case DECIDE_FAILED:
		return DRAIN_FAILED;
	}
	return "?";
}

static enum drain_mode mode_of(const char *s)
{
	return s && !strcasecmp(s, "auto")	 ? DRAIN_MODE_AUTO
		: s && !strcasecmp(s, "suggest") ? DRAIN_MODE_SUGGEST
						 : DRAIN_MODE_OFF;
}

/* The rule catalog's drain_by_default classes: what DrainClasses is when
 * attrib.conf does not set it (the class names are the rules', not C's). */
#define DEFAULT_CLASSES_MAX 32
static char default_classes[DEFAULT_CLASSES_MAX][64];
static int ndefault_classes;
static pthread_mutex_t default_lock = PTHREAD_MUTEX_INITIALIZER;

void drain_policy_set_defaults(const attrib_catalog *cat)
{
	const char *names[DEFAULT_CLASSES_MAX];
	int n = attrib_catalog_drain_classes(cat, names, DEFAULT_CLASSES_MAX);

	pthread_mutex_lock(&default_lock);
	for (int i = 0; i < n; i++)
		snprintf(default_classes[i], sizeof(default_classes[i]), "%s", names[i]);
	ndefault_classes = n;
	pthread_mutex_unlock(&default_lock);
}

static bool default_class(const char *class_name)
{
	bool found = false;

	pthread_mutex_lock(&default_lock);
	for (int i = 0; i < ndefault_classes && !found; i++)
		found = !strcmp(default_classes[i], class_name);
	pthread_mutex_unlock(&default_lock);
	return found;
}

/* The classes of fleet findings (store/findings.h), beside the rules'
 * classes, and their mode when DrainClasses is not set. */
static const struct {
	const char *name;
	enum drain_mode mode;
} finding_classes[] = {
	{ FINDING_REPEAT_OFFENDER, DRAIN_MODE_SUGGEST },
};

enum drain_mode drain_class_mode(const struct attrib_config *conf, const char *class_name, bool *listed)
{
	*listed = false;
	if (!class_name || !*class_name)
		return DRAIN_MODE_OFF;
	for (size_t i = 0; !conf->ndrain_classes && i < sizeof(finding_classes) / sizeof(*finding_classes);
	     i++)
		if (!strcmp(finding_classes[i].name, class_name)) {
			*listed = true;
			return finding_classes[i].mode;
		}
	if (!conf->ndrain_classes) {
		*listed = default_class(class_name);
		return *listed ? mode_of(conf->drain_policy) : DRAIN_MODE_OFF;
	}
	for (int i = 0; i < conf->ndrain_classes; i++) {
		const char *item = conf->drain_classes[i], *colon = strchr(item, ':');
		size_t len = colon ? (size_t)(colon - item) : strlen(item);

		if (len == strlen(class_name) && !strncmp(item, class_name, len)) {
			*listed = true;
			return mode_of(colon ? colon + 1 : conf->drain_policy);
		}
	}
	return DRAIN_MODE_OFF;
}

int drain_fraction_allowed(double fraction, int total)
{
	if (fraction <= 0 || total <= 0)
		return 0;
	/* truncation is floor for positive numbers; 1e-9: 0.1 * 30 is 2.999... in binary */
	int n = (int)(fraction * total + 1e-9);
	return n < 1 ? 1 : n;
}

/* Why a diagnosis of this confidence (NULL: the result has none) is not
 * drained under DrainMinConfidence, or NULL when it may be. */
static const char *too_weak(const struct attrib_config *conf, const char *confidence, char *buf, size_t len)
{
	int min = confidence_rank(conf->drain_confidence), rank = confidence_rank(confidence);

	if (min < 0) /* config_load takes only the levels' names */
		min = CONFIDENCE_HIGH;
	if (rank >= min)
		return NULL;
	if (rank < 0)
		snprintf(buf, len, "the diagnosis states no confidence (made by an older attrib); %s",
			 "attrib drain drains by hand");
	else
		snprintf(buf, len, "confidence %s is below DrainMinConfidence (%s)",
			 contract_confidences[rank], contract_confidences[min]);
	return buf;
}

/* The limits, node by node, for nodes of class cls (its mode d->mode,
 * listed in DrainClasses or not) and a diagnosis of this confidence
 * (findings: check_confidence false); d->v gets a verdict for each. */
static void decide_nodes(const struct attrib_config *conf, const char *cls, bool listed,
			 bool check_confidence, const char *confidence, const char *const *nodes, int n,
			 long drains_last_hour, drain_state_fn state, void *arg, struct drain_decisions *d)
{
	long done = 0; /* drained or suggested above, for this decision */

	for (int i = 0; i < n && d->n < DRAIN_MAX_NODES; i++) {
		struct drain_verdict *v = &d->v[d->n++];
		struct drain_node_state st;
		char err[200];
		const struct drain_partition *full = NULL;

		v->node = nodes[i];
		v->decision = DECIDE_REFUSE;
		if (!cls) {
			snprintf(v->why, sizeof(v->why),
				 "the diagnosis names no rule class (made by an older attrib); "
				 "attrib drain drains by hand");
			continue;
		}
		if (!listed) {
			snprintf(v->why, sizeof(v->why), "class %s is not in DrainClasses", cls);
			continue;
		}
		if (d->mode == DRAIN_MODE_OFF) {
			snprintf(v->why, sizeof(v->why), "the drain policy of class %s is off", cls);
			continue;
		}
		if (check_confidence && too_weak(conf, confidence, v->why, sizeof(v->why)))
			continue;
		if (state(v->node, &st, err, sizeof(err), arg) < 0) {
			snprintf(v->why, sizeof(v->why), "Slurm cannot tell the node's state: %s", err);
			continue;
		}
		if (st.unavailable) {
			snprintf(v->why, sizeof(v->why), "the node is %s already", st.state);
			continue;
		}
		if (drains_last_hour + done >= conf->drain_max_per_hour) {
			snprintf(v->why, sizeof(v->why),
				 "DrainMaxPerHour (%ld) reached: %ld drain%s in the last hour%s",
				 conf->drain_max_per_hour, drains_last_hour, drains_last_hour == 1 ? "" : "s",
				 done ? " and earlier nodes of this diagnosis" : "");
			continue;
		}
		if (st.attrib_drained + done + 1 > conf->drain_max_nodes) {
			snprintf(v->why, sizeof(v->why),
				 "DrainMaxNodes (%ld) reached: %d node%s drained by attrib%s",
				 conf->drain_max_nodes, st.attrib_drained, st.attrib_drained == 1 ? "" : "s",
				 done ? " and earlier nodes of this diagnosis" : "");
			continue;
		}
		for (int p = 0; p < st.npart && !full; p++)
			/* the nodes counted above are taken as being in every partition
			 * of this one: counted twice at worst, never missed */
			if (st.part[p].unavailable + done + 1 >
			    drain_fraction_allowed(conf->drain_max_fraction, st.part[p].nodes))
				full = &st.part[p];
		if (full) {
			snprintf(v->why, sizeof(v->why),
				 "DrainMaxFraction (%g) of partition %s reached: %d of its %d nodes "
				 "drained or down, at most %d",
				 conf->drain_max_fraction, full->name, full->unavailable + (int)done,
				 full->nodes, drain_fraction_allowed(conf->drain_max_fraction, full->nodes));
			continue;
		}
		v->decision = d->mode == DRAIN_MODE_AUTO ? DECIDE_DRAIN : DECIDE_SUGGEST;
		done++;
	}
}

void drain_policy_decide(const struct attrib_config *conf, struct json_object *result, long drains_last_hour,
			 drain_state_fn state, void *arg, struct drain_decisions *d)
{
	struct drain_plan plan;
	struct result_view rv;
	bool listed;

	result_view_of(result, &rv);
	const char *cls = rv.root_class;
	memset(d, 0, sizeof(*d));
	if (drain_plan(result, NULL, 0, &plan) < 0)
		return; /* no drain recommended: nothing to decide */
	snprintf(d->class_name, sizeof(d->class_name), "%s", cls ? cls : "");
	snprintf(d->reason, sizeof(d->reason), "%s", plan.reason);
	d->mode = drain_class_mode(conf, cls, &listed);
	decide_nodes(conf, cls, listed, true, rv.confidence, plan.nodes, plan.n, drains_last_hour, state, arg,
		     d);
}

void drain_policy_decide_node(const struct attrib_config *conf, const char *class_name, const char *node,
			      const char *reason, long drains_last_hour, drain_state_fn state, void *arg,
			      struct drain_decisions *d)
{
	bool listed;

	memset(d, 0, sizeof(*d));
	snprintf(d->class_name, sizeof(d->class_name), "%s", class_name);
	snprintf(d->reason, sizeof(d->reason), "%s", reason);
	d->mode = drain_class_mode(conf, class_name, &listed);
	decide_nodes(conf, class_name, listed, false, NULL, &node, 1, drains_last_hour, state, arg, d);
}
