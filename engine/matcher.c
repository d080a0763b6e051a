/* One pass over a log buffer for all extractors at once.
 *
 * The extractor regexes are compiled into Hyperscan/Vectorscan databases
 * in prefilter mode, one per kind of evidence (node logs, application
 * output, scheduler excerpts, job facts) holding the extractors that read
 * it, so a line no rule of its kind can match costs a single vectorised
 * scan and no regex call, and a node log is never scanned for what only
 * application output says.  A prefilter hit is a superset of
 * the real matches; linescan.c confirms each (rule, line) with PCRE2, which
 * also extracts the named captures. */
#include <fcntl.h>
#include <hs/hs.h>
#include <sys/stat.h>
#include <stdint.h>
#include <sys/mman.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include "fileio.h"
#include "internal.h"

/* One database per kind of evidence (common/evidence.h); a node file that
 * is a tool's report is scanned with node rules and report rules (a log of
 * timestamped lines is never scanned for the tables and sections only a
 * report has) */
#define NSOURCES EVIDENCE_KINDS
#define REPORT_DB EVIDENCE_REPORT

/* The extractors a database holds. */
static int db_sources(int db)
{
	return db == REPORT_DB ? SRC_NODE | SRC_REPORT : 1 << db;
}

struct matcher {
	hs_database_t *db[NSOURCES];
	/* scratch space is per thread (thread_scratch): node logs are scanned
	 * by several threads at once */
	int nrules;
	int *lines;	   /* per rule: lines a match may span */
	int maxlines;	   /* the most of them */
	unsigned long gen; /* this matcher's number, never reused (thread_scratch) */
};

static atomic_ulong matcher_gen;

/* ---- compiled database cache ----
 * Compiling a few hundred patterns takes Hyperscan most of a second; the
 * compiled database is kept in a cache file named by a hash of everything
 * that goes into it, so later runs only deserialise it.  A cache file is
 * used only if this user owns it and nobody else can write it. */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ULL;
	return h;
}

static char *cache_path(const attrib_catalog *cat, const unsigned *flags, int src)
{
	const char *dir = cat->opt.cache_dir;
	char *path = NULL;
	uint64_t h = 0xcbf29ce484222325ULL;

	if (!*dir)
		return NULL; /* no cache */
	h = fnv(h, hs_version(), strlen(hs_version()));
	hs_platform_info_t pi = { 0 };
	if (hs_populate_platform(&pi) == HS_SUCCESS)
		h = fnv(h, &pi, sizeof(pi));
	h = fnv(h, &src, sizeof(src));
	for (int i = 0; i < cat->nextractors; i++) {
		const char *e = cat->extractors[i].prefilter ? cat->extractors[i].prefilter
							     : cat->extractors[i].regex;

		if (!(cat->extractors[i].sources & db_sources(src)))
			continue;
		h = fnv(h, &i, sizeof(i));
		h = fnv(h, e, strlen(e) + 1);
		h = fnv(h, &flags[i], sizeof(flags[i]));
	}
	if (asprintf(&path, "%s/prefilter-%016llx.hs", dir, (unsigned long long)h) < 0)
		path = NULL;
	return path;
}

static hs_database_t *cache_load(const char *path)
{
	int fd = path ? open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
	hs_database_t *db = NULL;
	struct stat st;
	char *buf;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & 022) &&
	    st.st_size > 0 && st.st_size < (64 << 20)) {
		buf = xmalloc(st.st_size);
		if (read(fd, buf, st.st_size) == st.st_size &&
		    hs_deserialize_database(buf, st.st_size, &db) != HS_SUCCESS)
			db = NULL;
		free(buf);
	}
	close(fd);
	return db;
}

static void cache_store(const char *path, const hs_database_t *db)
{
	char *bytes = NULL, *tmp = NULL, *dir, why[256];
	size_t len;

	if (!path || hs_serialize_database(db, &bytes, &len) != HS_SUCCESS)
		return;
	dir = strdup_or_die(path);
	*strrchr(dir, '/') = 0;
	mkdir(dir, 0700); /* the parent must exist; one level is enough */
	/* a cache: not fsynced, and a failure only costs the next start */
	if (asprintf(&tmp, "%s.%d.tmp", path, (int)getpid()) >= 0)
		(void)write_atomic_at(AT_FDCWD, path, tmp, bytes, len, 0600, false, why, sizeof(why));
	free(tmp);
	free(dir);
	free(bytes);
}

