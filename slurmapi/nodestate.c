/* libslurm's set-up, once for the process, and a node's current state and
 * reason from slurmctld (slurm_load_node), for the fleet view and the
 * drain checks.  Read once per command: one RPC for every node. */
#include <errno.h>
#include <pthread.h>
#include <slurm/slurm.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "slurmapi.h"

struct node_state_map {
	node_info_msg_t *msg;
	char (*names)[48]; /* state_name of each node_array entry */
};

const char *slurm_conf_file(void)
{
	const char *conf = getenv("SLURM_CONF");

	return conf && *conf ? conf : "/etc/slurm/slurm.conf";
}

bool slurm_ready(char *err, size_t errlen)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static bool inited;
	const char *conf = slurm_conf_file();
	struct stat st;
	bool ok = true;

	pthread_mutex_lock(&lock);
	if (!inited) {
		/* libslurm exits the process when it cannot read slurm.conf */
		if (stat(conf, &st) < 0) {
			snprintf(err, errlen, "no slurm.conf at %s", conf);
			ok = false;
		} else {
			slurm_init(conf);
			inited = true;
		}
	}
	pthread_mutex_unlock(&lock);
	return ok;
}

struct node_state_map *node_states_load(char *err, size_t errlen)
{
	struct node_state_map *ns;

	if (!slurm_ready(err, errlen))
		return NULL;
	if (!(ns = calloc(1, sizeof(*ns)))) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (slurm_load_node((time_t)0, &ns->msg, SHOW_ALL) != SLURM_SUCCESS) {
		snprintf(err, errlen, "slurmctld: %s", slurm_strerror(errno));
		free(ns);
		return NULL;
	}
	if (!(ns->names = calloc(ns->msg->record_count + 1, sizeof(*ns->names)))) {
		snprintf(err, errlen, "out of memory");
		node_states_free(ns);
		return NULL;
	}
	for (uint32_t i = 0; i < ns->msg->record_count; i++)
		node_state_name(ns->msg->node_array[i].node_state, ns->names[i], sizeof(ns->names[i]));
	return ns;
}

/* A node state as sinfo's long form names it ("IDLE", "DRAINED",
 * "DRAINING", "DOWN*", "MIXED+MAINT"), from slurm.h's public bits only. */
void node_state_name(uint32_t st, char *buf, size_t len)
{
	static const char *const base[] = {
		"UNKNOWN", "DOWN", "IDLE", "ALLOCATED", "ERROR", "MIXED", "FUTURE"
	};
	uint32_t b = st & NODE_STATE_BASE;
	const char *name = b < sizeof(base) / sizeof(*base) ? base[b] : "UNKNOWN";
	bool busy = b == NODE_STATE_ALLOCATED || b == NODE_STATE_MIXED || (st & NODE_STATE_COMPLETING);

	if (st & NODE_STATE_DRAIN)
		name = b == NODE_STATE_DOWN ? "DOWN+DRAIN" : busy ? "DRAINING" : "DRAINED";
	else if (st & NODE_STATE_FAIL)
		name = busy ? "FAILING" : "FAIL";
	snprintf(buf, len, "%s%s%s%s%s", name,
		 (st & NODE_STATE_COMPLETING) && !(st & NODE_STATE_DRAIN) ? "+COMPLETING" : "",
		 st & NODE_STATE_MAINT ? "+MAINT" : "", st & NODE_STATE_REBOOT_REQUESTED ? "+REBOOT" : "",
		 st & NODE_STATE_NO_RESPOND ? "*" : "");
}

const char *job_state_name(uint32_t st)
{
	/* the order of enum job_states, the same in 22.05 and 24.11 */
	static const char *const base[] = { "PENDING",	 "RUNNING",   "SUSPENDED", "COMPLETED",
					    "CANCELLED", "FAILED",    "TIMEOUT",   "NODE_FAIL",
					    "PREEMPTED", "BOOT_FAIL", "DEADLINE",  "OUT_OF_MEMORY" };
	uint32_t b = st & JOB_STATE_BASE;

	return b < sizeof(base) / sizeof(*base) ? base[b] : NULL;
}

bool node_state_of(const struct node_state_map *ns, const char *node, const char **state, const char **reason)
{
	if (!ns || !ns->msg)
		return false;
	for (uint32_t i = 0; i < ns->msg->record_count; i++) {
		node_info_t *n = &ns->msg->node_array[i];

		if (n->name && !strcmp(n->name, node)) {
			*state = ns->names[i];
			*reason = n->reason && *n->reason ? n->reason : NULL;
			return true;
		}
	}
	return false;
}

void node_states_free(struct node_state_map *ns)
{
	if (!ns)
		return;
	slurm_free_node_info_msg(ns->msg);
	free(ns->names);
	free(ns);
}

void node_states_each(const struct node_state_map *ns,
		      void (*fn)(const char *name, const char *addr, const char *hostname, void *arg),
		      void *arg)
{
	for (uint32_t i = 0; ns && ns->msg && i < ns->msg->record_count; i++) {
		const node_info_t *n = &ns->msg->node_array[i];

		fn(n->name, n->node_addr, n->node_hostname, arg);
	}
}
