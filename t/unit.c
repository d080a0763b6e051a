/* Unit tests of the engine's phases (Check).  End-to-end cases live in
 * t/cases/ and run from t/e2e.c; bad input in t/badinput.c. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "internal.h"
#include "testutil.h"
#include "conf.h"
#include "stdio_path.h"
#include "text.h"

/* ---- timestamps: every format evidence carries ---- */

static struct timectx tc_utc = { .ref = 1764403200.0 /* 2025-11-29T08:00:00Z */, .tz = NULL };

static double header(const char *line, size_t *hdr)
{
	double t = -1;

	ck_assert_msg(time_parse_header(&tc_utc, line, strlen(line), &t, hdr), "no time in: %s", line);
	return t;
}

START_TEST(time_rfc3339_syslog)
{
	size_t h;
	double t = header("2025-11-29T08:12:01.123456+00:00 node-02 kernel: msg", &h);

	ck_assert_double_eq_tol(t, 1764403921.123456, 1e-6);
	ck_assert_str_eq("node-02 kernel: msg", "2025-11-29T08:12:01.123456+00:00 node-02 kernel: msg" + h);
}
END_TEST

START_TEST(time_offsets)
{
	size_t h;

	/* journalctl short-iso: +0000, and a zone east of UTC */
	ck_assert_double_eq_tol(header("2025-11-29T08:12:01+0000 n kernel: x", &h), 1764403921, 1e-6);
	ck_assert_double_eq_tol(header("2025-11-29T09:12:01+01:00 n kernel: x", &h), 1764403921, 1e-6);
	ck_assert_double_eq_tol(header("2025-11-29T08:12:01Z n", &h), 1764403921, 1e-6);
}
END_TEST

START_TEST(time_rfc3164)
{
	size_t h;

	ck_assert_double_eq_tol(header("Nov 29 08:12:01 node-02 kernel: [12345.678901] msg", &h), 1764403921,
				1e-6);
	ck_assert_double_eq_tol(header("Nov  9 08:12:01 node-02 kernel: msg", &h), 1764403921 - 20 * 86400,
				1e-6);
	/* a year-less December date seen from a job in early January is last year */
	struct timectx jan = { .ref = 1767225600.0 /* 2026-01-01 */ };
	double t;
	ck_assert(time_parse_header(&jan, "Dec 31 23:59:59 n k: x", 22, &t, &h));
	ck_assert_double_eq_tol(t, 1767225599, 1e-6);
}
END_TEST

START_TEST(time_dmesg_t)
{
	size_t h;

	ck_assert_double_eq_tol(header("[Sat Nov 29 08:12:01 2025] NVRM: Xid", &h), 1764403921, 1e-6);
	ck_assert_str_eq("NVRM: Xid", "[Sat Nov 29 08:12:01 2025] NVRM: Xid" + h);
}
END_TEST

START_TEST(time_slurmctld_bracketed)
{
	size_t h;

	ck_assert_double_eq_tol(header("[2025-11-29T08:12:01.500] error: Nodes n2 not responding", &h),
				1764403921.5, 1e-6);
}
END_TEST

START_TEST(time_glog_and_app)
{
	double t;

	ck_assert(time_parse_any(&tc_utc, "E1129 08:12:03.123456789", 24, &t));
	ck_assert_double_eq_tol(t, 1764403923.123456789, 1e-5);
	ck_assert(time_parse_any(&tc_utc, "2025-11-29 08:12:03", 19, &t));
	ck_assert_double_eq_tol(t, 1764403923, 1e-6);
	/* torchrun's error summary: time : 2025-11-29_08:12:03 */
	ck_assert(time_parse_any(&tc_utc, "2025-11-29_08:12:03", 19, &t));
	ck_assert_double_eq_tol(t, 1764403923, 1e-6);
}
END_TEST

START_TEST(time_named_zone)
{
	struct timectx berlin = { .ref = 1764403200.0, .tz = "Europe/Berlin" };
	double t;
	size_t h;

	/* 09:12:01 in Berlin (CET, +01:00) is 08:12:01Z */
	ck_assert(time_parse_header(&berlin, "Nov 29 09:12:01 n k: x", 22, &t, &h));
	ck_assert_double_eq_tol(t, 1764403921, 1e-6);
}
END_TEST

START_TEST(time_no_timestamp)
{
	double t;
	size_t h;
	const char *lines[] = { "3: hello",
				"Traceback (most recent call last):",
				"[ 1234.5678] raw dmesg",
				"2025-13-45T99:00:00Z bogus",
				"",
				"Nov 99 08:12:01 x" };

	for (size_t i = 0; i < sizeof(lines) / sizeof(*lines); i++)
		ck_assert_msg(!time_parse_header(&tc_utc, lines[i], strlen(lines[i]), &t, &h), "%s",
			      lines[i]);
}
END_TEST

START_TEST(time_format_roundtrip)
{
	char buf[48];
	double t;

	time_format(1764403921.3312, buf, sizeof(buf));
	ck_assert_str_eq(buf, "2025-11-29T08:12:01.331200Z");
	ck_assert(time_parse_rfc3339(buf, &t));
	ck_assert_double_eq_tol(t, 1764403921.3312, 1e-6);
	time_format(1764403921, buf, sizeof(buf));
	ck_assert_str_eq(buf, "2025-11-29T08:12:01Z");
}
END_TEST

/* ---- node identity ---- */

static struct job *fake_job(void)
{
	static struct job j;
	static struct rank_info r[2];

	memset(&j, 0, sizeof(j));
	strlist_add(&j.nodes, "node-01");
	strlist_add(&j.nodes, "gpu-b7.cluster.example");
	r[0] = (struct rank_info){ .rank = 0, .node = 0 };
	r[1] = (struct rank_info){ .rank = 9, .node = 1 };
	j.ranks = r;
	j.nranks = 2;
	return &j;
}

START_TEST(identity_names)
{
	struct job *j = fake_job();
	struct identity *id = identity_new(j);

	ck_assert_int_eq(identity_node(id, "node-01"), 0);
	ck_assert_int_eq(identity_node(id, "NODE-01"), 0);
	ck_assert_int_eq(identity_node(id, "node-01.cluster.example"), 0); /* FQDN of a short name */
	ck_assert_int_eq(identity_node(id, "gpu-b7"), 1);		   /* short of an FQDN */
	ck_assert_int_eq(identity_node(id, "gpu-b7.cluster.example"), 1);
	ck_assert_int_eq(identity_node(id, "node-01<37112>"), 0);
	ck_assert_int_eq(identity_node(id, "node-99"), -1);
	ck_assert_int_eq(identity_node(id, NULL), -1);
	identity_learn_ip(id, "10.1.2.3<0>", 1);
	ck_assert_int_eq(identity_node(id, "10.1.2.3"), 1);
	ck_assert_int_eq(identity_node(id, "10.1.2.3<45123>"), 1);
	ck_assert_int_eq(identity_node(id, "10.1.2.3:45123"), 1);
	ck_assert_int_eq(identity_node(id, "10.1.2.4"), -1);
	ck_assert_int_eq(identity_rank_node(id, 9), 1);
	ck_assert_int_eq(identity_rank_node(id, 3), -1);
	identity_learn_rank(id, 3, 0);
	ck_assert_int_eq(identity_rank_node(id, 3), 0);
	identity_learn_gpu(id, 1, "5", NULL, "61000");
	ck_assert_str_eq(identity_gpu_pci(id, 1, "5", 0), "0000:61:00");
	/* per-task binding: both processes call their GPU 0; the pid tells them apart */
	identity_learn_gpu(id, 0, "0", "1111", "0000:1b:00.0");
	identity_learn_gpu(id, 0, "0", "2222", "0000:43:00.0");
	ck_assert_str_eq(identity_gpu_pci(id, 0, "0", 2222), "0000:43:00");
	ck_assert_str_eq(identity_gpu_pci(id, 0, "0", 1111), "0000:1b:00");
	ck_assert_ptr_null(identity_gpu_pci(id, 0, NULL, 3333));
	identity_free(id);
	strlist_free(&j->nodes);
}
END_TEST

START_TEST(hostlists)
{
	struct strlist l = { 0 };

	ck_assert(hostlist_expand("node-[02-04,07],gpu1", &l, 100));
	ck_assert_int_eq(l.n, 5);
	ck_assert_str_eq(l.v[0], "node-02");
	ck_assert_str_eq(l.v[2], "node-04");
	ck_assert_str_eq(l.v[3], "node-07");
	ck_assert_str_eq(l.v[4], "gpu1");
	strlist_free(&l);
	ck_assert(hostlist_expand("n[8-11]", &l, 100));
	ck_assert_str_eq(l.v[3], "n11");
	strlist_free(&l);
	ck_assert(!hostlist_expand("n[1-100000]", &l, 4096)); /* bounded */
	strlist_free(&l);
	ck_assert(!hostlist_expand("n[3-", &l, 100));
	strlist_free(&l);
}
END_TEST

START_TEST(pci_forms)
{
	char b[32];

	ck_assert(pci_normalise("0000:61:00", b, sizeof(b)));
	ck_assert_str_eq(b, "0000:61:00");
	ck_assert(pci_normalise("PCI:0000:61:00", b, sizeof(b)));
	ck_assert_str_eq(b, "0000:61:00");
	ck_assert(pci_normalise("00000000:61:00.0", b, sizeof(b)));
	ck_assert_str_eq(b, "0000:61:00");
	ck_assert(pci_normalise("61:00.0", b, sizeof(b)));
	ck_assert_str_eq(b, "0000:61:00");
	ck_assert(pci_normalise("1b000", b, sizeof(b))); /* NCCL busId */
	ck_assert_str_eq(b, "0000:1b:00");
	ck_assert(!pci_normalise("hello", b, sizeof(b)));
	ck_assert(!pci_normalise("12", b, sizeof(b)));
}
END_TEST

/* ---- job.json ---- */

START_TEST(job_required_fields)
{
	const char *missing[] = { "schema", "job_id", "nodes", "start_time", "end_time", "state" };
	char err[512];

	for (size_t i = 0; i < 6; i++) {
		char *dir = tmpdir();
		struct job j;

		write_job(dir, missing[i]);
		char *p = path_join(dir, "job.json");
		ck_assert_int_eq(job_load(&j, p, err, sizeof(err)), -1);
		ck_assert_msg(strstr(err, missing[i]) != NULL, "message names %s: %s", missing[i], err);
		ck_assert_msg(!strchr(err, '\n'), "one line: %s", err);
		job_free(&j);
		free(p);
		rmtree(dir);
	}
}
END_TEST

