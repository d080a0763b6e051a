#ifndef ATTRIB_NODES_H
#define ATTRIB_NODES_H
#include <stdbool.h>
#include <stdio.h>
#include "service.h"

/* attrib nodes: the nodes of the results stored since since, ranked by
 * the faults blamed on them (then how often affected, then last seen), at
 * most limit (0: all), as text for an 80-column terminal or as JSON.  The
 * Slurm state is "unknown" (with a note on stderr) when slurmctld cannot be
 * asked.  0, or -1 when the store cannot be read. */
int nodes_report(store *s, long long since, int limit, bool json, FILE *out);
#endif
