/* Reading a user's file as that user (userfile.c). */
#ifndef ATTRIB_USERFILE_H
#define ATTRIB_USERFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Reads the last max bytes of path as uid/gid (setfsuid/setfsgid and the
 * user's groups, this thread only), from a whole line on:
 * O_NOFOLLOW|O_NONBLOCK, a regular file owned by uid, else NULL with
 * *missing set for ENOENT and a reason. */
char *read_tail_as_user(const char *path, uid_t uid, gid_t gid, size_t max, size_t *len, bool *missing,
			char *err, size_t errlen);

#endif
