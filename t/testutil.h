/* Helpers shared by the Check suites: scratch case directories and a small
 * rule catalog whose behaviour the tests can predict. */
#ifndef ATTRIB_TESTUTIL_H
#define ATTRIB_TESTUTIL_H

#include <check.h>
#include <ftw.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"

#define BASE_RULES \
	"settings:\n  tie_window: 5\n  clock_skew: 5\n  max_evidence: 3\n" \
	"classes:\n" \
	"  - {class: hw, kind: fault, sub_domain: InfraHW, scope: node, action: drain}\n" \
	"  - {class: echo, kind: fault, sub_domain: InfraHW, scope: node, action: inspect}\n" \
	"  - {class: user, kind: fault, sub_domain: UserCode, scope: job, action: none}\n" \
	"  - {class: consequence, kind: consequence, scope: job, action: none}\n" \
	"prefixes:\n" \
	"  - {id: label, regex: '^ *(?<rank>\\d+): '}\n" \
	"  - {id: torch, regex: '^\\[rank(?<rank>\\d+)\\]:'}\n" \
	"  - {id: glog, regex: '^\\[(?<time>[EWIF]\\d{4} \\d\\d:\\d\\d:\\d\\d(?:\\.\\d+)?)[^\\]]*\\] ?'}\n" \
	"  - {id: iso, regex: '^\\[(?<time>\\d{4}-\\d\\d-\\d\\d[ T]\\d\\d:\\d\\d:\\d\\d)\\] ?'}\n" \
	"  - {id: nccl, regex: '^(?<node>[A-Za-z0-9][A-Za-z0-9_.-]*):(?<pid>\\d+):\\d+ \\[(?<gpu>\\d+)\\] " \
	"'}\n"

#define GOOD_RULE \
	"codes:\n" \
	"  - {code: t.fault, class: hw, title: GPU exploded}\n" \
	"  - {code: t.echo, class: echo, title: echo, tags: [echo]}\n" \
	"  - {code: t.generic, class: user, title: a CUDA error}\n" \
	"extractors:\n" \
	"  - id: fault\n    writer: kernel\n    regex: 'GPU exploded'\n    code: t.fault\n    priority: " \
	"10\n" \
	"    tests:\n      - line: 'kernel: GPU exploded'\n      - line: 'GPU imploded'\n        none: " \
	"true\n" \
	"  - id: generic\n    source: app\n    regex: 'CUDA error: (?<what>.+)'\n    code: t.generic\n" \
	"    tests:\n      - line: 'CUDA error: oops'\n        fields: {what: oops}\n" \
	"      - line: 'CUDA error: GPU exploded'\n        none: true\n" \
	"  - id: echo\n    source: app\n    regex: 'echo of the explosion'\n    code: t.echo\n" \
	"    tests:\n      - line: 'n1:1:1 [0] echo of the explosion'\n        fields: {node: n1, pid: " \
	"'1'}\n" \
	"      - line: 'explosion'\n        none: true\n"

#define TEST_REFINER \
	"refiners:\n  - id: fault-explains-echo\n    symptom: {tags: [echo]}\n" \
	"    explained_by: {codes: [t.fault]}\n    same: node\n    order: any\n    within: 600\n" \
	"    tests:\n      - events:\n          - {code: t.fault, node: a}\n          - {code: t.echo, " \
	"node: a}\n" \
	"        expect: {t.echo: downstream}\n"

static inline char *tmpdir(void)
{
	char tpl[] = "/tmp/attrib-test-XXXXXX";

	ck_assert_ptr_nonnull(mkdtemp(tpl));
	return strdup_or_die(tpl);
}

static inline char *path_join(const char *dir, const char *rel)
{
	char *p;

	ck_assert_int_ge(asprintf(&p, "%s/%s", dir, rel), 0);
	return p;
}

