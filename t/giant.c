/* Giant and degenerate inputs at full size (doc/hardening.md):
 *
 *   t/giant [--full] [TEST...]
 *
 * Without --full every input is small enough for `make check` (seconds);
 * with --full (`make check-hardening`) they are the sizes the issue names:
 *
 *   sparse_log     a sparse node log of 50 GB (small: 1 GB), all NUL but
 *                  for the Xid 79 at its very end
 *   giant_line     one line of 1 GB (small: 32 MB) before the Xid
 *   xid_lines      10,000,000 Xid 45 lines on one node (small: 200,000),
 *                  a real file of 1.1 GB
 *   huge_job       a job.json of 60 MB (a 1,000,000-element transitions
 *                  list) and one nested 1,000,000 levels deep
 *   wide_job       4,096 nodes, each with its own log (small: 256)
 *   backtrack      a rule regex that backtracks catastrophically, (a|aa)+$,
 *                  against 64 KiB lines of a's: PCRE2's match limit ends
 *                  each such line, the Xid beside them is still found
 *
 * Each analysis runs in a child process of its own with a time limit; its
 * CPU time and peak RSS are the child's (wait4), and each test asserts a
 * bound on both and that the result's coverage says what was cut.  (CPU
 * time, not the time on the clock: make check and CI run this beside
 * other work, which stretches the latter several times.)  Files go to
 * $GIANT_DIR (default /var/tmp: /tmp may be a small tmpfs; a sparse file
 * costs no disk) and are removed at the end, whatever happened.  Prints
 * "ok - ..." / "not ok - ..." and "N passed, N failed"; exit 1 on a failure.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>
#include "attrib.h"

/* AddressSanitizer keeps freed memory in quarantine (256 MB) and shadows
 * the rest: the memory bounds are the plain build's, four times looser
 * under it (check-hardening runs the plain build). */
#if defined(__SANITIZE_ADDRESS__)
#define RSS_SLACK 4
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RSS_SLACK 4
#endif
#endif
#ifndef RSS_SLACK
#define RSS_SLACK 1
#endif

#define START "2026-11-29T08:00:00Z"
#define END "2026-11-29T08:14:07Z"
#define XID79 \
	"2026-11-29T08:12:01+00:00 n1 kernel: NVRM: Xid (PCI:0000:3b:00): 79, " \
	"pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
#define XID45 \
	"2026-11-29T08:12:03+00:00 n1 kernel: NVRM: Xid (PCI:0000:3b:00): 45, " \
	"pid=4242, name=python3, Ch 00000010\n"

static bool full;
static char *scratch;
static int passed, failed;
static attrib_catalog *shipped;
static struct attrib_options opt; /* from the environment, as the command's */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	ok ? passed++ : failed++;
}

