/* Seeking a time window in a time-ordered log: a binary search on the
 * lines' timestamps over a reader that reads a few blocks per probe with
 * pread and skips holes (sparse files, a log truncated under a writer
 * without O_APPEND) with SEEK_DATA, never reading or mapping a file
 * whole.  The engine (a node log of days around a job of hours) and the
 * collector (a window cut out of syslog) both find their byte range with
 * it; a file that shrinks under it simply ends sooner. */
#ifndef ATTRIB_WINDOW_SEEK_H
#define ATTRIB_WINDOW_SEEK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define WS_BLK 4096	/* bytes per pread while searching */
#define WS_BIGBLK 65536 /* bytes per pread while reading on */

/* The time of a line (its first bytes, NUL bytes skipped): the log's
 * header; false when it carries none. */
typedef bool (*ws_line_time)(void *ctx, const char *s, size_t n, double *t);

struct ws_reader {
	int fd;
	off_t size;
	struct ws_slot { /* two cached blocks: a line can straddle two */
		char buf[WS_BIGBLK];
		off_t boff;
		size_t blen;
	} slot[2];
	int last;	/* the slot used last */
	size_t blk;	/* bytes per pread now (WS_BLK or WS_BIGBLK) */
	uint64_t nread; /* bytes pread */
	int err;	/* errno of a failed read */
	bool no_seek_data;
	ws_line_time time_of;
	void *time_ctx;
	int probes;
};

/* A reader over fd (size bytes); free() it. */
struct ws_reader *ws_open(int fd, off_t size, ws_line_time time_of, void *time_ctx);

/* The first offset at or after off that holds data (holes skipped); the
 * size when only a hole is left. */
off_t ws_data(struct ws_reader *r, off_t off);
/* The bytes from off to the end of its block (*n); NULL at the end or on
 * an error. */
const char *ws_at(struct ws_reader *r, off_t off, size_t *n);
/* The offset after the first newline at or after off, or limit. */
off_t ws_next_line(struct ws_reader *r, off_t off, off_t limit);
/* The time of the line that starts at s. */
bool ws_line_time_at(struct ws_reader *r, off_t s, off_t limit, double *t);

/* The byte range [*lo, *hi) (line starts) of the lines from time from to
 * time to, give or take slack seconds of lines out of order; has_first
 * and has_last (when not NULL) tell whether the log has a first and last
 * timestamped line and their times.  guard: also false when time does
 * not grow through the log (a clock reset, logs concatenated out of
 * order: the search would go past the lines it looks for).  False, the
 * range untouched, when there are no timestamps to steer by. */
bool ws_window(struct ws_reader *r, double from, double to, double slack, bool guard, off_t *lo, off_t *hi,
	       bool *has_first, double *first, bool *has_last, double *last);

#endif
