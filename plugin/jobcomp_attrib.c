/*
 * jobcomp/attrib: the job record of every ended job, for attrib's live
 * pipeline (doc/live-pipeline.md, section 1).
 *
 * slurmctld calls jobcomp_p_log_record() with its job write lock held. That
 * function only copies the fields the diagnosis needs into one heap block and
 * appends it to a bounded queue (QUEUE_MAX records; beyond that a record is
 * dropped and counted, the service's reconciliation finds the job later).
 * A worker thread turns each record into JSON and writes
 * LOC/jobs/.JOBID.ATTEMPT.json.tmp, fsyncs it and renames it to
 * LOC/jobs/JOBID.ATTEMPT.json; LOC is JobCompLoc (default /var/spool/attrib).
 * Everything that can be slow (user name lookup, host list expansion,
 * output path expansion, formatting, file system) happens in the worker.
 * No RPC, no fork, no exec.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr, pthread_timedjoin_np */
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"
#include "src/common/hostlist.h"
#include "src/common/log.h"
#include "src/common/parse_time.h"
#include "src/common/read_config.h"
#include "src/common/slurm_protocol_defs.h"
#include "src/slurmctld/slurmctld.h"

#define ATTRIB_SLURM_INTERNAL
#include "slurm_compat.h"
#include "contract.h"
#include "jobrec.h"
#include "util.h"
#include "stdio_path.h"

/* required by Slurm's plugin loader */
const char plugin_name[] = "attrib job record plugin";
const char plugin_type[] = "jobcomp/attrib";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

#define DEFAULT_LOC "/var/spool/attrib"
#define QUEUE_MAX 10000
#define DRAIN_SECONDS 5 /* fini: time the worker has to write what is queued */
#define JOIN_GRACE 5	/* fini: then this long for a write in progress */
#define LOG_INTERVAL 60 /* drop / write-error messages: once a minute */

static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t q_cond = PTHREAD_COND_INITIALIZER;
static struct rec *q_head, *q_tail;
static unsigned q_len;
static bool stopping;	      /* fini called: drain, then exit */
static time_t drain_deadline; /* records still queued after this are dropped */
static uint64_t n_dropped;
static time_t drop_logged_at;
static char *loc;	 /* JobCompLoc in effect (malloc) */
static unsigned loc_gen; /* bumped when loc changes */
static pthread_t worker;
static bool worker_running;
static uint64_t n_written, n_not_written; /* set by the worker as it ends */

/* ---- the copy (under slurmctld's locks) ------------------------------------- */

static size_t slen(const char *s)
{
	return s ? strlen(s) + 1 : 0;
}

/* copy s to *dst from the string area at *area; NULL stays NULL */
static void put(char **dst, char **area, const char *s, size_t n)
{
	if (!s) {
		*dst = NULL;
		return;
	}
	memcpy(*area, s, n);
	*dst = *area;
	*area += n;
}

static struct rec *rec_copy(const job_record_t *job)
{
	const job_details_t *d = job->details;
	const char *std_out = d ? d->std_out : NULL, *std_err = d ? d->std_err : NULL;
	const char *work_dir = d ? d->work_dir : NULL;
	const char *cluster = slurm_conf.cluster_name;
	size_t l_user = slen(job->user_name), l_name = slen(job->name), l_part = slen(job->partition),
	       l_nodes = slen(job->nodes), l_out = slen(std_out), l_err = slen(std_err),
	       l_wd = slen(work_dir), l_bh = slen(job->batch_host), l_cl = slen(cluster);
	struct rec *r;
	char *area;

	r = malloc(sizeof(*r) + l_user + l_name + l_part + l_nodes + l_out + l_err + l_wd + l_bh + l_cl);
	if (!r)
		return NULL;
	area = (char *)(r + 1);
	r->next = NULL;
	r->limit_unknown = false;
	r->job_id = job->job_id;
	r->uid = job->user_id;
	r->gid = job->group_id;
	r->array_job_id = job->array_job_id;
	r->array_task_id = job->array_task_id;
	r->exit_code = job->exit_code;
	r->derived_ec = job->derived_ec;
	r->job_state = job->job_state;
	r->state_reason = job->state_reason;
	r->time_limit = job->time_limit;
	if (r->time_limit == NO_VAL && job->part_ptr)
		r->time_limit = job->part_ptr->max_time;
	r->restart_cnt = job->restart_cnt;
	r->batch_flag = job->batch_flag;
	r->submit = d ? d->submit_time : 0;
	r->start = job->start_time;
	r->end = job->end_time;
	/* the formatted allocated TRES, as sacct's AllocTRES (tres_alloc_str
	 * holds them by id); a strstr on a short string, under the lock */
	r->gpus = job_tres_gpus(job->tres_fmt_alloc_str, "gres/gpu",
				job_tres_accounts_gpu(slurm_conf.accounting_storage_tres));
	put(&r->user, &area, job->user_name, l_user);
	put(&r->name, &area, job->name, l_name);
	put(&r->partition, &area, job->partition, l_part);
	put(&r->nodes, &area, job->nodes, l_nodes);
	put(&r->std_out, &area, std_out, l_out);
	put(&r->std_err, &area, std_err, l_err);
	put(&r->work_dir, &area, work_dir, l_wd);
	put(&r->batch_host, &area, job->batch_host, l_bh);
	put(&r->cluster, &area, cluster, l_cl);
	return r;
}

