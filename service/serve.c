/* attribd: the loop.
 *
 * Threads: the main thread owns the engine and attributes jobs; libmicro-
 * httpd's threads take bundles; one accounting thread writes the queued
 * comments and reconciles with slurmdbd.  Each has its own SQLite
 * connection.  A job attempt is ready when its record exists and every
 * node's bundle is in, or BundleDeadline seconds after the record appeared
 * (its mtime), or at once when reconciliation wrote the record.  Its result
 * and comment are stored in one transaction keyed by (job, attempt), and
 * only then are its inputs removed: killed at any point, the service does
 * the same work again and stores it once.
 *
 * Privileges: the service stays uid 0 (slurmdbd takes AdminComment only from
 * an administrator, and MUNGE names the uid) but keeps only the capabilities
 * it uses: CAP_SETUID/CAP_SETGID (setfsuid/setfsgid/setgroups to read job
 * output as its user), CAP_DAC_OVERRIDE/CAP_DAC_READ_SEARCH (remove records
 * in slurmctld's spool, read SlurmctldLog), CAP_NET_BIND_SERVICE only for a
 * port below 1024; every other capability leaves the bounding set, and
 * no_new_privs is set.  Everything it creates is 0600/0700 (umask 077). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "accounting.h"
#include "attrib.h"
#include "casebuild.h"
#include "conf.h"
#include "contract.h"
#include "dashboard.h"
#include "drain_apply.h"
#include "health_intake.h"
#include "http.h"
#include "jsonread.h"
#include "log.h"
#include "metrics.h"
#include "nodetable.h"
#include "reconcile.h"
#include "repeat_apply.h"
#include "requeue_apply.h"
#include "serve.h"
#include "spool.h"
#include "store.h"
#include "switchfind.h"
#include "text.h"
#include "timefmt.h"
#include "topology_site.h"
#include "util.h"
#include "webhook.h"

static volatile sig_atomic_t stopping, reopen_log;
static int wake_pipe[2] = { -1, -1 };

static pthread_mutex_t acct_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t acct_cond = PTHREAD_COND_INITIALIZER;
static bool acct_stop, acct_kick;

struct loop {
	const struct attrib_config *conf;
	const attrib_catalog *cat;
	store *s;
	long long now;
	long pending;
};

static void on_signal(int sig)
{
	int e = errno;

	if (sig == SIGHUP)
		reopen_log = 1;
	else
		stopping = 1;
	if (wake_pipe[1] >= 0 && write(wake_pipe[1], "s", 1) < 0) {
		/* the loop wakes within a second anyway */
	}
	errno = e;
}

static void kick_accounting(void)
{
	pthread_mutex_lock(&acct_lock);
	acct_kick = true;
	pthread_cond_signal(&acct_cond);
	pthread_mutex_unlock(&acct_lock);
}

/* ---- one job attempt ------------------------------------------------------ */

/* The service's coverage entries (bundle sources, app files) after the
 * one of a result the engine could not make. */
static void append_coverage(struct json_object *res, struct json_object *cov)
{
	struct json_object *arr;

	if (!json_object_object_get_ex(res, "coverage", &arr) || !json_object_is_type(arr, json_type_array)) {
		arr = json_object_new_array();
		json_object_object_add(res, "coverage", arr);
	}
	for (size_t i = 0; i < json_object_array_length(cov); i++)
		json_object_array_add(arr, json_object_get(json_object_array_get_idx(cov, i)));
}

/* ---- late evidence --------------------------------------------------------
 * A diagnosis made at BundleDeadline without some node's bundle (its
 * collector gave up; the bundle waits in its outbox for the next epilog)
 * would stay degraded for good if that bundle, arriving later, were only
 * stored.  So a diagnosis's inputs are kept for a day in STATE/done/JOBID/
 * (the bundles, and the record as .record.json).  A bundle that arrives
 * after it lands in STATE/incoming/JOBID/ as any other; the loop
 * (revise_late) adds it to the kept ones, moves the directory back into
 * incoming/ and attributes the job again: the stored result, the
 * AdminComment, the Webhook and the metrics follow, and the result says
 * so ("revised": N, "revisions": [...], shown by attrib show).  A directory
 * in incoming/ that holds a .record.json is a revision a crash
 * interrupted, done again. */

#define KEPT_RECORD ".record.json" /* a dot-file: never a node's bundle name */

