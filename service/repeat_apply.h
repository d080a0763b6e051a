/* Repeat offenders found and acted on by attribd (the decision: policy/
 * repeat_policy.h). */
#ifndef ATTRIB_REPEAT_APPLY_H
#define ATTRIB_REPEAT_APPLY_H

#include <json-c/json.h>
#include <stddef.h>
#include "conf.h"
#include "store.h"

/* Looks at node's history in the store at now: when the diagnoses naming
 * it within RepeatWindow, with one of RepeatCauses, are of RepeatJobs
 * distinct jobs or more and RepeatUsers users or more, and no
 * repeat-offender finding about it stands (raised within RepeatWindow),
 * records one citing the jobs (each job's latest counted attempt).  Its id
 * (and its summary in summary), 0 when none was raised, -1 on error. */
long long repeat_examine(const struct attrib_config *conf, store *s, const char *node, long long now,
			 char *summary, size_t len);
/* attribd, after storing a diagnosis: repeat_examine for every node it
 * names; each finding raised is logged, counted in the metrics and given
 * to the drain policy (class repeat-offender) under job_id/attempt. */
void repeat_after(const struct attrib_config *conf, store *s, struct json_object *result, const char *job_id,
		  long attempt, long long now);

#endif
