/* Which rules make attrib's prefilter scan slow.
 *
 *   cc -O2 -o rulecost rulecost.c $(pkg-config --cflags --libs libhs)
 *   rulecost [-k TOP] PATTERNS.tsv FILE...
 *
 * PATTERNS.tsv: "id<TAB>pcre" lines, the expressions attrib compiles (the
 * rule's prefilter: if present, else its regex; patterns.py writes them),
 * compiled exactly as engine/matcher.c does (HS_FLAG_PREFILTER |
 * HS_FLAG_MULTILINE | HS_FLAG_ALLOWEMPTY, block mode).  The FILEs are read
 * into one buffer and scanned:
 *   - the whole database: compile time, scan time (best of 3), MB/s;
 *   - every pattern alone: its scan time and the lines it hits (each hit
 *     line costs attrib a PCRE2 confirmation and a line parse);
 *   - the TOP (default 15) most expensive alone, left out of the whole
 *     database one at a time: how much faster the whole scan gets.
 * Prints TSV rows, most expensive first. */
#include <hs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct hits {
	const char *buf;
	size_t len;
	size_t *next; /* per pattern: first offset not yet counted */
	long *lines;
};

static int on_match(unsigned id, unsigned long long from, unsigned long long to, unsigned flags, void *p)
{
	struct hits *h = p;
	const char *nl;
	(void)from;
	(void)flags;

	if (to < h->next[id])
		return 0;
	h->lines[id]++;
	nl = memchr(h->buf + to, '\n', h->len - to);
	h->next[id] = nl ? (size_t)(nl - h->buf) + 1 : h->len + 1;
	return 0;
}

static hs_database_t *build(char **pat, int n, const int *use, double *secs)
{
	const char **e = calloc(n, sizeof(*e));
	unsigned *fl = calloc(n, sizeof(*fl)), *ids = calloc(n, sizeof(*ids));
	hs_database_t *db = NULL;
	hs_compile_error_t *ce = NULL;
	int m = 0;
	double t0 = now();

	for (int i = 0; i < n; i++)
		if (!use || use[i]) {
			e[m] = pat[i];
			fl[m] = HS_FLAG_PREFILTER | HS_FLAG_MULTILINE | HS_FLAG_ALLOWEMPTY;
			ids[m++] = i;
		}
	if (hs_compile_multi(e, fl, ids, m, HS_MODE_BLOCK, NULL, &db, &ce) != HS_SUCCESS) {
		fprintf(stderr, "rulecost: compile failed (expression %d): %s\n", ce ? ce->expression : -1,
			ce ? ce->message : "?");
		hs_free_compile_error(ce);
		db = NULL;
	}
	if (secs)
		*secs = now() - t0;
	free(e);
	free(fl);
	free(ids);
	return db;
}

/* best of 3 scans; fills h when given */
static double scan(hs_database_t *db, const char *buf, size_t len, int n, struct hits *h)
{
	hs_scratch_t *s = NULL;
	double best = 1e30;
	struct hits tmp;

	if (hs_alloc_scratch(db, &s) != HS_SUCCESS)
		return -1;
	for (int r = 0; r < 3; r++) {
		struct hits *hh = h ? h : &tmp;

		hh->buf = buf;
		hh->len = len;
		if (!h) {
			tmp.next = calloc(n, sizeof(size_t));
			tmp.lines = calloc(n, sizeof(long));
		} else {
			memset(h->next, 0, n * sizeof(size_t));
			memset(h->lines, 0, n * sizeof(long));
		}
		double t0 = now();
		size_t off = 0;
		while (off < len) { /* hs_scan takes an unsigned int length */
			size_t c = len - off > (1u << 30) ? (1u << 30) : len - off;

			hs_scan(db, buf + off, (unsigned)c, 0, s, on_match, hh);
			off += c;
		}
		double t = now() - t0;
		if (t < best)
			best = t;
		if (!h) {
			free(tmp.next);
			free(tmp.lines);
		}
	}
	hs_free_scratch(s);
	return best;
}

