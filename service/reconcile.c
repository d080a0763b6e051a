/* Reconciliation: jobs whose record never reached the service (jobcomp
 * queue full, slurmctld restarted, the service down) are found in slurmdbd.
 * Every job that ended in the last day in one of AttributeStates, longer
 * than BundleDeadline ago, with no stored result and no pending record, gets
 * a record written to STATE/reconcile/JOBID.ATTEMPT.json, which the main
 * loop attributes at once with whatever evidence exists (the bundles that
 * did arrive; the job's default output file, read as the job's user). */
#include <stdio.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <slurm/slurm.h>
#include <slurm/slurmdb.h>
#include "../plugin/slurm_compat.h"
#include "accounting.h"
#include "conf.h"
#include "contract.h"
#include "log.h"
#include "reconcile.h"
#include "slurmapi.h"
#include "spool.h"
#include "store.h"
#include "util.h"

#define RECONCILE_WINDOW 86400
#define RECONCILE_MAX 1000 /* records written per run */

/* a finished job's state (slurmapi's names); NULL while it runs */
static const char *state_name(unsigned s)
{
	return (s & JOB_STATE_BASE) >= JOB_COMPLETE ? job_state_name(s) : NULL;
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

/* The job record of a job slurmdbd knows (common/contract.c writes it):
 * slurmdbd keeps no output paths, so std_out is Slurm's default name. */
static char *record_of(slurmdb_job_rec_t *j, long attempt, const char *state, const char *gpu_key,
		       size_t *len)
{
	char out[PATH_MAX], *h, *line = NULL;
	bool ok = true;
	struct attrib_job_record jr = {
		.job_id = j->jobid,
		.cluster = j->cluster,
		.user = j->user,
		.partition = j->partition,
		.name = j->jobname,
		.uid = j->uid,
		.gid = j->gid,
		.submit = j->submit,
		.start = j->start,
		.end = j->end,
		.state = state,
		.exit_status = j->exitcode,
		.derived_exit_status = j->derived_ec,
		.restart_count = attempt,
		.attempt = attempt,
		.time_limit = j->timelimit ? j->timelimit : JOB_RECORD_NO_VAL,
		.array_task_id = JOB_RECORD_NO_VAL,
		.work_dir = j->work_dir,
		/* slurmdbd's TRES by id ("1=2,...,1001=8"): gres/gpu's is gpu_key */
		.gpus = gpu_key ? job_tres_gpus(j->tres_alloc_str, gpu_key,
						job_tres_accounts_gpu(slurm_conf.accounting_storage_tres))
				: -1,
		.reconciled = true,
	};

	if (j->nodes && strcmp(j->nodes, "None assigned")) {
		struct hostlist *hl = slurm_hostlist_create(j->nodes);

		while (ok && hl && (h = slurm_hostlist_shift(hl)))
			ok = job_record_add_node(&jr, h);
		if (hl)
			slurm_hostlist_destroy(hl);
	}
	if (j->work_dir && *j->work_dir == '/') {
		snprintf(out, sizeof(out), "%s/slurm-%u.out", j->work_dir, j->jobid);
		jr.std_out = out;
		jr.std_out_guessed = true;
	}
	if (ok)
		line = job_record_json(&jr, len);
	job_record_free_nodes(&jr);
	return line;
}

/* The id slurmdbd gives TRES gres/gpu, as a TRES string's key ("1001"),
 * in key; false when it has none (GPU counts are then not known). */
static bool gpu_tres_key(void *db, char *key, size_t len)
{
	slurmdb_tres_cond_t cond;
	list_t *got, *types = slurm_list_create(NULL), *names = slurm_list_create(NULL);
	slurmdb_tres_rec_t *t;
	bool found = false;

	memset(&cond, 0, sizeof(cond));
	slurm_list_append(types, (void *)"gres");
	slurm_list_append(names, (void *)"gpu");
	cond.type_list = types;
	cond.name_list = names;
	if ((got = slurmdb_tres_get(db, &cond))) {
		list_itr_t *it = slurm_list_iterator_create(got);

		while (!found && (t = slurm_list_next(it)))
			if (t->type && !strcasecmp(t->type, "gres") && t->name &&
			    !strcasecmp(t->name, "gpu")) {
				snprintf(key, len, "%u", t->id);
				found = true;
			}
		slurm_list_iterator_destroy(it);
		slurm_list_destroy(got);
	}
	slurm_list_destroy(types);
	slurm_list_destroy(names);
	return found;
}

int reconcile_run(const struct attrib_config *conf, store *s, char *err, size_t errlen)
{
	slurmdb_job_cond_t cond;
	list_t *stlist, *clusters = NULL, *got;
	list_itr_t *it;
	slurmdb_job_rec_t *j;
	void *db;
	char buf[32][16], jobs_dir[PATH_MAX], rec_dir[PATH_MAX], gpu_key[16];
	bool have_gpu_key;
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
		for (unsigned k = JOB_COMPLETE; k < JOB_END; k++)
			if (job_state_name(k) && !strcasecmp(conf->attribute_states[i], job_state_name(k))) {
				snprintf(buf[nstates], sizeof(buf[nstates]), "%u", k);
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
	have_gpu_key = gpu_tres_key(db, gpu_key, sizeof(gpu_key));
	it = slurm_list_iterator_create(got);
	while ((j = slurm_list_next(it)) && written < RECONCILE_MAX) {
		const char *state = state_name(j->state);
		char id[32], path[PATH_MAX + 64];
		char *rec;
		size_t len = 0;
		long attempt;

		snprintf(id, sizeof(id), "%u", j->jobid);
		if (!state || !config_has_state(conf, state) || !j->end ||
		    now - j->end < conf->bundle_deadline + 30)
			continue;
		if (store_has_any_result(s, id) != 0 || has_record(jobs_dir, id) || has_record(rec_dir, id))
			continue;
		attempt = accounting_attempts(db, clusters, j->jobid) - 1;
		rec = record_of(j, attempt, state, have_gpu_key ? gpu_key : NULL, &len);
		snprintf(path, sizeof(path), "%s/%s.%ld.json", rec_dir, id, attempt);
		if (rec && svc_write_atomic(path, rec, len) == 0) {
			log_msg(LOGL_INFO, "reconcile: job %s attempt %ld ended %s without a result", id,
				attempt, state);
			written++;
		} else {
			log_msg(LOGL_ERROR, "reconcile: cannot write %s: %s", path,
				rec ? strerror(errno) : "out of memory");
		}
		free(rec);
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