static int keep_inputs(const struct attrib_config *conf, struct json_object *rec, const char *job_id)
{
	char in[PATH_MAX], done[PATH_MAX], p[PATH_MAX + 32];
	const char *text = json_object_to_json_string_ext(rec, JSON_C_TO_STRING_PLAIN);
	struct stat st;

	if (!contract_valid_name(job_id))
		return -1;
	snprintf(in, sizeof(in), "%s/incoming/%s", conf->state_dir, job_id);
	snprintf(done, sizeof(done), "%s/done/%s", conf->state_dir, job_id);
	if (lstat(in, &st) == 0) {
		/* an earlier attempt's or diagnosis's inputs are replaced */
		snprintf(p, sizeof(p), "%s/" KEPT_RECORD, in);
		if (svc_write_atomic(p, text, strlen(text)) < 0 || svc_rmtree(done) < 0 ||
		    rename(in, done) < 0)
			return -1;
	} else {
		/* no bundle came, or they were kept before a crash */
		if (mkdir(done, 0700) < 0 && errno != EEXIST)
			return -1;
		snprintf(p, sizeof(p), "%s/" KEPT_RECORD, done);
		if (svc_write_atomic(p, text, strlen(text)) < 0)
			return -1;
	}
	snprintf(p, sizeof(p), "%s/done", conf->state_dir);
	svc_fsync_dir(p);
	return 0;
}

/* rec NULL: nothing to keep (no diagnosis) */
static void finish_inputs(const struct attrib_config *conf, const char *path, const char *job_id,
			  struct json_object *rec)
{
	if (!rec) {
		spool_drop_bundles(conf->state_dir, job_id);
	} else if (keep_inputs(conf, rec, job_id) < 0) {
		log_msg(LOGL_WARNING, "job %s: cannot keep its inputs for late bundles: %s", job_id,
			strerror(errno));
		spool_drop_bundles(conf->state_dir, job_id);
	}
	if (path && unlink(path) < 0 && errno != ENOENT)
		log_msg(LOGL_WARNING, "cannot remove the record %s: %s", path, strerror(errno));
}

/* A revision's history, for the case (casebuild puts it in evidence.json,
 * the engine in the result): how many times the diagnosis was redone, and
 * the entries of what it said before and why it changed. */
static struct json_object *revision_history(store *s, const struct record_name *rn, const char *late,
					    long long now)
{
	char *prev_text = store_get(s, rn->job_id, rn->attempt, NULL), at[40];
	struct json_object *prev = prev_text ? json_tokener_parse(prev_text) : NULL, *v, *revs,
			   *rev = json_object_new_object(), *before = json_object_new_object(),
			   *h = json_object_new_object();
	struct result_view was;
	long n = 0;

	if (prev && json_object_object_get_ex(prev, EVIDENCE_REVISED, &v))
		n = json_object_get_int64(v);
	if (prev && json_object_object_get_ex(prev, EVIDENCE_REVISIONS, &v) &&
	    json_object_is_type(v, json_type_array))
		revs = json_object_get(v);
	else
		revs = json_object_new_array();
	time_format_sec((time_t)now, at, sizeof(at));
	json_object_object_add(rev, "at", json_object_new_string(at));
	json_object_object_add(rev, "reason", json_object_new_string(late));
	if (result_view_of(prev, &was)) {
		json_object_object_add(before, "sub_domain",
				       was.sub_domain ? json_object_new_string(was.sub_domain) : NULL);
		json_object_object_add(before, "root_code",
				       was.root_code ? json_object_new_string(was.root_code) : NULL);
		if (was.culprit_nodes)
			json_object_object_add(before, "culprit_nodes", json_object_get(was.culprit_nodes));
	}
	json_object_object_add(rev, "before", before);
	json_object_array_add(revs, rev);
	json_object_object_add(h, EVIDENCE_REVISED, json_object_new_int64(n + 1));
	json_object_object_add(h, EVIDENCE_REVISIONS, revs);
	json_object_put(prev);
	free(prev_text);
	return h;
}

/* late: NULL for a first diagnosis; for a revision, why (the late nodes).
 * may_wait: a bundle of an earlier attempt among the inputs (casebuild
 * drops it) means waiting for this attempt's own: 0, nothing stored. */
