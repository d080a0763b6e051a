/* A large file is scanned in chunks of lines by several threads
 * (engine/chunks.c): the result must be the one a single scan gives,
 * whatever the cuts.  The options' chunk_bytes (ATTRIB_CHUNK_BYTES, for
 * tests only) cuts a small file into many chunks: every chunk size from one line a chunk up,
 * with one thread and several, against the file scanned whole, on a case
 * built to straddle cuts with what depends on the lines around it:
 *  - an untimed block of NCCL lines longer than the neighbour search's
 *    reach (its lines take the next timestamped line's time or the
 *    previous one's, depending on the hits before them);
 *  - untimed hits far apart (the previous timestamped event's time);
 *  - a three-line kernel message read by a multi-line rule (its bus id
 *    is on the first line);
 *  - lines that share a symptom across cuts (counts, first and last). */
#include "testutil.h"

static attrib_catalog *cat;

static char *app_log(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fprintf(f, "+ srun --label python -u train.py\n");
	for (int r = 0; r < 16; r++)
		fprintf(f, "%5d: gpu-%02d:%d:%d [%d] NCCL INFO Bootstrap : Using ib0:10.0.0.%d<0>\n", r,
			1 + r / 8, 1000 + r, 1000 + r, r % 8, 1 + r / 8);
	for (int s = 0; s < 20; s++)
		fprintf(f, "    0: [2025-11-29 08:%02d:%02d] step %d | loss 2.%04d\n", 1 + s / 4,
			(s % 4) * 15, s * 15, 9000 - s);
	/* dense untimed hits, far more than 400 lines before the next time */
	for (int i = 0; i < 1500; i++)
		fprintf(f,
			"%5d: NET/IB : Got completion from peer 10.0.0.2<%d> with status=12 opcode=0 len=0 "
			"vendor err 129 (Recv) localGid ::ffff:10.0.0.1 remoteGids::ffff:10.0.0.2 hca "
			"mlx5_%d\n",
			i % 16, 33000 + i, i % 8);
	fprintf(f, "    0: [2025-11-29 08:12:00] step 300 | loss 2.8000\n");
	/* a timestamped event: the time of the untimed lines with no
	 * timestamped line within reach after them */
	fprintf(f, "[2025-11-29 08:13:30] srun: error: gpu-02: task 5: Exited with exit code 1\n");
	/* sparse untimed hits: 500 quiet lines between them */
	for (int k = 0; k < 4; k++) {
		for (int i = 0; i < 500; i++)
			fprintf(f, "%5d: waiting for the collective %d\n", i % 16, k * 500 + i);
		fprintf(f,
			"%5d: NET/IB : Got completion from peer 10.0.0.1<%d> with status=5 opcode=0 len=0 "
			"vendor err 249 (Send) localGid ::ffff:10.0.0.2 remoteGids::ffff:10.0.0.1 hca "
			"mlx5_1\n",
			8 + k, 34000 + k);
	}
	fprintf(f, "    0: [2025-11-29 08:15:00] step 450 | loss 2.7000\n");
	/* two hits at the edge of the search's reach: the next timestamped
	 * line 400 lines on (its time taken), then 401 (not: the previous event's) */
	for (int k = 0; k < 2; k++) {
		fprintf(f, "srun: error: gpu-%02d: task %d: Exited with exit code 1\n", k ? 3 : 1, k);
		for (int i = 0; i < 399 + k; i++)
			fprintf(f, "%5d: waiting for the collective %d\n", i % 16, i);
		fprintf(f, "    0: [2025-11-29 08:%02d:00] step %d | loss 2.6000\n", 16 + k, 500 + k);
	}
	fprintf(f, "srun: error: gpu-02: task 9: Exited with exit code 1\n");
	fclose(f);
	return buf;
}

static char *kern_log(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	for (int i = 0; i < 300; i++)
		fprintf(f, "Nov 29 08:%02d:%02d gpu-02 systemd[1]: Started session %d of user u.\n", i / 60,
			i % 60, i);
	fprintf(f,
		"Nov 29 08:10:00 gpu-02 kernel: NVRM: The NVIDIA GPU 0000:3a:00.0\n"
		"Nov 29 08:10:00 gpu-02 kernel: NVRM: (PCI ID: 10de:2330) installed in this system has\n"
		"Nov 29 08:10:00 gpu-02 kernel: NVRM: fallen off the bus and is not responding to "
		"commands.\n");
	for (int i = 0; i < 300; i++)
		fprintf(f, "Nov 29 08:%02d:%02d gpu-02 systemd[1]: Started session %d of user u.\n",
			10 + i / 60, i % 60, 300 + i);
	fclose(f);
	return buf;
}

