/* A user's file read by root as that user: the job's output files, which
 * the user names, read by the collector on the batch host and by the
 * service (when ReadJobOutput is set).
 *
 * The file is opened with the user's uid and groups as this thread's
 * filesystem identity (setfsuid/setfsgid: root's DAC override is gone for
 * the open), with O_NOFOLLOW|O_NONBLOCK|O_NOCTTY, and taken only when the
 * opened file itself (fstat) is a regular file owned by that uid.  There is
 * no check-then-open on the path, so swapping the path between two looks
 * gains nothing: a symlink, a FIFO, a device, another user's file or a file
 * the user cannot read is never read, only reported. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "log.h"
#include "userfile.h"

#define MAX_GROUPS 1024

/* The user's groups (their primary group first), at most max. */
static int user_groups(uid_t uid, gid_t gid, gid_t *groups, int max)
{
	struct passwd pw, *res = NULL;
	char buf[4096];
	int n = max;

	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) || !res) {
		groups[0] = gid;
		return 1;
	}
	if (getgrouplist(pw.pw_name, gid, groups, &n) < 0)
		n = max; /* more than max: the first max */
	return n > 0 ? n : (groups[0] = gid, 1);
}

/* Opens path as uid/gid (this thread only), then returns to root. */
static int open_as(const char *path, uid_t uid, gid_t gid, char *err, size_t errlen)
{
	gid_t *groups = malloc(MAX_GROUPS * sizeof(gid_t)), *saved = malloc(MAX_GROUPS * sizeof(gid_t));
	int ngroups, nsaved, fd = -1, e = 0;
	uid_t old_uid;
	gid_t old_gid;

	if (!groups || !saved) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (geteuid() != 0) {
		/* a caller not run as root reads its own user's files only */
		if (uid != geteuid()) {
			snprintf(err, errlen, "not root: cannot read as uid %u", (unsigned)uid);
			e = EPERM;
		} else {
			fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
			e = errno;
			if (fd < 0)
				snprintf(err, errlen, "%s", e == ELOOP ? "is a symbolic link" : strerror(e));
		}
		errno = e;
		goto out;
	}
	ngroups = user_groups(uid, gid, groups, MAX_GROUPS);
	nsaved = getgroups(MAX_GROUPS, saved);
	if (nsaved < 0) {
		snprintf(err, errlen, "getgroups: %s", strerror(errno));
		goto out;
	}
	/* the raw system calls change this thread only (glibc's wrappers
	 * would change every thread of the process) */
	if (syscall(SYS_setgroups, ngroups, groups) < 0) {
		snprintf(err, errlen, "cannot take the groups of uid %u: %s", (unsigned)uid, strerror(errno));
		goto out;
	}
	old_gid = setfsgid(gid);
	old_uid = setfsuid(uid);
	if ((uid_t)setfsuid((uid_t)-1) != uid || (gid_t)setfsgid((gid_t)-1) != gid) {
		snprintf(err, errlen, "cannot take the identity of uid %u", (unsigned)uid);
	} else {
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		e = errno;
	}
	setfsuid(old_uid);
	setfsgid(old_gid);
	if (syscall(SYS_setgroups, nsaved, saved) < 0 || (uid_t)setfsuid((uid_t)-1) != old_uid) {
		/* cannot happen as root; never go on with a foreign identity */
		log_msg(LOGL_ERROR, "cannot return to the caller's identity: %s", strerror(errno));
		abort();
	}
	if (fd < 0 && e)
		snprintf(err, errlen, "%s", e == ELOOP ? "is a symbolic link" : strerror(e));
	errno = e;
out:
	free(groups);
	free(saved);
	return fd;
}

char *read_tail_as_user(const char *path, uid_t uid, gid_t gid, size_t max, size_t *len, bool *missing,
			char *err, size_t errlen)
{
	struct stat st;
	char *buf;
	size_t got = 0;
	ssize_t n;
	off_t from = 0;
	int fd;

	*len = 0;
	*missing = false;
	if (!path || *path != '/') {
		snprintf(err, errlen, "not an absolute path");
		return NULL;
	}
	fd = open_as(path, uid, gid, err, errlen);
	if (fd < 0) {
		*missing = errno == ENOENT;
		return NULL;
	}
	if (fstat(fd, &st) < 0) {
		snprintf(err, errlen, "fstat: %s", strerror(errno));
		close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "not a regular file");
		close(fd);
		return NULL;
	}
	if (st.st_uid != uid) {
		snprintf(err, errlen, "owned by uid %u, not the job's user (uid %u)", (unsigned)st.st_uid,
			 (unsigned)uid);
		close(fd);
		return NULL;
	}
	if ((size_t)st.st_size > max)
		from = st.st_size - max;
	if (!(buf = malloc(max + 1))) {
		snprintf(err, errlen, "out of memory");
		close(fd);
		return NULL;
	}
	while (got < max && (n = pread(fd, buf + got, max - got, from + got)) > 0)
		got += n;
	close(fd);
	if (from > 0) {
		/* begin at a whole line */
		char *nl = memchr(buf, '\n', got);

		if (nl && nl + 1 < buf + got) {
			got -= nl + 1 - buf;
			memmove(buf, nl + 1, got);
		}
	}
	buf[got] = 0;
	*len = got;
	return buf;
}
