/* What the service's files share: the log, name checks, bounded JSON
 * reading and atomic file writes. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>
#include "service.h"
#include "text.h"

static int log_fd = 2;
static bool log_syslog;
static enum svc_level log_max = SVC_INFO;
static bool log_tee;

int svc_log_open(const char *path, bool use_syslog)
{
	if (path && *path) {
		int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);

		if (fd < 0)
			return -1;
		if (log_fd > 2)
			close(log_fd);
		log_fd = fd;
		log_syslog = false;
	} else if (use_syslog) {
		openlog("attrib", LOG_PID, LOG_DAEMON);
		log_syslog = true;
	}
	return 0;
}

void svc_log_set_level(enum svc_level max)
{
	log_max = max;
}

void svc_log_tee(bool on)
{
	log_tee = on;
}

void svc_log(enum svc_level level, const char *fmt, ...)
{
	static const char *names[] = { "error", "warning", "info", "debug" };
	static const int prio[] = { LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG };
	char msg[2048], line[2200], ts[40];
	va_list ap;
	int n;

	if (level > log_max)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* one message, one line: a job's output path, a bundle's text or a
	 * user name with a newline, ESC or bidi control must not forge a
	 * line of its own, nor rewrite the terminal that reads the log */
	char *clean = text_clean(msg, strlen(msg), sizeof(msg) - 8);

	snprintf(msg, sizeof(msg), "%s", clean);
	free(clean);
	if (log_tee && level <= SVC_WARNING && (log_syslog || log_fd != 2))
		fprintf(stderr, "attrib: %s: %s\n", names[level], msg);
	if (log_syslog) {
		syslog(prio[level], "%s", msg);
		return;
	}
	svc_rfc3339(time(NULL), ts, sizeof(ts));
	n = snprintf(line, sizeof(line), "%s attrib[%d]: %s: %s\n", ts, (int)getpid(), names[level],
		     msg);
	if (n > (int)sizeof(line) - 1)
		n = sizeof(line) - 1;
	if (write(log_fd, line, n) < 0) {
		/* nowhere else to say it */
	}
}

bool svc_valid_name(const char *s)
{
	size_t n;

	if (!s || !*s || *s == '.' || *s == '-')
		return false;
	n = strlen(s);
	if (n > NAME_MAX_LEN || strstr(s, ".."))
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-'))
			return false;
	}
	return true;
}

struct json_object *svc_parse_json(const char *buf, size_t len, int depth, char *err,
				   size_t errlen)
{
	struct json_tokener *tok;
	struct json_object *o;
	size_t at;

	if (len > INT_MAX) {
		snprintf(err, errlen, "too large to parse");
		return NULL;
	}
	tok = json_tokener_new_ex(depth);
	if (!tok) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	o = json_tokener_parse_ex(tok, buf, (int)len);
	if (!o) {
		enum json_tokener_error e = json_tokener_get_error(tok);

		snprintf(err, errlen, "invalid JSON at byte %zu: %s", json_tokener_get_parse_end(tok),
			 e == json_tokener_continue ? "unexpected end"
						    : json_tokener_error_desc(e));
		json_tokener_free(tok);
		return NULL;
	}
	at = json_tokener_get_parse_end(tok);
	while (at < len && strchr(" \t\r\n", buf[at]))
		at++;
	json_tokener_free(tok);
	if (at < len) {
		snprintf(err, errlen, "invalid JSON at byte %zu: trailing data", at);
		json_object_put(o);
		return NULL;
	}
	return o;
}

