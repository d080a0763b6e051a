/* Seeking a time window in a time-ordered log (window_seek.h).
 *
 * A probe at byte offset p reads forward to the next line start and then
 * to the first line that has a timestamp (the caller's time_of: the
 * engine's time_parse_header, RFC 3164, RFC 3339, journalctl short-iso,
 * dmesg -T).  Two searches find the byte range of [from - slack, to +
 * slack].  Holes are skipped with SEEK_DATA; NUL bytes (what a crash
 * leaves in a log) before a line's header are skipped. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "window_seek.h"

#define MIN_GAP 16384	      /* the searches stop when their range is this small */
#define PROBE_LINES 512	      /* lines a probe reads looking for a timestamp */
#define PROBE_BYTES (4 << 20) /* bytes a probe reads looking for one */
#define HDR 160		      /* bytes of a line a timestamp can span */

struct ws_reader *ws_open(int fd, off_t size, ws_line_time time_of, void *time_ctx)
{
	struct ws_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->fd = fd;
	r->size = size;
	r->time_of = time_of;
	r->time_ctx = time_ctx;
	r->slot[0].boff = r->slot[1].boff = -1;
	r->blk = WS_BLK;
	return r;
}

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

static struct ws_slot *cached(struct ws_reader *r, off_t off)
{
	for (int i = 0; i < 2; i++) {
		struct ws_slot *sl = &r->slot[(r->last + i) % 2];

		if (off >= sl->boff && off < sl->boff + (off_t)sl->blen) {
			r->last = (r->last + i) % 2;
			return sl;
		}
	}
	return NULL;
}

/* The first offset at or after off that holds data (skips holes); the
 * file's size when only a hole is left. */
off_t ws_data(struct ws_reader *r, off_t off)
{
	off_t d;

	if (r->no_seek_data || off >= r->size)
		return off;
	if (cached(r, off))
		return off; /* already read: data (or zeros we scan anyway) */
	d = lseek(r->fd, off, SEEK_DATA);
	if (d < 0) {
		if (errno == ENXIO)
			return r->size;
		r->no_seek_data = true; /* not supported here: read the zeros */
		return off;
	}
	return d > r->size ? r->size : d;
}

