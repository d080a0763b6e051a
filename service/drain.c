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

static const char *get_str(struct json_object *o, const char *k)
{
	struct json_object *v;

	return json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v) : NULL;
}

static struct json_object *get_arr(struct json_object *o, const char *k)
{
	struct json_object *v;

	return json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_array) ? v : NULL;
}

static bool job_has_node(struct json_object *result, const char *node)
{
	struct json_object *aff = get_arr(result, "affected_nodes"), *cul = get_arr(result, "culprit_nodes");

	for (int pass = 0; pass < 2; pass++) {
		struct json_object *a = pass ? cul : aff;

		for (size_t i = 0; a && i < json_object_array_length(a); i++)
			if (!strcmp(json_object_get_string(json_object_array_get_idx(a, i)), node))
				return true;
	}
	return false;
}

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
	struct json_object *rc = NULL;
	const char *title = NULL, *dev = NULL, *job = get_str(result, "job_id");
	char t[256], tail[96];

	if (json_object_object_get_ex(result, "root_cause", &rc) && rc) {
		title = get_str(rc, "symptom");
		dev = get_str(rc, "device");
	}
	snprintf(t, sizeof(t), "%s", title ? title : get_str(result, "sub_domain") ? get_str(result, "sub_domain") : "");
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
	const char *sub = get_str(result, "sub_domain"), *dom = get_str(result, "domain");
	struct json_object *acts = get_arr(result, "actions");

	memset(p, 0, sizeof(*p));
	drain_reason(result, p->reason, sizeof(p->reason));
	for (int i = 0; i < nforce; i++) {
		if (!job_has_node(result, force[i])) {
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
	for (size_t i = 0; acts && i < json_object_array_length(acts); i++) {
		struct json_object *a = json_object_array_get_idx(acts, i);
		const char *what = get_str(a, "action"), *node = get_str(a, "node");

		if (what && node && !strcmp(what, "drain") && p->n < DRAIN_MAX_NODES)
			p->nodes[p->n++] = node;
	}
	if (!p->n) {
		snprintf(p->refusal, sizeof(p->refusal),
			 "refusing: the diagnosis (%s) recommends no drain: its evidence names no node "
			 "beyond doubt (attrib drain --force NODE drains anyway)", sub);
		return -1;
	}
	return 0;
}

/* slurm_init once ($SLURM_CONF or the default slurm.conf); a second call
 * after accounting_init's is harmless but not needed. */
static void drain_slurm_init(void)
{
	static bool inited;

	if (!inited) {
		slurm_init(NULL);
		inited = true;
	}
}

int drain_node(const char *node, const char *reason, char *err, size_t errlen)
{
	update_node_msg_t msg;

	drain_slurm_init();
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

static void state_name(uint32_t state, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", (state & NODE_STATE_BASE) == NODE_STATE_DOWN ? "down " : "",
		 state & NODE_STATE_DRAIN ? "drained " : "", state & NODE_STATE_FAIL ? "failing " : "");
	if (*buf)
		buf[strlen(buf) - 1] = 0;	/* the last space */
	else
		snprintf(buf, len, "up");
}

int drain_slurm_state(const char *node, struct drain_node_state *st, char *err, size_t errlen,
		      void *arg)
{
	node_info_msg_t *nodes = NULL;
	partition_info_msg_t *parts = NULL;
	int found = -1;

	(void)arg;
	memset(st, 0, sizeof(*st));
	drain_slurm_init();
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
	state_name(nodes->node_array[found].node_state, st->state, sizeof(st->state));
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