static int attribute(const struct attrib_config *conf, const attrib_catalog *cat, store *s,
		     struct json_object *rec, const char *path, const struct record_name *rn, long long now,
		     const char *late, bool may_wait)
{
	struct json_object *cov = json_object_new_array(), *res, *history;
	struct result_view view;
	struct job_record_view jr;
	char err[512], *case_dir, *culprits, *comment;
	const char *text;
	int put, stale = 0;
	struct timespec began;

	clock_gettime(CLOCK_MONOTONIC, &began);
	job_record_read(rec, &jr, err, sizeof(err)); /* the engine judges it */
	history = late ? revision_history(s, rn, late, now) : NULL;
	case_dir = casebuild(conf, rec, rn->job_id, rn->attempt, history, cov, &stale, err, sizeof(err));
	if (!case_dir) {
		log_msg(LOGL_ERROR, "job %s attempt %ld: cannot build the case: %s", rn->job_id, rn->attempt,
			err);
		json_object_put(cov);
		json_object_put(history);
		return -1;
	}
	if (stale && may_wait) {
		svc_rmtree(case_dir);
		free(case_dir);
		json_object_put(cov);
		json_object_put(history);
		return 0;
	}
	/* every fact of the job the result shows is in the case (the record's
	 * fields in job.json, what the service could not collect and the
	 * revisions in evidence.json), so attrib analyze of the stored case
	 * gives the stored result */
	res = attrib_analyze(cat, case_dir, NULL, err, sizeof(err));
	if (!res) {
		log_msg(LOGL_WARNING, "job %s attempt %ld: the case %s is unusable: %s", rn->job_id,
			rn->attempt, case_dir, err);
		atomic_fetch_add(&svc_metrics.engine_unusable, 1);
		res = result_unusable(rn->job_id, jr.state, err);
		if (!res) {
			json_object_put(cov);
			json_object_put(history);
			free(case_dir);
			return -1;
		}
		/* the service's own result: its coverage and the record's
		 * fields as the engine would add them, made clean here */
		append_coverage(res, cov);
		jr.attempt = rn->attempt;
		result_add_job(res, &jr);
		if (history) {
			json_object_object_foreach (history, hk, hv)
				json_object_object_add(res, hk, json_object_get(hv));
		}
		json_clean_strings(res);
	}
	json_object_put(cov);
	json_object_put(history);
	result_view_of(res, &view);
	culprits = result_join_culprits(&view);
	comment = comment_summary(res);
	if (late && comment) {
		/* replaces the earlier summary in CommentField (comment_append) */
		char *c2 = NULL;

		if (asprintf(&c2, "%s (revised)", comment) > 0) {
			free(comment);
			comment = c2;
		}
	}
	text = json_object_to_json_string_ext(res, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	/* the record's user and cluster are columns attrib list prints */
	char *user = text_clean_str(jr.user, NAME_MAX_LEN);
	char *cluster = text_clean_str(jr.cluster, NAME_MAX_LEN);
	char *partition = text_clean_str(jr.partition, NAME_MAX_LEN);
	struct store_row row = {
		.job_id = rn->job_id,
		.attempt = rn->attempt,
		.cluster = cluster,
		.user = user,
		.state = view.terminal_state,
		.sub_domain = view.sub_domain,
		.culprits = culprits,
		.root_code = view.root_code,
		.created = now,
		.started = (long long)jr.start, /* 0: not known */
		.gpus = jr.gpus,
		.partition = partition,
		.result_json = text,
		.view = &view,
	};
	put = late ? store_revise(s, &row, comment, now) : 0;
	if (put == 0)
		put = store_put(s, &row, comment, now);
	if (put < 0) {
		log_msg(LOGL_ERROR, "job %s attempt %ld: cannot store the result", rn->job_id, rn->attempt);
	} else {
		if (put > 0) {
			atomic_fetch_add(late ? &svc_metrics.jobs_revised : &svc_metrics.jobs_attributed, 1);
			log_msg(LOGL_INFO, "job %s attempt %ld (%s): %s%s%s", rn->job_id, rn->attempt,
				row.state ? row.state : "?", comment ? comment : "",
				late ? "; late evidence: " : "", late ? late : "");
			kick_accounting();
			metrics_note_result(res, jr.end_time, &began);
			webhook_kick();
			char sw[NAME_MAX_LEN + 1];

			/* lost links under one leaf switch: the switch, not a node */
			if (switch_finding(conf, s, res, rn->job_id, rn->attempt, now, sw, sizeof(sw)))
				drain_policy_refuse_switch(s, res, rn->job_id, rn->attempt, sw, now);
			else
				drain_policy_apply(conf, cat, s, res, rn->job_id, rn->attempt, now);
			requeue_policy_apply(conf, s, res, rn->job_id, rn->attempt, now);
			repeat_after(conf, s, res, rn->job_id, rn->attempt, now);
		}
		finish_inputs(conf, path, rn->job_id, rec);
	}
	free(culprits);
	free(comment);
	free(user);
	free(cluster);
	free(partition);
	free(case_dir);
	json_object_put(res);
	/* json-c's objects of the case and the bundles go back to the system,
	 * not kept by malloc for the service's lifetime */
	malloc_trim(0);
	return put < 0 ? -1 : 1;
}

static void quarantine(const char *dir, const char *file, const char *why)
{
	char from[PATH_MAX], to[PATH_MAX];

	snprintf(from, sizeof(from), "%s/%s", dir, file);
	snprintf(to, sizeof(to), "%s/.invalid.%s", dir, file);
	log_msg(LOGL_ERROR, "%s: %s; moved to %s", from, why, to);
	if (rename(from, to) < 0)
		unlink(from);
}

int serve_record(const struct attrib_config *conf, const attrib_catalog *cat, store *s, const char *dir,
		 const char *file, const struct record_name *rn, long long now)
{
	char path[PATH_MAX], err[256];
	struct json_object *rec, *nodes = NULL;
	struct job_record_view jr;
	const char *state, *s_id;
	struct stat st;
	int have, missing = 0, rc;
	bool reconciled = false;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	have = store_has_result(s, rn->job_id, rn->attempt);
	if (have < 0)
		return -1;
	if (have) {
		/* attributed before a crash or restart: only the clean-up is left */
		rec = json_read_file(path, RECORD_MAX_BYTES, JSON_MAX_DEPTH, err, sizeof(err));
		finish_inputs(conf, path, rn->job_id, rec);
		json_object_put(rec);
		return 1;
	}
	if (lstat(path, &st) < 0)
		return -1;
	/* a record names the uid whose files the service reads as root: only
	 * one written by slurmctld (SlurmUser), root or the service counts */
	rec = json_read_file_owned(path, RECORD_MAX_BYTES, JSON_MAX_DEPTH, spool_writer_ok, &st, err,
				   sizeof(err));
	if (!rec) {
		quarantine(dir, file, err);
		return 1;
	}
	/* what the engine needs beyond job_id and state is its to judge: a
	 * record it cannot use is stored as unattributed, with the reason */
	job_record_read(rec, &jr, err, sizeof(err));
	s_id = jr.job_id;
	state = jr.state;
	if (!json_object_is_type(rec, json_type_object) || !s_id || strcmp(s_id, rn->job_id) || !state) {
		quarantine(dir, file, "not a job record of this job (job_id, state)");
		json_object_put(rec);
		return 1;
	}
	if (jr.attempt >= 0 && jr.attempt != rn->attempt) {
		quarantine(dir, file, "its attempt differs from its name's");
		json_object_put(rec);
		return 1;
	}
	if (!config_has_state(conf, state)) {
		log_msg(LOGL_INFO, "job %s attempt %ld ended %s: not in AttributeStates, no diagnosis",
			rn->job_id, rn->attempt, state);
		atomic_fetch_add(&svc_metrics.jobs_not_attributed, 1);
		finish_inputs(conf, path, rn->job_id, NULL);
		json_object_put(rec);
		return 1;
	}
	reconciled = jr.reconciled;
	bool may_wait = !reconciled && now - st.st_mtime < conf->bundle_deadline;
	/* which bundles are there, not yet what they hold: this runs each
	 * time a bundle arrives (casebuild drops an earlier attempt's) */
	if ((nodes = jr.nodes))
		for (size_t i = 0; i < json_object_array_length(nodes); i++) {
			char *b = spool_bundle_path(conf->state_dir, rn->job_id,
						    json_object_get_string(
							    json_object_array_get_idx(nodes, i)));

			if (!b || access(b, F_OK) < 0)
				missing++;
			free(b);
		}
	if (missing && may_wait) {
		json_object_put(rec);
		return 0; /* waiting for bundles */
	}
	if (missing)
		log_msg(LOGL_INFO, "job %s attempt %ld: %d of %zu bundles missing%s", rn->job_id, rn->attempt,
			missing, json_object_array_length(nodes), reconciled ? "" : " at BundleDeadline");
	rc = attribute(conf, cat, s, rec, path, rn, now, NULL, may_wait);
	json_object_put(rec);
	return rc;
}

/* A record of the job (this attempt again, or the next) still waiting in a
 * spool: its bundles are its own, not late ones. */
static bool record_pending(const struct attrib_config *conf, const char *job_id, long attempt)
{
	char p[PATH_MAX];

	for (long a = attempt; a <= attempt + 1; a++) {
		if (snprintf(p, sizeof(p), "%s/jobs/%s.%ld.json", conf->spool_dir, job_id, a) <
			    (int)sizeof(p) &&
		    access(p, F_OK) == 0)
			return true;
		if (snprintf(p, sizeof(p), "%s/reconcile/%s.%ld.json", conf->state_dir, job_id, a) <
			    (int)sizeof(p) &&
		    access(p, F_OK) == 0)
			return true;
	}
	return false;
}

/* Moves incoming/JOBID's bundles into done/JOBID (a node already there:
 * the same bundle sent again, dropped); their nodes into late. */
static int take_late(const struct attrib_config *conf, const char *job_id, char *late, size_t latelen)
{
	char in[PATH_MAX], from[PATH_MAX + 300], to[PATH_MAX + 300];
	DIR *d;
	struct dirent *e;
	int n = 0;

	snprintf(in, sizeof(in), "%s/incoming/%s", conf->state_dir, job_id);
	if (!(d = opendir(in)))
		return 0;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (e->d_name[0] == '.' || len <= 5 || strcmp(e->d_name + len - 5, ".json"))
			continue;
		snprintf(from, sizeof(from), "%s/%s", in, e->d_name);
		snprintf(to, sizeof(to), "%s/done/%s/%s", conf->state_dir, job_id, e->d_name);
		if (access(to, F_OK) == 0) {
			log_msg(LOGL_INFO, "job %s: %s's bundle came again after the diagnosis; dropped",
				job_id, e->d_name);
			unlink(from);
		} else if (rename(from, to) == 0) {
			size_t used = strlen(late);

			snprintf(late + used, latelen - used, "%s%.*s", used ? ", " : "", (int)(len - 5),
				 e->d_name);
			n++;
		}
	}
	closedir(d);
	return n;
}

