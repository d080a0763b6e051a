/* The catalog's inline cases: every extractor case runs through the same
 * line path as a scan (prefilter, prefixes, priority), every refiner case
 * through the same refiner code as an analysis. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

static int lowest_source(int sources)
{
	for (int b = 1; b <= SRC_JOB; b <<= 1)
		if (sources & b)
			return b;
	if (sources & SRC_REPORT) /* a report is a node file too */
		return SRC_NODE | SRC_REPORT;
	return SRC_APP;
}

struct hitlist {
	bool *hit;
};

static void on_hit(void *ctx, int rule, size_t start, size_t end)
{
	(void)start;
	(void)end;
	((struct hitlist *)ctx)->hit[rule] = true;
}

static bool fields_ok(const struct test_case *t, const struct event *ev, FILE *out, const struct extractor *x)
{
	bool ok = true;

	for (int i = 0; i < t->field_names.n; i++) {
		const char *got = event_field(ev, t->field_names.v[i]);

		if (!got || strcmp(got, t->field_values.v[i])) {
			fprintf(out, "%s:%d: extractor \"%s\": field %s is \"%s\", expected \"%s\"\n",
				x->file, t->src_line, x->id, t->field_names.v[i], got ? got : "(none)",
				t->field_values.v[i]);
			ok = false;
		}
	}
	return ok;
}

static bool extractor_case(const attrib_catalog *cat, int xi, const struct test_case *t, FILE *out)
{
	const struct extractor *x = &cat->extractors[xi];
	struct timectx tc = { .ref = 1764403200.0 /* 2025-11-29 */, .tz = NULL };
	struct event ev = { 0 }, ids[16];
	struct line_ctx lc;
	int nids = 0, cand[1024], nc = 0, src = lowest_source(x->sources);
	bool got, ok = true;
	size_t len = strlen(t->line);

	if (x->lines > 1) {
		got = extractor_apply(cat, x, t->line, len, 0, &ev);
		if (got) {
			ev.extractor = xi;
			/* context of the line the match starts on */
			size_t ls = ev.match_start;
			while (ls > 0 && t->line[ls - 1] != '\n')
				ls--;
			line_context(cat, &tc, t->line + ls, strcspn(t->line + ls, "\n"), &lc);
			event_merge_context(&ev, &lc);
			line_context_free(&lc);
		}
	} else {
		for (int k = 0; k < cat->nextractors && nc < 1024; k++)
			if (cat->extractors[cat->by_priority[k]].lines == 1)
				cand[nc++] = cat->by_priority[k];
		got = line_extract(cat, &tc, t->line, len, src, cand, nc, &lc, &ev, ids, &nids, 16);
		if (x->identity) {
			got = false;
			for (int i = 0; i < nids; i++)
				if (ids[i].extractor == xi) {
					event_clear(&ev);
					ev = ids[i];
					ids[i] = (struct event){ 0 };
					got = true;
				}
		}
		for (int i = 0; i < nids; i++)
			event_clear(&ids[i]);
		line_context_free(&lc);
	}
	bool mine = got && ev.extractor == xi;

	if (t->none) {
		if (mine) {
			fprintf(out, "%s:%d: extractor \"%s\": case must not match, but gives %s\n", x->file,
				t->src_line, x->id, ev.code ? ev.code->code : "an identity");
			ok = false;
		}
	} else if (!mine) {
		if (got)
			fprintf(out,
				"%s:%d: extractor \"%s\": case is taken by extractor \"%s\" (%s) of higher "
				"priority\n",
				x->file, t->src_line, x->id, cat->extractors[ev.extractor].id,
				ev.code ? ev.code->code : "identity");
		else
			fprintf(out, "%s:%d: extractor \"%s\": case does not match\n", x->file, t->src_line,
				x->id);
		ok = false;
	} else {
		if (!x->identity && t->code && strcmp(t->code, ev.code->code)) {
			fprintf(out, "%s:%d: extractor \"%s\": gives %s, expected %s\n", x->file, t->src_line,
				x->id, ev.code->code, t->code);
			ok = false;
		}
		ok = fields_ok(t, &ev, out, x) && ok;
		/* the prefilter must let the line through, or a scan never sees it */
		struct hitlist h = { xcalloc(cat->nextractors, sizeof(bool)) };
		for (int kind = SRC_NODE; kind <= SRC_REPORT && !h.hit[xi]; kind <<= 1)
			if (x->sources & kind)
				matcher_scan(cat->matcher, kind == SRC_REPORT ? SRC_NODE | SRC_REPORT : kind,
					     t->line, len, 0, len, on_hit, &h);
		if (!h.hit[xi]) {
			fprintf(out, "%s:%d: extractor \"%s\": the prefilter does not pass this line\n",
				x->file, t->src_line, x->id);
			ok = false;
		}
		free(h.hit);
	}
	event_clear(&ev);
	return ok;
}

