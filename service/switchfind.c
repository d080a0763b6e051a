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
 * job's nodes) is recorded as such a finding too. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "service.h"
#include "findings.h"
#include "timefmt.h"
#include "topology.h"

#define CITES_MAX 64
#define LOOKBACK (6 * 3600) /* s of stored results searched (their store times) */
#define FINDING_QUIET 3600  /* s: one finding per switch in this time */

struct search {
	const struct topology *t;
	const char *leaf, *job_id;
	long attempt;
	double when, window;
	struct finding_job jobs[CITES_MAX];
	char job_ids[CITES_MAX][NAME_MAX_LEN + 1];
	char nodes[CITES_MAX][NAME_MAX_LEN + 1];
	int njobs, nnodes;
};

/* The node and time of a result's lost link, when its root cause is one
 * that evidence the job's user could not have written vouches for: the
 * job's own output names nodes at will. */
static bool lost_link_of(struct json_object *res, const char **node, double *t)
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

static void cite(struct search *q, const char *job_id, long attempt, const char *node)
{
	bool seen = false;

	for (int i = 0; i < q->nnodes && !seen; i++)
		seen = !strcmp(q->nodes[i], node);
	if (*node && !seen && q->nnodes < CITES_MAX)
		snprintf(q->nodes[q->nnodes++], sizeof(q->nodes[0]), "%s", node);
	if (q->njobs < CITES_MAX) {
		snprintf(q->job_ids[q->njobs], sizeof(q->job_ids[0]), "%s", job_id);
		q->jobs[q->njobs] = (struct finding_job){ .job_id = q->job_ids[q->njobs],
							  .attempt = attempt };
		q->njobs++;
	}
}

static int each_result(const struct store_row *row, void *arg)
{
	struct search *q = arg;
	struct json_object *res;
	const char *node, *leaf;
	double t;

	if (!strcmp(row->job_id, q->job_id) && row->attempt == q->attempt)
		return 0;
	if (!row->result_json || !(res = json_tokener_parse(row->result_json)))
		return 0;
	if (lost_link_of(res, &node, &t) && fabs(t - q->when) <= q->window &&
	    (leaf = topology_leaf(q->t, node)) && !strcmp(leaf, q->leaf))
		cite(q, row->job_id, row->attempt, node);
	json_object_put(res);
	return 0;
}

static void record(store *s, const char *leaf, const struct search *q, const char *summary, long long now)
{
	long long last = store_latest_finding(s, FINDING_SWITCH, leaf, now - FINDING_QUIET);

	if (last > 0)
		return; /* one stands already: the same event */
	if (store_add_finding(s, FINDING_SWITCH, leaf, summary, q->jobs, q->njobs, now) < 0)
		log_msg(LOGL_ERROR, "cannot record the finding about switch %s", leaf);
	else
		log_msg(LOGL_WARNING, "switch %s: %s", leaf, summary);
}

int switch_finding(const struct attrib_config *conf, store *s, struct json_object *res, const char *job_id,
		   long attempt, long long now, char *sw, size_t swlen)
{
	struct search q = { .job_id = job_id, .attempt = attempt, .window = (double)conf->switch_window };
	const char *node, *own = json_str(res, "culprit_switch");
	char err[300], summary[600], list[300] = "";
	struct topology *t;
	struct result_view v;
	int blamed = 0;

	if (own && result_view_of(res, &v) && result_cause_vouched(&v)) {
		/* the engine blamed it from one job's nodes */
		snprintf(sw, swlen, "%s", own);
		cite(&q, job_id, attempt, "");
		snprintf(summary, sizeof(summary),
			 "job %s: several nodes under leaf switch %s lost their links at once", job_id, own);
		record(s, own, &q, summary, now);
		return 1;
	}
	if (!lost_link_of(res, &node, &q.when))
		return 0;
	t = topology_site_get(conf, err, sizeof(err));
	if (t && (q.leaf = topology_leaf(t, node))) {
		struct store_filter f = { .since = now - LOOKBACK, .limit = 10000 };

		q.t = t;
		cite(&q, job_id, attempt, node);
		if (store_list(s, &f, each_result, &q) < 0)
			log_msg(LOGL_ERROR, "job %s: cannot read the store for other lost links", job_id);
		if (q.nnodes >= (conf->switch_min_nodes < 2 ? 2 : conf->switch_min_nodes)) {
			size_t at = 0;

			for (int i = 0; i < q.nnodes && at < sizeof(list); i++) {
				int k = snprintf(list + at, sizeof(list) - at, "%s%s", i ? ", " : "",
						 q.nodes[i]);

				at += k > 0 ? (size_t)k : 0;
			}
			snprintf(
				summary, sizeof(summary),
				"%d nodes under leaf switch %s (%s) lost their links within %ld s, in %d job "
				"attempts: the switch, not the nodes",
				q.nnodes, q.leaf, list, conf->switch_window, q.njobs);
			snprintf(sw, swlen, "%s", q.leaf);
			record(s, q.leaf, &q, summary, now);
			blamed = 1;
		}
	}
	topology_site_put();
	return blamed;
}