static void revise_late(struct loop *l)
{
	const struct attrib_config *conf = l->conf;
	char dir[PATH_MAX], names[32][NAME_MAX_LEN + 1];
	size_t len;
	int nn = 0;
	DIR *d;
	struct dirent *e;

	snprintf(dir, sizeof(dir), "%s/incoming", conf->state_dir);
	if (!(d = opendir(dir)))
		return;
	while ((e = readdir(d)) && nn < 32)
		if (e->d_name[0] != '.' && contract_valid_name(e->d_name) &&
		    (len = strlen(e->d_name)) < sizeof(names[0]))
			memcpy(names[nn++], e->d_name, len + 1);
	closedir(d);
	for (int i = 0; i < nn && !stopping; i++) {
		const char *job = names[i];
		char rp[PATH_MAX + 64], in[PATH_MAX], done[PATH_MAX], err[256], late[1024] = "";
		struct record_name rn;
		struct json_object *rec;
		struct job_record_view jr;
		bool interrupted;

		if (snprintf(in, sizeof(in), "%s/%s", dir, job) >= (int)sizeof(in) ||
		    snprintf(done, sizeof(done), "%s/done/%s", conf->state_dir, job) >= (int)sizeof(done))
			continue;
		snprintf(rp, sizeof(rp), "%s/" KEPT_RECORD, in);
		if (!(interrupted = access(rp, F_OK) == 0)) {
			snprintf(rp, sizeof(rp), "%s/" KEPT_RECORD, done);
			if (access(rp, F_OK) < 0)
				continue; /* a job not diagnosed yet */
		}
		if (!(rec = json_read_file(rp, RECORD_MAX_BYTES, JSON_MAX_DEPTH, err, sizeof(err))))
			continue;
		memcpy(rn.job_id, job, strlen(job) + 1);
		job_record_read(rec, &jr, err, sizeof(err));
		rn.attempt = jr.attempt >= 0 ? jr.attempt : 0;
		if (!interrupted) {
			if (record_pending(conf, job, rn.attempt) ||
			    !take_late(conf, job, late, sizeof(late))) {
				rmdir(in); /* only duplicates: nothing new */
				json_object_put(rec);
				continue;
			}
			/* the kept inputs, the late ones among them, go back to incoming/
			 * for casebuild; a bundle that raced in meanwhile is taken too */
			for (int k = 0; k < 3 && rmdir(in) < 0; k++)
				take_late(conf, job, late, sizeof(late));
			if (rename(done, in) < 0) {
				log_msg(LOGL_WARNING, "job %s: cannot revise with the late bundles (%s): %s",
					job, late, strerror(errno));
				json_object_put(rec);
				continue;
			}
		}
		log_msg(LOGL_INFO, "job %s attempt %ld: bundles after the diagnosis (%s): revising", job,
			rn.attempt, late[0] ? late : "an interrupted revision");
		char why[1100];

		snprintf(why, sizeof(why), "%s%s", late[0] ? "late bundles from " : "",
			 late[0] ? late : "an interrupted revision, again");
		attribute(conf, l->cat, l->s, rec, NULL, &rn, time(NULL), why, false);
		json_object_put(rec);
	}
}

