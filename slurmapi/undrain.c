/* Returning a node to service through slurmctld, and what slurmctld says
 * of a drained node (its state, its reason and when that was set), for
 * undrain's checks. */
#include <errno.h>
#include <slurm/slurm.h>
#include <stdio.h>
#include <string.h>
#include "slurmapi.h"

int node_drain_info(const char *node, struct node_drain_info *ni, char *err, size_t errlen)
{
	node_info_msg_t *msg = NULL;
	int rc = -1;

	memset(ni, 0, sizeof(*ni));
	if (!slurm_ready(err, errlen))
		return -1;
	if (slurm_load_node_single(&msg, (char *)node, SHOW_ALL) != SLURM_SUCCESS) {
		snprintf(err, errlen, "slurm_load_node_single: %s", slurm_strerror(errno));
		return -1;
	}
	for (uint32_t i = 0; msg && i < msg->record_count; i++) {
		const node_info_t *n = &msg->node_array[i];

		if (!n->name || strcmp(n->name, node))
			continue;
		ni->drained = (n->node_state & NODE_STATE_DRAIN) != 0;
		node_state_name(n->node_state, ni->state, sizeof(ni->state));
		snprintf(ni->reason, sizeof(ni->reason), "%s", n->reason ? n->reason : "");
		ni->reason_time = (long long)n->reason_time;
		rc = 0;
	}
	if (rc < 0)
		snprintf(err, errlen, "Slurm knows no node %s", node);
	slurm_free_node_info_msg(msg);
	return rc;
}

int resume_node(const char *node, char *err, size_t errlen)
{
	update_node_msg_t msg;

	if (!slurm_ready(err, errlen))
		return -1;
	slurm_init_update_node_msg(&msg);
	msg.node_names = (char *)node;
	msg.node_state = NODE_RESUME;
	if (slurm_update_node(&msg) != SLURM_SUCCESS) {
		snprintf(err, errlen, "%s: %s", node, slurm_strerror(errno));
		return -1;
	}
	return 0;
}
