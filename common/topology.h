/* The network's tree as Slurm describes it: which leaf switch each node
 * hangs from and which switch is each switch's parent.  Read from Slurm's
 * own files, topology.conf (topology/tree: SwitchName= Nodes= Switches=)
 * or topology.yaml (23.11+: the cluster_default tree topology), by the
 * engine (a case's scheduler/topology.*) and by attribd (TopologyFile).
 * One parser, so both see the same tree. */
#ifndef ATTRIB_TOPOLOGY_H
#define ATTRIB_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>

struct topology;

/* Limits: bad or hostile input is refused with a reason, never a crash. */
#define TOPOLOGY_MAX_BYTES (8L << 20) /* the file */
#define TOPOLOGY_MAX_NAMES 262144     /* nodes and switches, expanded */

/* The names Slurm gives its topology file, in the order it looks for them
 * (topology.yaml first when both are there): beside slurm.conf on the
 * site, at the top of a case directory. */
#define TOPOLOGY_NAMES 2
extern const char *const topology_names[TOPOLOGY_NAMES];
/* Whether path is read as topology.yaml: its name ends in .yaml or .yml. */
bool topology_is_yaml(const char *path);

/* Reads path: topology.yaml when topology_is_yaml, else topology.conf.
 * NULL with a one-line reason in err when the file cannot be read or is
 * not a topology Slurm would accept (an unknown key, a switch loop, a
 * switch with two parents, too big). */
struct topology *topology_load(const char *path, char *err, size_t errlen);
/* The same from text in memory (yaml: topology.yaml syntax). */
struct topology *topology_parse(const char *text, size_t len, int yaml, char *err, size_t errlen);
void topology_free(struct topology *t);

/* The leaf switch node hangs from; NULL when the node is not in the tree
 * or hangs from several leaves (a multi-rail node: which one failed is not
 * the node's to tell). */
const char *topology_leaf(const struct topology *t, const char *node);
/* The switch above sw, NULL for a root or an unknown switch. */
const char *topology_parent(const struct topology *t, const char *sw);
/* How many nodes hang from leaf sw (0: not a leaf). */
int topology_leaf_size(const struct topology *t, const char *sw);
int topology_nodes(const struct topology *t);
int topology_switches(const struct topology *t);
/* What was accepted but is worth saying (nodes under several leaves), or
 * "" when nothing. */
const char *topology_note(const struct topology *t);

#endif
