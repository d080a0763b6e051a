/* The daemon's file writes: durable (fsync, rename), never following a
 * symbolic link (the log: common/log.c; names: common/contract.c). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>
#include "fileio.h"
#include "text.h"
#include "util.h"

int svc_fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc;

	if (fd < 0)
		return -1;
	rc = fsync(fd);
	close(fd);
	return rc;
}

int svc_write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	int e;

	if (fd < 0)
		return -1;
	if (write_all(fd, data, len) < 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return close(fd);
}

int svc_write_atomic(const char *path, const void *data, size_t len)
{
	static atomic_ulong seq;
	char tmp[NAME_MAX + 1], dir[PATH_MAX], why[256];
	const char *slash = strrchr(path, '/');
	int dfd, rc, e;

	if (!slash || (size_t)(slash - path) >= sizeof(dir)) {
		errno = EINVAL;
		return -1;
	}
	memcpy(dir, path, slash - path);
	dir[slash - path] = 0;
	/* the service's threads may write beside each other: a name each */
	if (snprintf(tmp, sizeof(tmp), ".%.200s.%d.%lu", slash + 1, (int)getpid(),
		     (unsigned long)atomic_fetch_add(&seq, 1)) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	rc = write_atomic_at(dfd, slash + 1, tmp, data, len, 0600, true, why, sizeof(why));
	if (rc == 0)
		rc = fsync(dfd);
	e = errno;
	close(dfd);
	errno = e;
	return rc;
}

int svc_mkdir_p(const char *path, mode_t mode)
{
	char buf[PATH_MAX];
	size_t n = strlen(path);

	if (n >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			if (mkdir(buf, mode) < 0 && errno != EEXIST)
				return -1;
			*p = '/';
		}
	if (mkdir(buf, mode) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

/* Removes the entries of the directory fd, then nothing else (the caller
 * removes the directory).  Never follows a symlink. */
static int rm_under(int dfd)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;
	int rc = 0;

	if (!d) {
		close(dfd);
		return -1;
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) == 0)
			continue;
		if (errno == EISDIR || errno == EPERM) {
			int sub = openat(dirfd(d), e->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (sub >= 0 && rm_under(sub) == 0 &&
			    unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR) == 0)
				continue;
		}
		if (errno != ENOENT)
			rc = -1;
	}
	closedir(d);
	return rc;
}

int svc_rmtree(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		if (errno == ENOTDIR || errno == ELOOP)
			return unlink(path);
		return -1;
	}
	if (rm_under(fd) < 0)
		return -1;
	if (rmdir(path) < 0 && errno != ENOENT)
		return -1;
	return 0;
}
