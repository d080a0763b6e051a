/* Reads a case directory: job.json facts, node logs, application output
 * and scheduler excerpts, each file mapped (never copied) and scanned
 * once by the multi-pattern matcher.  Unreadable evidence becomes a
 * coverage entry, never an error. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"

#define MAX_LINE (64 * 1024)	/* bytes of one line a regex sees */
#define MAX_IDENTITY 16
#define NEIGHBOUR_LINES 400	/* how far to look for a timestamped line */
#define MAX_FILES 100000

struct file_scan {
	struct analysis *a;
	const char *buf;
	size_t len;
	int file;
	int source;
	const char *node;	/* node dir name for node files */
	enum origin origin;	/* evidence.json's word on this file */
	/* hits of the line being collected */
	size_t line_start;
	int *cand;
	int ncand;
	bool *seen;
	/* line numbering */
	size_t counted_to;
	long line_no;
	/* neighbour time cache */
	size_t next_from, next_at;
	size_t clear_from, clear_to;	/* no line here has a time of its own */
	double next_time;
	bool next_found;
	double prev_time;
	bool prev_found;
	bool mapped;		/* a private file mapping: pages behind may be dropped */
	long long_lines;
	long out_of_window;
	long other_jobs;
};

void analysis_add_coverage(struct analysis *a, const char *source, const char *status,
			   const char *fmt, ...)
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

/* 1-based number of the line starting at off (lines are visited in order). */
static long line_number(struct file_scan *f, size_t off)
{
	if (off < f->counted_to) {	/* a multi-line match reaching back */
		long n = f->line_no;

		for (size_t p = off; p < f->counted_to; p++)
			if (f->buf[p] == '\n')
				n--;
		return n;
	}
	/* counted in steps, the pages behind dropped as in matcher_scan: the
	 * first event far into a mapped log must not pull all of it back in */
	const size_t step = 64u << 20, keep = 1u << 20;
	for (size_t from = f->counted_to; from < off;) {
		size_t upto = off - from > step ? from + step : off;

		for (const char *p = f->buf + from, *end = f->buf + upto;
		     (p = memchr(p, '\n', end - p)); p++)
			f->line_no++;
		from = upto;
		if (f->mapped && off - f->counted_to > step && upto > keep) {
			long page = sysconf(_SC_PAGESIZE);
			uintptr_t lo = ((uintptr_t)f->buf + page - 1) & ~((uintptr_t)page - 1);
			uintptr_t hi = ((uintptr_t)f->buf + upto - keep) & ~((uintptr_t)page - 1);

			if (hi > lo)
				madvise((void *)lo, hi - lo, MADV_DONTNEED);
		}
	}
	f->counted_to = off;
	return f->line_no;
}

/* Time of a line by itself (header or prefix), if it has one. */
static bool own_time(struct file_scan *f, size_t start, size_t end, double *t)
{
	struct line_ctx lc;
	size_t len = end - start, hdr;

	if (len > MAX_LINE)
		len = MAX_LINE;
	if (time_parse_header(&f->a->tc, f->buf + start, len, t, &hdr))
		return true;
	if (f->source & SRC_NODE)
		return false;
	line_context(f->a->cat, &f->a->tc, f->buf + start, len, &lc);
	bool ok = lc.has_time;
	*t = lc.time;
	line_context_free(&lc);
	return ok;
}

/* A line without a time of its own takes the next timestamped line's time
 * (an upper bound: it was printed no later), else the previous one's,
 * else the job's end. */
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
	return id[strspn(id, "0123456789")] == '_' || id[strspn(id, "0123456789")] == '+' ?
		jobid[strspn(jobid, "0123456789")] == '\0' || jobid[strspn(jobid, "0123456789")] == '.' : false;
}

static void deliver_one(struct file_scan *f, struct event *ev, size_t start, size_t end);

