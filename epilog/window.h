/* Cutting a time window out of a large log file by binary search on the
 * lines' timestamps (attrib-collect).  Reads a few pages per probe with
 * pread, skips holes with SEEK_DATA, never reads the file whole. */
#ifndef ATTRIB_WINDOW_H
#define ATTRIB_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct timectx;

struct cut {
	char *text; /* the lines in the window (NUL bytes dropped), malloc'd */
	size_t len;
	long lines;
	bool truncated;	    /* more than cap bytes: only the end was kept */
	bool starts_before; /* the window starts before the file's first timestamped line */
	bool has_first, has_last;
	double first, last;  /* times of the file's first and last timestamped lines */
	off_t lo, hi;	     /* byte range that was filtered */
	uint64_t bytes_read; /* bytes pread from the file */
	int probes;
};

/* Cuts [start, end] out of the open file fd of the given size.  Lines
 * without a timestamp belong to the line before them; timestamps may go
 * backwards by up to slack seconds.  At most cap bytes are kept (the ones
 * nearest end).  Returns 0, or -1 with errno set when the file could not
 * be read. */
int window_cut(int fd, off_t size, double start, double end, double slack, size_t cap,
	       const struct timectx *tc, struct cut *out);
void cut_free(struct cut *c);

#endif
