/*
 * Helpers shared by the Slurm plugins: JSON records (json-c), RFC 3339 times, atomic
 * writes under a directory descriptor. See util.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Length of the valid UTF-8 sequence at s (1..4), or 0 when the bytes there
 * are not one (stray continuation byte, overlong form, surrogate, beyond
 * U+10FFFF, truncated).
 */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		unsigned char lo = 0x80, hi = 0xbf;

		if (c == 0xe0)
			lo = 0xa0; /* overlong */
		if (c == 0xed)
			hi = 0x9f; /* UTF-16 surrogates */
		if (s[1] < lo || s[1] > hi || (s[2] & 0xc0) != 0x80)
			return 0;
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		unsigned char lo = 0x80, hi = 0xbf;

		if (c == 0xf0)
			lo = 0x90; /* overlong */
		if (c == 0xf4)
			hi = 0x8f; /* > U+10FFFF */
		if (s[1] < lo || s[1] > hi || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
			return 0;
		return 4;
	}
	return 0;
}

/* s with every byte that is not valid UTF-8 replaced by U+FFFD (json-c
 * passes bytes >= 0x80 through unchecked; the records must be strict
 * UTF-8 for every reader).  NULL on allocation failure. */
static char *utf8_clean(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), o = 0, k;
	char *out = malloc(n * 3 + 1);	/* each bad byte becomes 3 */

	if (!out)
		return NULL;
	while (*s) {
		if ((k = utf8_len(s)) > 0) {
			memcpy(out + o, s, k);
			o += k;
			s += k;
		} else {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			s++;
		}
	}
	out[o] = '\0';
	return out;
}

void jo_str(struct json_object *o, const char *key, const char *val)
{
	char *clean;

	if (!val) {
		json_object_object_add(o, key, NULL);
		return;
	}
	clean = utf8_clean(val);
	json_object_object_add(o, key, clean ? json_object_new_string(clean) : NULL);
	free(clean);
}

void jo_int(struct json_object *o, const char *key, long long val)
{
	json_object_object_add(o, key, json_object_new_int64(val));
}

void jo_time(struct json_object *o, const char *key, time_t t)
{
	char tb[32];

	json_object_object_add(o, key,
			       t > 0 ? json_object_new_string(fmt_rfc3339(t, tb, sizeof(tb))) : NULL);
}

char *jo_line(struct json_object *o, size_t *len)
{
	const char *text = json_object_to_json_string_ext(
		o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	char *line;

	if (!text || asprintf(&line, "%s\n", text) < 0)
		return NULL;
	*len = strlen(line);
	return line;
}

char *fmt_rfc3339(time_t t, char *buf, size_t len)
{
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "1970-01-01T00:00:00Z");
	return buf;
}

int write_atomic_at(int dirfd, const char *name, const char *tmpname, const char *buf,
		    size_t len, mode_t mode, bool sync, char *err, size_t errlen)
{
	const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	size_t off = 0;
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
	while (off < len) {
		ssize_t n = write(fd, buf + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			e = n < 0 ? errno : EIO;
			snprintf(err, errlen, "write %s: %s", tmpname, strerror(e));
			goto fail;
		}
		off += (size_t)n;
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

int open_dir_nofollow(const char *path, mode_t mode, bool create, char *err, size_t errlen)
{
	const int dflags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
	char comp[256];
	const char *p = path, *q;
	int fd, nfd, e;

	if (!path || path[0] != '/') {
		snprintf(err, errlen, "%s: not an absolute path", path ? path : "(null)");
		errno = EINVAL;
		return -1;
	}
	if ((fd = open("/", dflags)) < 0) {
		e = errno;
		snprintf(err, errlen, "open /: %s", strerror(e));
		errno = e;
		return -1;
	}
	for (;;) {
		size_t n;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		q = strchr(p, '/');
		n = q ? (size_t)(q - p) : strlen(p);
		if (n >= sizeof(comp) || (n == 2 && !memcmp(p, "..", 2))) {
			snprintf(err, errlen, "%s: bad path component", path);
			e = EINVAL;
			goto fail;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		p += n;
		if (!strcmp(comp, "."))
			continue;
		nfd = openat(fd, comp, dflags | O_NOFOLLOW);
		if (nfd < 0 && errno == ENOENT && create) {
			/* the last component gets mode, the ones above 0755 */
			mode_t m = strspn(p, "/") == strlen(p) ? mode : 0755;

			if (mkdirat(fd, comp, m) < 0 && errno != EEXIST) {
				e = errno;
				snprintf(err, errlen, "mkdir %s (in %s): %s", comp, path, strerror(e));
				goto fail;
			}
			nfd = openat(fd, comp, dflags | O_NOFOLLOW);
		}
		if (nfd < 0 && (errno == ELOOP || errno == ENOTDIR)) {
			/* a symbolic link: followed only when root owns it (an
			 * administrator's /var -> /data), never otherwise */
			struct stat st;

			e = errno;
			if (fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
				if (st.st_uid != 0) {
					snprintf(err, errlen,
						 "%s (in %s): a symbolic link not owned by root: refused",
						 comp, path);
					e = ELOOP;
					goto fail;
				}
				nfd = openat(fd, comp, dflags);
			} else {
				errno = e;
			}
		}
		if (nfd < 0) {
			e = errno;
			snprintf(err, errlen, "open %s (in %s): %s", comp, path, strerror(e));
			goto fail;
		}
		close(fd);
		fd = nfd;
	}
	return fd;
fail:
	close(fd);
	errno = e;
	return -1;
}

/* LOC/jobs, created 0700 when missing; -1 on error (logged by the caller) */
int open_jobs_dir(const char *dir, char *err, size_t errlen)
{
	struct stat st;
	int lfd, jfd;

	if ((lfd = open_dir_nofollow(dir, 0755, true, err, errlen)) < 0)
		return -1;
	if (mkdirat(lfd, "jobs", 0700) < 0 && errno != EEXIST) {
		snprintf(err, errlen, "mkdir %s/jobs: %s", dir, strerror(errno));
		close(lfd);
		return -1;
	}
	jfd = openat(lfd, "jobs", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (jfd < 0) {
		int e = errno;

		if (fstatat(lfd, "jobs", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
			snprintf(err, errlen, "%s/jobs is a symbolic link: refused", dir);
		else
			snprintf(err, errlen, "open %s/jobs: %s", dir, strerror(e));
		close(lfd);
		return -1;
	}
	close(lfd);
	if (fstat(jfd, &st) == 0 && (st.st_uid != geteuid() || (st.st_mode & 022))) {
		snprintf(err, errlen, "%s/jobs: not owned by uid %u or writable by others", dir,
			 (unsigned)geteuid());
		close(jfd);
		return -1;
	}
	return jfd;
}
