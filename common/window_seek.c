/* Seeking a job's time window in a time-ordered log (window_seek.h).
 *
 * Logs are written in time order and often hold days around a job of
 * hours: a binary search on line timestamps finds the part worth reading.
 * The caller's slack absorbs lines slightly out of order; a file whose
 * probes show no timestamps, or whose time does not grow, is not
 * searched. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "window_seek.h"

#define BLOCK 16384		/* bytes per pread of a file reader */
#define PROBE_REACH (1u << 20)	/* how far a probe looks for the end of a line */
#define PROBE_LINES 32		/* lines a probe reads looking for a timestamp */
#define MIN_GAP (64u << 10)	/* the search stops when its range is this small */

static const char *file_read(void *ctx, off_t off, size_t want, size_t *got)
{
	struct ws_file *f = ctx;
	*got = 0;
	if (f->len && off >= f->boff && off + (off_t)want <= f->boff + (off_t)f->len) {
		*got = want;
		return f->buf + (off - f->boff);
	}
	/* a block from off on (or want bytes when more) */
	size_t n = want > BLOCK ? want : BLOCK;
	if (n > f->cap) {
		char *nb = realloc(f->buf, n);

		if (!nb) {
			f->err = ENOMEM;
			return NULL;
		}
		f->buf = nb;
		f->cap = n;
	}
	size_t have = 0;
	while (have < n) {
		ssize_t r = pread(f->fd, f->buf + have, n - have, off + (off_t)have);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			f->err = errno;
		if (r <= 0)
			break;
		have += (size_t)r;
	}
	f->nread += have;
	f->boff = off;
	f->len = have;
	*got = have < want ? have : want;
	return have ? f->buf : NULL;
}

void ws_file_init(struct ws_reader *r, struct ws_file *f, int fd, off_t size,
		  bool (*line_time)(void *, const char *, size_t, double *), void *time_ctx)
{
	memset(f, 0, sizeof(*f));
	f->fd = fd;
	f->boff = -1;
	*r = (struct ws_reader){ .read = file_read, .line_time = line_time, .ctx = f,
				 .time_ctx = time_ctx, .size = size };
}

void ws_file_free(struct ws_file *f)
{
	free(f->buf);
	f->buf = NULL;
}

/* The offset of the first newline at or after off within reach bytes (and
 * *found), else where the look stopped. */
static off_t find_nl(struct ws_reader *r, off_t off, size_t reach, bool *found)
{
	*found = false;
	/* page by page: a line is usually short, and a probe in a cold file
	 * should not read a megabyte */
	while (reach && off < r->size) {
		size_t want = 4096 - (size_t)(off & 4095), got;
		const char *p, *nl;

		if (want > reach)
			want = reach;
		if ((off_t)want > r->size - off)
			want = (size_t)(r->size - off);
		if (!(p = r->read(r->ctx, off, want, &got)) || !got)
			return r->size;
		if ((nl = memchr(p, '\n', got))) {
			*found = true;
			return off + (nl - p);
		}
		off += (off_t)got;
		reach -= got;
	}
	return off;
}

off_t ws_next_line(struct ws_reader *r, off_t off, size_t reach)
{
	bool found;
	off_t nl = find_nl(r, off, reach, &found);

	return found ? nl + 1 : r->size;
}

bool ws_probe(struct ws_reader *r, off_t off, double *t)
{
	r->probes++;
	for (int i = 0; i < PROBE_LINES && off < r->size; i++) {
		bool found;
		off_t end = find_nl(r, off, PROBE_REACH, &found);
		size_t len = (size_t)(end - off), got;
		const char *p;

		if (!found && end < r->size)
			return false;	/* a line of megabytes: nothing to steer by */
		if (len > WS_HEADER)
			len = WS_HEADER;
		if (len && (p = r->read(r->ctx, off, len, &got)) && got &&
		    r->line_time(r->time_ctx, p, got, t))
			return true;
		off = end + 1;
	}
	return false;
}

/* Offset of a line start before which every line is older than t. */
static bool seek_time(struct ws_reader *r, double t, off_t *out)
{
	off_t lo = 0, hi = r->size;
	double pt;

	while (hi - lo > (off_t)MIN_GAP) {
		off_t mid = ws_next_line(r, lo + (hi - lo) / 2, PROBE_REACH);

		if (mid >= hi || !ws_probe(r, mid, &pt))
			return false;	/* no timestamps to steer by */
		if (pt < t)
			lo = mid;
		else
			hi = mid;
	}
	*out = lo;
	return true;
}

bool ws_time_grows(struct ws_reader *r, double slack)
{
	double top = -1e300, t;

	for (int i = 0; i <= 64; i++) {
		off_t off = i ? ws_next_line(r, (off_t)((double)r->size * i / 64), PROBE_REACH) : 0;

		if (off >= r->size)
			break;
		if (!ws_probe(r, off, &t))
			continue;
		if (t < top - slack)
			return false;
		if (t > top)
			top = t;
	}
	return true;
}

bool ws_window(struct ws_reader *r, double from, double to, double slack, off_t *lo, off_t *hi)
{
	off_t l, h;

	if (!ws_time_grows(r, slack) || !seek_time(r, from - slack, &l) || !seek_time(r, to + slack, &h))
		return false;
	h = ws_next_line(r, h + (off_t)MIN_GAP < r->size ? h + (off_t)MIN_GAP : r->size, PROBE_REACH);
	if (l >= h)
		return false;
	*lo = l;
	*hi = h;
	return true;
}
