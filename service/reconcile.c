/* Reconciliation: jobs whose record never reached the service (jobcomp
 * queue full, slurmctld restarted, the service down) are found in slurmdbd.
 * Every job that ended in the last day in one of AttributeStates, longer
 * than BundleDeadline ago, with no stored result and no pending record, gets
 * a record written to STATE/reconcile/JOBID.ATTEMPT.json, which the main
 * loop attributes at once with whatever evidence exists (the bundles that
 * did arrive; the job's default output file, read as the job's user).
 * slurmdbd through slurmapi/accounting.c. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "accounting.h"
#include "conf.h"
#include "contract.h"
#include "hostlist.h"
#include "log.h"
#include "reconcile.h"
#include "slurmapi.h"
#include "spool.h"
#include "store.h"
#include "util.h"

#define RECONCILE_WINDOW 86400
#define RECONCILE_MAX 1000	  /* records written per run */
#define RECONCILE_NODES_MAX 65536 /* names a job's host list may expand to */

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

struct node_names {
	struct attrib_job_record *jr;
	bool oom;
};

static bool add_node(void *arg, const char *name)
{
	struct node_names *nn = arg;
	char *h = strdup(name);

	if (!h || !job_record_add_node(nn->jr, h)) /* (which frees h) */
		nn->oom = true;
	return !nn->oom;
}

/* The job record of a job slurmdbd knows (common/contract.c writes it):
 * slurmdbd keeps no output paths, so std_out is Slurm's default name. */
static char *record_of(const struct acct_job *j, long attempt, size_t *len)
{
	char out[PATH_MAX], *line = NULL;
	struct attrib_job_record jr = j->rec;
	struct node_names nn = { &jr, false };

	jr.restart_count = jr.attempt = attempt;
	/* slurmdbd's TRES by id ("1=2,...,1001=8"): gres/gpu's is gpu_key */
	if (j->gpu_key)
		jr.gpus = job_tres_gpus(j->tres_alloc, j->gpu_key, job_tres_accounts_gpu(j->storage_tres));
	/* (a list attrib cannot read: the record with the names read before) */
	if (j->nodes)
		hostlist_each(j->nodes, RECONCILE_NODES_MAX, add_node, &nn);
	if (jr.work_dir && *jr.work_dir == '/') {
		snprintf(out, sizeof(out), "%s/slurm-%u.out", jr.work_dir, jr.job_id);
		jr.std_out = out;
		jr.std_out_guessed = true;
	}
	if (!nn.oom)
		line = job_record_json(&jr, len);
	job_record_free_nodes(&jr);
	return line;
}

struct run {
	const struct attrib_config *conf;
	store *s;
	char jobs_dir[PATH_MAX], rec_dir[PATH_MAX];
	long long now;
	int written;
};

static int one_job(const struct acct_job *j, void *arg)
{
	struct run *r = arg;
	char id[32], path[PATH_MAX + 64];
	char *rec;
	size_t len = 0;
	long attempt;

	snprintf(id, sizeof(id), "%u", j->rec.job_id);
	if (!j->rec.state || !config_has_state(r->conf, j->rec.state) || !j->rec.end ||
	    r->now - j->rec.end < r->conf->bundle_deadline + 30)
		return 0;
	if (store_has_any_result(r->s, id) != 0 || has_record(r->jobs_dir, id) || has_record(r->rec_dir, id))
		return 0;
	attempt = acct_job_attempts(j) - 1;
	rec = record_of(j, attempt, &len);
	snprintf(path, sizeof(path), "%s/%s.%ld.json", r->rec_dir, id, attempt);
	if (rec && svc_write_atomic(path, rec, len) == 0) {
		log_msg(LOGL_INFO, "reconcile: job %s attempt %ld ended %s without a result", id, attempt,
			j->rec.state);
		r->written++;
	} else {
		log_msg(LOGL_ERROR, "reconcile: cannot write %s: %s", path,
			rec ? strerror(errno) : "out of memory");
	}
	free(rec);
	return r->written >= RECONCILE_MAX;
}

int reconcile_run(const struct attrib_config *conf, store *s, char *err, size_t errlen)
{
	struct run r = { .conf = conf, .s = s, .now = (long long)time(NULL) };

	if (!accounting_enabled()) {
		snprintf(err, errlen, "accounting is off (no slurm.conf)");
		return -1;
	}
	snprintf(r.jobs_dir, sizeof(r.jobs_dir), "%s/jobs", conf->spool_dir);
	snprintf(r.rec_dir, sizeof(r.rec_dir), "%s/reconcile", conf->state_dir);
	if (acct_jobs_ended(conf->attribute_states, conf->nattribute_states, accounting_cluster(),
			    r.now - RECONCILE_WINDOW, r.now, one_job, &r, err, errlen) < 0)
		return -1;
	return r.written;
}
