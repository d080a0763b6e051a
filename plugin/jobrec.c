/*
 * The job record as JSON: see jobrec.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* open_memstream */
#endif
#include <inttypes.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <slurm/slurm.h>

#include "contract.h"
#include "jobrec.h"
#include "slurm_compat.h"
#include "stdio_path.h"

/* the state sacct shows for the record (flags such as COMPLETING dropped) */
static const char *state_name(uint32_t state)
{
	if (state & JOB_REQUEUE)
		return "REQUEUED";
	return slurm_job_state_string(state & JOB_STATE_BASE);
}

/* The paths of r's batch step's output and error (common/stdio_path.c:
 * the collector's rules too); NULL when not known (logged by the caller
 * as a record without them). %N: the batch host's NodeName, which is the
 * host name slurmstepd prints unless NodeHostname differs. */
static int expand_stdio(const struct rec *r, const char *user, char **out, char **err)
{
	char why[256];
	struct stdio_job j = {
		.job_id = r->job_id,
		.array_job_id = r->array_job_id,
		.array_task_id = r->array_task_id == NO_VAL ? STDIO_NO_TASK : r->array_task_id,
		.slurm_version = SLURM_VERSION_NUMBER,
		.work_dir = r->work_dir,
		.host = r->batch_host ? r->batch_host : "",
		.user = user ? user : "",
		.name = r->name ? r->name : "(null)",
	};

	return stdio_paths(&j, r->std_out, r->std_err, out, err, why, sizeof(why));
}

/* r as one line of JSON (malloc; NULL when out of memory): the job record
 * of doc/formats.md, written by common/contract.c's one writer */
char *rec_json(const struct rec *r, size_t *len)
{
	char pwbuf[4096], *out = NULL, *err = NULL, *line = NULL, *h;
	struct passwd pw, *pwp = NULL;
	struct hostlist *hl = NULL;
	bool ok = true;
	struct attrib_job_record jr = {
		.job_id = r->job_id,
		.cluster = r->cluster,
		.user = r->user,
		.partition = r->partition,
		.name = r->name,
		.uid = r->uid,
		.gid = r->gid,
		.batch_host = r->batch_host,
		.submit = r->submit,
		.start = r->start,
		.end = r->end,
		.state = state_name(r->job_state),
		.exit_status = r->exit_code,
		.derived_exit_status = r->derived_ec,
		.reason = slurm_job_state_reason_string(r->state_reason),
		.restart_count = r->restart_cnt,
		.attempt = r->restart_cnt,
		/* no limit of its own and none of the partition: unlimited */
		.time_limit = r->limit_unknown	  ? JOB_RECORD_NO_VAL
			: r->time_limit == NO_VAL ? INFINITE
						  : r->time_limit,
		.array_job_id = r->array_job_id,
		.array_task_id = r->array_task_id,
		.work_dir = r->work_dir,
		.gpus = r->gpus,
	};

	if (!jr.user && getpwuid_r((uid_t)r->uid, &pw, pwbuf, sizeof(pwbuf), &pwp) == 0 && pwp)
		jr.user = pw.pw_name;
	if ((r->std_out || r->std_err || r->batch_flag) && expand_stdio(r, jr.user, &out, &err) < 0)
		out = err = NULL;
	jr.std_out = out;
	jr.std_err = err;
	if (r->nodes && *r->nodes && (hl = slurm_hostlist_create(r->nodes))) {
		while (ok && (h = slurm_hostlist_shift(hl)))
			ok = job_record_add_node(&jr, h);
		slurm_hostlist_destroy(hl);
	}
	if (ok)
		line = job_record_json(&jr, len);
	job_record_free_nodes(&jr);
	free(out);
	free(err);
	return line;
}
