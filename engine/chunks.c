/* A large file is cut into chunks of about the options' chunk_bytes (4 MiB,
 * CHUNK_BYTES, by default) at line starts chosen by the file alone (never
 * by the number of threads), each scanned by a worker into an analysis of
 * its own and merged in file order, so the result is the one a single scan
 * of the whole file gives:
 *  - line numbers count from each chunk's first line; the merge adds the
 *    lines of the chunks before;
 *  - the time of a line without its own depends on the scan before it
 *    (neighbour_time's caches: the stretch already searched in vain, the
 *    last timestamped event): a chunk records its events with the number
 *    of the first line with a time after each; in file order the main
 *    thread then finds their times from those numbers alone, exactly as
 *    neighbour_time would (emulate_chunk), and the workers put the events
 *    into the chunks' symptoms;
 *  - each chunk reads some bytes before and after its lines (multi-line
 *    rules and matches); one whose lines are so long that those were not
 *    enough is scanned again with far more.
 * The one thing a chunk may see less of than a scan of the whole file is
 * a line longer than BOUNDARY_REACH (64 MiB) that spans a cut: what a rule
 * would find past the cut, as when the matcher scans a buffer in pieces. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "scan_parts.h"

struct analysis *sub_new(struct analysis *a)
{
	struct analysis *sub = xcalloc(1, sizeof(*sub));

	/* the shared, read-only parts; everything the scan writes is its own */
	sub->cat = a->cat;
	sub->opt = a->opt;
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
void analysis_free_sub(struct analysis *sub)
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
void scan_chunk(struct analysis *sub, struct work *w, const struct src *s, size_t margin, struct wbuf *wb,
		const size_t *loaded)
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
		ssize_t got = pread_sparse(s->fd, wb->p, want, (off_t)bstart);
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
void scan_small(struct analysis *sub, struct work *w, struct wbuf *wb)
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

void records_free(struct scan_out *out)
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
		r->no_later = !e->prev_found;
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
 * times of the events (emulate_chunk), then the events into the first
 * chunk's symptoms, in order. */
void finish_file(struct analysis *a, struct work *w, int n, struct wbuf *wb)
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
void finish_file_seq(struct analysis *a, struct work *w, int n, struct wbuf *wb)
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
