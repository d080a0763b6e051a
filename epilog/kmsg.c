/* The kernel's ring buffer (/dev/kmsg) as a log source of attrib-collect:
 * the one place on a node only the kernel writes to with the kernel
 * facility (root may write records too, but the kernel gives them the
 * user facility; those are left out).  It holds the current boot only, as
 * much as fits in the ring.
 *
 * A record is "PRI,SEQ,USEC,FLAGS[,...];MESSAGE\n" followed by " KEY=VALUE"
 * lines; one read() returns one record, EAGAIN at the end (the file is
 * opened non-blocking), EPIPE when records were overwritten while being
 * read (reading goes on).  USEC is microseconds since boot on the
 * monotonic clock, so a record's time is the boot time (now on the real
 * clock less now on the monotonic one) plus USEC.  Lines are written as
 * "2026-11-29T08:12:01.331270+00:00 host kernel: MESSAGE". */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "timefmt.h"
#include "xalloc.h"
#include "collect.h"
#include "source.h"

#define KMSG_MAX_BYTES (64u << 20) /* the ring is at most 32 MiB (log_buf_len) */
#define KMSG_READ 16384		   /* more than a record (8 KiB at most) */

struct line {
	char *s;
	size_t n;
};

/* One record (its first line, NUL-terminated) as a line, or NULL when it
 * is not the kernel's, outside [start, end] or not a record. */
static char *record_line(char *rec, long long boot_us, double start, double end, const char *host, size_t *n)
{
	char *semi = strchr(rec, ';'), *p = rec, *e, ts[64], *line;
	unsigned long long pri;
	long long usec, t;
	int len;

	if (!semi)
		return NULL;
	pri = strtoull(p, &e, 10);
	if (e == p || *e != ',')
		return NULL;
	p = e + 1;
	strtoull(p, &e, 10); /* sequence number */
	if (e == p || *e != ',')
		return NULL;
	p = e + 1;
	usec = strtoll(p, &e, 10);
	if (e == p || usec < 0 || (*e != ',' && *e != ';'))
		return NULL;
	if (pri >> 3) /* not the kernel facility: a record root wrote */
		return NULL;
	t = boot_us + usec;
	if ((double)t / 1e6 < start || (double)t / 1e6 > end)
		return NULL;
	time_format_log((unsigned long long)t, ts, sizeof(ts));
	len = asprintf(&line, "%s %s kernel: %s\n", ts, host, semi + 1);
	if (len < 0)
		return NULL;
	*n = (size_t)len;
	return line;
}

/* Adds the kernel's ring buffer (/dev/kmsg; env ATTRIB_COLLECT_KMSG names
 * a regular file of /dev/kmsg records instead, for tests) in the window as
 * file name.  Returns whether the ring could be read. */