/* The bytes from off to the end of its block; NULL at the end or on error. */
const char *ws_at(struct ws_reader *r, off_t off, size_t *n)
{
	struct ws_slot *sl;

	if (off >= r->size || off < 0)
		return NULL;
	if (!(sl = cached(r, off))) {
		/* searching: page-aligned reads; filtering: from off on */
		off_t a = r->blk == WS_BIGBLK ? off : off & ~(off_t)(r->blk - 1);
		size_t want = r->blk;
		ssize_t got;

		r->last = !r->last; /* replace the one used less recently */
		sl = &r->slot[r->last];
		if (a + (off_t)want > r->size)
			want = (size_t)(r->size - a);
		got = pread_full(r->fd, sl->buf, want, a);
		if (got < 0)
			r->err = errno;
		if (got <= 0) {
			sl->blen = 0;
			return NULL; /* error, or the file shrank: its end */
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
static off_t next_line_b(struct ws_reader *r, off_t off, off_t limit, off_t *budget, bool *out_of_budget)
{
	while (off < limit) {
		size_t n;
		const char *p, *q;

		off = ws_data(r, off);
		if (off >= limit || !(p = ws_at(r, off, &n)))
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

off_t ws_next_line(struct ws_reader *r, off_t off, off_t limit)
{
	return next_line_b(r, off, limit, NULL, NULL);
}

static bool header_time(struct ws_reader *r, const char *s, size_t n, double *t)
{
	while (n && !*s)
		s++, n--;
	if (n > HDR)
		n = HDR;
	return n && r->time_of(r->time_ctx, s, n, t);
}

/* The timestamp of the line that starts at s, after any NUL bytes. */
bool ws_line_time_at(struct ws_reader *r, off_t s, off_t limit, double *t)
{
	char h[HDR];
	size_t hn = 0;
	off_t off = s;

	for (int guard = 0; off < limit; guard++) { /* NULs and holes */
		size_t n, i = 0;
		const char *p;

		if (guard > 64)
			return false;
		off = ws_data(r, off);
		if (off >= limit || !(p = ws_at(r, off, &n)))
			return false;
		while (i < n && !p[i])
			i++;
		off += (off_t)i;
		if (i < n)
			break;
	}
	while (hn < HDR && off < limit) {
		size_t n, i;
		const char *p = ws_at(r, off, &n);

		if (!p)
			break;
		for (i = 0; i < n && hn < HDR && p[i] != '\n'; i++)
			h[hn++] = p[i];
		if (i < n && p[i] == '\n')
			break;
		off += (off_t)i;
	}
	return header_time(r, h, hn, t);
}

struct probe {
	bool found;
	double t;
	off_t line;  /* start of the timestamped line */
	off_t after; /* where the probe stopped looking */
};

/* The first timestamped line that starts at or after p (and before
 * limit), reading at most PROBE_BYTES of data (holes are skipped free). */
static struct probe probe_at(struct ws_reader *r, off_t p, off_t limit)
{
	struct probe pr = { 0 };
	off_t budget = PROBE_BYTES;
	bool out = false;
	off_t s = p == 0 ? 0 : next_line_b(r, p - 1, limit, &budget, &out);

	r->probes++;
	for (int i = 0; i < PROBE_LINES && s < limit && !out; i++) {
		if (ws_line_time_at(r, s, limit, &pr.t)) {
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
static off_t search(struct ws_reader *r, off_t lo, off_t hi, double target, bool left)
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
	return lo == 0 ? 0 : ws_next_line(r, lo - 1, r->size);
}

/* The last timestamp in the file: its last 16 KiB, then 48 KiB before
 * that, and so on (holes are free), reading at most PROBE_BYTES. */
static bool last_time(struct ws_reader *r, double *t)
{
	off_t budget = PROBE_BYTES, end = r->size;
	bool out = false;

	for (off_t back = 16384; end > 0 && !out; back *= 4) {
		off_t from = r->size > back ? r->size - back : 0;
		off_t s = from ? next_line_b(r, from - 1, end, &budget, &out) : 0;
		bool found = false;

		while (s < end && !out) {
			double lt;

			if (ws_line_time_at(r, s, end, &lt)) {
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

/* Whether time grows through the log, sampled at 65 points. */
static bool time_grows(struct ws_reader *r, double slack)
{
	double top = -1e300;

	for (int i = 0; i <= 64; i++) {
		off_t off = (off_t)((double)r->size * i / 64);
		struct probe pr;

		if (off >= r->size)
			break;
		pr = probe_at(r, off, r->size);
		if (!pr.found)
			continue;
		if (pr.t < top - slack)
			return false;
		if (pr.t > top)
			top = pr.t;
	}
	return true;
}

bool ws_window(struct ws_reader *r, double from, double to, double slack, bool guard, off_t *lo, off_t *hi,
	       bool *has_first, double *first, bool *has_last, double *last)
{
	struct probe p0 = probe_at(r, 0, r->size);
	double lt = 0;
	bool hl = last_time(r, &lt);
	off_t l, h;

	if (has_first) {
		*has_first = p0.found;
		*first = p0.t;
		*has_last = hl;
		*last = lt;
	}
	if (r->err || (!p0.found && !hl) || (guard && !time_grows(r, slack)))
		return false;
	l = search(r, 0, r->size, from - slack, true);
	h = search(r, l, r->size, to + slack, false);
	/* h is a line before the end; the range ends at the first line after
	 * it that is past to + slack */
	for (int i = 0; h < r->size && i < 100000; i++) {
		double t;

		if (ws_line_time_at(r, h, r->size, &t) && t > to + slack)
			break;
		h = ws_next_line(r, h, r->size);
	}
	if (r->err)
		return false;
	*lo = l;
	*hi = h;
	return true;
}