static void progress_add(struct analysis *a, const struct event *ev)
{
	if (a->nprogress == a->capprogress)
		a->progress = xrealloc(a->progress, (a->capprogress = a->capprogress * 2 + 64) * sizeof(double));
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
		struct event copy = *ev;

		copy.names = (struct strlist){ 0 };
		copy.values = (struct strlist){ 0 };
		for (int k = 0; k < ev->names.n; k++) {
			strlist_add(&copy.names, ev->names.v[k]);
			strlist_add(&copy.values, ev->values.v[k]);
		}
		strlist_add(&copy.names, "node");
		strlist_add(&copy.values, hosts.v[i]);
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

	if (!task || event_field(ev, "rank"))
		return;
	for (int i = 0; i < a->job.nranks; i++)
		if (a->job.ranks[i].has_exit) {
			strlist_add(&ev->names, "rank");
			strlist_add(&ev->values, task);
			return;
		}
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
			return;
		}
		if (ev->time < a->job.start - set->window_before) {
			/* a node's faults of the hours before are its history: context
			 * that can show a fault following a GPU rather than a program */
			if (!(fault || (ev->code->flags & CODE_BOOT)) || !(f->source & SRC_NODE) ||
			    ev->time < a->job.start - set->history) {
				f->out_of_window++;
				return;
			}
			ev->aside = ASIDE_BEFORE;
		}
	} else {
		neighbour_time(f, start, end, &ev->time);
		ev->approx = true;
	}
	a->events++;
	symptom_add_event(a, ev);
}

struct deferred_identity {
	struct event ev;	/* names and values only */
	int source;
	const char *node;
};