static int record_cb(const char *dir, const char *file, const struct record_name *rn, void *arg)
{
	struct loop *l = arg;

	if (stopping)
		return 0;
	if (serve_record(l->conf, l->cat, l->s, dir, file, rn, l->now) == 0)
		l->pending++;
	return 0;
}

/* ---- the accounting thread ---------------------------------------------- */

struct acct_arg {
	const struct attrib_config *conf;
	char db[PATH_MAX];
};

static void *accounting_thread(void *p)
{
	struct acct_arg *a = p;
	const struct attrib_config *conf = a->conf;
	char err[512];
	store *s = store_open(a->db, false, err, sizeof(err));
	long long next_reconcile = 0;

	if (!s) {
		log_msg(LOGL_ERROR, "accounting: %s", err);
		return NULL;
	}
	for (;;) {
		long long now = time(NULL);
		struct comment_item *items = NULL;
		int n = 0;

		pthread_mutex_lock(&acct_lock);
		acct_kick = false;
		pthread_mutex_unlock(&acct_lock);
		if (accounting_enabled() && conf->reconcile_interval > 0 && now >= next_reconcile) {
			int r = reconcile_run(conf, s, err, sizeof(err));

			atomic_fetch_add(&svc_metrics.reconcile_runs, 1);
			if (r < 0) {
				atomic_fetch_add(&svc_metrics.reconcile_failures, 1);
				log_msg(LOGL_WARNING, "reconcile: %s", err);
			} else if (r > 0) {
				atomic_fetch_add(&svc_metrics.reconciled_jobs, r);
				if (wake_pipe[1] >= 0 && write(wake_pipe[1], "r", 1) < 0) {
					/* the main loop looks every second anyway */
				}
			}
			next_reconcile = now + conf->reconcile_interval;
		}
		if (accounting_enabled() && (n = store_due(s, now, 50, &items)) > 0) {
			for (int i = 0; i < n; i++) {
				struct comment_item *it = &items[i];

				if (accounting_write(conf->comment_field, it->cluster, it->job_id, it->text,
						     err, sizeof(err)) == 0) {
					store_comment_done(s, it->job_id, it->attempt);
					atomic_fetch_add(&svc_metrics.comments_written, 1);
					log_msg(LOGL_INFO, "job %s attempt %ld: %s written", it->job_id,
						it->attempt, conf->comment_field);
				} else {
					long wait = comment_backoff(it->tries);

					store_comment_retry(s, it->job_id, it->attempt, now + wait);
					atomic_fetch_add(&svc_metrics.comment_failures, 1);
					log_msg(it->tries ? LOGL_INFO : LOGL_WARNING,
						"job %s attempt %ld: %s not written (try %d, again in %ld "
						"s): %s",
						it->job_id, it->attempt, conf->comment_field, it->tries + 1,
						wait, err);
				}
			}
		}
		if (items)
			store_free_items(items, n > 0 ? n : 0);
		atomic_store(&svc_metrics.comment_queue, store_pending_comments(s));

		pthread_mutex_lock(&acct_lock);
		if (!acct_stop && !acct_kick) {
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += 5;
			pthread_cond_timedwait(&acct_cond, &acct_lock, &ts);
		}
		bool stop = acct_stop;
		pthread_mutex_unlock(&acct_lock);
		if (stop)
			break;
	}
	store_close(s);
	return NULL;
}

