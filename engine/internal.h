/* Types shared by the engine's phases.  Not installed. */
#ifndef ATTRIB_INTERNAL_H
#define ATTRIB_INTERNAL_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <json-c/linkhash.h>
#include "attrib.h"
#include "contract.h"
#include "jsonread.h"
#include "timefmt.h"
#include "xalloc.h"

/* ---- vocabulary of the rules (the result's sub-domains: contract.h) ---- */

enum kind { KIND_NONE = 0, KIND_FAULT, KIND_CONSEQUENCE, KIND_SCHEDULER, KIND_INFO };
enum scope { SCOPE_JOB = 0, SCOPE_NODE };
/* SRC_REPORT: a node file that is a tool's report (nvidia-smi -q, dcgmi,
 * ibstat: lines without timestamps), read as node evidence too. */
/* one bit per kind of evidence (common/evidence.h) */
enum source {
	SRC_NODE = 1 << EVIDENCE_NODE,
	SRC_APP = 1 << EVIDENCE_APP,
	SRC_SCHED = 1 << EVIDENCE_SCHEDULER,
	SRC_JOB = 1 << EVIDENCE_JOB,
	SRC_REPORT = 1 << EVIDENCE_REPORT,
	SRC_ANY = (1 << EVIDENCE_KINDS) - 1
};
enum role { ROLE_NONE = 0, ROLE_ROOT, ROLE_DOWNSTREAM, ROLE_INTERESTING };

const char *kind_name(enum kind k);
int kind_parse(const char *s);
const char *role_name(enum role r);
bool action_valid(const char *action);

/* ---- catalog ---- */

struct strlist {
	char **v;
	int n;
};

struct code {
	char *code; /* xid.149 */
	char *class_name;
	enum kind kind;
	char *sub_domain; /* NULL for consequence/info */
	enum scope scope;
	char *action; /* drain | reboot | reset_gpu | inspect | none */
	char *title, *doc, *resolution, *mnemonic;
	/* another sub_domain this fault fits equally when nothing else
	 * corroborates it (an Xid 31 alone: the program or the GPU) */
	char *also;
	struct strlist tags;
	/* a class attrib serve's drain policy may drain when DrainClasses is
	 * not set (drain_by_default: true; classes only) */
	bool drain_by_default;
	unsigned flags; /* CODE_* from the tags the engine reads, set at load */
	int index;	/* 1.. over every code a symptom can have (0: none) */
	/* decode: choose a row by (field >> shift) & mask */
	char *decode_field;
	int decode_shift;
	unsigned long decode_mask;
	struct code_row *rows;
	int nrows;
	const char *file;
	int line;
};

/* Tags the engine itself reads (doc/rule-format.md, "Tags the engine
 * reads"), resolved once per code at load instead of per event. */
enum {
	CODE_PROGRESS = 1,	/* progress: the application's pulse */
	CODE_CLOCK_SYNC = 2,	/* clock-sync: logged by every node at one moment */
	CODE_ENDS_HANG = 4,	/* ends-hang: a decision a hang explains */
	CODE_REPORTED_LATE = 8, /* reported-late: logged up to report_lag after */
	CODE_SUSPECT = 16,	/* suspect: with no cause found, its node is the one to inspect */
	CODE_GPU = 32,		/* one of settings.gpu_tags: its device is a GPU */
	CODE_BOOT = 64,		/* boot: the node booted */
	CODE_LINK_LOST = 128,	/* link-lost: a node lost its network link (the switch may be why) */
	CODE_GENERIC = 256,	/* repeat-cause: typical of a bad node as much as of the program */
	CODE_FATAL = 512,	/* fatal: a fault the job cannot outlive */
};

struct code_row {
	long *values;
	int nvalues;
	struct code *as; /* the code with this row's overrides applied */
};

struct test_case {
	char *line; /* extractor case */
	char *code; /* expected code (NULL: the extractor's own) */
	bool none;  /* the extractor must not take this line */
	struct strlist field_names, field_values;
	/* refiner case */
	struct test_event *events;
	int nevents;
	struct strlist expect_codes, expect_roles;
	int src_line;
};

struct test_event {
	char *code, *node, *time, *pid, *pci;
};

struct prefix {
	char *id;
	pcre2_code *re;
	/* the bytes a match can start with (found at load by matching each
	 * byte alone, partially): most lines are told apart by their first
	 * byte without running the pattern */
	bool first[256];
	const char *file;
	int line;
};

