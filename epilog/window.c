/* Cutting a time window out of a log file.
 *
 * The byte range of [start - slack, end + slack] is found by the binary
 * search on timestamps the engine uses too (common/window_seek.c, with
 * the engine's time_parse_header: RFC 3164, RFC 3339, journalctl
 * short-iso, dmesg -T); one pass over that range keeps the lines whose
 * time (or, for a line without one, the time of the line before it) is
 * inside [start, end].  Holes are skipped with SEEK_DATA; NUL bytes (what
 * a crash leaves in a log) are dropped. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "timefmt.h"
#include "window.h"
#include "window_seek.h"

#define HDR 160		   /* bytes of a line a timestamp can span */
#define MAX_LINE (1 << 20) /* longer lines are cut to this */

/* The time a line's header gives (after any NUL bytes). */
static bool header_time(const struct timectx *tc, const char *s, size_t n, double *t)
{
	size_t hl;

	while (n && !*s)
		s++, n--;
	if (n > HDR)
		n = HDR;
	return n && time_parse_header(tc, s, n, t, &hl);
}

static bool line_time_cb(void *tc, const char *s, size_t n, double *t)
{
	return header_time(tc, s, n, t);
}

struct out {
	char *buf;
	size_t len, cap;
	char *line;
	size_t llen;
	bool have; /* cur is set */
	double cur;
};

static int out_add(struct out *o, const char *s, size_t n)
{
	if (o->len + n > o->cap) {
		size_t nc = o->cap ? o->cap : 65536;
		char *nb;

		while (nc < o->len + n)
			nc *= 2;
		if (!(nb = realloc(o->buf, nc)))
			return -1;
		o->buf = nb;
		o->cap = nc;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	return 0;
}

/* One whole line (NULs already dropped) in o->line: keep it if its time
 * is in the window. */
static int flush_line(struct out *o, const struct timectx *tc, double start, double end, bool all,
		      long *lines)
{
	double t;

	if (!o->llen)
		return 0;
	if (header_time(tc, o->line, o->llen, &t)) {
		o->cur = t;
		o->have = true;
	}
	if (all || (o->have && o->cur >= start && o->cur <= end)) {
		if (out_add(o, o->line, o->llen))
			return -1;
		(*lines)++;
	}
	o->llen = 0;
	return 0;
}

/* Keeps the lines of [lo, hi) in the window (all of them when all). */
static int filter(struct ws_reader *r, off_t lo, off_t hi, double start, double end, bool all, struct out *o,
		  long *lines)
{
	off_t off = lo;

	r->blk = WS_BIGBLK;
	if (!(o->line = malloc(MAX_LINE)))
		return -1;
	while (off < hi) {
		size_t n;
		const char *p;

		off = ws_data(r, off);
		if (off >= hi || !(p = ws_at(r, off, &n)))
			break;
		if ((off_t)n > hi - off)
			n = (size_t)(hi - off);
		for (size_t i = 0; i < n; i++) {
			char ch = p[i];

			if (!ch)
				continue;
			if (o->llen < MAX_LINE - 1 || ch == '\n')
				o->line[o->llen++] = ch;
			if (ch == '\n' && flush_line(o, r->time_ctx, start, end, all, lines))
				goto fail;
		}
		off += (off_t)n;
	}
	if (o->llen) { /* the last line has no newline */
		o->line[o->llen++] = '\n';
		if (flush_line(o, r->time_ctx, start, end, all, lines))
			goto fail;
	}
	free(o->line);
	o->line = NULL;
	return r->err ? (errno = r->err, -1) : 0;
fail:
	free(o->line);
	o->line = NULL;
	return -1;
}

/* Where to start so that [X, hi) holds at most cap bytes of data (holes
 * do not count): lo when all of [lo, hi) fits. */
static off_t cap_start(struct ws_reader *r, off_t lo, off_t hi, off_t cap)
{
	struct {
		off_t d, h;
	} ext[1024];
	int n = 0;
	off_t off = lo, total = 0, acc = 0;

	while (off < hi) {
		off_t d = r->no_seek_data ? off : lseek(r->fd, off, SEEK_DATA), h;

		if (d < 0 || d >= hi)
			break;
		h = r->no_seek_data || n == 1023 ? hi : lseek(r->fd, d, SEEK_HOLE);
		if (h < 0 || h > hi)
			h = hi;
		ext[n].d = d;
		ext[n++].h = h;
		total += h - d;
		off = h;
	}
	if (total <= cap)
		return lo;
	for (int i = n - 1; i >= 0; i--) {
		off_t len = ext[i].h - ext[i].d;

		if (acc + len >= cap)
			return ext[i].h - (cap - acc);
		acc += len;
	}
	return lo;
}

int window_cut(int fd, off_t size, double start, double end, double slack, size_t cap,
	       const struct timectx *tc, struct cut *c)
{
	struct ws_reader *r = ws_open(fd, size, line_time_cb, (void *)tc);
	struct out o = { 0 };
	off_t lo = 0, hi = size;
	bool all = false;
	int rc = -1;

	memset(c, 0, sizeof(*c));
	if (!r)
		return -1;
	bool found = ws_window(r, start, end, slack, false, &lo, &hi, &c->has_first, &c->first, &c->has_last,
			       &c->last);
	if (r->err)
		goto done;
	if (!found) {
		/* no timestamps to search on: the end of the file, which is
		 * the newest part when the epilog runs */
		off_t x = cap_start(r, 0, size, (off_t)cap);

		lo = x > 0 ? ws_next_line(r, x - 1, size) : 0;
		hi = size;
		all = true;
		c->truncated = lo > 0;
	} else {
		c->starts_before = c->has_first && c->first > start;
		off_t x = cap_start(r, lo, hi, (off_t)cap);

		if (x > lo) {
			lo = ws_next_line(r, x - 1, hi);
			c->truncated = true;
		}
	}
	if (r->err)
		goto done;
	c->lo = lo;
	c->hi = hi;
	if (filter(r, lo, hi, start, end, all, &o, &c->lines))
		goto done;
	c->text = o.buf ? o.buf : calloc(1, 1);
	o.buf = NULL;
	c->len = o.len;
	rc = 0;
done:
	c->bytes_read = r->nread;
	c->probes = r->probes;
	if (rc && r->err)
		errno = r->err;
	free(o.buf);
	free(r);
	return rc;
}

void cut_free(struct cut *c)
{
	free(c->text);
	c->text = NULL;
}
