/*
 * attrib-jobrecord: the job record jobcomp/attrib writes, made by a program
 * that Slurm runs at the end of each job, for a controller where the plugin
 * cannot be loaded (another JobCompType in use, a Slurm release it is not
 * built for).  Run as EpilogSlurmctld (environment SLURM_JOB_ID, ...) or
 * as jobcomp/script's script (JOBID, ...); it writes
 * SPOOL/jobs/JOBID.ATTEMPT.json (SPOOL: -d, default /var/spool/attrib, the
 * service's SpoolDir) through the same writer as jobcomp/attrib
 * (plugin/jobrec.c).
 *
 * The fields come from slurmctld (slurm_load_job: the job is still in its
 * memory while these hooks run), in a child process bounded by -t seconds
 * (default 10); without an answer in time, from the environment alone (state then from
 * the exit code: FAILED or COMPLETED; no submit time, time limit, output
 * paths unless the environment names them).  Exit 0 whenever a record was
 * written: a hook's failure must not hold the job (an EpilogSlurmctld
 * failure would drain nothing, but it is logged as an error).
 *
 *   EpilogSlurmctld=/usr/sbin/attrib-jobrecord
 *   JobCompType=jobcomp/script  JobCompLoc=/usr/sbin/attrib-jobrecord
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "contract.h"
#include "jobrec.h"
#include "slurm_compat.h"
#include "util.h"

#define DEFAULT_SPOOL "/var/spool/attrib"

/* the first of these environment variables that is set (EpilogSlurmctld's
 * name first, then jobcomp/script's) */
static const char *env2(const char *a, const char *b)
{
	const char *v = getenv(a);

	if ((!v || !*v) && b)
		v = getenv(b);
	return v && *v ? v : NULL;
}

/* set *dst from the environment when it names the value; true if it did */
static bool env_u32(const char *a, const char *b, uint32_t *dst)
{
	const char *v = env2(a, b);
	char *end;
	unsigned long n;

	if (!v)
		return false;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || end == v || *end || n > UINT32_MAX)
		return false;
	*dst = (uint32_t)n;
	return true;
}

static void env_str(const char *a, const char *b, char **dst)
{
	const char *v = env2(a, b);

	if (v)
		*dst = (char *)v;
}

static void env_time(const char *a, const char *b, time_t *dst)
{
	uint32_t t;

	if (env_u32(a, b, &t) && t > 0)
		*dst = (time_t)t;
}

/*
 * What the hook's environment names, over r.  slurmctld builds it at the
 * moment the attempt ends, as it calls the jobcomp plugin: its node list,
 * restart count and exit codes are that attempt's, where slurm_load_job
 * already sees what came next (a requeued job pending with its restart
 * count raised; the nodes of a node failure removed from the job).
 */
static void overlay_env(struct rec *r)
{
	const char *ec = getenv("EXITCODE"); /* jobcomp/script: "code:signal" */
	unsigned code = 0, sig = 0;
	uint32_t u;

	env_u32("SLURM_JOB_UID", "UID", &r->uid);
	env_u32("SLURM_JOB_GID", "GID", &r->gid);
	env_str("SLURM_JOB_USER", "USERNAME", &r->user);
	env_str("SLURM_JOB_NAME", "JOBNAME", &r->name);
	env_str("SLURM_JOB_PARTITION", "PARTITION", &r->partition);
	env_str("SLURM_JOB_NODELIST", "NODES", &r->nodes);
	env_str("SLURM_CLUSTER_NAME", "CLUSTER", &r->cluster);
	env_str("SLURM_JOB_WORK_DIR", "WORK_DIR", &r->work_dir);
	env_str("SLURM_JOB_STDOUT", "STDOUT", &r->std_out);
	env_str("SLURM_JOB_STDERR", "STDERR", &r->std_err);
	env_u32("SLURM_ARRAY_JOB_ID", "ARRAYJOBID", &r->array_job_id);
	env_u32("SLURM_ARRAY_TASK_ID", "ARRAYTASKID", &r->array_task_id);
	if (env_u32("SLURM_JOB_RESTART_COUNT", NULL, &u))
		r->restart_cnt = (uint16_t)u;
	env_time("SLURM_JOB_SUBMIT_TIME", "SUBMIT", &r->submit);
	env_time("SLURM_JOB_START_TIME", "START", &r->start);
	env_time("SLURM_JOB_END_TIME", "END", &r->end);
	/* EpilogSlurmctld: the wait status */
	if (ec && sscanf(ec, "%u:%u", &code, &sig) >= 1)
		r->exit_code = sig ? sig : code << 8;
	else
		env_u32("SLURM_JOB_EXIT_CODE", NULL, &r->exit_code);
	env_u32("SLURM_JOB_DERIVED_EC", "DERIVED_EC", &r->derived_ec);
}

