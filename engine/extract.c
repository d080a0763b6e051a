/* One line to events: the timestamp header, the prefixes, then the
 * extractors in priority order.  The scan and the rule self-test both go
 * through line_extract(), so a rule's inline case checks exactly what a
 * scan of a real log does. */
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include "internal.h"

/* A thread's regex state: the match context that bounds every regex (a
 * rule that backtracks catastrophically on a hostile line fails that line
 * instead of hanging the engine), its JIT stack, and one match block
 * reused for every line (a fresh one per call was a malloc and a free per
 * candidate line).  Per thread, since the node logs are scanned by
 * several; freed with the thread. */
#define MATCH_PAIRS 128
struct regex_state {
	pcre2_match_context *mctx;
	pcre2_jit_stack *jstack;
	pcre2_match_data *md;
};
static pthread_key_t state_key;
static pthread_once_t state_once = PTHREAD_ONCE_INIT;

static void state_free(void *p)
{
	struct regex_state *st = p;

	pcre2_match_data_free(st->md);
	pcre2_match_context_free(st->mctx);
	pcre2_jit_stack_free(st->jstack);
	free(st);
}

static void state_key_make(void)
{
	pthread_key_create(&state_key, state_free);
}

static struct regex_state *regex_state(void)
{
	struct regex_state *st;

	pthread_once(&state_once, state_key_make);
	if ((st = pthread_getspecific(state_key)))
		return st;
	st = xcalloc(1, sizeof(*st));
	st->mctx = pcre2_match_context_create(NULL);
	st->jstack = pcre2_jit_stack_create(32 * 1024, 1024 * 1024, NULL);
	st->md = pcre2_match_data_create(MATCH_PAIRS, NULL);
	if (!st->mctx || !st->jstack || !st->md)
		abort(); /* out of memory, as xmalloc */
	pcre2_set_match_limit(st->mctx, 1000000);
	pcre2_set_depth_limit(st->mctx, 10000);
	pcre2_jit_stack_assign(st->mctx, NULL, st->jstack);
	pthread_setspecific(state_key, st);
	return st;
}

static pcre2_match_context *match_context(void)
{
	return regex_state()->mctx;
}

/* per thread, like the analysis that reads it */
static _Thread_local long limit_hits;
/* a line as rules read it (normalise.c): the scan's longest line */
static _Thread_local char norm_buf[64 * 1024 + 1], time_buf[64 * 1024 + 1];

/* A match block for re: the thread's, or its own when re has more groups
 * than the thread's holds (*own: the caller frees it). */
static pcre2_match_data *thread_match_data(const pcre2_code *re, bool *own)
{
	uint32_t groups = 0;
	pcre2_match_data *md;

	pcre2_pattern_info(re, PCRE2_INFO_CAPTURECOUNT, &groups);
	*own = groups + 1 > MATCH_PAIRS;
	md = *own ? pcre2_match_data_create_from_pattern(re, NULL) : regex_state()->md;
	if (!md)
		abort(); /* out of memory, as xmalloc */
	return md;
}

long extractor_limit_hits_take(void)
{
	long n = limit_hits;

	limit_hits = 0;
	return n;
}

void event_clear(struct event *ev)
{
	free(ev->f.spill);
	memset(ev, 0, sizeof(*ev));
}

void event_copy(struct event *dst, const struct event *src)
{
	*dst = *src;
	if (src->f.spill) {
		dst->f.spill = xmalloc(src->f.size);
		memcpy(dst->f.spill, src->f.spill, src->f.used);
	}
}

size_t packed_put(struct packed *s, const void *p, size_t n)
{
	size_t at = s->len;

	if (s->len + n > s->cap)
		s->p = xrealloc(s->p, s->cap = (s->len + n) * 2 + 4096);
	memcpy(s->p + at, p, n);
	s->len += n;
	return at;
}

