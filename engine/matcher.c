/* One pass over a log buffer for all extractors at once.
 *
 * Every extractor regex is compiled into one Hyperscan/Vectorscan
 * database in prefilter mode, so a line no rule can match costs a single
 * vectorised scan and no regex call.  A prefilter hit is a superset of
 * the real matches; scan.c confirms each (rule, line) with PCRE2, which
 * also extracts the named captures. */
#include <hs/hs.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

struct matcher {
	hs_database_t *db;
	hs_scratch_t *scratch;
	int nrules;
	int *lines;		/* per rule: lines a match may span */
};

struct matcher *matcher_build(const attrib_catalog *cat, FILE *err)
{
	struct matcher *m = xcalloc(1, sizeof(*m));
	int n = cat->nextractors;
	const char **exprs = xcalloc(n, sizeof(char *));
	unsigned *flags = xcalloc(n, sizeof(unsigned));
	unsigned *ids = xcalloc(n, sizeof(unsigned));
	hs_compile_error_t *ce = NULL;
	bool ok = true;

	m->nrules = n;
	m->lines = xcalloc(n, sizeof(int));
	for (int i = 0; i < n; i++) {
		exprs[i] = cat->extractors[i].regex;
		flags[i] = HS_FLAG_PREFILTER | HS_FLAG_MULTILINE | HS_FLAG_ALLOWEMPTY;
		ids[i] = (unsigned)i;
		m->lines[i] = cat->extractors[i].lines;
	}
	if (n && hs_compile_multi(exprs, flags, ids, (unsigned)n, HS_MODE_BLOCK, NULL, &m->db, &ce) != HS_SUCCESS) {
		if (ce && ce->expression >= 0 && ce->expression < n) {
			const struct extractor *x = &cat->extractors[ce->expression];

			fprintf(err, "%s:%d: extractor \"%s\": regex rejected by the prefilter: %s\n",
				x->file, x->line, x->id, ce->message);
		} else {
			fprintf(err, "rules: prefilter compile failed: %s\n", ce ? ce->message : "?");
		}
		hs_free_compile_error(ce);
		ok = false;
	}
	if (ok && n && hs_alloc_scratch(m->db, &m->scratch) != HS_SUCCESS) {
		fprintf(err, "rules: cannot allocate prefilter scratch space\n");
		ok = false;
	}
	free(exprs);
	free(flags);
	free(ids);
	if (!ok) {
		matcher_free(m);
		return NULL;
	}
	return m;
}

void matcher_free(struct matcher *m)
{
	if (!m)
		return;
	hs_free_scratch(m->scratch);
	hs_free_database(m->db);
	free(m->lines);
	free(m);
}

struct scan_state {
	const struct matcher *m;
	const char *buf;	/* the chunk being scanned */
	size_t len, base;	/* its length and offset in the whole buffer */
	size_t *next_line;	/* per rule: the first offset not yet reported */
	matcher_hit hit;
	void *ctx;
};

static int on_match(unsigned id, unsigned long long from, unsigned long long to,
		    unsigned flags, void *p)
{
	struct scan_state *s = p;
	size_t end = (size_t)to, start;
	(void)from;
	(void)flags;

	if (end < s->next_line[id])	/* same line, already reported */
		return 0;
	/* the line holding the last matched byte */
	start = end ? end - 1 : 0;	/* a match may end on its newline */
	const char *nl0 = start ? memrchr(s->buf, '\n', start) : NULL;
	start = nl0 ? (size_t)(nl0 - s->buf) + 1 : 0;
	const char *nl = memchr(s->buf + end, '\n', s->len - end);
	s->next_line[id] = nl ? (size_t)(nl - s->buf) + 1 : s->len + 1;
	s->hit(s->ctx, (int)id, s->base + start, s->base + end);
	return 0;
}

int matcher_scan(const struct matcher *m, const char *buf, size_t len, bool release,
		 matcher_hit hit, void *ctx)
{
	struct scan_state s = { m, buf, len, 0, NULL, hit, ctx };
	int rc = 0;

	if (!m->db || !len)
		return 0;
	s.next_line = xcalloc(m->nrules, sizeof(size_t));
	/* Chunks that end on a line boundary: hs_scan takes an unsigned int
	 * length, and a mapped file's pages already scanned can be dropped
	 * (release), so memory stays bounded for a log of any size.  Multi-line
	 * rules look back at most a few lines before a chunk's hits. */
	size_t off = 0, chunk = 64u << 20, keep = 1u << 20;
	long page = sysconf(_SC_PAGESIZE);
	while (off < len && rc == 0) {
		size_t n = len - off;

		if (release && off > keep) {
			size_t upto = (off - keep) & ~((size_t)page - 1);
			uintptr_t from = (uintptr_t)buf & ~((uintptr_t)page - 1);

			if ((uintptr_t)buf + upto > from)
				madvise((void *)from, (uintptr_t)buf + upto - from, MADV_DONTNEED);
		}

		if (n > chunk) {
			const char *nl = memrchr(buf + off, '\n', chunk);

			n = nl ? (size_t)(nl - (buf + off)) + 1 : chunk;
		}
		s.buf = buf + off;
		s.len = n;
		s.base = off;
		memset(s.next_line, 0, m->nrules * sizeof(size_t));
		if (hs_scan(m->db, buf + off, (unsigned)n, 0, m->scratch, on_match, &s) != HS_SUCCESS)
			rc = -1;
		off += n;
	}
	free(s.next_line);
	return rc;
}
