/* Writing files: see fileio.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "fileio.h"

int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int write_atomic_at(int dirfd, const char *name, const char *tmpname, const void *buf, size_t len,
		    mode_t mode, bool sync, char *err, size_t errlen)
{
	const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	int fd, e;

	fd = openat(dirfd, tmpname, flags, mode);
	if (fd < 0 && errno == EEXIST) {
		/* left over from a crash: we own the name, remove and retry */
		(void)unlinkat(dirfd, tmpname, 0);
		fd = openat(dirfd, tmpname, flags, mode);
	}
	if (fd < 0) {
		e = errno;
		snprintf(err, errlen, "create %s: %s", tmpname, strerror(e));
		errno = e;
		return -1;
	}
	if (write_all(fd, buf, len) < 0) {
		e = errno;
		snprintf(err, errlen, "write %s: %s", tmpname, strerror(e));
		goto fail;
	}
	if (sync && fsync(fd) < 0) {
		e = errno;
		snprintf(err, errlen, "fsync %s: %s", tmpname, strerror(e));
		goto fail;
	}
	if (close(fd) < 0) {
		e = errno;
		fd = -1;
		snprintf(err, errlen, "close %s: %s", tmpname, strerror(e));
		goto fail;
	}
	fd = -1;
	if (renameat(dirfd, tmpname, dirfd, name) < 0) {
		e = errno;
		snprintf(err, errlen, "rename %s to %s: %s", tmpname, name, strerror(e));
		goto fail;
	}
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	(void)unlinkat(dirfd, tmpname, 0);
	errno = e;
	return -1;
}
