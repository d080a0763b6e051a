/*
 * Helpers shared by the Slurm plugins (jobcomp/attrib, spank attrib):
 * a JSON text builder that escapes every string it is given, RFC 3339
 * times, and an atomic write (temporary file, fsync, rename) relative to a
 * directory descriptor.
 *
 * Nothing here uses Slurm: the same object is linked into both plugins.
 * None of these names is exported (see plugin/plugin.map).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ATTRIB_PLUGIN_UTIL_H
#define ATTRIB_PLUGIN_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

/* A growing text buffer. On allocation failure it stops growing and sets
 * failed; callers check failed once at the end. */
struct jbuf {
	char *p;
	size_t len, cap;
	bool failed;
	bool comma; /* the next member needs a leading comma */
};

bool jb_init(struct jbuf *b, size_t cap);
void jb_free(struct jbuf *b);
void jb_raw(struct jbuf *b, const char *s, size_t n);
void jb_fmt(struct jbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "s" as a JSON string (null when s is NULL): quote and backslash escaped,
 * control characters as \uXXXX (or \n \t ...), invalid UTF-8 as U+FFFD. */
void jb_string(struct jbuf *b, const char *s);
void jb_begin(struct jbuf *b, char open); /* '{' or '[' */
void jb_end(struct jbuf *b, char close);  /* '}' or ']' */
void jb_key(struct jbuf *b, const char *key);
void jb_elem(struct jbuf *b); /* comma before an array element */
void jb_kstr(struct jbuf *b, const char *key, const char *val);
void jb_kint(struct jbuf *b, const char *key, long long val);
void jb_ktime(struct jbuf *b, const char *key, time_t t); /* null when t <= 0 */

/* "YYYY-MM-DDTHH:MM:SSZ"; returns buf. */
char *fmt_rfc3339(time_t t, char *buf, size_t len);

/*
 * Write buf to dirfd/name atomically: create dirfd/tmpname (O_EXCL,
 * O_NOFOLLOW, mode; a stale one is removed first), write, fsync (when
 * sync), rename over name. Returns 0, or -1 with errno set and a
 * description in err.
 */
int write_atomic_at(int dirfd, const char *name, const char *tmpname, const char *buf,
		    size_t len, mode_t mode, bool sync, char *err, size_t errlen);

/*
 * Open (creating missing components: the last with mode, those above it
 * 0755) the absolute directory path
 * without following symbolic links in any component. Returns a descriptor
 * (O_DIRECTORY | O_CLOEXEC) or -1 with a description in err.
 */
int open_dir_nofollow(const char *path, mode_t mode, bool create, char *err, size_t errlen);

#endif
