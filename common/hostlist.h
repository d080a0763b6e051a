/* Slurm hostlist expressions ("node-[01-04,07],gpu1", "r[1-2]-n[1-4]"):
 * one expander for the engine (the job's node lists, slurmctld's lines)
 * and the topology reader (topology.conf's Nodes= and Switches=). */
#ifndef ATTRIB_HOSTLIST_H
#define ATTRIB_HOSTLIST_H

#include <stdbool.h>

/* Calls add(arg, name) for each name list expands to, in order.  False
 * when list is not a hostlist (an unclosed bracket, a range that is not
 * numbers), a name is longer than 255 bytes, it would expand to more than
 * max names, or add returned false. */
bool hostlist_each(const char *list, int max, bool (*add)(void *arg, const char *name), void *arg);

#endif