/* The database of one kind of evidence (src: bit number of its SRC_*):
 * the extractors that read it, by their index in the catalog. */
static bool build_one(struct matcher *m, const attrib_catalog *cat, int src, FILE *err)
{
	int n = cat->nextractors, k = 0;
	const char **exprs = xcalloc(n + 1, sizeof(char *));
	unsigned *flags = xcalloc(n + 1, sizeof(unsigned)), *all = xcalloc(n + 1, sizeof(unsigned));
	unsigned *ids = xcalloc(n + 1, sizeof(unsigned));
	hs_compile_error_t *ce = NULL;
	bool ok = true;

	for (int i = 0; i < n; i++) {
		all[i] = HS_FLAG_PREFILTER | HS_FLAG_MULTILINE | HS_FLAG_ALLOWEMPTY;
		if (!(cat->extractors[i].sources & db_sources(src)))
			continue;
		exprs[k] = cat->extractors[i].prefilter ? cat->extractors[i].prefilter
							: cat->extractors[i].regex;
		flags[k] = all[i];
		ids[k++] = (unsigned)i;
	}
	char *cache = k ? cache_path(cat, all, src) : NULL;
	if (!k || (m->db[src] = cache_load(cache))) {
		/* nothing reads this kind, or compiled earlier from exactly these */
	} else if (hs_compile_multi(exprs, flags, ids, (unsigned)k, HS_MODE_BLOCK, NULL, &m->db[src], &ce) !=
		   HS_SUCCESS) {
		if (ce && ce->expression >= 0 && ce->expression < k) {
			const struct extractor *x = &cat->extractors[ids[ce->expression]];

			fprintf(err, "%s:%d: extractor \"%s\": regex rejected by the prefilter: %s\n",
				x->file, x->line, x->id, ce->message);
		} else {
			fprintf(err, "rules: prefilter compile failed: %s\n", ce ? ce->message : "?");
		}
		hs_free_compile_error(ce);
		ok = false;
	} else {
		cache_store(cache, m->db[src]); /* freshly compiled */
	}
	free(cache);

	free(exprs);
	free(flags);
	free(all);
	free(ids);
	return ok;
}

struct matcher *matcher_build(const attrib_catalog *cat, FILE *err)
{
	struct matcher *m = xcalloc(1, sizeof(*m));

	m->gen = atomic_fetch_add(&matcher_gen, 1) + 1;
	bool ok = true;

	m->nrules = cat->nextractors;
	m->lines = xcalloc(m->nrules + 1, sizeof(int));
	m->maxlines = 1;
	for (int i = 0; i < m->nrules; i++)
		if ((m->lines[i] = cat->extractors[i].lines) > m->maxlines)
			m->maxlines = m->lines[i];
	for (int src = 0; src < NSOURCES && ok; src++)
		ok = build_one(m, cat, src, err);
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
	for (int i = 0; i < NSOURCES; i++)
		hs_free_database(m->db[i]);
	free(m->lines);
	free(m);
}

/* A thread's scratch space and the databases it has been fitted to.
 * Hyperscan's own check of a scratch against a database is not complete:
 * a scratch made for one catalog's database and used with another's,
 * larger in some table, makes hs_scan write out of bounds (a fuzzed rule
 * file did).  So a scratch is used only with databases it was fitted to
 * (hs_alloc_scratch grows it, never shrinks it); databases are known by
 * their matcher's number and source, never by an address a later
 * catalog's database may take. */
#define FITTED_MAX 32
struct thread_scratch {
	hs_scratch_t *s;
	unsigned long fitted[FITTED_MAX];
	int nfitted, next;
};

static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

static void scratch_free(void *p)
{
	struct thread_scratch *t = p;

	hs_free_scratch(t->s);
	free(t);
}

static void scratch_key_make(void)
{
	pthread_key_create(&scratch_key, scratch_free);
}

