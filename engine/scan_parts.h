/* The scan of a case's evidence, shared by its files (not installed,
 * included by them alone):
 *   scan.c       the walk of the case: app/, scheduler/, nodes/NODE/ into a
 *                plan of files to scan, then job.json's facts
 *   workers.c    the plan's files and chunks scanned on several threads,
 *                merged in file order
 *   chunks.c     a large file cut into chunks of lines, and their events'
 *                times found in file order
 *   jobfacts.c   job.json's facts as lines the rules read
 *   linescan.c   the line loop: the matcher's hits per line, the candidate
 *                extractors in priority order, multi-line rules
 *   deliver.c    an event's way into the analysis: the job's window, other
 *                jobs, the application's progress, node identity
 *   linetime.c   line numbers, and the time of a line without its own
 *   casefiles.c  listing the case's directories, opening and reading its
 *                files (pread, never mapped), a node log's job window
 * Each file calls only those below it in this list. */
#ifndef ATTRIB_SCAN_PARTS_H
#define ATTRIB_SCAN_PARTS_H

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/types.h>
#include "internal.h"

#define MAX_LINE (64 * 1024) /* bytes of one line a regex sees */
#define MAX_IDENTITY 16
#define NEIGHBOUR_LINES 400 /* how far to look for a timestamped line */
#define MAX_FILES 100000

/* An event of a chunk of a large file, kept until the chunks before are
 * scanned: the time of a line without its own depends on them (see
 * chunks.c).  A chunk of a large log records tens of thousands:
 * each is the event without its fields (struct fields is most of an
 * event's size, mostly unused), its line and its fields packed in the
 * chunk's store (record_add, record_event). */
struct record {
	const struct code *code; /* NULL: only a time */
	int file, source, extractor;
	long line;
	size_t text_len, match_start;
	double time;
	bool has_time, approx, no_later, low_trust;
	enum aside aside;
	const char *file_node;
	size_t text_at;	  /* its line in the chunk's store */
	size_t fields_at; /* then its fields: n, used, names, offsets, bytes */
	bool untimed;	  /* time is to be found */
	/* where neighbour_time's search would start: the line after the
	 * event's, or inside it (q_start false: a line cut at MAX_LINE or a CR) */
	long q_line;
	bool q_start;
	bool t_found; /* the first line after it with a time of its own, in the chunk */
	long t_line;
	double t_time;
};

struct file_scan {
	struct analysis *a;
	const char *buf; /* the bytes read */
	size_t len;
	size_t from, to;  /* the lines this scan owns (buffer offsets) */
	bool more_before; /* the file goes on before the bytes read */
	bool aligned;	  /* buf starts at a line's start */
	int file;
	int source;
	const char *node;   /* node dir name for node files */
	enum origin origin; /* evidence.json's word on this file */
	/* hits of the line being collected */
	size_t line_start;
	int *cand;
	int ncand;
	bool *seen;
	/* line numbering, relative to the line at from (line 1) */
	size_t counted_to;
	long line_no;
	/* neighbour time (a whole file): caches of the search for the next
	 * timestamped line, the last timestamped event's time */
	size_t next_from, next_at;
	size_t clear_from, clear_to; /* no line here has a time of its own */
	double next_time;
	bool next_found;
	double prev_time;
	bool prev_found;
	/* a chunk: its events recorded, with the first timestamped line after
	 * each (lines [t_from, t_upto) have no time; t_found: the one at t_upto) */
	bool recording;
	struct record *rec;
	int nrec, caprec;
	struct packed store; /* the recorded events' lines and fields */
	size_t t_from, t_upto;
	long t_upto_line;
	bool t_found;
	double t_time;
	/* the bytes read were too few for a multi-line rule (lines of tens
	 * of kilobytes): the merge scans it again */
	bool short_read;
	long long_lines;
	long out_of_window;
	long other_jobs;
	struct wraps *wraps; /* unwrap hook: messages broken over lines, NULL: none */
};

struct deferred_identity {
	size_t at; /* its fields in the analysis's defer_store */
	int source;
	const char *node;
};

/* What a scan of some lines found besides events. */
struct scan_out {
	long lines; /* newlines among the lines */
	long long_lines, limit_hits;
	bool failed, short_read;
	/* recording: the events, and the first line with a time of its own */
	struct record *rec;
	int nrec;
	char *text; /* their lines */
	bool t_found;
	long t_line;
	double t_time;
};

/* Node logs are written in time order and often hold days around a job
 * of hours: a binary search on line timestamps (common/window_seek.c)
 * finds the part worth scanning. */
#define WINDOW_SEEK_MIN (8u << 20)
#define WINDOW_SLACK 3600.0

/* A worker's read buffer, reused from file to file. */
struct wbuf {
	char *p;
	size_t cap;
};

struct src { /* an open file, shared by its chunks */
	int fd;
	int source;    /* SRC_*, with SRC_REPORT for a tool's report */
	size_t lo, hi; /* the part scanned (the job's window) */
};

