/* Where each node file of a case came from, as the case's evidence.json
 * says (doc/live-pipeline.md, "evidence.json").  Anyone on a node can
 * write a line that says "kernel: NVRM: Xid ..." into syslog or the
 * journal; only the kernel writes to its ring buffer.  So rules marked
 * origin: kernel read kernel-origin files only, and a symptom seen only in
 * files anyone may write is never proof enough to drain a node.
 *
 * A case without evidence.json (or a file it does not list: one an analyst
 * added by hand) is read as before, fully trusted: the manifest is what
 * attrib serve writes for the bundles of its collectors. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <json-c/json.h>
#include "internal.h"

static const struct {
	const char *name;
	enum origin origin;
} names[] = {
	{ ORIGIN_NAME_KERNEL, ORIGIN_KERNEL },
	{ ORIGIN_NAME_JOURNAL, ORIGIN_JOURNAL },
	{ ORIGIN_NAME_JOURNAL_USER, ORIGIN_JOURNAL_USER },
	{ ORIGIN_NAME_FILE, ORIGIN_FILE },
};

static void unusable(struct analysis *a, const char *why)
{
	analysis_add_coverage(a, EVIDENCE_MANIFEST, COVERAGE_ERROR,
			      "%s; every node file is read as origin \"file\" (no kernel rule, no drain)",
			      why);
	a->origins_bad = true;
}

void origins_load(struct analysis *a)
{
	char *path = xmalloc(strlen(a->dir) + sizeof(EVIDENCE_MANIFEST) + 2), err[512];
	struct json_object *m, *files;
	struct stat st;

	sprintf(path, "%s/%s", a->dir, EVIDENCE_MANIFEST);
	if (lstat(path, &st) < 0 && errno == ENOENT) {
		free(path);
		return; /* a hand-made case */
	}
	/* there but unusable: less trust, never more (it may be what is left
	 * of the service's manifest) */
	m = read_json(path, err, sizeof(err));
	if (!m) {
		size_t pl = strlen(path);

		unusable(a, !strncmp(err, path, pl) && err[pl] == ':' ? err + pl + 2 : err);
	} else if (!json_object_is_type(m, json_type_object) ||
		   !json_object_object_get_ex(m, "files", &files) ||
		   !json_object_is_type(files, json_type_object)) {
		unusable(a, "not an object with a \"files\" object");
	} else {
		a->origins = json_object_get(files);
		a->manifest = json_object_get(m);
	}
	json_object_put(m);
	free(path);
}

void origins_free(struct analysis *a)
{
	json_object_put(a->origins);
	a->origins = NULL;
}

enum origin origin_of(struct analysis *a, const char *rel, int source)
{
	struct json_object *f, *o;
	const char *s;

	if (!(source & SRC_NODE))
		return ORIGIN_UNLISTED; /* app/ and scheduler/ have no origin (yet) */
	if (a->origins_bad)
		return ORIGIN_FILE;
	if (!a->origins || !json_object_object_get_ex(a->origins, rel, &f))
		return ORIGIN_UNLISTED;
	if (json_object_is_type(f, json_type_object) && json_object_object_get_ex(f, "origin", &o) &&
	    json_object_is_type(o, json_type_string)) {
		s = json_object_get_string(o);
		for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
			if (!strcmp(s, names[i].name))
				return names[i].origin;
	}
	analysis_add_coverage(a, rel, COVERAGE_ERROR,
			      EVIDENCE_MANIFEST
			      " gives no known origin (kernel, journal, journal-user, file); "
			      "read as \"file\"");
	return ORIGIN_FILE;
}

bool origin_allows(enum origin o, const struct extractor *x)
{
	return !x->kernel_only || o == ORIGIN_UNLISTED || o == ORIGIN_KERNEL;
}

bool origin_low_trust(enum origin o)
{
	return o == ORIGIN_JOURNAL_USER || o == ORIGIN_FILE;
}
