/* Reconciliation: jobs whose record never reached the service (jobcomp
 * queue full, slurmctld restarted, the service down) are found in slurmdbd.
 * Every job that ended in the last day in one of AttributeStates, longer
 * than BundleDeadline ago, with no stored result and no pending record, gets
 * a record written to STATE/reconcile/JOBID.ATTEMPT.json, which the main
 * loop attributes at once with whatever evidence exists (the bundles that
 * did arrive; the job's default output file, read as the job's user). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <slurm/slurm.h>
#include <slurm/slurmdb.h>
#include "../plugin/slurm_compat.h"
#include "service.h"

#define RECONCILE_WINDOW 86400
#define RECONCILE_MAX 1000	/* records written per run */

static const struct {
	const char *name;
	unsigned state;
} states[] = {
	{ "COMPLETED", JOB_COMPLETE }, { "CANCELLED", JOB_CANCELLED }, { "FAILED", JOB_FAILED },
	{ "TIMEOUT", JOB_TIMEOUT },    { "NODE_FAIL", JOB_NODE_FAIL }, { "PREEMPTED", JOB_PREEMPTED },
	{ "BOOT_FAIL", JOB_BOOT_FAIL }, { "DEADLINE", JOB_DEADLINE },  { "OUT_OF_MEMORY", JOB_OOM },
};

static const char *state_name(unsigned s)
{
	for (size_t i = 0; i < sizeof(states) / sizeof(*states); i++)
		if (states[i].state == (s & JOB_STATE_BASE))
			return states[i].name;
	return NULL;
}

/* Whether dir holds a record JOBID.*.json. */
static bool has_record(const char *dir, const char *job_id)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct record_name rn;
	bool found = false;

	if (!d)
		return false;
	while (!found && (e = readdir(d)))
		found = spool_parse_name(e->d_name, &rn) == 0 && !strcmp(rn.job_id, job_id);
	closedir(d);
	return found;
}

static void set_time(struct json_object *o, const char *k, time_t t)
{
	char buf[40];

	if (t <= 0)
		return;
	svc_rfc3339(t, buf, sizeof(buf));
	json_object_object_add(o, k, json_object_new_string(buf));
}

static void set_str(struct json_object *o, const char *k, const char *v)
{
	if (v && *v)
		json_object_object_add(o, k, json_object_new_string(v));
}

static void set_exit(struct json_object *o, const char *k, uint32_t status)
{
	char buf[32];
	int code = 0, sig = 0;

	if (status == NO_VAL)
		return;
	if (WIFSIGNALED(status))
		sig = WTERMSIG(status);
	code = WEXITSTATUS(status);
	snprintf(buf, sizeof(buf), "%d:%d", code, sig);
	json_object_object_add(o, k, json_object_new_string(buf));
}

/* How many records slurmdbd holds for the job (one per requeued attempt). */
static long attempts(void *db, list_t *clusters, uint32_t id)
{
	slurmdb_job_cond_t cond;
	slurm_selected_step_t step;
	list_t *steps = slurm_list_create(NULL), *got;
	long n = 1;

	memset(&step, 0, sizeof(step));
	step.step_id.job_id = id;
	step.step_id.step_id = NO_VAL;
	step.step_id.step_het_comp = NO_VAL;
	step.array_task_id = NO_VAL;
	step.het_job_offset = NO_VAL;
	slurm_list_append(steps, &step);
	memset(&cond, 0, sizeof(cond));
	cond.step_list = steps;
	cond.cluster_list = clusters;
	cond.flags = JOBCOND_FLAG_DUP | JOBCOND_FLAG_NO_STEP | JOBCOND_FLAG_NO_DEFAULT_USAGE;
	cond.db_flags = SLURMDB_JOB_FLAG_NOTSET;
	if ((got = slurmdb_jobs_get(db, &cond))) {
		if (slurm_list_count(got) > 0)
			n = slurm_list_count(got);
		slurm_list_destroy(got);
	}
	slurm_list_destroy(steps);
	return n;
}

static struct json_object *record_of(slurmdb_job_rec_t *j, long attempt, const char *state)
{
	struct json_object *o = json_object_new_object(), *nodes = json_object_new_array();
	char buf[PATH_MAX];

