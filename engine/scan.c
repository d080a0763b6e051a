/* Reads a case directory: job.json facts, node logs, application output
 * and scheduler excerpts, each file mapped (never copied) and scanned
 * once by the multi-pattern matcher.  Unreadable evidence becomes a
 * coverage entry, never an error. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"
#include "window_seek.h"

#define MAX_LINE (64 * 1024) /* bytes of one line a regex sees */
#define MAX_IDENTITY 16
#define NEIGHBOUR_LINES 400 /* how far to look for a timestamped line */
#define MAX_FILES 100000

/* An event of a chunk of a large file, kept until the chunks before are
 * scanned: the time of a line without its own depends on them (see
 * "chunks" below).  A chunk of a large log records tens of thousands:
 * each is the event without its fields (struct fields is most of an
 * event's size, mostly unused), its line and its fields packed in the
 * chunk's store (record_add, record_event). */
struct record {
	const struct code *code; /* NULL: only a time */
	int file, source, extractor;
	long line;
	size_t text_len, match_start;
	double time;
	bool has_time, approx, low_trust;
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

void analysis_add_coverage(struct analysis *a, const char *source, const char *status, const char *fmt, ...)
{
	va_list ap;
	char detail[512];

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	if (a->ncov == a->capcov)
		a->cov = xrealloc(a->cov, (a->capcov = a->capcov * 2 + 8) * sizeof(*a->cov));
	a->cov[a->ncov].source = strdup_or_die(source);
	a->cov[a->ncov].status = strdup_or_die(status);
	a->cov[a->ncov].detail = text_sanitise(detail, strlen(detail), 400);
	a->ncov++;
}

static size_t line_end_of(const struct file_scan *f, size_t start)
{
	const char *nl = memchr(f->buf + start, '\n', f->len - start);

	return nl ? (size_t)(nl - f->buf) : f->len;
}

/* Number of the line starting at off (lines are visited in order). */
static long line_number(struct file_scan *f, size_t off)
{
	if (off < f->counted_to) { /* a multi-line match reaching back */
		long n = f->line_no;

		for (size_t p = off; p < f->counted_to; p++)
			if (f->buf[p] == '\n')
				n--;
		return n;
	}
	f->line_no += count_newlines(f->buf + f->counted_to, off - f->counted_to);
	f->counted_to = off;
	return f->line_no;
}

/* Time of a line by itself (header or prefix), if it has one. */
static bool line_own_time(const struct analysis *a, int source, const char *line, size_t len, double *t)
{
	size_t hdr;

	if (len > MAX_LINE)
		len = MAX_LINE;
	if (time_parse_header(&a->tc, line, len, t, &hdr))
		return true;
	if (source & SRC_NODE)
		return false;
	return line_time(a->cat, &a->tc, line, len, t);
}

static bool own_time(struct file_scan *f, size_t start, size_t end, double *t)
{
	return line_own_time(f->a, f->source, f->buf + start, end - start, t);
}

/* A line without a time of its own takes the next timestamped line's time
 * (an upper bound: it was printed no later), else the previous one's,
 * else the job's end.  (record_untimed and emulate_time below give the
 * same times for a file cut into chunks.) */
static void neighbour_time(struct file_scan *f, size_t start, size_t end, double *t)
{
	if (f->next_found && start < f->next_at && start >= f->next_from) {
		*t = f->next_time;
		return;
	}
	f->next_found = false;
	size_t p = end < f->len ? end + 1 : f->len, from = p;
	/* lines already searched in vain are not searched again (thousands of
	 * ranks' NCCL lines in a row carry no time: each hit among them would
	 * otherwise re-read the same stretch) */
	if (f->clear_from <= p && p < f->clear_to)
		p = f->clear_to;
	for (int i = 0; i < NEIGHBOUR_LINES && p < f->len; i++) {
		size_t e = line_end_of(f, p);
		double tt;

		if (own_time(f, p, e, &tt)) {
			f->next_from = start;
			f->next_at = p;
			f->next_time = tt;
			f->next_found = true;
			*t = tt;
			return;
		}
		p = e + 1;
	}
	if (!(f->clear_from <= from && from <= f->clear_to))
		f->clear_from = from;
	f->clear_to = p;
	if (f->prev_found) {
		*t = f->prev_time;
		return;
	}
	*t = f->a->job.end;
}

/* In a chunk: the first of its lines at or after q (a line start, number
 * q_line) that has a time of its own (each line is looked at once in a
 * run of hits).  Returns whether there is one, with its number and time. */
static bool timed_from(struct file_scan *f, size_t q, long q_line, long *t_line, double *t_time)
{
	if (!(f->t_from <= q && q <= f->t_upto)) {
		f->t_from = f->t_upto = q;
		f->t_upto_line = q_line;
		f->t_found = false;
	}
	while (!f->t_found && f->t_upto < f->to) {
		size_t e = line_end_of(f, f->t_upto);

		if (own_time(f, f->t_upto, e, &f->t_time)) {
			f->t_found = true;
			break;
		}
		f->t_upto = e + 1;
		f->t_upto_line++;
	}
	*t_line = f->t_upto_line;
	*t_time = f->t_time;
	return f->t_found;
}

/* Records an event (keep) or only its time; a kept event's values are
 * copied into the record and the caller's event is left empty. */
static void record_add(struct file_scan *f, struct event *ev, bool untimed, bool keep)
{
	if (f->nrec == f->caprec)
		f->rec = xrealloc(f->rec, (f->caprec = f->caprec * 2 + 64) * sizeof(*f->rec));
	struct record *r = &f->rec[f->nrec++];

	*r = (struct record){ .untimed = untimed, .time = ev->time };
	if (!keep)
		return; /* a timestamped event the window drops: its time still counts */
	r->code = ev->code;
	r->file = ev->file;
	r->source = ev->source;
	r->extractor = ev->extractor;
	r->line = ev->line;
	r->text_len = ev->text_len;
	r->match_start = ev->match_start;
	r->has_time = ev->has_time;
	r->approx = ev->approx;
	r->low_trust = ev->low_trust;
	r->aside = ev->aside;
	r->file_node = ev->file_node;
	r->text_at = packed_put(&f->store, ev->text, ev->text_len);
	r->fields_at = fields_pack(&f->store, &ev->f);
}

/* A kept record as the event it was, its line and values in the chunk's
 * store (which the event borrows: it must not be cleared). */
static void record_event(const struct record *r, char *store, struct event *ev)
{
	ev->code = r->code;
	ev->file = r->file;
	ev->source = r->source;
	ev->extractor = r->extractor;
	ev->line = r->line;
	ev->text = store + r->text_at;
	ev->text_len = r->text_len;
	ev->match_start = r->match_start;
	ev->time = r->time;
	ev->has_time = r->has_time;
	ev->approx = r->approx;
	ev->low_trust = r->low_trust;
	ev->aside = r->aside;
	ev->file_node = r->file_node;
	fields_unpack(&ev->f, store + r->fields_at);
}

static bool same_job(const struct analysis *a, const char *jobid)
{
	const char *id = a->job.job_id;
	size_t n = strlen(id);

	/* 4242, 4242.0 (a step), 4242.batch */
	if (!strncmp(jobid, id, n) && (!jobid[n] || jobid[n] == '.'))
		return true;
	/* an array task (4242_7) or a het-job component (4242+1) known by
	 * that name: the logs print its raw numeric id, which job.json does
	 * not give, so a number cannot be told to be another job's */
	return id[strspn(id, "0123456789")] == '_' || id[strspn(id, "0123456789")] == '+'
		? jobid[strspn(jobid, "0123456789")] == '\0' || jobid[strspn(jobid, "0123456789")] == '.'
		: false;
}

static void deliver_one(struct file_scan *f, struct event *ev, size_t start, size_t end);

static void progress_add(struct analysis *a, const struct event *ev)
{
	const char *rank = event_field(ev, "rank"), *pid = event_field(ev, "pid"),
		   *host = event_field(ev, "node");

	if (a->nprogress == a->capprogress) {
		a->capprogress = a->capprogress * 2 + 64;
		a->progress = xrealloc(a->progress, a->capprogress * sizeof(double));
		a->beats = xrealloc(a->beats, a->capprogress * sizeof(*a->beats));
	}
	a->beats[a->nprogress] = (struct beat){
		ev->time, ev->file,
		rank && *rank && strspn(rank, "0123456789") == strlen(rank) ? atoi(rank) : -1,
		pid && *pid && strspn(pid, "0123456789") == strlen(pid) ? atol(pid) : 0,
		host && *host ? strdup_or_die(host) : NULL
	};
	a->progress[a->nprogress++] = ev->time;
	if (!a->last_progress.text || ev->time >= a->last_progress.time) {
		free(a->last_progress.text);
		a->last_progress = (struct evidence){ ev->file, ev->line, ev->time,
						      text_sanitise(ev->text, ev->text_len, 2000) };
	}
}

/* One event per node of a hostlist ("Nodes node-[02-03] not responding"). */
static bool deliver_nodelist(struct file_scan *f, struct event *ev, size_t start, size_t end)
{
	const char *list = event_field(ev, "nodelist");
	struct strlist hosts = { 0 };

	if (!list || event_field(ev, "node") || !hostlist_expand(list, &hosts, 4096)) {
		strlist_free(&hosts);
		return false;
	}
	for (int i = 0; i < hosts.n; i++) {
		struct event copy;

		event_copy(&copy, ev);
		event_set(&copy, "node", hosts.v[i], strlen(hosts.v[i]));
		deliver_one(f, &copy, start, end);
		event_clear(&copy);
	}
	strlist_free(&hosts);
	return true;
}

/* srun's task id is the global rank when srun launched one task per rank,
 * which the job's ranks show by recording each task's exit. */
static void task_as_rank(const struct analysis *a, struct event *ev)
{
	const char *task = event_field(ev, "task");

	if (!task || !a->job.ranks_exit || event_field(ev, "rank"))
		return;
	event_set(ev, "rank", task, strlen(task));
}

static void deliver(struct file_scan *f, struct event *ev, size_t start, size_t end)
{
	task_as_rank(f->a, ev);
	if (!deliver_nodelist(f, ev, start, end))
		deliver_one(f, ev, start, end);
}

/* Window, job id and identity, then into the symptom table. */
static void deliver_one(struct file_scan *f, struct event *ev, size_t start, size_t end)
{
	struct analysis *a = f->a;
	const char *jobid = event_field(ev, "jobid");

	ev->file = f->file;
	ev->source = f->source;
	ev->file_node = f->node;
	ev->low_trust = origin_low_trust(f->origin);
	ev->line = line_number(f, start);
	ev->text = f->buf + start;
	ev->text_len = end - start;
	bool fault = ev->code->kind == KIND_FAULT;

	/* another job's fault is kept as context (set aside), anything else
	 * of another job is not this job's news */
	if (jobid && !same_job(a, jobid)) {
		f->other_jobs++;
		if (!fault)
			return;
		ev->aside = ASIDE_OTHER_JOB;
	}
	if ((ev->code->flags & CODE_PROGRESS)) {
		/* the application's pulse: only a line that carries its own time
		 * says when the job was alive (and it is no neighbour that dates
		 * other lines: that stays as it was without it) */
		if (ev->has_time && !ev->aside && ev->time >= a->job.start - a->cat->set.window_before &&
		    ev->time <= a->job.end + a->cat->set.window_after)
			progress_add(a, ev);
		return;
	}
	if (ev->has_time) {
		const struct settings *set = &a->cat->set;
		double after = (ev->code->flags & CODE_REPORTED_LATE) ? set->report_lag : set->window_after;

		f->prev_time = ev->time;
		f->prev_found = true;
		if (ev->time > a->job.end + (after > set->window_after ? after : set->window_after)) {
			f->out_of_window++;
			if (f->recording)
				record_add(f, ev, false, false);
			return;
		}
		if (ev->time < a->job.start - set->window_before) {
			/* a node's faults of the hours before are its history: context
			 * that can show a fault following a GPU rather than a program */
			if (!(fault || (ev->code->flags & CODE_BOOT)) || !(f->source & SRC_NODE) ||
			    ev->time < a->job.start - set->history) {
				f->out_of_window++;
				if (f->recording)
					record_add(f, ev, false, false);
				return;
			}
			ev->aside = ASIDE_BEFORE;
		}
	} else if (f->recording) {
		struct record *r;

		size_t line_end = line_end_of(f, start);

		ev->approx = true;
		a->events++;
		record_add(f, ev, true, true);
		r = &f->rec[f->nrec - 1];
		r->q_start = end >= line_end;
		r->q_line = r->q_start ? ev->line + 1 : ev->line;
		r->t_found = timed_from(f, line_end < f->len ? line_end + 1 : f->len, ev->line + 1,
					&r->t_line, &r->t_time);
		return;
	} else {
		neighbour_time(f, start, end, &ev->time);
		ev->approx = true;
	}
	a->events++;
	if (f->recording) {
		record_add(f, ev, false, true);
		return;
	}
	symptom_add_event(a, ev);
}

struct deferred_identity {
	size_t at; /* its fields in the analysis's defer_store */
	int source;
	const char *node;
};

static void learn_identity(struct file_scan *f, struct event *ev)
{
	struct identity *id = f->a->id;

	if (f->a->deferring) { /* a worker's file: later, in file order */
		struct analysis *a = f->a;

		if (a->ndefer == a->capdefer)
			a->defer = xrealloc(a->defer,
					    (a->capdefer = a->capdefer * 2 + 16) * sizeof(*a->defer));
		struct deferred_identity *d = &a->defer[a->ndefer++];

		/* its names and values, packed (the caller's event is left empty) */
		*d = (struct deferred_identity){ .at = fields_pack(&a->defer_store, &ev->f),
						 .source = f->source,
						 .node = f->node };
		return;
	}
	const char *host = event_field(ev, "node");
	int node = host ? identity_node(id, host) : -1;
	const char *v;

	if (node < 0 && (f->source & SRC_NODE))
		node = identity_node(id, f->node);
	if (node < 0)
		return;
	if ((v = event_field(ev, "ip")))
		identity_learn_ip(id, v, node);
	if ((v = event_field(ev, "rank")))
		identity_learn_rank(id, atoi(v), node);
	if ((v = event_field(ev, "pci")))
		identity_learn_gpu(id, node, event_field(ev, "gpu"), event_field(ev, "pid"), v);
}

/* Multi-line rules see the lines before the hit too. */
static void multi_line(struct file_scan *f, const struct extractor *x, size_t start)
{
	size_t from = start, end = line_end_of(f, start);
	struct event ev = { 0 };

	int i = 1;
	for (; i < x->lines && from > 0; i++) {
		from--;
		while (from > 0 && f->buf[from - 1] != '\n')
			from--;
	}
	if (from == 0 && f->more_before && (i < x->lines || !f->aligned))
		f->short_read = true; /* the lines it looks back at begin before the bytes read */
	if (end - from > (size_t)MAX_LINE * 4)
		from = end - (size_t)MAX_LINE * 4;
	if (!extractor_apply(f->a->cat, x, f->buf + from, end - from, 0, &ev)) {
		event_clear(&ev);
		return;
	}
	size_t ms = from + ev.match_start, ls = ms;
	while (ls > 0 && f->buf[ls - 1] != '\n')
		ls--;
	if (ls == 0 && f->more_before && !f->aligned)
		f->short_read = true;
	size_t le = line_end_of(f, ls);
	struct line_ctx lc;
	line_context(f->a->cat, &f->a->tc, f->buf + ls, le - ls > MAX_LINE ? MAX_LINE : le - ls, &lc);
	event_merge_context(&ev, &lc);
	line_context_free(&lc);
	const char *t = event_field(&ev, "time");
	double tt;
	if (t && time_parse_any(&f->a->tc, t, strlen(t), &tt)) {
		ev.time = tt;
		ev.has_time = true;
	}
	if (x->identity)
		learn_identity(f, &ev);
	else
		deliver(f, &ev, ls, le);
	event_clear(&ev);
}

static int by_rank(const void *x, const void *y, void *cat)
{
	const int *rank = ((const attrib_catalog *)cat)->priority_rank;

	return rank[*(const int *)x] - rank[*(const int *)y];
}

/* The candidates' rules on the line at f->line_start, or on a message
 * broken over the lines [f->line_start, joined_end) (unwrap hook: joined,
 * its lines as unwrap_join gives them). */
static void flush_message(struct file_scan *f, const char *joined, size_t jlen, size_t joined_end)
{
	const attrib_catalog *cat = f->a->cat;
	size_t start = f->line_start, end = line_end_of(f, start), len = end - start;
	const char *text;
	int single[64], ns = 0;
	struct event ev = { 0 }, ids[MAX_IDENTITY];
	struct line_ctx lc;
	int nids;

	if (!f->ncand)
		return;
	f->a->lines_scanned++;
	/* a run of NUL bytes (what a crash leaves in a log) is not part of
	 * the line written after it */
	while (start < end && !f->buf[start])
		start++;
	len = end - start;
	if (len && f->buf[end - 1] == '\r')
		len--;
	if (len > MAX_LINE) {
		f->long_lines++;
		len = MAX_LINE;
	}
	text = f->buf + start;
	if (joined) { /* unwrap hook */
		text = joined;
		len = jlen;
	}
	/* candidates in priority order: the line's few hits sorted by their
	 * rank (a walk through every extractor was hundreds of steps a line) */
	if (f->ncand > 16) /* a line many rules hit (hostile input) */
		qsort_r(f->cand, f->ncand, sizeof(int), by_rank, (void *)cat);
	else
		for (int i = 1; i < f->ncand; i++)
			for (int k = i; k > 0 && by_rank(&f->cand[k], &f->cand[k - 1], (void *)cat) < 0;
			     k--) {
				int x = f->cand[k];

				f->cand[k] = f->cand[k - 1];
				f->cand[k - 1] = x;
			}
	for (int k = 0; k < f->ncand && ns < 64; k++) {
		int r = f->cand[k];

		if (!origin_allows(f->origin, &cat->extractors[r]))
			continue;
		if (cat->extractors[r].lines > 1)
			multi_line(f, &cat->extractors[r], start);
		else
			single[ns++] = r;
	}
	for (int i = 0; i < f->ncand; i++)
		f->seen[f->cand[i]] = false;
	f->ncand = 0;
	if (line_extract(cat, &f->a->tc, text, len, f->source, single, ns, &lc, &ev, ids, &nids,
			 MAX_IDENTITY)) {
		deliver(f, &ev, start, joined ? joined_end : start + len);
		event_clear(&ev);
	}
	for (int i = 0; i < nids; i++) {
		learn_identity(f, &ids[i]);
		event_clear(&ids[i]);
	}
	line_context_free(&lc);
}

static void flush_line(struct file_scan *f)
{
	flush_message(f, NULL, 0, 0);
}

/* ---- unwrap hook: messages broken over physical lines (unwrap.c) ----
 * A wrap can cut a literal of the prefilter in two, so each such message
 * is joined and given to the prefilter before the file's scan (a scan
 * cannot run inside another's callback), then read in its place in the
 * file's order; the prefilter's hits on its physical lines are dropped.
 * A file of more than UNWRAP_FILE_MAX bytes to scan is a log a program
 * wrote, no terminal's or post's text: it is not looked at. */
struct wraps {
	struct unwrap u;
	int *cand;  /* the prefilter's rules for each message ... */
	int *first; /* ... message i's are cand[first[i], first[i + 1]) */
	int ncand, capcand;
	bool failed;
	char text[UNWRAP_BYTES + 1];
};

static void on_wrapped_hit(void *ctx, int rule, size_t line_start, size_t match_end)
{
	struct file_scan *f = ctx;
	struct wraps *w = f->wraps;
	(void)line_start;
	(void)match_end;

	if (f->seen[rule])
		return;
	f->seen[rule] = true;
	if (w->ncand == w->capcand)
		w->cand = xrealloc(w->cand, (w->capcand = w->capcand * 2 + 64) * sizeof(int));
	w->cand[w->ncand++] = rule;
}

/* The messages of the lines this scan owns, and the prefilter's rules for
 * each.  A hand-made case's node files only (unwrap.c: trust), and
 * application output. */
static void wraps_find(struct file_scan *f)
{
	struct wraps *w;
	struct unwrap u;

	if (((f->source & SRC_NODE) && f->origin != ORIGIN_UNLISTED) ||
	    !unwrap_find(&f->a->tc, f->buf, f->len, f->from, f->to, f->source, &u))
		return;
	w = f->wraps = xcalloc(1, sizeof(*w));
	w->u = u;
	w->first = xcalloc(u.n + 1, sizeof(int));
	for (int i = 0; i < u.n; i++) {
		w->first[i] = w->ncand;
		if (u.v[i].start < f->from)
			continue; /* the scan before reads it */
		size_t len = unwrap_join(&u, f->buf, &u.v[i], w->text, sizeof(w->text));
		if (matcher_scan(f->a->cat->matcher, f->source, w->text, len, 0, len, on_wrapped_hit, f) < 0)
			w->failed = true;
		for (int k = w->first[i]; k < w->ncand; k++)
			f->seen[w->cand[k]] = false;
	}
	w->first[u.n] = w->ncand;
}

/* Reads the messages that end before the line at line_start; true when
 * that line is one of a message's (its hits are not its own). */
static bool wrapped_before(struct file_scan *f, size_t line_start)
{
	struct wraps *w = f->wraps;
	struct unwrap *u = &w->u;

	while (u->next < u->n && u->v[u->next].end < line_start) {
		const struct wrap_span *s = &u->v[u->next];
		int i = u->next++;

		if (s->start < f->from || w->first[i] == w->first[i + 1])
			continue;
		if (f->ncand && f->line_start < s->start)
			flush_line(f);
		for (int k = w->first[i]; k < w->first[i + 1]; k++)
			f->cand[f->ncand++] = w->cand[k];
		f->line_start = s->start;
		size_t len = unwrap_join(u, f->buf, s, w->text, sizeof(w->text));
		flush_message(f, w->text, len, s->end);
	}
	return u->next < u->n && u->v[u->next].start <= line_start;
}

static void wraps_free(struct wraps *w)
{
	if (!w)
		return;
	unwrap_free(&w->u);
	free(w->cand);
	free(w->first);
	free(w);
}
/* ---- end of the unwrap hook ---- */

static void on_hit(void *ctx, int rule, size_t line_start, size_t match_end)
{
	struct file_scan *f = ctx;
	(void)match_end;

	if (f->wraps && wrapped_before(f, line_start))
		return; /* unwrap hook */
	if (f->ncand && line_start != f->line_start)
		flush_line(f);
	f->line_start = line_start;
	if (!f->seen[rule]) {
		f->seen[rule] = true;
		f->cand[f->ncand++] = rule;
	}
}

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

/* Scans the lines [from, to) of buf, which holds some lines before and
 * after them too (more_before: the part of the file to scan goes on
 * before buf).  Events go to a, or to out->rec when recording (a chunk of
 * a large file); line numbers count from 1 at from.  span: the bytes of
 * the file its chunks scan (unwrap hook). */
static void scan_range(struct analysis *a, int file, int source, const char *node, const char *buf,
		       size_t len, size_t from, size_t to, bool more_before, bool aligned, bool recording,
		       size_t span, struct scan_out *out)
{
	struct file_scan f = { .a = a,
			       .buf = buf,
			       .len = len,
			       .from = from,
			       .to = to,
			       .more_before = more_before,
			       .aligned = aligned,
			       .recording = recording,
			       .file = file,
			       .source = source,
			       .node = node,
			       .counted_to = from,
			       .line_no = 1 };
	int n = a->cat->nextractors;

	f.origin = origin_of(a, a->files.v[file], source);
	f.cand = xcalloc(n, sizeof(int));
	f.seen = xcalloc(n, sizeof(bool));
	if (recording) /* the chunk's first line with a time (the chunk before searches on into it) */
		out->t_found = timed_from(&f, from, 1, &out->t_line, &out->t_time);
	extractor_limit_hits_take(); /* these lines' own from here */
	if (span <= UNWRAP_FILE_MAX) /* unwrap hook */
		wraps_find(&f);
	out->failed = matcher_scan(a->cat->matcher, source, buf, len, from, to, on_hit, &f) < 0;
	if (f.wraps) { /* unwrap hook */
		wrapped_before(&f, SIZE_MAX);
		out->failed |= f.wraps->failed;
	}
	flush_line(&f);
	wraps_free(f.wraps); /* unwrap hook */
	out->limit_hits = extractor_limit_hits_take();
	out->long_lines = f.long_lines;
	out->short_read = f.short_read;
	out->rec = f.rec;
	out->nrec = f.nrec;
	out->text = f.store.p;
	out->lines = line_number(&f, to) - 1;
	free(f.cand);
	free(f.seen);
}

/* What a file's scan (all its chunks) says in coverage. */
static void file_coverage(struct analysis *a, int file, bool failed, long long_lines, long hits, bool shrank)
{
	const char *rel = a->files.v[file];

	if (failed)
		analysis_add_coverage(a, rel, "error", "scan failed");
	if (long_lines)
		analysis_add_coverage(a, rel, "error",
				      "%ld lines longer than %d bytes were cut to that length", long_lines,
				      MAX_LINE);
	if (hits)
		analysis_add_coverage(a, rel, "error",
				      "%ld regex matches stopped at PCRE2's match or depth limit "
				      "(a rule that backtracks too much); those lines were not "
				      "judged by that rule",
				      hits);
	if (shrank)
		analysis_add_coverage(a, rel, "error",
				      "the file shrank while it was read; its end was not read");
}

/* ---- reading a file ----
 * Files are read with pread, never mapped: a log truncated while it is
 * read ends sooner (a coverage entry), where a mapping would raise SIGBUS
 * in a process that may be a service running other work.  A large log is
 * read and scanned in chunks of lines (by several threads, see below), so
 * memory stays bounded for a log of any size. */

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

/* n bytes at off, or fewer at the end of the file.  The holes of a sparse
 * file are filled with zeros here instead of read: reading a hole makes
 * the kernel zero a page cache page for every 4 KiB of it (a 2 GB sparse
 * log took 30 s of system time), and a hole holds no line to match.  A
 * file system without SEEK_DATA is read as all data. */
static ssize_t pread_full(int fd, char *buf, size_t n, off_t off)
{
	size_t got = 0;

	while (got < n) {
		off_t at = off + (off_t)got, data = lseek(fd, at, SEEK_DATA), hole;
		size_t want = n - got;
		struct stat st;

		if (data < 0 && errno == ENXIO) { /* a hole to the end of the file */
			if (fstat(fd, &st) < 0 || st.st_size <= at)
				break;
			if ((off_t)want > st.st_size - at)
				want = (size_t)(st.st_size - at);
			memset(buf + got, 0, want);
			got += want;
			break;
		}
		if (data > at) {
			if ((off_t)want > data - at)
				want = (size_t)(data - at);
			memset(buf + got, 0, want);
			got += want;
			continue;
		}
		if (data == at && (hole = lseek(fd, at, SEEK_HOLE)) > at && hole - at < (off_t)want)
			want = (size_t)(hole - at);
		ssize_t r = pread(fd, buf + got, want, at);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

/* Whether a node file is a tool's report (nvidia-smi -q, dcgmi, ibstat:
 * a saved dump whose lines carry no time) rather than a log: fewer than
 * half of its first non-empty lines start with a timestamp.  Reports are
 * also read by the rules of their tables and sections (source: report),
 * which a log is spared. */
static bool is_report(const struct analysis *a, const char *buf, size_t len)
{
	int lines = 0, stamped = 0;
	size_t off = 0, reach = len < (64u << 10) ? len : 64u << 10; /* never the whole of a huge file */
	size_t cols = 0;

	while (off < reach && lines < 16) {
		const char *nl = memchr(buf + off, '\n', reach - off);
		size_t end = nl ? (size_t)(nl - buf) : reach, hdr;
		double t;

		if (end > off + 1) { /* not an empty line (nor a lone CR) */
			bool stamp = time_parse_header(&a->tc, buf + off, end - off > 256 ? 256 : end - off,
						       &t, &hdr);

			/* unwrap hook: a line without a time after one a terminal
			 * cut at its width is the rest of that one */
			if (stamp || !unwrap_terminal_width(cols))
				lines++;
			stamped += stamp;
			cols = unwrap_columns(buf + off, end - off);
		}
		off = end + 1;
	}
	return stamped * 2 < lines;
}

static bool header_time(void *tc, const char *s, size_t len, double *t)
{
	size_t hdr;

	return time_parse_header(tc, s, len > 256 ? 256 : len, t, &hdr);
}

/* Opens a case file without following links or blocking on FIFOs, and
 * finds the part to scan; wb, when given, receives the whole file (a
 * small one, read at once).  Returns 1 when there is something to scan,
 * 0 when not (an empty file), -1 with a coverage entry in a. */
static int src_open(struct analysis *a, const char *rel, int source, struct src *s, struct wbuf *wb,
		    size_t *got)
{
	char *path = xmalloc(strlen(a->dir) + strlen(rel) + 2);
	struct stat st;
	int fd;

	sprintf(path, "%s/%s", a->dir, rel);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	free(path);
	if (fd < 0) {
		analysis_add_coverage(a, rel, "error", "cannot read: %s",
				      errno == ELOOP ? "a symbolic link (not followed)" : strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		analysis_add_coverage(a, rel, "error", "not a regular file");
		close(fd);
		return -1;
	}
	if (st.st_size == 0) {
		close(fd);
		return 0;
	}
	*s = (struct src){ .fd = fd, .source = source, .lo = 0, .hi = (size_t)st.st_size };
	bool seek = (source & SRC_NODE) && (size_t)st.st_size > WINDOW_SEEK_MIN;

	if (seek)
		wb = NULL; /* only its window is read */
	if (got)
		*got = 0;
	if (source & SRC_NODE) {
		char head[64u << 10];
		const char *h = head;
		size_t n = (size_t)st.st_size < sizeof(head) ? (size_t)st.st_size : sizeof(head);
		ssize_t r;

		if (wb) { /* the whole file, of which the report test reads the start */
			if ((size_t)st.st_size > wb->cap)
				wb->p = xrealloc(wb->p, wb->cap = st.st_size);
			r = pread_full(fd, wb->p, st.st_size, 0);
			*got = r > 0 ? (size_t)r : 0;
			h = wb->p;
		} else {
			r = pread_full(fd, head, n, 0);
		}
		if (r > 0 && is_report(a, h, (size_t)r < n ? (size_t)r : n))
			s->source |= SRC_REPORT;
	} else if (wb) {
		if ((size_t)st.st_size > wb->cap)
			wb->p = xrealloc(wb->p, wb->cap = st.st_size);
		ssize_t r = pread_full(fd, wb->p, st.st_size, 0);
		*got = r > 0 ? (size_t)r : 0;
	}
	if (seek) {
		struct ws_reader *r = ws_open(fd, st.st_size, header_time, &a->tc);
		off_t lo, hi;

		if (r &&
		    ws_window(r, a->job.start - a->cat->set.window_before,
			      a->job.end + a->cat->set.window_after, WINDOW_SLACK, true, &lo, &hi, NULL, NULL,
			      NULL, NULL) &&
		    lo < hi) {
			s->lo = (size_t)lo;
			s->hi = (size_t)hi;
		}
		free(r);
	}
	return 1;
}

/* Newlines in the file before off (the number of the window's first line,
 * less one), read a block at a time. */
static long count_lines_before(int fd, size_t off)
{
	size_t blk = 1u << 20, at = 0;
	char *buf = xmalloc(blk);
	long n = 0;

	while (at < off) {
		ssize_t got = pread_full(fd, buf, off - at < blk ? off - at : blk, (off_t)at);

		if (got <= 0)
			break;
		n += count_newlines(buf, (size_t)got);
		at += (size_t)got;
	}
	free(buf);
	return n;
}

/* ---- chunks ----
 * A large file is cut into chunks of about chunk_bytes() at line starts
 * chosen by the file alone (never by the number of threads), each scanned
 * by a worker into an analysis of its own and merged in file order, so
 * the result is the one a single scan of the whole file gives:
 *  - line numbers count from each chunk's first line; the merge adds the
 *    lines of the chunks before;
 *  - the time of a line without its own depends on the scan before it
 *    (neighbour_time's caches: the stretch already searched in vain, the
 *    last timestamped event): a chunk records its events with the number
 *    of the first line with a time after each; in file order the main
 *    thread then finds their times from those numbers alone, exactly as
 *    neighbour_time would (emulate_file), and the workers put the events
 *    into the chunks' symptoms;
 *  - each chunk reads some bytes before and after its lines (multi-line
 *    rules and matches); one whose lines are so long that those were not
 *    enough is scanned again with far more.
 * The one thing a chunk may see less of than a scan of the whole file is
 * a line longer than BOUNDARY_REACH (64 MiB) that spans a cut: what a rule
 * would find past the cut, as when the matcher scans a buffer in pieces. */
#define CHUNK_BYTES (4u << 20)
#define CHUNK_MARGIN (8u * MAX_LINE)	   /* bytes read before and after a chunk's lines */
#define CHUNK_MARGIN_LONG (64u * MAX_LINE) /* ... when they were too few */
/* A file of more chunks than this is scanned in order by one task, its
 * events folded chunk by chunk (memory), not by every worker at once */
#define SEQ_CHUNKS 64
#define BOUNDARY_REACH (64u << 20) /* how far past a cut to look for a line start */

/* The chunk size: ATTRIB_CHUNK_BYTES, for tests only (many chunks out of
 * a small file); a size, never the number of threads, decides the cuts. */
static size_t chunk_bytes(void)
{
	const char *e = getenv("ATTRIB_CHUNK_BYTES");
	long long v = e && *e ? strtoll(e, NULL, 10) : 0;

	return v >= 1 ? (size_t)v : CHUNK_BYTES;
}

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
	bool seq;  /* a chunk of a huge file: scanned by its finish task, in order */
	bool done; /* scanned (under workers.lock) */
};

static struct analysis *sub_new(struct analysis *a)
{
	struct analysis *sub = xcalloc(1, sizeof(*sub));

	/* the shared, read-only parts; everything the scan writes is its own */
	sub->cat = a->cat;
	sub->dir = a->dir;
	sub->job = a->job;
	sub->id = a->id;
	sub->tc = a->tc;
	sub->files = a->files;
	sub->origins = a->origins;
	sub->origins_bad = a->origins_bad;
	sub->deferring = true; /* identity is learnt in the merge */
	return sub;
}

/* A chunk's scan that the merge does again. */
static void analysis_free_sub(struct analysis *sub)
{
	symptoms_free(sub);
	for (int i = 0; i < sub->ncov; i++) {
		free(sub->cov[i].source);
		free(sub->cov[i].status);
		free(sub->cov[i].detail);
	}
	free(sub->cov);
	free(sub->defer);
	free(sub->defer_store.p);
	free(sub->progress);
	for (int i = 0; i < sub->nprogress; i++)
		free(sub->beats[i].host);
	free(sub->beats);
	free(sub->last_progress.text);
	free(sub);
}

/* Reads and scans one chunk of an open file, with margin bytes around
 * (loaded: wb already holds the whole file's first loaded bytes). */
static void scan_chunk(struct analysis *sub, struct work *w, const struct src *s, size_t margin,
		       struct wbuf *wb, const size_t *loaded)
{
	size_t bstart = w->from > s->lo + margin ? w->from - margin : s->lo;
	size_t bend = w->to + margin < s->hi ? w->to + margin : s->hi;
	size_t want = bend - bstart, len;

	if (w->k == 0 && s->lo)
		w->before = count_lines_before(s->fd, s->lo);
	if (loaded) { /* a whole small file: its window in place */
		len = *loaded > bstart ? (*loaded < bend ? *loaded : bend) - bstart : 0;
		if (bstart && len)
			memmove(wb->p, wb->p + bstart, len);
	} else {
		if (want > wb->cap)
			wb->p = xrealloc(wb->p, wb->cap = want);
		ssize_t got = pread_full(s->fd, wb->p, want, (off_t)bstart);
		len = got > 0 ? (size_t)got : 0;
	}

	w->shrank = len < want;
	/* the bytes before the chunk's lines start at a line (when one starts
	 * in them) */
	size_t skip = 0, from = w->from - bstart, to = w->to - bstart;
	bool aligned = bstart == s->lo;

	if (from > len)
		from = len;
	if (to > len)
		to = len;
	if (!aligned) {
		const char *nl = memchr(wb->p, '\n', from);

		if (nl) {
			skip = (size_t)(nl - wb->p) + 1;
			aligned = true;
		}
	}
	scan_range(sub, w->file, s->source, w->node, wb->p + skip, len - skip, from - skip, to - skip,
		   bstart + skip > s->lo, aligned, !w->last || w->k > 0, s->hi - s->lo, &w->out);
}

/* A small file, opened, read and scanned whole by a worker. */
static void scan_small(struct analysis *sub, struct work *w, struct wbuf *wb)
{
	struct src s;
	size_t got = 0;

	if (src_open(sub, w->rel, w->source, &s, wb, &got) > 0) {
		w->from = s.lo;
		w->to = s.hi;
		scan_chunk(sub, w, &s, 0, wb, got ? &got : NULL);
		close(s.fd);
	}
}

/* Where the chunk after a cut starts: the first line start at or after
 * it, or the cut itself in a line longer than BOUNDARY_REACH. */
static size_t chunk_cut(int fd, size_t cut, size_t hi)
{
	char buf[16384];

	for (size_t at = cut - 1; at < hi && at < cut - 1 + BOUNDARY_REACH;) {
		ssize_t got = pread_full(fd, buf, hi - at < sizeof(buf) ? hi - at : sizeof(buf), (off_t)at);
		const char *nl = got > 0 ? memchr(buf, '\n', (size_t)got) : NULL;

		if (nl)
			return at + (size_t)(nl - buf) + 1;
		if (got <= 0)
			break;
		at += (size_t)got;
	}
	return cut;
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Opens a directory of the case without following a link.  A directory
 * that is not there is no news (coverage says which evidence is missing);
 * one that cannot be read is a coverage entry. */
static DIR *open_dir(struct analysis *a, const char *rel)
{
	char *path = xmalloc(strlen(a->dir) + strlen(rel) + 2);
	int fd;
	DIR *d;

	sprintf(path, "%s/%s", a->dir, rel);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	free(path);
	if (fd < 0) {
		if (errno != ENOENT)
			analysis_add_coverage(a, rel, "error", "not read: %s",
					      errno == ELOOP		 ? "a symbolic link (not followed)"
						      : errno == ENOTDIR ? "not a directory"
									 : strerror(errno));
		return NULL;
	}
	if (!(d = fdopendir(fd)))
		close(fd);
	return d;
}

/* Regular files under dir (relative to the case), recursively, sorted,
 * and their sizes as listed (sizes[i] for out->v[i]); -1 when dir cannot
 * be read (a coverage entry says why). */
static int list_dir(struct analysis *a, const char *rel, struct strlist *out, off_t **sizes, int depth)
{
	struct strlist names = { 0 };
	struct dirent *e;
	DIR *d = open_dir(a, rel);

	if (!d)
		return -1;
	/* every name (up to a hard limit), sorted, then the first MAX_FILES:
	 * which files are read does not depend on readdir's order */
	while ((e = readdir(d)) && names.n < MAX_FILES * 10)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			strlist_add(&names, e->d_name);
	closedir(d);
	if (names.n > 1)
		qsort(names.v, names.n, sizeof(char *), cmp_str);
	if (names.n > MAX_FILES)
		analysis_add_coverage(a, rel, "error", "%s%d entries: only the first %d by name were read",
				      names.n == MAX_FILES * 10 ? "at least " : "", names.n, MAX_FILES);
	for (int i = 0; i < names.n && i < MAX_FILES; i++) {
		char *r, *full;
		struct stat st;

		if (asprintf(&r, "%s/%s", rel, names.v[i]) < 0 || asprintf(&full, "%s/%s", a->dir, r) < 0)
			abort();
		if (lstat(full, &st) == 0 && S_ISDIR(st.st_mode)) {
			if (depth < 4)
				list_dir(a, r, out, sizes, depth + 1);
			else
				analysis_add_coverage(a, r, "error", "a directory nested too deep; not read");
		} else {
			*sizes = xrealloc(*sizes, (out->n + 1) * sizeof(off_t));
			(*sizes)[out->n] = st.st_size; /* (a link's: refused when opened) */
			strlist_add(out, r);	       /* links and specials are refused when opened */
		}
		free(full);
		free(r);
	}
	strlist_free(&names);
	return 0;
}

/* A node that the ranks on two or more other nodes name as the peer they
 * lost, and whether it sent evidence: a fact for the rules, at the time the
 * first of them lost it. */
static void peers_lost(struct analysis *a, const bool *have_node, FILE *m)
{
	int n = a->job.nodes.n, with = 0;

	/* a node that sent nothing stands out only where the others did send:
	 * a case of application output alone says nothing of who vanished */
	for (int i = 0; i < n; i++)
		with += have_node[i];
	if (!with)
		return;
	bool *seen = xcalloc((size_t)n * n + 1, sizeof(bool)); /* [blamed * n + reporter] */
	int *reporters = xcalloc(n + 1, sizeof(int));
	double *when = xcalloc(n + 1, sizeof(double));

	for (int i = 0; i < a->nsym; i++) {
		const struct symptom *s = a->sym[i];
		enum located how;
		int blamed, from;

		if (!s->peer || s->aside || (blamed = identity_node(a->id, s->peer)) < 0 ||
		    (from = symptom_named_node(a, s, &how)) < 0 || from == blamed)
			continue;
		if (!reporters[blamed] || s->first < when[blamed])
			when[blamed] = s->first;
		if (!seen[(size_t)blamed * n + from]) {
			seen[(size_t)blamed * n + from] = true;
			reporters[blamed]++;
		}
	}
	for (int i = 0; i < n; i++)
		if (reporters[i] >= 2) {
			char t[48];

			time_format(when[i], t, sizeof(t));
			fprintf(m, "%s peers_lost node=%s reporters=%d evidence=%s\n", t, a->job.nodes.v[i],
				reporters[i], have_node[i] ? "present" : "missing");
		}
	free(seen);
	free(reporters);
	free(when);
}

/* job.json facts as lines, so rules (source: job) interpret them too. */
static void scan_job_facts(struct analysis *a, const bool *have_node)
{
	const struct job *j = &a->job;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	struct json_object *tr;

	if (json_object_object_get_ex(j->root, "transitions", &tr) &&
	    json_object_is_type(tr, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(tr) && i < 1000; i++) {
			struct json_object *t = json_object_array_get_idx(tr, i), *s, *r, *tm;

			if (!json_object_object_get_ex(t, "state", &s))
				continue;
			fprintf(m, "%s transition state=%s reason=%s\n",
				json_object_object_get_ex(t, "time", &tm) ? json_object_get_string(tm) : "-",
				json_object_get_string(s),
				json_object_object_get_ex(t, "reason", &r) ? json_object_get_string(r) : "-");
		}
	}
	for (int i = 0; i < j->nranks; i++) {
		const struct rank_info *r = &j->ranks[i];
		char t[40] = "-";

		if (!r->has_exit)
			continue;
		if (r->exit_time)
			time_format(r->exit_time, t, sizeof(t));
		fprintf(m, "%s rank=%d node=%s gpu=%s exit_code=%d signal=%d\n", t, r->rank,
			r->node >= 0 ? j->nodes.v[r->node] : "-", r->gpu ? r->gpu : "-", r->exit_code,
			r->signal);
	}
	/* the final state and missing evidence are facts at the job's end */
	char end[48];
	time_format(j->end, end, sizeof(end));
	for (int i = 0; i < j->nodes.n; i++)
		if (!have_node[i])
			fprintf(m, "%s evidence=missing node=%s\n", end, j->nodes.v[i]);
	peers_lost(a, have_node, m);
	fprintf(m, "%s state=%s reason=%s exit_code=%s derived_exit_code=%s\n", end, j->state,
		j->reason ? j->reason : "-", j->exit_code ? j->exit_code : "-",
		j->derived_exit_code ? j->derived_exit_code : "-");
	fclose(m);
	strlist_add(&a->files, "job.json");
	struct scan_out out = { 0 };
	scan_range(a, a->files.n - 1, SRC_JOB, NULL, buf, len, 0, len, false, true, false, len, &out);
	file_coverage(a, a->files.n - 1, out.failed, out.long_lines, out.limit_hits, false);
	free(buf);
}

/* ---- the scans, on several threads ----
 * Each file, or chunk of a large one, is scanned by a worker into an
 * analysis of its own (its symptoms, coverage, progress lines and identity
 * lines); the main thread then takes them in file order, exactly as one
 * thread would have met them, so the result does not depend on how many
 * threads ran.  What the workers share is read-only while they run: the
 * catalog, the job, the file list, the origins; identity is learnt only
 * in the merge. */
struct plan {
	struct work *w;
	int n, cap;
	int scans; /* items a worker scans */
	size_t chunk;
};

static struct work *plan_add(struct plan *p)
{
	if (p->n == p->cap)
		p->w = xrealloc(p->w, (p->cap = p->cap * 2 + 64) * sizeof(*p->w));
	p->w[p->n] = (struct work){ .file = -1 };
	return &p->w[p->n++];
}

/* Moves the coverage entries added since `from` into the plan. */
static void listing_coverage(struct analysis *a, int from, struct plan *p)
{
	for (int i = from; i < a->ncov; i++)
		plan_add(p)->cov = a->cov[i];
	a->ncov = from;
}

/* One file into the plan: a small one as it is (a worker opens it), a
 * large one opened here and cut into chunks. */
static void plan_file(struct analysis *a, struct plan *p, const char *rel, int file, int source,
		      const char *node, off_t listed)
{
	struct work *w;
	struct src *s;

	/* a node log over WINDOW_SEEK_MIN is read from its job's window, found
	 * by the worker: cut into chunks only when it is huge (a node's logs
	 * are many, and scanned at once) */
	if (listed <= (off_t)p->chunk ||
	    ((source & SRC_NODE) && listed > (off_t)WINDOW_SEEK_MIN && listed <= (off_t)(p->chunk * 64))) {
		w = plan_add(p);
		*w = (struct work){ .rel = rel, .file = file, .source = source, .node = node, .last = true };
		p->scans++;
		return;
	}
	int from = a->ncov, rc;
	s = xcalloc(1, sizeof(*s));
	if ((rc = src_open(a, rel, source, s, NULL, NULL)) <= 0) {
		listing_coverage(a, from, p);
		free(s);
		return;
	}
	size_t at = s->lo;

	for (int k = 0;; k++) {
		size_t cut = at + p->chunk;

		if (cut < s->hi)
			cut = chunk_cut(s->fd, cut, s->hi);
		if (cut >= s->hi)
			cut = s->hi;
		w = plan_add(p);
		*w = (struct work){ .rel = rel,
				    .file = file,
				    .source = source,
				    .node = node,
				    .src = s,
				    .from = at,
				    .to = cut,
				    .k = k,
				    .last = cut == s->hi };
		p->scans++;
		if (w->last)
			break;
		at = cut;
	}
	if (p->w[p->n - 1].k > 0) { /* chunks: the task that finds their times */
		int n = p->w[p->n - 1].k + 1;

		w = plan_add(p);
		w->finish = n;
		p->scans++;
		for (int i = p->n - 1 - n; i < p->n - 1; i++) {
			p->w[i].fin = p->n - 1;
			/* a huge file: in order, by one task (finish_file_seq) */
			p->w[i].seq = n > SEQ_CHUNKS;
		}
	}
}

struct workers {
	struct analysis *a;
	struct work *w;
	int n;
	int next;	      /* the next item to take (atomic) */
	pthread_mutex_t lock; /* a finish task waits for its file's chunks */
	pthread_cond_t scanned;
};

static void records_free(struct scan_out *out)
{
	free(out->rec);
	free(out->text);
	out->text = NULL;
	out->rec = NULL;
	out->nrec = 0;
}

/* neighbour_time over the recorded events of a file's chunks, in order:
 * the same times, found from the numbers of the events' lines and of the
 * first timestamped line after each, with the same caches (positions as
 * ranks: 2 x line at a line's start, + 1 inside it). */
struct emu {
	bool next_found;
	long next_from, next_at;
	double next_time;
	long clear_from, clear_to;
	bool prev_found;
	double prev_time;
};

/* The times of chunk k's untimed events, e carried over the chunks before
 * (first: each chunk's first line number, less one, up to k; chunks k+1
 * .. scanned-1 scanned: the first timestamped line after chunk k is
 * looked for there). */
static void emulate_chunk(const struct analysis *a, struct work *w, int k, int scanned, const long *first,
			  struct emu *e)
{
	bool nt_found = false;
	long nt_line = 0, fl = first[k] + w[k].out.lines;
	double nt_time = 0;

	for (int j = k + 1; j < scanned; j++) {
		if (w[j].out.t_found) {
			nt_found = true;
			nt_line = fl + w[j].out.t_line;
			nt_time = w[j].out.t_time;
			break;
		}
		fl += w[j].out.lines;
	}
	for (int i = 0; i < w[k].out.nrec; i++) {
		struct record *r = &w[k].out.rec[i];

		r->line += first[k];
		if (!r->untimed) {
			e->prev_found = true;
			e->prev_time = r->time;
			continue;
		}
		long line = r->line, q = 2 * (first[k] + r->q_line) + !r->q_start;
		bool t_found = r->t_found ? true : nt_found;
		long t_line = r->t_found ? first[k] + r->t_line : nt_line;
		double t_time = r->t_found ? r->t_time : nt_time;

		if (e->next_found && line >= e->next_from && line < e->next_at) {
			r->time = e->next_time;
			continue;
		}
		e->next_found = false;
		bool within = e->clear_from <= q && q < e->clear_to;
		long p = within ? e->clear_to / 2 : q / 2; /* the line the search starts in */

		if (t_found && t_line - p < NEIGHBOUR_LINES) {
			e->next_found = true;
			e->next_from = line;
			e->next_at = t_line;
			e->next_time = r->time = t_time;
			continue;
		}
		if (!(e->clear_from <= q && q <= e->clear_to))
			e->clear_from = q;
		e->clear_to = 2 * (p + NEIGHBOUR_LINES);
		r->time = e->prev_found ? e->prev_time : a->job.end;
	}
}

/* A chunk's events into the first chunk's symptoms, then let go. */
static void fold_chunk(struct work *w, int k)
{
	struct event ev;

	for (int i = 0; i < w[k].out.nrec; i++)
		if (w[k].out.rec[i].code) {
			record_event(&w[k].out.rec[i], w[k].out.text, &ev);
			symptom_add_event(w[0].sub, &ev);
		}
	records_free(&w[k].out);
}

/* A chunk scanned again with far more bytes around it when its lines
 * were too long for those read. */
static void rescan_short(struct analysis *a, struct work *w, struct wbuf *wb)
{
	if (!w->out.short_read)
		return;
	analysis_free_sub(w->sub);
	records_free(&w->out);
	w->sub = sub_new(a);
	scan_chunk(w->sub, w, w->src, CHUNK_MARGIN_LONG, wb, NULL);
}

/* A chunked file's end, after its chunks are scanned: chunks whose lines
 * were too long for the bytes read around them again with far more, the
 * times of the events (emulate_file), then the events into the first
 * chunk's symptoms, in order. */
static void finish_file(struct analysis *a, struct work *w, int n, struct wbuf *wb)
{
	long *first = xcalloc(n, sizeof(long));
	struct emu e = { 0 };
	int nrec = 0;

	for (int k = 0; k < n; k++)
		rescan_short(a, &w[k], wb);
	for (int k = 0; k < n; k++)
		nrec += w[k].out.nrec;
	if (nrec > 64)
		symptoms_reserve(w[0].sub, nrec / 4);
	for (int k = 0; k < n; k++) {
		first[k] = k ? first[k - 1] + w[k - 1].out.lines : w[0].before;
		emulate_chunk(a, w, k, n, first, &e);
	}
	for (int k = 0; k < n; k++)
		fold_chunk(w, k);
	free(first);
}

/* A huge file's chunks, scanned here in order: each chunk's events get
 * their times as soon as a timestamped line after it is scanned, and go
 * into the symptoms then, so that what is held at once is a chunk or a
 * few, not every event of the file (a log of ten million Xid lines is
 * one symptom, not ten million records).  The same results as
 * finish_file. */
static void finish_file_seq(struct analysis *a, struct work *w, int n, struct wbuf *wb)
{
	long *first = xcalloc(n, sizeof(long));
	struct emu e = { 0 };
	int scanned = 0;

	for (int k = 0; k < n; k++) {
		for (;;) {
			bool ahead = false;

			for (int j = k + 1; j < scanned && !ahead; j++)
				ahead = w[j].out.t_found;
			if (scanned > k && (ahead || scanned == n))
				break;
			w[scanned].sub = sub_new(a);
			scan_chunk(w[scanned].sub, &w[scanned], w[scanned].src, CHUNK_MARGIN, wb, NULL);
			rescan_short(a, &w[scanned], wb);
			scanned++;
		}
		first[k] = k ? first[k - 1] + w[k - 1].out.lines : w[0].before;
		emulate_chunk(a, w, k, scanned, first, &e);
		fold_chunk(w, k);
	}
	free(first);
}

static void *worker(void *p)
{
	struct workers *ws = p;
	struct wbuf wb = { 0 };
	int k;

	while ((k = __atomic_fetch_add(&ws->next, 1, __ATOMIC_RELAXED)) < ws->n) {
		struct work *w = &ws->w[k];

		if (w->finish) {
			struct work *c = w - w->finish;

			pthread_mutex_lock(&ws->lock);
			for (int i = 0; i < w->finish; i++)
				while (!c[i].done)
					pthread_cond_wait(&ws->scanned, &ws->lock);
			pthread_mutex_unlock(&ws->lock);
			if (c[0].seq)
				finish_file_seq(ws->a, c, w->finish, &wb);
			else
				finish_file(ws->a, c, w->finish, &wb);
			pthread_mutex_lock(&ws->lock);
			w->done = true;
			pthread_cond_broadcast(&ws->scanned);
			pthread_mutex_unlock(&ws->lock);
			continue;
		}
		if (!w->rel)
			continue; /* a coverage entry */
		if (w->seq) {	  /* its file's finish task scans it */
			pthread_mutex_lock(&ws->lock);
			w->done = true;
			pthread_cond_broadcast(&ws->scanned);
			pthread_mutex_unlock(&ws->lock);
			continue;
		}
		w->sub = sub_new(ws->a);
		if (w->src)
			scan_chunk(w->sub, w, w->src, CHUNK_MARGIN, &wb, NULL);
		else
			scan_small(w->sub, w, &wb);
		pthread_mutex_lock(&ws->lock);
		w->done = true;
		pthread_cond_broadcast(&ws->scanned);
		pthread_mutex_unlock(&ws->lock);
	}
	free(wb.p);
	return NULL;
}

int scan_threads(int items)
{
	const char *e = getenv("ATTRIB_THREADS");
	long n = e && *e ? strtol(e, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);

	if (n > 16)
		n = 16;
	if (n > items)
		n = items;
	return n < 1 ? 1 : (int)n;
}

/* One worker's scan into the analysis, in order; its lines numbered from
 * first (the number of its first line, less one), its symptoms' from
 * sym_first. */
static void merge_scan(struct analysis *a, struct analysis *sub, long sym_first, long first)
{
	for (int i = 0; i < sub->ncov; i++) {
		if (a->ncov == a->capcov)
			a->cov = xrealloc(a->cov, (a->capcov = a->capcov * 2 + 8) * sizeof(*a->cov));
		a->cov[a->ncov++] = sub->cov[i];
	}
	free(sub->cov);
	struct event ev = { 0 };

	for (int i = 0; i < sub->ndefer; i++) {
		struct file_scan f = { .a = a, .source = sub->defer[i].source, .node = sub->defer[i].node };

		fields_unpack(&ev.f, sub->defer_store.p + sub->defer[i].at);
		learn_identity(&f, &ev);
	}
	free(sub->defer);
	free(sub->defer_store.p);
	for (int i = 0; i < sub->nsym; i++)
		for (int k = 0; k < sub->sym[i]->nev; k++)
			sub->sym[i]->ev[k].line += sym_first;
	symptoms_merge(a, sub);
	for (int i = 0; i < sub->nprogress; i++) {
		if (a->nprogress == a->capprogress) {
			a->capprogress = a->capprogress * 2 + 64;
			a->progress = xrealloc(a->progress, a->capprogress * sizeof(double));
			a->beats = xrealloc(a->beats, a->capprogress * sizeof(*a->beats));
		}
		a->beats[a->nprogress] = sub->beats[i]; /* its host moves */
		a->progress[a->nprogress++] = sub->progress[i];
	}
	free(sub->progress);
	free(sub->beats);
	if (sub->last_progress.text &&
	    (!a->last_progress.text || sub->last_progress.time >= a->last_progress.time)) {
		free(a->last_progress.text);
		a->last_progress = sub->last_progress;
		a->last_progress.line += first;
	} else {
		free(sub->last_progress.text);
	}
	a->lines_scanned += sub->lines_scanned;
	a->events += sub->events;
	free(sub);
}

/* The plan's scans on as many threads as there are cores, while this
 * thread merges what they found, in order, as it comes (plan_merge). */
struct run {
	struct workers ws;
	pthread_t t[16];
	int started;
};

static void plan_start(struct analysis *a, struct plan *p, struct run *r)
{
	int nt = scan_threads(p->scans);

	r->ws = (struct workers){ .a = a, .w = p->w, .n = p->n };
	pthread_mutex_init(&r->ws.lock, NULL);
	pthread_cond_init(&r->ws.scanned, NULL);
	r->started = 0;
	for (int i = 0; i < nt; i++)
		if (!pthread_create(&r->t[i], NULL, worker, &r->ws))
			r->started++;
		else
			break;
	if (!r->started) /* no thread to be had: this one scans */
		worker(&r->ws);
}

/* Waits until item k can be merged: scanned, or its file finished. */
static void plan_ready(struct run *r, int k)
{
	const struct work *w = &r->ws.w[k], *d = w->fin ? &r->ws.w[w->fin] : w;

	if (!w->rel)
		return;
	pthread_mutex_lock(&r->ws.lock);
	while (!d->done)
		pthread_cond_wait(&r->ws.scanned, &r->ws.lock);
	pthread_mutex_unlock(&r->ws.lock);
}

static void plan_join(struct run *r)
{
	for (int i = 0; i < r->started; i++)
		pthread_join(r->t[i], NULL);
	pthread_cond_destroy(&r->ws.scanned);
	pthread_mutex_destroy(&r->ws.lock);
}

/* The plan's items [from, to) into the analysis, in order: per file, the
 * lines before each chunk and the coverage counts. */
static void plan_merge(struct analysis *a, struct plan *p, int from, int to, struct run *r)
{
	bool failed = false, shrank = false;
	long first = 0, long_lines = 0, hits = 0;

	for (int k = from; k < to; k++) {
		struct work *w = &p->w[k];

		if (w->finish)
			continue;
		plan_ready(r, k);
		if (!w->rel) {
			if (a->ncov == a->capcov)
				a->cov = xrealloc(a->cov, (a->capcov = a->capcov * 2 + 8) * sizeof(*a->cov));
			a->cov[a->ncov++] = w->cov;
			continue;
		}
		if (w->k == 0) {
			failed = shrank = false;
			first = w->before;
			long_lines = hits = 0;
		}
		/* recorded events carry their own line numbers */
		merge_scan(a, w->sub, w->src && !(w->k == 0 && w->last) ? 0 : first, first);
		w->sub = NULL;
		first += w->out.lines;
		long_lines += w->out.long_lines;
		hits += w->out.limit_hits;
		failed |= w->out.failed;
		shrank |= w->shrank;
		if (w->last) {
			file_coverage(a, w->file, failed, long_lines, hits, shrank);
			if (w->src) {
				close(w->src->fd);
				free(w->src);
			}
		}
	}
}

/* The plan's items [from, to), scanned but not to be merged. */
static void plan_drop(struct plan *p, int from, int to)
{
	for (int k = from; k < to; k++) {
		struct work *w = &p->w[k];

		if (w->finish)
			continue;
		if (!w->rel) {
			free(w->cov.source);
			free(w->cov.status);
			free(w->cov.detail);
			continue;
		}
		if (w->sub)
			analysis_free_sub(w->sub);
		records_free(&w->out);
		if (w->last && w->src) {
			close(w->src->fd);
			free(w->src);
		}
	}
}

static void plan_free(struct plan *p)
{
	free(p->w);
	*p = (struct plan){ .chunk = p->chunk };
}

/* The node directories and their files into the plan.  Which node a
 * directory is depends on what the application output taught identity
 * (a directory named by an address): dirs and node[] keep what the
 * listing saw, for nodes_still (below). */
static void plan_nodes(struct analysis *a, struct plan *p, bool *have, struct strlist *dirs, int **nodes)
{
	const struct job *j = &a->job;
	struct strlist files = { 0 };
	off_t *sizes = NULL;
	int from;
	DIR *d;
	struct dirent *e;

	/* the listing first, in the main thread: which files, in which order */
	from = a->ncov;
	if ((d = open_dir(a, "nodes"))) {
		while ((e = readdir(d)) && dirs->n < MAX_FILES)
			if (e->d_name[0] != '.')
				strlist_add(dirs, e->d_name);
		closedir(d);
	}
	listing_coverage(a, from, p);
	if (dirs->n > 1)
		qsort(dirs->v, dirs->n, sizeof(char *), cmp_str);
	*nodes = xcalloc(dirs->n + 1, sizeof(int));
	for (int i = 0; i < dirs->n; i++) {
		int node = (*nodes)[i] = identity_node(a->id, dirs->v[i]);
		char rel[4096];

		from = a->ncov;
		if (node < 0) {
			analysis_add_coverage(a, "nodes", "error",
					      "nodes/%s is not one of the job's nodes; not read", dirs->v[i]);
			listing_coverage(a, from, p);
			continue;
		}
		snprintf(rel, sizeof(rel), "nodes/%s", dirs->v[i]);
		if (list_dir(a, rel, &files, &sizes, 1) < 0) {
			listing_coverage(a, from, p);
			continue; /* said why */
		}
		if (!files.n)
			analysis_add_coverage(a, rel, "missing", "no log files");
		listing_coverage(a, from, p);
		if (!files.n)
			continue;
		have[node] = true;
		for (int k = 0; k < files.n; k++) {
			strlist_add(&a->files, files.v[k]);
			plan_file(a, p, a->files.v[a->files.n - 1], a->files.n - 1, SRC_NODE,
				  j->nodes.v[node], sizes[k]);
		}
		strlist_free(&files);
	}
	free(sizes);
}

/* Whether every node directory is still the node the listing took it for,
 * with what the application output has taught identity since. */
static bool nodes_still(const struct analysis *a, const struct strlist *dirs, const int *nodes)
{
	for (int i = 0; i < dirs->n; i++)
		if (identity_node(a->id, dirs->v[i]) != nodes[i])
			return false;
	return true;
}

/* Application output and scheduler excerpts: their files in the plan. */
static void plan_dir(struct analysis *a, struct plan *p, const char *dir, int source)
{
	struct strlist files = { 0 };
	off_t *sizes = NULL;
	int from = a->ncov;

	list_dir(a, dir, &files, &sizes, 0);
	listing_coverage(a, from, p);
	for (int i = 0; i < files.n; i++) {
		strlist_add(&a->files, files.v[i]);
		plan_file(a, p, a->files.v[a->files.n - 1], a->files.n - 1, source, NULL, sizes[i]);
	}
	strlist_free(&files);
	free(sizes);
}

void scan_case(struct analysis *a)
{
	const struct job *j = &a->job;
	bool *have = xcalloc(j->nodes.n, sizeof(bool));
	struct plan p = { .chunk = chunk_bytes() };
	struct strlist dirs = { 0 };
	int *nodes = NULL;

	origins_load(a);
	/* application output first: its NCCL init lines teach node identity,
	 * which names the node directories.  All files are scanned at once;
	 * the node directories are listed before that identity is learnt and
	 * listed again in the rare case it changes which node one is. */
	plan_dir(a, &p, "app", SRC_APP);
	plan_dir(a, &p, "scheduler", SRC_SCHED);
	int napp = p.n, nfiles = a->files.n;
	plan_nodes(a, &p, have, &dirs, &nodes);
	struct run r;

	plan_start(a, &p, &r);
	plan_merge(a, &p, 0, napp, &r);
	if (nodes_still(a, &dirs, nodes)) {
		plan_merge(a, &p, napp, p.n, &r);
		plan_join(&r);
		plan_free(&p);
	} else {
		plan_join(&r);
		plan_drop(&p, napp, p.n);
		plan_free(&p);
		while (a->files.n > nfiles)
			free(a->files.v[--a->files.n]);
		memset(have, 0, j->nodes.n * sizeof(bool));
		strlist_free(&dirs);
		free(nodes);
		plan_nodes(a, &p, have, &dirs, &nodes);
		plan_start(a, &p, &r);
		plan_merge(a, &p, 0, p.n, &r);
		plan_join(&r);
		plan_free(&p);
	}
	strlist_free(&dirs);
	free(nodes);
	for (int i = 0; i < j->nodes.n; i++)
		if (!have[i]) {
			char src[4096];

			snprintf(src, sizeof(src), "nodes/%s", j->nodes.v[i]);
			analysis_add_coverage(a, src, "missing", "no evidence collected from this node");
		}
	scan_job_facts(a, have);
	origins_free(a);
	free(have);
}
