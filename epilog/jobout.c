/* attrib-collect on the batch host: the end of the job's std_out and
 * std_err, read where the job wrote them, so that the service host needs
 * no mount of the users' file systems.
 *
 * The paths are those slurmstepd opened for the batch script, which the
 * SPANK plugin wrote to output@NODE.json; without it (an older plugin),
 * SLURM_JOB_STDOUT / SLURM_JOB_STDERR (the job's patterns, which slurmd
 * gives the Epilog from the job credential; unset when the job named none:
 * Slurm's default slurm-%J.out), expanded with the rules jobcomp/attrib
 * applies (common/stdio_path.c) in SLURM_JOB_WORK_DIR: %x, the job's name,
 * is not in the Epilog's environment (Slurm 22.05) and expands to nothing.
 * They are read as the job's user, SLURM_JOB_UID/GID (root's override
 * dropped, no symlink followed, a regular file of that uid only, at most
 * AppMaxBytes from its end: common/userfile.c, the service's rules), and
 * sent as bundle files of origin "job-output" with their "stream". */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "conf.h"
#include "contract.h"
#include "fileio.h"
#include "log.h"
#include "text.h"
#include "timefmt.h"
#include "xalloc.h"
#include "collect.h"
#include "stdio_path.h"
#include "userfile.h"

static bool env_u32(const char *name, uint32_t *v)
{
	const char *s = getenv(name);
	char *end;
	unsigned long long x;

	if (!s || !*s)
		return false;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end || x >= UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

/* Adds one stream; returns the bytes kept. */
static size_t one(const char *stream, const char *path, uid_t uid, gid_t gid, size_t cap, json_object *files,
		  json_object *cov, struct names *used)
{
	char err[256], source[32];
	bool missing;
	size_t len = 0;
	char *data = read_tail_as_user(path, uid, gid, cap, &len, &missing, err, sizeof(err));
	json_object *f;

	snprintf(source, sizeof(source), "app/%s", stream);
	if (!data) {
		cover(cov, source, missing ? "missing" : "error", "%s: %s; not read", path, err);
		return 0;
	}
	/* named by its stream: a user's file name never takes a log's name */
	add_file(files, unique_name(used, stream), path, ORIGIN_NAME_JOB_OUTPUT, data, len);
	f = json_object_array_get_idx(files, json_object_array_length(files) - 1);
	json_object_object_add(f, "stream", json_object_new_string(stream));
	free(data);
	return len;
}

size_t jobout_collect(const struct collect_ctx *cx, const struct job_info *j, size_t cap, json_object *files,
		      json_object *cov, struct names *used)
{
	const char *so = getenv("SLURM_JOB_STDOUT"), *se = getenv("SLURM_JOB_STDERR");
	struct stdio_job sj = { .array_task_id = STDIO_NO_TASK,
				.work_dir = getenv("SLURM_JOB_WORK_DIR"),
				.batch_host = cx->node,
				.user = getenv("SLURM_JOB_USER"),
				.name = getenv("SLURM_JOB_NAME") };
	uint32_t uid, gid;
	char *out, *err = NULL;
	size_t kept = 0;

	if (!j->batch_host)
		return 0; /* the batch script ran elsewhere: its output is there */
	if (!env_u32("SLURM_JOB_UID", &uid) || !env_u32("SLURM_JOB_GID", &gid)) {
		cover(cov, "app", "error", "SLURM_JOB_UID/SLURM_JOB_GID unset: the job's output not read");
		return 0;
	}
	if (j->std_out || j->std_err) { /* where slurmstepd put them */
		if (j->std_out)
			kept += one("std_out", j->std_out, (uid_t)uid, (gid_t)gid, cap, files, cov, used);
		if (j->std_err && (!j->std_out || strcmp(j->std_err, j->std_out)))
			kept += one("std_err", j->std_err, (uid_t)uid, (gid_t)gid, cap, files, cov, used);
		return kept;
	}
	if (!sj.work_dir || *sj.work_dir != '/') {
		if ((so && *so != '/') || !so) {
			cover(cov, "app", "error",
			      "no SLURM_JOB_WORK_DIR for a relative output path: not read");
			return 0;
		}
		sj.work_dir = NULL;
	}
	sj.job_id = (uint32_t)strtoul(j->job_id, NULL, 10);
	if (env_u32("SLURM_ARRAY_JOB_ID", &sj.array_job_id) &&
	    env_u32("SLURM_ARRAY_TASK_ID", &sj.array_task_id))
		;
	else
		sj.array_task_id = STDIO_NO_TASK;
	out = so && *so ? stdio_expand(&sj, so) : stdio_default(&sj);
	if (se && *se)
		err = stdio_expand(&sj, se);
	if (out)
		kept += one("std_out", out, (uid_t)uid, (gid_t)gid, cap, files, cov, used);
	/* (stderr goes where stdout goes unless the job said otherwise) */
	if (err && (!out || strcmp(err, out)))
		kept += one("std_err", err, (uid_t)uid, (gid_t)gid, cap, files, cov, used);
	free(out);
	free(err);
	return kept;
}