static void die(const char *what)
{
	perror(what);
	exit(99);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static void rmtree(const char *dir)
{
	nftw(dir, rm_one, 64, FTW_DEPTH | FTW_PHYS);
}

static void cleanup(void)
{
	if (scratch)
		rmtree(scratch);
}

static void on_signal(int sig)
{
	cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

static char *path(const char *dir, const char *rel)
{
	char *p;

	if (asprintf(&p, "%s/%s", dir, rel) < 0)
		die("asprintf");
	return p;
}

static void mkdirs(const char *dir, const char *rel)
{
	char *p = path(dir, rel);

	for (char *s = p + strlen(dir) + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			mkdir(p, 0755);
			*s = '/';
		}
	if (mkdir(p, 0755) < 0 && errno != EEXIST)
		die(p);
	free(p);
}

static int create(const char *dir, const char *rel)
{
	char *p = path(dir, rel);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		die(p);
	free(p);
	return fd;
}

static void write_all(int fd, const void *buf, size_t len)
{
	for (size_t o = 0; o < len;) {
		ssize_t n = write(fd, (const char *)buf + o, len - o);

		if (n <= 0)
			die("write");
		o += n;
	}
}

static void write_text(const char *dir, const char *rel, const char *text)
{
	int fd = create(dir, rel);

	write_all(fd, text, strlen(text));
	close(fd);
}

static char *new_case(const char *name, const char *nodes)
{
	char *dir = path(scratch, name), *job;

	if (mkdir(dir, 0755) < 0)
		die(dir);
	mkdirs(dir, "nodes");
	if (asprintf(&job,
		     "{\"schema\": \"attrib.job/v1\", \"job_id\": \"4242\", \"nodes\": %s,"
		     " \"start_time\": \"" START "\", \"end_time\": \"" END "\","
		     " \"state\": \"FAILED\", \"exit_code\": \"1:0\"}\n",
		     nodes ? nodes : "[\"n1\", \"n2\"]") < 0)
		die("asprintf");
	write_text(dir, "job.json", job);
	free(job);
	return dir;
}

/* ---- one bounded analysis ---- */

struct run {
	bool done; /* a result or a refusal, within the time limit */
	bool hung, crashed;
	double secs, cpu; /* on the clock; the child's CPU (user + system) */
	long rss_mb;	  /* the child's peak RSS */
	char err[512];
	struct json_object *result; /* NULL when refused */
};

/* attrib_analyze(dir) with cat in a child killed after limit seconds of
 * CPU (RLIMIT_CPU), or of the clock three times over (one that waits for
 * nothing but the CPU of a busy machine is not hung). */
static void analyze_bounded(const attrib_catalog *cat, const char *dir, double limit, struct run *run)
{
	char out[4096];
	int pipefd[2], st;
	struct rusage ru;
	pid_t pid;
	double t0 = now();

	memset(run, 0, sizeof(*run));
	snprintf(out, sizeof(out), "%s/.result.json", scratch);
	if (pipe(pipefd) < 0)
		die("pipe");
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		char err[512] = "";
		struct json_object *r;

		struct rlimit cpu = { (rlim_t)limit, (rlim_t)limit + 5 };

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		setrlimit(RLIMIT_CPU, &cpu);
		close(pipefd[0]);
		r = attrib_analyze(cat, dir, NULL, err, sizeof(err));
		if (r) {
			if (json_object_to_file_ext(out, r, JSON_C_TO_STRING_PLAIN) < 0)
				_exit(3);
			json_object_put(r);
		}
		write_all(pipefd[1], err, strlen(err));
		_exit(r ? 0 : 2);
	}
	close(pipefd[1]);
	for (;;) {
		pid_t w = wait4(pid, &st, WNOHANG, &ru);

		if (w == pid)
			break;
		if (now() - t0 > 3 * limit) {
			kill(pid, SIGKILL);
			wait4(pid, &st, 0, &ru);
			run->hung = true;
			break;
		}
		usleep(20000);
	}
	run->secs = now() - t0;
	run->cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
		ru.ru_stime.tv_usec / 1e6;
	run->rss_mb = ru.ru_maxrss / 1024;
	{
		ssize_t n = read(pipefd[0], run->err, sizeof(run->err) - 1);

		run->err[n > 0 ? n : 0] = 0;
	}
	close(pipefd[0]);
	if (run->hung)
		return;
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGXCPU) { /* its CPU limit */
		run->hung = true;
		return;
	}
	if (WIFSIGNALED(st) || (WEXITSTATUS(st) != 0 && WEXITSTATUS(st) != 2)) {
		run->crashed = true;
		snprintf(run->err, sizeof(run->err), "%s %d", WIFSIGNALED(st) ? "signal" : "exit",
			 WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		return;
	}
	run->done = true;
	if (WEXITSTATUS(st) == 0) {
		run->result = json_object_from_file(out);
		unlink(out);
	}
}

static const char *sget(struct json_object *o, const char *k)
{
	struct json_object *v;

	return o && json_object_object_get_ex(o, k, &v) ? json_object_get_string(v) : NULL;
}

static const char *root_code(struct json_object *r)
{
	struct json_object *rc;

	return r && json_object_object_get_ex(r, "root_cause", &rc) ? sget(rc, "code") : NULL;
}

/* The first coverage entry of source with status (any when NULL). */
static struct json_object *coverage(struct json_object *r, const char *source, const char *status)
{
	struct json_object *cov;

	if (!r || !json_object_object_get_ex(r, "coverage", &cov))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(cov); i++) {
		struct json_object *c = json_object_array_get_idx(cov, i);
		const char *s = sget(c, "source"), *t = sget(c, "status");

		if (s && strstr(s, source) && (!status || (t && !strcmp(t, status))))
			return c;
	}
	return NULL;
}