size_t fields_pack(struct packed *s, struct fields *f)
{
	size_t at = packed_put(s, &f->n, sizeof(f->n));

	packed_put(s, &f->used, sizeof(f->used));
	packed_put(s, f->name, f->n * sizeof(*f->name));
	packed_put(s, f->at, f->n * sizeof(*f->at));
	packed_put(s, f->spill ? f->spill : f->bytes, f->used);
	free(f->spill);
	f->spill = NULL;
	f->n = 0;
	f->used = 0;
	return at;
}

void fields_unpack(struct fields *f, char *p)
{
	memcpy(&f->n, p, sizeof(f->n));
	p += sizeof(f->n);
	memcpy(&f->used, p, sizeof(f->used));
	p += sizeof(f->used);
	memcpy(f->name, p, f->n * sizeof(*f->name));
	p += f->n * sizeof(*f->name);
	memcpy(f->at, p, f->n * sizeof(*f->at));
	p += f->n * sizeof(*f->at);
	f->size = f->used;
	f->spill = NULL;
	if (f->used <= sizeof(f->bytes))
		memcpy(f->bytes, p, f->used);
	else /* the values where they are */
		f->spill = p;
}

const char *event_field(const struct event *ev, const char *name)
{
	for (int i = 0; i < ev->f.n; i++)
		if (!strcmp(ev->f.name[i], name))
			return event_value(ev, i);
	return NULL;
}

void event_set(struct event *ev, const char *name, const char *value, size_t len)
{
	struct fields *f = &ev->f;
	char *base = f->spill ? f->spill : f->bytes;
	size_t cap = f->spill ? f->size : sizeof(f->bytes);
	/* a value of this event's own moves when the bytes grow */
	bool own = value >= base && value < base + f->used;
	size_t from = own ? (size_t)(value - base) : 0;
	int i;

	for (i = 0; i < f->n && strcmp(f->name[i], name); i++)
		;
	if (i == f->n) {
		if (f->n == EVENT_MAX_FIELDS)
			return;
		f->name[f->n++] = name;
	}
	if (f->used + len + 1 > cap) {
		char *grown = xmalloc(cap = (f->used + len + 1) * 2);

		memcpy(grown, base, f->used);
		free(f->spill);
		f->spill = base = grown;
		f->size = cap;
	}
	if (own)
		value = base + from;
	memmove(base + f->used, value, len);
	base[f->used + len] = 0;
	f->at[i] = f->used;
	f->used += len + 1;
}

/* Named captures of the last match into ev (later ones overwrite). */
static void captures(pcre2_code *re, pcre2_match_data *md, const char *subj, struct event *ev)
{
	uint32_t count, size;
	PCRE2_SPTR table;
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);

	pcre2_pattern_info(re, PCRE2_INFO_NAMECOUNT, &count);
	pcre2_pattern_info(re, PCRE2_INFO_NAMEENTRYSIZE, &size);
	pcre2_pattern_info(re, PCRE2_INFO_NAMETABLE, &table);
	for (uint32_t i = 0; i < count; i++) {
		const unsigned char *e = table + i * size;
		int n = (e[0] << 8) | e[1];

		if (ov[2 * n] == PCRE2_UNSET)
			continue;
		event_set(ev, (const char *)e + 2, subj + ov[2 * n], ov[2 * n + 1] - ov[2 * n]);
	}
}

/* The catalog's prefixes over the line from pos, each time from the first
 * that matches something (at most 8 rounds): on_prefix sees each match
 * (its match data, and where in line it started).  The body's start. */