static void learn_identity(struct file_scan *f, struct event *ev)
{
	struct identity *id = f->a->id;

	if (f->a->deferring) {	/* a worker's file: later, in file order */
		struct analysis *a = f->a;

		if (a->ndefer == a->capdefer)
			a->defer = xrealloc(a->defer, (a->capdefer = a->capdefer * 2 + 16) * sizeof(*a->defer));
		struct deferred_identity *d = &a->defer[a->ndefer++];

		*d = (struct deferred_identity){ .source = f->source, .node = f->node };
		for (int i = 0; i < ev->names.n; i++) {
			strlist_add(&d->ev.names, ev->names.v[i]);
			strlist_add(&d->ev.values, ev->values.v[i]);
		}
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

	for (int i = 1; i < x->lines && from > 0; i++) {
		from--;
		while (from > 0 && f->buf[from - 1] != '\n')
			from--;
	}
	if (end - from > (size_t)MAX_LINE * 4)
		from = end - (size_t)MAX_LINE * 4;
	if (!extractor_apply(f->a->cat, x, f->buf + from, end - from, &ev)) {
		event_clear(&ev);
		return;
	}
	size_t ms = from + ev.match_start, ls = ms;
	while (ls > 0 && f->buf[ls - 1] != '\n')
		ls--;
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

static void flush_line(struct file_scan *f)
{
	const attrib_catalog *cat = f->a->cat;
	size_t start = f->line_start, end = line_end_of(f, start), len = end - start;
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
	/* candidates in priority order: the line's few hits sorted by their
	 * rank (a walk through every extractor was hundreds of steps a line) */
	if (f->ncand > 16)	/* a line many rules hit (hostile input) */
		qsort_r(f->cand, f->ncand, sizeof(int), by_rank, (void *)cat);
	else
		for (int i = 1; i < f->ncand; i++)
			for (int k = i; k > 0 && by_rank(&f->cand[k], &f->cand[k - 1], (void *)cat) < 0; k--) {
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
	if (line_extract(cat, &f->a->tc, f->buf + start, len, f->source, single, ns, &lc, &ev,
			 ids, &nids, MAX_IDENTITY)) {
		deliver(f, &ev, start, start + len);
		event_clear(&ev);
	}
	for (int i = 0; i < nids; i++) {
		learn_identity(f, &ids[i]);
		event_clear(&ids[i]);
	}
	line_context_free(&lc);
}

static void on_hit(void *ctx, int rule, size_t line_start, size_t match_end)
{
	struct file_scan *f = ctx;
	(void)match_end;

	if (f->ncand && line_start != f->line_start)
		flush_line(f);
	f->line_start = line_start;
	if (!f->seen[rule]) {
		f->seen[rule] = true;
		f->cand[f->ncand++] = rule;
	}
}

static void scan_buffer(struct analysis *a, int file, int source, const char *node,
			const char *buf, size_t len, bool mapped, long first_line)
{
	struct file_scan f = { .a = a, .buf = buf, .len = len, .file = file, .line_no = first_line,
			       .source = source, .node = node, .mapped = mapped };
	int n = a->cat->nextractors;

	f.origin = origin_of(a, a->files.v[file], source);
	f.cand = xcalloc(n, sizeof(int));
	f.seen = xcalloc(n, sizeof(bool));
	extractor_limit_hits_take();	/* this file's own from here */
	if (matcher_scan(a->cat->matcher, source, buf, len, mapped, on_hit, &f) < 0)
		analysis_add_coverage(a, a->files.v[file], "error", "scan failed");
	flush_line(&f);
	if (f.long_lines)
		analysis_add_coverage(a, a->files.v[file], "error",
				      "%ld lines longer than %d bytes were cut to that length",
				      f.long_lines, MAX_LINE);
	{
		long hits = extractor_limit_hits_take();

		if (hits)
			analysis_add_coverage(a, a->files.v[file], "error",
					      "%ld regex matches stopped at PCRE2's match or depth limit "
					      "(a rule that backtracks too much); those lines were not "
					      "judged by that rule", hits);
	}
	free(f.cand);
	free(f.seen);
}

/* ---- the job's window in a large node log ----
 * Node logs are written in time order and often hold days around a job of
 * hours: a binary search on line timestamps finds the part worth
 * scanning.  A generous slack absorbs lines slightly out of order; a file
 * whose probes show no timestamps is scanned whole. */
#define WINDOW_SEEK_MIN (8u << 20)
#define WINDOW_SLACK 3600.0
#define PROBE_REACH (1u << 20)	/* how far a probe looks for the end of a line */

static long count_lines(const char *buf, size_t len)
{
	long n = 0;

	for (const char *p = buf, *end = buf + len; (p = memchr(p, '\n', end - p)); p++)
		n++;
	return n;
}

/* Time of the first timestamped line at or after off (a line start). */
static bool probe_time(const struct analysis *a, const char *buf, size_t len, size_t off, double *t)
{
	for (int i = 0; i < 32 && off < len; i++) {
		size_t reach = len - off < PROBE_REACH ? len - off : PROBE_REACH;
		const char *nl = memchr(buf + off, '\n', reach);
		size_t end = nl ? (size_t)(nl - buf) : off + reach, hdr;

		if (!nl && end < len)
			return false;	/* a line of megabytes: nothing to steer by */
		if (time_parse_header(&a->tc, buf + off, end - off > 256 ? 256 : end - off, t, &hdr))
			return true;
		off = end + 1;
	}
	return false;
}

static size_t next_line(const char *buf, size_t len, size_t off)
{
	/* (no newline within reach: the end, which stops a seek) */
	const char *nl = off < len ? memchr(buf + off, '\n', len - off < PROBE_REACH ? len - off : PROBE_REACH) : NULL;

	return nl ? (size_t)(nl - buf) + 1 : len;
}

/* Offset of a line start before which every line is older than t. */
static bool seek_time(const struct analysis *a, const char *buf, size_t len, double t, size_t *out)
{
	size_t lo = 0, hi = len;
	double pt;

	while (hi - lo > (64u << 10)) {
		size_t mid = next_line(buf, len, lo + (hi - lo) / 2);

		if (mid >= hi || !probe_time(a, buf, len, mid, &pt))
			return false;	/* no timestamps to steer by */
		if (pt < t)
			lo = mid;
		else
			hi = mid;
	}
	*out = lo;
	return true;
}

/* Whether time grows through the log, sampled at 65 points: a clock reset
 * (a reboot with a dead RTC, a step back) or logs concatenated out of
 * order would send the search past the job's lines. */
static bool time_grows(const struct analysis *a, const char *buf, size_t len)
{
	double top = -1e300, t;

	for (int i = 0; i <= 64; i++) {
		size_t off = i ? next_line(buf, len, (size_t)((double)len * i / 64)) : 0;

		if (off >= len)
			break;
		if (!probe_time(a, buf, len, off, &t))
			continue;
		if (t < top - WINDOW_SLACK)
			return false;
		if (t > top)
			top = t;
	}
	return true;
}

static void window_bounds(const struct analysis *a, const char *buf, size_t len, size_t *lo, size_t *hi)
{
	double from = a->job.start - a->cat->set.window_before - WINDOW_SLACK;
	double to = a->job.end + a->cat->set.window_after + WINDOW_SLACK;
	size_t l, h;

	if (!time_grows(a, buf, len) || !seek_time(a, buf, len, from, &l) || !seek_time(a, buf, len, to, &h))
		return;
	h = next_line(buf, len, h + (64u << 10) < len ? h + (64u << 10) : len);
	if (l < h) {
		*lo = l;
		*hi = h;
	}
}

/* A file that shrinks while it is mapped (log rotation, a collector still
 * writing) raises SIGBUS on the pages past its new end: the handler maps
 * zeros over the rest of the mapping, the scan reads NUL bytes there and
 * the file gets a coverage entry.  Any other SIGBUS is fatal as before. */
static _Thread_local struct {
	char *base;
	size_t len;
	uintptr_t page;
	volatile sig_atomic_t hit;
} guard;	/* the file this thread has mapped (SIGBUS comes to the thread that faults) */

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	char *p = si->si_addr;
	(void)uc;

	if (guard.base && p >= guard.base && p < guard.base + guard.len) {
		char *from = (char *)((uintptr_t)p & ~(guard.page - 1));

		if (mmap(from, guard.base + guard.len - from, PROT_READ,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
			guard.hit = 1;
			return;
		}
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Whether a node file is a tool's report (nvidia-smi -q, dcgmi, ibstat:
 * a saved dump whose lines carry no time) rather than a log: fewer than
 * half of its first non-empty lines start with a timestamp.  Reports are
 * also read by the rules of their tables and sections (source: report),
 * which a log is spared. */
static bool is_report(const struct analysis *a, const char *buf, size_t len)
{
	int lines = 0, stamped = 0;
	size_t off = 0, reach = len < (64u << 10) ? len : 64u << 10;	/* never the whole of a huge file */

	while (off < reach && lines < 16) {
		const char *nl = memchr(buf + off, '\n', reach - off);
		size_t end = nl ? (size_t)(nl - buf) : reach, hdr;
		double t;

		if (end > off + 1) {	/* not an empty line (nor a lone CR) */
			lines++;
			stamped += time_parse_header(&a->tc, buf + off, end - off > 256 ? 256 : end - off, &t, &hdr);
		}
		off = end + 1;
	}
	return stamped * 2 < lines;
}

/* Opens a case file without following links or blocking on FIFOs. */
static void scan_file(struct analysis *a, const char *rel, int source, const char *node, int file)
{
	char *path = xmalloc(strlen(a->dir) + strlen(rel) + 2);
	struct stat st;
	int fd;

	sprintf(path, "%s/%s", a->dir, rel);
	if (file < 0) {
		strlist_add(&a->files, rel);
		file = a->files.n - 1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	free(path);
	if (fd < 0) {
		analysis_add_coverage(a, rel, "error", "cannot read: %s",
				      errno == ELOOP ? "a symbolic link (not followed)" : strerror(errno));
		return;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		analysis_add_coverage(a, rel, "error", "not a regular file");
		close(fd);
		return;
	}
	if (st.st_size == 0) {
		close(fd);
		return;
	}
	void *m = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		analysis_add_coverage(a, rel, "error", "cannot map: %s", strerror(errno));
		return;
	}
	long page = sysconf(_SC_PAGESIZE);

	guard.page = (uintptr_t)page;
	guard.len = ((size_t)st.st_size + page - 1) & ~((size_t)page - 1);
	guard.hit = 0;
	guard.base = m;
	size_t lo = 0, hi = st.st_size;
	if ((source & SRC_NODE) && is_report(a, m, st.st_size))
		source |= SRC_REPORT;
	if ((source & SRC_NODE) && (size_t)st.st_size > WINDOW_SEEK_MIN)
		window_bounds(a, m, st.st_size, &lo, &hi);
	madvise((char *)m + lo, hi - lo, MADV_SEQUENTIAL);
	scan_buffer(a, file, source, node, (char *)m + lo, hi - lo, true, 1 + count_lines(m, lo));
	guard.base = NULL;
	if (guard.hit)
		analysis_add_coverage(a, rel, "error", "the file shrank while it was read; its end was not read");
	munmap(m, st.st_size);
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
					      errno == ELOOP ? "a symbolic link (not followed)" :
					      errno == ENOTDIR ? "not a directory" : strerror(errno));
		return NULL;
	}
	if (!(d = fdopendir(fd)))
		close(fd);
	return d;
}

/* Regular files under dir (relative to the case), recursively, sorted;
 * -1 when dir cannot be read (a coverage entry says why). */
static int list_dir(struct analysis *a, const char *rel, struct strlist *out, int depth)
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

		if (asprintf(&r, "%s/%s", rel, names.v[i]) < 0 ||
		    asprintf(&full, "%s/%s", a->dir, r) < 0)
			abort();
		if (lstat(full, &st) == 0 && S_ISDIR(st.st_mode)) {
			if (depth < 4)
				list_dir(a, r, out, depth + 1);
			else
				analysis_add_coverage(a, r, "error", "a directory nested too deep; not read");
		} else {
			strlist_add(out, r);	/* links and specials are refused when opened */
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
	bool *seen = xcalloc((size_t)n * n + 1, sizeof(bool));	/* [blamed * n + reporter] */
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
			fprintf(m, "%s peers_lost node=%s reporters=%d evidence=%s\n", t,
				a->job.nodes.v[i], reporters[i], have_node[i] ? "present" : "missing");
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
			r->node >= 0 ? j->nodes.v[r->node] : "-", r->gpu ? r->gpu : "-",
			r->exit_code, r->signal);
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
	scan_buffer(a, a->files.n - 1, SRC_JOB, NULL, buf, len, false, 1);
	free(buf);
}

/* ---- the node logs, on several threads ----
 * Each node file is scanned by a worker into an analysis of its own (its
 * symptoms, coverage, progress lines and identity lines); the main thread
 * then takes them in file order, exactly as one thread would have met
 * them, so the result does not depend on how many threads ran.  What the
 * workers share is read-only while they run: the catalog, the job, the
 * file list, the origins; identity is learnt only in the merge. */
struct node_work {
	const char *rel;	/* NULL: a coverage entry of the listing */
	const char *node;
	int file;
	struct coverage cov;
	struct analysis *sub;
};

struct workers {
	struct analysis *a;
	struct node_work *w;
	int n;
	int next;		/* the next item to take (atomic) */
};

static void work_one(struct analysis *a, struct node_work *w)
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
	sub->deferring = true;	/* identity is learnt in the merge */
	scan_file(sub, w->rel, SRC_NODE, w->node, w->file);
	w->sub = sub;
}