/* r from slurmctld's view of the job (strings point into j) */
static void from_job(struct rec *r, const slurm_job_info_t *j)
{
	r->uid = j->user_id;
	r->gid = j->group_id;
	r->user = j->user_name;
	r->name = j->name;
	r->partition = j->partition;
	r->nodes = j->nodes;
	r->cluster = j->cluster;
	r->work_dir = j->work_dir;
	r->std_out = j->std_out;
	r->std_err = j->std_err;
	r->batch_host = j->batch_host;
	r->array_job_id = j->array_job_id;
	r->array_task_id = j->array_task_id;
	r->restart_cnt = j->restart_cnt;
	r->batch_flag = j->batch_flag;
	r->submit = j->submit_time;
	r->start = j->start_time;
	r->end = j->end_time > 0 ? j->end_time : time(NULL);
	r->time_limit = j->time_limit;
	r->exit_code = j->exit_code;
	r->derived_ec = j->derived_ec;
	r->job_state = j->job_state;
	r->state_reason = j->state_reason;
	/* slurm_load_job's tres_alloc_str is the formatted one (cpu=1,...,
	 * gres/gpu=2); whether gres/gpu is accounted: slurm.conf, which
	 * slurm_init read in this process */
	r->gpus = job_tres_gpus(j->tres_alloc_str, "gres/gpu",
				job_tres_accounts_gpu(slurm_conf.accounting_storage_tres));
	/* pending again while its attempt's hook runs: the attempt was
	 * requeued (what jobcomp/attrib records as REQUEUED) */
	if ((j->job_state & JOB_STATE_BASE) == JOB_PENDING)
		r->job_state = JOB_PENDING | JOB_REQUEUE;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: attrib-jobrecord [-d SPOOLDIR] [-t SECONDS]\n"
		"  run by slurmctld as EpilogSlurmctld or as jobcomp/script's script;\n"
		"  writes SPOOLDIR/jobs/JOBID.ATTEMPT.json (default %s)\n",
		DEFAULT_SPOOL);
}

/* write r to SPOOL/jobs/JOBID.ATTEMPT.json; 0 or -1 (reported) */
static int write_rec(const char *spool, const struct rec *r)
{
	char name[64], tmp[72], err[512], *line;
	size_t len = 0;
	int jfd, rc = -1;

	if (!(line = rec_json(r, &len))) {
		fprintf(stderr, "attrib-jobrecord: job %" PRIu32 ": out of memory\n", r->job_id);
		return -1;
	}
	if ((jfd = open_jobs_dir(spool, err, sizeof(err))) >= 0) {
		snprintf(name, sizeof(name), "%" PRIu32 ".%u.json", r->job_id, (unsigned)r->restart_cnt);
		snprintf(tmp, sizeof(tmp), ".%s.tmp", name);
		rc = write_atomic_at(jfd, name, tmp, line, len, 0600, true, err, sizeof(err));
		if (rc == 0)
			(void)fsync(jfd); /* the rename */
		close(jfd);
	}
	if (rc)
		fprintf(stderr, "attrib-jobrecord: job %" PRIu32 ": %s\n", r->job_id, err);
	free(line);
	return rc;
}