/* ---- process set-up ----------------------------------------------------- */

static void drop_capabilities(unsigned port)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct have[2], keep[2];
	int wanted[] = { CAP_SETUID, CAP_SETGID, CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH,
			 port < 1024 ? CAP_NET_BIND_SERVICE : CAP_SETUID };

	if (geteuid() != 0)
		return;
	memset(keep, 0, sizeof(keep));
	if (syscall(SYS_capget, &hdr, have) < 0) {
		log_msg(LOGL_WARNING, "capget: %s; keeping every capability", strerror(errno));
		return;
	}
	for (size_t i = 0; i < sizeof(wanted) / sizeof(*wanted); i++) {
		unsigned c = wanted[i], w = c >> 5, bit = 1u << (c & 31);

		if (have[w].permitted & bit) {
			keep[w].permitted |= bit;
			keep[w].effective |= bit;
		}
	}
	for (int c = 0; c <= 63; c++) {
		unsigned w = c >> 5, bit = 1u << (c & 31);

		if (!(keep[w].permitted & bit) && prctl(PR_CAPBSET_READ, c, 0, 0, 0) == 1)
			prctl(PR_CAPBSET_DROP, c, 0, 0, 0);
	}
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	hdr.pid = 0;
	if (syscall(SYS_capset, &hdr, keep) < 0)
		log_msg(LOGL_WARNING, "capset: %s; keeping every capability", strerror(errno));
	else
		log_msg(LOGL_DEBUG, "capabilities kept: setuid setgid dac_override dac_read_search%s",
			port < 1024 ? " net_bind_service" : "");
}