	json_object_object_add(o, "schema", json_object_new_string(ATTRIB_JOB_SCHEMA));
	snprintf(buf, sizeof(buf), "%u", j->jobid);
	json_object_object_add(o, "job_id", json_object_new_string(buf));
	set_str(o, "cluster", j->cluster);
	set_str(o, "user", j->user);
	set_str(o, "partition", j->partition);
	set_str(o, "name", j->jobname);
	if (j->nodes && strcmp(j->nodes, "None assigned")) {
		struct hostlist *hl = slurm_hostlist_create(j->nodes);
		char *h;

		while (hl && (h = slurm_hostlist_shift(hl))) {
			json_object_array_add(nodes, json_object_new_string(h));
			free(h);
		}
		if (hl)
			slurm_hostlist_destroy(hl);
	}
	json_object_object_add(o, "nodes", nodes);
	set_time(o, "submit_time", j->submit);
	set_time(o, "start_time", j->start ? j->start : j->end);
	set_time(o, "end_time", j->end);
	json_object_object_add(o, "state", json_object_new_string(state));
	set_exit(o, "exit_code", j->exitcode);
	set_exit(o, "derived_exit_code", j->derived_ec);
	json_object_object_add(o, "restart_count", json_object_new_int64(attempt));
	if (j->timelimit == INFINITE) {
		json_object_object_add(o, "time_limit", json_object_new_string("UNLIMITED"));
	} else if (j->timelimit != NO_VAL && j->timelimit) {
		unsigned m = j->timelimit;

		if (m >= 1440)
			snprintf(buf, sizeof(buf), "%u-%02u:%02u:00", m / 1440, m / 60 % 24, m % 60);
		else
			snprintf(buf, sizeof(buf), "%02u:%02u:00", m / 60, m % 60);
		json_object_object_add(o, "time_limit", json_object_new_string(buf));
	}
	json_object_object_add(o, "uid", json_object_new_int64(j->uid));
	json_object_object_add(o, "gid", json_object_new_int64(j->gid));
	set_str(o, "work_dir", j->work_dir);
	if (j->work_dir && *j->work_dir == '/') {
		/* slurmdbd does not keep the output paths: try Slurm's default */
		snprintf(buf, sizeof(buf), "%s/slurm-%u.out", j->work_dir, j->jobid);
		json_object_object_add(o, "std_out", json_object_new_string(buf));
		json_object_object_add(o, "std_out_guessed", json_object_new_boolean(1));
	}
	json_object_object_add(o, "attempt", json_object_new_int64(attempt));
	json_object_object_add(o, "reconciled", json_object_new_boolean(1));
	return o;
}

int reconcile_run(const struct attrib_config *conf, store *s, char *err, size_t errlen)
{
	slurmdb_job_cond_t cond;
	list_t *stlist, *clusters = NULL, *got;
	list_itr_t *it;
	slurmdb_job_rec_t *j;
	void *db;
	char buf[32][16], jobs_dir[PATH_MAX], rec_dir[PATH_MAX];
	time_t now = time(NULL);
	int written = 0, nstates = 0;
	const char *cluster = accounting_cluster();

	if (!accounting_enabled()) {
		snprintf(err, errlen, "accounting is off (no slurm.conf)");
		return -1;
	}
	snprintf(jobs_dir, sizeof(jobs_dir), "%s/jobs", conf->spool_dir);
	snprintf(rec_dir, sizeof(rec_dir), "%s/reconcile", conf->state_dir);
	memset(&cond, 0, sizeof(cond));
	stlist = slurm_list_create(NULL);
	for (int i = 0; i < conf->nattribute_states && nstates < 16; i++)
		for (size_t k = 0; k < sizeof(states) / sizeof(*states); k++)
			if (!strcasecmp(conf->attribute_states[i], states[k].name)) {
				snprintf(buf[nstates], sizeof(buf[nstates]), "%u", states[k].state);
				slurm_list_append(stlist, buf[nstates++]);
			}
	if (!nstates) {
		slurm_list_destroy(stlist);
		return 0;
	}
	cond.state_list = stlist;
	if (cluster) {
		clusters = slurm_list_create(NULL);
		slurm_list_append(clusters, (void *)cluster);
		cond.cluster_list = clusters;
	}
	cond.usage_start = now - RECONCILE_WINDOW;
	cond.usage_end = now;
	cond.flags = JOBCOND_FLAG_NO_STEP;
	cond.db_flags = SLURMDB_JOB_FLAG_NOTSET;

	if (!(db = slurmdb_connection_get(NULL))) {
		snprintf(err, errlen, "cannot connect to slurmdbd: %s", slurm_strerror(errno));
		written = -1;
		goto out;
	}
	if (!(got = slurmdb_jobs_get(db, &cond))) {
		snprintf(err, errlen, "slurmdbd: %s", slurm_strerror(errno));
		written = -1;
		goto out;
	}
	it = slurm_list_iterator_create(got);
	while ((j = slurm_list_next(it)) && written < RECONCILE_MAX) {
		const char *state = state_name(j->state);
		char id[32], path[PATH_MAX + 64];
		struct json_object *rec;
		long attempt;

		snprintf(id, sizeof(id), "%u", j->jobid);
		if (!state || !config_has_state(conf, state) || !j->end ||
		    now - j->end < conf->bundle_deadline + 30)
			continue;
		if (store_has_any_result(s, id) != 0 || has_record(jobs_dir, id) ||
		    has_record(rec_dir, id))
			continue;
		attempt = attempts(db, clusters, j->jobid) - 1;
		rec = record_of(j, attempt, state);
		snprintf(path, sizeof(path), "%s/%s.%ld.json", rec_dir, id, attempt);
		const char *text = json_object_to_json_string_ext(rec, JSON_C_TO_STRING_PLAIN);
		if (svc_write_atomic(path, text, strlen(text)) == 0) {
			svc_log(SVC_INFO, "reconcile: job %s attempt %ld ended %s without a result",
				id, attempt, state);
			written++;
		} else {
			svc_log(SVC_ERROR, "reconcile: cannot write %s: %s", path, strerror(errno));
		}
		json_object_put(rec);
	}
	slurm_list_iterator_destroy(it);
	slurm_list_destroy(got);
out:
	if (db)
		slurmdb_connection_close(&db);
	slurm_list_destroy(stlist);
	if (clusters)
		slurm_list_destroy(clusters);
	return written;
}
