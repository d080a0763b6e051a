/* A case's files: its directories listed (sorted, bounded, links not
 * followed), its files opened and read.
 *
 * Files are read with pread, never mapped: a log truncated while it is
 * read ends sooner (a coverage entry), where a mapping would raise SIGBUS
 * in a process that may be a service running other work.  A large log is
 * read and scanned in chunks of lines (chunks.c), so memory stays bounded
 * for a log of any size; a large node log is read from the job's window
 * alone (src_open). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "scan_parts.h"
#include "window_seek.h"

/* n bytes at off, or fewer at the end of the file.  The holes of a sparse
 * file are filled with zeros here instead of read: reading a hole makes
 * the kernel zero a page cache page for every 4 KiB of it (a 2 GB sparse
 * log took 30 s of system time), and a hole holds no line to match.  A
 * file system without SEEK_DATA is read as all data. */
ssize_t pread_sparse(int fd, char *buf, size_t n, off_t off)
{
	size_t got = 0;

	while (got < n) {
		off_t at = off + (off_t)got, data = lseek(fd, at, SEEK_DATA), hole;
		size_t want = n - got;
		struct stat st;

		if (data < 0 && errno == ENXIO) { /* a hole to the end of the file */
			if (fstat(fd, &st) < 0 || st.st_size <= at)
				break;
			if ((off_t)want > st.st_size - at)
				want = (size_t)(st.st_size - at);
			memset(buf + got, 0, want);
			got += want;
			break;
		}
		if (data > at) {
			if ((off_t)want > data - at)
				want = (size_t)(data - at);
			memset(buf + got, 0, want);
			got += want;
			continue;
		}
		if (data == at && (hole = lseek(fd, at, SEEK_HOLE)) > at && hole - at < (off_t)want)
			want = (size_t)(hole - at);
		ssize_t r = pread(fd, buf + got, want, at);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

/* Whether a node file is a tool's report (nvidia-smi -q, dcgmi, ibstat:
 * a saved dump whose lines carry no time) rather than a log: fewer than
 * half of its first non-empty lines start with a timestamp.  Reports are
 * also read by the rules of their tables and sections (source: report),
 * which a log is spared. */
static bool is_report(const struct analysis *a, const char *buf, size_t len)
{
	int lines = 0, stamped = 0;
	size_t off = 0, reach = len < (64u << 10) ? len : 64u << 10; /* never the whole of a huge file */
	size_t cols = 0;

	while (off < reach && lines < 16) {
		const char *nl = memchr(buf + off, '\n', reach - off);
		size_t end = nl ? (size_t)(nl - buf) : reach, hdr;
		double t;

		if (end > off + 1) { /* not an empty line (nor a lone CR) */
			bool stamp = time_parse_header(&a->tc, buf + off, end - off > 256 ? 256 : end - off,
						       &t, &hdr);

			/* unwrap hook: a line without a time after one a terminal
			 * cut at its width is the rest of that one */
			if (stamp || !unwrap_terminal_width(cols))
				lines++;
			stamped += stamp;
			cols = unwrap_columns(buf + off, end - off);
		}
		off = end + 1;
	}
	return stamped * 2 < lines;
}

static bool header_time(void *tc, const char *s, size_t len, double *t)
{
	size_t hdr;

	return time_parse_header(tc, s, len > 256 ? 256 : len, t, &hdr);
}

/* Opens a case file without following links or blocking on FIFOs, and
 * finds the part to scan; wb, when given, receives the whole file (a
 * small one, read at once).  Returns 1 when there is something to scan,
 * 0 when not (an empty file), -1 with a coverage entry in a. */
int src_open(struct analysis *a, const char *rel, int source, struct src *s, struct wbuf *wb, size_t *got)
{
	char *path = xmalloc(strlen(a->dir) + strlen(rel) + 2);
	struct stat st;
	int fd;

	sprintf(path, "%s/%s", a->dir, rel);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	free(path);
	if (fd < 0) {
		analysis_add_coverage(a, rel, COVERAGE_ERROR, "cannot read: %s",
				      errno == ELOOP ? "a symbolic link (not followed)" : strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		analysis_add_coverage(a, rel, COVERAGE_ERROR, "not a regular file");
		close(fd);
		return -1;
	}
	if (st.st_size == 0) {
		close(fd);
		return 0;
	}
	*s = (struct src){ .fd = fd, .source = source, .lo = 0, .hi = (size_t)st.st_size };
	bool seek = (source & SRC_NODE) && (size_t)st.st_size > WINDOW_SEEK_MIN;

	if (seek)
		wb = NULL; /* only its window is read */
	if (got)
		*got = 0;
	if (source & SRC_NODE) {
		char head[64u << 10];
		const char *h = head;
		size_t n = (size_t)st.st_size < sizeof(head) ? (size_t)st.st_size : sizeof(head);
		ssize_t r;

		if (wb) { /* the whole file, of which the report test reads the start */
			if ((size_t)st.st_size > wb->cap)
				wb->p = xrealloc(wb->p, wb->cap = st.st_size);
			r = pread_sparse(fd, wb->p, st.st_size, 0);
			*got = r > 0 ? (size_t)r : 0;
			h = wb->p;
		} else {
			r = pread_sparse(fd, head, n, 0);
		}
		if (r > 0 && is_report(a, h, (size_t)r < n ? (size_t)r : n))
			s->source |= SRC_REPORT;
	} else if (wb) {
		if ((size_t)st.st_size > wb->cap)
			wb->p = xrealloc(wb->p, wb->cap = st.st_size);
		ssize_t r = pread_sparse(fd, wb->p, st.st_size, 0);
		*got = r > 0 ? (size_t)r : 0;
	}
	if (seek) {
		struct ws_reader *r = ws_open(fd, st.st_size, header_time, &a->tc);
		off_t lo, hi;

		if (r &&
		    ws_window(r, a->job.start - a->cat->set.window_before,
			      a->job.end + a->cat->set.window_after, WINDOW_SLACK, true, &lo, &hi, NULL, NULL,
			      NULL, NULL) &&
		    lo < hi) {
			s->lo = (size_t)lo;
			s->hi = (size_t)hi;
		}
		free(r);
	}
	return 1;
}

/* Newlines in the file before off (the number of the window's first line,
 * less one), read a block at a time. */
long count_lines_before(int fd, size_t off)
{
	size_t blk = 1u << 20, at = 0;
	char *buf = xmalloc(blk);
	long n = 0;

	while (at < off) {
		ssize_t got = pread_sparse(fd, buf, off - at < blk ? off - at : blk, (off_t)at);

		if (got <= 0)
			break;
		n += count_newlines(buf, (size_t)got);
		at += (size_t)got;
	}
	free(buf);
	return n;
}

/* Where the chunk after a cut starts: the first line start at or after
 * it, or the cut itself in a line longer than BOUNDARY_REACH. */
size_t chunk_cut(int fd, size_t cut, size_t hi)
{
	char buf[16384];

	for (size_t at = cut - 1; at < hi && at < cut - 1 + BOUNDARY_REACH;) {
		ssize_t got = pread_sparse(fd, buf, hi - at < sizeof(buf) ? hi - at : sizeof(buf), (off_t)at);
		const char *nl = got > 0 ? memchr(buf, '\n', (size_t)got) : NULL;

		if (nl)
			return at + (size_t)(nl - buf) + 1;
		if (got <= 0)
			break;
		at += (size_t)got;
	}
	return cut;
}

int cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Opens a directory of the case without following a link.  A directory
 * that is not there is no news (coverage says which evidence is missing);
 * one that cannot be read is a coverage entry. */
DIR *open_dir(struct analysis *a, const char *rel)
{
	char *path = xmalloc(strlen(a->dir) + strlen(rel) + 2);
	int fd;
	DIR *d;

	sprintf(path, "%s/%s", a->dir, rel);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	free(path);
	if (fd < 0) {
		if (errno != ENOENT)
			analysis_add_coverage(a, rel, COVERAGE_ERROR, "not read: %s",
					      errno == ELOOP		 ? "a symbolic link (not followed)"
						      : errno == ENOTDIR ? "not a directory"
									 : strerror(errno));
		return NULL;
	}
	if (!(d = fdopendir(fd)))
		close(fd);
	return d;
}

/* Regular files under dir (relative to the case), recursively, sorted,
 * and their sizes as listed (sizes[i] for out->v[i]); -1 when dir cannot
 * be read (a coverage entry says why). */
int list_dir(struct analysis *a, const char *rel, struct strlist *out, off_t **sizes, int depth)
{
	struct strlist names = { 0 };
	struct dirent *e;
	DIR *d = open_dir(a, rel);

	if (!d)
		return -1;
	/* every name (up to a hard limit), sorted, then the first MAX_FILES:
	 * which files are read does not depend on readdir's order */
	while ((e = readdir(d)) && names.n < MAX_FILES * 10)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			strlist_add(&names, e->d_name);
	closedir(d);
	if (names.n > 1)
		qsort(names.v, names.n, sizeof(char *), cmp_str);
	if (names.n > MAX_FILES)
		analysis_add_coverage(a, rel, COVERAGE_ERROR,
				      "%s%d entries: only the first %d by name were read",
				      names.n == MAX_FILES * 10 ? "at least " : "", names.n, MAX_FILES);
	for (int i = 0; i < names.n && i < MAX_FILES; i++) {
		char *r, *full;
		struct stat st;

		if (asprintf(&r, "%s/%s", rel, names.v[i]) < 0 || asprintf(&full, "%s/%s", a->dir, r) < 0)
			abort();
		if (lstat(full, &st) == 0 && S_ISDIR(st.st_mode)) {
			if (depth < 4)
				list_dir(a, r, out, sizes, depth + 1);
			else
				analysis_add_coverage(a, r, COVERAGE_ERROR,
						      "a directory nested too deep; not read");
		} else {
			*sizes = xrealloc(*sizes, (out->n + 1) * sizeof(off_t));
			(*sizes)[out->n] = st.st_size; /* (a link's: refused when opened) */
			strlist_add(out, r);	       /* links and specials are refused when opened */
		}
		free(full);
		free(r);
	}
	strlist_free(&names);
	return 0;
}
