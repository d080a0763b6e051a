/* attribd's requeue policy carried out (the decision: policy/
 * requeue_policy.h). */
#ifndef ATTRIB_REQUEUE_APPLY_H
#define ATTRIB_REQUEUE_APPLY_H

#include <json-c/json.h>
#include "conf.h"
#include "store.h"

/* attribd, after storing a new result: decides, requeues through Slurm
 * (auto), records the decision in the store, counts it in the metrics
 * and logs it.  Slurm's errors are recorded (REQUEUE_FAILED), never fatal. */
void requeue_policy_apply(const struct attrib_config *conf, store *s, struct json_object *result,
			  const char *job_id, long attempt, long long now);

#endif
