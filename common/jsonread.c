/* Bounded JSON reading: see jsonread.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "jsonread.h"
#include "text.h"

struct json_object *json_parse_bounded(const char *buf, size_t len, int depth, char *err, size_t errlen)
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
			 e == json_tokener_continue ? "unexpected end" : json_tokener_error_desc(e));
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

struct json_object *json_read_file_owned(const char *path, size_t max, int depth, bool (*owner_ok)(uid_t),
					 struct stat *stp, char *err, size_t errlen)
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
	o = json_parse_bounded(buf, got, depth, err, errlen);
	free(buf);
	return o;
}

struct json_object *json_read_file(const char *path, size_t max, int depth, char *err, size_t errlen)
{
	return json_read_file_owned(path, max, depth, NULL, NULL, err, errlen);
}

const char *json_str(struct json_object *o, const char *k)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, k, &v))
		return NULL;
	if (!json_object_is_type(v, json_type_string) && !json_object_is_type(v, json_type_int))
		return NULL;
	return json_object_get_string(v);
}

int json_clean_strings(struct json_object *o)
{
	int changed = 0;

	switch (json_object_get_type(o)) {
	case json_type_string: {
		const char *v = json_object_get_string(o);
		int len = json_object_get_string_len(o);

		if (!text_is_clean(v, len)) {
			char *c = text_clean(v, len, TEXT_MAX);

			json_object_set_string(o, c);
			free(c);
			changed++;
		}
		break;
	}
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(o); i++)
			changed += json_clean_strings(json_object_array_get_idx(o, i));
		break;
	case json_type_object: {
		json_object_object_foreach (o, k, v) {
			(void)k; /* keys are doc/formats.md's, never from input */
			changed += json_clean_strings(v);
		}
		break;
	}
	default:
		break;
	}
	return changed;
}

struct json_object *json_ratio(long a, long b)
{
	char buf[32];

	if (!b)
		return NULL;
	snprintf(buf, sizeof(buf), "%.4f", (double)a / b);
	return json_object_new_double_s(strtod(buf, NULL), buf);
}
