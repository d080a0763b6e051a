/* Draining from a stored diagnosis: which nodes, with what reason, and
 * when to refuse.  A healthy node drained by mistake costs a cluster far
 * more than a missed drain, so only the result's own drain actions are
 * taken (the engine gives them for unambiguous infrastructure culprits
 * only); anything else needs --force per node. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "contract.h"
#include "drain_plan.h"
#include "slurmapi.h" /* ATTRIB_DRAIN_PREFIX */
#include "text.h"

/* text_ascii_clean (text.h), and no shell metacharacters either: a reason
 * is read in sinfo -R and often pasted into scontrol commands */
static void reason_clean(char *s, size_t max)
{
	for (char *p = s; *p; p++)
		if (strchr(";$|&<>", *p))
			*p = ' ';
	text_ascii_clean(s, max);
}

void drain_reason(struct json_object *result, char *buf, size_t len)
{
	struct result_view v;
	const char *dev, *job;
	char t[256], tail[96];

	result_view_of(result, &v);
	dev = v.root_device;
	job = v.job_id;
	snprintf(t, sizeof(t), "%s", v.root_title ? v.root_title : v.sub_domain ? v.sub_domain : "");
	reason_clean(t, sizeof(t) - 1);
	snprintf(tail, sizeof(tail), "%s%s (job %s)", dev ? " " : "", dev ? dev : "", job ? job : "?");
	reason_clean(tail, sizeof(tail) - 1);
	if (len > DRAIN_REASON_MAX + 1)
		len = DRAIN_REASON_MAX + 1;
	/* the title gives way when the whole would not fit: the device and the
	 * job are what an administrator needs to find the evidence */
	int room = (int)len - 1 - (int)strlen(ATTRIB_DRAIN_PREFIX " ") - 1 - (int)strlen(tail);
	if ((int)strlen(t) > room && room > 3) {
		t[room - 3] = 0;
		strcat(t, "...");
	}
	char full[sizeof(t) + sizeof(tail) + 16];
	snprintf(full, sizeof(full), ATTRIB_DRAIN_PREFIX " %s %s", t, tail);
	reason_clean(full, len - 1);
	memcpy(buf, full, strlen(full) + 1);
}

void drain_reason_finding(const char *what, long long finding, char *buf, size_t len)
{
	char full[DRAIN_REASON_MAX + 64], tail[48], t[DRAIN_REASON_MAX + 1];
	int room;

	if (len > DRAIN_REASON_MAX + 1)
		len = DRAIN_REASON_MAX + 1;
	snprintf(tail, sizeof(tail), " (finding %lld)", finding);
	snprintf(t, sizeof(t), "%s", what);
	reason_clean(t, sizeof(t) - 1);
	/* what gives way: the finding's number leads to the rest */
	room = (int)len - 1 - (int)strlen("attrib: repeat offender: ") - (int)strlen(tail);
	if ((int)strlen(t) > room && room > 3) {
		t[room - 3] = 0;
		strcat(t, "...");
	}
	snprintf(full, sizeof(full), "attrib: repeat offender: %s%s", t, tail);
	reason_clean(full, len - 1);
	memcpy(buf, full, strlen(full) + 1);
}

int drain_plan(struct json_object *result, char *const *force, int nforce, struct drain_plan *p)
{
	struct result_view v;
	const char *sub, *dom, *what, *node;

	result_view_of(result, &v);
	sub = v.sub_domain;
	dom = v.domain;
	memset(p, 0, sizeof(*p));
	drain_reason(result, p->reason, sizeof(p->reason));
	for (int i = 0; i < nforce; i++) {
		if (!result_names_node(&v, force[i])) {
			snprintf(p->refusal, sizeof(p->refusal),
				 "refusing: %s is not a node this diagnosis names", force[i]);
			return -1;
		}
		if (p->n < DRAIN_MAX_NODES)
			p->nodes[p->n++] = force[i];
	}
	if (nforce)
		return 0;
	if (!sub || !dom || strcmp(dom, "infra")) {
		snprintf(p->refusal, sizeof(p->refusal),
			 "refusing: the diagnosis is %s, not an infrastructure fault of a node "
			 "(attrib drain --force NODE drains anyway)",
			 sub ? sub : "missing");
		return -1;
	}
	for (size_t i = 0; i < result_array_len(v.actions); i++)
		if (result_action_at(&v, i, &node, &what) && !strcmp(what, "drain") && p->n < DRAIN_MAX_NODES)
			p->nodes[p->n++] = node;
	if (!p->n) {
		snprintf(p->refusal, sizeof(p->refusal),
			 "refusing: the diagnosis (%s) recommends no drain: its evidence names no node "
			 "beyond doubt (attrib drain --force NODE drains anyway)",
			 sub);
		return -1;
	}
	return 0;
}
