/* attrib-collect's evidence sources: one file each, behind this one
 * interface, listed once in source.c's table (epilog/README.md, "Adding a
 * source").  A source turns the job's window into bundle files and says in
 * coverage entries what it could not give. */
#ifndef ATTRIB_SOURCE_H
#define ATTRIB_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

struct collect_ctx;
struct names;

/* Where a source puts what it found. */
struct source_out {
	json_object *files;  /* bundle files: add_file() */
	json_object *cov;    /* coverage entries: cover() */
	struct names *used;  /* the bundle's file names: unique_name() */
	size_t cap;	     /* bytes this source may keep (the ones nearest the job end) */
	long kernel_entries; /* the kernel's messages the sources read so far gave */
	bool kernel_log;     /* a source of the kernel's own messages was read */
};

struct evidence_source {
	const char *name; /* what it is, in the docs and the log */
	/* Does this LogSources entry name the source? */
	bool (*match)(const char *spec);
	/* The entries LogSources "auto" tries, NULL-terminated ... */
	const char *const *defaults;
	/* ... of which those the node has: does it (cheap: no reading)? */
	bool (*available)(const char *spec);
	/* Adds the window [cx->start, cx->end] of spec to out. */
	void (*collect)(const struct collect_ctx *cx, const char *spec, struct source_out *out);
};

extern const struct evidence_source source_journal, source_file, source_kmsg;

/* Every LogSources entry collected by the source that matches it, the
 * sources in the table's order, budget bytes shared among them; "auto"
 * stands for every default the node has.  Says in coverage when the node
 * gave no kernel log. */
void sources_collect(const struct collect_ctx *cx, size_t budget, json_object *files, json_object *cov,
		     struct names *used);

#endif
