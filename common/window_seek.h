/* Seeking the time window of a job in a time-ordered log, by binary
 * search on the lines' timestamps, over a reader: the engine (a node log
 * of days around a job of hours) and the collector (a window cut out of
 * syslog) both find their byte range with it.
 *
 * The reader hands out bytes at an offset (pread with a small cache, a
 * mapping, a buffer), so the search never reads a file whole and never
 * maps it; a file that shrinks under it simply ends sooner. */
#ifndef ATTRIB_WINDOW_SEEK_H
#define ATTRIB_WINDOW_SEEK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ws_reader {
	/* Up to want bytes at off, in memory the reader owns until its next
	 * call; *got is 0 at the end of the file or on a read error. */
	const char *(*read)(void *ctx, off_t off, size_t want, size_t *got);
	/* The time of the line that starts at s (its first len bytes, at most
	 * WS_HEADER): false when it carries none. */
	bool (*line_time)(void *ctx, const char *s, size_t len, double *t);
	void *ctx;		/* read's */
	void *time_ctx;		/* line_time's */
	off_t size;
	int probes;		/* timestamped-line probes made (statistics) */
};

#define WS_HEADER 256		/* bytes of a line a timestamp can span */

/* A reader over an open file: pread through a cache of one block. */
struct ws_file {
	int fd;
	char *buf;
	size_t cap, len;
	off_t boff;
	uint64_t nread;		/* bytes pread */
	int err;		/* errno of a failed read */
};
void ws_file_init(struct ws_reader *r, struct ws_file *f, int fd, off_t size,
		  bool (*line_time)(void *, const char *, size_t, double *), void *time_ctx);
void ws_file_free(struct ws_file *f);

/* The offset after the first newline at or after off, looking at most
 * reach bytes ahead; the file's size when there is none within reach. */
off_t ws_next_line(struct ws_reader *r, off_t off, size_t reach);

/* The time of the first timestamped line starting at or after off (a line
 * start) among the next few lines. */
bool ws_probe(struct ws_reader *r, off_t off, double *t);

/* Whether time grows through the log, sampled at 65 points (a clock reset
 * or logs concatenated out of order would send a search past the lines it
 * looks for), with slack seconds of disorder allowed. */
bool ws_time_grows(struct ws_reader *r, double slack);

/* The byte range [*lo, *hi) of the lines between times from and to, line
 * starts, with a margin of up to 64 KiB on each side; false (and the
 * range untouched) when the log cannot be searched: no timestamps to
 * steer by, or time that does not grow. */
bool ws_window(struct ws_reader *r, double from, double to, double slack, off_t *lo, off_t *hi);

#endif
