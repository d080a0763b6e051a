/* attribd, reconcile.c: jobs slurmdbd knows and attribd never saw. */
#ifndef ATTRIB_RECONCILE_H
#define ATTRIB_RECONCILE_H

#include <stddef.h>
#include "conf.h"
#include "store.h"

/* Asks slurmdbd for jobs that ended in the last day in AttributeStates and
 * have no stored result; writes a record for each into STATE/reconcile/
 * for the main loop.  Returns how many, or -1. */
int reconcile_run(const struct attrib_config *conf, store *s, char *err, size_t errlen);

#endif