static struct json_object *symptom(struct json_object *r, const char *code)
{
	struct json_object *syms;

	if (!r || !json_object_object_get_ex(r, "symptoms", &syms))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(syms); i++) {
		struct json_object *s = json_object_array_get_idx(syms, i);

		if (sget(s, "code") && !strcmp(sget(s, "code"), code))
			return s;
	}
	return NULL;
}

static const char *what(const struct run *r)
{
	static char buf[600];

	if (r->hung)
		snprintf(buf, sizeof(buf), "hung (killed after %.0f s, CPU %.0f s)", r->secs, r->cpu);
	else if (r->crashed)
		snprintf(buf, sizeof(buf), "crashed (%s)", r->err);
	else if (!r->result)
		snprintf(buf, sizeof(buf), "refused: %s", r->err);
	else
		snprintf(buf, sizeof(buf), "root %s", root_code(r->result) ? root_code(r->result) : "none");
	return buf;
}

/* Free space where the files go; a test that cannot fit is skipped,
 * loudly (a skip is not a pass). */
static bool room_for(unsigned long long bytes, const char *test)
{
	struct statvfs sv;

	if (statvfs(scratch, &sv) < 0)
		die("statvfs");
	if ((unsigned long long)sv.f_bavail * sv.f_frsize < bytes + (1ULL << 30)) {
		printf("# %s: SKIPPED, needs %.1f GB free in %s\n", test, bytes / 1e9, scratch);
		return false;
	}
	return true;
}

/* ---- the tests ---- */

/* A sparse log of 50 GB: NUL bytes (no disk) and the Xid at the end. */
static void sparse_log(void)
{
	off_t size = (off_t)(getenv("GIANT_SPARSE_GB") ? atol(getenv("GIANT_SPARSE_GB"))
				     : full	       ? 50
						       : 1)
		<< 30;
	char *dir = new_case("sparse", NULL);
	struct run run;
	int fd;

	mkdirs(dir, "nodes/n1");
	fd = create(dir, "nodes/n1/kern.log");
	if (ftruncate(fd, size) < 0)
		die("ftruncate");
	if (pwrite(fd, "\n" XID79, strlen(XID79) + 1, size) != (ssize_t)strlen(XID79) + 1)
		die("pwrite");
	close(fd);
	analyze_bounded(shipped, dir, full ? 600 : 120, &run);
	if (getenv("GIANT_VERBOSE") && run.result)
		printf("# %s\n", json_object_to_json_string(run.result));
	printf("# sparse_log: %lld GB, %.1f s (CPU %.1f s), peak RSS %ld MB\n", (long long)(size >> 30),
	       run.secs, run.cpu, run.rss_mb);
	check(run.result && root_code(run.result) && !strcmp(root_code(run.result), "xid.79"),
	      "a %lld GB sparse log: the Xid 79 at its end is the root (%s)", (long long)(size >> 30),
	      what(&run));
	check(run.rss_mb < 400 * RSS_SLACK, "a %lld GB sparse log: peak RSS %ld MB < %d MB",
	      (long long)(size >> 30), run.rss_mb, 400 * RSS_SLACK);
	/* the NUL bytes are read (no timestamp to seek by) at page-cache speed */
	check(run.cpu < 10.0 * (double)(size >> 30) + 30, "a %lld GB sparse log: CPU %.0f s (< 10 s a GB)",
	      (long long)(size >> 30), run.cpu);
	json_object_put(run.result);
	rmtree(dir);
	free(dir);
}

