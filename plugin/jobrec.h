/*
 * The job record (attrib.job/v1, doc/formats.md) of an ended job, from its
 * fields as Slurm keeps them: state, reason and output paths named as Slurm
 * names and expands them, then common/contract.c's writer.  One writer for both ways the record is
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

#include <stdbool.h>
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
	long long gpus; /* GPUs allocated (job_tres_gpus); -1: not known */
	char *user, *name, *partition, *nodes, *std_out, *std_err, *work_dir, *batch_host, *cluster;
	bool limit_unknown; /* attrib-jobrecord without slurmctld's answer */
};

/* r as one line of JSON (malloc; NULL when out of memory): the job record
 * of doc/formats.md, written by common/contract.c's one writer */
char *rec_json(const struct rec *r, size_t *len);

#endif
