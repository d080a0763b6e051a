/* The summary in the job's accounting record: "attrib: <sub_domain>
 * <culprits> <root code> [<confidence>] <root title>" appended to CommentField
 * (AdminComment by default) through slurmdbd (slurmapi/accounting.c:
 * slurmdb_job_modify).  The current value is read first (slurmdb_jobs_get):
 * the summary is appended after it with "; ", and not at all when it is
 * there already, so a retried write never doubles it. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
	const char *cluster;

	if (!slurm_ready(why, sizeof(why))) {
		log_msg(LOGL_WARNING, "%s: accounting is off; summaries stay queued", why);
		return enabled = false;
	}
	cluster = slurm_cluster_name();
	log_msg(LOGL_INFO, "accounting through slurmdbd of cluster %s (%s)", cluster ? cluster : "?",
		slurm_conf_file());
	return enabled = true;
}

bool accounting_enabled(void)
{
	return enabled;
}

uid_t accounting_slurm_user(void)
{
	return enabled ? slurm_user_id() : (uid_t)-1;
}

const char *accounting_cluster(void)
{
	return enabled ? slurm_cluster_name() : NULL;
}

static char *merge(const char *existing, void *ours)
{
	return comment_append(existing, ours);
}

int accounting_write(const char *comment_field, const char *cluster, const char *job_id, const char *text,
		     char *err, size_t errlen)
{
	if (!enabled) {
		snprintf(err, errlen, "accounting is off (no slurm.conf)");
		return -1;
	}
	return acct_comment_update(comment_field, cluster, job_id, merge, (void *)text, err, errlen);
}
