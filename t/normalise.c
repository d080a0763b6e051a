/* The forms real logs come in (issue 23: as people post them): each is
 * read by the shipped catalog through the one path a scan takes
 * (line_extract: normalisation, the node line's header and message, the
 * prefixes), and the evidence a result shows is the original line. */
#include <json-c/json.h>
#include "testutil.h"

static attrib_catalog *cat;

#define XID "NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
#define CUDA "RuntimeError: CUDA error: an illegal memory access was encountered"

static void setup(void)
{
	cat = attrib_catalog_load(getenv("ATTRIB_RULES") ? getenv("ATTRIB_RULES") : SRCDIR "/rules", stderr);
	ck_assert_ptr_nonnull(cat);
}

static void teardown(void)
{
	attrib_catalog_free(cat);
}

static void expect(const char *line, int source, const char *code, const char *field, const char *value,
		   double when)
{
	struct event ev;
	const char *got = code_of(cat, line, source, &ev);

	ck_assert_msg(got && !strcmp(got, code), "%s: got %s, want %s", line, got ? got : "nothing", code);
	if (field) {
		const char *v = event_field(&ev, field);

		ck_assert_msg(v && !strcmp(v, value), "%s: %s=%s, want %s", line, field, v ? v : "(none)",
			      value);
	}
	if (when > 0) {
		ck_assert_msg(ev.has_time, "%s: no time", line);
		ck_assert_msg(ev.time > when - 0.5 && ev.time < when + 0.5, "%s: time %.3f, want %.3f", line,
			      ev.time, when);
	}
	event_clear(&ev);
}

/* 2025-11-29T08:12:01Z */
#define T0 1764403921.0

START_TEST(ansi_colour)
{
	expect("\x1b[1;31m" CUDA "\x1b[0m", SRC_APP, "cuda.illegal_address", NULL, NULL, 0);
	expect("\x1b[31m[rank3]:\x1b[0m " CUDA "\x1b[K", SRC_APP, "cuda.illegal_address", "rank", "3", 0);
}
END_TEST

START_TEST(crlf_and_progress_bar)
{
	expect(CUDA "\r", SRC_APP, "cuda.illegal_address", NULL, NULL, 0);
	expect("epoch 1:  10%|#         | 10/100\repoch 1:  20%|##        | 20/100\r" CUDA, SRC_APP,
	       "cuda.illegal_address", NULL, NULL, 0);
}
END_TEST

START_TEST(rsyslog_escapes)
{
	/* a multi-line message that rsyslog kept on one line */
	expect("Nov 29 08:12:01 n1 kernel: " XID "#012 #011more", SRC_NODE, "xid.79", "pci", "0000:3b:00",
	       T0);
	expect("Traceback (most recent call last):#012  File \"t.py\", line 1#012" CUDA, SRC_APP,
	       "cuda.illegal_address", NULL, NULL, 0);
}
END_TEST

START_TEST(launcher_prefixes)
{
	expect("[1,15]<stderr>:" CUDA, SRC_APP, "cuda.illegal_address", "rank", "15",
	       0);								/* mpirun --tag-output */
	expect(" 12: " CUDA, SRC_APP, "cuda.illegal_address", "task", "12", 0); /* srun --label */
	expect("[7] " CUDA, SRC_APP, "cuda.illegal_address", "rank", "7", 0); /* mpiexec -prepend-rank, -l */
	expect("[default3]:" CUDA, SRC_APP, "cuda.illegal_address", "local_rank", "3",
	       0); /* torchrun --tee */
	/* a kubelet's CRI log: its time is the line's */
	expect("2025-11-29T08:12:01.123456789Z stderr F " CUDA, SRC_APP, "cuda.illegal_address", NULL, NULL,
	       T0 + 0.123);
	/* pdsh/clush before a node's log line */
	expect("node-02: Nov 29 08:12:01 node-02 kernel: " XID, SRC_NODE, "xid.79", NULL, NULL, T0);
	expect("node-02: [ 5321.123456] " XID, SRC_NODE, "xid.79", NULL, NULL, 0);
	/* talosctl dmesg: host, facility, level, an RFC 3339 time */
	expect("10.0.0.7: kern: warning: [2025-11-29T08:12:01.599488292Z]: " XID, SRC_NODE, "xid.79", NULL,
	       NULL, T0 + 0.599);
}
END_TEST

