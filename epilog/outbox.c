/* attrib-collect: NodeSpoolDir and the outbox of bundles the service
 * did not take, sent first by the next run. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>
#include "conf.h"
#include "contract.h"
#include "fileio.h"
#include "log.h"
#include "sha256.h"
#include "text.h"
#include "timefmt.h"
#include "xalloc.h"
#include "collect.h"
#include <sys/file.h>
#include <sys/time.h>

#define MAX_OUTBOX 100 /* bundles kept waiting; the oldest go first */

/* ---- outbox ---- */

static int open_dir_at(int at, const char *name, bool create)
{
	int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT && create) {
		if (mkdirat(at, name, 0700) && errno != EEXIST)
			return -1;
		fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	return fd;
}

/* Opens NodeSpoolDir, making it (0700) when missing. */
int open_spool(const char *path, char *why, size_t whylen)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0 && errno == ENOENT) {
		char *p = strdup_or_die(path);

		for (char *s = strchr(p + 1, '/');; s = strchr(s + 1, '/')) {
			if (s)
				*s = 0;
			if (mkdir(p, 0700) && errno != EEXIST)
				break;
			if (!s)
				break;
			*s = '/';
		}
		free(p);
		fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0) {
		snprintf(why, whylen, "%s",
			 errno == ELOOP || errno == ENOTDIR ? "not a directory (or a symbolic link)"
							    : strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || st.st_uid != geteuid() || (st.st_mode & 022)) {
		snprintf(why, whylen, "must be owned by uid %ld and writable by it alone", (long)geteuid());
		close(fd);
		return -1;
	}
	return fd;
}

int spool_mark(int spool, const char *node, char *other, size_t otherlen)
{
	char mark[300], fn[256];
	DIR *d;
	struct dirent *de;
	int fd, n = 0;

	node_file_name(node, fn, sizeof(fn));
	snprintf(mark, sizeof(mark), "node@%s", fn);
	if ((fd = openat(spool, mark, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600)) >= 0)
		close(fd);
	if ((fd = openat(spool, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return 0;
	if (!(d = fdopendir(fd))) {
		close(fd);
		return 0;
	}
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "node@", 5) && strcmp(de->d_name, mark) && n++ == 0)
			snprintf(other, otherlen, "%s", de->d_name + 5);
	closedir(d);
	return n;
}

/* Writes body to outbox/ atomically (temporary dot-file, fsync, rename). */
int outbox_put(int spool, const char *job, const char *body, size_t len, char *err, size_t errlen)
{
	int ob;
	char tmp[256], name[128], why[300];
	struct timeval tv;

	if (spool < 0) {
		snprintf(err, errlen, "no NodeSpoolDir");
		return -1;
	}
	if ((ob = open_dir_at(spool, "outbox", true)) < 0) {
		snprintf(err, errlen, "outbox: %s", strerror(errno));
		return -1;
	}
	gettimeofday(&tv, NULL);
	snprintf(name, sizeof(name), "%010lld.%06ld-%s.json", (long long)tv.tv_sec, (long)tv.tv_usec, job);
	snprintf(tmp, sizeof(tmp), ".%s.%ld.tmp", name, (long)getpid());
	if (write_atomic_at(ob, name, tmp, body, len, 0600, true, why, sizeof(why))) {
		snprintf(err, errlen, "outbox: %s", why);
		close(ob);
		return -1;
	}
	fsync(ob);
	close(ob);
	snprintf(err, errlen, "outbox/%s", name);
	return 0;
}

static char *read_small(int dir, const char *name, long max, size_t *len)
{
	struct stat st;
	int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	char *buf = NULL;
	ssize_t got;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= max) {
		buf = xmalloc((size_t)st.st_size + 1);
		got = pread(fd, buf, (size_t)st.st_size, 0);
		if (got != st.st_size) {
			free(buf);
			buf = NULL;
		} else {
			buf[got] = 0;
			*len = (size_t)got;
		}
	}
	close(fd);
	return buf;
}

/* Sends what earlier runs left in outbox/, oldest first, one try each,
 * until one fails; uses at most until (monotonic).  A bundle the service
 * refuses for good moves to outbox/rejected/. */
void outbox_flush(const struct collect_ctx *cx, int spool, double until)
{
	int ob = spool >= 0 ? open_dir_at(spool, "outbox", false) : -1;
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	int n = 0;

	if (ob < 0)
		return;
	if (flock(ob, LOCK_EX | LOCK_NB)) { /* another epilog is sending them */
		close(ob);
		return;
	}
	if (!(d = fdopendir(ob))) {
		close(ob);
		return;
	}
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (de->d_name[0] == '.' || l < 6 || strcmp(de->d_name + l - 5, ".json"))
			continue;
		names = xrealloc(names, (n + 1) * sizeof(*names));
		names[n++] = strdup_or_die(de->d_name);
	}
	if (n)
		qsort(names, n, sizeof(*names), name_cmp);
	for (int i = 0; i + MAX_OUTBOX < n; i++) { /* too many waiting: drop the oldest */
		if (!unlinkat(dirfd(d), names[i], 0))
			clog_msg("outbox full (%d bundles): dropped %s", n, names[i]);
		free(names[i]);
		names[i] = NULL;
	}
	for (int i = 0; i < n; i++) {
		size_t len = 0;
		char *body, err[1024];
		json_object *o = NULL, *jv, *nv;
		enum send_status rc;

		if (!names[i])
			continue;
		if (now_mono() >= until) {
			clog_msg("outbox: no time left for %s (and %d more); the next run sends them",
				 names[i], n - i - 1);
			break;
		}
		body = read_small(dirfd(d), names[i], cx->conf->max_bundle_bytes * 2, &len);
		if (body)
			o = json_tokener_parse(body);
		if (o && json_object_object_get_ex(o, "node", &nv) && cx->node &&
		    strcmp(json_object_get_string(nv), cx->node)) {
			/* another node's (a shared spool): its credential must be made there */
			json_object_put(o);
			free(body);
			continue;
		}
		if (!o || !json_object_object_get_ex(o, "job_id", &jv) ||
		    !json_object_object_get_ex(o, "node", &nv)) {
			clog_msg("outbox: %s is not a bundle; moved to outbox/rejected/", names[i]);
			rc = SEND_REFUSED;
		} else {
			rc = send_body(cx, json_object_get_string(jv), json_object_get_string(nv), body, len,
				       until, 1, err, sizeof(err));
			if (rc == SEND_OK)
				clog_msg("outbox: sent %s", names[i]);
			else
				clog_msg("outbox: %s not sent: %s", names[i], err);
		}
		json_object_put(o);
		free(body);
		if (rc == SEND_OK) {
			unlinkat(dirfd(d), names[i], 0);
		} else if (rc == SEND_REFUSED) {
			int rj = open_dir_at(dirfd(d), "rejected", true);

			if (rj < 0 || renameat(dirfd(d), names[i], rj, names[i]))
				unlinkat(dirfd(d), names[i], 0);
			if (rj >= 0)
				close(rj);
		} else {
			break; /* the service is not answering: keep the rest */
		}
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(d);
}
