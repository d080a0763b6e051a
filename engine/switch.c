/* One leaf switch for several nodes' lost links.
 *
 * When the first cause of a job is a lost link (codes tagged link-lost:
 * a NIC's carrier down, an IB port error) and such losses hit several of
 * its nodes within settings.switch_window, one node's cable or HCA does
 * not explain them: the switch they share does.  The case's topology
 * (topology.conf or topology.yaml at its top, Slurm's own file) says which
 * leaf switch each node hangs from.  When every one of those nodes hangs
 * from the same leaf, and they are at least settings.switch_share of the
 * job's nodes under it, the verdict blames that switch: no node is a
 * culprit and none is drained for it.  Otherwise the verdict is the usual
 * one, and the coverage says why no switch was blamed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"
#include "topology.h"

static struct topology *case_topology(struct analysis *a, const char **which)
{
	char err[300];

	*which = NULL;
	for (int i = 0; i < TOPOLOGY_NAMES; i++) {
		char *path = xmalloc(strlen(a->dir) + 32);
		struct topology *t;

		sprintf(path, "%s/%s", a->dir, topology_names[i]);
		if (access(path, F_OK)) {
			free(path);
			continue;
		}
		*which = topology_names[i];
		t = topology_load(path, err, sizeof(err));
		free(path);
		if (!t)
			analysis_add_coverage(a, topology_names[i], COVERAGE_ERROR,
					      "%s: no switch can be blamed", err);
		else if (*topology_note(t))
			analysis_add_coverage(a, topology_names[i], COVERAGE_INFO, "%s", topology_note(t));
		return t;
	}
	return NULL;
}

static bool lost_link(const struct symptom *s)
{
	return (s->code->flags & CODE_LINK_LOST) && s->node >= 0 && !s->aside;
}

/* A loss only the job's output or files anyone may write tell of blames
 * no switch: a user could name two nodes under one leaf and have both
 * spared their drains. */
static bool vouched_loss(const struct symptom *s)
{
	return lost_link(s) && s->trust == TRUST_VOUCHED;
}

/* "a, b, c" (the first few) into buf */
static void node_names(const struct analysis *a, const bool *on, char *buf, size_t len)
{
	size_t at = 0;
	int shown = 0;

	buf[0] = '\0';
	for (int i = 0; i < a->job.nodes.n && at < len; i++)
		if (on[i]) {
			int k = snprintf(buf + at, len - at, "%s%s", shown ? ", " : "",
					 shown < 8 ? a->job.nodes.v[i] : "...");

			at += k > 0 ? (size_t)k : 0;
			if (++shown > 8)
				break;
		}
}

bool switch_blame(struct analysis *a, struct symptom **c, int nc, int *ns, struct verdict *v)
{
	const struct settings *set = &a->cat->set;
	int n = a->job.nodes.n, nnodes = 0, said = 0, under = 0, k = 0;
	bool *on, ok = false;
	double until;
	const char *which, *leaf = NULL;
	struct topology *t;
	char names[400];

	for (int i = 0; i < *ns; i++) /* the first cause is lost links, and only that */
		if (!lost_link(c[i]))
			return false;
	until = c[0]->first + set->switch_window + set->clock_skew;
	on = xcalloc(n + 1, sizeof(bool));
	for (int i = 0; i < nc; i++)
		if (lost_link(c[i]) && c[i]->first <= until && !on[c[i]->node]) {
			on[c[i]->node] = true;
			said++;
		}
	memset(on, 0, (n + 1) * sizeof(bool));
	for (int i = 0; i < nc; i++)
		if (vouched_loss(c[i]) && c[i]->first <= until && !on[c[i]->node]) {
			on[c[i]->node] = true;
			nnodes++;
		}
	if (nnodes < set->switch_min_nodes) {
		if (said >= set->switch_min_nodes)
			analysis_add_coverage(a, "topology", COVERAGE_INFO,
					      "%d nodes lost their links within %g s, %d of them in evidence "
					      "the job's user or anyone on a node could have written: no "
					      "switch blamed",
					      said, set->switch_window, said - nnodes);
		free(on);
		return false;
	}
	node_names(a, on, names, sizeof(names));
	t = case_topology(a, &which);
	if (!t) {
		if (!which)
			analysis_add_coverage(
				a, "topology", COVERAGE_MISSING,
				"%d nodes (%s) lost their links within %g s: the case has no "
				"topology (topology.conf) to tell whether one switch explains them",
				nnodes, names, set->switch_window);
		free(on);
		return false;
	}
	for (int i = 0; i < n; i++) {
		const char *l = topology_leaf(t, a->job.nodes.v[i]);

		if (!on[i])
			continue;
		if (!l || (leaf && strcmp(l, leaf))) {
			analysis_add_coverage(
				a, which, COVERAGE_INFO,
				"%d nodes (%s) lost their links within %g s, but %s %s: no switch "
				"blamed",
				nnodes, names, set->switch_window, a->job.nodes.v[i],
				l ? "hangs from another leaf switch" : "is under no single leaf switch");
			goto out;
		}
		leaf = l;
	}
	for (int i = 0; i < n; i++)
		under += topology_leaf(t, a->job.nodes.v[i]) == leaf;
	if (nnodes < set->switch_share * under) {
		analysis_add_coverage(
			a, which, COVERAGE_INFO,
			"%d of the job's %d nodes under leaf switch %s (%s) lost their links within "
			"%g s: too few to blame the switch",
			nnodes, under, leaf, names, set->switch_window);
		goto out;
	}
	/* the lost links are the causes, in time order; the rest follows */
	struct symptom **rest = xcalloc(nc + 1, sizeof(*rest));
	int nrest = 0;
	for (int i = 0; i < nc; i++) {
		if (vouched_loss(c[i]) && c[i]->first <= until) {
			c[i]->role = ROLE_NONE;
			c[i]->explained_by = NULL;
			c[k++] = c[i];
		} else {
			rest[nrest++] = c[i];
		}
	}
	memcpy(c + k, rest, nrest * sizeof(*rest));
	free(rest);
	*ns = k;
	v->sub_domain = c[0]->code->sub_domain;
	v->root = c[0];
	v->culprit_switch = text_sanitise(leaf, strlen(leaf), CONTRACT_NAME_MAX);
	ok = true;
out:
	topology_free(t);
	free(on);
	return ok;
}