START_TEST(job_invalid_json)
{
	char *dir = tmpdir(), err[512];
	struct job j;

	write_file(dir, "job.json", "{\"schema\": \"attrib.job/v1\", \"job_id\": ");
	char *p = path_join(dir, "job.json");
	ck_assert_int_eq(job_load(&j, p, err, sizeof(err)), -1);
	ck_assert(strstr(err, "invalid JSON") != NULL);
	job_free(&j);
	/* deeply nested: refused by the depth limit, not a stack overflow */
	char *deep = xmalloc(200001);
	memset(deep, '[', 100000);
	memset(deep + 100000, ']', 100000);
	deep[200000] = 0;
	write_file(dir, "job.json", deep);
	free(deep);
	ck_assert_int_eq(job_load(&j, p, err, sizeof(err)), -1);
	job_free(&j);
	free(p);
	rmtree(dir);
}
END_TEST

/* ---- rule loading ---- */

static int load_errors(const char *yaml, char *out, size_t outlen)
{
	char *dir = tmpdir();
	FILE *err = fmemopen(out, outlen, "w");
	attrib_catalog *cat;

	write_file(dir, "00-base.yaml", BASE_RULES);
	write_file(dir, "50-test.yaml", yaml);
	cat = attrib_catalog_load(dir, test_options(), err);
	fclose(err);
	rmtree(dir);
	if (cat) {
		attrib_catalog_free(cat);
		return 0;
	}
	return 1;
}

START_TEST(rules_valid)
{
	char out[4096] = "";

	ck_assert_msg(!load_errors(GOOD_RULE, out, sizeof(out)), "%s", out);
}
END_TEST

START_TEST(rules_broken_regex)
{
	char out[4096] = "";

	ck_assert(load_errors("extractors:\n  - id: bad\n    regex: 'Xid (('\n    code: t.fault\n"
			      "    tests:\n      - line: x\n      - line: y\n        none: true\n"
			      "codes:\n  - code: t.fault\n    class: hw\n",
			      out, sizeof(out)));
	ck_assert_msg(strstr(out, "50-test.yaml:3: regex error") != NULL, "%s", out);
}
END_TEST

/* an extractor without an id, then one with an id: refused, named (the id
 * check compared against the missing one: strcmp(NULL), found by fuzz_rules) */
START_TEST(rules_missing_id)
{
	char out[4096] = "";

	ck_assert(load_errors("codes:\n  - code: t.fault\n    class: hw\n"
			      "extractors:\n  - regex: 'a'\n    code: t.fault\n"
			      "  - id: x2\n    regex: 'b'\n    code: t.fault\n",
			      out, sizeof(out)));
	ck_assert_msg(strstr(out, "50-test.yaml:5") != NULL, "%s", out);
}
END_TEST

START_TEST(rules_failing_case)
{
	char out[4096] = "";
	/* the positive case does not match: named with file and line */
	ck_assert(load_errors(
		"codes:\n  - code: t.fault\n    class: hw\n"
		"extractors:\n  - id: x1\n    source: app\n    regex: 'GPU exploded'\n    code: t.fault\n"
		"    tests:\n      - line: 'GPU imploded'\n      - line: 'fine'\n        none: true\n",
		out, sizeof(out)));
	ck_assert_msg(strstr(out, "50-test.yaml:10: extractor \"x1\": case does not match") != NULL, "%s",
		      out);
}
END_TEST

START_TEST(rules_unknown_key_and_code)
{
	char out[4096] = "";

	ck_assert(load_errors("codes:\n  - code: t.fault\n    clas: hw\n", out, sizeof(out)));
	ck_assert_msg(strstr(out, "unknown key \"clas\"") != NULL, "%s", out);
	ck_assert(load_errors("extractors:\n  - id: x1\n    regex: 'a'\n    code: no.such\n"
			      "    tests:\n      - line: a\n      - line: b\n        none: true\n",
			      out, sizeof(out)));
	ck_assert_msg(strstr(out, "code \"no.such\" is not in the catalog") != NULL, "%s", out);
}
END_TEST

/* a key given twice in one mapping: libyaml keeps both and the loader read
 * the first, so two "id:" merged two extractors into one; refused, named */
START_TEST(rules_duplicate_key)
{
	char out[4096] = "";

	ck_assert(load_errors("codes:\n  - code: t.fault\n    class: hw\n"
			      "extractors:\n  - id: x1\n    source: app\n    regex: 'a'\n"
			      "    id: x2\n    code: t.fault\n"
			      "    tests:\n      - line: a\n      - line: b\n        none: true\n",
			      out, sizeof(out)));
	ck_assert_msg(strstr(out, "50-test.yaml:8: duplicate key \"id\"") != NULL, "%s", out);
	/* the same key in two mappings is no duplicate */
	ck_assert_msg(!load_errors(GOOD_RULE, out, sizeof(out)), "%s", out);
}
END_TEST

/* a refiner's "as": the code it reads its target as must exist, and it
 * replaces the verdict; "sources" names evidence kinds */
START_TEST(rules_refiner_as_and_sources)
{
	char out[4096] = "";
	const char *ref = "refiners:\n  - id: r1\n    symptom: {codes: [t.generic], sources: [%s]}\n"
			  "    explained_by: {codes: [t.fault]}\n    order: any\n    %s\n"
			  "    tests:\n      - events:\n          - {code: t.fault}\n"
			  "          - {code: t.generic}\n        expect: {%s: root}\n";
	char y[2048];

	snprintf(y, sizeof(y), "%s%s", GOOD_RULE, ref);
	char z[2048];

	snprintf(z, sizeof(z), y, "app", "as: t.echo", "t.echo");
	ck_assert_msg(!load_errors(z, out, sizeof(out)), "%s", out);
	snprintf(z, sizeof(z), y, "app", "as: t.echo", "t.generic"); /* became t.echo */
	ck_assert(load_errors(z, out, sizeof(out)));
	ck_assert_msg(strstr(out, "expect names t.generic, which no event has") != NULL, "%s", out);
	snprintf(z, sizeof(z), y, "app", "as: no.such", "t.generic");
	ck_assert(load_errors(z, out, sizeof(out)));
	ck_assert_msg(strstr(out, "code \"no.such\" is not in the catalog") != NULL, "%s", out);
	snprintf(z, sizeof(z), y, "nosuch", "as: t.echo", "t.echo");
	ck_assert(load_errors(z, out, sizeof(out)));
	ck_assert_msg(strstr(out, "unknown source \"nosuch\"") != NULL, "%s", out);
}
END_TEST

/* sources: every line of the symptom from one of them (the per-code table
 * cannot say it: read per symptom) */
START_TEST(selector_sources_all_lines)
{
	struct selector s = { .sources = SRC_APP };
	struct symptom app = { .sources = SRC_APP }, both = { .sources = SRC_APP | SRC_NODE };

	ck_assert(selector_sources(&s, &app));
	ck_assert(!selector_sources(&s, &both));
	s.sources = 0;
	ck_assert(selector_sources(&s, &both));
}
END_TEST

START_TEST(rules_missing_negative_case)
{
	char out[4096] = "";

	ck_assert(load_errors("codes:\n  - code: t.fault\n    class: hw\n"
			      "extractors:\n  - id: x1\n    regex: 'boom'\n    code: t.fault\n"
			      "    tests:\n      - line: 'boom'\n",
			      out, sizeof(out)));
	ck_assert_msg(strstr(out, "needs a positive and a negative case") != NULL, "%s", out);
}
END_TEST

START_TEST(rules_refiner_case_fails)
{
	char out[4096] = "";
	char *y = xmalloc(4096);

	snprintf(y, 4096,
		 "%s"
		 "refiners:\n  - id: r1\n    symptom: {codes: [t.echo]}\n    explained_by: {codes: "
		 "[t.fault]}\n"
		 "    same: node\n    tests:\n      - events:\n          - {code: t.fault, node: a}\n"
		 "          - {code: t.echo, node: b}\n        expect: {t.echo: downstream}\n",
		 GOOD_RULE);
	ck_assert(load_errors(y, out, sizeof(out)));
	ck_assert_msg(strstr(out, "refiner \"r1\": t.echo is root, expected downstream") != NULL, "%s", out);
	free(y);
}
END_TEST

START_TEST(rules_yaml_syntax)
{
	char out[4096] = "";

	ck_assert(load_errors("codes: [\n  - : :\n", out, sizeof(out)));
	ck_assert_msg(strstr(out, "50-test.yaml:") != NULL && strstr(out, "YAML") != NULL, "%s", out);
}
END_TEST

/* ---- the pipeline phases on a small catalog ---- */

START_TEST(extract_priority_and_prefixes)
{
	attrib_catalog *cat = test_catalog();
	struct timectx tc = tc_utc;
	struct line_ctx lc;
	struct event ev = { 0 }, ids[4];
	int cand[16], nc = 0, nids;
	const char *line =
		"7: [rank7]:[E1129 08:12:03.000001 ProcessGroupNCCL.cpp:1] CUDA error: GPU exploded";

	for (int k = 0; k < cat->nextractors; k++)
		cand[nc++] = cat->by_priority[k];
	ck_assert(line_extract(cat, &tc, line, strlen(line), SRC_APP, cand, nc, &lc, &ev, ids, &nids, 4));
	ck_assert_str_eq(ev.code->code, "t.fault"); /* the specific rule beats the generic one */
	ck_assert_str_eq(event_field(&ev, "rank"), "7");
	ck_assert(ev.has_time);
	ck_assert_double_eq_tol(ev.time, 1764403923.000001, 1e-5);
	event_clear(&ev);
	line_context_free(&lc);
	attrib_catalog_free(cat);
}
END_TEST

START_TEST(symptoms_collapse)
{
	char *dir = tmpdir();
	attrib_catalog *cat = test_catalog();
	char err[256];
	FILE *f;

	write_case_job(dir, "FAILED", "[\"a\", \"b\"]");
	mkdir_p(dir, "nodes/a");
	mkdir_p(dir, "nodes/b");
	char *p = path_join(dir, "nodes/a/syslog");
	f = fopen(p, "w");
	for (int i = 0; i < 10000; i++) /* a burst: one symptom with a count */
		fprintf(f, "2025-11-29T08:10:%02d+00:00 a kernel: GPU exploded\n", i % 60);
	fclose(f);
	free(p);
	write_file(dir, "nodes/b/syslog", "2025-11-29T08:10:00+00:00 b kernel: all fine\n");
	struct json_object *r = attrib_analyze(cat, dir, NULL, err, sizeof(err)), *syms, *s0, *v;

	ck_assert_ptr_nonnull(r);
	json_object_object_get_ex(r, "symptoms", &syms);
	ck_assert_int_eq(json_object_array_length(syms), 1);
	s0 = json_object_array_get_idx(syms, 0);
	json_object_object_get_ex(s0, "count", &v);
	ck_assert_int_eq(json_object_get_int(v), 10000);
	json_object_object_get_ex(s0, "evidence", &v);
	ck_assert_int_le(json_object_array_length(v), 3);
	json_object_object_get_ex(r, "culprit_nodes", &v);
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(v, 0)), "a");
	json_object_put(r);
	attrib_catalog_free(cat);
	rmtree(dir);
}
END_TEST

