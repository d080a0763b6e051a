/* Cutting a time window out of a log file by binary search on timestamps.
 *
 * A probe at byte offset p reads forward to the next line start and then
 * to the first line that has a timestamp (the engine's time_parse_header:
 * RFC 3164, RFC 3339, journalctl short-iso, dmesg -T).  Two searches find
 * the byte range of [start - slack, end + slack]; one pass over that range
 * keeps the lines whose time (or, for a line without one, the time of the
 * line before it) is inside [start, end].  Holes (sparse files, a log
 * truncated under a writer without O_APPEND) are skipped with SEEK_DATA;
 * NUL bytes (what a crash leaves in a log) are dropped. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "timefmt.h"
#include "window.h"

#define BLK 4096		/* bytes per pread while searching */
#define BIGBLK 65536		/* bytes per pread while filtering */
#define MIN_GAP 16384		/* the searches stop when their range is this small */
#define PROBE_LINES 512		/* lines a probe reads looking for a timestamp */
#define PROBE_BYTES (4 << 20)	/* bytes a probe reads looking for one */
#define HDR 160			/* bytes of a line a timestamp can span */
#define MAX_LINE (1 << 20)	/* longer lines are cut to this */

struct rd {
	int fd;
	off_t size;
	struct slot {	/* two cached blocks: a line can straddle two */
		char buf[BIGBLK];
		off_t boff;
		size_t blen;
	} slot[2];
	int last;	/* the slot used last */
	size_t blk;	/* bytes per pread now */
	uint64_t nread;
	int err;
	bool no_seek_data;
	const struct timectx *tc;
	int probes;
};

static ssize_t pread_full(int fd, char *buf, size_t n, off_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, buf + got, n - got, off + (off_t)got);

		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r < 0)
			return got ? (ssize_t)got : -1;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

static struct slot *cached(struct rd *r, off_t off)
{
	for (int i = 0; i < 2; i++) {
		struct slot *sl = &r->slot[(r->last + i) % 2];

		if (off >= sl->boff && off < sl->boff + (off_t)sl->blen) {
			r->last = (r->last + i) % 2;
			return sl;
		}
	}
	return NULL;
}

/* The first offset at or after off that holds data (skips holes); the
 * file's size when only a hole is left. */
static off_t rd_data(struct rd *r, off_t off)
{
	off_t d;

	if (r->no_seek_data || off >= r->size)
		return off;
	if (cached(r, off))
		return off;	/* already read: data (or zeros we scan anyway) */
	d = lseek(r->fd, off, SEEK_DATA);
	if (d < 0) {
		if (errno == ENXIO)
			return r->size;
		r->no_seek_data = true;	/* not supported here: read the zeros */
		return off;
	}
	return d > r->size ? r->size : d;
}

/* The bytes from off to the end of its block; NULL at the end or on error. */
static const char *rd_at(struct rd *r, off_t off, size_t *n)
{
	struct slot *sl;

	if (off >= r->size || off < 0)
		return NULL;
	if (!(sl = cached(r, off))) {
		/* searching: page-aligned reads; filtering: from off on */
		off_t a = r->blk == BIGBLK ? off : off & ~(off_t)(r->blk - 1);
		size_t want = r->blk;
		ssize_t got;

		r->last = !r->last;	/* replace the one used less recently */
		sl = &r->slot[r->last];
		if (a + (off_t)want > r->size)
			want = (size_t)(r->size - a);
		got = pread_full(r->fd, sl->buf, want, a);
		if (got < 0)
			r->err = errno;
		if (got <= 0) {
			sl->blen = 0;
			return NULL;	/* error, or the file shrank: its end */
		}
		r->nread += (uint64_t)got;
		sl->boff = a;
		sl->blen = (size_t)got;
		if (off >= a + got)
			return NULL;
	}
	*n = (size_t)(sl->boff + (off_t)sl->blen - off);
	return sl->buf + (off - sl->boff);
}

