/* Time: the one module that reads and writes timestamps.  RFC 3339 is the
 * formats' own (doc/formats.md); the log formats (syslog, glog, dmesg -T,
 * ISO with a space) are what evidence carries.  Nothing here allocates
 * without checking or aborts: jobcomp/attrib compiles it in (slurmctld). */
#ifndef ATTRIB_TIMEFMT_H
#define ATTRIB_TIMEFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* Context for turning partial timestamps (no year, local zone) into epoch
 * seconds: the job's window and the logs' time zone offset. */
struct timectx {
	double ref;	/* job start: picks the year of year-less formats */
	const char *tz; /* IANA name or NULL/UTC */
};

/* Parses a timestamp header at the start of line; returns the epoch time
 * and sets *hdr_len to the bytes it spans (0 if none). */
bool time_parse_header(const struct timectx *tc, const char *s, size_t len, double *t, size_t *hdr_len);
/* Parses a whole timestamp string (RFC 3339, ISO with a space, glog
 * E0908 23:53:26.858, syslog Nov 29 08:12:01, dmesg -T). */
bool time_parse_any(const struct timectx *tc, const char *s, size_t len, double *t);
/* A whole RFC 3339 string (a zone or Z required). */
bool time_parse_rfc3339(const char *s, double *t);
bool tz_name_ok(const char *tz); /* a zone name, not a path */

/* 2026-11-29T08:12:01.331270Z (whole seconds: no fraction) */
void time_format(double t, char *buf, size_t len);
/* 2026-11-29T08:12:01Z; returns buf */
char *time_format_sec(time_t t, char *buf, size_t len);
/* 2026-11-29T08:12:01.331270+00:00, microseconds since the epoch: the
 * header of the log lines the collector writes (journal, /dev/kmsg) */
void time_format_log(unsigned long long usec, char *buf, size_t len);

/* The seconds of a duration's unit: 's' 1, 'm' 60, 'h' 3600, 'd' 86400,
 * 0 for any other character; attrib.conf's durations, attrib's --since
 * and the API's since read "90s", "30m", "12h", "7d" with it. */
static inline long time_unit_seconds(char c)
{
	return c == 's' ? 1 : c == 'm' ? 60 : c == 'h' ? 3600 : c == 'd' ? 86400 : 0;
}

#endif