START_TEST(window_drops_old_events)
{
	char *dir = tmpdir();
	attrib_catalog *cat = test_catalog();
	char err[256];
	struct json_object *r, *v;

	write_case_job(dir, "FAILED", "[\"a\"]");
	mkdir_p(dir, "nodes/a");
	/* days before the job: outside its window */
	write_file(dir, "nodes/a/syslog", "2025-11-20T08:10:00+00:00 a kernel: GPU exploded\n");
	r = attrib_analyze(cat, dir, NULL, err, sizeof(err));
	ck_assert_ptr_nonnull(r);
	json_object_object_get_ex(r, "sub_domain", &v);
	ck_assert_str_eq(json_object_get_string(v), "unattributed");
	json_object_put(r);
	attrib_catalog_free(cat);
	rmtree(dir);
}
END_TEST

START_TEST(large_log_window_seek)
{
	/* a 16 MB log over six days: the engine seeks to the job's window and
	 * still reports the exact line number of what it finds */
	char *dir = tmpdir();
	attrib_catalog *cat = test_catalog();
	char err[256];
	struct json_object *r, *v;
	long target = 0, n = 0;

	write_case_job(dir, "FAILED", "[\"a\"]");
	mkdir_p(dir, "nodes/a");
	char *p = path_join(dir, "nodes/a/syslog");
	FILE *f = fopen(p, "w");
	for (long k = 0; k < 200000; k++) {
		long t = 1763884800 + k * 3; /* 2025-11-23 onwards, 3 s apart */
		struct tm tm;
		time_t tt = t;

		gmtime_r(&tt, &tm);
		fprintf(f,
			"%04d-%02d-%02dT%02d:%02d:%02d+00:00 a systemd[1]: Started Session %ld of User root "
			"with a long tail of text.\n",
			tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, k);
		n++;
		if (t == 1764403800 || k == 1000) { /* 08:10 on the job's day; and days before */
			fprintf(f, "%04d-%02d-%02dT%02d:%02d:%02d+00:00 a kernel: GPU exploded\n",
				tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
				tm.tm_sec);
			if (k != 1000)
				target = ++n;
			else
				++n;
		}
	}
	fclose(f);
	free(p);
	ck_assert_int_gt(target, 0);
	r = attrib_analyze(cat, dir, NULL, err, sizeof(err));
	json_object_object_get_ex(r, "root_cause", &v);
	ck_assert_ptr_nonnull(v);
	json_object_object_get_ex(v, "evidence", &v);
	json_object_object_get_ex(json_object_array_get_idx(v, 0), "line", &v);
	ck_assert_int_eq(json_object_get_int64(v), target);
	json_object_put(r);
	attrib_catalog_free(cat);
	rmtree(dir);
}
END_TEST

START_TEST(first_cause_and_ambiguity)
{
	char *dir = tmpdir();
	attrib_catalog *cat = test_catalog();
	char err[256];
	struct json_object *r, *v;

	write_case_job(dir, "FAILED", "[\"a\", \"b\"]");
	mkdir_p(dir, "nodes/a");
	mkdir_p(dir, "nodes/b");
	/* two faults within the tie window on two nodes: ambiguous, both candidates */
	write_file(dir, "nodes/a/syslog", "2025-11-29T08:10:00+00:00 a kernel: GPU exploded\n");
	write_file(dir, "nodes/b/syslog", "2025-11-29T08:10:01+00:00 b kernel: GPU exploded\n");
	r = attrib_analyze(cat, dir, NULL, err, sizeof(err));
	json_object_object_get_ex(r, "sub_domain", &v);
	ck_assert_str_eq(json_object_get_string(v), "ambiguous");
	json_object_object_get_ex(r, "culprit_nodes", &v);
	ck_assert_int_eq(json_object_array_length(v), 2);
	json_object_object_get_ex(r, "actions", &v);
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		struct json_object *a;

		json_object_object_get_ex(json_object_array_get_idx(v, i), "action", &a);
		ck_assert_str_ne(json_object_get_string(a), "drain"); /* never drain on ambiguity */
	}
	json_object_put(r);
	/* the same two a minute apart: the first one is the cause */
	write_file(dir, "nodes/b/syslog", "2025-11-29T08:11:00+00:00 b kernel: GPU exploded\n");
	r = attrib_analyze(cat, dir, NULL, err, sizeof(err));
	json_object_object_get_ex(r, "sub_domain", &v);
	ck_assert_str_eq(json_object_get_string(v), "InfraHW");
	json_object_object_get_ex(r, "culprit_nodes", &v);
	ck_assert_int_eq(json_object_array_length(v), 1);
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(v, 0)), "a");
	json_object_put(r);
	attrib_catalog_free(cat);
	rmtree(dir);
}
END_TEST

START_TEST(refiner_marks_downstream)
{
	char *dir = tmpdir();
	attrib_catalog *cat = test_catalog();
	char err[256];
	struct json_object *r, *v;

	write_case_job(dir, "FAILED", "[\"a\", \"b\"]");
	mkdir_p(dir, "nodes/a");
	mkdir_p(dir, "app");
	write_file(dir, "nodes/a/syslog", "2025-11-29T08:10:00+00:00 a kernel: GPU exploded\n");
	/* the echo on node a is explained; the generic fault after it is downstream by time */
	write_file(dir, "app/out", "a:100:100 [0] echo of the explosion\n[2025-11-29 08:10:30] progress\n");
	r = attrib_analyze(cat, dir, NULL, err, sizeof(err));
	json_object_object_get_ex(r, "sub_domain", &v);
	ck_assert_str_eq(json_object_get_string(v), "InfraHW");
	json_object_object_get_ex(r, "symptoms", &v);
	int downstream = 0;
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		struct json_object *role, *code;

		json_object_object_get_ex(json_object_array_get_idx(v, i), "role", &role);
		json_object_object_get_ex(json_object_array_get_idx(v, i), "code", &code);
		if (!strcmp(json_object_get_string(code), "t.echo")) {
			ck_assert_str_eq(json_object_get_string(role), "downstream");
			downstream++;
		}
	}
	ck_assert_int_eq(downstream, 1);
	json_object_put(r);
	attrib_catalog_free(cat);
	rmtree(dir);
}
END_TEST

START_TEST(missing_node_is_coverage)
{
	char *dir = tmpdir();
	attrib_catalog *cat = test_catalog();
	char err[256];
	struct json_object *r, *v, *c;

	write_case_job(dir, "FAILED", "[\"a\", \"b\"]");
	mkdir_p(dir, "nodes/a");
	write_file(dir, "nodes/a/syslog", "2025-11-29T08:10:00+00:00 a kernel: fine\n");
	r = attrib_analyze(cat, dir, NULL, err, sizeof(err));
	json_object_object_get_ex(r, "coverage", &v);
	ck_assert_int_eq(json_object_array_length(v), 1);
	c = json_object_array_get_idx(v, 0);
	json_object_object_get_ex(c, "source", &v);
	ck_assert_str_eq(json_object_get_string(v), "nodes/b");
	json_object_object_get_ex(c, "status", &v);
	ck_assert_str_eq(json_object_get_string(v), "missing");
	json_object_put(r);
	attrib_catalog_free(cat);
	rmtree(dir);
}
END_TEST

START_TEST(completed_is_pass)
{
	char *dir = tmpdir();
	attrib_catalog *cat = test_catalog();
	char err[256];
	struct json_object *r, *v;

	write_case_job(dir, "COMPLETED", "[\"a\"]");
	mkdir_p(dir, "nodes/a");
	write_file(dir, "nodes/a/syslog", "2025-11-29T08:10:00+00:00 a kernel: GPU exploded\n");
	r = attrib_analyze(cat, dir, NULL, err, sizeof(err));
	json_object_object_get_ex(r, "outcome", &v);
	ck_assert_str_eq(json_object_get_string(v), "Pass");
	json_object_object_get_ex(r, "sub_domain", &v);
	ck_assert_str_eq(json_object_get_string(v), "Pass");
	json_object_object_get_ex(r, "actions", &v);
	ck_assert_int_eq(json_object_array_length(v), 0);
	json_object_put(r);
	attrib_catalog_free(cat);
	rmtree(dir);
}
END_TEST

/* ---- attrib.conf ---- */

START_TEST(config_defaults_and_values)
{
	char *dir = tmpdir(), out[2048] = "";
	struct attrib_config c;
	FILE *err = fmemopen(out, sizeof(out), "w");

	write_file(dir, "attrib.conf",
		   "# comment\n\nStateDir = /srv/attrib\nBundleDeadline = 2m\n"
		   "CommentField = comment\nLogSources = /var/log/kern.log, journal\nAppMaxBytes = 8M\n");
	char *p = path_join(dir, "attrib.conf");
	ck_assert_int_eq(config_load(p, &c, err), 0);
	fclose(err);
	ck_assert_str_eq(c.state_dir, "/srv/attrib");
	ck_assert_int_eq(c.bundle_deadline, 120);
	ck_assert_str_eq(c.comment_field, "Comment"); /* canonical spelling */
	ck_assert_int_eq(c.nlog_sources, 2);
	ck_assert_str_eq(c.log_sources[1], "journal");
	ck_assert_int_eq(c.app_max_bytes, 8L << 20);
	ck_assert_str_eq(c.listen, "127.0.0.1:7411"); /* default */
	ck_assert(config_has_state(&c, "NODE_FAIL"));
	ck_assert(!config_has_state(&c, "COMPLETED"));
	config_free(&c);
	free(p);
	rmtree(dir);
}
END_TEST

START_TEST(config_rejects_with_line_numbers)
{
	char *dir = tmpdir(), out[2048] = "";
	struct attrib_config c;
	FILE *err = fmemopen(out, sizeof(out), "w");

	write_file(dir, "attrib.conf",
		   "StateDir = relative/path\nBundleDeadlin = 5\nListen = nowhere\n"
		   "CommentField = Notes\nDrainMaxFraction = 3\njust words\n"
		   /* sizes and times that overflow a long (undefined before; fuzz_conf) */
		   "AppMaxBytes = 9999999999999999G\nWindowMargin = 9223372036854775807h\n");
	char *p = path_join(dir, "attrib.conf");
	ck_assert_int_eq(config_load(p, &c, err), -1);
	fclose(err);
	ck_assert_msg(strstr(out, "attrib.conf:1: StateDir must be an absolute path") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "attrib.conf:2: unknown key \"BundleDeadlin\"") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "attrib.conf:3: Listen must be host:port") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "attrib.conf:4: CommentField must be one of") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "attrib.conf:5: DrainMaxFraction") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "attrib.conf:6: expected Key = value") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "attrib.conf:7: AppMaxBytes must be a size") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "attrib.conf:8: WindowMargin must be a number of seconds") != NULL, "%s",
		      out);
	config_free(&c);
	free(p);
	rmtree(dir);
}
END_TEST

