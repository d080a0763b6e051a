/*
 * Helpers shared by the Slurm plugins: JSON task records (json-c), atomic
 * writes under a directory descriptor. See util.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "util.h"
#include "text.h"
#include "timefmt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void jo_str(struct json_object *o, const char *key, const char *val)
{
	char *clean;

	if (!val) {
		json_object_object_add(o, key, NULL);
		return;
	}
	/* json-c passes bytes >= 0x80 through unchecked: strict UTF-8 first */
	clean = text_utf8_fix(val, strlen(val), NULL);
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
			       t > 0 ? json_object_new_string(time_format_sec(t, tb, sizeof(tb))) : NULL);
}

char *jo_line(struct json_object *o, size_t *len)
{
	const char *text = json_object_to_json_string_ext(o,
							  JSON_C_TO_STRING_PLAIN |
								  JSON_C_TO_STRING_NOSLASHESCAPE);
	char *line;

	if (!text || asprintf(&line, "%s\n", text) < 0)
		return NULL;
	*len = strlen(line);
	return line;
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
