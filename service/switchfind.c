/* Lost links under one leaf switch across jobs, found and recorded by
 * attribd (what blames a switch: policy/switch_policy.c): the stored
 * results of the last hours searched, the site's topology read
 * (topology_site.c), a FINDING_SWITCH recorded once an hour per switch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "conf.h"
#include "findings.h"
#include "log.h"
#include "store.h"
#include "switch_policy.h"
#include "switchfind.h"
#include "topology.h"
#include "topology_site.h"

#define LOOKBACK (6 * 3600) /* s of stored results searched (their store times) */
#define FINDING_QUIET 3600  /* s: one finding per switch in this time */

static int each_result(const struct store_row *row, void *arg)
{
	struct json_object *res;

	if (!row->result_json || !(res = json_tokener_parse(row->result_json)))
		return 0;
	switch_consider(arg, row->job_id, row->attempt, res);
	json_object_put(res);
	return 0;
}

static void record(store *s, const char *leaf, const struct switch_search *q, const char *summary,
		   long long now)
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
	struct switch_search q = { .job_id = job_id,
				   .attempt = attempt,
				   .window = (double)conf->switch_window };
	const char *node, *own = switch_own(res);
	char err[300], summary[600];
	struct topology *t;
	int blamed = 0;

	if (own) {
		/* the engine blamed it from one job's nodes */
		snprintf(sw, swlen, "%s", own);
		switch_cite(&q, job_id, attempt, "");
		snprintf(summary, sizeof(summary),
			 "job %s: several nodes under leaf switch %s lost their links at once", job_id, own);
		record(s, own, &q, summary, now);
		return 1;
	}
	if (!switch_lost_link(res, &node, &q.when))
		return 0;
	t = topology_site_get(conf, err, sizeof(err));
	if (t && (q.leaf = topology_leaf(t, node))) {
		struct store_filter f = { .since = now - LOOKBACK, .limit = 10000 };

		q.t = t;
		switch_cite(&q, job_id, attempt, node);
		if (store_list(s, &f, each_result, &q) < 0)
			log_msg(LOGL_ERROR, "job %s: cannot read the store for other lost links", job_id);
		if (switch_blamed(conf, &q, summary, sizeof(summary))) {
			snprintf(sw, swlen, "%s", q.leaf);
			record(s, q.leaf, &q, summary, now);
			blamed = 1;
		}
	}
	topology_site_put();
	return blamed;
}
