/* Events collapse into symptoms as they arrive: thousands of lines of the
 * same event on the same node and device are one symptom with a count,
 * its first and last time and a few original lines.  Memory grows with
 * distinct symptoms, not with the size of the logs. */
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#define EVIDENCE_TEXT_MAX 2000

/* The collapse index's keys, one per distinct symptom (tens of thousands
 * in a large job), in blocks that go at once when the index does. */
struct keyblock {
	struct keyblock *next;
	size_t used, size;
	char key[];
};

static char *key_keep(struct analysis *a, const char *key)
{
	size_t n = strlen(key) + 1;
	struct keyblock *b = a->keys;

	if (!b || b->size - b->used < n) {
		size_t size = n > 65536 ? n : 65536;

		b = xmalloc(sizeof(*b) + size);
		*b = (struct keyblock){ .next = a->keys, .size = size };
		a->keys = b;
	}
	memcpy(b->key + b->used, key, n);
	b->used += n;
	return b->key + b->used - n;
}

/* the index and its keys */
static void index_free(struct analysis *a)
{
	if (a->tab)
		lh_table_free(a->tab);
	a->tab = NULL;
	while (a->keys) {
		struct keyblock *next = a->keys->next;

		free(a->keys);
		a->keys = next;
	}
}

static void add_pid(struct symptom *s, long pid)
{
	for (int i = 0; i < s->npids; i++)
		if (s->pids[i] == pid)
			return;
	if (s->npids < MAX_PIDS)
		s->pids[s->npids++] = pid;
}

/* Keeps the max earliest lines (by time, then file position); text is the
 * line as logged, or owned: already cleaned, and the symptom's now (freed
 * when not kept). */
static void add_evidence(struct symptom *s, int max, int file, long line, double t, const char *text,
			 size_t len, char *owned)
{
	int at = s->nev;

	if (s->nev == max) {
		const struct evidence *last = &s->ev[max - 1];

		if (t >= last->time) {
			free(owned);
			return;
		}
		free(s->ev[max - 1].text);
		at = max - 1;
	} else {
		s->ev = xrealloc(s->ev, (s->nev + 1) * sizeof(*s->ev));
		s->nev++;
	}
	/* insertion keeps the list ordered by time */
	while (at > 0 && s->ev[at - 1].time > t) {
		s->ev[at] = s->ev[at - 1];
		at--;
	}
	s->ev[at] = (struct evidence){ file, line, t,
				       owned	      ? owned
					       : text ? text_sanitise(text, len, EVIDENCE_TEXT_MAX)
						      : NULL };
}

static void observe(struct symptom *s, double t, bool approx, bool no_later, long count)
{
	if (!s->count || t < s->first || (t == s->first && s->first_approx && !approx)) {
		s->first = t;
		s->first_approx = approx;
		s->first_no_later = approx && no_later;
	}
	if (!s->count || t > s->last)
		s->last = t;
	s->count += count;
}

/* Folds s (the same symptom, seen elsewhere or later) into t, as if its
 * events had come to t after t's own. */
static void fold(struct symptom *t, struct symptom *s, int max_evidence)
{
	observe(t, s->first, s->first_approx, s->first_no_later, s->count);
	if (s->last > t->last)
		t->last = s->last;
	for (int k = 0; k < s->npids; k++)
		add_pid(t, s->pids[k]);
	for (int k = 0; k < s->nev; k++) { /* its cleaned lines move */
		add_evidence(t, max_evidence, s->ev[k].file, s->ev[k].line, s->ev[k].time, NULL, 0,
			     s->ev[k].text);
		s->ev[k].text = NULL;
	}
	if (s->trust < t->trust)
		t->trust = s->trust;
	t->sources |= s->sources;
}

static struct symptom *symptom_new(struct analysis *a, const struct code *code)
{
	struct symptom *s = xcalloc(1, sizeof(*s));

	s->code = code;
	s->node = -1;
	if (a->nsym == a->capsym)
		a->sym = xrealloc(a->sym, (a->capsym = a->capsym * 2 + 16) * sizeof(*a->sym));
	a->sym[a->nsym++] = s;
	return s;
}

/* What makes two events one symptom as they arrive: written into buf
 * (size n) when it fits, else allocated (*heap: the caller frees it). */
