/* Lost links under one leaf switch, across jobs: what blames the switch
 * (SwitchWindow, SwitchMinNodes), pure; attribd searches its store and
 * records the finding (service/switchfind.h). */
#ifndef ATTRIB_SWITCH_POLICY_H
#define ATTRIB_SWITCH_POLICY_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include "conf.h"
#include "contract.h"
#include "findings.h" /* struct finding_job */
#include "topology.h"

#define SWITCH_CITES_MAX 64

/* One search: the lost link of the diagnosis job_id/attempt (at when,
 * under leaf of t), and what other diagnoses it cites. */
struct switch_search {
	const struct topology *t;
	const char *leaf, *job_id;
	long attempt;
	double when, window; /* window: SwitchWindow */
	struct finding_job jobs[SWITCH_CITES_MAX];
	char job_ids[SWITCH_CITES_MAX][CONTRACT_NAME_MAX + 1];
	char nodes[SWITCH_CITES_MAX][CONTRACT_NAME_MAX + 1];
	int njobs, nnodes;
};

/* The node and time of a result's lost link, when its root cause is one
 * that evidence the job's user could not have written vouches for: the
 * job's own output names nodes at will. */
bool switch_lost_link(struct json_object *res, const char **node, double *t);
/* The switch the diagnosis itself blames (culprit_switch: several of one
 * job's nodes), when evidence its user could not write vouches for it;
 * NULL when none. */
const char *switch_own(struct json_object *res);
/* Cites job_id/attempt, and node ("": none) once. */
void switch_cite(struct switch_search *q, const char *job_id, long attempt, const char *node);
/* Another stored diagnosis: cited when it lost a link under q's leaf
 * within q's window of q's. */
void switch_consider(struct switch_search *q, const char *job_id, long attempt, struct json_object *res);
/* True, with the finding's summary, when the nodes cited are
 * SwitchMinNodes (2 at least) or more: the switch, not the nodes. */
bool switch_blamed(const struct attrib_config *conf, const struct switch_search *q, char *summary,
		   size_t len);

#endif
