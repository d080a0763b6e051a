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
 * day gets one finding (and one drain decision) a window, not one a job.
 *
 * Here the decision, on a node's history as the store gives it; attribd
 * reads the store, records the finding and hands it to the drain policy
 * (service/repeat_apply.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "attrib.h"
#include "conf.h"
#include "contract.h"
#include "history.h"
#include "repeat_policy.h"
#include "xalloc.h"

/* jobs named in a summary; the finding's job list cites every one */
#define SUMMARY_JOBS 12

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* One row a job attempt, oldest first: a job's attempts count once, as
 * its latest counted attempt. */
int repeat_tally_add(const struct history_row *r, void *arg)
{
	struct repeat_tally *t = arg;
	struct repeat_job *j = NULL;

	for (size_t i = 0; i < t->n && !j; i++)
		if (!strcmp(t->v[i].job_id, r->job_id))
			j = &t->v[i];
	if (j && j->attempt > r->attempt)
		return 0;
	if (!j) {
		struct repeat_job *v = array_room(t->v, &t->cap, t->n, sizeof(*v), 16);

		if (!v)
			goto oom;
		t->v = v;
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

void repeat_tally_free(struct repeat_tally *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].job_id);
		free(t->v[i].user);
		free(t->v[i].cause);
	}
	free(t->v);
}

static long distinct_users(const struct repeat_tally *t)
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
static void summarise(const char *node, const struct repeat_tally *t, long users, char *summary, size_t len,
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
int repeat_excluded_sub_domains(const char **out)
{
	int n = 0;

	for (int i = 0; i < SUB_DOMAIN_N; i++) {
		const char *dom = sub_domain_domain(contract_sub_domains[i]);

		if (dom && (!strcmp(dom, "scheduler") || !strcmp(dom, "none")))
			out[n++] = contract_sub_domains[i];
	}
	return n;
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

bool repeat_on(const struct attrib_config *conf)
{
	return conf->repeat_jobs > 0 && conf->nrepeat_causes;
}

bool repeat_offender(const struct attrib_config *conf, const char *node, const struct repeat_tally *t,
		     char *summary, size_t len, char *brief, size_t blen)
{
	long users = distinct_users(t);

	if ((long)t->n < conf->repeat_jobs || users < conf->repeat_users)
		return false;
	summarise(node, t, users, summary, len, brief, blen);
	return true;
}