/* ---- scoping (engine/scope.c) ---- */

START_TEST(scope_cadence_and_clock_offsets)
{
	double t[] = { 0, 60, 60, 120, 180, 1000 }, off[4];
	double seen[] = { 10, 12, 60, -1 }, one[] = { -1, 5, -1 };

	ck_assert_double_eq_tol(cadence_of(t, 6), 60, 1e-9); /* the median gap, equal times skipped */
	ck_assert_double_eq(cadence_of(t, 2), 0);
	ck_assert(clock_offsets(seen, 4, off));
	ck_assert_double_eq_tol(off[0], -2, 1e-9);
	ck_assert_double_eq_tol(off[1], 0, 1e-9);
	ck_assert_double_eq_tol(off[2], 48, 1e-9);
	ck_assert_double_eq(off[3], 0);		/* not seen: no offset */
	ck_assert(!clock_offsets(one, 3, off)); /* one node says nothing of skew */
}
END_TEST

static attrib_catalog *real_catalog(void)
{
	attrib_catalog *cat = attrib_catalog_load(SRCDIR "/rules", test_options(), stderr);

	ck_assert_ptr_nonnull(cat);
	return cat;
}

static struct json_object *field(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;

	json_object_object_get_ex(o, k, &v);
	return v;
}

/* The symptom of the result with this code (and node, when given). */
static struct json_object *symptom_of(struct json_object *r, const char *code, const char *node)
{
	struct json_object *syms = field(r, "symptoms");

	for (size_t i = 0; syms && i < json_object_array_length(syms); i++) {
		struct json_object *s = json_object_array_get_idx(syms, i);

		if (!strcmp(json_object_get_string(field(s, "code")), code) &&
		    (!node || (field(s, "node") && !strcmp(json_object_get_string(field(s, "node")), node))))
			return s;
	}
	return NULL;
}

static void write_job_json(const char *dir, const char *nodes, const char *state, const char *start,
			   const char *end, const char *ranks)
{
	char buf[4096];

	snprintf(buf, sizeof(buf),
		 "{\"schema\": \"attrib.job/v1\", \"job_id\": \"77\", \"nodes\": %s, \"start_time\": \"%s\","
		 " \"end_time\": \"%s\", \"state\": \"%s\", \"exit_code\": \"%s\", \"ranks\": %s}\n",
		 nodes, start, end, state, strcmp(state, "FAILED") ? "0:15" : "1:0", ranks ? ranks : "[]");
	write_file(dir, "job.json", buf);
}

/* ---- confidence: what supports the verdict ---- */

/* A catalog whose codes differ only in what the engine reads of them: a
 * node fault its rule drains for, a job-scope fault, a specific program
 * error, one tagged repeat-cause, a consequence, a scheduler decision. */
#define CONFIDENCE_RULES \
	"classes:\n" \
	"  - {class: storage, kind: fault, sub_domain: InfraStorage, scope: job, action: none}\n" \
	"  - {class: sched, kind: scheduler, sub_domain: SchedCancelled, scope: job, action: none}\n" \
	"codes:\n" \
	"  - {code: t.fault, class: hw, title: GPU exploded}\n" \
	"  - {code: t.store, class: storage, title: filesystem gone}\n" \
	"  - {code: t.user, class: user, title: config is wrong}\n" \
	"  - {code: t.vague, class: user, title: segmentation fault, tags: [repeat-cause]}\n" \
	"  - {code: t.peer, class: consequence, title: lost its peer}\n" \
	"  - {code: t.cancel, class: sched, title: cancelled by an admin}\n" \
	"extractors:\n" \
	"  - {id: fault, writer: kernel, regex: 'GPU exploded', code: t.fault,\n" \
	"     tests: [{line: 'kernel: GPU exploded'}, {line: 'GPU imploded', none: true}]}\n" \
	"  - {id: store, writer: lustre, regex: 'filesystem gone', code: t.store,\n" \
	"     tests: [{line: 'filesystem gone'}, {line: 'filesystem here', none: true}]}\n" \
	"  - {id: user, source: app, regex: 'config is wrong', code: t.user,\n" \
	"     tests: [{line: 'config is wrong'}, {line: 'config is right', none: true}]}\n" \
	"  - {id: vague, source: app, regex: 'Segmentation fault', code: t.vague,\n" \
	"     tests: [{line: 'Segmentation fault'}, {line: 'Segmentation', none: true}]}\n" \
	"  - {id: peer, source: app, regex: 'lost its peer', code: t.peer,\n" \
	"     tests: [{line: 'lost its peer'}, {line: 'found its peer', none: true}]}\n" \
	"  - {id: cancel, source: scheduler, regex: 'cancelled by an admin', code: t.cancel,\n" \
	"     tests: [{line: 'cancelled by an admin'}, {line: 'cancelled', none: true}]}\n"

static attrib_catalog *confidence_catalog(void)
{
	char *dir = tmpdir();
	attrib_catalog *cat;

	write_file(dir, "00-base.yaml", BASE_RULES);
	write_file(dir, "50-test.yaml", CONFIDENCE_RULES);
	cat = attrib_catalog_load(dir, test_options(), stderr);
	rmtree(dir);
	ck_assert_ptr_nonnull(cat);
	return cat;
}

/* One case of the table below: the job's state, its evidence (file=text,
 * "|" between files) and what the result must say. */
static const struct {
	const char *state, *files, *sub_domain, *confidence, *why;
} levels[] = {
	/* the node's own log, a fault its rule drains for */
	{ "FAILED", "nodes/a/syslog=2025-11-29T08:10:00+00:00 a kernel: GPU exploded\n", "InfraHW", "high",
	  "a fault the node's kernel or root logged" },
	/* one specific error of the program, nothing else */
	{ "FAILED", "app/out=a:1:1 [0] config is wrong\n", "UserCode", "medium",
	  "a specific failure signature in one kind of evidence; nothing else corroborates it" },
	/* ... and on node b its peer lost: a symptom it explains on another node */
	{ "FAILED", "app/out=a:1:1 [0] config is wrong\nb:2:2 [0] lost its peer\n", "UserCode", "high",
	  "the rest of the evidence corroborates it" },
	/* ... the peer lost on its own node corroborates nothing */
	{ "FAILED", "app/out=a:1:1 [0] config is wrong\na:2:2 [0] lost its peer\n", "UserCode", "medium",
	  "nothing else corroborates it" },
	/* a job-scope fault in the node's log alone, then in the job's output too */
	{ "FAILED", "nodes/a/syslog=2025-11-29T08:10:00+00:00 a lustre: filesystem gone\n", "InfraStorage",
	  "medium", "one kind of evidence" },
	{ "FAILED",
	  "nodes/a/syslog=2025-11-29T08:10:00+00:00 a lustre: filesystem gone\n|app/out=a:1:1 [0] filesystem "
	  "gone\n",
	  "InfraStorage", "high", "corroborates" },
	/* a line typical of several failures: low alone, medium with its peer's loss */
	{ "FAILED", "app/out=a:1:1 [0] Segmentation fault\n", "UserCode", "low",
	  "typical of several failures" },
	{ "FAILED", "app/out=a:1:1 [0] Segmentation fault\nb:2:2 [0] lost its peer\n", "UserCode", "medium",
	  "typical of several failures; the rest of the evidence corroborates it" },
	/* the scheduler's word alone */
	{ "CANCELLED", "scheduler/slurmctld.log=[2025-11-29T08:10:00.000] cancelled by an admin\n",
	  "SchedCancelled", "low", "known only from the scheduler" },
	/* two nodes' faults at once, and no cause at all */
	{ "FAILED",
	  "nodes/a/syslog=2025-11-29T08:10:00+00:00 a kernel: GPU "
	  "exploded\n|nodes/b/syslog=2025-11-29T08:10:01+00:00 "
	  "b kernel: GPU exploded\n",
	  "ambiguous", "low", "several causes fit" },
	{ "FAILED", "app/out=b:2:2 [0] lost its peer\n", "unattributed", "low", "no rule names a cause" },
	/* a job that completed, a fault or not */
	{ "COMPLETED", "nodes/a/syslog=2025-11-29T08:10:00+00:00 a kernel: GPU exploded\n", "Pass", "high",
	  "the job record says the job completed" },
};

START_TEST(confidence_levels)
{
	attrib_catalog *cat = confidence_catalog();
	char *dir = tmpdir(), err[256];
	char *files = strdup_or_die(levels[_i].files), *save = NULL;

	write_case_job(dir, levels[_i].state, "[\"a\", \"b\"]");
	for (char *f = strtok_r(files, "|", &save); f; f = strtok_r(NULL, "|", &save)) {
		char *eq = strchr(f, '='), *slash;

		*eq = 0;
		slash = strrchr(f, '/');
		*slash = 0;
		mkdir_p(dir, f);
		*slash = '/';
		write_file(dir, f, eq + 1);
	}
	free(files);
	struct json_object *r = attrib_analyze(cat, dir, NULL, err, sizeof(err));
	ck_assert_msg(r != NULL, "%s", err);
	const char *sub = json_object_get_string(field(r, "sub_domain")),
		   *conf = json_object_get_string(field(r, "confidence")),
		   *ex = json_object_get_string(field(r, "explanation"));
	ck_assert_msg(!strcmp(sub, levels[_i].sub_domain), "case %d: sub_domain %s", _i, sub);
	ck_assert_msg(conf && !strcmp(conf, levels[_i].confidence),
		      "case %d: confidence %s, expected %s (%s)", _i, conf, levels[_i].confidence, ex);
	/* the explanation says it, and why */
	char said[64];
	snprintf(said, sizeof(said), "Confidence %s: ", levels[_i].confidence);
	ck_assert_msg(strstr(ex, said) && strstr(strstr(ex, said), levels[_i].why), "case %d: %s", _i, ex);
	json_object_put(r);
	rmtree(dir);
	attrib_catalog_free(cat);
}
END_TEST

