/* attrib-collect on the batch host: the end of the job's std_out and
 * std_err, read where the job wrote them, so that the service host needs
 * no mount of the users' file systems.
 *
 * The paths are the job's patterns as slurmctld holds them, which slurmd
 * gives the Epilog from the job's credential (SLURM_JOB_STDOUT,
 * SLURM_JOB_STDERR: unset when the job named none; Slurm 22.05 and 24.11
 * alike), expanded as slurmstepd expanded them for the batch step
 * (common/stdio_path.c, fname_create's rules) in SLURM_JOB_WORK_DIR, with
 * SLURM_JOB_USER (%u), this host's short name (%N: slurmd's own), and what
 * the Epilog's environment lacks from the SPANK plugin's output@NODE.json
 * (%x, %A, %a, %b).  -e defaults to -o, both to slurm-%J.out (an array's
 * slurm-%A_%a.out): one file when they are the same; /dev/null is nothing
 * to read (an "info" coverage entry).  They are read as the job's user,
 * SLURM_JOB_UID/GID (root's override dropped, no symlink followed, a
 * regular file of that uid only, at most AppMaxBytes from its end:
 * common/userfile.c, the service's rules), and sent as bundle files of
 * origin "job-output" with their "stream". */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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

	snprintf(source, sizeof(source), CASE_APP "/%s", stream);
	if (!data) {
		cover(cov, source, missing ? COVERAGE_MISSING : COVERAGE_ERROR, "%s: %s; not read", path,
		      err);
		return 0;
	}
	/* named by its stream: a user's file name never takes a log's name */
	add_file(files, unique_name(used, stream), path, ORIGIN_NAME_JOB_OUTPUT, data, len);
	f = json_object_array_get_idx(files, json_object_array_length(files) - 1);
	json_object_object_add(f, "stream", json_object_new_string(stream));
	free(data);
	return len;
}

/* slurmd's conf->hostname, which %N prints: gethostname up to its first '.' */
static const char *short_host(char *buf, size_t len)
{
	if (gethostname(buf, len) < 0)
		return NULL;
	buf[len - 1] = 0;
	buf[strcspn(buf, ".")] = 0;
	return buf;
}

/* Adds one stream unless it is /dev/null; returns the bytes kept. */
static size_t stream(const char *name, const char *path, uid_t uid, gid_t gid, size_t cap, json_object *files,
		     json_object *cov, struct names *used)
{
	char source[32];

	if (strcmp(path, "/dev/null"))
		return one(name, path, uid, gid, cap, files, cov, used);
	snprintf(source, sizeof(source), CASE_APP "/%s", name);
	cover(cov, source, COVERAGE_INFO, "/dev/null: the job discarded it; nothing to collect");
	return 0;
}

static const char *env_set(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

size_t jobout_collect(const struct job_info *j, size_t cap, json_object *files, json_object *cov,
		      struct names *used)
{
	char host[256], why[256];
	struct stdio_job sj = {
		.job_id = (uint32_t)strtoul(j->job_id, NULL, 10),
		.array_job_id = j->array_job_id,
		.array_task_id = j->array_task_id,
		.array_unknown = !j->array_known,
		.slurm_version = j->slurm_version,
		.work_dir = env_set("SLURM_JOB_WORK_DIR"),
		.host = short_host(host, sizeof(host)),
		.user = env_set("SLURM_JOB_USER"),
		.name = j->job_name,
	};
	uint32_t uid, gid;
	char *out, *err;
	size_t kept;

	if (!j->batch_host)
		return 0; /* the batch script ran elsewhere: its output is there */
	if (!env_u32("SLURM_JOB_UID", &uid) || !env_u32("SLURM_JOB_GID", &gid)) {
		cover(cov, CASE_APP, COVERAGE_ERROR,
		      "SLURM_JOB_UID/SLURM_JOB_GID unset: the job's output not read");
		return 0;
	}
	if (stdio_paths(&sj, env_set("SLURM_JOB_STDOUT"), env_set("SLURM_JOB_STDERR"), &out, &err, why,
			sizeof(why)) < 0) {
		cover(cov, CASE_APP, COVERAGE_ERROR, "the job's output not found: %s%s", why,
		      j->job_name && j->array_known
			      ? ""
			      : " (the SPANK plugin's output@NODE.json gives the job's name "
				"and array ids: an older plugin's has none)");
		return 0;
	}
	kept = stream("std_out", out, (uid_t)uid, (gid_t)gid, cap, files, cov, used);
	if (strcmp(err, out))
		kept += stream("std_err", err, (uid_t)uid, (gid_t)gid, cap, files, cov, used);
	free(out);
	free(err);
	return kept;
}
