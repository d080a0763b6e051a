/*
 * The job record (attrib.job/v1 plus uid, gid, std_out, std_err, work_dir,
 * batch_host, attempt: doc/live-pipeline.md, section 1) as one line of JSON,
 * from the fields of an ended job.  One writer for both ways the record is
 * made: jobcomp/attrib (inside slurmctld, from its job record) and
 * attrib-jobrecord (EpilogSlurmctld or jobcomp/script, from slurm_load_job
 * and the environment).
 *
 * Only libslurm's exported names (slurm_*): inside slurmctld they resolve in
 * the libslurmfull it runs on, in attrib-jobrecord in libslurm.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ATTRIB_PLUGIN_JOBREC_H
#define ATTRIB_PLUGIN_JOBREC_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* One ended job (jobcomp/attrib: the strings live in the same allocation,
 * after the struct; next links its queue) */
struct rec {
	struct rec *next;
	uint32_t job_id, uid, gid, array_job_id, array_task_id;
	uint32_t exit_code, derived_ec, job_state, state_reason, time_limit;
	uint16_t restart_cnt, batch_flag;
	time_t submit, start, end;
	char *user, *name, *partition, *nodes, *std_out, *std_err, *work_dir, *batch_host,
		*cluster;
};

/* r as one line of JSON (malloc; NULL when out of memory) */
char *rec_json(const struct rec *r, size_t *len);

#endif
