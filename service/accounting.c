/* The summary in the job's accounting record: "attrib: <sub_domain>
 * <culprits> <root code> [<confidence>] <root title>" appended to CommentField
 * (AdminComment by default) through slurmdbd with libslurm's
 * slurmdb_job_modify.  The current value is read first (slurmdb_jobs_get):
 * the summary is appended after it with "; ", and not at all when it is
 * there already, so a retried write never doubles it. */
#include <stdio.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <slurm/slurm.h>
#include <slurm/slurmdb.h>
#include "../plugin/slurm_compat.h"
#include "accounting.h"
#include "contract.h"
#include "log.h"
#include "slurmapi.h"
#include "text.h"

static bool enabled;

char *comment_summary(struct json_object *result)
{
	struct result_view v;
	const char *sub, *code, *title;
	char *nodes, *out = NULL;

	result_view_of(result, &v);
	sub = v.sub_domain;
	code = v.root_code;
	title = v.root_title;
	if (!(nodes = result_join_culprits(&v)) && !(nodes = strdup("")))
		return NULL;
	/* sanitise each part first so that no part can fake another's place */
	char *parts[4] = { strdup(sub && *sub ? sub : "unattributed"), nodes,
			   strdup(code && *code ? code : "-"), strdup(title ? title : "") };
	for (int i = 0; i < 4; i++) {
		if (!parts[i])
			goto out;
		text_ascii_clean(parts[i], COMMENT_MAX);
		if (i < 3)
			for (char *p = parts[i]; *p; p++)
				if (*p == ' ')
					*p = '_';
	}
	/* the confidence as one of the contract's names, never the stored text */
	int conf = confidence_rank(v.confidence);
	if (asprintf(&out, "attrib: %s %s %s%s%s%s%s%s", parts[0], *parts[1] ? parts[1] : "-", parts[2],
		     conf >= 0 ? " [" : "", conf >= 0 ? contract_confidences[conf] : "", conf >= 0 ? "]" : "",
		     *parts[3] ? " " : "", parts[3]) < 0)
		out = NULL;
	else
		text_ascii_clean(out, COMMENT_MAX);
out:
	for (int i = 0; i < 4; i++)
		free(parts[i]);
	return out;
}

char *comment_append(const char *existing, const char *ours)
{
	char *out;
	const char *old;

	if (existing && strstr(existing, ours))
		return NULL;
	if (!existing || !*existing)
		return strdup(ours);
	/* a revised diagnosis (late evidence) replaces the earlier summary
	 * rather than adding a second, contradicting one */
	if (!strncmp(ours, "attrib: ", 8) &&
	    ((old = existing, !strncmp(existing, "attrib: ", 8)) || (old = strstr(existing, "; attrib: ")))) {
		const char *start = old == existing ? old : old + 2, *end = strstr(start, "; ");
		int pre = (int)(start - existing);

		if (asprintf(&out, "%.*s%s%s", pre, existing, ours, end ? end : "") < 0)
			return NULL;
		return out;
	}
	if (asprintf(&out, "%s; %s", existing, ours) < 0)
		return NULL;
	return out;
}

long comment_backoff(int tries)
{
	long s = 30;

	for (int i = 0; i < tries && s < 3600; i++)
		s *= 2;
	return s < 3600 ? s : 3600;
}

bool accounting_init(void)
{
	char why[256];

	if (!slurm_ready(why, sizeof(why))) {
		log_msg(LOGL_WARNING, "%s: accounting is off; summaries stay queued", why);
		return enabled = false;
	}
	log_msg(LOGL_INFO, "accounting through slurmdbd of cluster %s (%s)",
		slurm_conf.cluster_name ? slurm_conf.cluster_name : "?", slurm_conf_file());
	return enabled = true;
}

bool accounting_enabled(void)
{
	return enabled;
}

uid_t accounting_slurm_user(void)
{
	return enabled ? (uid_t)slurm_conf.slurm_user_id : (uid_t)-1;
}

const char *accounting_cluster(void)
{
	return enabled ? slurm_conf.cluster_name : NULL;
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
static void job_cond(slurmdb_job_cond_t *cond, slurm_selected_step_t *step, uint32_t id, list_t *clusters,
		     uint32_t flags)
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

long accounting_attempts(void *db, list_t *clusters, uint32_t id)
{
	slurmdb_job_cond_t cond;
	slurm_selected_step_t step;
	list_t *got;
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

int accounting_write(const char *comment_field, const char *cluster, const char *job_id, const char *text,
		     char *err, size_t errlen)
{
	slurmdb_job_cond_t cond;
	slurm_selected_step_t step;
	slurmdb_job_rec_t rec;
	list_t *steps = NULL, *clusters = NULL, *got = NULL, *changed = NULL;
	void *db = NULL;
	char *end, *merged = NULL;
	unsigned long id;
	int rc = -1;

	id = strtoul(job_id, &end, 10);
	if (*end || !id || id >= NO_VAL) {
		snprintf(err, errlen, "job id %s is not a number", job_id);
		return -1;
	}
	if (!enabled) {
		snprintf(err, errlen, "accounting is off (no slurm.conf)");
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
		list_itr_t *it = slurm_list_iterator_create(got);
		slurmdb_job_rec_t *j, *last = NULL;

		while ((j = slurm_list_next(it)))
			last = j;
		slurm_list_iterator_destroy(it);
		merged = comment_append(*field_of(last, comment_field), text);
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
