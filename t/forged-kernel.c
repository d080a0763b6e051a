/* Security: any user can write a line that says "kernel: NVRM: Xid ..." on
 * a node of their job (logger -t kernel, logger -t alice, systemd-cat -t
 * kernel, logger --journald SYSLOG_IDENTIFIER=kernel, a file a log source
 * lists).  Each such line, as it lands in a case directory built by
 * attrib serve (a node file with its origin in evidence.json), must never
 * become a GPU fault: no drain, no culprit that was not one without it.
 *
 * The cases are built here, with the shipped rule catalog.  On an engine
 * that ignores evidence.json every forged line is an Xid 79 on node n1:
 * n1 becomes the culprit and is drained, which is what these tests refuse. */
#include <json-c/json.h>
#include "testutil.h"

static attrib_catalog *cat;

#define FORGED "NVRM: Xid (PCI:0000:61:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
#define REAL_XID \
	"2025-11-29T08:12:01.000000+00:00 n2 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', " \
	"name=<unknown>, GPU has fallen off the bus.\n"

/* How each forgery lands in a case: the node file its collector puts it
 * in, that file's origin, the line. */
static const struct variant {
	const char *how, *file, *origin, *line;
} variants[] = {
	{ "logger -t kernel, read from /var/log/syslog", "syslog", "file",
	  "2025-11-29T08:05:00+00:00 n1 kernel: " FORGED "\n" },
	{ "logger -t alice (the user's own tag), read from /var/log/messages", "messages", "file",
	  "Nov 29 08:05:00 n1 alice: kernel: " FORGED "\n" },
	{ "logger -t kernel, read from the journal", "journal-user.log", "journal-user",
	  "2025-11-29T08:05:00.000000+00:00 n1 [_UID=1000 _COMM=logger] kernel[4242]: " FORGED "\n" },
	{ "systemd-cat -t kernel, read from the journal", "journal-user.log", "journal-user",
	  "2025-11-29T08:05:00.000000+00:00 n1 [_UID=1000 _COMM=python3] kernel[4243]: " FORGED "\n" },
	{ "logger --journald SYSLOG_IDENTIFIER=kernel, read from the journal", "journal-user.log",
	  "journal-user",
	  "2025-11-29T08:05:00.000000+00:00 n1 [_UID=1000 _COMM=logger] kernel: " FORGED "\n" },
	{ "a plain line in a file a log source lists", "gpu-health.log", "file",
	  "2025-11-29T08:05:00Z " FORGED "\n" },
	{ "a root process's journal entry named kernel", "journal.log", "journal",
	  "2025-11-29T08:05:00.000000+00:00 n1 [_UID=0 _COMM=sh] kernel: " FORGED "\n" },
};
#define NVARIANTS ((int)(sizeof(variants) / sizeof(*variants)))

static void setup(void)
{
	char rules[4096];

	snprintf(rules, sizeof(rules), "%s",
		 getenv("ATTRIB_RULES") ? getenv("ATTRIB_RULES") : SRCDIR "/rules");
	cat = attrib_catalog_load(rules, test_options(), stderr);
	ck_assert_ptr_nonnull(cat);
}

static void teardown(void)
{
	attrib_catalog_free(cat);
}

static const char *str(struct json_object *o, const char *k)
{
	return json_object_get_string(json_member(o, k));
}

/* A two-node job (rank 0 on n1, rank 1 on n2) whose rank 1 raised a
 * KeyError: a user's bug, nobody's hardware. */
static char *user_case(void)
{
	char *dir = tmpdir();

	write_file(dir, "job.json",
		   "{\"schema\": \"attrib.job/v1\", \"job_id\": \"77\", \"nodes\": [\"n1\", \"n2\"],"
		   " \"start_time\": \"2025-11-29T08:00:00Z\", \"end_time\": \"2025-11-29T08:20:00Z\","
		   " \"state\": \"FAILED\", \"exit_code\": \"1:0\", \"ranks\": ["
		   "{\"rank\": 0, \"node\": \"n1\", \"gpu\": \"0\"}, {\"rank\": 1, \"node\": \"n2\", "
		   "\"gpu\": \"0\"}]}\n");
	mkdir_p(dir, "app");
	write_file(dir, "app/slurm-77.out",
		   "[rank1]: Traceback (most recent call last):\n"
		   "[rank1]:   File \"/w/train.py\", line 10, in <module>\n"
		   "[rank1]: KeyError: 'labels'\n");
	mkdir_p(dir, "nodes/n1");
	mkdir_p(dir, "nodes/n2");
	write_file(dir, "nodes/n1/kernel.log",
		   "2025-11-29T08:00:01.000000+00:00 n1 kernel: usb 1-1: new device\n");
	write_file(dir, "nodes/n2/kernel.log",
		   "2025-11-29T08:00:01.000000+00:00 n2 kernel: usb 1-1: new device\n");
	return dir;
}

