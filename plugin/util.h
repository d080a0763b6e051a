/*
 * Helpers shared by the Slurm plugins (jobcomp/attrib, spank attrib):
 * JSON members through json-c (strict UTF-8: common/text.c; RFC 3339:
 * common/timefmt.c; both compiled in, as is common/fileio.c, the atomic
 * write), and opening a directory without following symbolic links.
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

#include <json-c/json.h>

#include "fileio.h"

/* Members of a JSON record, built with json-c.  Strings are made strict
 * UTF-8 first (invalid bytes become U+FFFD); NULL strings and times <= 0
 * are null. */
void jo_str(struct json_object *o, const char *key, const char *val);
void jo_int(struct json_object *o, const char *key, long long val);
void jo_time(struct json_object *o, const char *key, time_t t);
/* o as one line of compact JSON with a newline (malloc), or NULL. */
char *jo_line(struct json_object *o, size_t *len);

/*
 * Open (creating missing components: the last with mode, those above it
 * 0755) the absolute directory path
 * without following symbolic links in any component. Returns a descriptor
 * (O_DIRECTORY | O_CLOEXEC) or -1 with a description in err.
 */
int open_dir_nofollow(const char *path, mode_t mode, bool create, char *err, size_t errlen);

/*
 * DIR/jobs, the job records' directory (DIR made 0755, jobs 0700 when
 * missing, no symbolic link followed); refused unless owned by this
 * process's user and not writable by others. Returns a descriptor, or -1
 * with a description in err.
 */
int open_jobs_dir(const char *dir, char *err, size_t errlen);

#endif