START_TEST(dmesg_forms)
{
	expect("[Sat Nov 29 08:12:01 2025] " XID, SRC_NODE, "xid.79", NULL, NULL, T0);	 /* -T */
	expect("[ 5321.123456] " XID, SRC_NODE, "xid.79", NULL, NULL, 0);		 /* default */
	expect("[  +0.000123] " XID, SRC_NODE, "xid.79", NULL, NULL, 0);		 /* -d, -H */
	expect("[Nov29 08:12] " XID, SRC_NODE, "xid.79", NULL, NULL, T0 - 1);		 /* -H */
	expect(XID, SRC_NODE, "xid.79", NULL, NULL, 0);					 /* -t */
	expect("kern  :err   : [ 5321.123456] " XID, SRC_NODE, "xid.79", NULL, NULL, 0); /* -x */
	expect("<3>[ 5321.123456] " XID, SRC_NODE, "xid.79", NULL, NULL, 0);		 /* -r */
}
END_TEST

START_TEST(syslog_forms)
{
	/* RFC 3164: no year, no zone (the year from the job, UTC) */
	expect("Nov 29 08:12:01 n1 kernel: [ 5321.123456] " XID, SRC_NODE, "xid.79", NULL, NULL, T0);
	expect("2025-11-29T08:12:01.000000+00:00 n1 kernel: " XID, SRC_NODE, "xid.79", NULL, NULL, T0);
	expect("2025-11-29T08:12:01+0000 n1 kernel: " XID, SRC_NODE, "xid.79", NULL, NULL,
	       T0); /* short-iso */
	expect("kernel: " XID, SRC_NODE, "xid.79", NULL, NULL, 0);
	expect("n1 kernel: " XID, SRC_NODE, "xid.79", NULL, NULL, 0);
}
END_TEST

/* what only looks like a header is not taken off: the driver's own "NVRM:"
 * is no syslog tag, and a user's tag is not the kernel */
START_TEST(not_headers)
{
	struct event ev;

	ck_assert_ptr_null(code_of(cat, "Nov 29 08:12:01 n1 alice[4242]: " XID, SRC_NODE, &ev));
	/* a process's name at the start of the kernel's segfault line */
	expect("EDAC MC0: 1 UE[4242]: segfault at 0 ip 0 sp 0 error 4 in a.out[400000+1000]", SRC_NODE,
	       "host.user_segfault", "comm", "EDAC MC0: 1 UE", 0);
}
END_TEST

/* The result shows the line as the file holds it: the colours, the CR
 * and the rsyslog escape are still there. */
START_TEST(evidence_is_the_original)
{
	char *dir = tmpdir(), err[256];

	write_file(dir, "job.json",
		   "{\"schema\": \"attrib.job/v1\", \"job_id\": \"9\", \"nodes\": [\"n1\"],"
		   " \"start_time\": \"2025-11-29T08:00:00Z\", \"end_time\": \"2025-11-29T08:20:00Z\","
		   " \"state\": \"FAILED\", \"exit_code\": \"1:0\"}\n");
	mkdir_p(dir, "app");
	write_file(dir, "app/slurm-9.out", "[1,0]<stderr>:\x1b[31m" CUDA "\x1b[0m\r\n");
	mkdir_p(dir, "nodes/n1");
	write_file(dir, "nodes/n1/syslog", "Nov 29 08:12:01 n1 kernel: [ 5321.123456] " XID "#012next\n");

	struct json_object *r = attrib_analyze(cat, dir, err, sizeof(err)), *syms;
	bool app = false, node = false;

	ck_assert_msg(r != NULL, "%s", err);
	syms = get(r, "symptoms");
	for (size_t i = 0; i < json_object_array_length(syms); i++) {
		struct json_object *s = json_object_array_get_idx(syms, i), *e = get(s, "evidence");
		const char *code = json_object_get_string(get(s, "code"));
		const char *text = json_object_get_string(get(json_object_array_get_idx(e, 0), "text"));

		if (!strcmp(code, "cuda.illegal_address")) {
			app = strstr(text, "[31m") && strstr(text, "[1,0]<stderr>:");
			ck_assert_msg(app, "evidence %s", text);
		}
		if (!strcmp(code, "xid.79")) {
			node = strstr(text, "#012next") && strstr(text, "[ 5321.123456]");
			ck_assert_msg(node, "evidence %s", text);
		}
	}
	ck_assert_msg(app && node, "%s", json_object_to_json_string(r));
	json_object_put(r);
	rmtree(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("normalise");
	TCase *t = tcase_create("forms");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, ansi_colour);
	tcase_add_test(t, crlf_and_progress_bar);
	tcase_add_test(t, rsyslog_escapes);
	tcase_add_test(t, launcher_prefixes);
	tcase_add_test(t, dmesg_forms);
	tcase_add_test(t, syslog_forms);
	tcase_add_test(t, not_headers);
	tcase_add_test(t, evidence_is_the_original);
	suite_add_tcase(s, t);
	return run_suite(s);
}
