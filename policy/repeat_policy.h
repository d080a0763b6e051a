/* Repeat offenders (RepeatWindow, RepeatJobs, RepeatUsers, RepeatCauses):
 * whether a node's recent history makes it one, pure; attribd reads the
 * history and records the finding (service/repeat_apply.h). */
#ifndef ATTRIB_REPEAT_POLICY_H
#define ATTRIB_REPEAT_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include "attrib.h"
#include "conf.h"
#include "history.h" /* struct history_row */

/* A node's history, one entry a job (its latest counted attempt), oldest
 * first. */
struct repeat_job {
	char *job_id, *user, *cause;
	long attempt;
	long long when;
};
struct repeat_tally {
	struct repeat_job *v;
	size_t n, cap;
	bool oom; /* an entry could not be kept: the tally is not to be used */
};
/* store_node_history's callback (arg: a zeroed struct repeat_tally). */
int repeat_tally_add(const struct history_row *r, void *arg);
void repeat_tally_free(struct repeat_tally *t);
/* The sub-domains that never count whatever RepeatCauses lists: the
 * scheduler's and Pass (common/contract.h's domains); out holds
 * SUB_DOMAIN_N.  Returns how many. */
int repeat_excluded_sub_domains(const char **out);
/* RepeatJobs above 0 and RepeatCauses not empty. */
bool repeat_on(const struct attrib_config *conf);
/* Whether the tally makes node a repeat offender: RepeatJobs distinct jobs
 * or more, of RepeatUsers users or more.  When it does, summary ("node-17:
 * 3 failed jobs of 3 users in 6 h: py.segfault (2), cuda.unknown_error;
 * jobs 101, 102, 103/1") and brief ("3 jobs of 3 users in 6 h", for the
 * drain reason). */
bool repeat_offender(const struct attrib_config *conf, const char *node, const struct repeat_tally *t,
		     char *summary, size_t len, char *brief, size_t blen);
/* RepeatCauses not set: fills it in with its default, which names no
 * failure in C: the sub-domains of the domains infra and unknown
 * (common/contract.h) and the codes the rules tag repeat-cause.  At
 * start, after the catalog is loaded; -1 when out of memory. */
int repeat_causes_default(struct attrib_config *conf, const attrib_catalog *cat);

#endif