static char *collapse_key(char *buf, size_t n, bool *heap, const struct code *code, enum aside aside,
			  bool batch, const char *file_node, const char *node, const char *rank,
			  const char *pci, const char *gpu, const char *peer)
{
	const char *part[6] = { file_node, node, rank, pci, gpu, peer };
	size_t need = 2 + 3 * sizeof(void *) + 24; /* the code's address, aside, batch, NUL */

	for (int i = 0; i < 6; i++)
		need += 1 + (part[i] ? strlen(part[i]) : 0);
	*heap = need > n;
	if (*heap)
		buf = xmalloc(need);
	char *w = buf;
	uintptr_t c = (uintptr_t)code;

	/* the code's address in hex, as "%p" would but without printf's cost
	 * (this runs once an event) */
	for (int i = (int)sizeof(c) * 2 - 1; i >= 0; i--)
		*w++ = "0123456789abcdef"[(c >> (4 * i)) & 0xf];
	*w++ = '|';
	*w++ = (char)('0' + aside); /* enum aside: fewer than ten */
	if (batch)
		*w++ = 'b';
	for (int i = 0; i < 6; i++) {
		size_t l = part[i] ? strlen(part[i]) : 0;

		*w++ = '|';
		memcpy(w, part[i] ? part[i] : "", l);
		w += l;
	}
	*w = 0;
	return buf;
}

void symptoms_reserve(struct analysis *a, int n)
{
	int size = (int)(n / LH_LOAD_FACTOR) + 16;

	if (!a->tab)
		a->tab = lh_kchar_table_new(size > 16 ? size : 16, NULL);
	else if (a->tab->size < size)
		lh_table_resize(a->tab, size);
}

void symptom_add_event(struct analysis *a, const struct event *ev)
{
	const char *node = NULL, *rank = NULL, *pci = NULL, *gpu = NULL, *peer = NULL, *pid = NULL,
		   *batch = NULL;
	char kbuf[512], *key;
	bool heap;
	struct symptom *s;
	void *v;

	/* the fields it is collapsed by, in one pass (the first of a name, as
	 * event_field) */
	for (int i = 0; i < ev->f.n; i++) {
		const char *nm = ev->f.name[i], **slot = NULL;

		switch (nm[0]) {
		case 'n':
			slot = !strcmp(nm, "node") ? &node : NULL;
			break;
		case 'r':
			slot = !strcmp(nm, "rank") ? &rank : NULL;
			break;
		case 'p':
			slot = !strcmp(nm, "pci")     ? &pci
				: !strcmp(nm, "peer") ? &peer
				: !strcmp(nm, "pid")  ? &pid
						      : NULL;
			break;
		case 'g':
			slot = !strcmp(nm, "gpu") ? &gpu : NULL;
			break;
		case 'b':
			slot = !strcmp(nm, "batch") ? &batch : NULL;
			break;
		}
		if (slot && !*slot)
			*slot = event_value(ev, i);
	}
	if (!a->tab) /* one file's few distinct symptoms in a worker: a small table that grows */
		a->tab = lh_kchar_table_new(a->deferring ? 16 : 1024, NULL);
	key = collapse_key(kbuf, sizeof(kbuf), &heap, ev->code, ev->aside, batch != NULL, ev->file_node, node,
			   rank, pci, gpu, peer);
	if (lh_table_lookup_ex(a->tab, key, &v)) {
		s = v;
	} else {
		s = symptom_new(a, ev->code);
		s->aside = ev->aside;
		s->source = ev->source;
		s->batch = batch != NULL;
		s->file_node = ev->file_node;
		s->node_raw = strdup_or_die(node);
		s->rank = strdup_or_die(rank);
		s->pci = strdup_or_die(pci);
		s->gpu = strdup_or_die(gpu);
		s->peer = strdup_or_die(peer);
		lh_table_insert(a->tab, key_keep(a, key), s);
	}
	if (heap)
		free(key);
	if (pid && *pid && strspn(pid, "0123456789") == strlen(pid))
		add_pid(s, atol(pid));
	add_evidence(s, a->cat->set.max_evidence, ev->file, ev->line, ev->time, ev->text, ev->text_len, NULL);
	/* one line from a file only root or the kernel writes vouches for it;
	 * else one of the job's own output makes it the job's word */
	enum trust t = ev->low_trust	 ? TRUST_UNAUTHENTICATED
		: (ev->source & SRC_APP) ? TRUST_JOB_OUTPUT
					 : TRUST_VOUCHED;
	if (!s->count || t < s->trust)
		s->trust = t;
	s->sources |= ev->source;
	observe(s, ev->time, ev->approx, ev->no_later, 1);
}

