/* attribd, topology_site.c: the site's network tree (TopologyFile). */
#ifndef ATTRIB_TOPOLOGY_SITE_H
#define ATTRIB_TOPOLOGY_SITE_H

#include <stdbool.h>
#include <stddef.h>
#include "conf.h"

struct topology;
/* TopologyFile, else topology.yaml or topology.conf beside slurm.conf
 * ($SLURM_CONF or /etc/slurm/slurm.conf) when there: false when none. */
bool topology_site_path(const struct attrib_config *conf, char *buf, size_t len);
/* The tree, read again when the file changed; NULL with a reason when
 * there is none or it is unusable.  Always pair with topology_site_put
 * (the tree is valid until then). */
struct topology *topology_site_get(const struct attrib_config *conf, char *err, size_t errlen);
void topology_site_put(void);
void topology_site_free(void);
/* Copies the site's topology file into the case directory (as
 * topology.conf or topology.yaml): 1 copied, 0 there is none, -1 with a
 * reason. */
int topology_site_copy(const struct attrib_config *conf, const char *case_dir, char *err, size_t errlen);

#endif