/* This thread's scratch space, fitted to the database of source src of m
 * (fitting it before every file cost as much as scanning a small one:
 * done once per database and thread). */
static hs_scratch_t *thread_scratch(const struct matcher *m, int src)
{
	struct thread_scratch *t;
	unsigned long id = m->gen * NSOURCES + (unsigned long)src;

	pthread_once(&scratch_once, scratch_key_make);
	if (!(t = pthread_getspecific(scratch_key))) {
		if (!(t = calloc(1, sizeof(*t))))
			return NULL;
		pthread_setspecific(scratch_key, t);
	}
	for (int i = 0; i < t->nfitted; i++)
		if (t->fitted[i] == id)
			return t->s;
	if (hs_alloc_scratch(m->db[src], &t->s) != HS_SUCCESS)
		return NULL;
	t->fitted[t->next] = id;
	t->next = (t->next + 1) % FITTED_MAX;
	if (t->nfitted < FITTED_MAX)
		t->nfitted++;
	return t->s;
}

struct scan_state {
	const struct matcher *m;
	const char *buf;   /* the piece being scanned */
	size_t len, base;  /* its length and offset in the whole buffer */
	size_t from, to;   /* the lines whose hits are reported */
	size_t *next_line; /* per rule: the first offset not yet reported */
	matcher_hit hit;
	void *ctx;
};

static int on_match(unsigned id, unsigned long long from, unsigned long long to, unsigned flags, void *p)
{
	struct scan_state *s = p;
	size_t end = (size_t)to, start;
	(void)from;
	(void)flags;

	if (end < s->next_line[id]) /* same line, already reported */
		return 0;
	/* the line holding the last matched byte */
	start = end ? end - 1 : 0; /* a match may end on its newline */
	const char *nl0 = start ? memrchr(s->buf, '\n', start) : NULL;
	start = nl0 ? (size_t)(nl0 - s->buf) + 1 : 0;
	const char *nl = memchr(s->buf + end, '\n', s->len - end);
	s->next_line[id] = nl ? (size_t)(nl - s->buf) + 1 : s->len + 1;
	if (s->base + start >= s->from && s->base + start < s->to)
		s->hit(s->ctx, (int)id, s->base + start, s->base + end);
	return 0;
}

int matcher_scan(const struct matcher *m, int source, const char *buf, size_t len, size_t from, size_t to,
		 matcher_hit hit, void *ctx)
{
	struct scan_state s = { .m = m, .from = from, .to = to, .hit = hit, .ctx = ctx };
	int rc = 0, src = source & SRC_REPORT ? REPORT_DB : __builtin_ctz((unsigned)source);
	hs_database_t *db = src < NSOURCES ? m->db[src] : NULL;

	if (!db || from >= to)
		return 0;
	hs_scratch_t *scratch = thread_scratch(m, src);
	if (!scratch)
		return -1;
	s.next_line = xcalloc(m->nrules, sizeof(size_t));
	/* from the lines a match ending on the first line at from may span
	 * (their hits are not this scan's: the scan before reported them) */
	size_t off = from;
	for (int i = 0; i < m->maxlines && off > 0; i++) {
		off--;
		while (off > 0 && buf[off - 1] != '\n')
			off--;
	}
	/* Pieces that end on a line boundary: hs_scan takes an unsigned int
	 * length.  (A chunk of a file is far smaller.) */
	size_t piece = 64u << 20;
	while (off < len && off < to && rc == 0) {
		size_t n = len - off;

		if (n > piece) {
			size_t look = 1u << 20;
			const char *nl = memrchr(buf + off + piece - look, '\n', look);

			n = nl ? (size_t)(nl - (buf + off)) + 1 : piece;
		}
		s.buf = buf + off;
		s.len = n;
		s.base = off;
		memset(s.next_line, 0, m->nrules * sizeof(size_t));
		hs_error_t e = hs_scan(db, buf + off, (unsigned)n, 0, scratch, on_match, &s);

		if (e != HS_SUCCESS)
			rc = -1;
		off += n;
	}
	free(s.next_line);
	return rc;
}