/* One line of 1 GB (a's, with what looks like an Xid near its end, far
 * past the 64 KiB a regex sees), then the Xid. */
static void giant_line(void)
{
	size_t n = full ? 1UL << 30 : 32UL << 20, chunk = 8UL << 20;
	char *dir = new_case("line", NULL), *buf;
	struct json_object *c;
	struct run run;
	int fd;

	if (!room_for(n, "giant_line"))
		goto out;
	mkdirs(dir, "nodes/n1");
	fd = create(dir, "nodes/n1/kern.log");
	if (!(buf = malloc(chunk)))
		die("malloc");
	memset(buf, 'a', chunk);
	memcpy(buf, "2026-11-29T08:05:00+00:00 n1 kernel: ", 37);
	for (size_t o = 0; o < n; o += chunk) {
		static const char hint[] = " NVRM: Xid (PCI:0000:3b:00): 48, pid=1, name=x, DBE ";

		if (o + chunk >= n) /* the last chunk */
			memcpy(buf + (n - o) - 4096, hint, sizeof(hint) - 1);
		write_all(fd, buf, o + chunk > n ? n - o : chunk);
		if (!o)
			memset(buf, 'a', 37);
	}
	free(buf);
	write_all(fd, "\n" XID79, strlen(XID79) + 1);
	close(fd);
	analyze_bounded(shipped, dir, full ? 600 : 120, &run);
	if (getenv("GIANT_VERBOSE") && run.result)
		printf("# %s\n", json_object_to_json_string(run.result));
	printf("# giant_line: %zu MB, %.1f s (CPU %.1f s), peak RSS %ld MB\n", n >> 20, run.secs, run.cpu,
	       run.rss_mb);
	check(run.result && root_code(run.result) && !strcmp(root_code(run.result), "xid.79"),
	      "a %zu MB line: the Xid after it is the root (%s)", n >> 20, what(&run));
	check(run.rss_mb < 400 * RSS_SLACK, "a %zu MB line: peak RSS %ld MB < %d MB", n >> 20, run.rss_mb,
	      400 * RSS_SLACK);
	c = coverage(run.result, "nodes/n1/kern.log", "error");
	check(c && sget(c, "detail") && strstr(sget(c, "detail"), "cut"),
	      "a %zu MB line: coverage says it was cut (%s)", n >> 20, c ? sget(c, "detail") : "no entry");
out:
	json_object_put(run.result);
	rmtree(dir);
	free(dir);
}

/* 10,000,000 Xid 45 lines on one node: one symptom, counted, bounded. */
static void xid_lines(void)
{
	long lines = full ? 10000000 : 200000;
	size_t ll = strlen(XID45), per = (8UL << 20) / ll, size = (size_t)lines * ll;
	char *dir = new_case("xid", NULL), *buf;
	struct json_object *s = NULL, *v;
	struct run run = { 0 };
	int fd;

	if (!room_for(size, "xid_lines"))
		goto out;
	mkdirs(dir, "nodes/n1");
	fd = create(dir, "nodes/n1/kern.log");
	if (!(buf = malloc(per * ll)))
		die("malloc");
	for (size_t i = 0; i < per; i++)
		memcpy(buf + i * ll, XID45, ll);
	for (long done = 0; done < lines; done += per)
		write_all(fd, buf, (lines - done < (long)per ? (size_t)(lines - done) : per) * ll);
	free(buf);
	close(fd);
	analyze_bounded(shipped, dir, full ? 600 : 120, &run);
	printf("# xid_lines: %ld lines (%zu MB), %.1f s (CPU %.1f s), peak RSS %ld MB\n", lines, size >> 20,
	       run.secs, run.cpu, run.rss_mb);
	s = symptom(run.result, "xid.45");
	check(s && json_object_object_get_ex(s, "count", &v) && json_object_get_int64(v) == lines,
	      "%ld Xid 45 lines: one symptom counting them all (%s, count %s)", lines, what(&run),
	      s && json_object_object_get_ex(s, "count", &v) ? json_object_get_string(v) : "-");
	check(s && json_object_object_get_ex(s, "evidence", &v) && json_object_array_length(v) <= 3,
	      "%ld Xid 45 lines: at most 3 evidence lines kept", lines);
	check(run.rss_mb < 400 * RSS_SLACK, "%ld Xid 45 lines: peak RSS %ld MB < %d MB", lines, run.rss_mb,
	      400 * RSS_SLACK);
	check(run.cpu < (full ? 300 : 60), "%ld Xid 45 lines: CPU %.1f s", lines, run.cpu);
out:
	json_object_put(run.result);
	rmtree(dir);
	free(dir);
}

