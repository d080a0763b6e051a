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
	cat = attrib_catalog_load(getenv("ATTRIB_RULES") ? getenv("ATTRIB_RULES") : SRCDIR "/rules",
				  test_options(), stderr);
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

	struct json_object *r = attrib_analyze(cat, dir, NULL, err, sizeof(err)), *syms;
	bool app = false, node = false;

	ck_assert_msg(r != NULL, "%s", err);
	syms = json_member(r, "symptoms");
	for (size_t i = 0; i < json_object_array_length(syms); i++) {
		struct json_object *s = json_object_array_get_idx(syms, i), *e = json_member(s, "evidence");
		const char *code = json_object_get_string(json_member(s, "code"));
		const char *text = json_object_get_string(
			json_member(json_object_array_get_idx(e, 0), "text"));

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

/* Docker's json-file log driver: one JSON object a line, its "log" a JSON
 * string (escapes decoded: a quote, a tab, colour as \u001b), its time the
 * line's */
START_TEST(docker_json_file)
{
	expect("{\"log\":\"" CUDA "\\n\",\"stream\":\"stderr\",\"time\":\"2025-11-29T08:12:01.123456789Z\"}",
	       SRC_APP, "cuda.illegal_address", NULL, NULL, T0 + 0.123);
	expect("{\"log\":\"\\u001b[31m[rank3]:\\u001b[0m\\t" CUDA
	       "\\r\\n\",\"stream\":\"stdout\",\"time\":\"2025-11-29T08:"
	       "12:01Z\"}",
	       SRC_APP, "cuda.illegal_address", "rank", "3", T0);
	/* a quote escaped in JSON: the rule reads the quote */
	expect("{\"log\":\"slurmstepd: error: pyxis: error: a container with name \\\"train\\\" does not "
	       "exist\\n\","
	       "\"stream\":\"stderr\",\"time\":\"2025-11-29T08:12:01Z\"}",
	       SRC_APP, "pyxis.container_missing", "container", "train", T0);
	/* --log-opt labels: other members are no matter */
	expect("{\"log\":\"" CUDA
	       "\\n\",\"stream\":\"stderr\",\"attrs\":{\"tag\":\"trainer\"},\"time\":\"2025-11-29T08:12:"
	       "01Z\"}",
	       SRC_APP, "cuda.illegal_address", NULL, NULL, T0);
	/* a line that only begins like one is read as it is */
	expect("{\"log\":\"" CUDA, SRC_APP, "cuda.illegal_address", NULL, NULL, 0);
}
END_TEST

/* kubectl logs --timestamps: RFC 3339 with nanoseconds, a space, the line */
START_TEST(kubectl_timestamps)
{
	expect("2025-11-29T08:12:01.123456789Z " CUDA, SRC_APP, "cuda.illegal_address", NULL, NULL,
	       T0 + 0.123);
	expect("2025-11-29T08:12:01.123456789Z [rank5]: " CUDA, SRC_APP, "cuda.illegal_address", "rank", "5",
	       T0 + 0.123);
	expect("2025-11-29T08:12:01.000000001+00:00  3: " CUDA, SRC_APP, "cuda.illegal_address", "task", "3",
	       T0);
}
END_TEST

/* journalctl's -o forms of a kernel line */
START_TEST(journald_forms)
{
	expect("Nov 29 08:12:01 n1 kernel: " XID, SRC_NODE, "xid.79", NULL, NULL, T0); /* short */
	expect("2025-11-29T08:12:01+0000 n1 kernel: " XID, SRC_NODE, "xid.79", NULL, NULL,
	       T0); /* short-iso */
	expect("2025-11-29T08:12:01+00:00 n1 kernel: " XID, SRC_NODE, "xid.79", NULL, NULL, T0);
	expect("Nov 29 08:12:01.123456 n1 kernel: " XID, SRC_NODE, "xid.79", NULL, NULL,
	       T0 + 0.123); /* short-precise */
	expect("2025-11-29T08:12:01.123456+0000 n1 kernel: " XID, SRC_NODE, "xid.79", NULL, NULL,
	       T0 + 0.123);							     /* short-iso-precise */
	expect("[ 5321.123456] n1 kernel: " XID, SRC_NODE, "xid.79", NULL, NULL, 0); /* short-monotonic */
	/* and a user's line in each is no kernel's */
	struct event ev;

	ck_assert_ptr_null(code_of(cat, "Nov 29 08:12:01.123456 n1 alice[4242]: " XID, SRC_NODE, &ev));
	ck_assert_ptr_null(
		code_of(cat, "2025-11-29T08:12:01.123456+0000 n1 alice[4242]: " XID, SRC_NODE, &ev));
	ck_assert_ptr_null(code_of(cat, "[ 5321.123456] n1 alice[4242]: " XID, SRC_NODE, &ev));
}
END_TEST

/* ---- messages broken over lines (unwrap.c) ---- */

/* the text's broken messages: how many, the first one joined (NULL: none) */
static char *joined(const char *text, int source, int *n)
{
	static char out[UNWRAP_BYTES + 1];
	struct timectx t = { .ref = 1764403200.0, .tz = NULL };
	struct unwrap u;
	size_t len = strlen(text);
	char *r = NULL;

	*n = unwrap_find(&t, text, len, 0, len, source, &u);
	if (*n)
		r = strndup(out, unwrap_join(&u, text, &u.v[0], out, sizeof(out)));
	unwrap_free(&u);
	return r;
}

/* text cut into lines of width columns (a terminal's cut), each ended by eol */
static char *cut(const char *text, size_t width, const char *eol)
{
	size_t n = strlen(text), o = 0;
	char *r = malloc(2 * n + 64);

	for (size_t i = 0; i < n; i += width) {
		size_t k = n - i < width ? n - i : width;

		memcpy(r + o, text + i, k);
		o += k;
		o += (size_t)sprintf(r + o, "%s", eol);
	}
	r[o] = 0;
	return r;
}

#define KHDR "Nov 29 08:12:01 n1 kernel: "

/* a terminal of 80 columns cut the kernel's line mid-word: the message
 * as the driver printed it, which the Xid rule reads */
START_TEST(unwrap_terminal_cut)
{
	const char *eols[] = { "\n", "\r\n" };

	for (int k = 0; k < 2; k++) {
		char *text = cut(KHDR XID, 80, eols[k]), *j;
		int n;

		j = joined(text, SRC_NODE, &n);
		ck_assert_int_eq(n, 1);
		ck_assert_str_eq(j, KHDR XID);
		expect(j, SRC_NODE, "xid.79", "pci", "0000:3b:00", T0);
		free(j);
		free(text);
	}
}
END_TEST

/* a poster's client cut at a space and dropped it (72 columns): one space
 * again; a journal's indentation of a continuation taken out */
START_TEST(unwrap_cut_at_space)
{
	char *j;
	int n;

	j = joined(KHDR "NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU\n"
			"has fallen off the bus.\n",
		   SRC_NODE, &n);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(j, KHDR XID);
	free(j);
	/* the continuation begins with a capital, as the month of the
	 * headers does */
	j = joined(
		"Nov 28 23:59:59 n1 kernel: NVRM: loading NVIDIA UNIX x86_64 Kernel Module 550.54.15\n"
		"Nov 29 08:12:01 n1 kernel: NVRM:\nXid (PCI:0000:3b:00): 79, pid='<unknown>', "
		"name=<unknown>, GPU has "
		"fallen off the bus.\nNov 29 08:12:02 n1 kernel: NVRM: GPU at PCI:0000:3b:00: GPU-1e0f2a77\n",
		SRC_NODE, &n);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(j, KHDR XID);
	free(j);
	j = joined("[ 5321.123456] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>,\n"
		   "               GPU has fallen off the bus.\n"
		   "[ 5321.223456] NVRM: GPU at PCI:0000:3b:00: GPU-1e0f2a77\n",
		   SRC_NODE, &n);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(j, "[ 5321.123456] " XID);
	expect(j, SRC_NODE, "xid.79", NULL, NULL, 0);
	free(j);
}
END_TEST

/* a line with a header of its own is a message of its own: it never goes
 * on the line before, whoever wrote it (a user's line after a kernel
 * line cut short); a user's indented continuation goes on the user's own
 * line, whose writer is not the kernel */
START_TEST(unwrap_never_another_writer)
{
	struct event ev;
	char *j;
	int n;

	j = joined(KHDR "NVRM: Xid (PCI:0000:3b:00): \n"
			"Nov 29 08:12:01 n1 alice: 79, pid='<unknown>', name=<unknown>, GPU has fallen off "
			"the bus.\n",
		   SRC_NODE, &n);
	ck_assert_int_eq(n, 0);
	ck_assert_ptr_null(j);
	j = joined(KHDR "NVRM: Xid (PCI:0000:3b:00): 13, Graphics Exception: ESR 0x50\n"
			"Nov 29 08:12:02 n1 alice[4242]: hello\n"
			"                                " XID "\n",
		   SRC_NODE, &n);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(j, "Nov 29 08:12:02 n1 alice[4242]: hello " XID);
	ck_assert_ptr_null(code_of(cat, j, SRC_NODE, &ev));
	event_clear(&ev);
	free(j);
	/* a line without a header begins no message: the rest of one cut
	 * before the file's first line, or after an empty line */
	j = joined("ng (2663 > 2500), lowering kernel.perf_event_max_sample_rate to 79750\n"
		   "=collector.go:169 level=info msg=\"collector succeeded\" name=nvidia\n" KHDR XID "\n\n"
		   "more\n",
		   SRC_NODE, &n);
	ck_assert_int_eq(n, 0);
	/* a line of no header in a file of none, not at a terminal's width */
	j = joined("NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU\nhas fallen off the "
		   "bus.\n",
		   SRC_NODE, &n);
	ck_assert_int_eq(n, 0);
	free(j);
}
END_TEST

/* application output: only a terminal's cut, when no line is wider (ANSI
 * colour takes no column); an empty line ends a message */
START_TEST(unwrap_app_terminal)
{
	/* the cut falls inside "unspecified" */
	char *text = cut(" 3: gpu-0001.cluster.example.org:4242:4300 [3] NCCL WARN Cuda failure 'unspecified "
			 "launch "
			 "failure'",
			 80, "\n"),
	     *j, *wider, *coloured;
	struct event ev;
	int n;

	text[80] = 0;
	/* the first line alone: only a CUDA error */
	ck_assert_str_eq(code_of(cat, text, SRC_APP, &ev), "cuda.error");
	event_clear(&ev);
	text[80] = '\n';
	j = joined(text, SRC_APP, &n);
	ck_assert_int_eq(n, 1);
	expect(j, SRC_APP, "cuda.launch_failure", "task", "3", 0);
	free(j);
	ck_assert_int_gt(asprintf(&wider, "%s%081d\n", text, 0), 0);
	j = joined(wider, SRC_APP, &n);
	ck_assert_int_eq(n, 0);
	ck_assert_int_gt(asprintf(&coloured, "\x1b[31m%s\x1b[0m", text), 0);
	free(j);
	j = joined(coloured, SRC_APP, &n);
	ck_assert_int_eq(n, 1);
	free(j);
	free(wider);
	free(coloured);
	free(text);
	/* a NCCL WARN whose message a poster put on the next line (NCCL
	 * prints no WARN without one); not a line that begins a message */
	j = joined("step 3 loss 2.1\ngpu-0001:4242:4300 [3] enqueue.cc:1320 NCCL WARN\r\n"
		   "Cuda failure 'unspecified launch failure'\r\nstep 4\n",
		   SRC_APP, &n);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(
		j,
		"gpu-0001:4242:4300 [3] enqueue.cc:1320 NCCL WARN Cuda failure 'unspecified launch failure'");
	expect(j, SRC_APP, "cuda.launch_failure", "gpu", "3", 0);
	free(j);
	j = joined("gpu-0001:4242:4300 [3] NCCL WARN\ngpu-0001:4242:4300 [3] NCCL INFO comm 0x1 rank 3\n",
		   SRC_APP, &n);
	ck_assert_int_eq(n, 0);
	/* a line that merely has the width, not cut inside a word */
	j = joined("slurmstepd: error: *** JOB 612044 ON ares-g01 CANCELLED AT 2026-03-21T06:00:00 DUE TO "
		   "TIME LIMIT ***\n"
		   "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n",
		   SRC_APP, &n);
	ck_assert_int_eq(n, 0);
	free(j);
	/* a line cut short (its end lost), then a message of its own */
	j = joined("RuntimeError: NCCL error in: /opt/conda/pkgs/torch/lib/c10d/ProcessGroupNCCL.cpp:825, "
		   "unhandled syst\n"
		   "ncclSystemError: System call (socket, malloc, munmap, etc) failed.\n",
		   SRC_APP, &n);
	ck_assert_int_eq(n, 0);
	free(j);
	text = cut(CUDA CUDA, 80, "\n\n");
	j = joined(text, SRC_APP, &n);
	ck_assert_int_eq(n, 0);
	free(j);
	free(text);
}
END_TEST

/* at most UNWRAP_LINES lines a message; the lines after them begin
 * none (they have no header) */
START_TEST(unwrap_limits)
{
	char text[4096], *j;
	size_t o = (size_t)sprintf(text, KHDR "NVRM: start");
	int n;

	for (int i = 0; i < UNWRAP_LINES + 4; i++)
		o += (size_t)sprintf(text + o, "\nmore %d", i);
	text[o++] = '\n';
	text[o] = 0;
	j = joined(text, SRC_NODE, &n);
	ck_assert_int_eq(n, 1);
	ck_assert_ptr_nonnull(strstr(j, "more 14"));
	ck_assert_ptr_null(strstr(j, "more 15"));
	free(j);
}
END_TEST

/* A case whose kernel line a terminal cut inside "Xid": the scan finds
 * the fault (the prefilter read the joined message), the evidence is the
 * first line as the file holds it, whatever chunks the file is read in;
 * a file attrib's collector wrote (evidence.json lists it) is never
 * joined. */
static struct json_object *analyze_wrapped(const char *dir, const char *chunk)
{
	char err[256];
	struct json_object *r;

	if (chunk)
		setenv("ATTRIB_CHUNK_BYTES", chunk, 1);
	r = attrib_analyze(cat, dir, NULL, err, sizeof(err));
	unsetenv("ATTRIB_CHUNK_BYTES");
	ck_assert_msg(r != NULL, "%s", err);
	return r;
}

START_TEST(unwrap_in_a_case)
{
	char *dir = tmpdir(), *log, *first;
	/* the cut falls between "X" and "id" */
	const char *hdr = "2025-11-29T08:12:01.000000+00:00 n1-ib0.gpu.local kernel: [ 5321.123456] NVRM: X";
	const char *chunks[] = { NULL, "300", "97" };

	write_case_job(dir, "FAILED", "[\"n1\"]");
	mkdir_p(dir, "nodes/n1");
	mkdir_p(dir, "app");
	write_file(dir, "app/slurm-77.out", "step 1\n");
	char *msg = cut("2025-11-29T08:12:01.000000+00:00 n1-ib0.gpu.local kernel: [ 5321.123456] " XID, 80,
			"\n");

	ck_assert_int_eq(strncmp(msg, hdr, strlen(hdr)), 0);
	ck_assert_int_eq(msg[80], '\n');
	ck_assert_int_gt(
		asprintf(&log,
			 "2025-11-29T08:11:01.000000+00:00 n1 systemd[1]: Started Session 3 of user a.\n"
			 "%s2025-11-29T08:12:02.000000+00:00 n1 systemd[1]: Stopped Session 3.\n",
			 msg),
		0);
	free(msg);
	write_file(dir, "nodes/n1/syslog", log);
	for (int k = 0; k < 3; k++) {
		struct json_object *r = analyze_wrapped(dir, chunks[k]), *rc = json_member(r, "root_cause");

		ck_assert_msg(rc && !strcmp(json_object_get_string(json_member(rc, "code")), "xid.79"),
			      "chunks %s: %s", chunks[k] ? chunks[k] : "none", json_object_to_json_string(r));
		first = (char *)json_object_get_string(
			json_member(json_object_array_get_idx(json_member(rc, "evidence"), 0), "text"));
		ck_assert_str_eq(first, hdr);
		ck_assert_int_eq(json_object_get_int(
					 json_member(json_object_array_get_idx(json_member(rc, "evidence"), 0),
						     "line")),
				 2);
		json_object_put(r);
	}
	write_file(dir, "evidence.json", "{\"files\": {\"nodes/n1/syslog\": {\"origin\": \"kernel\"}}}\n");
	struct json_object *r = analyze_wrapped(dir, NULL);
	ck_assert_msg(!strstr(json_object_to_json_string(r), "xid.79"), "%s", json_object_to_json_string(r));
	json_object_put(r);
	/* nor a file larger than a paste (UNWRAP_FILE_MAX) */
	char *manifest = path_join(dir, "evidence.json");

	unlink(manifest);
	free(manifest);
	size_t big = UNWRAP_FILE_MAX + 4096, o = 0;
	char *padded = malloc(big + strlen(log) + 1);
	while (o < big)
		o += (size_t)sprintf(padded + o,
				     "2025-11-29T07:59:00.000000+00:00 n1 systemd[1]: Started a unit.\n");
	strcpy(padded + o, log);
	write_file(dir, "nodes/n1/syslog", padded);
	r = analyze_wrapped(dir, NULL);
	ck_assert_msg(!strstr(json_object_to_json_string(r), "xid.79"), "%s", json_object_to_json_string(r));
	json_object_put(r);
	free(padded);
	free(log);
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
	tcase_add_test(t, docker_json_file);
	tcase_add_test(t, kubectl_timestamps);
	tcase_add_test(t, journald_forms);
	tcase_add_test(t, unwrap_terminal_cut);
	tcase_add_test(t, unwrap_cut_at_space);
	tcase_add_test(t, unwrap_never_another_writer);
	tcase_add_test(t, unwrap_app_terminal);
	tcase_add_test(t, unwrap_limits);
	tcase_add_test(t, unwrap_in_a_case);
	suite_add_tcase(s, t);
	return run_suite(s);
}