static void *worker(void *p)
{
	struct workers *ws = p;
	int k;

	while ((k = __atomic_fetch_add(&ws->next, 1, __ATOMIC_RELAXED)) < ws->n)
		if (ws->w[k].rel)
			work_one(ws->a, &ws->w[k]);
	return NULL;
}

static int scan_threads(int files)
{
	const char *e = getenv("ATTRIB_THREADS");
	long n = e && *e ? strtol(e, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);

	if (n > 16)
		n = 16;
	if (n > files)
		n = files;
	return n < 1 ? 1 : (int)n;
}

/* One worker's file into the analysis, in order. */
static void merge_file(struct analysis *a, struct analysis *sub)
{
	for (int i = 0; i < sub->ncov; i++) {
		if (a->ncov == a->capcov)
			a->cov = xrealloc(a->cov, (a->capcov = a->capcov * 2 + 8) * sizeof(*a->cov));
		a->cov[a->ncov++] = sub->cov[i];
	}
	free(sub->cov);
	for (int i = 0; i < sub->ndefer; i++) {
		struct file_scan f = { .a = a, .source = sub->defer[i].source, .node = sub->defer[i].node };

		learn_identity(&f, &sub->defer[i].ev);
		event_clear(&sub->defer[i].ev);
	}
	free(sub->defer);
	symptoms_merge(a, sub);
	for (int i = 0; i < sub->nprogress; i++) {
		if (a->nprogress == a->capprogress)
			a->progress = xrealloc(a->progress, (a->capprogress = a->capprogress * 2 + 64) * sizeof(double));
		a->progress[a->nprogress++] = sub->progress[i];
	}
	free(sub->progress);
	if (sub->last_progress.text &&
	    (!a->last_progress.text || sub->last_progress.time >= a->last_progress.time)) {
		free(a->last_progress.text);
		a->last_progress = sub->last_progress;
	} else {
		free(sub->last_progress.text);
	}
	a->lines_scanned += sub->lines_scanned;
	a->events += sub->events;
	free(sub);
}

