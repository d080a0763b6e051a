/* attribd, serve.c: the main loop. */
#ifndef ATTRIB_SERVE_H
#define ATTRIB_SERVE_H

#include <stdbool.h>
#include "attrib.h"
#include "conf.h"
#include "spool.h"
#include "store.h"

/* attribd: runs until SIGTERM/SIGINT.  Returns the exit status. */
int serve_main(const struct attrib_config *conf, const attrib_catalog *cat, bool foreground);
/* One job record: attribute when ready.  Exposed for the tests.
 * Returns 1 when the record is finished with (attributed, or nothing to
 * do), 0 when it waits for bundles, -1 on error. */
int serve_record(const struct attrib_config *conf, const attrib_catalog *cat, store *s, const char *dir,
		 const char *file, const struct record_name *rn, long long now);

#endif
