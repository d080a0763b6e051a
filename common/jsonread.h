/* Reading JSON that attrib did not write itself (job records, bundles,
 * evidence.json, stored results): bounded in size and depth, never
 * following a symbolic link nor blocking on a FIFO, and one getter for
 * the members the code reads.  Errors are returned, never fatal. */
#ifndef ATTRIB_JSONREAD_H
#define ATTRIB_JSONREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <json-c/json.h>

/* The depth of the JSON attrib reads that others wrote: job records,
 * bundles, stored results. */
#define JSON_MAX_DEPTH 32

/* Parses len bytes as exactly one JSON value of at most depth levels
 * (white space may follow).  NULL with a reason ("invalid JSON at byte N:
 * ..."). */
struct json_object *json_parse_bounded(const char *buf, size_t len, int depth, char *err, size_t errlen);
/* Reads a whole regular file of at most max bytes (no symlink followed,
 * O_NONBLOCK) and parses it with json_parse_bounded.  NULL with a reason. */
struct json_object *json_read_file(const char *path, size_t max, int depth, char *err, size_t errlen);
/* json_read_file, and the opened file must also be owned by a uid
 * owner_ok() accepts and have one link (no hard link to another file);
 * its stat in *st (may be NULL). */
struct json_object *json_read_file_owned(const char *path, size_t max, int depth, bool (*owner_ok)(uid_t),
					 struct stat *st, char *err, size_t errlen);
/* The string (or integer, as text) member k of o; NULL when o is not an
 * object, k is absent, null or of another type. */
const char *json_str(struct json_object *o, const char *k);
/* Every string value in o (recursively) cleaned by text_clean (text.h),
 * at most TEXT_MAX bytes each: what attribd stores and sends, and what
 * attrib shows.  Keys are left alone (attrib's own, never input's).
 * Returns how many strings it changed. */
int json_clean_strings(struct json_object *o);
/* a / b as a JSON number written with four decimals (0.9375), the form of
 * every share and rate attrib prints; NULL (JSON null) when b is 0 */
struct json_object *json_ratio(long a, long b);

#endif
