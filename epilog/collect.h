/* attrib-collect's parts (collect.c, journal.c).  Not installed. */
#ifndef ATTRIB_COLLECT_H
#define ATTRIB_COLLECT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <json-c/json.h>
#include "contract.h"
#include "log.h"

struct attrib_config;
struct timectx;

struct collect_ctx {
	const struct attrib_config *conf;
	double deadline;		/* CLOCK_MONOTONIC seconds */
	double start, end;		/* the window, margins included */
	const struct timectx *tc;	/* for timestamps without a year or zone */
	char *munge_socket;		/* NULL: libmunge's default */
};

/* The collector's messages (common/log.h: to LogFile, else standard
 * error, each prefixed with the job). */
#define clog_msg(...) log_msg(LOGL_INFO, __VA_ARGS__)
double now_real(void);
double now_mono(void);
bool parse_when(const char *s, double *t);
char *local_zone(void);
int open_log_file(const char *path, struct stat *st, char *why, size_t whylen);
/* A coverage entry {source, status, detail}; logged unless status is "info". */
void cover(json_object *cov, const char *source, const char *status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* How one POST of a bundle went. */
enum send_status {
	SEND_OK,		/* the service took it */
	SEND_RETRY,		/* a later try may succeed */
	SEND_REFUSED,		/* the service refused this bundle for good */
	SEND_NO_SERVICE,	/* connection refused: the service is down or restarting */
};

/* A bundle file {name, source, origin, text}; the text made valid UTF-8. */
void add_file(json_object *files, const char *name, const char *source, const char *origin,
	      const char *text, size_t len);

/* Adds the journal's lines in the window (source "journal", or
 * "journal:DIR" for a directory of journal files) as three files by who
 * wrote them: names[0] the kernel's (_TRANSPORT=kernel), names[1] root's,
 * names[2] other users'.  Returns how many kernel entries it kept. */
long collect_journal(const struct collect_ctx *cx, const char *src, size_t cap,
		     json_object *files, json_object *cov, const char *const names[3]);

/* Adds the kernel's ring buffer (/dev/kmsg; env ATTRIB_COLLECT_KMSG names
 * a regular file of /dev/kmsg records instead, for tests) in the window as
 * file name. */
void collect_kmsg(const struct collect_ctx *cx, size_t cap, json_object *files, json_object *cov,
		  const char *name);

#endif
