/* slurmdbd, for attribd: the accounting record's comment field a summary
 * is appended to (slurmdb_jobs_get, then slurmdb_job_modify), the jobs
 * that ended (reconciliation), and what slurm.conf says of the cluster.
 *
 * Slurm's list types are named `struct xlist *` and `struct listIterator
 * *`: List and ListIterator in 22.05, list_t and list_itr_t in 24.11, the
 * same structures in both. */
#include <errno.h>
#include <slurm/slurm.h>
#include <slurm/slurmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "slurmapi.h"

/* slurm.conf as slurm_init() read it: libslurm exports it in 22.05 and
 * 24.11, <slurm/slurm.h> declares only its type. */
extern slurm_conf_t slurm_conf;

const char *slurm_cluster_name(void)
{
	return slurm_conf.cluster_name;
}

uid_t slurm_user_id(void)
{
	return (uid_t)slurm_conf.slurm_user_id;
}

static char **field_of(slurmdb_job_rec_t *rec, const char *comment_field)
{
	if (!strcmp(comment_field, "Comment"))
		return &rec->derived_es;
	if (!strcmp(comment_field, "SystemComment"))
		return &rec->system_comment;
	return &rec->admin_comment;
}

/* A condition on one job id of slurmdbd's (flags: every attempt or the
 * latest), in clusters (NULL: slurmdbd's default); *step is its step
 * list's one entry.  The caller destroys cond->step_list. */
static void job_cond(slurmdb_job_cond_t *cond, slurm_selected_step_t *step, uint32_t id,
		     struct xlist *clusters, uint32_t flags)
{
	memset(step, 0, sizeof(*step));
	step->step_id.job_id = id;
	step->step_id.step_id = NO_VAL;
	step->step_id.step_het_comp = NO_VAL;
	step->array_task_id = NO_VAL;
	step->het_job_offset = NO_VAL;
	memset(cond, 0, sizeof(*cond));
	cond->step_list = slurm_list_create(NULL);
	slurm_list_append(cond->step_list, step);
	cond->cluster_list = clusters;
	cond->flags = flags;
	cond->db_flags = SLURMDB_JOB_FLAG_NOTSET;
}

/* How many records slurmdbd (connection db) holds for the job in clusters
 * (NULL: the default): one per requeued attempt. */
static long attempts(void *db, struct xlist *clusters, uint32_t id)
{
	slurmdb_job_cond_t cond;
	slurm_selected_step_t step;
	struct xlist *got;
	long n = 1;

	job_cond(&cond, &step, id, clusters,
		 JOBCOND_FLAG_DUP | JOBCOND_FLAG_NO_STEP | JOBCOND_FLAG_NO_DEFAULT_USAGE);
	if ((got = slurmdb_jobs_get(db, &cond))) {
		if (slurm_list_count(got) > 0)
			n = slurm_list_count(got);
		slurm_list_destroy(got);
	}
	slurm_list_destroy(cond.step_list);
	return n;
}

