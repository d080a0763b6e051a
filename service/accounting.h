/* attribd, accounting.c: the summary in the job's accounting record. */
#ifndef ATTRIB_ACCOUNTING_H
#define ATTRIB_ACCOUNTING_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define COMMENT_MAX 250

/* "attrib: <sub_domain> <culprits,comma|-> <root code|-> [<root title>]",
 * sanitised; the caller frees. */
char *comment_summary(struct json_object *result);
/* existing + "; " + ours, or NULL when existing already holds ours. */
char *comment_append(const char *existing, const char *ours);
/* Seconds before the next try after tries failures (30 s doubling to 1 h). */
long comment_backoff(int tries);

/* slurm_init when a slurm.conf can be found; false: accounting is off and
 * comments stay queued. */
bool accounting_init(void);
bool accounting_enabled(void);
/* SlurmUser from slurm.conf, (uid_t)-1 when accounting is off. */
uid_t accounting_slurm_user(void);
/* The local cluster's name from slurm.conf (NULL when accounting is off). */
const char *accounting_cluster(void);
/* Appends text to the job's comment_field (AdminComment, Comment or
 * SystemComment) through slurmdbd unless it is there already.  0 done,
 * -1 to retry later (with a reason). */
int accounting_write(const char *comment_field, const char *cluster, const char *job_id, const char *text,
		     char *err, size_t errlen);

#endif
