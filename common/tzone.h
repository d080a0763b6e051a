/* Time zone offsets from the zone's rules (TZif under TZDIR, or a POSIX
 * TZ string), without setenv("TZ")/tzset(): re-entrant, per thread. */
#ifndef ATTRIB_TZONE_H
#define ATTRIB_TZONE_H

#include <time.h>

/* Offset from UTC (s) of zone tz (an IANA name or a POSIX TZ string) for
 * the civil hour of tm; a civil time shown twice or never takes the
 * zone's standard offset; an unknown zone is UTC. */
long tz_local_offset(const char *tz, const struct tm *tm);

#endif
