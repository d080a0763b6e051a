/*
 * SPANK plugin "attrib": one record per task of every step, for attrib's
 * live pipeline (doc/live-pipeline.md, section 2).
 *
 * In slurmstepd (the remote context) it writes, as root,
 * NODESPOOL/JOBID/task-STEP-RANK@NODE.json: first when the task has been forked
 * (slurm_spank_task_post_fork: rank, node, local rank, step, GPUs, pid,
 * start time), then again when it has been reaped (slurm_spank_task_exit:
 * the same plus exit code, signal and exit time). Each write is atomic
 * (temporary file, rename; the final one fsynced), so a reader sees one
 * record or the other, whole.
 *
 * NODESPOOL is the plugstack option spool=DIR (default
 * /var/spool/attrib/node); it and the JOBID directories are created 0700,
 * files 0600. Paths are opened component by component without following
 * symbolic links (root-owned ones in the configured spool path excepted);
 * the job directory is opened relative to the spool's descriptor with
 * O_NOFOLLOW. Nothing a user controls names a path. It runs nothing.
 *
 * For the batch script it also writes NODESPOOL/JOBID/output@NODE.json
 * (slurm_spank_task_init_privileged, in the task before it drops root):
 * the values slurmstepd expanded the job's output patterns with that the
 * Epilog does not have, so that it can find the files and read their ends
 * as the job's user.
 *
 * It never fails a job: every error is logged and the callback returns 0.
 * Only public Slurm interfaces (<slurm/spank.h>) are used.
 *
 * plugstack.conf:  required /usr/lib/x86_64-linux-gnu/slurm-wlm/spank_attrib.so spool=/var/spool/attrib/node
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

#include "util.h"

SPANK_PLUGIN(attrib, 1)

#define DEFAULT_SPOOL "/var/spool/attrib/node"
#define TAG "spank/attrib"

static char spool[1024] = DEFAULT_SPOOL;

/* start time of each local task of this step (slurmstepd is one process
 * per step; post_fork and task_exit both run in it), by local rank */
static time_t *task_start;
static size_t n_task_start;

static void remember_start(int local_rank, time_t t)
{
	if (local_rank < 0 || local_rank > 65535)
		return;
	if ((size_t)local_rank >= n_task_start) {
		size_t n = (size_t)local_rank + 16;
		time_t *p = realloc(task_start, n * sizeof(*p));

		if (!p)
			return;
		memset(p + n_task_start, 0, (n - n_task_start) * sizeof(*p));
		task_start = p;
		n_task_start = n;
	}
	task_start[local_rank] = t;
}

static time_t started_at(int local_rank)
{
	if (local_rank < 0 || (size_t)local_rank >= n_task_start)
		return 0;
	return task_start[local_rank];
}

/* what one task record holds */
struct task {
	uint32_t job_id, step_id, rank;
	int local_rank;
	pid_t pid;
	char step[16];
	char node[256];
	char gpu[256];
};

static bool option_path_ok(const char *p)
{
	const char *c;

	if (p[0] != '/' || strlen(p) >= sizeof(spool))
		return false;
	for (c = p; (c = strstr(c, "..")); c += 2)
		if ((c == p || c[-1] == '/') && (c[2] == '/' || c[2] == '\0'))
			return false;
	return true;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	if (!spank_remote(sp))
		return 0;
	for (int i = 0; i < ac; i++) {
		if (!strncmp(av[i], "spool=", 6)) {
			if (option_path_ok(av[i] + 6))
				snprintf(spool, sizeof(spool), "%s", av[i] + 6);
			else
				slurm_error("%s: ignoring %s: not an absolute path without \"..\"; "
					    "using %s",
					    TAG, av[i], spool);
		} else {
			slurm_error("%s: unknown option %s (known: spool=DIR)", TAG, av[i]);
		}
	}
	return 0;
}

static void step_name(uint32_t step_id, char *buf, size_t len)
{
	switch (step_id) {
	case SLURM_BATCH_SCRIPT:
		snprintf(buf, len, "batch");
		break;
	case SLURM_EXTERN_CONT:
		snprintf(buf, len, "extern");
		break;
#ifdef SLURM_INTERACTIVE_STEP
	case SLURM_INTERACTIVE_STEP:
		snprintf(buf, len, "interactive");
		break;
#endif
	default:
		snprintf(buf, len, "%" PRIu32, step_id);
	}
}

/* a value of the step's environment, "" when unset or unreadable */
static void step_env(spank_t sp, const char *name, char *buf, size_t len)
{
	if (spank_getenv(sp, name, buf, (int)len) != ESPANK_SUCCESS)
		buf[0] = '\0';
}