struct row {
	int i;
	double alone, loo;
	long lines;
};

static int by_alone(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	return x->alone < y->alone ? 1 : x->alone > y->alone ? -1 : 0;
}

int main(int argc, char **argv)
{
	int top = 15, a = 1;

	if (argc > 2 && !strcmp(argv[1], "-k")) {
		top = atoi(argv[2]);
		a = 3;
	}
	if (argc - a < 2) {
		fprintf(stderr, "usage: rulecost [-k TOP] PATTERNS.tsv FILE...\n");
		return 1;
	}
	FILE *pf = fopen(argv[a], "r");
	if (!pf) {
		perror(argv[a]);
		return 1;
	}
	char **id = NULL, **pat = NULL, *line = NULL;
	size_t cap = 0;
	int n = 0;
	while (getline(&line, &cap, pf) > 0) {
		char *tab = strchr(line, '\t');

		if (!tab)
			continue;
		line[strcspn(line, "\n")] = 0;
		*tab = 0;
		id = realloc(id, (n + 1) * sizeof(*id));
		pat = realloc(pat, (n + 1) * sizeof(*pat));
		id[n] = strdup(line);
		pat[n++] = strdup(tab + 1);
	}
	fclose(pf);
	/* the files, concatenated */
	char *buf = NULL;
	size_t len = 0;
	for (int f = a + 1; f < argc; f++) {
		FILE *in = fopen(argv[f], "rb");
		if (!in) {
			perror(argv[f]);
			return 1;
		}
		fseek(in, 0, SEEK_END);
		long sz = ftell(in);
		fseek(in, 0, SEEK_SET);
		buf = realloc(buf, len + sz + 1);
		if (fread(buf + len, 1, sz, in) != (size_t)sz) {
			perror(argv[f]);
			return 1;
		}
		len += sz;
		if (len && buf[len - 1] != '\n')
			buf[len++] = '\n';
		fclose(in);
	}
	double ct;
	hs_database_t *all = build(pat, n, NULL, &ct);
	if (!all)
		return 1;
	struct hits h = { .next = calloc(n, sizeof(size_t)), .lines = calloc(n, sizeof(long)) };
	double t_all = scan(all, buf, len, n, &h);
	printf("# %d patterns, %.1f MB: compile %.2f s, scan %.3f s (%.0f MB/s)\n", n, len / 1e6, ct, t_all,
	       len / 1e6 / t_all);
	struct row *rows = calloc(n, sizeof(*rows));
	for (int i = 0; i < n; i++) {
		int *use = calloc(n, sizeof(int));
		use[i] = 1;
		hs_database_t *one = build(pat, n, use, NULL);
		rows[i].i = i;
		rows[i].lines = h.lines[i];
		rows[i].alone = one ? scan(one, buf, len, n, NULL) : -1;
		rows[i].loo = -1;
		hs_free_database(one);
		free(use);
	}
	qsort(rows, n, sizeof(*rows), by_alone);
	for (int k = 0; k < n && k < top; k++) {
		int *use = malloc(n * sizeof(int));
		for (int i = 0; i < n; i++)
			use[i] = i != rows[k].i;
		hs_database_t *rest = build(pat, n, use, NULL);
		rows[k].loo = rest ? t_all - scan(rest, buf, len, n, NULL) : -1;
		hs_free_database(rest);
		free(use);
	}
	printf("id\talone_s\talone_MB/s\tsaved_if_left_out_s\thit_lines\tpattern\n");
	for (int k = 0; k < n; k++) {
		struct row *r = &rows[k];
		char loo[32] = "";

		if (r->loo > -1)
			snprintf(loo, sizeof(loo), "%.3f", r->loo);
		printf("%s\t%.3f\t%.0f\t%s\t%ld\t%.100s\n", id[r->i], r->alone, len / 1e6 / r->alone, loo,
		       r->lines, pat[r->i]);
	}
	return 0;
}
