/* attrib-collect's context: its log, clocks, the node's zone, coverage
 * entries and bundle files (the helpers every other part uses). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <syslog.h>
#include <json-c/json.h>
#ifdef HAVE_SYSTEMD
#include <systemd/sd-journal.h>
#endif
#include "conf.h"
#include "contract.h"
#include "log.h"
#include "text.h"
#include "timefmt.h"
#include "xalloc.h"
#include "collect.h"

/* ---- logging ---- */

static char log_job_id[32];

#ifdef HAVE_SYSTEMD
/* The journal, as syslog(3) would be (identifier attrib-collect, facility
 * daemon), with the job in a field of its own (journalctl SLURM_JOB_ID=N);
 * syslog(3) when no journald listens. */
static void journal_writer(int priority, const char *msg)
{
	if (sd_journal_send("MESSAGE=%s", msg, "PRIORITY=%d", priority, "SYSLOG_IDENTIFIER=attrib-collect",
			    "SYSLOG_FACILITY=%d", LOG_DAEMON >> 3, "SYSLOG_PID=%ld", (long)getpid(),
			    *log_job_id ? "SLURM_JOB_ID=%s" : NULL, log_job_id, NULL) < 0)
		syslog(priority, "%s", msg);
}
#endif

int collect_log_open(const char *log_file, const char *job)
{
	log_set_ident("attrib-collect");
	if (job) {
		char context[80];

		snprintf(log_job_id, sizeof(log_job_id), "%s", job);
		snprintf(context, sizeof(context), "job %s", job);
		log_set_context(context);
	}
#ifdef HAVE_SYSTEMD
	log_set_syslog_writer(journal_writer);
#endif
	/* slurmd keeps an Epilog's output only when it fails (attrib-collect
	 * never does) or at debug2: the system log is where an administrator
	 * looks; problems go to standard error too */
	log_tee(true);
	return log_open(log_file, 0640, true);
}

/* ---- time ---- */

double now_real(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Epoch seconds ("1764403921", "@1764403921.5") or RFC 3339. */
bool parse_when(const char *s, double *t)
{
	char *end;

	if (!s || !*s)
		return false;
	if (*s == '@' || isdigit((unsigned char)*s)) {
		const char *p = *s == '@' ? s + 1 : s;
		double v;

		errno = 0;
		v = strtod(p, &end);
		if (!errno && end != p && !*end && v >= 0) {
			*t = v;
			return true;
		}
	}
	return time_parse_rfc3339(s, t);
}

/* The zone the node's syslog writes local times in (for timestamps
 * without a zone): TZ, else /etc/localtime's name, else /etc/timezone. */
char *local_zone(void)
{
	const char *tz = getenv("TZ");
	char buf[512];
	ssize_t n;
	FILE *f;

	if (tz && *tz)
		return strdup_or_die(*tz == ':' ? tz + 1 : tz);
	if ((n = readlink("/etc/localtime", buf, sizeof(buf) - 1)) > 0) {
		char *z;

		buf[n] = 0;
		if ((z = strstr(buf, "zoneinfo/")))
			return strdup_or_die(z + 9);
	}
	if ((f = fopen("/etc/timezone", "re"))) {
		char *r = fgets(buf, sizeof(buf), f) ? buf : NULL;

		fclose(f);
		if (r) {
			buf[strcspn(buf, " \t\r\n")] = 0;
			if (*buf)
				return strdup_or_die(buf);
		}
	}
	return NULL;
}

/* Makes zone the process's TZ: the engine's conversion of zone-less
 * times sets TZ to the zone and back for each one, which costs a reload
 * of the zone file unless TZ already names it (150 us a line, else). */
void zone_set(const char *zone)
{
	if (zone && *zone) {
		setenv("TZ", zone, 1);
		tzset();
	}
}

/* ---- small helpers ---- */

void cover(json_object *cov, const char *source, const char *status, const char *fmt, ...)
{
	char detail[1024];
	va_list ap;
	json_object *e = json_object_new_object();

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	json_object_object_add(e, "source", json_object_new_string(source));
	json_object_object_add(e, "status", json_object_new_string(status));
	json_object_object_add(e, "detail", json_object_new_string(detail));
	json_object_array_add(cov, e);
	if (strcmp(status, COVERAGE_INFO))
		log_msg(LOGL_WARNING, "%s: %s: %s", source, status, detail);
}

bool valid_job_id(const char *s)
{
	if (!s || !*s || strlen(s) > 20)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Opens a root log file the way the collector must: no symlink, no FIFO
 * or device, never blocking. */
int open_log_file(const char *path, struct stat *st, char *why, size_t whylen)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

	if (fd < 0) {
		snprintf(why, whylen, "%s",
			 errno == ELOOP ? "is a symbolic link (refused)" : strerror(errno));
		return -1;
	}
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
		snprintf(why, whylen, "not a regular file (refused)");
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

/* ---- bundle files ---- */

void add_file(json_object *files, const char *name, const char *source, const char *origin, const char *text,
	      size_t len)
{
	size_t flen;
	char *fixed = text_utf8_fix(text, len, &flen);
	json_object *f = json_object_new_object();

	json_object_object_add(f, "name", json_object_new_string(name));
	json_object_object_add(f, "source", json_object_new_string(source));
	json_object_object_add(f, "origin", json_object_new_string(origin));
	json_object_object_add(f, "text",
			       json_object_new_string_len(fixed ? fixed : "", fixed ? (int)flen : 0));
	json_object_array_add(files, f);
	free(fixed);
}

/* A file name for the bundle, unique within it. */
char *unique_name(struct names *used, const char *base)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s", *base ? base : "log");
	for (int k = 2;; k++) {
		int i;

		for (i = 0; i < used->n && strcmp(used->v[i], buf); i++)
			;
		if (i == used->n)
			break;
		snprintf(buf, sizeof(buf), "%s-%d", base, k);
	}
	used->v = xrealloc(used->v, (used->n + 1) * sizeof(char *));
	used->v[used->n++] = strdup_or_die(buf);
	return used->v[used->n - 1];
}
