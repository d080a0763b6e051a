/* Requeueing a failed batch job without its culprit nodes, and what
 * slurmctld says of the job first (for the requeue decision).
 *
 * The order is Slurm's: slurmctld refuses to update a finished job
 * (_update_job: ESLURM_JOB_FINISHED), and an ExcNodeList only of a
 * pending one (ESLURM_JOB_NOT_PENDING).  So the job is requeued first,
 * held (JOB_REQUEUE_HOLD: it cannot start before its exclusion is set),
 * then its ExcNodeList is set and it is released, as scontrol release
 * does.  A requeued job also gets a BeginTime of now + the credential's
 * lifetime (batch_requeue_fini), but the hold does not depend on it.  When
 * Slurm refuses the exclusion the job stays held, with the error: a job
 * sent back to the node that failed it is what this is meant to prevent.
 *
 * slurmctld forgets a finished job MinJobAge seconds after its end
 * (default 300): after that it cannot be requeued, and the state says so. */
#include <errno.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "slurmapi.h"

static bool job_number(const char *job_id, uint32_t *id)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(job_id, &end, 10);
	if (errno || end == job_id || *end || v == 0 || v > UINT32_MAX)
		return false;
	*id = (uint32_t)v;
	return true;
}

/* A job's state as squeue's long form names it */
static void job_state_long(uint32_t st, char *buf, size_t len)
{
	const char *name = job_state_name(st);

	snprintf(buf, len, "%s%s", name ? name : "UNKNOWN", st & JOB_COMPLETING ? "+COMPLETING" : "");
}

int requeue_slurm_state(const char *job_id, const char *const *nodes, int n, struct requeue_job_state *st,
			char *err, size_t errlen, void *arg)
{
	job_info_msg_t *msg = NULL;
	uint32_t id;

	(void)arg;
	memset(st, 0, sizeof(*st));
	if (!job_number(job_id, &id)) {
		snprintf(err, errlen,
			 "%s is not a job id Slurm can requeue (array and "
			 "heterogeneous job components are not)",
			 job_id);
		return -1;
	}
	if (!slurm_ready(err, errlen))
		return -1;
	if (slurm_load_job(&msg, id, SHOW_ALL | SHOW_DETAIL) != SLURM_SUCCESS) {
		if (errno == ESLURM_INVALID_JOB_ID)
			return 0; /* st->found false */
		snprintf(err, errlen, "slurm_load_job: %s", slurm_strerror(errno));
		return -1;
	}
	for (uint32_t i = 0; i < msg->record_count && !st->found; i++) {
		const slurm_job_info_t *j = &msg->job_array[i];
		uint32_t base = j->job_state & JOB_STATE_BASE;
		struct hostlist *hl;

		if (j->job_id != id)
			continue;
		st->found = true;
		st->batch = j->batch_flag != 0;
		st->requeueable = j->requeue != 0;
		st->pending = base == JOB_PENDING;
		st->failed = base == JOB_FAILED || base == JOB_NODE_FAIL || base == JOB_TIMEOUT;
		st->restart_cnt = j->restart_cnt;
		job_state_long(j->job_state, st->state, sizeof(st->state));
		snprintf(st->exc_nodes, sizeof(st->exc_nodes), "%s", j->exc_nodes ? j->exc_nodes : "");
		if (j->exc_nodes && *j->exc_nodes && (hl = slurm_hostlist_create(j->exc_nodes))) {
			for (int k = 0; k < n; k++)
				st->excluded += slurm_hostlist_find(hl, nodes[k]) >= 0;
			slurm_hostlist_destroy(hl);
		}
	}
	slurm_free_job_info_msg(msg);
	return 0;
}

/* existing ExcNodeList + nodes, as one host list ("node-[01-02]"); malloc */
static char *exclusion(const char *existing, const char *const *nodes, int n)
{
	struct hostlist *hl = slurm_hostlist_create(existing && *existing ? existing : NULL);
	char *s = NULL;

	if (!hl)
		return NULL;
	for (int i = 0; i < n; i++)
		slurm_hostlist_push_host(hl, nodes[i]);
	slurm_hostlist_uniq(hl);
	/* slurm_hostlist_ranged_string is in every release (22.05's
	 * _malloc variant is gone in 24.11): a larger buffer while it says
	 * the list did not fit */
	for (size_t len = 256; len <= (1u << 24) && !s; len *= 4) {
		s = malloc(len);
		if (s && slurm_hostlist_ranged_string(hl, len, s) < 0) {
			free(s);
			s = NULL;
		}
	}
	slurm_hostlist_destroy(hl);
	return s;
}

int requeue_job(const char *job_id, const char *exc_nodes, const char *const *nodes, int n, char *excluded,
		size_t excludedlen, char *err, size_t errlen)
{
	job_desc_msg_t msg;
	uint32_t id;
	char *exc;
	int rc;

	if (!job_number(job_id, &id)) {
		snprintf(err, errlen, "%s is not a job id Slurm can requeue", job_id);
		return -1;
	}
	if (!slurm_ready(err, errlen))
		return -1;
	if (!(exc = exclusion(exc_nodes, nodes, n))) {
		snprintf(err, errlen, "cannot make a host list of %s and the culprits", exc_nodes);
		return -1;
	}
	snprintf(excluded, excludedlen, "%s", exc);
	if (slurm_requeue(id, JOB_REQUEUE_HOLD) != SLURM_SUCCESS) {
		snprintf(err, errlen, "slurm_requeue: %s", slurm_strerror(errno));
		free(exc);
		return -1;
	}
	slurm_init_job_desc_msg(&msg);
	msg.job_id = id;
	msg.exc_nodes = exc;
	rc = slurm_update_job(&msg);
	free(exc);
	if (rc != SLURM_SUCCESS) {
		snprintf(err, errlen,
			 "job %s is requeued and held, but Slurm refused its ExcNodeList: %s "
			 "(scontrol release %s lets it run anywhere)",
			 job_id, slurm_strerror(errno), job_id);
		return -1;
	}
	slurm_init_job_desc_msg(&msg);
	msg.job_id = id;
	msg.priority = INFINITE; /* scontrol release */
	if (slurm_update_job(&msg) != SLURM_SUCCESS) {
		snprintf(err, errlen,
			 "job %s is requeued without %s but still held: the release failed: %s "
			 "(scontrol release %s)",
			 job_id, excluded, slurm_strerror(errno), job_id);
		return -1;
	}
	return 0;
}
