/* attribd's drain policy carried out (the decisions: policy/drain_policy.h). */
#ifndef ATTRIB_DRAIN_APPLY_H
#define ATTRIB_DRAIN_APPLY_H

#include <json-c/json.h>
#include "attrib.h"
#include "conf.h"
#include "drain_policy.h"
#include "store.h"

/* attribd, after storing a new result: decides, drains through Slurm
 * (auto), records each decision in the store, counts it in the metrics and
 * logs it.  Slurm's errors are recorded (DRAIN_FAILED), never fatal. */
void drain_policy_apply(const struct attrib_config *conf, const attrib_catalog *cat, store *s,
			struct json_object *result, const char *job_id, long attempt, long long now);
/* attribd, after raising finding (about node, of class_name): as
 * drain_policy_apply, each decision recorded under the job attempt whose
 * diagnosis raised it, naming the finding. */
void drain_policy_apply_finding(const struct attrib_config *conf, store *s, long long finding,
				const char *class_name, const char *node, const char *reason,
				const char *job_id, long attempt, long long now);
/* Records a refusal, "switch SW blamed", for every node the result would
 * drain and every node under the switch it names (switchfind.h). */
void drain_policy_refuse_switch(store *s, struct json_object *result, const char *job_id, long attempt,
				const char *sw, long long now);

#endif
