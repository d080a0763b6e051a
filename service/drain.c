/* Draining from a stored diagnosis: which nodes, with what reason, and
 * when to refuse.  A healthy node drained by mistake costs a cluster far
 * more than a missed drain, so only the result's own drain actions are
 * taken (the engine gives them for unambiguous infrastructure culprits
 * only); anything else needs --force per node. */
#include <errno.h>
#include <slurm/slurm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "service.h"

/* comment_sanitise, and no shell metacharacters either: a reason is read in
 * sinfo -R and often pasted into scontrol commands */
static void reason_clean(char *s, size_t max)
{
	for (char *p = s; *p; p++)
		if (strchr(";$|&<>", *p))
			*p = ' ';
	comment_sanitise(s, max);
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
	int room = (int)len - 1 - (int)strlen("attrib: ") - 1 - (int)strlen(tail);
	if ((int)strlen(t) > room && room > 3) {
		t[room - 3] = 0;
		strcat(t, "...");
	}
	char full[sizeof(t) + sizeof(tail) + 16];
	snprintf(full, sizeof(full), "attrib: %s %s", t, tail);
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
			 "(attrib drain --force NODE drains anyway)", sub ? sub : "missing");
		return -1;
	}
	for (size_t i = 0; i < result_array_len(v.actions); i++)
		if (result_action_at(&v, i, &node, &what) && !strcmp(what, "drain") &&
		    p->n < DRAIN_MAX_NODES)
			p->nodes[p->n++] = node;
	if (!p->n) {
		snprintf(p->refusal, sizeof(p->refusal),
			 "refusing: the diagnosis (%s) recommends no drain: its evidence names no node "
			 "beyond doubt (attrib drain --force NODE drains anyway)", sub);
		return -1;
	}
	return 0;
}

int drain_node(const char *node, const char *reason, char *err, size_t errlen)
{
	update_node_msg_t msg;

	if (!slurm_ready(err, errlen))
		return -1;
	slurm_init_update_node_msg(&msg);
	msg.node_names = (char *)node;
	msg.node_state = NODE_STATE_DRAIN;
	msg.reason = (char *)reason;
	msg.reason_uid = getuid();
	if (slurm_update_node(&msg) != SLURM_SUCCESS) {
		snprintf(err, errlen, "%s: %s", node, slurm_strerror(errno));
		return -1;
	}
	return 0;
}

static bool node_unavailable(uint32_t state)
{
	return (state & NODE_STATE_BASE) == NODE_STATE_DOWN || (state & NODE_STATE_DRAIN) ||
	       (state & NODE_STATE_FAIL);
}

int drain_slurm_state(const char *node, struct drain_node_state *st, char *err, size_t errlen,
		      void *arg)
{
	node_info_msg_t *nodes = NULL;
	partition_info_msg_t *parts = NULL;
	int found = -1;

	(void)arg;
	memset(st, 0, sizeof(*st));
	if (!slurm_ready(err, errlen))
		return -1;
	if (slurm_load_node(0, &nodes, SHOW_ALL) != SLURM_SUCCESS) {
		snprintf(err, errlen, "slurm_load_node: %s", slurm_strerror(errno));
		return -1;
	}
	if (slurm_load_partitions(0, &parts, SHOW_ALL) != SLURM_SUCCESS) {
		snprintf(err, errlen, "slurm_load_partitions: %s", slurm_strerror(errno));
		slurm_free_node_info_msg(nodes);
		return -1;
	}
	for (uint32_t i = 0; i < nodes->record_count; i++)
		if (nodes->node_array[i].name && !strcmp(nodes->node_array[i].name, node)) {
			found = (int)i;
			break;
		}
	if (found < 0) {
		snprintf(err, errlen, "Slurm knows no node %s", node);
		slurm_free_partition_info_msg(parts);
		slurm_free_node_info_msg(nodes);
		return -1;
	}
	st->unavailable = node_unavailable(nodes->node_array[found].node_state);
	node_state_name(nodes->node_array[found].node_state, st->state, sizeof(st->state));
	int rc = 0;
	for (uint32_t p = 0; p < parts->record_count && !rc; p++) {
		partition_info_t *pi = &parts->partition_array[p];
		struct hostlist *hl;

		if (!pi->nodes || !*pi->nodes || !(hl = slurm_hostlist_create(pi->nodes)))
			continue;
		if (slurm_hostlist_find(hl, node) >= 0) {
			struct drain_partition *dp = &st->part[st->npart];

			if (st->npart == DRAIN_MAX_PARTITIONS) {
				snprintf(err, errlen, "%s is in more than %d partitions", node,
					 DRAIN_MAX_PARTITIONS);
				rc = -1;
			} else {
				st->npart++;
				snprintf(dp->name, sizeof(dp->name), "%s", pi->name ? pi->name : "?");
				for (uint32_t i = 0; i < nodes->record_count; i++) {
					const node_info_t *n = &nodes->node_array[i];

					if (n->name && slurm_hostlist_find(hl, n->name) >= 0) {
						dp->nodes++;
						dp->unavailable += node_unavailable(n->node_state);
					}
				}
			}
		}
		slurm_hostlist_destroy(hl);
	}
	slurm_free_partition_info_msg(parts);
	slurm_free_node_info_msg(nodes);
	return rc;
}