static bool collect_kmsg(const struct collect_ctx *cx, size_t cap, json_object *files, json_object *cov,
			 const char *name)
{
	/* (a test's file of records instead of the device; the Epilog's
	 * environment is slurmd's, not the job user's) */
	const char *test = getenv("ATTRIB_COLLECT_KMSG"), *path = test && *test ? test : "/dev/kmsg";
	long long boot_us = (long long)((now_real() - now_mono()) * 1e6);
	double until = cx->deadline - (cx->deadline - now_mono()) / 2;
	char host[256] = "localhost", *raw = NULL;
	size_t rlen = 0, rcap = 0, nl = 0, total = 0, first;
	long lost = 0;
	bool late = false, whole = true;
	struct line *v = NULL;
	struct stat st;
	int fd;

	if (gethostname(host, sizeof(host)) == 0) {
		host[sizeof(host) - 1] = 0;
		host[strcspn(host, ".")] = 0;
	}
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		cover(cov, NODE_SOURCE_KMSG, errno == ENOENT ? COVERAGE_MISSING : COVERAGE_ERROR, "%s: %s",
		      path, strerror(errno));
		return false;
	}
	/* the real ring is a character device; a test's stand-in a regular
	 * file (never a FIFO, which anyone could feed) */
	if (fstat(fd, &st) < 0 || (path == test ? !S_ISREG(st.st_mode) : !S_ISCHR(st.st_mode))) {
		cover(cov, NODE_SOURCE_KMSG, COVERAGE_ERROR, "%s: not a %s (refused)", path,
		      path == test ? "regular file" : "character device");
		close(fd);
		return false;
	}
	for (;;) {
		ssize_t r;

		if (now_mono() > until) {
			late = true;
			break;
		}
		if (rlen + KMSG_READ + 2 > rcap) {
			if (rcap >= KMSG_MAX_BYTES) {
				whole = false;
				break;
			}
			raw = xrealloc(raw, rcap = rcap ? rcap * 2 : 1 << 20);
		}
		r = read(fd, raw + rlen, KMSG_READ);
		if (r > 0) {
			rlen += (size_t)r;
			if (raw[rlen - 1] != '\n' && path != test)
				raw[rlen++] = '\n'; /* one read, one record */
			continue;
		}
		if (r == 0 || errno == EAGAIN)
			break;
		if (errno == EINTR)
			continue;
		if (errno == EPIPE) { /* overwritten while read: the next one */
			lost++;
			continue;
		}
		cover(cov, NODE_SOURCE_KMSG, COVERAGE_ERROR, "read %s: %s", path, strerror(errno));
		break;
	}
	close(fd);
	if (raw)
		raw[rlen] = 0; /* (room kept for it) */
	/* records: a line that does not start with a space */
	for (char *p = raw, *end = raw + rlen; p && p < end;) {
		char *e = memchr(p, '\n', (size_t)(end - p)), *line;
		size_t n;

		if (e)
			*e = 0;
		if (*p != ' ' && (line = record_line(p, boot_us, cx->start, cx->end, host, &n))) {
			v = xrealloc(v, (nl + 1) * sizeof(*v));
			v[nl++] = (struct line){ line, n };
		}
		p = e ? e + 1 : NULL;
	}
	free(raw);
	first = nl; /* the newest within cap */
	while (first > 0 && total + v[first - 1].n <= cap)
		total += v[--first].n;

	char *text = xmalloc(total + 1), *w = text;

	for (size_t i = 0; i < nl; i++) {
		if (i >= first) {
			memcpy(w, v[i].s, v[i].n);
			w += v[i].n;
		}
		free(v[i].s);
	}
	free(v);
	add_file(files, name, path, ORIGIN_NAME_KERNEL, text, total);
	free(text);
	if (first)
		cover(cov, NODE_SOURCE_KMSG, COVERAGE_PARTIAL,
		      "more than %zu bytes in the window: kept the last %zu", cap, total);
	if (lost)
		cover(cov, NODE_SOURCE_KMSG, COVERAGE_PARTIAL,
		      "%ld records were overwritten in the ring while it was read", lost);
	if (late)
		cover(cov, NODE_SOURCE_KMSG, COVERAGE_PARTIAL, "out of time: kept what was read");
	if (!whole)
		cover(cov, NODE_SOURCE_KMSG, COVERAGE_PARTIAL,
		      "more than %u bytes in the ring: read the first %u", KMSG_MAX_BYTES, KMSG_MAX_BYTES);
	return true;
}

static bool kmsg_match(const char *spec)
{
	return !strcmp(spec, NODE_SOURCE_KMSG);
}

/* The ring is on every Linux node: read when no journal gave its lines. */
static bool kmsg_available(const char *spec)
{
	(void)spec;
	return true;
}

static void kmsg_collect(const struct collect_ctx *cx, const char *spec, struct source_out *out)
{
	(void)spec;
	/* journald copies the kernel's ring into the journal: the same lines
	 * twice would count every kernel event twice */
	if (out->kernel_entries)
		cover(out->cov, NODE_SOURCE_KMSG, COVERAGE_INFO,
		      "not read: the journal holds the kernel's messages of the window");
	else if (collect_kmsg(cx, out->cap, out->files, out->cov, unique_name(out->used, "kmsg.log")))
		out->kernel_log = true;
}

static const char *const kmsg_defaults[] = { NODE_SOURCE_KMSG, NULL };

const struct evidence_source source_kmsg = {
	.name = NODE_SOURCE_KMSG,
	.match = kmsg_match,
	.defaults = kmsg_defaults,
	.available = kmsg_available,
	.collect = kmsg_collect,
};