/* A job.json of ~60 MB (a million transitions: the engine's size limit
 * is 64 MiB) and one 1,000,000 levels deep: a result or a one-line
 * refusal, bounded. */
static void huge_job(void)
{
	long n = full ? 1000000 : 50000;
	char *dir = new_case("job", NULL), *p;
	struct run run;
	FILE *f;

	mkdirs(dir, "nodes/n1");
	write_text(dir, "nodes/n1/kern.log", XID79);
	p = path(dir, "job.json");
	if (!(f = fopen(p, "w")))
		die(p);
	fprintf(f,
		"{\"schema\": \"attrib.job/v1\", \"job_id\": \"4242\", \"nodes\": [\"n1\"],"
		" \"start_time\": \"" START "\", \"end_time\": \"" END "\","
		" \"state\": \"FAILED\", \"exit_code\": \"1:0\", \"transitions\": [");
	for (long i = 0; i < n; i++)
		fprintf(f, "%s{\"time\": \"2026-11-29T08:%02ld:%02ldZ\", \"state\": \"RUNNING\"}",
			i ? ", " : "", (i / 60) % 14, i % 60);
	fprintf(f, "]}\n");
	fclose(f);
	{
		struct stat st;

		stat(p, &st);
		analyze_bounded(shipped, dir, 120, &run);
		printf("# huge_job: %ld transitions (%lld MB), %.1f s, peak RSS %ld MB\n", n,
		       (long long)st.st_size >> 20, run.secs, run.rss_mb);
		check(run.done && (run.result ? root_code(run.result) != NULL : !strchr(run.err, '\n')),
		      "a %lld MB job.json: %s", (long long)st.st_size >> 20, what(&run));
		check(run.rss_mb < 1500 * RSS_SLACK, "a %lld MB job.json: peak RSS %ld MB < %d MB",
		      (long long)st.st_size >> 20, run.rss_mb, 1500 * RSS_SLACK);
	}
	json_object_put(run.result);

	/* 1,000,000 levels of [ */
	if (!(f = fopen(p, "w")))
		die(p);
	for (long i = 0; i < 1000000; i++)
		fputc('[', f);
	fclose(f);
	analyze_bounded(shipped, dir, 60, &run);
	printf("# deep_job: %.1f s, peak RSS %ld MB\n", run.secs, run.rss_mb);
	check(run.done && !run.result && *run.err && !strchr(run.err, '\n'),
	      "a job.json 1,000,000 levels deep: refused in one line (%s)", what(&run));
	check(run.rss_mb < 200 * RSS_SLACK, "a job.json 1,000,000 levels deep: peak RSS %ld MB < %d MB",
	      run.rss_mb, 200 * RSS_SLACK);
	json_object_put(run.result);
	free(p);
	rmtree(dir);
	free(dir);
}