#define CHUNK_BYTES (4u << 20)
#define CHUNK_MARGIN (8u * MAX_LINE)	   /* bytes read before and after a chunk's lines */
#define CHUNK_MARGIN_LONG (64u * MAX_LINE) /* ... when they were too few */
/* A file of more chunks than this is scanned in order by one task, its
 * events folded chunk by chunk (memory), not by every worker at once */
#define SEQ_CHUNKS 64
#define BOUNDARY_REACH (64u << 20) /* how far past a cut to look for a line start */

struct work {
	const char *rel; /* NULL: a coverage entry of the listing */
	int finish;	 /* > 0: the task that ends the file whose chunks are the finish items before */
	int fin;	 /* a chunk: its file's finish task (an index in the plan) */
	struct coverage cov;
	int file, source;
	const char *node;
	struct src *src; /* NULL: a small file the worker opens and reads whole */
	size_t from, to; /* the chunk's lines, file offsets */
	int k;		 /* its place in the file */
	bool last;	 /* the file's last chunk */
	/* what the scan found */
	struct analysis *sub;
	struct scan_out out;
	long before; /* chunk 0: newlines in the file before from */
	bool shrank;
	bool seq;    /* a chunk of a huge file: scanned by its finish task, in order */
	bool done;   /* scanned (under workers.lock) */
	int scanned; /* a finish task: its file's chunks scanned so far (under workers.lock) */
};

struct plan {
	struct work *w;
	int n, cap;
	int scans; /* items a worker scans */
	size_t chunk;
};

struct workers {
	struct analysis *a;
	struct work *w;
	int n;
	int next;	      /* the next item to take (atomic) */
	pthread_mutex_t lock; /* a finish task waits for its file's chunks */
	pthread_cond_t scanned;
};

/* The plan's scans on as many threads as there are cores, while this
 * thread merges what they found, in order, as it comes (plan_merge). */
struct run {
	struct workers ws;
	pthread_t t[16];
	int started;
};

/* ---- linetime.c ---- */
size_t line_end_of(const struct file_scan *f, size_t start);
long line_number(struct file_scan *f, size_t off);
/* Returns whether *t is an upper bound (the next line's time, the job's end). */
bool neighbour_time(struct file_scan *f, size_t start, size_t end, double *t);
bool timed_from(struct file_scan *f, size_t q, long q_line, long *t_line, double *t_time);
void record_add(struct file_scan *f, struct event *ev, bool untimed, bool keep);
void record_event(const struct record *r, char *store, struct event *ev);

/* ---- deliver.c ---- */
void deliver(struct file_scan *f, struct event *ev, size_t start, size_t end);
void learn_identity(struct file_scan *f, struct event *ev);

/* ---- linescan.c ---- */
void scan_range(struct analysis *a, int file, int source, const char *node, const char *buf, size_t len,
		size_t from, size_t to, bool more_before, bool aligned, bool recording, size_t span,
		struct scan_out *out);
void file_coverage(struct analysis *a, int file, bool failed, long long_lines, long hits, bool shrank);

/* ---- casefiles.c ---- */
ssize_t pread_sparse(int fd, char *buf, size_t n, off_t off);
int src_open(struct analysis *a, const char *rel, int source, struct src *s, struct wbuf *wb, size_t *got);
long count_lines_before(int fd, size_t off);
size_t chunk_cut(int fd, size_t cut, size_t hi);
int cmp_str(const void *x, const void *y);
DIR *open_dir(struct analysis *a, const char *rel);
int list_dir(struct analysis *a, const char *rel, struct strlist *out, off_t **sizes, int depth);

/* ---- chunks.c ---- */
struct analysis *sub_new(struct analysis *a);
void analysis_free_sub(struct analysis *sub);
void scan_chunk(struct analysis *sub, struct work *w, const struct src *s, size_t margin, struct wbuf *wb,
		const size_t *loaded);
void scan_small(struct analysis *sub, struct work *w, struct wbuf *wb);
void records_free(struct scan_out *out);
void finish_file(struct analysis *a, struct work *w, int n, struct wbuf *wb);
void finish_file_seq(struct analysis *a, struct work *w, int n, struct wbuf *wb);

/* ---- workers.c ---- */
struct work *plan_add(struct plan *p);
void listing_coverage(struct analysis *a, int from, struct plan *p);
void plan_file(struct analysis *a, struct plan *p, const char *rel, int file, int source, const char *node,
	       off_t listed);
void plan_start(struct analysis *a, struct plan *p, struct run *r);
void plan_join(struct run *r);
void plan_merge(struct analysis *a, struct plan *p, int from, int to, struct run *r);
void plan_drop(struct plan *p, int from, int to);
void plan_free(struct plan *p);

/* ---- jobfacts.c ---- */
void scan_job_facts(struct analysis *a, const bool *have_node);

#endif
