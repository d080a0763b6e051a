/* The kinds of evidence a case holds, one row each, with the words that
 * name them: the case directory's layout (doc/formats.md, "The case
 * directory"), the rules' source: (doc/rule-format.md), the origins of
 * node files (evidence.json) and the coverage words of the result.  The
 * one place these words are spelled: the service writes a case with them,
 * the engine reads it with them, the catalog's documentation and attribd's
 * metrics print them, t/formats.sh checks that no one spells them again.
 *
 * A new kind of evidence is one row of evidence_kinds[] (evidence.c), its
 * enum evidence_kind, and the file that reads it (engine/) and the one
 * that writes it (the service or the collector): doc/hacking.md, "A kind
 * of evidence". */
#ifndef ATTRIB_EVIDENCE_H
#define ATTRIB_EVIDENCE_H

#include <stdbool.h>

/* ---- the case directory ---------------------------------------------------- */

#define CASE_JOB "job.json"	      /* the job record (attrib.job/v1) */
#define CASE_NODES "nodes"	      /* nodes/NODE/FILE: EVIDENCE_NODE */
#define CASE_APP "app"		      /* app/FILE: EVIDENCE_APP */
#define CASE_SCHEDULER "scheduler"    /* scheduler/FILE: EVIDENCE_SCHEDULER */
#define CASE_TOPOLOGY "topology.conf" /* the site's switches (optional) */
#define EVIDENCE_MANIFEST "evidence.json"
/* evidence.json's other keys, written by the service and read by the
 * engine, which puts them in the result: what the service could not
 * collect (coverage entries), and for a diagnosis redone with late
 * evidence, how many times and what it said before (the result's
 * "revised" and "revisions", doc/formats.md) */
#define EVIDENCE_FILES "files"
#define EVIDENCE_COVERAGE "coverage"
#define EVIDENCE_REVISED "revised"
#define EVIDENCE_REVISIONS "revisions"

/* The kinds, in the order of the engine's SRC_* bits (1 << kind). */
enum evidence_kind {
	EVIDENCE_NODE,	    /* nodes/NODE/FILE: a node's logs */
	EVIDENCE_APP,	    /* app/FILE: the job's own output */
	EVIDENCE_SCHEDULER, /* scheduler/FILE: slurmctld's lines of the job */
	EVIDENCE_JOB,	    /* job.json: what Slurm's record says */
	EVIDENCE_REPORT,    /* a node file that is a tool's report (nvidia-smi -q) */
	EVIDENCE_KINDS
};

struct evidence_kind_row {
	const char *source; /* the rules' `source:` word */
	const char *dir;    /* its folder of the case; NULL: none of its own */
	bool per_node;	    /* dir/NODE/FILE */
	const char *what;   /* what it holds, for the documentation */
};
extern const struct evidence_kind_row evidence_kinds[EVIDENCE_KINDS];

/* The kind a rule's `source:` word names, or -1. */
int evidence_kind_of_source(const char *word);
/* The kind a path of the case (or a coverage entry's source: "nodes/n1",
 * "nodes/n1:kmsg", "app/slurm-1.out", "job.json") is evidence of, or -1. */
int evidence_kind_of_path(const char *path);

/* ---- where a node file's lines came from (evidence.json "origin") ----------
 * Who could have written them, which is what the engine trusts them for. */
#define ORIGIN_NAME_KERNEL "kernel"		/* journal _TRANSPORT=kernel, /dev/kmsg */
#define ORIGIN_NAME_JOURNAL "journal"		/* other journal entries of uid 0 */
#define ORIGIN_NAME_JOURNAL_USER "journal-user" /* journal entries of any other uid */
#define ORIGIN_NAME_FILE "file"			/* a log file: anyone may write to it via syslog */
/* the job's std_out/std_err read on the batch host: the job's user wrote
 * it (the service puts it in app/, never in nodes/) */
#define ORIGIN_NAME_JOB_OUTPUT "job-output"
/* A result's "trust" (root_cause.trust, symptoms[].trust), when nothing
 * only root, the kernel or Slurm writes vouches for the symptom: every
 * line of it is the job's own output (app/) or in files anyone may write
 * (job-output), or only in the latter (unauthenticated). */
#define TRUST_NAME_JOB_OUTPUT ORIGIN_NAME_JOB_OUTPUT
#define TRUST_NAME_UNAUTHENTICATED "unauthenticated"

/* ---- a node's log sources (attrib.conf LogSources; the collector) ---------
 * A bundle's coverage entry of one is "nodes/NODE:SOURCE" in the case. */
#define NODE_SOURCE_AUTO "auto"		    /* those of the below the node has */
#define NODE_SOURCE_JOURNAL "journal"	    /* or "journal:DIR" */
#define NODE_SOURCE_KMSG "kmsg"		    /* the kernel's ring buffer */
#define NODE_SOURCE_KERNEL_LOG "kernel-log" /* the kernel's lines, whichever source gave them */
/* any other source is a log file's absolute path */

/* ---- coverage: what the diagnosis could not read ----------------------------
 * The result's coverage[].status (and a bundle's coverage entries). */
#define COVERAGE_MISSING "missing" /* not there: never collected, not found */
#define COVERAGE_ERROR "error"	   /* there but not usable (unreadable, refused, too large) */
#define COVERAGE_PARTIAL "partial" /* read in part (cut at a limit) */
#define COVERAGE_EMPTY "empty"	   /* there, but no line in the job's window */
#define COVERAGE_INFO "info"	   /* said for the record, nothing lost */

#endif