/* evidence.json as attrib serve writes it: the kernel logs and, when v is
 * given, the forged file with its origin. */
static void manifest(const char *dir, const struct variant *v)
{
	char buf[1024];

	snprintf(buf, sizeof(buf),
		 "{\"files\": {\"nodes/n1/kernel.log\": {\"origin\": \"kernel\"},"
		 " \"nodes/n2/kernel.log\": {\"origin\": \"kernel\"}%s%s%s%s%s}}\n",
		 v ? ", \"nodes/n1/" : "", v ? v->file : "", v ? "\": {\"origin\": \"" : "",
		 v ? v->origin : "", v ? "\"}" : "");
	write_file(dir, "evidence.json", buf);
}

static void forge(const char *dir, const struct variant *v)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "nodes/n1/%s", v->file);
	write_file(dir, rel, v->line);
}

static struct json_object *analyze(const char *dir)
{
	char err[256];
	struct json_object *r = attrib_analyze(cat, dir, NULL, err, sizeof(err));

	ck_assert_msg(r != NULL, "%s", err);
	return r;
}

static bool has_action(struct json_object *r, const char *node, const char *what)
{
	struct json_object *a = json_member(r, "actions");

	for (size_t i = 0; i < json_object_array_length(a); i++) {
		struct json_object *x = json_object_array_get_idx(a, i);

		if ((!node || !strcmp(str(x, "node"), node)) && !strcmp(str(x, "action"), what))
			return true;
	}
	return false;
}

static bool has_xid(struct json_object *r)
{
	struct json_object *s = json_member(r, "symptoms");

	for (size_t i = 0; i < json_object_array_length(s); i++)
		if (!strncmp(str(json_object_array_get_idx(s, i), "code"), "xid.", 4))
			return true;
	return false;
}

static const char *culprits(struct json_object *r)
{
	return json_object_to_json_string_ext(json_member(r, "culprit_nodes"), JSON_C_TO_STRING_PLAIN);
}

/* A user's bug stays a user's bug, whatever they wrote on the node. */
START_TEST(forged_xid_blames_nobody)
{
	const struct variant *v = &variants[_i];
	char *dir = user_case();
	struct json_object *before, *after;
	char *want_sub, *want_culprits;

	manifest(dir, NULL);
	before = analyze(dir);
	want_sub = strdup_or_die(str(before, "sub_domain"));
	want_culprits = strdup_or_die(culprits(before));
	ck_assert_str_eq(want_sub, "UserCode");
	ck_assert_str_eq(want_culprits, "[]");
	json_object_put(before);

	forge(dir, v);
	manifest(dir, v);
	after = analyze(dir);
	ck_assert_msg(!strcmp(str(after, "sub_domain"), want_sub), "%s: sub_domain %s, was %s", v->how,
		      str(after, "sub_domain"), want_sub);
	ck_assert_msg(!strcmp(culprits(after), want_culprits), "%s: culprits %s", v->how, culprits(after));
	ck_assert_msg(!has_action(after, NULL, "drain"), "%s: a drain", v->how);
	ck_assert_msg(!has_xid(after), "%s: an Xid symptom", v->how);
	json_object_put(after);
	free(want_sub);
	free(want_culprits);
	rmtree(dir);
}
END_TEST

/* A real Xid on n2 (from the kernel) stays the cause; an earlier forged one
 * on n1 moves nothing. */
START_TEST(forged_xid_moves_no_culprit)
{
	const struct variant *v = &variants[_i];
	char *dir = user_case();
	struct json_object *r, *rc;

	write_file(dir, "nodes/n2/kernel.log", REAL_XID);
	forge(dir, v);
	manifest(dir, v);
	r = analyze(dir);
	ck_assert_msg(!strcmp(culprits(r), "[\"n2\"]"), "%s: culprits %s", v->how, culprits(r));
	rc = json_member(r, "root_cause");
	ck_assert_str_eq(str(rc, "code"), "xid.79");
	ck_assert_str_eq(str(rc, "device"), "PCI:0000:3b:00");
	ck_assert(json_member(rc, "trust") == NULL);
	ck_assert_msg(has_action(r, "n2", "drain"), "%s: the real fault is not drained", v->how);
	ck_assert_msg(!has_action(r, "n1", "drain") && !has_action(r, "n1", "inspect"), "%s: n1 acted on",
		      v->how);
	ck_assert_int_eq(json_object_array_length(json_member(r, "actions")), 1);
	json_object_put(r);
	rmtree(dir);
}
END_TEST