/* 4,096 nodes, each with a log (a chatty line, and the Xid on one). */
static void wide_job(void)
{
	int nn = full ? 4096 : 256;
	size_t cap = (size_t)nn * 16 + 16, o = 0;
	char *nodes = malloc(cap), *dir, rel[64], line[256];
	struct run run;

	o += snprintf(nodes + o, cap - o, "[");
	for (int i = 1; i <= nn; i++)
		o += snprintf(nodes + o, cap - o, "%s\"n%d\"", i > 1 ? "," : "", i);
	snprintf(nodes + o, cap - o, "]");
	dir = new_case("wide", nodes);
	free(nodes);
	for (int i = 1; i <= nn; i++) {
		snprintf(rel, sizeof(rel), "nodes/n%d", i);
		mkdirs(dir, rel);
		snprintf(rel, sizeof(rel), "nodes/n%d/kern.log", i);
		snprintf(line, sizeof(line),
			 "2026-11-29T08:05:00+00:00 n%d kernel: NVRM: Xid (PCI:0000:3b:00): 45, pid=4242, "
			 "name=python3, Ch 00000010\n%s",
			 i,
			 i == nn / 2 ? "2026-11-29T08:01:00+00:00 n1 kernel: NVRM: Xid (PCI:0000:3b:00): 79, "
				       "pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
				     : "");
		write_text(dir, rel, line);
	}
	analyze_bounded(shipped, dir, 120, &run);
	printf("# wide_job: %d nodes with logs, %.1f s (CPU %.1f s), peak RSS %ld MB\n", nn, run.secs,
	       run.cpu, run.rss_mb);
	check(run.result && root_code(run.result) && !strcmp(root_code(run.result), "xid.79"),
	      "%d nodes with logs: the one Xid 79 is the root (%s)", nn, what(&run));
	{
		struct json_object *rc = NULL;
		char want[16];

		snprintf(want, sizeof(want), "n%d", nn / 2);
		if (run.result)
			json_object_object_get_ex(run.result, "root_cause", &rc);
		check(sget(rc, "node") && !strcmp(sget(rc, "node"), want), "%d nodes: on node %s (%s)", nn,
		      want, sget(rc, "node") ? sget(rc, "node") : "none");
	}
	check(run.cpu < 60 && run.rss_mb < 400 * RSS_SLACK, "%d nodes: CPU %.1f s, peak RSS %ld MB", nn,
	      run.cpu, run.rss_mb);
	json_object_put(run.result);
	rmtree(dir);
	free(dir);
}

/* A catalog of the shipped rules plus one whose regex backtracks
 * exponentially on a line of a's that does not end as it wants. */