static unsigned listen_port(const char *listen)
{
	const char *c = strrchr(listen, ':');

	return c ? (unsigned)strtoul(c + 1, NULL, 10) : 0;
}

/* Forks into the background; the parent exits when the child says it is
 * ready (0) or failed (1).  Returns the fd the child reports on. */
static int daemonize(void)
{
	int p[2];
	pid_t pid;
	char c = 1;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid > 0) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			c = 1;
		_exit(c ? 1 : 0);
	}
	close(p[0]);
	setsid();
	if (chdir("/") < 0) {
		/* stays where it was */
	}
	return p[1];
}

/* PidFile: this process's id, for an init system or an administrator
 * without systemd (kill -TERM $(cat FILE)); never through a symbolic
 * link, since the service runs as root */
static int pidfile_write(const char *path)
{
	char buf[32];
	int fd, n;

	if (!path || !*path)
		return 0;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	if (write(fd, buf, (size_t)n) != n) {
		close(fd);
		unlink(path);
		return -1;
	}
	return close(fd);
}

static void ready(int fd, bool ok)
{
	char c = ok ? 0 : 1;
	int null;

	if (fd < 0)
		return;
	if (write(fd, &c, 1) < 0) {
		/* the parent is gone */
	}
	close(fd);
	if (ok && (null = open("/dev/null", O_RDWR)) >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		if (null > 2)
			close(null);
	}
}