static size_t walk_prefixes(const attrib_catalog *cat, const char *line, size_t len, size_t pos,
			    void (*on_prefix)(pcre2_code *re, pcre2_match_data *md, size_t at, void *arg),
			    void *arg)
{
	bool again = true;

	for (int guard = 0; again && guard < 8; guard++) {
		again = false;
		for (int i = 0; i < cat->nprefixes; i++) {
			const struct prefix *p = &cat->prefixes[i];
			PCRE2_SIZE *ov;
			bool own;
			pcre2_match_data *md;

			if (!p->re || pos >= len || !p->first[(unsigned char)line[pos]])
				continue;
			md = thread_match_data(p->re, &own);
			if (pcre2_match(p->re, (PCRE2_SPTR)line + pos, len - pos, 0, 0, md, match_context()) <
			    0) {
				if (own)
					pcre2_match_data_free(md);
				continue;
			}
			ov = pcre2_get_ovector_pointer(md);
			if (ov[1] > 0) { /* an empty prefix makes no progress */
				on_prefix(p->re, md, pos, arg);
				pos += ov[1];
				again = true;
			}
			if (own)
				pcre2_match_data_free(md);
			if (again)
				break;
		}
	}
	return pos;
}

struct ctx_walk {
	const char *line;
	struct line_ctx *lc;
};

static void prefix_captures(pcre2_code *re, pcre2_match_data *md, size_t at, void *arg)
{
	struct ctx_walk *w = arg;

	captures(re, md, w->line + at, &w->lc->ctx);
}

void line_context(const attrib_catalog *cat, const struct timectx *tc, const char *line, size_t len,
		  struct line_ctx *lc)
{
	size_t pos;
	struct ctx_walk w = { .line = line, .lc = lc };

	memset(lc, 0, sizeof(*lc));
	lc->has_time = time_parse_header(tc, line, len, &lc->time, &pos);
	if (!lc->has_time && (pos = line_host_prefix(tc, line, len))) {
		size_t h = pos;

		lc->has_time = time_parse_header(tc, line + h, len - h, &lc->time, &pos);
		pos += h;
	}
	lc->body = walk_prefixes(cat, line, len, pos, prefix_captures, &w);
	const char *t = event_field(&lc->ctx, "time");
	if (!lc->has_time && t)
		lc->has_time = time_parse_any(tc, t, strlen(t), &lc->time);
}

/* the last "time" capture of the prefixes (event_set overwrites, so
 * event_field sees the last) */
struct time_walk {
	bool has_t;
	size_t tpos, tlen;
};

static void prefix_time(pcre2_code *re, pcre2_match_data *md, size_t at, void *arg)
{
	struct time_walk *w = arg;
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
	uint32_t count, size;
	PCRE2_SPTR table;

	pcre2_pattern_info(re, PCRE2_INFO_NAMECOUNT, &count);
	pcre2_pattern_info(re, PCRE2_INFO_NAMEENTRYSIZE, &size);
	pcre2_pattern_info(re, PCRE2_INFO_NAMETABLE, &table);
	for (uint32_t k = 0; k < count; k++) {
		const unsigned char *e = table + k * size;
		int n = (e[0] << 8) | e[1];

		if (ov[2 * n] == PCRE2_UNSET || strcmp((const char *)e + 2, "time"))
			continue;
		w->has_t = true;
		w->tpos = at + ov[2 * n];
		w->tlen = ov[2 * n + 1] - ov[2 * n];
	}
}

/* The time line_context would give the line, without keeping its other
 * fields: the same header, the same prefixes in the same order, the last
 * "time" capture.  A neighbour's time is asked for far more often than a
 * hit's fields, and copying every capture of every such line was most of
 * its cost. */
bool line_time(const attrib_catalog *cat, const struct timectx *tc, const char *line, size_t len, double *t)
{
	size_t pos, nlen;
	const char *n = line_normalise(line, len, time_buf, sizeof(time_buf), &nlen);

	if (n) {
		line = n;
		len = nlen;
	}
	struct time_walk w = { 0 };
	bool ok = false;
	double time = 0;

	if (time_parse_header(tc, line, len, &time, &pos) ||
	    ((pos = line_host_prefix(tc, line, len)) &&
	     time_parse_header(tc, line + pos, len - pos, &time, &pos))) {
		*t = time;
		return true;
	}
	walk_prefixes(cat, line, len, pos, prefix_time, &w);
	if (w.has_t) { /* NUL-terminated, as line_context's copy is */
		char buf[128], *v = w.tlen < sizeof(buf) ? buf : strndup_or_die(line + w.tpos, w.tlen);

		if (v == buf) {
			memcpy(buf, line + w.tpos, w.tlen);
			buf[w.tlen] = 0;
		}
		ok = time_parse_any(tc, v, strlen(v), &time);
		if (v != buf)
			free(v);
	}
	*t = time;
	return ok;
}