int acct_comment_update(const char *comment_field, const char *cluster, const char *job_id,
			char *(*merge)(const char *existing, void *arg), void *arg, char *err, size_t errlen)
{
	slurmdb_job_cond_t cond;
	slurm_selected_step_t step;
	slurmdb_job_rec_t rec;
	struct xlist *steps = NULL, *clusters = NULL, *got = NULL, *changed = NULL;
	void *db = NULL;
	char *end, *merged = NULL;
	unsigned long id;
	int rc = -1;

	id = strtoul(job_id, &end, 10);
	if (*end || !id || id >= NO_VAL) {
		snprintf(err, errlen, "job id %s is not a number", job_id);
		return -1;
	}
	if (!cluster || !*cluster)
		cluster = slurm_conf.cluster_name;
	if (cluster) {
		clusters = slurm_list_create(NULL);
		slurm_list_append(clusters, (void *)cluster);
	}
	job_cond(&cond, &step, (uint32_t)id, clusters, JOBCOND_FLAG_NO_STEP | JOBCOND_FLAG_NO_DEFAULT_USAGE);
	steps = cond.step_list;

	if (!(db = slurmdb_connection_get(NULL))) {
		snprintf(err, errlen, "cannot connect to slurmdbd: %s", slurm_strerror(errno));
		goto out;
	}
	got = slurmdb_jobs_get(db, &cond);
	if (!got) {
		snprintf(err, errlen, "reading job %s from slurmdbd failed: %s", job_id,
			 slurm_strerror(errno));
		goto out;
	}
	if (slurm_list_count(got) == 0) {
		snprintf(err, errlen, "job %s is not in slurmdbd yet", job_id);
		goto out;
	}
	{
		/* without JOBCOND_FLAG_DUP: the job's latest record, the one
		 * slurmdb_job_modify changes */
		struct listIterator *it = slurm_list_iterator_create(got);
		slurmdb_job_rec_t *j, *last = NULL;

		while ((j = slurm_list_next(it)))
			last = j;
		slurm_list_iterator_destroy(it);
		merged = merge(*field_of(last, comment_field), arg);
	}
	if (!merged) {
		rc = 0; /* there already (an earlier try got through) */
		goto out;
	}
	memset(&rec, 0, sizeof(rec));
	rec.derived_ec = NO_VAL;
	*field_of(&rec, comment_field) = merged;
	cond.flags = JOBCOND_FLAG_NO_DEFAULT_USAGE;
	changed = slurmdb_job_modify(db, &cond, &rec);
	if (!changed || slurm_list_count(changed) == 0) {
		snprintf(err, errlen, "slurmdbd changed nothing for job %s: %s", job_id,
			 slurm_strerror(errno));
		slurmdb_connection_commit(db, 0);
		goto out;
	}
	if (slurmdb_connection_commit(db, 1) != SLURM_SUCCESS) {
		snprintf(err, errlen, "commit to slurmdbd failed: %s", slurm_strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (changed)
		slurm_list_destroy(changed);
	if (got)
		slurm_list_destroy(got);
	if (db)
		slurmdb_connection_close(&db);
	slurm_list_destroy(steps);
	if (clusters)
		slurm_list_destroy(clusters);
	free(merged);
	return rc;
}

/* The id slurmdbd gives TRES gres/gpu, as a TRES string's key ("1001"),
 * in key; false when it has none (GPU counts are then not known). */
static bool gpu_tres_key(void *db, char *key, size_t len)
{
	slurmdb_tres_cond_t cond;
	struct xlist *got, *types = slurm_list_create(NULL), *names = slurm_list_create(NULL);
	slurmdb_tres_rec_t *t;
	bool found = false;

	memset(&cond, 0, sizeof(cond));
	slurm_list_append(types, (void *)"gres");
	slurm_list_append(names, (void *)"gpu");
	cond.type_list = types;
	cond.name_list = names;
	if ((got = slurmdb_tres_get(db, &cond))) {
		struct listIterator *it = slurm_list_iterator_create(got);

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

struct acct_scan {
	void *db;
	struct xlist *clusters;
};

long acct_job_attempts(const struct acct_job *j)
{
	const struct acct_scan *sc = j->scan;

	return attempts(sc->db, sc->clusters, j->rec.job_id);
}

int acct_jobs_ended(char *const *states, int nstates, const char *cluster, long long since, long long until,
		    int (*fn)(const struct acct_job *j, void *arg), void *arg, char *err, size_t errlen)
{
	slurmdb_job_cond_t cond;
	struct xlist *stlist, *got;
	struct listIterator *it;
	slurmdb_job_rec_t *j;
	struct acct_scan sc = { 0 };
	char buf[32][16], gpu_key[16];
	bool have_gpu_key;
	int n = 0, nst = 0;

	memset(&cond, 0, sizeof(cond));
	stlist = slurm_list_create(NULL);
	for (int i = 0; i < nstates && nst < 32; i++)
		for (unsigned k = JOB_COMPLETE; k < JOB_END && nst < 32; k++)
			if (job_state_name(k) && !strcasecmp(states[i], job_state_name(k))) {
				snprintf(buf[nst], sizeof(buf[nst]), "%u", k);
				slurm_list_append(stlist, buf[nst++]);
			}
	if (!nst) {
		slurm_list_destroy(stlist);
		return 0;
	}
	cond.state_list = stlist;
	if (cluster) {
		sc.clusters = slurm_list_create(NULL);
		slurm_list_append(sc.clusters, (void *)cluster);
		cond.cluster_list = sc.clusters;
	}
	cond.usage_start = (time_t)since;
	cond.usage_end = (time_t)until;
	cond.flags = JOBCOND_FLAG_NO_STEP;
	cond.db_flags = SLURMDB_JOB_FLAG_NOTSET;

	if (!(sc.db = slurmdb_connection_get(NULL))) {
		snprintf(err, errlen, "cannot connect to slurmdbd: %s", slurm_strerror(errno));
		n = -1;
		goto out;
	}
	if (!(got = slurmdb_jobs_get(sc.db, &cond))) {
		snprintf(err, errlen, "slurmdbd: %s", slurm_strerror(errno));
		n = -1;
		goto out;
	}
	have_gpu_key = gpu_tres_key(sc.db, gpu_key, sizeof(gpu_key));
	it = slurm_list_iterator_create(got);
	while ((j = slurm_list_next(it))) {
		struct acct_job aj = {
			.rec = {
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
				/* a finished job's state; NULL while it runs */
				.state = (j->state & JOB_STATE_BASE) >= JOB_COMPLETE ? job_state_name(j->state)
										     : NULL,
				.exit_status = j->exitcode,
				.derived_exit_status = j->derived_ec,
				.time_limit = j->timelimit ? j->timelimit : JOB_RECORD_NO_VAL,
				.array_task_id = JOB_RECORD_NO_VAL,
				.work_dir = j->work_dir,
				.gpus = -1,
				.reconciled = true,
			},
			.nodes = j->nodes && strcmp(j->nodes, "None assigned") ? j->nodes : NULL,
			.tres_alloc = j->tres_alloc_str,
			.gpu_key = have_gpu_key ? gpu_key : NULL,
			.storage_tres = slurm_conf.accounting_storage_tres,
			.scan = &sc,
		};

		n++;
		if (fn(&aj, arg))
			break;
	}
	slurm_list_iterator_destroy(it);
	slurm_list_destroy(got);
out:
	if (sc.db)
		slurmdb_connection_close(&sc.db);
	slurm_list_destroy(stlist);
	if (sc.clusters)
		slurm_list_destroy(sc.clusters);
	return n;
}
