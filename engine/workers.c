/* The scans, on several threads.  Each file, or chunk of a large one, is
 * scanned by a worker into an analysis of its own (its symptoms, coverage, progress lines and identity
 * lines); the main thread then takes them in file order, exactly as one
 * thread would have met them, so the result does not depend on how many
 * threads ran.  What the workers share is read-only while they run: the
 * catalog, the job, the file list, the origins; identity is learnt only
 * in the merge. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "scan_parts.h"

struct work *plan_add(struct plan *p)
{
	if (p->n == p->cap)
		p->w = xrealloc(p->w, (p->cap = p->cap * 2 + 64) * sizeof(*p->w));
	p->w[p->n] = (struct work){ .file = -1 };
	return &p->w[p->n++];
}

/* Moves the coverage entries added since `from` into the plan. */
void listing_coverage(struct analysis *a, int from, struct plan *p)
{
	for (int i = from; i < a->ncov; i++)
		plan_add(p)->cov = a->cov[i];
	a->ncov = from;
}

/* One file into the plan: a small one as it is (a worker opens it), a
 * large one opened here and cut into chunks. */
void plan_file(struct analysis *a, struct plan *p, const char *rel, int file, int source, const char *node,
	       off_t listed)
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

/* Marks w done and wakes who waits for it; true when w was the last of
 * its file's chunks to be scanned. */
static bool scanned(struct workers *ws, struct work *w)
{
	bool last = false;

	pthread_mutex_lock(&ws->lock);
	w->done = true;
	if (w->fin)
		last = ++ws->w[w->fin].scanned == ws->w[w->fin].finish;
	pthread_cond_broadcast(&ws->scanned);
	pthread_mutex_unlock(&ws->lock);
	return last;
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

			/* a file's chunks are finished by the worker that scans
			 * the last of them (below), so that no worker waits for
			 * another's chunk while there are files to scan; only a
			 * huge file's, which this task scans itself, in order */
			if (!c[0].seq)
				continue;
			pthread_mutex_lock(&ws->lock);
			for (int i = 0; i < w->finish; i++)
				while (!c[i].done)
					pthread_cond_wait(&ws->scanned, &ws->lock);
			pthread_mutex_unlock(&ws->lock);
			finish_file_seq(ws->a, c, w->finish, &wb);
			scanned(ws, w);
			continue;
		}
		if (!w->rel)
			continue; /* a coverage entry */
		if (w->seq) {	  /* its file's finish task scans it */
			scanned(ws, w);
			continue;
		}
		w->sub = sub_new(ws->a);
		if (w->src)
			scan_chunk(w->sub, w, w->src, CHUNK_MARGIN, &wb, NULL);
		else
			scan_small(w->sub, w, &wb);
		if (scanned(ws, w)) {
			struct work *f = &ws->w[w->fin];

			finish_file(ws->a, f - f->finish, f->finish, &wb);
			scanned(ws, f);
		}
	}
	free(wb.p);
	return NULL;
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

void plan_start(struct analysis *a, struct plan *p, struct run *r)
{
	int nt = analysis_threads(a, p->scans);

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

void plan_join(struct run *r)
{
	for (int i = 0; i < r->started; i++)
		pthread_join(r->t[i], NULL);
	pthread_cond_destroy(&r->ws.scanned);
	pthread_mutex_destroy(&r->ws.lock);
}

/* The plan's items [from, to) into the analysis, in order: per file, the
 * lines before each chunk and the coverage counts. */
void plan_merge(struct analysis *a, struct plan *p, int from, int to, struct run *r)
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
void plan_drop(struct plan *p, int from, int to)
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

void plan_free(struct plan *p)
{
	free(p->w);
	*p = (struct plan){ .chunk = p->chunk };
}
