/* Draining a node through slurmctld, and what slurmctld says of a node and
 * its partitions (for attribd's drain policy). */
#include <errno.h>
#include <slurm/slurm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "slurmapi.h"

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

int drain_slurm_state(const char *node, struct drain_node_state *st, char *err, size_t errlen, void *arg)
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
	for (uint32_t i = 0; i < nodes->record_count; i++) {
		const node_info_t *n = &nodes->node_array[i];

		st->attrib_drained += (n->node_state & NODE_STATE_DRAIN) && n->reason &&
			!strncmp(n->reason, ATTRIB_DRAIN_PREFIX, strlen(ATTRIB_DRAIN_PREFIX));
	}
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