void line_context_free(struct line_ctx *lc)
{
	event_clear(&lc->ctx);
}

/* xid.{xid} -> xid.149 */
static char *expand(const char *tpl, const struct event *ev)
{
	size_t cap = strlen(tpl) + 64, o = 0;
	char *out = xmalloc(cap);

	for (const char *p = tpl; *p;) {
		const char *e, *v = NULL;
		size_t vl;

		if (*p == '{' && (e = strchr(p, '}'))) {
			char name[64];

			snprintf(name, sizeof(name), "%.*s", (int)(e - p - 1), p + 1);
			v = event_field(ev, name);
			p = e + 1;
		} else {
			v = p++;
			vl = 1;
			goto put;
		}
		if (!v)
			v = "";
		vl = strlen(v);
put:
		if (o + vl + 1 > cap)
			out = xrealloc(out, cap = (o + vl + 1) * 2);
		memcpy(out + o, v, vl);
		o += vl;
	}
	out[o] = 0;
	return out;
}

/* The catalog row a decoded field selects (NVLink5 Xid sub-codes). */
static const struct code *decode(const struct code *c, const struct event *ev)
{
	const char *v = c->decode_field ? event_field(ev, c->decode_field) : NULL;
	char *end;
	unsigned long raw;

	if (!v)
		return c;
	raw = strtoul(v, &end, 0);
	if (end == v)
		return c;
	long key = (long)((raw >> c->decode_shift) & c->decode_mask);
	for (int i = 0; i < c->nrows; i++)
		for (int k = 0; k < c->rows[i].nvalues; k++)
			if (c->rows[i].values[k] == key)
				return c->rows[i].as;
	return c;
}

bool extractor_apply(const attrib_catalog *cat, const struct extractor *x, const char *subj, size_t len,
		     uint32_t opts, struct event *ev)
{
	pcre2_code *re = x->re;

	/* anchored: a kernel rule is compiled so, a writer rule has a copy that is */
	if ((opts & PCRE2_ANCHORED) && (x->kernel_only || x->re_msg)) {
		re = x->kernel_only ? x->re : x->re_msg;
		opts &= ~(uint32_t)PCRE2_ANCHORED;
	}
	pcre2_match_data *md;
	bool ok;
	int rc;

	if (!re)
		return false;
	bool own;
	md = thread_match_data(re, &own);
	rc = pcre2_match(re, (PCRE2_SPTR)subj, len, 0, opts, md, match_context());
	ok = rc >= 0;
	if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT ||
	    rc == PCRE2_ERROR_JIT_STACKLIMIT)
		limit_hits++;
	if (ok) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);

		ev->match_start = ov[0];
		captures(re, md, subj, ev);
		for (int i = 0; i < x->const_names.n; i++)
			if (!event_field(ev, x->const_names.v[i]))
				event_set(ev, x->const_names.v[i], x->const_values.v[i],
					  strlen(x->const_values.v[i]));
		if (x->code) {
			ev->code = x->code;
		} else if (x->code_tpl) {
			char *c = expand(x->code_tpl, ev);

			ev->code = catalog_code(cat, c);
			if (!ev->code)
				ev->code = cat->unknown;
			free(c);
		}
		if (ev->code)
			ev->code = decode(ev->code, ev);
	}
	if (own)
		pcre2_match_data_free(md);
	return ok;
}

void event_merge_context(struct event *ev, const struct line_ctx *lc)
{
	for (int i = 0; i < lc->ctx.f.n; i++)
		if (!event_field(ev, lc->ctx.f.name[i]))
			event_set(ev, lc->ctx.f.name[i], event_value(&lc->ctx, i),
				  strlen(event_value(&lc->ctx, i)));
	if (lc->has_time && !ev->has_time) {
		ev->time = lc->time;
		ev->has_time = true;
	}
}