struct extractor {
	char *id;
	int sources;
	bool kernel_only; /* origin: kernel */
	/* writer: the daemons whose messages it reads (a line of a node file
	 * that names another writer is not its message) */
	struct strlist writers;
	size_t *writer_len; /* their lengths (a line's writer is compared with each, line by line) */
	bool kernel_writer; /* the kernel among them: its messages are read from their first byte */
	/* a writer rule's regex compiled anchored, for a node line's message
	 * (anchoring at match time would cost PCRE2's JIT) */
	pcre2_code *re_msg;
	char *regex;
	char *prefilter; /* a cheaper superset for the prefilter, or NULL */
	pcre2_code *re;
	char *code_tpl;
	const struct code *code; /* when code_tpl has no {capture} */
	int lines;
	int priority;
	bool identity;
	struct strlist const_names, const_values;
	struct test_case *tests;
	int ntests;
	const char *file;
	int line;
};

struct selector {
	struct strlist codes, tags, kinds, classes, sub_domains;
	int sources; /* SRC_* bits: every line of the symptom from these; 0: any */
	bool any;    /* empty selector */
};

enum same { SAME_JOB = 0, SAME_NODE, SAME_PID, SAME_GPU };

struct refiner {
	char *id, *doc;
	struct selector target, by;
	enum same same;
	enum order { ORDER_AFTER = 0, ORDER_BEFORE, ORDER_ANY } order;
	double within; /* <= 0: no limit */
	enum role verdict;
	/* non-NULL: the target, so explained, is read as this code (what a
	 * line means depends on another fact of the job, such as the GPUs it
	 * was allocated) and stays a cause candidate; verdict is unused */
	const struct code *as;
	/* selector results per code index, computed at load: a refiner is
	 * applied to every symptom of every job */
	bool *target_code, *by_code;
	struct test_case *tests;
	int ntests;
	const char *file;
	int line;
};

struct settings {
	double window_before, window_after, clock_skew, tie_window;
	double history;	   /* s before the job whose node faults are kept as history */
	double report_lag; /* s after the job's end a late-reported event still counts */
	int max_evidence;
	struct strlist gpu_tags; /* codes with one of these tags name a GPU by their device */
	/* several nodes' lost links blame their leaf switch (switch.c) */
	double switch_window; /* s: losses this close to the first one are one event */
	int switch_min_nodes; /* at least this many nodes */
	double switch_share;  /* and this share of the job's nodes under the leaf */
};

struct attrib_catalog {
	char *path;		   /* where it was loaded from (absolute when it exists): results name it */
	struct attrib_options opt; /* as loaded: the cache, and analyses' defaults */
	struct settings set;
	struct code **codes;
	int ncodes;
	struct code **classes; /* class defaults, as codes without a code */
	int nclasses;
	struct prefix *prefixes;
	int nprefixes;
	struct extractor *extractors;
	int nextractors;
	struct refiner *refiners;
	int nrefiners;
	struct strlist files; /* owns the file names rules point at */
	struct matcher *matcher;
	struct code *unknown;	     /* for templated codes that are not in the catalog */
	struct lh_table *code_index; /* code string -> struct code */
	int *by_priority;	     /* extractor indexes, highest priority first */
	int *priority_rank;	     /* extractor index -> its place in by_priority */
};

/* The catalog as its files say (catalog.c), its regexes compiled and its
 * matcher built, but not self-tested: attrib_catalog_load (selftest.c)
 * runs the cases, so that reading a catalog needs nothing of the phases
 * the cases exercise.  NULL with file:line: what lines on err. */
attrib_catalog *catalog_read(const char *path, const struct attrib_options *opt, FILE *err);
int catalog_selftest(const attrib_catalog *cat, FILE *out, int verbose);

/* The code named code, or NULL.  The index is built once the codes are
 * read; until then (the loader checking for a code defined twice) the list
 * is searched. */
static inline const struct code *catalog_code(const attrib_catalog *cat, const char *code)
{
	void *v;

	if (cat->code_index)
		return lh_table_lookup_ex(cat->code_index, code, &v) ? v : NULL;
	for (int i = 0; i < cat->ncodes; i++)
		if (!strcmp(cat->codes[i]->code, code))
			return cat->codes[i];
	return NULL;
}

