/* attribd, util.c: the files the daemon writes, durably; the bounds of
 * what it reads. */
#ifndef ATTRIB_UTIL_H
#define ATTRIB_UTIL_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "contract.h"
#include "jsonread.h"

#define RECORD_MAX_BYTES (16L << 20)   /* a job record (jobcomp/attrib) */
#define NAME_MAX_LEN CONTRACT_NAME_MAX /* job ids, node names, file names */

/* Writes data to path atomically: a dot-file beside it, fsync, rename,
 * fsync of the directory.  Mode 0600.  0 or -1 with errno. */
int svc_write_atomic(const char *path, const void *data, size_t len);
int svc_write_file(const char *path, const void *data, size_t len); /* plain, 0600 */
int svc_mkdir_p(const char *path, mode_t mode);
int svc_rmtree(const char *path); /* never follows symlinks; ENOENT is fine */
int svc_fsync_dir(const char *dir);

#endif