/* ---- the worker --------------------------------------------------------------- */

/* fini has been called and the drain time is over */
static bool past_drain_deadline(void)
{
	bool past;

	pthread_mutex_lock(&q_lock);
	past = stopping && time(NULL) > drain_deadline;
	pthread_mutex_unlock(&q_lock);
	return past;
}

static void *worker_main(void *arg)
{
	unsigned gen = 0;
	int dirfd = -1;
	time_t err_logged_at = 0;
	uint64_t n_ok = 0, n_failed = 0, n_failed_logged = 0, n_late = 0;
	sigset_t all;

	/* signals are slurmctld's business (its signal thread) */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_mutex_lock(&q_lock);
	for (;;) {
		struct rec *batch, *r;
		char *dir = NULL;
		bool wrote = false, late;
		time_t now;

		while (!q_head && !stopping)
			pthread_cond_wait(&q_cond, &q_lock);
		if (!q_head)
			break; /* stopping and drained */
		batch = q_head;
		q_head = q_tail = NULL;
		q_len = 0;
		if (gen != loc_gen || dirfd < 0) {
			if (dirfd >= 0)
				close(dirfd);
			dirfd = -1;
			gen = loc_gen;
			dir = strdup(loc ? loc : DEFAULT_LOC);
		}
		late = stopping && time(NULL) > drain_deadline;
		pthread_mutex_unlock(&q_lock);

		if (dir && !late) {
			char err[512];

			if ((dirfd = open_jobs_dir(dir, err, sizeof(err))) < 0) {
				now = time(NULL);
				if (now - err_logged_at >= LOG_INTERVAL) {
					error("%s: %s: job records are not written", plugin_type, err);
					err_logged_at = now;
				}
			}
		}
		free(dir);
		while ((r = batch)) {
			char name[64], tmp[72], err[512], *line;
			size_t len = 0;

			batch = r->next;
			if (late || dirfd < 0) {
				if (late)
					n_late++;
				else
					n_failed++;
				free(r);
				continue;
			}
			snprintf(name, sizeof(name), "%" PRIu32 ".%u.json", r->job_id,
				 (unsigned)r->restart_cnt);
			snprintf(tmp, sizeof(tmp), ".%s.tmp", name);
			line = rec_json(r, &len);
			if (!line) {
				n_failed++;
				error("%s: job %" PRIu32 ": out of memory", plugin_type, r->job_id);
			} else if (write_atomic_at(dirfd, name, tmp, line, len, 0600, true, err,
						   sizeof(err)) < 0) {
				n_failed++;
				now = time(NULL);
				if (now - err_logged_at >= LOG_INTERVAL) {
					error("%s: job %" PRIu32 ": %s (%" PRIu64
					      " records not written so far)",
					      plugin_type, r->job_id, err, n_failed);
					err_logged_at = now;
					n_failed_logged = n_failed;
				}
				if (errno == ENOENT || errno == ESTALE) {
					/* the directory went away: reopen it next time */
					close(dirfd);
					dirfd = -1;
				}
			} else {
				wrote = true;
				n_ok++;
				debug("%s: wrote job record %s", plugin_type, name);
			}
			free(line);
			free(r);
			/* a record written late in a drain would hold up shutdown */
			if (!late && past_drain_deadline())
				late = true;
		}
		if (wrote && dirfd >= 0)
			(void)fsync(dirfd); /* the renames */
		pthread_mutex_lock(&q_lock);
	}
	pthread_mutex_unlock(&q_lock);
	if (n_failed > n_failed_logged)
		error("%s: %" PRIu64 " job records could not be written", plugin_type, n_failed);
	if (n_late)
		error("%s: shutdown: %" PRIu64 " queued job records dropped after %d s", plugin_type, n_late,
		      DRAIN_SECONDS);
	pthread_mutex_lock(&q_lock);
	n_written = n_ok;
	n_not_written = n_failed + n_late;
	pthread_mutex_unlock(&q_lock);
	if (dirfd >= 0)
		close(dirfd);
	return arg;
}

/* ---- the plugin interface ------------------------------------------------------ */