static void symptom_free(struct symptom *s)
{
	for (int i = 0; i < s->nev; i++)
		free(s->ev[i].text);
	free(s->ev);
	free(s->node_raw);
	free(s->rank);
	free(s->gpu);
	free(s->pci);
	free(s->peer);
	free(s->device);
	free(s);
}

/* Localisation: the node a symptom happened on and how that is known.  A
 * host on a scheduler or job line that is not one of the job's nodes sets
 * the symptom aside (slurmctld speaks of the whole cluster). */
int symptom_named_node(const struct analysis *a, const struct symptom *s, enum located *how)
{
	int n;

	*how = LOC_FILE;
	if (s->file_node)
		return identity_node(a->id, s->file_node);
	*how = LOC_HOST;
	if (s->node_raw && (n = identity_node(a->id, s->node_raw)) >= 0)
		return n;
	*how = LOC_RANK;
	if (s->rank && (n = identity_rank_node(a->id, atoi(s->rank))) >= 0)
		return n;
	*how = LOC_NONE;
	return -1;
}

static int resolve_node(const struct analysis *a, struct symptom *s)
{
	enum located how;
	int n = symptom_named_node(a, s, &how);

	if (how == LOC_FILE || how == LOC_HOST) {
		s->located = how;
		return n;
	}
	if (s->node_raw && (s->source & (SRC_SCHED | SRC_JOB))) {
		if (!s->aside)
			s->aside = ASIDE_OTHER_NODE;
		return -1;
	}
	if (how == LOC_RANK) {
		s->located = how;
		return n;
	}
	/* the batch script runs on the batch host: job.json's batch_host, or
	 * the first node of the allocation, which Slurm makes the batch host */
	if (s->batch && a->job.nodes.n) {
		n = a->job.batch_host ? identity_node(a->id, a->job.batch_host) : -1;
		s->located = LOC_BATCH_HOST;
		return n >= 0 ? n : 0;
	}
	/* a job of one node: whatever happened, happened there (an
	 * application line names no host; a container may call it otherwise) */
	if (a->job.nodes.n == 1) {
		s->located = LOC_ONLY_NODE;
		return 0;
	}
	return -1;
}

/* A thread's share of symptoms_resolve: each symptom's node and device,
 * and the key it merges by, written one after another into keys (no
 * allocation per key: a symptom per rank of a 16,384-rank job). */
struct resolve_part {
	struct analysis *a;
	int from, to;
	char *keys;
	size_t len, cap, *off; /* off[i - from]: where symptom i's key starts */
};

#define RESOLVE_PER_THREAD 4096 /* fewer symptoms are not worth a thread */

static void *resolve_range(void *p)
{
	struct resolve_part *r = p;
	struct analysis *a = r->a;
	char norm[32];

	r->off = xcalloc(r->to - r->from + 1, sizeof(*r->off));
	r->keys = xmalloc(r->cap = 4096);
	for (int i = r->from; i < r->to; i++) {
		struct symptom *s = a->sym[i];
		const char *pci;
		int klen;

		s->node = resolve_node(a, s);
		if (s->pci && pci_normalise(s->pci, norm, sizeof(norm)))
			s->device = strdup_or_die(norm);
		else if ((pci = identity_gpu_pci(a->id, s->node, s->gpu, s->npids ? s->pids[0] : 0)))
			s->device = strdup_or_die(pci);
		for (;;) {
			klen = snprintf(r->keys + r->len, r->cap - r->len, "%p|%d|%d|%s|%s",
					(const void *)s->code, (int)s->aside, s->node,
					s->node < 0 && s->node_raw ? s->node_raw : "",
					s->device ? s->device : "");
			if (klen < 0)
				abort();
			if ((size_t)klen < r->cap - r->len)
				break;
			r->keys = xrealloc(r->keys, r->cap = 2 * r->cap + klen + 4096);
		}
		r->off[i - r->from] = r->len;
		r->len += klen + 1;
	}
	return NULL;
}

