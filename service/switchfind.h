/* Lost links under one leaf switch, across jobs: attribd's search of its
 * store (what blames a switch: policy/switch_policy.h). */
#ifndef ATTRIB_SWITCHFIND_H
#define ATTRIB_SWITCHFIND_H

#include <json-c/json.h>
#include <stddef.h>
#include "conf.h"
#include "store.h"

/* After a result is stored: 1 with the switch's name in sw when it blames
 * a leaf switch (its own culprit_switch, or lost links of other stored
 * results under the same leaf within SwitchWindow, SwitchMinNodes nodes in
 * all): a FINDING_SWITCH is recorded (one per switch an hour).  0 when
 * not. */
int switch_finding(const struct attrib_config *conf, store *s, struct json_object *res, const char *job_id,
		   long attempt, long long now, char *sw, size_t swlen);

#endif