START_TEST(scope_other_node_set_aside)
{
	/* slurmctld speaks of the whole cluster: a node outside the job set
	 * DOWN is not the cause of the job's cancel */
	attrib_catalog *cat = real_catalog();
	char *dir = tmpdir(), err[256];
	struct json_object *r, *s;

	write_job_json(dir, "[\"a\", \"b\"]", "CANCELLED", "2025-11-29T08:00:00Z", "2025-11-29T09:00:00Z",
		       NULL);
	mkdir_p(dir, "scheduler");
	write_file(dir, "scheduler/slurmctld.log",
		   "[2025-11-29T08:30:00.000] error: Nodes zz-99 not responding, setting DOWN\n"
		   "[2025-11-29T09:00:00.000] _slurm_rpc_kill_job: REQUEST_KILL_JOB JobId=77 uid 1000\n");
	r = attrib_analyze(cat, dir, NULL, err, sizeof(err));
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(json_object_get_string(field(r, "sub_domain")), "SchedCancelled");
	ck_assert_int_eq(json_object_array_length(field(r, "culprit_nodes")), 0);
	s = symptom_of(r, "slurm.node_failure", NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(json_object_get_string(field(s, "set_aside")), "not a node of the job");
	ck_assert_str_eq(json_object_get_string(field(s, "role")), "interesting");
	json_object_put(r);
	rmtree(dir);
	attrib_catalog_free(cat);
}
END_TEST

START_TEST(scope_localisation)
{
	attrib_catalog *cat = real_catalog();
	char *dir = tmpdir(), err[256];
	struct json_object *r, *rc;

	/* one node: an application-side GPU error happened there */
	write_job_json(dir, "[\"solo\"]", "FAILED", "2025-11-29T08:00:00Z", "2025-11-29T09:00:00Z", NULL);
	mkdir_p(dir, "app");
	write_file(dir, "app/out", "RuntimeError: CUDA error: uncorrectable ECC error encountered\n");
	r = attrib_analyze(cat, dir, NULL, err, sizeof(err));
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(field(r, "culprit_nodes"), 0)),
			 "solo");
	rc = field(r, "root_cause");
	ck_assert_str_eq(json_object_get_string(field(rc, "located_by")), "the only node of the job");
	json_object_put(r);

	/* several nodes: the rank on the line, through the job's rank map */
	write_job_json(dir, "[\"a\", \"b\"]", "FAILED", "2025-11-29T08:00:00Z", "2025-11-29T09:00:00Z",
		       "[{\"rank\": 0, \"node\": \"a\"}, {\"rank\": 3, \"node\": \"b\"}]");
	write_file(dir, "app/out",
		   "[rank3]: RuntimeError: CUDA error: uncorrectable ECC error encountered\n");
	r = attrib_analyze(cat, dir, NULL, err, sizeof(err));
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(json_object_array_length(field(r, "culprit_nodes")), 1);
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(field(r, "culprit_nodes"), 0)),
			 "b");
	rc = field(r, "root_cause");
	ck_assert_str_eq(json_object_get_string(field(rc, "located_by")),
			 "the rank on the line, through the job's rank map");
	json_object_put(r);
	rmtree(dir);
	attrib_catalog_free(cat);
}
END_TEST

/* A TIMEOUT job whose progress lines (every minute) stop at stop_hm; an Xid
 * 79 on node a at xid_hms. */
static struct json_object *pulse_case(attrib_catalog *cat, const char *dir, int stop_min, const char *xid_hms)
{
	char err[256], *p = path_join(dir, "app/out"), line[256];
	FILE *f;

	write_job_json(dir, "[\"a\", \"b\"]", "TIMEOUT", "2025-11-29T00:00:00Z", "2025-11-29T06:00:00Z",
		       NULL);
	mkdir_p(dir, "app");
	mkdir_p(dir, "nodes/a");
	f = fopen(p, "w");
	for (int m = 5; m <= stop_min; m++)
		fprintf(f, "[2025-11-29 %02d:%02d:00] step %d | loss 2.31 | 190.0 TFLOP/s\n", m / 60, m % 60,
			m);
	fprintf(f, "slurmstepd: error: *** JOB 77 ON a CANCELLED AT 2025-11-29T06:00:00 DUE TO TIME LIMIT ***\n");
	fclose(f);
	free(p);
	snprintf(line, sizeof(line),
		 "2025-11-29T%s+00:00 a kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', "
		 "name=<unknown>, GPU has fallen off the bus.\n",
		 xid_hms);
	write_file(dir, "nodes/a/kern.log", line);
	return attrib_analyze(cat, dir, NULL, err, sizeof(err));
}

START_TEST(scope_progress_survived_and_hang)
{
	attrib_catalog *cat = real_catalog();
	char *dir = tmpdir();
	struct json_object *r, *s, *h;

	/* the job trained an hour past the Xid, then went silent for four:
	 * the fault is set aside, the hang is said, its cause is not known */
	r = pulse_case(cat, dir, 120, "01:00:00");
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(json_object_get_string(field(r, "sub_domain")), "unattributed");
	s = symptom_of(r, "xid.79", "a");
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(json_object_get_string(field(s, "set_aside")),
			 "the job kept making progress after it");
	h = field(r, "hang");
	ck_assert_ptr_nonnull(h);
	ck_assert_str_eq(json_object_get_string(field(h, "since")), "2025-11-29T02:00:00Z");
	ck_assert_double_eq_tol(json_object_get_double(field(h, "cadence_s")), 60, 1e-6);
	ck_assert_ptr_nonnull(strstr(json_object_get_string(field(r, "explanation")), "hung"));
	json_object_put(r);

	/* the same Xid where the pulse stopped: it is the hang's cause */
	r = pulse_case(cat, dir, 120, "02:00:30");
	ck_assert_str_eq(json_object_get_string(field(r, "sub_domain")), "InfraHW");
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(field(r, "culprit_nodes"), 0)),
			 "a");
	ck_assert_ptr_nonnull(field(r, "hang"));
	json_object_put(r);

	/* progress to the end: no hang, the time limit is the verdict */
	r = pulse_case(cat, dir, 359, "05:59:50");
	ck_assert_ptr_null(field(r, "hang"));
	json_object_put(r);
	rmtree(dir);
	attrib_catalog_free(cat);
}
END_TEST

/* Two ranks, each printing its own steps every minute to 02:00; rank 1
 * logs a CUDA error at 01:00 and carries on; the job ends with rank 0's
 * exception, or (again) with rank 1's CUDA error. */
static struct json_object *rank_pulse_case(attrib_catalog *cat, const char *dir, bool again)
{
	char err[256], *p = path_join(dir, "app/out");
	FILE *f;

	write_job_json(dir, "[\"a\", \"b\"]", "FAILED", "2025-11-29T00:00:00Z", "2025-11-29T02:01:00Z",
		       "[{\"rank\": 0, \"node\": \"a\"}, {\"rank\": 1, \"node\": \"b\"}]");
	mkdir_p(dir, "app");
	f = fopen(p, "w");
	for (int m = 5; m <= 120; m++) {
		for (int rank = 0; rank < 2; rank++)
			fprintf(f,
				"[rank%d]: [2025-11-29 %02d:%02d:00] step %d | loss 2.31 | 190.0 TFLOP/s\n",
				rank, m / 60, m % 60, m);
		if (m == 60 || (again && m == 120))
			fprintf(f,
				"[rank1]: RuntimeError: CUDA error: an illegal memory access was "
				"encountered\n");
	}
	if (!again)
		fprintf(f, "[rank0]: ValueError: bad shape\n");
	fclose(f);
	free(p);
	return attrib_analyze(cat, dir, NULL, err, sizeof(err));
}

START_TEST(scope_progress_same_process)
{
	attrib_catalog *cat = real_catalog();
	char *dir = tmpdir();
	struct json_object *r, *s;

	/* rank 1 printed its steps for an hour after its CUDA error: context */
	r = rank_pulse_case(cat, dir, false);
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(json_object_get_string(field(r, "sub_domain")), "UserCode");
	s = symptom_of(r, "cuda.illegal_address", "b");
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(json_object_get_string(field(s, "set_aside")),
			 "the job kept making progress after it");
	json_object_put(r);

	/* the same error again at the end: its last occurrence ended the job */
	r = rank_pulse_case(cat, dir, true);
	ck_assert_ptr_nonnull(r);
	s = symptom_of(r, "cuda.illegal_address", "b");
	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_null(field(s, "set_aside"));
	ck_assert_str_eq(json_object_get_string(field(s, "role")), "root");
	json_object_put(r);
	rmtree(dir);
	attrib_catalog_free(cat);
}
END_TEST

/* A job of one node that printed no progress at all, cancelled; the node's
 * kernel logged a fatal fault in lines without a time of their own (the
 * end of the job stands for it): the cancel follows from the fault, unless
 * the fault is the job's own output's word only. */
START_TEST(correlate_fatal_before_ending)
{
	attrib_catalog *cat = real_catalog();
	char *dir = tmpdir(), err[256];
	struct json_object *r, *s;
	static const char aer[] =
		"pcieport 0000:00:03.0: AER: Uncorrected (Fatal) error received: 0000:00:03.0\n";

	write_job_json(dir, "[\"a\"]", "CANCELLED", "2025-11-29T00:00:00Z", "2025-11-29T06:00:00Z", NULL);
	mkdir_p(dir, "nodes/a");
	mkdir_p(dir, "scheduler");
	write_file(dir, "scheduler/slurmctld.log",
		   "[2025-11-29T05:59:30.000] _slurm_rpc_kill_job: REQUEST_KILL_JOB JobId=77 uid 1000\n");
	write_file(dir, "nodes/a/dmesg.txt", aer);
	r = attrib_analyze(cat, dir, NULL, err, sizeof(err));
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(json_object_get_string(field(r, "sub_domain")), "InfraHW");
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(field(r, "culprit_nodes"), 0)),
			 "a");
	s = symptom_of(r, "slurm.state.cancelled", NULL);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(json_object_get_string(field(s, "role")), "downstream");
	ck_assert_str_eq(json_object_get_string(field(s, "explained_by")), "host.aer_fatal");
	json_object_put(r);
	rmtree(dir);

	/* the same line printed by the job itself: the cancel stands */
	dir = tmpdir();
	write_job_json(dir, "[\"a\"]", "CANCELLED", "2025-11-29T00:00:00Z", "2025-11-29T06:00:00Z", NULL);
	mkdir_p(dir, "app");
	mkdir_p(dir, "scheduler");
	write_file(dir, "scheduler/slurmctld.log",
		   "[2025-11-29T05:59:30.000] _slurm_rpc_kill_job: REQUEST_KILL_JOB JobId=77 uid 1000\n");
	write_file(dir, "app/out", aer);
	r = attrib_analyze(cat, dir, NULL, err, sizeof(err));
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(json_object_get_string(field(r, "sub_domain")), "SchedCancelled");
	json_object_put(r);
	rmtree(dir);
	attrib_catalog_free(cat);
}
END_TEST

/* A task blocked in the kernel, reported an hour into a hang that ends
 * with the time limit: the job's own process (its pid known from NCCL's
 * lines) is why the job never moved again; another program's is not. */