struct json_object *svc_read_json_owned(const char *path, size_t max, int depth,
					bool (*owner_ok)(uid_t), struct stat *stp, char *err,
					size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	struct json_object *o;
	struct stat st;
	size_t got = 0;
	ssize_t n;
	char *buf;

	if (fd < 0) {
		snprintf(err, errlen, "%s", errno == ELOOP ? "a symbolic link" : strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "not a regular file");
		close(fd);
		return NULL;
	}
	/* the opened file itself, so nothing swapped in after a look counts */
	if (owner_ok && !owner_ok(st.st_uid)) {
		snprintf(err, errlen, "owned by uid %u, which may not write here", (unsigned)st.st_uid);
		close(fd);
		return NULL;
	}
	if (owner_ok && st.st_nlink != 1) {
		/* a hard link is another name of someone else's file */
		snprintf(err, errlen, "has %lu hard links", (unsigned long)st.st_nlink);
		close(fd);
		return NULL;
	}
	if ((size_t)st.st_size > max) {
		snprintf(err, errlen, "%lld bytes, more than %zu", (long long)st.st_size, max);
		close(fd);
		return NULL;
	}
	if (stp)
		*stp = st;
	buf = malloc(st.st_size + 1);
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		close(fd);
		return NULL;
	}
	while (got < (size_t)st.st_size && (n = read(fd, buf + got, st.st_size - got)) > 0)
		got += n;
	close(fd);
	o = svc_parse_json(buf, got, depth, err, errlen);
	free(buf);
	return o;
}

struct json_object *svc_read_json(const char *path, size_t max, int depth, char *err,
				  size_t errlen)
{
	return svc_read_json_owned(path, max, depth, NULL, NULL, err, errlen);
}

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

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= n;
	}
	return 0;
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
	char tmp[PATH_MAX], dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	int fd, e;

	if (!slash || (size_t)(slash - path) >= sizeof(dir)) {
		errno = EINVAL;
		return -1;
	}
	memcpy(dir, path, slash - path);
	dir[slash - path] = 0;
	if (snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, slash + 1) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkostemp(tmp, O_CLOEXEC);	/* mode 0600 */
	if (fd < 0)
		return -1;
	if (write_all(fd, data, len) < 0 || fsync(fd) < 0) {
		e = errno;
		close(fd);
		unlink(tmp);
		errno = e;
		return -1;
	}
	close(fd);
	if (rename(tmp, path) < 0) {
		e = errno;
		unlink(tmp);
		errno = e;
		return -1;
	}
	return svc_fsync_dir(dir);
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

const char *svc_json_str(struct json_object *o, const char *k)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, k, &v))
		return NULL;
	if (!json_object_is_type(v, json_type_string) && !json_object_is_type(v, json_type_int))
		return NULL;
	return json_object_get_string(v);
}

void svc_rfc3339(time_t t, char *buf, size_t len)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int svc_json_clean(struct json_object *o)
{
	int changed = 0;

	switch (json_object_get_type(o)) {
	case json_type_string: {
		const char *v = json_object_get_string(o);
		int len = json_object_get_string_len(o);

		if (!text_is_clean(v, len)) {
			char *c = text_clean(v, len, SVC_TEXT_MAX);

			json_object_set_string(o, c);
			free(c);
			changed++;
		}
		break;
	}
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(o); i++)
			changed += svc_json_clean(json_object_array_get_idx(o, i));
		break;
	case json_type_object: {
		json_object_object_foreach(o, k, v) {
			(void)k;	/* keys are the contract's own, never from input */
			changed += svc_json_clean(v);
		}
		break;
	}
	default:
		break;
	}
	return changed;
}

/* (accounting comments and drain reasons: service.h) */
void comment_sanitise(char *s, size_t max)
{
	size_t o = 0;

	for (size_t i = 0; s[i]; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\'' || c == '`' || c == '\\')
			continue;
		if (c < 0x20 || c > 0x7e)
			c = ' ';
		if (c == ' ' && (o == 0 || s[o - 1] == ' '))
			continue;
		s[o++] = c;
	}
	while (o && s[o - 1] == ' ')
		o--;
	if (o > max) {
		o = max;
		while (o && s[o - 1] == ' ')
			o--;
	}
	s[o] = 0;
}
