/* attribd, bundlescan.c: a bundle's JSON checked as it streams in. */
#ifndef ATTRIB_BUNDLESCAN_H
#define ATTRIB_BUNDLESCAN_H

#include <stdbool.h>
#include <stddef.h>
#include "jsonread.h"
#include "util.h"

/* Values (containers, strings, numbers, literals) a bundle may hold: far
 * above any real one (a few files, about 10 values per rank record, 1,024
 * ranks: 10,000), and what bounds json-c's memory when casebuild parses it
 * later: about 810 bytes per empty object, so 100,000 cost at most ~80 MB
 * beside the text itself (1,000,000 did 810 MB). */
#define BUNDLE_MAX_VALUES 100000
#define BUNDLE_MAX_VALUES_S "100000"
struct bscan {
	int st, nst, depth, key, litpos;
	char stack[JSON_MAX_DEPTH];
	bool in_string, in_number, is_key, esc, capturing, cap_bad;
	int uhex;
	const char *lit;
	size_t off, values, caplen;
	char cap[NAME_MAX_LEN + 1];
	/* the top level: its type ('{', '[', 's', 'n', 'b', 'z'; 0: none),
	 * files' type, and the strings schema, job_id, node ("" when absent) */
	char top_type, files_type;
	char schema[NAME_MAX_LEN + 1], job_id[NAME_MAX_LEN + 1], node[NAME_MAX_LEN + 1];
	char err[128];
};
void bscan_init(struct bscan *b);
/* -1 once the input is not JSON (b->err says why, with the byte offset) */
int bscan_feed(struct bscan *b, const char *data, size_t len);
/* -1 when the input so far is not one whole JSON value */
int bscan_end(struct bscan *b);

#endif