START_TEST(scope_fatal_own_process)
{
	attrib_catalog *cat = real_catalog();

	for (int own = 0; own < 2; own++) {
		char *dir = tmpdir(), err[256], kern[256], *p = path_join(dir, "app/out");
		struct json_object *r, *s;
		FILE *f;

		write_job_json(dir, "[\"a\", \"b\"]", "TIMEOUT", "2025-11-29T00:00:00Z",
			       "2025-11-29T06:00:00Z",
			       "[{\"rank\": 0, \"node\": \"a\", \"gpu\": \"0\"}, {\"rank\": 1, \"node\": "
			       "\"b\", \"gpu\": \"0\"}]");
		mkdir_p(dir, "app");
		mkdir_p(dir, "nodes/a");
		f = fopen(p, "w");
		fprintf(f,
			"a:4101:4101 [0] NCCL INFO comm 0x5555 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId "
			"1b000 commId 0x1 - Init COMPLETE\n"
			"b:4201:4201 [0] NCCL INFO comm 0x5556 rank 1 nranks 2 cudaDev 0 nvmlDev 0 busId "
			"1b000 commId 0x1 - Init COMPLETE\n");
		for (int m = 5; m <= 120; m++)
			fprintf(f, "[2025-11-29 %02d:%02d:00] step %d | loss 2.31 | 190.0 TFLOP/s\n", m / 60,
				m % 60, m);
		fclose(f);
		free(p);
		snprintf(
			kern, sizeof(kern),
			"2025-11-29T03:00:00+00:00 a kernel: INFO: task python3:%s blocked for more than 120 "
			"seconds.\n",
			own ? "4101" : "999");
		write_file(dir, "nodes/a/kern.log", kern);
		r = attrib_analyze(cat, dir, NULL, err, sizeof(err));
		ck_assert_ptr_nonnull(r);
		ck_assert_ptr_nonnull(field(r, "hang"));
		s = symptom_of(r, "host.hung_task", "a");
		ck_assert_ptr_nonnull(s);
		if (own) {
			ck_assert_str_eq(json_object_get_string(field(r, "sub_domain")), "InfraSW");
			ck_assert_ptr_null(field(s, "set_aside"));
			s = symptom_of(r, "slurm.state.timeout", NULL);
			ck_assert_ptr_nonnull(s);
			ck_assert_str_eq(json_object_get_string(field(s, "role")), "downstream");
		} else {
			ck_assert_str_eq(json_object_get_string(field(r, "sub_domain")), "unattributed");
			ck_assert_str_eq(json_object_get_string(field(s, "set_aside")),
					 "after the job had already stopped making progress");
		}
		json_object_put(r);
		rmtree(dir);
	}
	attrib_catalog_free(cat);
}
END_TEST

START_TEST(scope_other_process)
{
	/* two ranks on node a, their processes known from NCCL's busId lines:
	 * an Xid 13 of pid 999 (not the job's) on the job's own GPU is another
	 * program's; the same Xid of rank 1's process is the job's */
	attrib_catalog *cat = real_catalog();
	char *dir = tmpdir(), err[256];
	struct json_object *r, *s;

	for (int own = 0; own < 2; own++) {
		char kern[512];

		write_job_json(dir, "[\"a\", \"b\"]", "FAILED", "2025-11-29T08:00:00Z",
			       "2025-11-29T09:00:00Z",
			       "[{\"rank\": 0, \"node\": \"a\", \"gpu\": \"0\"}, {\"rank\": 1, \"node\": "
			       "\"a\", \"gpu\": \"1\"}]");
		mkdir_p(dir, "app");
		mkdir_p(dir, "nodes/a");
		write_file(dir, "app/out",
			   "a:4101:4101 [0] NCCL INFO comm 0x5555 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId "
			   "1b000 commId 0x1 - Init COMPLETE\n"
			   "a:4102:4102 [1] NCCL INFO comm 0x5556 rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId "
			   "43000 commId 0x1 - Init COMPLETE\n"
			   "[rank0]: ValueError: bad shape\n");
		snprintf(kern, sizeof(kern),
			 "2025-11-29T08:30:00+00:00 a kernel: NVRM: Xid (PCI:0000:43:00): 13, pid=%s, "
			 "name=python3, Graphics SM Warp Exception on (GPC 1, TPC 0, SM 1): Out Of Range "
			 "Address\n",
			 own ? "4102" : "999");
		write_file(dir, "nodes/a/kern.log", kern);
		r = attrib_analyze(cat, dir, NULL, err, sizeof(err));
		ck_assert_ptr_nonnull(r);
		s = symptom_of(r, "xid.13", "a");
		ck_assert_ptr_nonnull(s);
		if (own)
			ck_assert_ptr_null(field(s, "set_aside"));
		else
			ck_assert_str_eq(json_object_get_string(field(s, "set_aside")),
					 "another program's (its process is not one of the job's)");
		ck_assert_str_eq(json_object_get_string(field(r, "sub_domain")), "UserCode");
		json_object_put(r);
	}
	rmtree(dir);
	attrib_catalog_free(cat);
}
END_TEST

START_TEST(scope_clock_skew_orders_nodes)
{
	/* c's clock is 40 s ahead (its slurmd logged the step launch 40 s after
	 * a's and b's): corrected, its Xid comes before a's */
	attrib_catalog *cat = real_catalog();
	char *dir = tmpdir(), err[256];
	const char *names[] = { "a", "b", "c" };
	struct json_object *r;

	write_job_json(dir, "[\"a\", \"b\", \"c\"]", "FAILED", "2025-11-29T08:00:00Z", "2025-11-29T08:30:00Z",
		       NULL);
	for (int i = 0; i < 3; i++) {
		char rel[64], text[1024];

		snprintf(rel, sizeof(rel), "nodes/%s", names[i]);
		mkdir_p(dir, rel);
		snprintf(rel, sizeof(rel), "nodes/%s/syslog", names[i]);
		snprintf(text, sizeof(text),
			 "2025-11-29T08:00:%02d+00:00 %s slurmd[9]: slurmd: launch task StepId=77.0 request "
			 "from UID:1000 GID:1000 HOST:10.0.0.1 PORT:4000\n%s",
			 i == 2 ? 41 : 1, names[i],
			 i == 0 ? "2025-11-29T08:10:10+00:00 a kernel: NVRM: Xid (PCI:0000:1b:00): 79, "
				  "pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
				 : i == 2 ? "2025-11-29T08:10:30+00:00 c kernel: NVRM: Xid (PCI:0000:1b:00): "
					    "48, pid='<unknown>', name=<unknown>, An uncorrectable double "
					    "bit error (DBE) has been detected on GPU.\n"
					  : "");
		write_file(dir, rel, text);
	}
	r = attrib_analyze(cat, dir, NULL, err, sizeof(err));
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(field(r, "culprit_nodes"), 0)),
			 "c");
	ck_assert_double_eq_tol(json_object_get_double(field(field(r, "clock_offsets"), "c")), 40, 1e-6);
	json_object_put(r);
	rmtree(dir);
	attrib_catalog_free(cat);
}
END_TEST

/* ---- text_clean (common/text.c): the one cleaning routine ---- */

START_TEST(text_clean_hostile)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "plain ASCII, é and 漢字", "plain ASCII, é and 漢字" },
		{ "a\nforged line", "a?forged line" },
		{ "cr\rlf\n", "cr?lf?" },
		{ "\x1b[2J\x1b]0;title\x07red", "?[2J?]0;title?red" },
		{ "tab\there", "tab here" },
		{ "del\x7f", "del?" },
		{ "c1 \xc2\x9b"
		  "31m csi",
		  "c1 ?31m csi" }, /* U+009B, an 8-bit CSI */
		{ "\xe2\x80\xae"
		  "evil\xe2\x80\xac",
		  "?evil?" }, /* RLO ... PDF */
		{ "\xe2\x81\xa6x\xe2\x81\xa9 \xe2\x80\x8e\xe2\x80\x8f \xd8\x9c", "?x? ?? ?" },
		{ "bad \xff\xc0\xaf end", "bad \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd end" },
		{ "surrogate \xed\xa0\x80", "surrogate \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "cut \xe2\x80", "cut \xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xe2\x80\x8d zwj stays", "\xe2\x80\x8d zwj stays" }, /* not a bidi control */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *c = text_clean(cases[i].in, strlen(cases[i].in), 1000);

		ck_assert_msg(!strcmp(c, cases[i].out), "case %zu: got \"%s\"", i, c);
		ck_assert(text_is_clean(c, strlen(c)));
		free(c);
	}
	ck_assert(!text_is_clean("a\x1b", 2));
	/* a NUL inside the field is a control too */
	char *c = text_clean("a\0b", 3, 100);
	ck_assert_str_eq(c, "a?b");
	free(c);
	/* cut at max, at a character's start, then an ellipsis */
	c = text_clean("ééé", 6, 3);
	ck_assert_str_eq(c, "éé…");
	free(c);
	/* the engine's text_sanitise keeps its first-line rule and uses it */
	const char *ln = "line\xe2\x80\xae \xc2\x85\r";

	c = text_sanitise(ln, strlen(ln), 100);
	ck_assert_str_eq(c, "line? ?");
	free(c);
}
END_TEST

/* attrib.conf refused as MUNGE refuses its key (common/conf.c open_checked) */
static void expect_refused(const char *path, const char *why)
{
	char out[1024] = "";
	struct attrib_config c;
	FILE *err = fmemopen(out, sizeof(out), "w");

	ck_assert_int_eq(config_load(path, &c, err), -1);
	fclose(err);
	ck_assert_msg(strstr(out, why) != NULL, "%s: expected \"%s\", got: %s", path, why, out);
	config_free(&c);
}

START_TEST(config_refuses_unsafe_files)
{
	char *dir = tmpdir(), out[1024] = "";
	struct attrib_config c;
	FILE *err;

	write_file(dir, "attrib.conf", "StateDir = /srv/attrib\n");
	char *p = path_join(dir, "attrib.conf"), *l = path_join(dir, "link.conf");

	chmod(p, 0666);
	expect_refused(p, "writable by every user; refused");
	chmod(p, 0664);
	if (chown(p, (uid_t)-1, 65534) == 0) /* nogroup */
		expect_refused(p, "writable by a group other than root's; refused");
	if (geteuid() == 0) {
		ck_assert_int_eq(chown(p, 65534, 0), 0); /* nobody */
		chmod(p, 0644);
		expect_refused(p, "owned by another user");
		ck_assert_int_eq(chown(p, 0, 0), 0);
		chmod(p, 0664); /* group-writable by root's group: accepted */
		err = fmemopen(out, sizeof(out), "w");
		ck_assert_int_eq(config_load(p, &c, err), 0);
		fclose(err);
		ck_assert_str_eq(c.state_dir, "/srv/attrib");
		config_free(&c);
	}
	chmod(p, 0644);
	ck_assert_int_eq(symlink(p, l), 0);
	expect_refused(l, "is a symbolic link; refused");
	expect_refused(dir, "is a directory"); /* was: every default, silently */
	char *fifo = path_join(dir, "fifo.conf");
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	expect_refused(fifo, "is not a regular file"); /* and never blocks */
	char *none = path_join(dir, "none.conf");
	expect_refused(none, "No such file");
	/* the file itself, as it is, is fine */
	err = fmemopen(out, sizeof(out), "w");
	ck_assert_int_eq(config_load(p, &c, err), 0);
	fclose(err);
	config_free(&c);
	free(p);
	free(l);
	free(fifo);
	free(none);
	rmtree(dir);
}
END_TEST