/* The first time of slurm.task_exit on node in the result text (a static
 * buffer), or NULL. */
static const char *task_exit_time(const char *text, const char *node)
{
	static char t[64];
	struct json_object *r = json_tokener_parse(text), *syms;
	const char *found = NULL;

	if (r && json_object_object_get_ex(r, "symptoms", &syms))
		for (size_t i = 0; i < json_object_array_length(syms) && !found; i++) {
			struct json_object *s = json_object_array_get_idx(syms, i);
			const char *c = json_object_get_string(json_member(s, "code"));
			const char *n = json_object_get_string(json_member(s, "node"));

			if (c && n && !strcmp(c, "slurm.task_exit") && !strcmp(n, node)) {
				snprintf(t, sizeof(t), "%s",
					 json_object_get_string(json_member(s, "first_time")));
				found = t;
			}
		}
	json_object_put(r);
	return found;
}

/* The count of code's symptoms in the result text, summed. */
static long code_count(const char *text, const char *code)
{
	struct json_object *r = json_tokener_parse(text), *syms;
	long n = 0;

	if (r && json_object_object_get_ex(r, "symptoms", &syms))
		for (size_t i = 0; i < json_object_array_length(syms); i++) {
			struct json_object *s = json_object_array_get_idx(syms, i);
			const char *c = json_object_get_string(json_member(s, "code"));

			if (c && !strcmp(c, code))
				n += json_object_get_int64(json_member(s, "count"));
		}
	json_object_put(r);
	return n;
}

/* chunk 0: the default (4 MiB) */
static char *analyze(const char *dir, size_t chunk, int threads)
{
	struct attrib_options opt = { .threads = threads, .chunk_bytes = chunk };
	char err[512];
	struct json_object *r;
	char *s;

	r = attrib_analyze(cat, dir, &opt, err, sizeof(err));
	ck_assert_msg(r != NULL, "%s", err);
	s = strdup_or_die(json_object_to_json_string_ext(r, JSON_C_TO_STRING_PLAIN));
	json_object_put(r);
	return s;
}

START_TEST(chunks_give_one_scan)
{
	char *dir = tmpdir(), *app = app_log(), *kern = kern_log();

	write_file(dir, "job.json",
		   "{\"schema\": \"attrib.job/v1\", \"job_id\": \"77\", \"nodes\": [\"gpu-01\", \"gpu-02\", "
		   "\"gpu-03\"],"
		   " \"start_time\": \"2025-11-29T08:00:00Z\", \"end_time\": \"2025-11-29T08:20:00Z\","
		   " \"state\": \"FAILED\", \"exit_code\": \"1:0\", \"log_timezone\": \"UTC\"}\n");
	mkdir_p(dir, "app");
	mkdir_p(dir, "nodes/gpu-02");
	write_file(dir, "app/slurm-77.out", app);
	write_file(dir, "nodes/gpu-02/kern.log", kern);
	/* whole (the files are far below the default chunk size) */
	char *one = analyze(dir, 0, 1);

	/* the case exercises what it is meant to: the three-line form (its
	 * bus id), the untimed completion errors */
	ck_assert_msg(strstr(one, "\"code\":\"xid.79\"") && strstr(one, "PCI:0000:3a:00"),
		      "the three-line Xid 79 was not read: %.2000s", one);
	/* the edge of the neighbour search: srun's line on gpu-01 has the next
	 * timestamped line 400 lines on (its time taken: 08:16:00); gpu-03's
	 * 401 (out of reach: the previous timestamped event's time, a lower
	 * bound, 08:13:30, never the line 401 on's, 08:17:00) */
	ck_assert_msg(task_exit_time(one, "gpu-01") &&
			      !strcmp(task_exit_time(one, "gpu-01"), "2025-11-29T08:16:00Z") &&
			      task_exit_time(one, "gpu-03") &&
			      !strcmp(task_exit_time(one, "gpu-03"), "2025-11-29T08:13:30Z"),
		      "the edge of the neighbour search: gpu-01 %s, gpu-03 %s", task_exit_time(one, "gpu-01"),
		      task_exit_time(one, "gpu-03"));
	/* every completion error read, dense (status 12: 1,500) and sparse
	 * (status 5: 4) */
	ck_assert_msg(strstr(one, "Got completion from peer 10.0.0.2") &&
			      code_count(one, "fabric.ib_retry_exceeded") == 1500 &&
			      code_count(one, "nccl.ib_completion_error") == 4,
		      "not every completion error (dense and sparse) was read: %ld and %ld",
		      code_count(one, "fabric.ib_retry_exceeded"),
		      code_count(one, "nccl.ib_completion_error"));

	/* one line a chunk, then sizes that cut lines in every place */
	const size_t sizes[] = { 1, 57, 64, 100, 173, 256, 311, 512, 777, 1000, 2049, 4096, 10007, 65536 };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(*sizes); i++)
		for (int t = 0; t < 2; t++) {
			char *other = analyze(dir, sizes[i], t ? 3 : 1);

			size_t at = 0;

			while (one[at] && one[at] == other[at])
				at++;
			ck_assert_msg(!one[at] && !other[at],
				      "chunks of %zu bytes, %d threads: the result "
				      "differs from byte %zu:\n%.300s\n%.300s",
				      sizes[i], t ? 3 : 1, at, one + (at > 100 ? at - 100 : 0),
				      other + (at > 100 ? at - 100 : 0));
			free(other);
		}
	free(one);
	free(app);
	free(kern);
	rmtree(dir);
}
END_TEST