/* ---- the job (job.c) ---- */

struct rank_info {
	int rank;
	int node; /* index into job.nodes */
	char *gpu;
	int exit_code, signal; /* -1 unknown */
	double exit_time;      /* 0 unknown */
	bool has_exit;
};

struct job {
	struct json_object *root;
	const char *job_id, *state, *reason, *exit_code, *derived_exit_code, *tz;
	const char *batch_host; /* optional: where the batch script ran */
	struct strlist nodes;
	double start, end;
	struct rank_info *ranks;
	int nranks;
	bool ranks_exit;	       /* some rank's exit is recorded */
	long long gpus;		       /* GPUs allocated (TRES gres/gpu); -1: not known */
	struct job_record_view record; /* job.json as read: the result's job fields */
};

int job_load(struct job *job, const char *path, char *err, size_t errlen);
void job_free(struct job *job);

/* ---- node identity (identity.c) ---- */

struct identity;
struct identity *identity_new(const struct job *job);
void identity_free(struct identity *id);
/* Resolves a host name, FQDN or IP (optionally with <port> or :port) to a
 * job node index, or -1. */
int identity_node(const struct identity *id, const char *name);
int identity_rank_node(const struct identity *id, int rank);
void identity_learn_ip(struct identity *id, const char *ip, int node);
void identity_learn_rank(struct identity *id, int rank, int node);
void identity_learn_gpu(struct identity *id, int node, const char *gpu, const char *pid, const char *pci);
/* Normalises a PCI bus id (0000:61:00, 61:00.0, 00000000:61:00.0, NCCL
 * busId 61000) to "0000:61:00"; false if it is not one. */
bool pci_normalise(const char *in, char *out, size_t outlen);
/* The PCI id of the GPU a process (pid > 0) or a device index used. */
const char *identity_gpu_pci(const struct identity *id, int node, const char *gpu, long pid);
/* Per node (n lists each), in one pass: the distinct PCI ids the job's
 * processes were seen using, and those processes' pids (NCCL's busId lines
 * carry them) as decimal strings. */
void identity_job_gpus(const struct identity *id, struct strlist *devices, struct strlist *pids, int n);
/* Expands a Slurm hostlist ("node-[02-03,07],gpu1") into out; false if it
 * is not one or names more than max hosts. */
bool hostlist_expand(const char *list, struct strlist *out, int max);

/* ---- the multi-pattern matcher (matcher.c) ---- */

struct matcher;
/* The compiled databases are kept in cat->opt.cache_dir (when not ""). */
struct matcher *matcher_build(const attrib_catalog *cat, FILE *err);
void matcher_free(struct matcher *m);
/* Calls hit(rule index, line start, line end) once per (rule, line) where
 * the rule may match; the caller confirms with PCRE2. */
typedef void (*matcher_hit)(void *ctx, int rule, size_t line_start, size_t match_end);
/* source: one SRC_* bit, the kind of evidence buf is (its database).
 * Only hits on lines that start in [from, to) are reported (buf holds some
 * lines before and after them, for matches that span lines), exactly
 * those a scan of the whole file reports on them. */
int matcher_scan(const struct matcher *m, int source, const char *buf, size_t len, size_t from, size_t to,
		 matcher_hit hit, void *ctx);

/* ---- events and symptoms (scan.c and the files of scan_parts.h, symptoms.c) ---- */

struct evidence {
	int file; /* index into the case's file list */
	long line;
	double time;
	char *text;
};

#define MAX_PIDS 8

/* Why the scoping stage set a symptom aside: seen, shown as context, never
 * a cause or a culprit. */
enum aside {
	ASIDE_NONE = 0,
	ASIDE_OTHER_NODE,    /* names a host that is not one of the job's */
	ASIDE_OTHER_JOB,     /* names another job id */
	ASIDE_BEFORE,	     /* before the job's window (the node's history) */
	ASIDE_BEFORE_BOOT,   /* before the node rebooted, ahead of the job */
	ASIDE_OTHER_GPU,     /* a GPU of the node the job did not use */
	ASIDE_OTHER_PROCESS, /* a program's own GPU fault, and the program is not the job's */
	ASIDE_SURVIVED,	     /* the job kept making progress long after it */
	ASIDE_DURING_HANG,   /* after the job had already stopped making progress */
};
_Static_assert(ASIDE_DURING_HANG < 10, "collapse keys write an aside as one digit");
const char *aside_name(enum aside a);