int serve_main(const struct attrib_config *conf, const attrib_catalog *cat, bool foreground)
{
	char err[512], db[PATH_MAX], jobs[PATH_MAX], rec[PATH_MAX];
	struct http_server *http = NULL;
	struct dashboard *dash = NULL;
	struct acct_arg aa = { .conf = conf };
	struct sigaction sa;
	pthread_t acct;
	bool acct_started = false, nodetable_started = false, pidfile = false;
	store *s = NULL;
	int report = -1, status = 1;

	umask(077);
	if (log_open(conf->log_file, 0600, !foreground) < 0) {
		fprintf(stderr, "attrib: cannot open LogFile %s: %s\n", conf->log_file, strerror(errno));
		return 1;
	}
	if (getenv("ATTRIB_DEBUG"))
		log_set_level(LOGL_DEBUG);
	log_tee(true);
	if (!foreground && (report = daemonize()) < 0) {
		fprintf(stderr, "attrib: cannot go to the background: %s\n", strerror(errno));
		return 1;
	}
	if (pidfile_write(conf->pid_file) < 0) {
		log_msg(LOGL_ERROR, "cannot write PidFile %s: %s", conf->pid_file, strerror(errno));
		goto out;
	}
	pidfile = conf->pid_file && *conf->pid_file;
	if (geteuid() != 0)
		log_msg(LOGL_WARNING,
			"not running as root: job output cannot be read as its user, "
			"and slurmdbd will refuse %s",
			conf->comment_field);
	if (pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		log_msg(LOGL_ERROR, "pipe: %s", strerror(errno));
		goto out;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);

	if (spool_prepare(conf->state_dir, err, sizeof(err)) < 0) {
		log_msg(LOGL_ERROR, "StateDir: %s", err);
		goto out;
	}
	if (health_prepare(conf->state_dir, err, sizeof(err)) < 0) {
		log_msg(LOGL_ERROR, "StateDir: %s", err);
		goto out;
	}
	snprintf(db, sizeof(db), "%s/attrib.db", conf->state_dir);
	if (!(s = store_open(db, false, err, sizeof(err)))) {
		log_msg(LOGL_ERROR, "store: %s", err);
		goto out;
	}
	accounting_init();
	spool_set_slurm_user(accounting_slurm_user());
	if (spool_check_dir(conf->spool_dir, err, sizeof(err)) < 0) {
		log_msg(LOGL_ERROR, "SpoolDir: %s", err);
		goto out;
	}
	if (nodetable_start(conf, true, err, sizeof(err)) < 0) {
		log_msg(LOGL_ERROR, "%s", err);
		goto out;
	}
	nodetable_started = true;
	{
		/* HttpConnections descriptors, DashboardConnections, and room for
		 * the store, the logs and the cases beside them */
		struct rlimit rl;
		bool dash_on = conf->dashboard && !strcmp(conf->dashboard, "on");
		rlim_t want = (rlim_t)conf->http_connections +
			(dash_on ? (rlim_t)conf->dashboard_connections : 0) + 256;

		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < want) {
			rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
			if (setrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur < want)
				log_msg(LOGL_WARNING,
					"open files limited to %lu, below HttpConnections%s + 256",
					(unsigned long)rl.rlim_cur, dash_on ? " + DashboardConnections" : "");
		}
	}
	drop_capabilities(listen_port(conf->listen));
	struct http_limits lim = {
		.connections = (unsigned)conf->http_connections,
		.per_address = (unsigned)conf->http_per_address,
		.threads = (unsigned)conf->http_threads,
		.header_timeout = (unsigned)conf->http_header_timeout,
		.idle_timeout = (unsigned)conf->http_idle_timeout,
	};
	if (!(http = http_start(conf->listen, conf->state_dir, conf->max_bundle_bytes, &lim, wake_pipe[1],
				err, sizeof(err)))) {
		log_msg(LOGL_ERROR, "%s", err);
		goto out;
	}
	if (conf->dashboard && !strcmp(conf->dashboard, "on")) {
		if (!(dash = dashboard_start(conf, cat, db, err, sizeof(err)))) {
			log_msg(LOGL_ERROR, "%s", err);
			goto out;
		}
		log_msg(LOGL_INFO, "dashboard on %s%s (read only%s)",
			conf->dashboard_tls_cert ? "https://" : "http://", conf->dashboard_listen,
			conf->dashboard_token_file ? ", bearer token" : "");
	}
	/* (threads after drop_capabilities: capabilities are per thread) */
	if (webhook_start(conf, s, db, err, sizeof(err)) < 0) {
		log_msg(LOGL_ERROR, "%s", err);
		goto out;
	}
	snprintf(aa.db, sizeof(aa.db), "%s", db);
	if (pthread_create(&acct, NULL, accounting_thread, &aa)) {
		log_msg(LOGL_ERROR, "cannot start the accounting thread");
		goto out;
	}
	acct_started = true;
	log_msg(LOGL_INFO, "attrib %s serving on %s (records: %s/jobs, state: %s)", PACKAGE_VERSION,
		conf->listen, conf->spool_dir, conf->state_dir);
	ready(report, true);
	report = -1;
	log_tee(false);

	snprintf(jobs, sizeof(jobs), "%s/jobs", conf->spool_dir);
	snprintf(rec, sizeof(rec), "%s/reconcile", conf->state_dir);
	long long next_gc = 0, next_hours_lost = 0;
	char spool_refused[sizeof(err)] = "";
	while (!stopping) {
		struct loop l = { .conf = conf, .cat = cat, .s = s, .now = time(NULL) };
		struct pollfd pfd = { .fd = wake_pipe[0], .events = POLLIN };
		char drain[64];

		if (reopen_log) {
			reopen_log = 0;
			log_open(conf->log_file, 0600, !foreground);
		}
		/* again each round: the spool may be changed while we run */
		if (spool_check_dir(conf->spool_dir, err, sizeof(err)) < 0) {
			if (strcmp(err, spool_refused)) {
				log_msg(LOGL_ERROR, "SpoolDir: %s; its records are not read", err);
				snprintf(spool_refused, sizeof(spool_refused), "%s", err);
			}
		} else {
			spool_refused[0] = 0;
			if (spool_each_record(jobs, record_cb, &l) < 0)
				log_msg(LOGL_ERROR, "cannot read %s: %s", jobs, strerror(errno));
		}
		spool_each_record(rec, record_cb, &l);
		revise_late(&l);
		health_intake(conf, s, l.now);
		atomic_store(&svc_metrics.pending_jobs, l.pending);
		if (l.now >= next_gc) {
			spool_gc(conf->state_dir, 86400 + conf->bundle_deadline);
			next_gc = l.now + 600;
		}
		/* /metrics' GPU-hours lost: a scan of the window, once a minute */
		if (conf->report_window > 0 && l.now >= next_hours_lost) {
			metrics_note_hours_lost(s, l.now - conf->report_window, l.now);
			metrics_note_accuracy(s, l.now - conf->report_window);
			next_hours_lost = l.now + 60;
		}
		if (!stopping && poll(&pfd, 1, 1000) > 0)
			while (read(wake_pipe[0], drain, sizeof(drain)) > 0)
				;
	}
	log_msg(LOGL_INFO, "stopping");
	status = 0;
out:
	ready(report, false);
	http_stop(http);
	dashboard_stop(dash);
	if (acct_started) {
		pthread_mutex_lock(&acct_lock);
		acct_stop = true;
		pthread_cond_signal(&acct_cond);
		pthread_mutex_unlock(&acct_lock);
		pthread_join(acct, NULL);
	}
	webhook_stop();
	if (nodetable_started)
		nodetable_stop();
	store_close(s);
	topology_site_free();
	if (pidfile)
		unlink(conf->pid_file);
	return status;
}