/* the facts slurmstepd knows about the task; -1 when one is missing */
static int task_facts(spank_t sp, struct task *t)
{
	const char *env;
	spank_err_t e;

	memset(t, 0, sizeof(*t));
	if ((e = spank_get_item(sp, S_JOB_ID, &t->job_id)) != ESPANK_SUCCESS ||
	    (e = spank_get_item(sp, S_JOB_STEPID, &t->step_id)) != ESPANK_SUCCESS ||
	    (e = spank_get_item(sp, S_TASK_GLOBAL_ID, &t->rank)) != ESPANK_SUCCESS ||
	    (e = spank_get_item(sp, S_TASK_ID, &t->local_rank)) != ESPANK_SUCCESS) {
		slurm_error("%s: cannot get the task's ids: %s", TAG, spank_strerror(e));
		return -1;
	}
	if (spank_get_item(sp, S_TASK_PID, &t->pid) != ESPANK_SUCCESS)
		t->pid = 0;
	step_name(t->step_id, t->step, sizeof(t->step));
	/* Slurm's name for this node (the job's node list uses it):
	 * slurmstepd puts SLURMD_NODENAME in its own environment at start
	 * (not the job's, which the user could have set) */
	if ((env = getenv("SLURMD_NODENAME")) && *env)
		snprintf(t->node, sizeof(t->node), "%s", env);
	else if (gethostname(t->node, sizeof(t->node) - 1) < 0)
		t->node[0] = '\0';
	t->node[sizeof(t->node) - 1] = '\0';
	/* (it names a file: nothing but a host name's characters) */
	for (char *c = t->node; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_' && *c != '.')
			*c = '_';
	/* the GPUs Slurm gave the step */
	step_env(sp, "CUDA_VISIBLE_DEVICES", t->gpu, sizeof(t->gpu));
	if (!t->gpu[0])
		step_env(sp, "SLURM_STEP_GPUS", t->gpu, sizeof(t->gpu));
	if (!t->gpu[0])
		step_env(sp, "SLURM_JOB_GPUS", t->gpu, sizeof(t->gpu));
	return 0;
}

/* NODESPOOL/JOBID, created 0700; -1 on error (logged) */
static int open_job_dir(uint32_t job_id)
{
	char err[512], name[16];
	struct stat st;
	int sfd, jfd;

	if ((sfd = open_dir_nofollow(spool, 0700, true, err, sizeof(err))) < 0) {
		slurm_error("%s: spool %s: %s", TAG, spool, err);
		return -1;
	}
	if (fstat(sfd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 022)) {
		slurm_error("%s: spool %s: not owned by uid %u or writable by others; "
			    "no task records",
			    TAG, spool, (unsigned)geteuid());
		close(sfd);
		return -1;
	}
	snprintf(name, sizeof(name), "%" PRIu32, job_id);
	if (mkdirat(sfd, name, 0700) < 0 && errno != EEXIST) {
		slurm_error("%s: mkdir %s/%s: %s", TAG, spool, name, strerror(errno));
		close(sfd);
		return -1;
	}
	jfd = openat(sfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (jfd < 0) {
		int e = errno;

		if (fstatat(sfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
			slurm_error("%s: %s/%s is a symbolic link: refused; no task records", TAG, spool,
				    name);
		else
			slurm_error("%s: open %s/%s: %s", TAG, spool, name, strerror(e));
		close(sfd);
		return -1;
	}
	close(sfd);
	if (fstat(jfd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 077)) {
		slurm_error("%s: %s/%s: not owned by uid %u with mode 0700; no task records", TAG, spool,
			    name, (unsigned)geteuid());
		close(jfd);
		return -1;
	}
	return jfd;
}

static void write_task(const struct task *t, time_t start, const int *status, time_t exit_time)
{
	char fname[128 + sizeof(t->node)], tmp[sizeof(fname) + 32], err[512];
	struct json_object *o = json_object_new_object();
	char *line = NULL, id[16];
	size_t len = 0;
	int dfd;

	if (o) {
		jo_int(o, "rank", t->rank);
		jo_str(o, "node", t->node);
		jo_int(o, "local_rank", t->local_rank);
		jo_str(o, "step", t->step);
		jo_str(o, "gpu", t->gpu[0] ? t->gpu : NULL); /* null: no GPU in the step */
		jo_int(o, "pid", t->pid);
		jo_time(o, "start_time", start);
		if (status) {
			jo_int(o, "exit_code", WIFEXITED(*status) ? WEXITSTATUS(*status) : 0);
			jo_int(o, "signal", WIFSIGNALED(*status) ? WTERMSIG(*status) : 0);
			jo_time(o, "exit_time", exit_time);
		}
		snprintf(id, sizeof(id), "%" PRIu32, t->job_id);
		jo_str(o, "job_id", id);
		line = jo_line(o, &len);
		json_object_put(o);
	}
	if (!line) {
		slurm_error("%s: job %" PRIu32 " task %" PRIu32 ": out of memory", TAG, t->job_id, t->rank);
		return;
	}
	if ((dfd = open_job_dir(t->job_id)) < 0) {
		free(line);
		return;
	}
	/* the node in the name: a spool shared by mistake keeps every node's
	 * records apart, and each node's Epilog takes only its own */
	snprintf(fname, sizeof(fname), "task-%s-%" PRIu32 "@%s.json", t->step, t->rank, t->node);
	snprintf(tmp, sizeof(tmp), ".%s.%ld.tmp", fname, (long)getpid());
	/*
	 * The record at fork is not fsynced: that would delay the tasks' exec
	 * (slurmstepd holds them until every post_fork has returned). The
	 * final record is (about 3.5 ms on an ext4 VM disk, in slurmstepd's
	 * reaping loop); the directory is not (the Epilog reads the records
	 * from the page cache moments later).
	 */
	if (write_atomic_at(dfd, fname, tmp, line, len, 0600, status != NULL, err, sizeof(err)) < 0)
		slurm_error("%s: %s/%" PRIu32 ": %s", TAG, spool, t->job_id, err);
	close(dfd);
	free(line);
}

/* slurmstepd, as root, after forking the task (it waits to exec) */
int slurm_spank_task_post_fork(spank_t sp, int ac, char **av)
{
	struct task t;

	time_t now = time(NULL);

	if (!spank_remote(sp) || task_facts(sp, &t) < 0)
		return 0;
	remember_start(t.local_rank, now);
	write_task(&t, now, NULL, 0);
	return 0;
}

/*
 * The batch script's task, as root: what slurmstepd expanded the job's
 * output patterns with (fname_create, src/slurmd/common/fname.c) and the
 * Epilog's environment lacks: the job's name as the batch step's
 * environment has it (%x), its array ids (%A, %a, %b) and the Slurm
 * release (%b is 24.11's). NODESPOOL/JOBID/output@NODE.json; the Epilog of
 * this node expands the patterns (SLURM_JOB_STDOUT, SLURM_JOB_STDERR) with
 * them and reads the files' ends as the job's user.
 *
 * Not the files on descriptors 1 and 2: slurmstepd connects them to the
 * task's output only after this hook (prepare_stdio after
 * _pre_task_child_privileged, src/slurmd/slurmstepd/mgr.c); here 2 is the
 * job's stderr file only because slurmstepd logs there, and 1 is not the
 * job's at all.
 */
int slurm_spank_task_init_privileged(spank_t sp, int ac, char **av)
{
	struct task t;
	char name[4096], fname[64 + sizeof(t.node)], tmp[sizeof(fname) + 32], why[512];
	struct json_object *o;
	char *line = NULL, id[16];
	uint32_t array_job = 0, array_task = NO_VAL;
	size_t len = 0;
	spank_err_t e;
	int dfd;

	if (!spank_remote(sp) || task_facts(sp, &t) < 0 || t.step_id != SLURM_BATCH_SCRIPT)
		return 0;
	if ((o = json_object_new_object())) {
		snprintf(id, sizeof(id), "%" PRIu32, t.job_id);
		jo_str(o, "job_id", id);
		jo_str(o, "node", t.node);
		/* unset: Slurm prints "(null)" (null here); too long: left out */
		e = spank_getenv(sp, "SLURM_JOB_NAME", name, (int)sizeof(name));
		if (e == ESPANK_SUCCESS || e == ESPANK_ENV_NOEXIST)
			jo_str(o, "job_name", e == ESPANK_SUCCESS ? name : NULL);
		if (spank_get_item(sp, S_JOB_ARRAY_ID, &array_job) == ESPANK_SUCCESS &&
		    spank_get_item(sp, S_JOB_ARRAY_TASK_ID, &array_task) == ESPANK_SUCCESS) {
			jo_int(o, "array_job_id", array_job);
			jo_int(o, "array_task_id", array_task);
		}
		jo_int(o, "slurm_version", SLURM_VERSION_NUMBER);
		line = jo_line(o, &len);
		json_object_put(o);
	}
	if (!line || (dfd = open_job_dir(t.job_id)) < 0) {
		free(line);
		return 0;
	}
	snprintf(fname, sizeof(fname), "output@%s.json", t.node);
	snprintf(tmp, sizeof(tmp), ".%s.%ld.tmp", fname, (long)getpid());
	if (write_atomic_at(dfd, fname, tmp, line, len, 0600, false, why, sizeof(why)) < 0)
		slurm_error("%s: %s/%" PRIu32 ": %s", TAG, spool, t.job_id, why);
	close(dfd);
	free(line);
	return 0;
}

/* slurmstepd, as root, after reaping the task */
int slurm_spank_task_exit(spank_t sp, int ac, char **av)
{
	struct task t;
	int status = 0;
	spank_err_t e;

	if (!spank_remote(sp) || task_facts(sp, &t) < 0)
		return 0;
	if ((e = spank_get_item(sp, S_TASK_EXIT_STATUS, &status)) != ESPANK_SUCCESS) {
		slurm_error("%s: job %" PRIu32 " task %" PRIu32 ": no exit status: %s", TAG, t.job_id, t.rank,
			    spank_strerror(e));
		return 0;
	}
	write_task(&t, started_at(t.local_rank), &status, time(NULL));
	return 0;
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	free(task_start);
	task_start = NULL;
	n_task_start = 0;
	return 0;
}