/* ---- a batch job's output paths (common/stdio_path.c; t/fname-oracle
 * checks the same against Slurm's own fname_create) ---- */

static char *expand(const struct stdio_job *r, const char *pat)
{
	char err[256] = "";
	char *p = stdio_expand(r, pat, err, sizeof(err));

	ck_assert_msg(p, "%s: %s", pat, err);
	return p;
}

#define ck_path(r, pat, want) \
	do { \
		char *got_ = expand(r, pat); \
		ck_assert_str_eq(got_, want); \
		free(got_); \
	} while (0)

START_TEST(stdio_patterns)
{
	struct stdio_job plain = { .job_id = 4242,
				   .array_task_id = STDIO_NO_TASK,
				   .work_dir = "/home/kim/run",
				   .host = "node-07",
				   .user = "kim",
				   .name = "train" };
	struct stdio_job arr = plain;
	char err[256], *p, *q;

	arr.job_id = 4251;
	arr.array_job_id = 4242;
	arr.array_task_id = 17;
	/* every conversion of the batch step, zero padding, %%, literals */
	ck_path(&plain, "out-%j-%x.txt", "/home/kim/run/out-4242-train.txt");
	ck_path(&plain, "/abs/%u/%N-%J.%s-%t-%n", "/abs/kim/node-07-4242.batch-0-0");
	ck_path(&plain, "%8j%%%z", "/home/kim/run/00004242%%z");
	ck_path(&plain, "%A_%a", "/home/kim/run/4242_4294967294");
	ck_path(&arr, "slurm-%A_%4a.out", "/home/kim/run/slurm-4242_0017.out");
	/* %b, the array task id modulo 10: Slurm 24.11 and later */
	arr.slurm_version = STDIO_PCT_B_SINCE;
	ck_path(&arr, "r%b", "/home/kim/run/r7");
	arr.slurm_version = 0;
	ck_path(&arr, "r%b", "/home/kim/run/r7");
	arr.slurm_version = 0x160508; /* 22.05.8 keeps it as written */
	ck_path(&arr, "r%b", "/home/kim/run/r%b");
	/* a number other than 0 is the one task that writes it: not the batch script */
	ck_path(&plain, "3", "/dev/null");
	ck_path(&plain, "/dev/null", "/dev/null");
	ck_path(&plain, "0", "/home/kim/run/0");
	/* a backslash: taken literally, and Slurm puts no '/' after the directory */
	ck_path(&plain, "o\\%j", "/home/kim/runo%j");
	/* a value the caller does not have is an error, never a guess */
	plain.name = NULL;
	ck_assert_ptr_null(stdio_expand(&plain, "%x.out", err, sizeof(err)));
	ck_assert_str_eq(err, "%x: the job's name is not known");
	ck_path(&plain, "%j.out", "/home/kim/run/4242.out");
	plain.array_unknown = true;
	ck_assert_ptr_null(stdio_expand(&plain, "%a.out", err, sizeof(err)));
	ck_assert_ptr_null(stdio_default(&plain, err, sizeof(err)));
	plain.array_unknown = false;
	plain.work_dir = NULL;
	ck_assert_ptr_null(stdio_expand(&plain, "rel.out", err, sizeof(err)));
	ck_path(&plain, "/abs.out", "/abs.out");

	/* -e defaults to -o's pattern; both to slurm-%J.out (an array task's
	 * slurm-%A_%a.out), as batch_stepd_step_rec_create does */
	plain.work_dir = "/w";
	ck_assert_int_eq(stdio_paths(&plain, NULL, NULL, &p, &q, err, sizeof(err)), 0);
	ck_assert_str_eq(p, "/w/slurm-4242.out");
	ck_assert_str_eq(q, "/w/slurm-4242.out");
	free(p);
	free(q);
	ck_assert_int_eq(stdio_paths(&arr, NULL, NULL, &p, &q, err, sizeof(err)), 0);
	ck_assert_str_eq(p, "/home/kim/run/slurm-4242_17.out");
	free(p);
	free(q);
	ck_assert_int_eq(stdio_paths(&plain, "o-%j", NULL, &p, &q, err, sizeof(err)), 0);
	ck_assert_str_eq(q, "/w/o-4242");
	free(p);
	free(q);
	ck_assert_int_eq(stdio_paths(&plain, NULL, "e-%j", &p, &q, err, sizeof(err)), 0);
	ck_assert_str_eq(p, "/w/slurm-4242.out");
	ck_assert_str_eq(q, "/w/e-4242");
	free(p);
	free(q);
	ck_assert_int_eq(stdio_paths(&plain, "o", "%x", &p, &q, err, sizeof(err)), -1);
	ck_assert_ptr_null(p);
	ck_assert_ptr_null(q);
}
END_TEST

START_TEST(config_refuses_odd_numbers)
{
	static const char *bad[] = {
		"DrainMaxFraction = nan",   "DrainMaxFraction = NaN",	 "DrainMaxFraction = inf",
		"DrainMaxFraction = -0",    "DrainMaxFraction = 0x1p-3", "DrainMaxFraction = 5e-2",
		"DrainMaxFraction = 0.05x", "DrainMaxFraction = .",	 "DrainMaxFraction = 0.0.5",
		"WindowMargin = -5",	    "WindowMargin = +5",	 "WindowMargin = 5 s",
		"BundleDeadline = -0",	    "AppMaxBytes = 5Mjunk",	 "DrainMaxPerHour = 2.5",
		"DrainMaxPerHour = -1",	    "Listen = 127.0.0.1:+80",
	};
	char *dir = tmpdir();

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		char line[128], out[1024] = "";
		struct attrib_config c;
		FILE *err = fmemopen(out, sizeof(out), "w");

		snprintf(line, sizeof(line), "%s\n", bad[i]);
		write_file(dir, "attrib.conf", line);
		char *p = path_join(dir, "attrib.conf");
		ck_assert_msg(config_load(p, &c, err) == -1, "accepted: %s", bad[i]);
		fclose(err);
		ck_assert_msg(strstr(out, "attrib.conf:1: ") != NULL, "%s: %s", bad[i], out);
		config_free(&c);
		free(p);
	}
	/* what is meant stays accepted */
	char out[1024] = "";
	struct attrib_config c;
	FILE *err = fmemopen(out, sizeof(out), "w");

	write_file(dir, "attrib.conf",
		   "DrainMaxFraction = 0.25\nWindowMargin = 0\nAppMaxBytes = 5M\n"
		   "DrainMaxPerHour = 0\n");
	char *p = path_join(dir, "attrib.conf");
	ck_assert_msg(config_load(p, &c, err) == 0, "%s", out);
	fclose(err);
	ck_assert(c.drain_max_fraction == 0.25);
	config_free(&c);
	free(p);
	rmtree(dir);
}
END_TEST

/* ---- the job record: its one writer and its one reader agree ---- */

START_TEST(job_record_round_trip)
{
	char *nodes[] = { strdup_or_die("node-01"), strdup_or_die("node-02") };
	struct attrib_job_record r = {
		.job_id = 4242,
		.cluster = "c1",
		.user = "kim\xff", /* not UTF-8: repaired */
		.uid = 1000,
		.gid = -1, /* not known: absent */
		.submit = 1795939200,
		.start = 0, /* never started: its end */
		.end = 1795942800,
		.state = "FAILED",
		.exit_status = 3 << 8,	  /* exited 3 */
		.derived_exit_status = 9, /* killed by signal 9 */
		.time_limit = 1500,	  /* minutes */
		.array_task_id = JOB_RECORD_NO_VAL,
		.attempt = 1,
		.restart_count = 1,
		.std_out = "/home/kim/slurm-4242.out",
		.gpus = 8,
	};
	struct job_record_view v;
	struct json_object *o, *a;
	char err[256], *line;
	size_t len = 0;

	ck_assert(job_record_add_node(&r, nodes[0]) && job_record_add_node(&r, nodes[1]));
	line = job_record_json(&r, &len);
	ck_assert_ptr_nonnull(line);
	ck_assert_uint_eq(len, strlen(line));
	ck_assert(strchr(line, '\n') == line + len - 1); /* one line */
	o = json_tokener_parse(line);
	ck_assert_msg(job_record_read(o, &v, err, sizeof(err)), "%s", err);
	ck_assert_str_eq(v.job_id, "4242");
	ck_assert_str_eq(v.state, "FAILED");
	ck_assert_str_eq(v.user, "kim\xef\xbf\xbd");
	ck_assert_str_eq(v.exit_code, "3:0");
	ck_assert_str_eq(v.derived_exit_code, "0:9");
	ck_assert_str_eq(v.start_time, v.end_time);
	ck_assert_str_eq(v.end_time, "2026-11-29T09:00:00Z");
	ck_assert_int_eq(v.uid, 1000);
	ck_assert_int_eq(v.gid, -1);
	ck_assert_int_eq(v.attempt, 1);
	ck_assert_int_eq(v.gpus, 8);
	ck_assert_int_eq(json_object_array_length(v.nodes), 2);
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(v.nodes, 1)), "node-02");
	ck_assert_str_eq(json_str(o, "time_limit"), "1-01:00:00");
	ck_assert(!json_object_object_get_ex(o, "array_task_id", &a));
	ck_assert(!v.reconciled && !v.std_out_guessed);
	json_object_put(o);
	free(line);

	r.time_limit = JOB_RECORD_INFINITE;
	r.exit_status = JOB_RECORD_NO_VAL;
	r.reconciled = true;
	r.gpus = -1; /* not known: absent */
	line = job_record_json(&r, NULL);
	o = json_tokener_parse(line);
	ck_assert(!json_object_object_get_ex(o, "gpus", &a));
	ck_assert_str_eq(json_str(o, "time_limit"), "UNLIMITED");
	ck_assert(json_object_object_get_ex(o, "exit_code", &a) && a == NULL);
	ck_assert(job_record_read(o, &v, err, sizeof(err)) && v.reconciled);
	json_object_put(o);
	free(line);
	job_record_free_nodes(&r);
	ck_assert(r.nodes == NULL && r.nnodes == 0);

	/* what the engine requires, with its messages */
	o = json_tokener_parse("{\"schema\":\"attrib.job/v1\",\"job_id\":\"1\",\"state\":\"FAILED\","
			       "\"nodes\":[\"a/b\"],\"start_time\":\"x\",\"end_time\":\"y\"}");
	ck_assert(!job_record_read(o, &v, err, sizeof(err)));
	ck_assert_str_eq(err, "nodes[0] is not a host name");
	ck_assert_str_eq(v.state, "FAILED"); /* what it has is still there */
	json_object_put(o);
}
END_TEST