/* A case without evidence.json (an analyst's, by hand) is read as before:
 * the same line is an Xid there.  (Also what every forgery did before.) */
START_TEST(unlisted_files_are_trusted_as_before)
{
	char *dir = user_case();
	struct json_object *r;

	forge(dir, &variants[0]);
	r = analyze(dir);
	ck_assert_str_eq(culprits(r), "[\"n1\"]");
	ck_assert(has_action(r, "n1", "drain"));
	json_object_put(r);
	/* listed: the kernel's own file is read by the kernel rules */
	manifest(dir, &(struct variant){ "", "syslog", "kernel", "" });
	r = analyze(dir);
	ck_assert_str_eq(culprits(r), "[\"n1\"]");
	ck_assert(has_action(r, "n1", "drain"));
	json_object_put(r);
	rmtree(dir);
}
END_TEST

/* A fault a rule may read from any file (the fabric manager's log), seen
 * only where anyone may write: never preferred to a cause the evidence
 * vouches for (the job's own exception), and when it is all there is,
 * named but "unauthenticated", of low confidence and inspected, never
 * drained.  The same line from a root journal entry drains, with high
 * confidence. */
START_TEST(unauthenticated_fault_is_inspected_not_drained)
{
	static const char *const fm = "2025-11-29T08:05:00.000000+00:00 n1 [_UID=%s _COMM=nv-fabricmanager] "
				      "nv-fabricmanager[1533]: "
				      "detected NVSwitch fatal error 12001 on fid 0 on NVSwitch pci bus id "
				      "00000000:07:00.0 physical id 1 port 20\n";
	static const char *const origins[] = { "file", "journal-user", "journal" };

	for (int alone = 0; alone < 2; alone++)
		for (int i = 0; i < 3; i++) {
			char *dir = user_case(), line[512];
			struct variant v = { "", i ? "journal-user.log" : "fabricmanager.log", origins[i],
					     line };
			struct json_object *r, *rc;
			bool trusted = i == 2;

			if (alone) /* the forged line is the only fault */
				write_file(dir, "app/slurm-77.out", "training...\n");
			if (trusted)
				v.file = "journal.log";
			snprintf(line, sizeof(line), fm, trusted ? "0" : "1000");
			forge(dir, &v);
			manifest(dir, &v);
			r = analyze(dir);
			rc = json_member(r, "root_cause");
			ck_assert_ptr_nonnull(rc);
			if (!trusted && !alone) {
				/* the user's own exception stays the cause */
				ck_assert_msg(!strcmp(str(rc, "code"), "py.exception"), "%s: root %s",
					      origins[i], str(rc, "code"));
				ck_assert_str_eq(culprits(r), "[]");
				ck_assert_msg(!has_action(r, NULL, "drain"), "%s: drained", origins[i]);
				json_object_put(r);
				rmtree(dir);
				continue;
			}
			ck_assert_str_eq(str(rc, "code"), "fm.nvswitch_fatal");
			ck_assert_str_eq(culprits(r), "[\"n1\"]");
			if (trusted) {
				ck_assert(json_member(rc, "trust") == NULL);
				ck_assert(has_action(r, "n1", "drain"));
				/* root's journal entry of a fault its rule drains for */
				ck_assert_str_eq(str(r, "confidence"), "high");
			} else {
				ck_assert_msg(str(rc, "trust") &&
						      !strcmp(str(rc, "trust"), "unauthenticated"),
					      "%s", origins[i]);
				ck_assert_msg(!has_action(r, NULL, "drain"), "%s: drained", origins[i]);
				ck_assert(has_action(r, "n1", "inspect"));
				ck_assert_msg(!strcmp(str(r, "confidence"), "low"), "%s: confidence %s",
					      origins[i], str(r, "confidence"));
				ck_assert_ptr_nonnull(
					strstr(str(r, "explanation"),
					       "not proof of a fault, so the action is inspect, not drain"));
				ck_assert_str_eq(str(json_object_array_get_idx(json_member(r, "symptoms"), 0),
						     "trust"),
						 "unauthenticated");
			}
			json_object_put(r);
			rmtree(dir);
		}
}
END_TEST