extern int init(void)
{
	int rc;

	pthread_mutex_lock(&q_lock);
	if (worker_running) {
		/* a previous instance's worker never ended (see fini) */
		pthread_mutex_unlock(&q_lock);
		error("%s: the previous worker thread is still running", plugin_type);
		return SLURM_ERROR;
	}
	stopping = false;
	rc = pthread_create(&worker, NULL, worker_main, NULL);
	if (rc) {
		pthread_mutex_unlock(&q_lock);
		error("%s: cannot start the worker thread: %s", plugin_type, strerror(rc));
		return SLURM_ERROR;
	}
	worker_running = true;
	pthread_mutex_unlock(&q_lock);
	info("%s: loaded (queue limit %d records)", plugin_type, QUEUE_MAX);
	return SLURM_SUCCESS;
}

/* keep this object mapped: a thread of it may still run after fini */
static void pin_module(void)
{
	Dl_info di;

	if (dladdr((void *)pin_module, &di) && di.dli_fname)
		(void)dlopen(di.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

extern int fini(void)
{
	struct rec *r;
	struct timespec ts;
	int rc;

	pthread_mutex_lock(&q_lock);
	if (!worker_running) {
		pthread_mutex_unlock(&q_lock);
		return SLURM_SUCCESS;
	}
	stopping = true;
	drain_deadline = time(NULL) + DRAIN_SECONDS;
	pthread_cond_broadcast(&q_cond);
	pthread_mutex_unlock(&q_lock);

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += DRAIN_SECONDS + JOIN_GRACE;
	rc = pthread_timedjoin_np(worker, NULL, &ts);
	if (rc) {
		/* a write hangs (dead file system?): do not wait for it, but
		 * neither unmap the code it runs */
		error("%s: worker thread did not stop within %d s (%s); leaving it", plugin_type,
		      DRAIN_SECONDS + JOIN_GRACE, strerror(rc));
		pin_module();
		pthread_detach(worker);
		return SLURM_SUCCESS;
	}
	pthread_mutex_lock(&q_lock);
	worker_running = false;
	while ((r = q_head)) {
		q_head = r->next;
		free(r);
	}
	q_tail = NULL;
	q_len = 0;
	free(loc);
	loc = NULL;
	info("%s: stopped: %" PRIu64 " job records written, %" PRIu64 " not written, %" PRIu64
	     " dropped (queue full or stopping)",
	     plugin_type, n_written, n_not_written, n_dropped);
	pthread_mutex_unlock(&q_lock);
	return SLURM_SUCCESS;
}

extern int jobcomp_p_set_location(JOBCOMP_SET_LOCATION_PARAMS)
{
	const char *l = JOBCOMP_LOCATION;
	char *copy;

	/* unset (22.05 passes its built-in default then) */
	if (!l || !*l || JOBCOMP_LOCATION_IS_DEFAULT(l))
		l = DEFAULT_LOC;
	if (l[0] != '/') {
		error("%s: JobCompLoc=%s is not an absolute directory; using %s", plugin_type, l,
		      DEFAULT_LOC);
		l = DEFAULT_LOC;
	}
	if (!(copy = strdup(l)))
		return SLURM_ERROR;
	pthread_mutex_lock(&q_lock);
	if (!loc || strcmp(loc, copy)) {
		free(loc);
		loc = copy;
		copy = NULL;
		loc_gen++;
		info("%s: job records go to %s/jobs", plugin_type, loc);
	}
	pthread_mutex_unlock(&q_lock);
	free(copy);
	return SLURM_SUCCESS;
}

extern int jobcomp_p_log_record(job_record_t *job_ptr)
{
	struct rec *r;
	time_t now;

	if (!job_ptr)
		return SLURM_ERROR;
	/* a resize is not the end of the job; its final record follows */
	if (IS_JOB_RESIZING(job_ptr))
		return SLURM_SUCCESS;
	r = rec_copy(job_ptr);
	pthread_mutex_lock(&q_lock);
	if (!r || q_len >= QUEUE_MAX || !worker_running || stopping) {
		n_dropped++;
		now = time(NULL);
		if (now - drop_logged_at >= LOG_INTERVAL) {
			error("%s: job %u: record dropped (%s); %" PRIu64 " dropped so far", plugin_type,
			      job_ptr->job_id,
			      !r			   ? "out of memory"
				      : q_len >= QUEUE_MAX ? "queue full"
							   : "not running",
			      n_dropped);
			drop_logged_at = now;
		}
		pthread_mutex_unlock(&q_lock);
		free(r);
		return SLURM_SUCCESS;
	}
	if (q_tail)
		q_tail->next = r;
	else
		q_head = r;
	q_tail = r;
	q_len++;
	pthread_cond_signal(&q_cond);
	pthread_mutex_unlock(&q_lock);
	return SLURM_SUCCESS;
}

extern list_t *jobcomp_p_get_jobs(slurmdb_job_cond_t *job_cond)
{
	return NULL; /* records are read by attribd, not through sacct -c */
}
