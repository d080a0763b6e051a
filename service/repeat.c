/* Repeat offenders: one job's evidence can leave a fault ambiguous, a
 * fleet's history rarely does.  After each diagnosis attribd looks at the
 * recent history of every node it names (store/history.c): a node named,
 * as culprit or affected, by the failures of RepeatJobs distinct jobs of
 * RepeatUsers users within RepeatWindow, each with an outcome of
 * RepeatCauses, is a bad node even when each job alone looks like the
 * user's code.  The finding is recorded apart from the diagnoses (store/
 * findings.c), which stay what their evidence says, and cites the jobs.
 *
 * What counts is data (RepeatCauses: sub-domains and root codes); the
 * scheduler's outcomes and Pass never count whatever it lists (their
 * domains in common/contract.h), nor a diagnosis whose cause nobody but
 * the job's user vouches for (its own output, files anyone may write):
 * two users could otherwise fail three jobs of their own with a printed
 * segfault and have a healthy node drained.  A finding stands for RepeatWindow: no
 * second one about the node is raised within it, so a node failing all
 * day gets one finding (and one drain decision) a window, not one a job. */
#include <stdlib.h>
#include <string.h>
#include "service.h"
#include "findings.h"
#include "history.h"

/* jobs named in a summary; the finding's job list cites every one */
#define SUMMARY_JOBS 12

struct seen_job {
	char *job_id, *user, *cause;
	long attempt;
	long long when;
};

struct tally {
	struct seen_job *v;
	size_t n, cap;
	bool oom;
};

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* One row a job attempt, oldest first: a job's attempts count once, as
 * its latest counted attempt. */
static int add_row(const struct history_row *r, void *arg)
{
	struct tally *t = arg;
	struct seen_job *j = NULL;

	for (size_t i = 0; i < t->n && !j; i++)
		if (!strcmp(t->v[i].job_id, r->job_id))
			j = &t->v[i];
	if (j && j->attempt > r->attempt)
		return 0;
	if (!j) {
		if (t->n == t->cap) {
			size_t cap = t->cap ? 2 * t->cap : 16;
			struct seen_job *v = realloc(t->v, cap * sizeof(*v));

			if (!v)
				goto oom;
			t->v = v;
			t->cap = cap;
		}
		j = &t->v[t->n++];
		memset(j, 0, sizeof(*j));
		if (!(j->job_id = strdup(r->job_id)))
			goto oom;
	}
	free(j->user);
	free(j->cause);
	j->user = dup_or_null(r->user);
	j->cause = dup_or_null(r->cause ? r->cause : "?");
	j->attempt = r->attempt;
	j->when = r->when;
	if ((r->user && !j->user) || !j->cause)
		goto oom;
	return 0;
oom:
	t->oom = true;
	return 1;
}

static void tally_free(struct tally *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].job_id);
		free(t->v[i].user);
		free(t->v[i].cause);
	}
	free(t->v);
}

static long distinct_users(const struct tally *t)
{
	long n = 0;

	for (size_t i = 0; i < t->n; i++) {
		bool before = false;

		for (size_t k = 0; k < i && !before; k++)
			before = t->v[k].user && t->v[i].user && !strcmp(t->v[k].user, t->v[i].user);
		n += t->v[i].user && *t->v[i].user && !before;
	}
	return n;
}

/* "6 h", "25 min", "2 d": the time between the first and the last job */
static void span_text(long long secs, char *buf, size_t len)
{
	if (secs < 3600)
		snprintf(buf, len, "%lld min", secs < 60 ? 1 : (secs + 30) / 60);
	else if (secs < 2 * 86400)
		snprintf(buf, len, "%lld h", (secs + 1800) / 3600);
	else
		snprintf(buf, len, "%lld d", (secs + 43200) / 86400);
}

/* Appends to buf (NUL-terminated, len bytes) what fits. */
static void cat(char *buf, size_t len, const char *s)
{
	size_t used = strlen(buf);

	if (used + 1 < len)
		snprintf(buf + used, len - used, "%s", s);
}

/* "node-17: 3 failed jobs of 3 users in 6 h: py.segfault (2),
 * cuda.unknown_error; jobs 101, 102, 103/1"; brief: "3 jobs of 3 users in
 * 6 h" (the drain reason's). */
static void summarise(const char *node, const struct tally *t, long users, char *summary, size_t len,
		      char *brief, size_t blen)
{
	char span[32], item[160];

	span_text(t->v[t->n - 1].when - t->v[0].when, span, sizeof(span));
	snprintf(summary, len, "%s: %zu failed jobs of %ld users in %s: ", node, t->n, users, span);
	snprintf(brief, blen, "%zu jobs of %ld users in %s", t->n, users, span);
	/* the causes, each once, in the order they first came, with counts */
	for (size_t i = 0; i < t->n; i++) {
		long count = 0;
		bool before = false;

		for (size_t k = 0; k < i && !before; k++)
			before = !strcmp(t->v[k].cause, t->v[i].cause);
		if (before)
			continue;
		for (size_t k = i; k < t->n; k++)
			count += !strcmp(t->v[k].cause, t->v[i].cause);
		if (count > 1)
			snprintf(item, sizeof(item), "%s%.100s (%ld)", i ? ", " : "", t->v[i].cause, count);
		else
			snprintf(item, sizeof(item), "%s%.100s", i ? ", " : "", t->v[i].cause);
		cat(summary, len, item);
	}
	cat(summary, len, "; jobs ");
	for (size_t i = 0; i < t->n && i < SUMMARY_JOBS; i++) {
		if (t->v[i].attempt > 0)
			snprintf(item, sizeof(item), "%s%.64s/%ld", i ? ", " : "", t->v[i].job_id,
				 t->v[i].attempt);
		else
			snprintf(item, sizeof(item), "%s%.64s", i ? ", " : "", t->v[i].job_id);
		cat(summary, len, item);
	}
	if (t->n > SUMMARY_JOBS) {
		snprintf(item, sizeof(item), " +%zu more", t->n - SUMMARY_JOBS);
		cat(summary, len, item);
	}
}