/* Many events (tens of thousands of distinct symptoms: NCCL's completion
 * errors of 512 ranks from 4,096 peers, timed and untimed) in a file of
 * about 10 MB cut into chunks of 1 MiB, 300 kB and 64 KiB (then more than
 * SEQ_CHUNKS: scanned in order by one task, its events folded chunk by
 * chunk): the result of the file scanned whole, on one thread and on
 * several. */
START_TEST(many_events_in_chunks)
{
	char *dir = tmpdir(), *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	write_file(dir, "job.json",
		   "{\"schema\": \"attrib.job/v1\", \"job_id\": \"78\", \"nodes\": [\"gpu-01\", \"gpu-02\"],"
		   " \"start_time\": \"2025-11-29T08:00:00Z\", \"end_time\": \"2025-11-29T09:00:00Z\","
		   " \"state\": \"FAILED\", \"exit_code\": \"1:0\", \"log_timezone\": \"UTC\"}\n");
	for (int i = 0; i < 48000; i++) {
		if (i % 700 == 0)
			fprintf(f, "    0: [2025-11-29 08:%02d:%02d] step %d | loss 2.%04d\n",
				1 + i / 1000 % 50, i / 17 % 60, i, 9000 - i / 10);
		fprintf(f,
			"%5d: NET/IB : Got completion from peer 10.0.%d.%d<%d> with status=12 opcode=0 len=0 "
			"vendor err 129 (Recv) localGid ::ffff:10.0.0.1 remoteGids::ffff:10.0.0.2 hca "
			"mlx5_%d\n",
			i * 7 % 512, i * 13 % 16, i * 31 % 256, 33000 + i % 97, i % 8);
	}
	fclose(f);
	mkdir_p(dir, "app");
	write_file(dir, "app/slurm-78.out", buf);
	char *whole = analyze(dir, 64u << 20, 1);

	ck_assert_msg(strstr(whole, "Got completion from peer"),
		      "the completion errors were not read: %.1000s", whole);
	const struct {
		size_t chunk;
		int threads;
	} runs[] = { { 1u << 20, 1 }, { 1u << 20, 2 }, { 65536, 3 }, { 300000, 16 } };
	for (size_t i = 0; i < sizeof(runs) / sizeof(*runs); i++) {
		char *other = analyze(dir, runs[i].chunk, runs[i].threads);
		size_t at = 0;

		while (whole[at] && whole[at] == other[at])
			at++;
		ck_assert_msg(
			!whole[at] && !other[at],
			"chunks of %zu bytes, %d threads: the result differs from byte %zu:\n%.300s\n%.300s",
			runs[i].chunk, runs[i].threads, at, whole + (at > 100 ? at - 100 : 0),
			other + (at > 100 ? at - 100 : 0));
		free(other);
	}
	free(whole);
	free(buf);
	rmtree(dir);
}
END_TEST

int main(void)
{
	char rules[4096];
	Suite *s = suite_create("chunks");
	TCase *t = tcase_create("chunks");

	snprintf(rules, sizeof(rules), "%s/rules", SRCDIR);
	cat = attrib_catalog_load(getenv("ATTRIB_RULES") ? getenv("ATTRIB_RULES") : rules, test_options(),
				  stderr);
	if (!cat)
		return EXIT_FAILURE;
	tcase_set_timeout(t, 300);
	tcase_add_test(t, chunks_give_one_scan);
	tcase_add_test(t, many_events_in_chunks);
	suite_add_tcase(s, t);
	int rc = run_suite(s);
	attrib_catalog_free(cat);
	return rc;
}