/* in a child: the record from slurmctld's view of the job, written; exits
 * 0 when written, 3 when slurmctld does not know the job, 1 otherwise
 * (libslurm may also end the child: fatal() on an unreadable slurm.conf) */
_Noreturn static void load_and_write(const char *spool, struct rec *r)
{
	job_info_msg_t *msg = NULL;

	slurm_init(NULL);
	if (slurm_load_job(&msg, r->job_id, SHOW_ALL | SHOW_DETAIL) != SLURM_SUCCESS || !msg ||
	    msg->record_count < 1) {
		fprintf(stderr, "attrib-jobrecord: job %" PRIu32 ": slurm_load_job: %s\n", r->job_id,
			slurm_strerror(errno));
		_exit(3);
	}
	from_job(r, &msg->job_array[0]);
	overlay_env(r);
	/* a requeue counts the next attempt before the hook runs (its
	 * environment's restart count too): the attempt that ended is one less */
	if ((r->job_state & JOB_REQUEUE) && r->restart_cnt > 0)
		r->restart_cnt--;
	_exit(write_rec(spool, r) == 0 ? 0 : 1);
}

int main(int argc, char **argv)
{
	const char *spool = DEFAULT_SPOOL, *id = env2("SLURM_JOB_ID", "JOBID");
	struct rec r = { 0 };
	struct timespec t0, now;
	char *end;
	int opt, timeout = 10, status = 0;
	pid_t pid;

	while ((opt = getopt(argc, argv, "d:t:h")) != -1) {
		switch (opt) {
		case 'd':
			spool = optarg;
			break;
		case 't':
			timeout = atoi(optarg);
			if (timeout < 1 || timeout > 300)
				timeout = 10;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!id || (r.job_id = (uint32_t)strtoul(id, &end, 10)) == 0 || *end) {
		fprintf(stderr, "attrib-jobrecord: no job id (SLURM_JOB_ID or JOBID)\n");
		return 2;
	}
	if (spool[0] != '/') {
		fprintf(stderr, "attrib-jobrecord: %s: not an absolute directory\n", spool);
		return 2;
	}

	/*
	 * slurmctld's view in a child bounded in time: libslurm retries a
	 * missing slurm.conf for 60 s and ends the process on a bad one; an
	 * RPC waits MessageTimeout.  Whatever happens there, the record from
	 * the environment is written here.
	 */
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		load_and_write(spool, &r);
	if (pid > 0) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (;;) {
			pid_t w = waitpid(pid, &status, WNOHANG);

			if (w == pid)
				break;
			if (w < 0 && errno != EINTR) {
				status = -1;
				break;
			}
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec - t0.tv_sec >= timeout) {
				kill(pid, SIGKILL);
				(void)waitpid(pid, NULL, 0);
				fprintf(stderr,
					"attrib-jobrecord: job %" PRIu32
					": no answer from slurmctld in %d s\n",
					r.job_id, timeout);
				status = -1;
				break;
			}
			usleep(20000);
		}
		if (status == 0)
			return 0; /* written by the child, with slurmctld's view */
	}
	fprintf(stderr, "attrib-jobrecord: job %" PRIu32 ": record from the environment only\n", r.job_id);
	r.array_task_id = NO_VAL;
	r.gpus = -1; /* the environment does not say */
	r.limit_unknown = true;
	r.batch_flag = 1;
	r.state_reason = WAIT_NO_REASON;
	r.end = time(NULL); /* the hook runs as the attempt ends */
	overlay_env(&r);
	r.job_state = r.exit_code ? JOB_FAILED : JOB_COMPLETE;
	return write_rec(spool, &r) == 0 ? 0 : 1;
}