/* The sub-domains that never count: the scheduler's and Pass (domain
 * "none"), from contract.h's one list. */
static int excluded_sub_domains(const char **out)
{
	int n = 0;

	for (int i = 0; i < SUB_DOMAIN_N; i++) {
		const char *dom = sub_domain_domain(contract_sub_domains[i]);

		if (dom && (!strcmp(dom, "scheduler") || !strcmp(dom, "none")))
			out[n++] = contract_sub_domains[i];
	}
	return n;
}

static long long examine(const struct attrib_config *conf, store *s, const char *node, long long now,
			 char *summary, size_t len, char *brief, size_t blen)
{
	const char *excluded[SUB_DOMAIN_N];
	struct tally t = { 0 };
	struct finding_job *cited = NULL;
	long long standing, id = 0;
	long users;
	int nex = excluded_sub_domains(excluded);

	if (summary && len)
		*summary = 0;
	if (conf->repeat_jobs <= 0 || !conf->nrepeat_causes)
		return 0;
	standing = store_latest_finding(s, FINDING_REPEAT_OFFENDER, node, now - conf->repeat_window);
	if (standing)
		return standing < 0 ? -1 : 0;
	if (store_node_history(s, node, now - conf->repeat_window, (const char *const *)conf->repeat_causes,
			       conf->nrepeat_causes, excluded, nex, add_row, &t) < 0 ||
	    t.oom) {
		tally_free(&t);
		return -1;
	}
	users = distinct_users(&t);
	if ((long)t.n < conf->repeat_jobs || users < conf->repeat_users) {
		tally_free(&t);
		return 0;
	}
	if (!(cited = calloc(t.n, sizeof(*cited)))) {
		tally_free(&t);
		return -1;
	}
	for (size_t i = 0; i < t.n; i++)
		cited[i] = (struct finding_job){ t.v[i].job_id, t.v[i].attempt };
	summarise(node, &t, users, summary, len, brief, blen);
	id = store_add_finding(s, FINDING_REPEAT_OFFENDER, node, summary, cited, t.n, now);
	free(cited);
	tally_free(&t);
	return id;
}

static int add_cause(struct attrib_config *conf, const char *cause)
{
	char **v = realloc(conf->repeat_causes, (conf->nrepeat_causes + 1) * sizeof(*v));

	if (!v)
		return -1;
	conf->repeat_causes = v;
	if (!(v[conf->nrepeat_causes] = strdup(cause)))
		return -1;
	conf->nrepeat_causes++;
	return 0;
}

int repeat_causes_default(struct attrib_config *conf, const attrib_catalog *cat)
{
	enum { CODES_MAX = 256 };
	const char *codes[CODES_MAX];
	int n;

	if (conf->nrepeat_causes)
		return 0;
	for (int i = 0; i < SUB_DOMAIN_N; i++) {
		const char *d = sub_domain_domain(contract_sub_domains[i]);

		if ((!strcmp(d, "infra") || !strcmp(d, "unknown")) &&
		    add_cause(conf, contract_sub_domains[i]))
			return -1;
	}
	n = attrib_catalog_tagged_codes(cat, "repeat-cause", codes, CODES_MAX);
	for (int i = 0; i < n && i < CODES_MAX; i++)
		if (add_cause(conf, codes[i]))
			return -1;
	return 0;
}

long long repeat_examine(const struct attrib_config *conf, store *s, const char *node, long long now,
			 char *summary, size_t len)
{
	char brief[128];

	return examine(conf, s, node, now, summary, len, brief, sizeof(brief));
}

static bool in_array(struct json_object *a, const char *node)
{
	for (size_t i = 0; i < result_array_len(a); i++) {
		const char *n = result_array_str(a, i);

		if (n && !strcmp(n, node))
			return true;
	}
	return false;
}

void repeat_after(const struct attrib_config *conf, store *s, struct json_object *result, const char *job_id,
		  long attempt, long long now)
{
	struct result_view v;

	if (conf->repeat_jobs <= 0 || !result_view_of(result, &v))
		return;
	/* every node the diagnosis names, once */
	for (int culprit = 1; culprit >= 0; culprit--) {
		struct json_object *a = culprit ? v.culprit_nodes : v.affected_nodes;

		for (size_t i = 0; i < result_array_len(a); i++) {
			const char *node = result_array_str(a, i);
			char summary[1024], brief[128], reason[DRAIN_REASON_MAX + 1];
			long long id;

			if (!node || (!culprit && in_array(v.culprit_nodes, node)))
				continue;
			id = examine(conf, s, node, now, summary, sizeof(summary), brief, sizeof(brief));
			if (id < 0)
				log_msg(LOGL_ERROR, "job %s attempt %ld: cannot look at the history of %s",
					job_id, attempt, node);
			if (id <= 0)
				continue;
			atomic_fetch_add(&svc_metrics.findings_repeat, 1);
			log_msg(LOGL_WARNING, "finding %lld: repeat offender %s", id, summary);
			drain_reason_finding(brief, id, reason, sizeof(reason));
			drain_policy_apply_finding(conf, s, id, FINDING_REPEAT_OFFENDER, node, reason, job_id,
						   attempt, now);
		}
	}
}