/* Moves the coverage entries added since `from` into the work list. */
static void listing_coverage(struct analysis *a, int from, struct node_work **w, int *n)
{
	for (int i = from; i < a->ncov; i++) {
		*w = xrealloc(*w, (*n + 1) * sizeof(**w));
		(*w)[(*n)++] = (struct node_work){ .cov = a->cov[i], .file = -1 };
	}
	a->ncov = from;
}

static void scan_nodes(struct analysis *a, bool *have)
{
	const struct job *j = &a->job;
	struct strlist dirs = { 0 }, files = { 0 };
	struct node_work *w = NULL;
	int n = 0, nfiles = 0, from;
	DIR *d;
	struct dirent *e;

	/* the listing first, in the main thread: which files, in which order */
	from = a->ncov;
	if ((d = open_dir(a, "nodes"))) {
		while ((e = readdir(d)) && dirs.n < MAX_FILES)
			if (e->d_name[0] != '.')
				strlist_add(&dirs, e->d_name);
		closedir(d);
	}
	listing_coverage(a, from, &w, &n);
	if (dirs.n > 1)
		qsort(dirs.v, dirs.n, sizeof(char *), cmp_str);
	for (int i = 0; i < dirs.n; i++) {
		int node = identity_node(a->id, dirs.v[i]);
		char rel[4096];

		from = a->ncov;
		if (node < 0) {
			analysis_add_coverage(a, "nodes", "error",
					      "nodes/%s is not one of the job's nodes; not read", dirs.v[i]);
			listing_coverage(a, from, &w, &n);
			continue;
		}
		snprintf(rel, sizeof(rel), "nodes/%s", dirs.v[i]);
		if (list_dir(a, rel, &files, 1) < 0) {
			listing_coverage(a, from, &w, &n);
			continue;	/* said why */
		}
		if (!files.n)
			analysis_add_coverage(a, rel, "missing", "no log files");
		listing_coverage(a, from, &w, &n);
		if (!files.n)
			continue;
		have[node] = true;
		w = xrealloc(w, (n + files.n) * sizeof(*w));
		for (int k = 0; k < files.n; k++) {
			strlist_add(&a->files, files.v[k]);
			w[n++] = (struct node_work){ .rel = a->files.v[a->files.n - 1], .node = j->nodes.v[node],
						     .file = a->files.n - 1 };
			nfiles++;
		}
		strlist_free(&files);
	}
	strlist_free(&dirs);

	/* the scans, on as many threads as there are cores */
	struct workers ws = { .a = a, .w = w, .n = n };
	int nt = scan_threads(nfiles);
	pthread_t *t = xcalloc(nt, sizeof(*t));
	int started = 0;

	for (int i = 1; i < nt; i++)	/* the main thread is one of them */
		if (!pthread_create(&t[i], NULL, worker, &ws))
			started++;
		else
			break;
	worker(&ws);
	for (int i = 1; i <= started; i++)
		pthread_join(t[i], NULL);
	free(t);

	/* then everything in order */
	for (int k = 0; k < n; k++) {
		if (!w[k].rel) {
			if (a->ncov == a->capcov)
				a->cov = xrealloc(a->cov, (a->capcov = a->capcov * 2 + 8) * sizeof(*a->cov));
			a->cov[a->ncov++] = w[k].cov;
		} else {
			merge_file(a, w[k].sub);
		}
	}
	free(w);
}

void scan_case(struct analysis *a)
{
	const struct job *j = &a->job;
	bool *have = xcalloc(j->nodes.n, sizeof(bool));
	struct strlist files = { 0 };
	/* one SIGBUS handler for the whole scan: threads install none */
	struct sigaction sa = { .sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO }, old;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &old);
	origins_load(a);
	/* application output first: its NCCL init lines teach node identity */
	list_dir(a, "app", &files, 0);
	for (int i = 0; i < files.n; i++)
		scan_file(a, files.v[i], SRC_APP, NULL, -1);
	strlist_free(&files);
	list_dir(a, "scheduler", &files, 0);
	for (int i = 0; i < files.n; i++)
		scan_file(a, files.v[i], SRC_SCHED, NULL, -1);
	strlist_free(&files);
	scan_nodes(a, have);
	sigaction(SIGBUS, &old, NULL);
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
