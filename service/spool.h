/* attribd, spool.c: job records in, bundles in. */
#ifndef ATTRIB_SPOOL_H
#define ATTRIB_SPOOL_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>
#include "util.h"

/* False when the bundle's (parsed) tasks started before the attempt
 * started at start (RFC 3339): a requeued job's earlier attempt's. */
bool spool_bundle_fresh(struct json_object *bundle, const char *start);

struct record_name {
	char job_id[NAME_MAX_LEN + 1];
	long attempt;
};

/* Who may write job records: root, the service's own user and SlurmUser
 * (jobcomp/attrib writes them inside slurmctld); (uid_t)-1: not known
 * (no slurm.conf), then root and the service's user only. */
void spool_set_slurm_user(uid_t slurm_user);
bool spool_writer_ok(uid_t uid);
/* SpoolDir and SpoolDir/jobs, checked as MUNGE checks its directories:
 * each a directory, not a symbolic link, owned by a writer spool_writer_ok
 * accepts and writable by no one else (no group or other write); their
 * parents not writable by others unless sticky (/tmp).  0 when fine (or
 * not there yet: jobcomp/attrib creates them), -1 with a reason. */
int spool_check_dir(const char *spool_dir, char *err, size_t errlen);

/* "JOBID.ATTEMPT.json" -> parts; -1 for dot-files and anything else. */
int spool_parse_name(const char *file, struct record_name *rn);
/* Calls fn for each record file in dir (SPOOL/jobs or STATE/reconcile),
 * in name order. */
int spool_each_record(const char *dir,
		      int (*fn)(const char *dir, const char *file, const struct record_name *rn, void *arg),
		      void *arg);

/* STATE/incoming/JOBID/NODE.json */
char *spool_bundle_path(const char *state_dir, const char *job_id, const char *node);
/* Finished uploads made durable together: each temporary file (fd, open;
 * closed here) is fsynced and renamed to STATE/incoming/JOBID/NODE.json,
 * and each directory that changed is fsynced once.  Each one's err: 0 when
 * it is durable in place, else an errno; placed: it was renamed (tmp is
 * gone) even if a later fsync failed. */
struct spool_pending {
	int fd;
	const char *tmp, *job_id, *node;
	int err;
	bool placed;
};
void spool_commit_bundles(const char *state_dir, struct spool_pending *v, size_t n);
/* A fresh temporary file for an upload in STATE/incoming/.tmp; fd or -1. */
int spool_tmp_bundle(const char *state_dir, char *path, size_t pathlen);
/* A refused bundle whose credential named job_id and node: kept as
 * STATE/rejected/JOBID/NODE.json ({job_id, node, at, reason (kind),
 * detail (why)}), replacing the one before.  0 or -1 (errno). */
int spool_note_rejection(const char *state_dir, const char *job_id, const char *node, const char *kind,
			 const char *why, time_t at);
/* That record when it was made at or after since (Unix time): this
 * attempt's, not an earlier one's; NULL when there is none. */
struct json_object *spool_rejection(const char *state_dir, const char *job_id, const char *node,
				    double since);
/* Removes STATE/incoming/JOBID (the job's bundles, after attribution). */
void spool_drop_bundles(const char *state_dir, const char *job_id);
/* Removes incoming, done and rejected directories not touched for
 * max_age seconds. */
void spool_gc(const char *state_dir, long max_age);
/* Lays out STATE: incoming/, incoming/.tmp (emptied), cases/, reconcile/,
 * done/, rejected/. */
int spool_prepare(const char *state_dir, char *err, size_t errlen);

#endif