/* How a symptom's node was found (shown with the culprit). */
enum located {
	LOC_NONE = 0,
	LOC_FILE,	/* the node's own evidence directory */
	LOC_HOST,	/* a host name or address on the line */
	LOC_RANK,	/* the rank on the line, through the ranks map */
	LOC_ONLY_NODE,	/* the job ran on one node */
	LOC_BATCH_HOST, /* a line of the batch step: the batch host */
};
const char *located_name(enum located l);

/* Who vouches for a symptom, best first: the best of its lines decides.
 * A line of a file only root, the kernel or Slurm writes (an origin
 * "kernel" or "journal" node file, one evidence.json does not list,
 * scheduler/, the engine's facts of job.json); else the job's own output
 * (app/), which its user writes: it explains the job, but takes no node
 * out of service and is never proof of a node's or a switch's fault
 * across jobs; else only node files anyone may write (origin "file",
 * "journal-user"): unauthenticated.  A zero symptom is vouched for. */
enum trust { TRUST_VOUCHED = 0, TRUST_JOB_OUTPUT, TRUST_UNAUTHENTICATED };
/* "job-output", "unauthenticated" (the result's "trust"), NULL when vouched */
const char *trust_name(enum trust t);

struct symptom {
	const struct code *code;
	enum aside aside;
	enum located located;
	int source;		       /* SRC_* of its first line */
	int sources;		       /* SRC_* of all its lines */
	int idx;		       /* its place in analysis.sym once resolved */
	bool batch;		       /* the line is about the batch step (its script) */
	int node;		       /* job node index or -1 */
	char *node_raw;		       /* the name the log used, when it is not a job node */
	const char *file_node;	       /* node directory the evidence came from */
	char *rank, *gpu, *pci, *peer; /* as captured */
	char *device;		       /* normalised PCI id or NULL */
	long pids[MAX_PIDS];
	int npids;
	double first, last;  /* epoch seconds */
	bool first_approx;   /* first is a neighbouring line's time */
	bool first_no_later; /* ... or the job's end, when it was printed at the latest */
	long count;
	struct evidence *ev;
	int nev;
	enum role role;
	enum trust trust; /* who vouches for it: its best line's writer */
	/* a fault tagged fatal that the job cannot have run on through unless
	 * its progress says so: vouched for, and the process it names, if
	 * any, is known to be the job's (scope.c) */
	bool fatal;
	const struct symptom *explained_by;
	const char *refined_by;
};

struct coverage {
	char *source, *status, *detail;
};

/* Fields packed into a growing byte store, for events kept by the
 * thousand (a chunk's records, a worker's identity lines): struct fields
 * is mostly room a line does not use; the store keeps what it says. */
struct packed {
	char *p;
	size_t len, cap;
};

struct analysis {
	const attrib_catalog *cat;
	const struct attrib_options *opt; /* the caller's, or the catalog's */
	const char *dir;
	struct job job;
	struct identity *id;
	struct timectx tc;
	struct strlist files; /* relative paths */
	struct symptom **sym;
	int nsym, capsym;
	struct coverage *cov;
	int ncov, capcov;
	struct lh_table *tab;	      /* collapse index: raw key -> symptom */
	struct keyblock *keys;	      /* its keys (symptoms.c: freed at once) */
	struct json_object *origins;  /* evidence.json's "files", during the scan */
	struct json_object *manifest; /* evidence.json, when usable: the service's coverage, revisions */
	bool origins_bad;	      /* evidence.json there but unusable: every node file is "file" */
	long lines_scanned;
	long events;
	/* the application's own progress: times of timestamped progress lines */
	double *progress;
	int nprogress, capprogress;
	/* who printed each of them (same order, unsorted): a fault the same
	 * rank or process ran on through did not end it */
	struct beat {
		double time;
		int file;
		int rank;   /* -1: the line names none */
		long pid;   /* 0: the line names none */
		char *host; /* the host the line names, or NULL */
	} * beats;
	struct evidence last_progress; /* file/line/text of the latest one */
	/* per node: offset of its clock against the job's other nodes (s) */
	double *clock_offset;
	bool clock_estimated;
	/* identity lines of a node log scanned by a worker thread: learnt by
	 * the main thread in file order (workers.c), so the first writer is the
	 * same as in one thread */
	bool deferring;
	struct deferred_identity *defer;
	struct packed defer_store; /* their fields */
	int ndefer, capdefer;
	/* a hang: the job stopped making progress long before it ended */
	bool hang;
	double hang_since, cadence;
};