int line_extract(const attrib_catalog *cat, const struct timectx *tc, const char *line, size_t len,
		 int source, const int *cand, int ncand, struct line_ctx *lc, struct event *out,
		 struct event *identity, int *nidentity, int maxidentity)
{
	bool have_ctx = false, found = false, have_msg = false, have_quoted = false;
	struct line_msg msg;
	size_t quoted = 0;
	double quoted_time = 0;
	size_t starts[8], nlen;
	int nstarts = 0;
	const char *n = line_normalise(line, len, norm_buf, sizeof(norm_buf), &nlen);

	if (n) {
		line = n;
		len = nlen;
	}
	*nidentity = 0;
	for (int k = 0; k < ncand; k++) {
		const struct extractor *x = &cat->extractors[cand[k]];
		struct event ev = { 0 };
		size_t from = 0;

		if (!(x->sources & source) || (found && !x->identity))
			continue;
		/* in a node file, a kernel or daemon rule reads its writer's
		 * message from its first byte and nothing else of the line
		 * (message.c) */
		bool hit = false;
		if ((source & SRC_NODE) && (x->kernel_only || x->writers.n)) {
			bool mine = false;

			if (!have_msg) {
				line_message(tc, line, len, &msg);
				nstarts = line_message_starts(line, len, &msg, starts, 8);
				have_msg = true;
			}
			mine = x->kernel_only && line_writer_is(&msg, "kernel", 6);
			for (int w = 0; !mine && w < x->writers.n; w++)
				mine = line_writer_is(&msg, x->writers.v[w], x->writer_len[w]);
			if (!mine)
				continue;
			if (x->kernel_only || (x->kernel_writer && line_writer_is(&msg, "kernel", 6))) {
				from = msg.kernel_start;
				hit = extractor_apply(cat, x, line + from, len - from, PCRE2_ANCHORED, &ev);
			}
			/* a kernel message another program's line quotes: read,
			 * never vouched for (message.c) */
			if (!hit && x->kernel_only) {
				if (!have_quoted) {
					quoted = line_quoted_kernel(tc, line, len, &msg, &quoted_time);
					have_quoted = true;
				}
				if (quoted &&
				    (hit = extractor_apply(cat, x, line + quoted, len - quoted,
							   PCRE2_ANCHORED, &ev))) {
					from = quoted;
					ev.low_trust = true;
					ev.time = quoted_time;
					ev.has_time = true;
				}
			}
			/* a daemon's message: from one of the places its own text
			 * may start */
			for (int i = 0; !hit && !x->kernel_only && i < nstarts; i++) {
				from = starts[i];
				hit = extractor_apply(cat, x, line + from, len - from, PCRE2_ANCHORED, &ev);
			}
		} else {
			hit = extractor_apply(cat, x, line, len, 0, &ev);
		}
		if (!hit) {
			event_clear(&ev);
			continue;
		}
		ev.match_start += from;
		if (x->kernel_only && msg.comm_len && !ev.low_trust && !event_field(&ev, "comm"))
			event_set(&ev, "comm", msg.comm, msg.comm_len);
		if (!have_ctx) {
			line_context(cat, tc, line, len, lc);
			have_ctx = true;
		}
		event_merge_context(&ev, lc);
		/* a time the rule itself captured wins over the line's */
		const char *t = event_field(&ev, "time");
		double tt;
		if (t && time_parse_any(tc, t, strlen(t), &tt)) {
			ev.time = tt;
			ev.has_time = true;
		}
		ev.extractor = cand[k];
		if (x->identity) {
			if (*nidentity < maxidentity)
				identity[(*nidentity)++] = ev;
			else
				event_clear(&ev);
		} else {
			*out = ev;
			found = true;
		}
	}
	if (!have_ctx)
		memset(lc, 0, sizeof(*lc));
	return found;
}
