/* Writing files: all of a buffer, and atomically (a temporary file beside
 * the target, fsync, rename) relative to a directory descriptor, never
 * following a symbolic link.  The one atomic write of attrib: the plugins
 * (compiled in), the service, the collector's outbox and the engine's
 * pattern cache use it.  Errors are returned with errno, never fatal. */
#ifndef ATTRIB_FILEIO_H
#define ATTRIB_FILEIO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Writes len bytes (retrying short writes and EINTR); 0, or -1 with errno. */
int write_all(int fd, const void *data, size_t len);

/*
 * Write buf to dirfd/name atomically: create dirfd/tmpname (O_EXCL,
 * O_NOFOLLOW, mode; a stale one is removed first: tmpname must be the
 * caller's own, e.g. with its pid), write, fsync (when sync), rename over
 * name. dirfd may be AT_FDCWD. Returns 0, or -1 with errno set and a
 * description in err. The directory itself is not fsynced.
 */
int write_atomic_at(int dirfd, const char *name, const char *tmpname, const void *buf, size_t len,
		    mode_t mode, bool sync, char *err, size_t errlen);

#endif