void analysis_add_coverage(struct analysis *a, const char *source, const char *status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* An event's named fields (captures, context, constants).  The names are
 * borrowed: the catalog's patterns' name tables and its constants, and
 * literals, all of which outlive every event.  The values are copied into
 * the event's own bytes, addressed by offset, so that an event is moved by
 * assignment (struct copy) and needs no allocation at all unless its
 * values outgrow the inline bytes (then one buffer, spill, which the event
 * owns: event_clear frees it, event_copy duplicates it).  A line gives a
 * few fields; the bound is far above what any rule captures, and a field
 * past it is dropped. */
#define EVENT_MAX_FIELDS 32
struct fields {
	int n;
	const char *name[EVENT_MAX_FIELDS];
	uint32_t at[EVENT_MAX_FIELDS]; /* each value's offset in the bytes */
	uint32_t used, size;	       /* bytes used; spill's size */
	char *spill;		       /* every value, once the inline bytes are full */
	char bytes[192];
};

size_t packed_put(struct packed *s, const void *p, size_t n); /* where they start */
/* f packed into s, and left empty (its spill freed): the store has its
 * names and values now.  Returns where they start. */
size_t fields_pack(struct packed *s, struct fields *f);
/* The fields packed at at; the values may stay in the store (the fields
 * borrow them: never event_clear an event unpacked into). */
void fields_unpack(struct fields *f, char *at);

/* One event as an extractor produced it, before collapsing. */
struct event {
	const struct code *code;
	int file;
	long line;
	const char *text;
	size_t text_len;
	double time;
	bool has_time, approx;
	/* approx: the time is when it was printed at the latest (the next
	 * timestamped line's, or the job's end: the job's output was printed
	 * while it ran), not the previous line's (printed no earlier) */
	bool no_later;
	int source;
	const char *file_node; /* node dir for node files */
	struct fields f;       /* captures and context fields */
	size_t match_start;    /* offset of the match in the subject */
	int extractor;
	enum aside aside; /* set by the scan: another job's line, the node's history */
	bool low_trust;	  /* its file's origin is one anyone may write */
};

/* What a line says about itself before any extractor: its time (header,
 * or a prefix's time capture) and prefix fields (rank, node, pid). */
struct line_ctx {
	double time;
	bool has_time;
	size_t body;	  /* offset after header and prefixes */
	struct event ctx; /* names/values only */
};

/* A node log line split into its writer and its message (message.c):
 * kernel rules and rules that name a writer match the message only, from
 * its first byte. */
struct line_msg {
	size_t start;	     /* the message's first byte */
	size_t kernel_start; /* where kernel rules read it: past a leading process name (comm) */
	const char *writer;  /* the syslog tag or journald's _COMM; NULL when the line names none */
	size_t wlen;
	bool header;  /* the line has a syslog or journal header */
	bool journal; /* the writer is journald's _COMM (the collector's journal entries) */
	/* a kernel message that begins with a process name (COMM[PID]: segfault
	 * at ...): the name, which kernel_start has passed */
	const char *comm;
	size_t comm_len;
};
/* The line as rules read it (normalise.c): ANSI sequences, a progress
 * bar's carriage returns, rsyslog's #012/#011 and a trailing CR taken out,
 * in buf; NULL when the line needs none of it. */
const char *line_normalise(const char *line, size_t len, char *buf, size_t cap, size_t *out_len);
/* Messages broken over physical lines (unwrap.c): each such message's
 * lines, buf[start, end) (end: its last line's end). */
#define UNWRAP_LINES 16		   /* physical lines of one message at most */
#define UNWRAP_BYTES (16 * 1024)   /* bytes of one message at most */
#define UNWRAP_FILE_MAX (4u << 20) /* a file larger is no paste (scan.c) */
struct wrap_span {
	size_t start, end;
};
struct unwrap {
	struct wrap_span *v;
	int n, cap;
	int next;     /* scan.c: the first not scanned yet */
	size_t width; /* the terminal width the lines were cut at, 0: none */
};
/* The messages of buf[0, len) broken over lines that begin before to and
 * end at or after from (from, to: line starts), in order; how many.  A
 * file of another source than node or app output has none. */
int unwrap_find(const struct timectx *tc, const char *buf, size_t len, size_t from, size_t to, int source,
		struct unwrap *u);
/* A message's lines joined as rules read it, in out (cap bytes with the
 * NUL); its length. */
size_t unwrap_join(const struct unwrap *u, const char *buf, const struct wrap_span *s, char *out, size_t cap);
void unwrap_free(struct unwrap *u);
/* The columns a terminal shows a line in (no ANSI sequence, no CR) */
size_t unwrap_columns(const char *s, size_t len);
/* Is it a width terminals are commonly set to (80, 100, 120, ...)? */
bool unwrap_terminal_width(size_t columns);
/* pdsh's and clush's "HOST: " before a line with a time or a kernel stamp
 * of its own: its length, or 0 */
size_t line_host_prefix(const struct timectx *tc, const char *line, size_t len);
void line_message(const struct timectx *tc, const char *line, size_t len, struct line_msg *m);
int line_message_starts(const char *line, size_t len, const struct line_msg *m, size_t *starts, int max);
/* Did name write the line (true when the line names no writer)? */
bool line_writer_is(const struct line_msg *m, const char *name, size_t n);
/* The newlines in buf[0, len) (util.c) */
long count_newlines(const char *buf, size_t len);
/* A kernel message another program's line quotes whole, header and all (a
 * monitoring tool's alert forwarding syslog: "Xid errors on instance: H,
 * Error: TIME H kernel: [stamp] msg"), in a line that is no message of the
 * kernel's own (m: the line's, read by line_message: no header, stamp or
 * level): where kernel rules read it, with its time, or 0.  Its writer is
 * that program, not the kernel: what it quotes may be anyone's text, so
 * what it gives is unauthenticated. */
size_t line_quoted_kernel(const struct timectx *tc, const char *line, size_t len, const struct line_msg *m,
			  double *t);

void line_context(const attrib_catalog *cat, const struct timectx *tc, const char *line, size_t len,
		  struct line_ctx *lc);
void line_context_free(struct line_ctx *lc);
/* line_context(...).time and .has_time alone, without its allocations */
bool line_time(const attrib_catalog *cat, const struct timectx *tc, const char *line, size_t len, double *t);
void event_merge_context(struct event *ev, const struct line_ctx *lc);
/* Runs the single-line candidate extractors (indexes, priority order) on
 * one line of the given source.  Returns 1 and fills *out with the winning
 * event, 0 if none; identity events go to identity[].  lc is filled when
 * any extractor matched (free with line_context_free). */
int line_extract(const attrib_catalog *cat, const struct timectx *tc, const char *line, size_t len,
		 int source, const int *cand, int ncand, struct line_ctx *lc, struct event *out,
		 struct event *identity, int *nidentity, int maxidentity);

/* ---- where node files came from (origin.c, evidence.json) ---- */

enum origin {
	ORIGIN_UNLISTED = 0, /* not in evidence.json (a hand-made case): trusted as before */
	ORIGIN_KERNEL,	     /* journal _TRANSPORT=kernel, /dev/kmsg */
	ORIGIN_JOURNAL,	     /* other journal entries of root (_UID 0) */
	ORIGIN_JOURNAL_USER, /* journal entries of any other uid */
	ORIGIN_FILE,	     /* a plain file: anyone may write to it through syslog */
};

/* Reads dir/evidence.json (when there) for the scan; a manifest that is
 * there but unusable is a coverage entry and makes every node file
 * "file". */
void origins_load(struct analysis *a);
void origins_free(struct analysis *a);
enum origin origin_of(struct analysis *a, const char *rel, int source);
/* May extractor x take a line of a file of this origin? */
bool origin_allows(enum origin o, const struct extractor *x);
bool origin_low_trust(enum origin o);
struct json_object *read_json(const char *path, char *err, size_t errlen);

void scan_case(struct analysis *a);
/* Scoping (scope.c): clock offsets between nodes, where each symptom
 * happened (node, GPU), what is not the job's, the job's progress and a
 * hang; runs after symptoms_resolve, before correlate. */
void scope(struct analysis *a);
/* Median of consecutive differences of sorted times (0 when < 3 times). */
double cadence_of(const double *t, int n);
/* Clock offset per node from the times each node logged the same event
 * (t[i] < 0: not seen); out[i] is node i's clock minus the median. */
bool clock_offsets(const double *t, int n, double *out);
void symptom_add_event(struct analysis *a, const struct event *ev);
/* Room in the collapse index for about n symptoms (one resize, not many). */
void symptoms_reserve(struct analysis *a, int n);
/* Moves the symptoms of sub (one file's, collapsed the same way) into a,
 * as if its events had been added to a in order. */
void symptoms_merge(struct analysis *a, struct analysis *sub);
void symptoms_free(struct analysis *a);
/* After the scan: resolve nodes and devices, merge what names the same
 * code on the same node and device. */
void symptoms_resolve(struct analysis *a);
/* Threads for items of parallel work (analysis.c): the options' threads,
 * else the processors online (1 to 16, at most items). */
int analysis_threads(const struct analysis *a, int items);
/* The node a symptom's own fields name (its node's log, the host on the
 * line, the rank through the rank map) and how; -1 and LOC_NONE when they
 * name none.  Identity only, before symptoms_resolve's other rules. */
int symptom_named_node(const struct analysis *a, const struct symptom *s, enum located *how);

/* Applies one extractor to one line; fills ev (names/values allocated)
 * and returns true when it matches.  Shared by the scan and the
 * self-test so a case checks exactly what a scan does. */
bool extractor_apply(const attrib_catalog *cat, const struct extractor *x, const char *subject, size_t len,
		     uint32_t opts, struct event *ev);
/* How many extractor matches on this thread ended at a PCRE2 limit (match,
 * depth or heap: a regex that backtracks catastrophically on that line)
 * since the last call; resets the count.  The scan reports them in
 * coverage: a line a rule could not judge is evidence not read. */
long extractor_limit_hits_take(void);
void event_clear(struct event *ev);
/* dst: a copy of src that owns its own bytes */
void event_copy(struct event *dst, const struct event *src);
const char *event_field(const struct event *ev, const char *name);
/* Sets (or replaces) a field; name must outlive the event (see struct
 * fields); value may be one of the event's own values. */
void event_set(struct event *ev, const char *name, const char *value, size_t len);
static inline const char *event_value(const struct event *ev, int i)
{
	return (ev->f.spill ? ev->f.spill : ev->f.bytes) + ev->f.at[i];
}

/* ---- correlation (correlate.c) and result (result.c) ---- */

struct verdict {
	const char *sub_domain;
	const struct symptom *root;
	struct symptom **roots;
	int nroots;
	bool pass;
	const struct symptom *recurring; /* a fault that follows a GPU across programs */
	char *culprit_switch;		 /* the leaf switch blamed (switch.c), or NULL */
	int confidence;			 /* CONFIDENCE_* (contract.h) */
	const char *basis, *basis_more;	 /* what the confidence rests on, for people */
};

/* The first cause (c[0..*ns) of nc candidates, by time) is lost links on
 * several nodes under one leaf switch of the case's topology: true, with
 * the verdict set on that switch and every such loss moved into the
 * causes.  Otherwise false, and a coverage entry says why no switch. */
bool switch_blame(struct analysis *a, struct symptom **c, int nc, int *ns, struct verdict *v);

/* Whether a refiner's selector takes the symptom, by its code and its
 * lines' sources (selector.c). */
bool selector_match(const struct selector *s, const struct symptom *sym);
/* Its `sources` alone: what the per-code table cannot hold. */
bool selector_sources(const struct selector *s, const struct symptom *sym);
void refine(const attrib_catalog *cat, struct symptom **sym, int n);
void refiner_apply(const struct refiner *r, struct symptom **sym, int n, double skew);
void correlate(struct analysis *a, struct verdict *v);
struct json_object *result_build(struct analysis *a, const struct verdict *v);

/* ---- small helpers (util.c) ---- */

void strlist_add(struct strlist *l, const char *s);
void strlist_free(struct strlist *l);
bool strlist_has(const struct strlist *l, const char *s);
/* Copy of a log line fit for a result: its first line, cleaned by
 * text_clean (common/text.h): invalid UTF-8, control and bidi characters
 * replaced, at most max bytes (then an ellipsis). */
char *text_sanitise(const char *s, size_t len, size_t max);
bool glob_match(const char *pat, const char *s);

#endif
