/* libFuzzer target: arbitrary bytes as log lines.
 *
 * Each input goes two ways:
 *  1. line by line through the engine's own line path (time_parse_header,
 *     time_parse_any, line_context, line_extract with every single-line
 *     extractor as a candidate, text_sanitise), as linescan.c calls it;
 *  2. as one log file of a small case (a node log, the application's
 *     output or a scheduler excerpt, chosen by the first byte) through
 *     attrib_analyze: matcher, scan, symptoms, correlation, result.
 * The engine must neither crash nor break its own invariants. */
#include <stdint.h>
#include "fuzz_common.h"
#include "internal.h" /* the line extractor itself, below the public API */

static int *cand; /* single-line extractors, priority order */
static int ncand;
static const struct timectx tc = { .ref = 1796025600.0 /* 2026-11-29T08:00:00Z */, .tz = NULL };

static const char job[] =
	"{\"schema\": \"attrib.job/v1\", \"job_id\": \"4242\", \"nodes\": [\"node-01\", \"node-02\"],"
	" \"start_time\": \"2026-11-29T08:00:00Z\", \"end_time\": \"2026-11-29T08:14:07Z\","
	" \"state\": \"FAILED\", \"exit_code\": \"1:0\","
	" \"ranks\": [{\"rank\": 0, \"node\": \"node-01\", \"gpu\": \"0\"},"
	" {\"rank\": 1, \"node\": \"node-02\", \"gpu\": \"0\"}]}\n";

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_load_catalog();
	cand = calloc(fuzz_cat->nextractors + 1, sizeof(int));
	for (int k = 0; k < fuzz_cat->nextractors && ncand < 64; k++) {
		int r = fuzz_cat->by_priority[k];

		if (fuzz_cat->extractors[r].lines <= 1)
			cand[ncand++] = r;
	}
	fuzz_make_dir();
	fuzz_write("job.json", job, sizeof(job) - 1);
	fuzz_mkdir("nodes");
	fuzz_mkdir("nodes/node-01");
	fuzz_mkdir("app");
	fuzz_mkdir("scheduler");
	/* every directory holds its file, empty unless it is the one fuzzed
	 * (empty directories are t/badinput's empty_dirs) */
	fuzz_write("nodes/node-01/kern.log", "", 0);
	fuzz_write("app/slurm-4242.out", "", 0);
	fuzz_write("scheduler/slurmctld.log", "", 0);
	return 0;
}

static void one_line(const char *line, size_t len, int source)
{
	struct line_ctx lc;
	struct event ev = { 0 }, ids[16];
	int nids = 0;
	double t;
	size_t hdr;

	if (time_parse_header(&tc, line, len, &t, &hdr) && hdr > len)
		abort();
	time_parse_any(&tc, line, len, &t);
	line_context(fuzz_cat, &tc, line, len, &lc);
	if (lc.body > len)
		abort();
	line_context_free(&lc);
	if (line_extract(fuzz_cat, &tc, line, len, source, cand, ncand, &lc, &ev, ids, &nids, 16)) {
		if (!ev.code)
			abort();
		event_clear(&ev);
	}
	for (int i = 0; i < nids; i++)
		event_clear(&ids[i]);
	line_context_free(&lc);

	char *s = text_sanitise(line, len, 2000);
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			abort(); /* control characters (and newlines) never reach a result */
	if (strlen(s) > 2000 * 3 + 3)
		abort();
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int sources[] = { SRC_NODE, SRC_APP, SRC_SCHED, SRC_JOB };
	static const char *const files[] = { "nodes/node-01/kern.log", "app/slurm-4242.out",
					     "scheduler/slurmctld.log" };
	static const char *last;
	int pick = size ? data[0] % 4 : 0;
	/* the lines, as the scan cuts them: at '\n', a trailing '\r' off */
	char *copy = malloc(size + 1);

	memcpy(copy, data, size);
	copy[size] = 0;
	for (size_t start = 0, lines = 0; start <= size && lines < 256; lines++) {
		char *nl = memchr(copy + start, '\n', size - start);
		size_t end = nl ? (size_t)(nl - copy) : size, len = end - start;

		if (len && copy[start + len - 1] == '\r')
			len--;
		if (len > 64 * 1024) /* scan_parts.h's MAX_LINE */
			len = 64 * 1024;
		/* exactly the line's bytes, so a read past them is caught */
		char *line = malloc(len ? len : 1);
		memcpy(line, copy + start, len);
		one_line(line, len, sources[pick]);
		free(line);
		start = end + 1;
	}
	free(copy);

	/* the whole input as one file of the case (the other files emptied) */
	if (pick == 3)
		pick = 0;
	if (last && strcmp(last, files[pick]))
		fuzz_write(last, "", 0);
	fuzz_write(files[pick], data, size);
	last = files[pick];

	char err[512];
	struct json_object *r = attrib_analyze(fuzz_cat, fuzz_dir, NULL, err, sizeof(err));
	if (!r) {
		fprintf(stderr, "fuzz_line: a valid case was refused: %s\n", err);
		abort();
	}
	fuzz_check_result(r);
	json_object_put(r);
	return 0;
}
