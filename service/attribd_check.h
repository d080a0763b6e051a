/* attribd, attribd_check.c: attribd --check. */
#ifndef ATTRIB_ATTRIBD_CHECK_H
#define ATTRIB_ATTRIBD_CHECK_H

#include <stdio.h>
#include "conf.h"

/* From this host: each node's addresses its credentials are taken from,
 * what its name resolves to here, the refusals of the last day, whether
 * its latest stored bundle held kernel messages (doc/attribd.8).  0 no
 * problem seen, 2 one or more, 1 a bad configuration. */
int check_main(const struct attrib_config *conf, FILE *out);

#endif