static inline void write_file(const char *dir, const char *rel, const char *text)
{
	char *p = path_join(dir, rel);
	FILE *f = fopen(p, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	free(p);
}

static inline void mkdir_p(const char *dir, const char *rel)
{
	char *p = path_join(dir, rel);

	for (char *q = p + strlen(dir) + 1; *q; q++)
		if (*q == '/') {
			*q = 0;
			mkdir(p, 0755);
			*q = '/';
		}
	mkdir(p, 0755);
	free(p);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static inline void rmtree(char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

/* A job.json without the named field (NULL: complete). */
static inline void write_job(const char *dir, const char *without)
{
	const char *fields[][2] = {
		{ "schema", "\"attrib.job/v1\"" },
		{ "job_id", "\"77\"" },
		{ "nodes", "[\"a\"]" },
		{ "start_time", "\"2025-11-29T08:00:00Z\"" },
		{ "end_time", "\"2025-11-29T08:20:00Z\"" },
		{ "state", "\"FAILED\"" },
	};
	char buf[1024] = "{";
	size_t o = 1;

	for (size_t i = 0; i < 6; i++)
		if (!without || strcmp(without, fields[i][0]))
			o += snprintf(buf + o, sizeof(buf) - o, "%s\"%s\": %s", o > 1 ? ", " : "",
				      fields[i][0], fields[i][1]);
	snprintf(buf + o, sizeof(buf) - o, "}\n");
	write_file(dir, "job.json", buf);
}

static inline void write_case_job(const char *dir, const char *state, const char *nodes)
{
	char buf[1024];

	snprintf(buf, sizeof(buf),
		 "{\"schema\": \"attrib.job/v1\", \"job_id\": \"77\", \"nodes\": %s,"
		 " \"start_time\": \"2025-11-29T08:00:00Z\", \"end_time\": \"2025-11-29T08:20:00Z\","
		 " \"state\": \"%s\", \"exit_code\": \"%s\"}\n",
		 nodes, state, strcmp(state, "COMPLETED") ? "1:0" : "0:0");
	write_file(dir, "job.json", buf);
}

/* The engine's options as the command takes them from the environment:
 * the prefilter cache (ATTRIB_CACHE, else the user's), and ATTRIB_THREADS
 * and ATTRIB_CHUNK_BYTES when the test's caller sets them. */
static inline const struct attrib_options *test_options(void)
{
	static struct attrib_options o;
	static bool read; /* first called from the test's main thread */

	if (!read) {
		o = attrib_options_env(getenv);
		read = true;
	}
	return &o;
}

static inline attrib_catalog *test_catalog(void)
{
	char *dir = tmpdir();
	attrib_catalog *cat;

	write_file(dir, "00-base.yaml", BASE_RULES);
	write_file(dir, "50-test.yaml", GOOD_RULE TEST_REFINER);
	cat = attrib_catalog_load(dir, test_options(), stderr);
	rmtree(dir);
	ck_assert_ptr_nonnull(cat);
	return cat;
}

/* o's member k, NULL when o or it is missing */
static inline struct json_object *json_member(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;

	if (o)
		json_object_object_get_ex(o, k, &v);
	return v;
}

/* The rule of cat that takes a line of a file of that source and origin,
 * as a scan takes it (line_extract: normalisation, the node line's header
 * and message, the prefixes; the candidates in priority order, the
 * origin's filter), the job's reference time 2025-11-29T08:00:00Z: its
 * event in *ev (which it clears), or NULL. */
static inline const struct event *taken_by(const attrib_catalog *cat, const char *line, int source,
					   enum origin o, struct event *ev)
{
	static int cand[4096];
	int nc = 0, nids = 0;
	struct timectx tc = { .ref = 1764403200.0, .tz = NULL };
	struct event ids[16];
	struct line_ctx lc;
	bool got;

	for (int k = 0; k < cat->nextractors && nc < 4096; k++) {
		const struct extractor *x = &cat->extractors[cat->by_priority[k]];

		if (x->lines == 1 && origin_allows(o, x))
			cand[nc++] = cat->by_priority[k];
	}
	memset(ev, 0, sizeof(*ev));
	got = line_extract(cat, &tc, line, strlen(line), source, cand, nc, &lc, ev, ids, &nids, 16);
	for (int i = 0; i < nids; i++)
		event_clear(&ids[i]);
	line_context_free(&lc);
	return got ? ev : NULL;
}

/* the code the line gives in a hand-made case's file of that source (NULL:
 * none), its event in *ev */
static inline const char *code_of(const attrib_catalog *cat, const char *line, int source, struct event *ev)
{
	const struct event *e = taken_by(cat, line, source, ORIGIN_UNLISTED, ev);

	return e && e->code ? e->code->code : NULL;
}

static inline int run_suite(Suite *s)
{
	SRunner *r = srunner_create(s);
	int failed;

	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