void symptoms_resolve(struct analysis *a)
{
	int nt = analysis_threads(a, a->nsym / RESOLVE_PER_THREAD), n = 0, k = 0;
	struct resolve_part *part = xcalloc(nt, sizeof(*part));
	pthread_t *t = xcalloc(nt, sizeof(*t));
	bool *started = xcalloc(nt, sizeof(*started));
	/* keys live in the parts' buffers: the table frees none */
	struct lh_table *merged = lh_kchar_table_new(a->nsym * 2 + 16, NULL);
	struct symptom **out = xcalloc(a->nsym, sizeof(*out));

	for (int i = 0; i < nt; i++) {
		part[i] = (struct resolve_part){
			a,   (int)((long)a->nsym * i / nt), (int)((long)a->nsym * (i + 1) / nt), NULL, 0, 0,
			NULL
		};
		started[i] = i > 0 && !pthread_create(&t[i], NULL, resolve_range, &part[i]);
	}
	for (int i = 0; i < nt; i++) /* the first part here, any that got no thread too */
		if (!started[i])
			resolve_range(&part[i]);
	for (int i = 0; i < nt; i++)
		if (started[i])
			pthread_join(t[i], NULL);
	for (int i = 0; i < a->nsym; i++) {
		struct symptom *s = a->sym[i], *m;
		const char *key;
		void *v;

		while (i >= part[k].to)
			k++;
		key = part[k].keys + part[k].off[i - part[k].from];
		if (!lh_table_lookup_ex(merged, key, &v)) {
			lh_table_insert(merged, key, s);
			s->idx = n;
			out[n++] = s;
			continue;
		}
		m = v;
		fold(m, s, a->cat->set.max_evidence);
		symptom_free(s);
	}
	lh_table_free(merged);
	for (int i = 0; i < nt; i++) {
		free(part[i].keys);
		free(part[i].off);
	}
	free(part);
	free(t);
	free(started);
	free(a->sym);
	a->sym = out;
	a->nsym = a->capsym = n;
	index_free(a);
}

void symptoms_merge(struct analysis *a, struct analysis *sub)
{
	if (!a->nsym && sub->tab) { /* the first file's: taken whole */
		index_free(a);
		free(a->sym);
		a->tab = sub->tab;
		a->keys = sub->keys;
		sub->keys = NULL;
		a->sym = sub->sym;
		a->nsym = sub->nsym;
		a->capsym = sub->capsym;
		sub->tab = NULL;
		sub->sym = NULL;
		sub->nsym = sub->capsym = 0;
		return;
	}
	if (!a->tab)
		a->tab = lh_kchar_table_new(1024, NULL);
	if (a->tab->count + sub->nsym >= a->tab->size * LH_LOAD_FACTOR) /* one resize, not many */
		symptoms_reserve(a, 2 * (a->tab->count + sub->nsym));
	for (int i = 0; i < sub->nsym; i++) {
		struct symptom *s = sub->sym[i], *t;
		char kbuf[512];
		bool heap;
		char *key = collapse_key(kbuf, sizeof(kbuf), &heap, s->code, s->aside, s->batch, s->file_node,
					 s->node_raw, s->rank, s->pci, s->gpu, s->peer);
		void *v;

		if (!lh_table_lookup_ex(a->tab, key, &v)) {
			if (a->nsym == a->capsym)
				a->sym = xrealloc(a->sym, (a->capsym = a->capsym * 2 + 16) * sizeof(*a->sym));
			a->sym[a->nsym++] = s;
			lh_table_insert(a->tab, key_keep(a, key), s);
		} else {
			t = v;
			fold(t, s, a->cat->set.max_evidence);
			symptom_free(s);
		}
		if (heap)
			free(key);
	}
	free(sub->sym);
	sub->sym = NULL;
	sub->nsym = sub->capsym = 0;
	index_free(sub);
}

void symptoms_free(struct analysis *a)
{
	for (int i = 0; i < a->nsym; i++)
		symptom_free(a->sym[i]);
	free(a->sym);
	a->sym = NULL;
	a->nsym = a->capsym = 0;
	index_free(a);
}