/* A kernel message that another program's line quotes whole (a monitoring
 * tool's alert forwarding syslog) is read, but its writer is that program:
 * unauthenticated, never the cause beside the job's own exception, never
 * drained; alone, the node is inspected.  Inside the kernel's own message
 * (a mount option a user chose, in the collector's form or dmesg's) the
 * same quote is the user's string and gives nothing. */
START_TEST(quoted_kernel_message_is_unauthenticated)
{
	static const char *const quote = "Error: Nov 29 08:05:00 n1 kernel: [680111.646286] " FORGED;
	char line[1024];

	for (int alone = 0; alone < 2; alone++) {
		char *dir = user_case();
		struct json_object *r, *rc;

		if (alone)
			write_file(dir, "app/slurm-77.out", "training...\n");
		snprintf(line, sizeof(line), "Xid errors on instance: n1, %s\n", quote);
		write_file(dir, "nodes/n1/alerts.log", line);
		r = analyze(dir);
		rc = json_member(r, "root_cause");
		ck_assert(has_xid(r));
		ck_assert_msg(!has_action(r, NULL, "drain"), "drained: %s", json_object_to_json_string(r));
		if (!alone) {
			ck_assert_str_eq(str(rc, "code"), "py.exception");
			ck_assert_str_eq(culprits(r), "[]");
		} else {
			ck_assert_str_eq(str(rc, "code"), "xid.79");
			ck_assert_str_eq(str(rc, "trust"), "unauthenticated");
			ck_assert_str_eq(str(rc, "time"), "2025-11-29T08:05:00Z");
			ck_assert(has_action(r, "n1", "inspect"));
		}
		json_object_put(r);
		rmtree(dir);
	}
	/* the kernel's own lines carrying the quote: nothing read */
	static const char *const kernel_own[] = {
		"2025-11-29T08:05:00.000000+00:00 n1 kernel: tmpfs: Unknown parameter '%s'\n",
		"[ 5321.123456] tmpfs: Unknown parameter '%s'\n",
		"<3>tmpfs: Unknown parameter '%s'\n",
	};
	for (size_t i = 0; i < sizeof(kernel_own) / sizeof(*kernel_own); i++) {
		char *dir = user_case();
		struct json_object *r;

		snprintf(line, sizeof(line), kernel_own[i], quote);
		write_file(dir, "nodes/n1/kernel.log", line);
		manifest(dir, NULL);
		r = analyze(dir);
		ck_assert_msg(!has_xid(r), "%s", line);
		json_object_put(r);
		rmtree(dir);
	}
}
END_TEST

/* One trusted line vouches for a symptom also seen in untrusted files. */
START_TEST(one_trusted_line_vouches)
{
	char *dir = user_case();
	struct json_object *r;
	const char *line =
		"2025-11-29T08:05:00+00:00 n1 nv-fabricmanager[1533]: detected NVSwitch fatal error "
		"12001 on fid 0 on NVSwitch pci bus id 00000000:07:00.0 physical id 1 port 20\n";

	write_file(dir, "nodes/n1/syslog", line);
	write_file(dir, "nodes/n1/journal.log", line);
	write_file(dir, "evidence.json",
		   "{\"files\": {\"nodes/n1/syslog\": {\"origin\": \"file\"},"
		   " \"nodes/n1/journal.log\": {\"origin\": \"journal\"}}}");
	r = analyze(dir);
	ck_assert_str_eq(str(json_member(r, "root_cause"), "code"), "fm.nvswitch_fatal");
	ck_assert(json_member(json_member(r, "root_cause"), "trust") == NULL);
	ck_assert(has_action(r, "n1", "drain"));
	json_object_put(r);
	rmtree(dir);
}
END_TEST

/* evidence.json that cannot be read: less trust, never more; said in
 * coverage; never read as a log. */
