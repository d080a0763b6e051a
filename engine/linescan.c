/* The line loop: the multi-pattern matcher reports which rules may match
 * which line (matcher.c); each line's candidates run in priority order
 * (multi-line rules on the lines before too), and what they extract is
 * delivered (deliver.c). */
#include <stdlib.h>
#include <string.h>
#include "scan_parts.h"

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

/* Scans the lines [from, to) of buf, which holds some lines before and
 * after them too (more_before: the part of the file to scan goes on
 * before buf).  Events go to a, or to out->rec when recording (a chunk of
 * a large file); line numbers count from 1 at from.  span: the bytes of
 * the file its chunks scan (unwrap hook). */
void scan_range(struct analysis *a, int file, int source, const char *node, const char *buf, size_t len,
		size_t from, size_t to, bool more_before, bool aligned, bool recording, size_t span,
		struct scan_out *out)
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
void file_coverage(struct analysis *a, int file, bool failed, long long_lines, long hits, bool shrank)
{
	const char *rel = a->files.v[file];

	if (failed)
		analysis_add_coverage(a, rel, COVERAGE_ERROR, "scan failed");
	if (long_lines)
		analysis_add_coverage(a, rel, COVERAGE_ERROR,
				      "%ld lines longer than %d bytes were cut to that length", long_lines,
				      MAX_LINE);
	if (hits)
		analysis_add_coverage(a, rel, COVERAGE_ERROR,
				      "%ld regex matches stopped at PCRE2's match or depth limit "
				      "(a rule that backtracks too much); those lines were not "
				      "judged by that rule",
				      hits);
	if (shrank)
		analysis_add_coverage(a, rel, COVERAGE_ERROR,
				      "the file shrank while it was read; its end was not read");
}