/* The offset after the first newline at or after off, or limit.  With a
 * budget, counts the bytes read (holes are free) and stops where it runs
 * out, setting *out_of_budget. */
static off_t next_line_b(struct rd *r, off_t off, off_t limit, off_t *budget, bool *out_of_budget)
{
	while (off < limit) {
		size_t n;
		const char *p, *q;

		off = rd_data(r, off);
		if (off >= limit || !(p = rd_at(r, off, &n)))
			break;
		if ((off_t)n > limit - off)
			n = (size_t)(limit - off);
		if (budget) {
			if (*budget <= 0) {
				*out_of_budget = true;
				return off;
			}
			if ((off_t)n > *budget)
				n = (size_t)*budget;
			*budget -= (off_t)n;
		}
		if ((q = memchr(p, '\n', n)))
			return off + (q - p) + 1;
		off += (off_t)n;
	}
	return limit;
}

static off_t next_line(struct rd *r, off_t off, off_t limit)
{
	return next_line_b(r, off, limit, NULL, NULL);
}

static bool header_time(const struct timectx *tc, const char *s, size_t n, double *t)
{
	size_t hl;

	while (n && !*s)
		s++, n--;
	if (n > HDR)
		n = HDR;
	return n && time_parse_header(tc, s, n, t, &hl);
}

/* The timestamp of the line that starts at s, after any NUL bytes. */
static bool line_time(struct rd *r, off_t s, off_t limit, double *t)
{
	char h[HDR];
	size_t hn = 0;
	off_t off = s;

	for (int guard = 0; off < limit; guard++) {	/* NULs and holes */
		size_t n, i = 0;
		const char *p;

		if (guard > 64)
			return false;
		off = rd_data(r, off);
		if (off >= limit || !(p = rd_at(r, off, &n)))
			return false;
		while (i < n && !p[i])
			i++;
		off += (off_t)i;
		if (i < n)
			break;
	}
	while (hn < HDR && off < limit) {
		size_t n, i;
		const char *p = rd_at(r, off, &n);

		if (!p)
			break;
		for (i = 0; i < n && hn < HDR && p[i] != '\n'; i++)
			h[hn++] = p[i];
		if (i < n && p[i] == '\n')
			break;
		off += (off_t)i;
	}
	return header_time(r->tc, h, hn, t);
}

struct probe {
	bool found;
	double t;
	off_t line;	/* start of the timestamped line */
	off_t after;	/* where the probe stopped looking */
};

/* The first timestamped line that starts at or after p (and before
 * limit), reading at most PROBE_BYTES of data (holes are skipped free). */
static struct probe probe_at(struct rd *r, off_t p, off_t limit)
{
	struct probe pr = { 0 };
	off_t budget = PROBE_BYTES;
	bool out = false;
	off_t s = p == 0 ? 0 : next_line_b(r, p - 1, limit, &budget, &out);

	r->probes++;
	for (int i = 0; i < PROBE_LINES && s < limit && !out; i++) {
		if (line_time(r, s, limit, &pr.t)) {
			pr.found = true;
			pr.line = s;
			pr.after = s;
			return pr;
		}
		s = next_line_b(r, s, limit, &budget, &out);
	}
	pr.after = s;
	return pr;
}

/* Searches [lo, hi) for the first line whose time is >= target; returns
 * the start of a line before it (every line that starts before the result
 * has an earlier time, when times are in order).  Stretches without
 * timestamps go to the left when left is true (the start of the window:
 * keep too much rather than too little), to the right otherwise. */
static off_t search(struct rd *r, off_t lo, off_t hi, double target, bool left)
{
	while (hi - lo > MIN_GAP) {
		off_t mid = lo + (hi - lo) / 2;
		struct probe pr = probe_at(r, mid, hi);

		if (pr.found && pr.t < target)
			lo = pr.line;
		else if (pr.found || left)
			hi = mid;
		else
			lo = pr.after;
		if (r->err)
			break;
	}
	return lo == 0 ? 0 : next_line(r, lo - 1, r->size);
}