static bool refiner_case(const attrib_catalog *cat, const struct refiner *r, const struct test_case *t,
			 FILE *out)
{
	struct symptom **sym = xcalloc(t->nevents + 1, sizeof(*sym));
	struct strlist nodes = { 0 };
	bool ok = true;

	for (int i = 0; i < t->nevents; i++) {
		const struct test_event *e = &t->events[i];
		struct symptom *s = xcalloc(1, sizeof(*s));

		s->code = catalog_code(cat, e->code);
		s->node = -1;
		if (e->node) {
			if (!strlist_has(&nodes, e->node))
				strlist_add(&nodes, e->node);
			for (int k = 0; k < nodes.n; k++)
				if (!strcmp(nodes.v[k], e->node))
					s->node = k;
		}
		s->first = 1000.0 + i;
		if (e->time && !time_parse_rfc3339(e->time, &s->first)) {
			fprintf(out, "%s:%d: refiner \"%s\": bad time %s\n", r->file, t->src_line, r->id,
				e->time);
			ok = false;
		}
		if (e->pid)
			s->pids[s->npids++] = atol(e->pid);
		if (e->pci) {
			char norm[32];

			if (pci_normalise(e->pci, norm, sizeof(norm)))
				s->device = strdup_or_die(norm);
		}
		s->count = 1;
		sym[i] = s;
	}
	refiner_apply(r, sym, t->nevents, cat->set.clock_skew);
	for (int k = 0; k < t->expect_codes.n; k++) {
		const char *want = t->expect_roles.v[k];
		bool found = false;

		for (int i = 0; i < t->nevents; i++) {
			if (strcmp(sym[i]->code->code, t->expect_codes.v[k]))
				continue;
			const char *got = sym[i]->role == ROLE_NONE ? "root" : role_name(sym[i]->role);

			found = true;
			if (strcmp(got, want) && !(sym[i]->role == ROLE_NONE && !strcmp(want, "kept"))) {
				fprintf(out, "%s:%d: refiner \"%s\": %s is %s, expected %s\n", r->file,
					t->src_line, r->id, t->expect_codes.v[k], got, want);
				ok = false;
			}
		}
		if (!found) {
			fprintf(out, "%s:%d: refiner \"%s\": expect names %s, which no event has\n", r->file,
				t->src_line, r->id, t->expect_codes.v[k]);
			ok = false;
		}
	}
	for (int i = 0; i < t->nevents; i++) {
		free(sym[i]->device);
		free(sym[i]);
	}
	free(sym);
	strlist_free(&nodes);
	return ok;
}

int catalog_selftest(const attrib_catalog *cat, FILE *out, int verbose)
{
	int failed = 0, total = 0;

	for (int i = 0; i < cat->nextractors; i++)
		for (int k = 0; k < cat->extractors[i].ntests; k++, total++)
			if (!extractor_case(cat, i, &cat->extractors[i].tests[k], out))
				failed++;
	for (int i = 0; i < cat->nrefiners; i++)
		for (int k = 0; k < cat->refiners[i].ntests; k++, total++)
			if (!refiner_case(cat, &cat->refiners[i], &cat->refiners[i].tests[k], out))
				failed++;
	if (verbose)
		fprintf(out, "%d of %d rule cases passed\n", total - failed, total);
	return failed;
}

int attrib_catalog_selftest(const attrib_catalog *cat, FILE *out, int verbose)
{
	return catalog_selftest(cat, out, verbose);
}

/* The catalog for use: read, then proved by its own cases, so that a rule
 * whose case fails never judges a job. */
attrib_catalog *attrib_catalog_load(const char *path, const struct attrib_options *opt, FILE *err)
{
	attrib_catalog *cat = catalog_read(path, opt, err);

	if (cat && catalog_selftest(cat, err, 0)) {
		attrib_catalog_free(cat);
		return NULL;
	}
	return cat;
}