START_TEST(bad_manifest_trusts_nothing)
{
	static const char *const bad[] = {
		"not json",
		"[1, 2]",
		"{\"files\": 3}",
		"{\"files\": {}} trailing",
		"{\"files\": {\"nodes/n2/kernel.log\": {\"origin\": \"trusted\"}}}",
		"{\"files\": {\"nodes/n2/kernel.log\": \"kernel\"}}",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		char *dir = user_case();
		struct json_object *r, *cov;
		bool said = false;

		write_file(dir, "nodes/n2/kernel.log", REAL_XID);
		write_file(dir, "evidence.json", bad[i]);
		r = analyze(dir);
		ck_assert_msg(!has_action(r, NULL, "drain"), "%s: drained", bad[i]);
		ck_assert_msg(!has_xid(r), "%s: an Xid from a file of unknown origin", bad[i]);
		cov = json_member(r, "coverage");
		for (size_t k = 0; k < json_object_array_length(cov); k++) {
			struct json_object *c = json_object_array_get_idx(cov, k);

			said |= (!strcmp(str(c, "source"), "evidence.json") ||
				 !strcmp(str(c, "source"), "nodes/n2/kernel.log")) &&
				!strcmp(str(c, "status"), "error");
		}
		ck_assert_msg(said, "%s: no coverage entry", bad[i]);
		json_object_put(r);
		rmtree(dir);
	}
	/* a symlink or a directory in its place */
	char *dir = user_case();
	struct json_object *r;
	char *p = path_join(dir, "evidence.json");

	write_file(dir, "nodes/n2/kernel.log", REAL_XID);
	mkdir(p, 0755);
	r = analyze(dir);
	ck_assert(!has_action(r, NULL, "drain"));
	json_object_put(r);
	rmdir(p);
	ck_assert_int_eq(symlink("/etc/passwd", p), 0);
	r = analyze(dir);
	ck_assert(!has_action(r, NULL, "drain"));
	json_object_put(r);
	free(p);
	rmtree(dir);
}
END_TEST

START_TEST(manifest_is_not_a_log)
{
	char *dir = user_case();
	struct json_object *r;

	manifest(dir, NULL);
	/* an Xid-like text inside the manifest itself */
	write_file(dir, "evidence.json",
		   "{\"files\": {\"nodes/n1/kernel.log\": {\"origin\": \"kernel\", \"note\": "
		   "\"2025-11-29T08:05:00+00:00 n1 kernel: " FORGED "\"}}}\n");
	r = analyze(dir);
	ck_assert(!has_xid(r));
	ck_assert_str_eq(culprits(r), "[]");
	ck_assert_int_eq(json_object_get_int(json_member(json_member(r, "engine"), "files")),
			 4); /* app, 2 nodes, job.json */
	json_object_put(r);
	rmtree(dir);
}
END_TEST

/* origin: kernel in a rule: only for node rules; only kernel or any. */
START_TEST(origin_key_checked)
{
	static const char *const bad[] = {
		"  - id: x\n    source: app\n    origin: kernel\n",
		"  - id: x\n    source: node\n    origin: root\n",
	};

	for (size_t i = 0; i < 2; i++) {
		char *d = tmpdir(), rule[2048], *out = NULL;
		size_t len = 0;
		FILE *err = open_memstream(&out, &len);

		snprintf(rule, sizeof(rule), "%s%s%s", BASE_RULES,
			 "codes:\n  - {code: t.fault, class: hw, title: GPU exploded}\nextractors:\n",
			 bad[i]);
		snprintf(rule + strlen(rule), sizeof(rule) - strlen(rule),
			 "    regex: 'GPU exploded'\n    code: t.fault\n    tests:\n      - line: 'GPU "
			 "exploded'\n"
			 "      - line: 'no'\n        none: true\n");
		write_file(d, "r.yaml", rule);
		char *p = path_join(d, "r.yaml");
		attrib_catalog *c = attrib_catalog_load(p, test_options(), err);
		fclose(err);
		ck_assert_ptr_null(c);
		ck_assert_msg(strstr(out, "origin"), "%s", out);
		free(out);
		free(p);
		rmtree(d);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("forged-kernel");
	TCase *tc = tcase_create("forged");
	SRunner *sr;
	int failed;

	tcase_add_unchecked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, forged_xid_blames_nobody, 0, NVARIANTS);
	tcase_add_loop_test(tc, forged_xid_moves_no_culprit, 0, NVARIANTS);
	tcase_add_test(tc, unlisted_files_are_trusted_as_before);
	tcase_add_test(tc, unauthenticated_fault_is_inspected_not_drained);
	tcase_add_test(tc, one_trusted_line_vouches);
	tcase_add_test(tc, quoted_kernel_message_is_unauthenticated);
	tcase_add_test(tc, bad_manifest_trusts_nothing);
	tcase_add_test(tc, manifest_is_not_a_log);
	tcase_add_test(tc, origin_key_checked);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
