/* attribd, health_intake.c: nodes' health checks, taken in. */
#ifndef ATTRIB_HEALTH_INTAKE_H
#define ATTRIB_HEALTH_INTAKE_H

#include <stddef.h>
#include "conf.h"
#include "store.h"

/* STATE/health, where http.c keeps each node's latest report. */
int health_prepare(const char *state_dir, char *err, size_t errlen);
/* Each report in STATE/health recorded in the store and removed; a passing
 * one asks undrain (Undrain = suggest|auto). */
void health_intake(const struct attrib_config *conf, store *s, long long now);

#endif
