/* A log file as a source of attrib-collect: the job's window cut out by
 * binary search on the lines' timestamps (window.c), and the rotated .1
 * when the window starts before the file. */
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
#include <json-c/json.h>
#include "conf.h"
#include "contract.h"
#include "fileio.h"
#include "log.h"
#include "text.h"
#include "timefmt.h"
#include "xalloc.h"
#include "collect.h"
#include "source.h"
#include "window.h"

/* Cuts one file (and, when the window starts before it, its rotated .1). */
void collect_file(const struct collect_ctx *cx, const char *path, size_t cap, json_object *files,
		  json_object *cov, struct names *used)
{
	char why[256], a[64], b[64];
	struct stat st;
	struct cut c, c1 = { 0 };
	int fd = open_log_file(path, &st, why, sizeof(why));
	const char *slash = strrchr(path, '/');
	char *name;

	if (fd < 0) {
		if (errno == ENOENT)
			cover(cov, path, COVERAGE_MISSING, "not found on %s (LogSources names it)", cx->node);
		else
			cover(cov, path, COVERAGE_ERROR, "%s", why);
		return;
	}
	if (window_cut(fd, st.st_size, cx->start, cx->end, SLACK, cap, cx->tc, &c)) {
		cover(cov, path, COVERAGE_ERROR, "read: %s", strerror(errno));
		close(fd);
		return;
	}
	close(fd);
	if (c.starts_before && c.len < cap) {
		char p1[4096];
		struct stat st1;
		int fd1;

		snprintf(p1, sizeof(p1), "%s.1", path);
		if ((fd1 = open_log_file(p1, &st1, why, sizeof(why))) >= 0) {
			if (window_cut(fd1, st1.st_size, cx->start, cx->end, SLACK, cap - c.len, cx->tc, &c1))
				cover(cov, p1, COVERAGE_ERROR, "read: %s", strerror(errno));
			close(fd1);
			if (c1.text && c1.len) {
				char n1[512];

				snprintf(n1, sizeof(n1), "%s.1", slash ? slash + 1 : path);
				add_file(files, unique_name(used, n1), p1, ORIGIN_NAME_FILE, c1.text, c1.len);
			}
			if (c1.truncated)
				cover(cov, p1, COVERAGE_PARTIAL,
				      "more than %zu bytes in the window: kept the last %zu", cap - c.len,
				      c1.len);
			cut_free(&c1);
		} else if (errno != ENOENT) {
			cover(cov, p1, COVERAGE_ERROR, "%s", why);
		}
	}
	name = unique_name(used, slash ? slash + 1 : path);
	add_file(files, name, path, ORIGIN_NAME_FILE, c.text, c.len);
	if (c.truncated)
		cover(cov, path, COVERAGE_PARTIAL,
		      c.has_first || c.has_last ? "more than %zu bytes in the window: kept the last %zu"
						: "no timestamps: kept the last %zu of its bytes (cap %zu)",
		      c.has_first || c.has_last ? cap : c.len, c.has_first || c.has_last ? c.len : cap);
	else if (!c.has_first && !c.has_last && st.st_size)
		cover(cov, path, COVERAGE_PARTIAL, "no timestamps: kept the whole file (%zu bytes)", c.len);
	else if (!c.lines && st.st_size) {
		if (c.has_last && c.last < cx->start) {
			time_format(c.last, a, sizeof(a));
			cover(cov, path, COVERAGE_EMPTY, "no line in the window: the file ends at %s", a);
		} else if (c.has_first && c.first > cx->end) {
			time_format(c.first, a, sizeof(a));
			cover(cov, path, COVERAGE_EMPTY, "no line in the window: the file starts at %s%s", a,
			      c1.lines ? "" : " (and no rotated .1 covers it)");
		} else {
			time_format(cx->start, a, sizeof(a));
			time_format(cx->end, b, sizeof(b));
			cover(cov, path, COVERAGE_EMPTY, "no line between %s and %s", a, b);
		}
	}
	cut_free(&c);
}

static bool file_match(const char *spec)
{
	return *spec == '/';
}

static bool file_available(const char *spec)
{
	struct stat st;

	return lstat(spec, &st) == 0;
}

static void file_collect(const struct collect_ctx *cx, const char *spec, struct source_out *out)
{
	collect_file(cx, spec, out->cap, out->files, out->cov, out->used);
}

/* where rsyslog (Debian, Ubuntu) and the RHEL family write the kernel's lines */
static const char *const file_defaults[] = { "/var/log/kern.log", "/var/log/syslog", "/var/log/messages",
					     NULL };

const struct evidence_source source_file = {
	.name = "file",
	.match = file_match,
	.defaults = file_defaults,
	.available = file_available,
	.collect = file_collect,
};
