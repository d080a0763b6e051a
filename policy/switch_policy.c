/* Across jobs: lost links under one leaf switch (a FINDING_SWITCH).
 *
 * One job's diagnosis sees only its own nodes.  When it blames a lost link
 * on a node (root_cause.lost_link), other jobs on other nodes under the
 * same leaf switch may have lost theirs in the same seconds: their stored
 * diagnoses each blame one node, and together they blame the switch.  With
 * SwitchMinNodes nodes under one leaf (the site's topology, TopologyFile)
 * losing links within SwitchWindow of each other (by the faults' own
 * times), attribd records a fleet finding about the switch citing the
 * jobs, and its drain policy drains none of those nodes for it.  Only a
 * loss evidence the jobs' users could not have written vouches for counts
 * (result_cause_vouched): a job's own output naming two nodes under one
 * leaf would otherwise blame a healthy switch and spare both nodes.  A
 * diagnosis that blamed the switch itself (culprit_switch: several of one
 * job's nodes) is recorded as such a finding too.
 *
 * Here what blames a switch, pure: attribd searches its store and records
 * the finding (service/switchfind.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "conf.h"
#include "contract.h"
#include "findings.h"
#include "jsonread.h"
#include "switch_policy.h"
#include "timefmt.h"
#include "topology.h"

bool switch_lost_link(struct json_object *res, const char **node, double *t)
{
	struct json_object *rc, *ll;
	struct result_view v;

	if (!result_view_of(res, &v) || !result_cause_vouched(&v) ||
	    !json_object_object_get_ex(res, "root_cause", &rc) ||
	    !json_object_is_type(rc, json_type_object) || !json_object_object_get_ex(rc, "lost_link", &ll) ||
	    !json_object_get_boolean(ll))
		return false;
	*node = json_str(rc, "node");
	return *node && json_str(rc, "time") && time_parse_rfc3339(json_str(rc, "time"), t);
}

const char *switch_own(struct json_object *res)
{
	const char *own = json_str(res, "culprit_switch");
	struct result_view v;

	return own && result_view_of(res, &v) && result_cause_vouched(&v) ? own : NULL;
}

void switch_cite(struct switch_search *q, const char *job_id, long attempt, const char *node)
{
	bool seen = false;

	for (int i = 0; i < q->nnodes && !seen; i++)
		seen = !strcmp(q->nodes[i], node);
	if (*node && !seen && q->nnodes < SWITCH_CITES_MAX)
		snprintf(q->nodes[q->nnodes++], sizeof(q->nodes[0]), "%s", node);
	if (q->njobs < SWITCH_CITES_MAX) {
		snprintf(q->job_ids[q->njobs], sizeof(q->job_ids[0]), "%s", job_id);
		q->jobs[q->njobs] = (struct finding_job){ .job_id = q->job_ids[q->njobs],
							  .attempt = attempt };
		q->njobs++;
	}
}

void switch_consider(struct switch_search *q, const char *job_id, long attempt, struct json_object *res)
{
	const char *node, *leaf;
	double t;

	if (!strcmp(job_id, q->job_id) && attempt == q->attempt)
		return; /* the diagnosis searched for */
	if (switch_lost_link(res, &node, &t) && fabs(t - q->when) <= q->window &&
	    (leaf = topology_leaf(q->t, node)) && !strcmp(leaf, q->leaf))
		switch_cite(q, job_id, attempt, node);
}

bool switch_blamed(const struct attrib_config *conf, const struct switch_search *q, char *summary, size_t len)
{
	char list[300] = "";
	size_t at = 0;

	if (q->nnodes < (conf->switch_min_nodes < 2 ? 2 : conf->switch_min_nodes))
		return false;
	for (int i = 0; i < q->nnodes && at < sizeof(list); i++) {
		int k = snprintf(list + at, sizeof(list) - at, "%s%s", i ? ", " : "", q->nodes[i]);

		at += k > 0 ? (size_t)k : 0;
	}
	snprintf(summary, len,
		 "%d nodes under leaf switch %s (%s) lost their links within %ld s, in %d job "
		 "attempts: the switch, not the nodes",
		 q->nnodes, q->leaf, list, conf->switch_window, q->njobs);
	return true;
}
