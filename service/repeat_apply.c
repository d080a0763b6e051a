/* Repeat offenders found (the decision: policy/repeat_policy.c): after
 * each diagnosis attribd reads the history of every node it names from
 * the store, records a finding citing the jobs and hands it to the drain
 * policy (class repeat-offender). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "conf.h"
#include "contract.h"
#include "drain_apply.h"
#include "drain_plan.h"
#include "findings.h"
#include "history.h"
#include "log.h"
#include "metrics.h"
#include "repeat_apply.h"
#include "repeat_policy.h"
#include "store.h"

static long long examine(const struct attrib_config *conf, store *s, const char *node, long long now,
			 char *summary, size_t len, char *brief, size_t blen)
{
	const char *excluded[SUB_DOMAIN_N];
	struct repeat_tally t = { 0 };
	struct finding_job *cited = NULL;
	long long standing, id = 0;
	int nex = repeat_excluded_sub_domains(excluded);

	if (summary && len)
		*summary = 0;
	if (!repeat_on(conf))
		return 0;
	standing = store_latest_finding(s, FINDING_REPEAT_OFFENDER, node, now - conf->repeat_window);
	if (standing)
		return standing < 0 ? -1 : 0;
	if (store_node_history(s, node, now - conf->repeat_window, (const char *const *)conf->repeat_causes,
			       conf->nrepeat_causes, excluded, nex, repeat_tally_add, &t) < 0 ||
	    t.oom) {
		repeat_tally_free(&t);
		return -1;
	}
	if (!repeat_offender(conf, node, &t, summary, len, brief, blen)) {
		repeat_tally_free(&t);
		return 0;
	}
	if (!(cited = calloc(t.n, sizeof(*cited)))) {
		repeat_tally_free(&t);
		return -1;
	}
	for (size_t i = 0; i < t.n; i++)
		cited[i] = (struct finding_job){ t.v[i].job_id, t.v[i].attempt };
	id = store_add_finding(s, FINDING_REPEAT_OFFENDER, node, summary, cited, t.n, now);
	free(cited);
	repeat_tally_free(&t);
	return id;
}

long long repeat_examine(const struct attrib_config *conf, store *s, const char *node, long long now,
			 char *summary, size_t len)
{
	char brief[128];

	return examine(conf, s, node, now, summary, len, brief, sizeof(brief));
}

static bool in_array(struct json_object *a, const char *node)
{
	for (size_t i = 0; i < result_array_len(a); i++) {
		const char *n = result_array_str(a, i);

		if (n && !strcmp(n, node))
			return true;
	}
	return false;
}

void repeat_after(const struct attrib_config *conf, store *s, struct json_object *result, const char *job_id,
		  long attempt, long long now)
{
	struct result_view v;

	if (conf->repeat_jobs <= 0 || !result_view_of(result, &v))
		return;
	/* every node the diagnosis names, once */
	for (int culprit = 1; culprit >= 0; culprit--) {
		struct json_object *a = culprit ? v.culprit_nodes : v.affected_nodes;

		for (size_t i = 0; i < result_array_len(a); i++) {
			const char *node = result_array_str(a, i);
			char summary[1024], brief[128], reason[DRAIN_REASON_MAX + 1];
			long long id;

			if (!node || (!culprit && in_array(v.culprit_nodes, node)))
				continue;
			id = examine(conf, s, node, now, summary, sizeof(summary), brief, sizeof(brief));
			if (id < 0)
				log_msg(LOGL_ERROR, "job %s attempt %ld: cannot look at the history of %s",
					job_id, attempt, node);
			if (id <= 0)
				continue;
			atomic_fetch_add(&svc_metrics.findings_repeat, 1);
			log_msg(LOGL_WARNING, "finding %lld: repeat offender %s", id, summary);
			drain_reason_finding(brief, id, reason, sizeof(reason));
			drain_policy_apply_finding(conf, s, id, FINDING_REPEAT_OFFENDER, node, reason, job_id,
						   attempt, now);
		}
	}
}