/* The last timestamp in the file: its last 16 KiB, then 48 KiB before
 * that, and so on (holes are free), reading at most PROBE_BYTES. */
static bool last_time(struct rd *r, double *t)
{
	off_t budget = PROBE_BYTES, end = r->size;
	bool out = false;

	for (off_t back = 16384; end > 0 && !out; back *= 4) {
		off_t from = r->size > back ? r->size - back : 0;
		off_t s = from ? next_line_b(r, from - 1, end, &budget, &out) : 0;
		bool found = false;

		while (s < end && !out) {
			double lt;

			if (line_time(r, s, end, &lt)) {
				*t = lt;
				found = true;
			}
			s = next_line_b(r, s, end, &budget, &out);
		}
		if (found)
			return true;
		if (r->err)
			return false;
		end = from;
	}
	return false;
}

struct out {
	char *buf;
	size_t len, cap;
	char *line;
	size_t llen;
	bool have;	/* cur is set */
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
static int flush_line(struct out *o, const struct timectx *tc, double start, double end,
		      bool all, long *lines)
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
static int filter(struct rd *r, off_t lo, off_t hi, double start, double end, bool all,
		  struct out *o, long *lines)
{
	off_t off = lo;

	r->blk = BIGBLK;
	if (!(o->line = malloc(MAX_LINE)))
		return -1;
	while (off < hi) {
		size_t n;
		const char *p;

		off = rd_data(r, off);
		if (off >= hi || !(p = rd_at(r, off, &n)))
			break;
		if ((off_t)n > hi - off)
			n = (size_t)(hi - off);
		for (size_t i = 0; i < n; i++) {
			char ch = p[i];

			if (!ch)
				continue;
			if (o->llen < MAX_LINE - 1 || ch == '\n')
				o->line[o->llen++] = ch;
			if (ch == '\n' && flush_line(o, r->tc, start, end, all, lines))
				goto fail;
		}
		off += (off_t)n;
	}
	if (o->llen) {	/* the last line has no newline */
		o->line[o->llen++] = '\n';
		if (flush_line(o, r->tc, start, end, all, lines))
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
static off_t cap_start(struct rd *r, off_t lo, off_t hi, off_t cap)
{
	struct { off_t d, h; } ext[1024];
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
	struct rd *r = calloc(1, sizeof(*r));
	struct out o = { 0 };
	off_t lo, hi;
	bool all = false;
	int rc = -1;

	memset(c, 0, sizeof(*c));
	if (!r)
		return -1;
	r->fd = fd;
	r->size = size;
	r->tc = tc;
	r->slot[0].boff = r->slot[1].boff = -1;
	r->blk = BLK;

	struct probe first = probe_at(r, 0, size);
	c->has_first = first.found;
	c->first = first.t;
	c->has_last = last_time(r, &c->last);
	if (r->err)
		goto done;
	if (!c->has_first && !c->has_last) {
		/* no timestamps to search on: the end of the file, which is
		 * the newest part when the epilog runs */
		off_t x = cap_start(r, 0, size, (off_t)cap);

		lo = x > 0 ? next_line(r, x - 1, size) : 0;
		hi = size;
		all = true;
		c->truncated = lo > 0;
	} else {
		c->starts_before = c->has_first && c->first > start;
		lo = search(r, 0, size, start - slack, true);
		hi = search(r, lo, size, end + slack, false);
		/* hi is a line before the end; the range ends at the first
		 * line after it that is past end + slack */
		for (int i = 0; hi < size && i < 100000; i++) {
			double t;

			if (line_time(r, hi, size, &t) && t > end + slack)
				break;
			hi = next_line(r, hi, size);
		}
		off_t x = cap_start(r, lo, hi, (off_t)cap);

		if (x > lo) {
			lo = next_line(r, x - 1, hi);
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