/* the GPU count of a job's allocated TRES, as each writer reads it */
START_TEST(job_tres_gpu_count)
{
	ck_assert_int_eq(job_tres_count("cpu=2,mem=4G,node=1,billing=2,gres/gpu=8", "gres/gpu"), 8);
	/* a typed count beside it is not the total */
	ck_assert_int_eq(job_tres_count("cpu=1,gres/gpu:a100=2,gres/gpu=3", "gres/gpu"), 3);
	ck_assert_int_eq(job_tres_count("cpu=1,gres/gpu:a100=2", "gres/gpu"), -1);
	ck_assert_int_eq(job_tres_count("1=2,2=4096,4=1,1001=4", "1001"), 4);
	ck_assert_int_eq(job_tres_count("1=2,11001=4", "1001"), -1);
	ck_assert_int_eq(job_tres_count("gres/gpu=x", "gres/gpu"), -1);
	ck_assert_int_eq(job_tres_count(NULL, "gres/gpu"), -1);
	/* absent: 0 when gres/gpu is accounted, else not known */
	ck_assert_int_eq(job_tres_gpus("cpu=1,mem=1G", "gres/gpu", true), 0);
	ck_assert_int_eq(job_tres_gpus("cpu=1,mem=1G", "gres/gpu", false), -1);
	ck_assert_int_eq(job_tres_gpus("", "gres/gpu", true), -1);
	ck_assert_int_eq(job_tres_gpus("cpu=1,gres/gpu=2", "gres/gpu", false), 2);
	ck_assert(job_tres_accounts_gpu("cpu,mem,gres/gpu"));
	ck_assert(job_tres_accounts_gpu("gres/gpu:a100,cpu"));
	ck_assert(!job_tres_accounts_gpu("cpu,mem,gres/gpus,energy"));
	ck_assert(!job_tres_accounts_gpu(NULL));
}
END_TEST

/* An event's fields: values beyond the inline bytes spill into a buffer
 * of the event's own; a value taken from the event itself survives that
 * move; a copy owns its bytes; past EVENT_MAX_FIELDS fields are dropped;
 * a field set again holds its new value. */
START_TEST(event_fields)
{
	struct event ev = { 0 }, copy;
	char big[1000], name[EVENT_MAX_FIELDS + 4][8];

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	event_set(&ev, "task", "7", 1);
	event_set(&ev, "rank", event_field(&ev, "task"), 1);
	event_set(&ev, "big", big, strlen(big));
	ck_assert_ptr_nonnull(ev.f.spill);
	event_set(&ev, "again", event_field(&ev, "big"), strlen(big));
	ck_assert_str_eq(event_field(&ev, "rank"), "7");
	ck_assert_str_eq(event_field(&ev, "again"), big);
	event_set(&ev, "task", "12", 2);
	ck_assert_str_eq(event_field(&ev, "task"), "12");
	event_copy(&copy, &ev);
	event_clear(&ev);
	ck_assert_str_eq(event_field(&copy, "big"), big);
	ck_assert_str_eq(event_field(&copy, "task"), "12");
	for (int i = 0; i < EVENT_MAX_FIELDS + 4; i++) {
		snprintf(name[i], sizeof(name[i]), "f%d", i);
		event_set(&copy, name[i], "v", 1);
	}
	ck_assert_int_eq(copy.f.n, EVENT_MAX_FIELDS);
	ck_assert_ptr_null(event_field(&copy, name[EVENT_MAX_FIELDS + 3]));
	ck_assert_str_eq(event_field(&copy, "rank"), "7");
	event_clear(&copy);
}
END_TEST

/* The engine's options from an environment: what the command and the
 * service pass, so that every variable keeps meaning what it did when
 * the engine read it itself. */
static const char *const *fake_env;

static char *fake_getenv(const char *name)
{
	for (int i = 0; fake_env[i]; i += 2)
		if (!strcmp(fake_env[i], name))
			return (char *)fake_env[i + 1];
	return NULL;
}

START_TEST(options_from_environment)
{
	static const char *const none[] = { NULL }, *const set[] = { "ATTRIB_THREADS",
								     "3",
								     "ATTRIB_CHUNK_BYTES",
								     "300",
								     "ATTRIB_CACHE",
								     "/c",
								     NULL },
				 *const zero[] = { "ATTRIB_THREADS",
						   "0",
						   "ATTRIB_CHUNK_BYTES",
						   "0",
						   "ATTRIB_CACHE",
						   "",
						   NULL },
				 *const words[] = { "ATTRIB_THREADS",
						    "many",
						    "ATTRIB_CHUNK_BYTES",
						    "-5",
						    "XDG_CACHE_HOME",
						    "/x",
						    "HOME",
						    "/h",
						    NULL },
				 *const home[] = { "ATTRIB_THREADS", "", "HOME", "/h", NULL };
	struct attrib_options o;
	char big[5000];

	fake_env = none;
	o = attrib_options_env(fake_getenv);
	ck_assert_int_eq(o.threads, 0); /* the processors online */
	ck_assert_uint_eq(o.chunk_bytes, 0);
	ck_assert_str_eq(o.cache_dir, geteuid() == 0 ? "/var/cache/attrib" : "");
	fake_env = set;
	o = attrib_options_env(fake_getenv);
	ck_assert_int_eq(o.threads, 3);
	ck_assert_uint_eq(o.chunk_bytes, 300);
	ck_assert_str_eq(o.cache_dir, "/c");
	fake_env = zero; /* a thread at least; the default chunk; no cache */
	o = attrib_options_env(fake_getenv);
	ck_assert_int_eq(o.threads, 1);
	ck_assert_uint_eq(o.chunk_bytes, 0);
	ck_assert_str_eq(o.cache_dir, "");
	fake_env = words;
	o = attrib_options_env(fake_getenv);
	ck_assert_int_eq(o.threads, 1);
	ck_assert_uint_eq(o.chunk_bytes, 0);
	ck_assert_str_eq(o.cache_dir, geteuid() == 0 ? "/var/cache/attrib" : "/x/attrib");
	fake_env = home;
	o = attrib_options_env(fake_getenv);
	ck_assert_int_eq(o.threads, 0);
	ck_assert_str_eq(o.cache_dir, geteuid() == 0 ? "/var/cache/attrib" : "/h/.cache/attrib");
	/* a directory whose name does not fit is no cache, not another one */
	memset(big, 'd', sizeof(big) - 1);
	big[0] = '/';
	big[sizeof(big) - 1] = '\0';
	const char *const long_dir[] = { "ATTRIB_CACHE", big, NULL };
	fake_env = long_dir;
	o = attrib_options_env(fake_getenv);
	ck_assert_str_eq(o.cache_dir, "");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("engine");
	TCase *t;

	t = tcase_create("timestamps");
	tcase_add_test(t, time_rfc3339_syslog);
	tcase_add_test(t, time_offsets);
	tcase_add_test(t, time_rfc3164);
	tcase_add_test(t, time_dmesg_t);
	tcase_add_test(t, time_slurmctld_bracketed);
	tcase_add_test(t, time_glog_and_app);
	tcase_add_test(t, time_named_zone);
	tcase_add_test(t, time_no_timestamp);
	tcase_add_test(t, time_format_roundtrip);
	suite_add_tcase(s, t);

	t = tcase_create("identity");
	tcase_add_test(t, identity_names);
	tcase_add_test(t, pci_forms);
	tcase_add_test(t, hostlists);
	suite_add_tcase(s, t);

	t = tcase_create("job");
	tcase_add_test(t, job_required_fields);
	tcase_add_test(t, job_invalid_json);
	suite_add_tcase(s, t);

	t = tcase_create("rules");
	tcase_add_test(t, rules_valid);
	tcase_add_test(t, rules_broken_regex);
	tcase_add_test(t, rules_missing_id);
	tcase_add_test(t, rules_failing_case);
	tcase_add_test(t, rules_unknown_key_and_code);
	tcase_add_test(t, rules_duplicate_key);
	tcase_add_test(t, rules_refiner_as_and_sources);
	tcase_add_test(t, selector_sources_all_lines);
	tcase_add_test(t, rules_missing_negative_case);
	tcase_add_test(t, rules_refiner_case_fails);
	tcase_add_test(t, rules_yaml_syntax);
	suite_add_tcase(s, t);

	t = tcase_create("text");
	tcase_add_test(t, text_clean_hostile);
	suite_add_tcase(s, t);
	t = tcase_create("config");
	tcase_add_test(t, config_defaults_and_values);
	tcase_add_test(t, config_rejects_with_line_numbers);
	tcase_add_test(t, config_refuses_unsafe_files);
	tcase_add_test(t, config_refuses_odd_numbers);
	tcase_add_test(t, options_from_environment);
	suite_add_tcase(s, t);
	t = tcase_create("stdio");
	tcase_add_test(t, stdio_patterns);
	suite_add_tcase(s, t);

	t = tcase_create("pipeline");
	tcase_add_test(t, extract_priority_and_prefixes);
	tcase_add_test(t, symptoms_collapse);
	tcase_add_test(t, window_drops_old_events);
	tcase_add_test(t, first_cause_and_ambiguity);
	tcase_add_test(t, large_log_window_seek);
	tcase_add_test(t, refiner_marks_downstream);
	tcase_add_test(t, missing_node_is_coverage);
	tcase_add_test(t, completed_is_pass);
	tcase_add_loop_test(t, confidence_levels, 0, sizeof(levels) / sizeof(*levels));
	suite_add_tcase(s, t);

	t = tcase_create("scope");
	tcase_add_test(t, scope_cadence_and_clock_offsets);
	tcase_add_test(t, scope_other_node_set_aside);
	tcase_add_test(t, scope_localisation);
	tcase_add_test(t, scope_progress_survived_and_hang);
	tcase_add_test(t, scope_progress_same_process);
	tcase_add_test(t, correlate_fatal_before_ending);
	tcase_add_test(t, scope_fatal_own_process);
	tcase_add_test(t, scope_clock_skew_orders_nodes);
	tcase_add_test(t, scope_other_process);
	tcase_set_timeout(t, 60);
	suite_add_tcase(s, t);

	t = tcase_create("formats");
	tcase_add_test(t, job_record_round_trip);
	tcase_add_test(t, job_tres_gpu_count);
	tcase_add_test(t, event_fields);
	suite_add_tcase(s, t);

	return run_suite(s);
}