static void backtrack(void)
{
	static const char rule[] = "codes:\n"
				   "  - code: giant.backtrack\n"
				   "    class: node-software\n"
				   "    title: 'catastrophic pattern'\n"
				   "    doc: 'a nested quantifier that backtracks exponentially'\n"
				   "extractors:\n"
				   "  - id: giant-backtrack\n"
				   "    source: node\n"
				   "    origin: kernel\n"
				   "    regex: '(a|aa)+$'\n"
				   "    prefilter: 'kernel: aaaa'\n"
				   "    code: giant.backtrack\n"
				   "    tests:\n"
				   "      - line: 'kernel: aaaa'\n"
				   "        code: giant.backtrack\n"
				   "      - line: 'kernel: aaaab'\n"
				   "        none: true\n";
	int nlines = full ? 2000 : 50;
	size_t ll = 64 * 1024;
	char *rules = path(scratch, "rules"), *dir = new_case("backtrack", NULL), *buf, *src;
	attrib_catalog *cat;
	struct run run = { 0 };
	int fd;
	DIR *d;
	struct dirent *e;

	/* the shipped rule files, linked, and ours */
	mkdir(rules, 0755);
	src = getenv("ATTRIB_RULES") ? strdup(getenv("ATTRIB_RULES")) : path(SRCDIR, "rules");
	if (!(d = opendir(src)))
		die(src);
	while ((e = readdir(d))) {
		char *from, *to;

		if (!strstr(e->d_name, ".yaml"))
			continue;
		from = path(src, e->d_name);
		to = path(rules, e->d_name);
		if (symlink(from, to) < 0)
			die(to);
		free(from);
		free(to);
	}
	closedir(d);
	free(src);
	write_text(rules, "99-backtrack.yaml", rule);
	cat = attrib_catalog_load(rules, &opt, stderr);
	check(cat != NULL, "a catalog with a catastrophic regex loads (its self-test ends)");
	if (!cat)
		goto out;

	mkdirs(dir, "nodes/n1");
	fd = create(dir, "nodes/n1/kern.log");
	if (!(buf = malloc(ll)))
		die("malloc");
	memset(buf, 'a', ll);
	memcpy(buf, "2026-11-29T08:05:00+00:00 n1 kernel: ", 37);
	buf[ll - 2] = 'b'; /* never matches: every split of the a's is tried */
	buf[ll - 1] = '\n';
	for (int i = 0; i < nlines; i++) {
		write_all(fd, buf, ll);
		if (i == nlines / 2)
			write_all(fd, XID79, strlen(XID79));
	}
	free(buf);
	close(fd);
	analyze_bounded(cat, dir, full ? 600 : 120, &run);
	printf("# backtrack: %d lines of %zu KiB, %.1f s (CPU %.1f s, %.1f ms a line), peak RSS %ld MB\n",
	       nlines, ll >> 10, run.secs, run.cpu, run.cpu * 1000 / nlines, run.rss_mb);
	check(run.result && root_code(run.result) && !strcmp(root_code(run.result), "xid.79"),
	      "%d backtracking lines: the Xid among them is still the root (%s)", nlines, what(&run));
	check(!symptom(run.result, "giant.backtrack"),
	      "%d backtracking lines: none matched the catastrophic rule", nlines);
	check(run.cpu < (full ? 300 : 60), "%d backtracking lines: CPU %.1f s", nlines, run.cpu);
	{
		struct json_object *c = coverage(run.result, "nodes/n1/kern.log", "error");

		check(c && sget(c, "detail") && strstr(sget(c, "detail"), "limit"),
		      "%d backtracking lines: coverage says a regex hit its limit (%s)", nlines,
		      c ? sget(c, "detail") : "no entry");
	}
	attrib_catalog_free(cat);
out:
	json_object_put(run.result);
	free(rules);
	rmtree(dir);
	free(dir);
}

static const struct {
	const char *name;
	void (*fn)(void);
} tests[] = {
	{ "sparse_log", sparse_log }, { "giant_line", giant_line }, { "xid_lines", xid_lines },
	{ "huge_job", huge_job },     { "wide_job", wide_job },	    { "backtrack", backtrack },
};

int main(int argc, char **argv)
{
	const char *base = getenv("GIANT_DIR") ? getenv("GIANT_DIR") : "/var/tmp";
	char *rules;
	int first = 1;

	opt = attrib_options_env(getenv);

	if (argc > 1 && !strcmp(argv[1], "--full")) {
		full = true;
		first = 2;
	}
	if (asprintf(&scratch, "%s/attrib-giant-XXXXXX", base) < 0 || !mkdtemp(scratch))
		die(base);
	atexit(cleanup);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	rules = getenv("ATTRIB_RULES") ? strdup(getenv("ATTRIB_RULES")) : path(SRCDIR, "rules");
	if (!(shipped = attrib_catalog_load(rules, &opt, stderr))) {
		fprintf(stderr, "giant: the rule catalog %s does not load\n", rules);
		return 99;
	}
	free(rules);
	printf("# giant inputs, %s sizes, in %s\n", full ? "full" : "small", scratch);
	for (size_t i = 0; i < sizeof(tests) / sizeof(*tests); i++) {
		bool run = first >= argc;

		for (int a = first; a < argc; a++)
			run |= !strcmp(argv[a], tests[i].name);
		if (run)
			tests[i].fn();
	}
	attrib_catalog_free(shipped);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
