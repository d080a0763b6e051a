/*
 * Micro-benchmark of jobcomp/attrib: the cost of jobcomp_p_log_record() (what
 * slurmctld pays under its job write lock), of the drop path (queue full),
 * and the worker's write rate (JSON, write, fsync, rename).
 *
 * Built against Slurm's source headers and libslurmfull (slurmctld's own
 * library), with the plugin's source included so that the queue can be
 * watched:  make plugin/jobcomp-bench && plugin/jobcomp-bench [DIR [ROUNDS]]
 * DIR (default: a new directory under /tmp) receives the records (DIR/jobs).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "jobcomp_attrib.c"

#include <stdlib.h>

#define ROUNDS 20      /* at most; argv[2] may ask for fewer (the smoke run: 1) */
#define PER_ROUND 5000 /* below QUEUE_MAX: nothing is dropped */

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* records are written in order: the last one's file marks the end */
static void wait_written(const char *dir, uint32_t last_id)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/jobs/%" PRIu32 ".0.json", dir, last_id);
	while (stat(path, &st) < 0)
		usleep(200);
}

int main(int argc, char **argv)
{
	static double per_call[ROUNDS * PER_ROUND];
	char dir[] = "/tmp/jobcomp-bench.XXXXXX";
	const char *loc_dir = argc > 1 ? argv[1] : mkdtemp(dir);
	job_details_t details;
	part_record_t part;
	job_record_t job;
	double t0, t1, total = 0, drain_ns = 0, drop_ns;
	size_t n = 0;
	unsigned saved;
	int rounds = argc > 2 ? atoi(argv[2]) : ROUNDS;

	if (!loc_dir) {
		perror("mkdtemp");
		return 1;
	}
	if (rounds < 1 || rounds > ROUNDS) {
		fprintf(stderr, "usage: jobcomp-bench [DIR [ROUNDS (1-%d)]]\n", ROUNDS);
		return 1;
	}
	memset(&details, 0, sizeof(details));
	memset(&part, 0, sizeof(part));
	memset(&job, 0, sizeof(job));
	details.submit_time = time(NULL) - 3600;
	details.std_out = "/scratch/%u/logs/%x-%j.out";
	details.std_err = "logs/%x-%A_%a.err";
	details.work_dir = "/home/alice/llm";
	part.max_time = INFINITE;
	job.details = &details;
	job.part_ptr = &part;
	job.user_id = 1000;
	job.group_id = 1000;
	job.user_name = "alice";
	job.name = "llm-pretrain";
	job.partition = "gpu";
	job.nodes = "node-[001-128]";
	job.batch_host = "node-001";
	job.batch_flag = 1;
	job.array_task_id = NO_VAL;
	job.exit_code = 3 << 8;
	job.derived_ec = 3 << 8;
	job.job_state = JOB_FAILED | JOB_COMPLETING;
	job.state_reason = FAIL_EXIT_CODE;
	job.time_limit = 13 * 60;
	job.start_time = time(NULL) - 1800;
	job.end_time = time(NULL);
	slurm_conf.cluster_name = "lab";

	if (init() != SLURM_SUCCESS || JOBCOMP_SET_LOCATION((char *)loc_dir) != SLURM_SUCCESS)
		return 1;

	for (int round = 0; round < rounds; round++) {
		double r0 = now_ns();

		for (int i = 0; i < PER_ROUND; i++) {
			job.job_id = 1000000 + round * PER_ROUND + i;
			t0 = now_ns();
			jobcomp_p_log_record(&job);
			t1 = now_ns();
			per_call[n++] = t1 - t0;
			total += t1 - t0;
		}
		wait_written(loc_dir, job.job_id);
		drain_ns += now_ns() - r0;
	}

	/* the drop path: the queue reported full */
	pthread_mutex_lock(&q_lock);
	saved = q_len;
	q_len = QUEUE_MAX;
	pthread_mutex_unlock(&q_lock);
	t0 = now_ns();
	for (int i = 0; i < PER_ROUND; i++)
		jobcomp_p_log_record(&job);
	drop_ns = (now_ns() - t0) / PER_ROUND;
	pthread_mutex_lock(&q_lock);
	q_len = saved;
	pthread_mutex_unlock(&q_lock);

	fini();
	qsort(per_call, n, sizeof(per_call[0]), cmp_double);
	printf("jobcomp_p_log_record: %zu calls, mean %.0f ns, median %.0f ns, p99 %.0f ns, "
	       "max %.0f ns\n",
	       n, total / n, per_call[n / 2], per_call[n * 99 / 100], per_call[n - 1]);
	printf("drop path (queue full): %.0f ns per call\n", drop_ns);
	printf("worker: %zu records written (JSON, fsync, rename): %.0f records/s, to %s/jobs\n", n,
	       n / (drain_ns / 1e9), loc_dir);
	printf("dropped: %" PRIu64 "\n", n_dropped);
	return 0;
}
