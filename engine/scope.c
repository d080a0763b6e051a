/* Scoping: before correlation every symptom is tied to the job or set
 * aside, and the job's own pulse is read.
 *
 * A node log and slurmctld.log speak of more than this job: other nodes,
 * other jobs, the hours before it, the GPUs of a job sharing the node.
 * What is not the job's is kept as context ("seen but not the job's") and
 * never becomes a cause or a culprit.  The application's timestamped
 * progress lines say when the job was alive: a fault it ran on through for
 * minutes did not end it, and a long silence before the end is a hang.
 * Nothing here knows a particular failure: only times, nodes, devices and
 * the tags the catalog gives (progress, clock-sync, fatal). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

/* A fault the job ran on through for this long (and at least this many
 * cadences) is not what ended it; a silence of at least this long (and
 * HANG_CADENCES cadences) before the end is a hang. */
#define SURVIVE_MIN 120.0
#define SURVIVE_CADENCES 3.0
#define HANG_MIN 900.0
#define HANG_CADENCES 10.0
/* A hang's cause shows up around the time the pulse stopped: up to this
 * long after the last progress line (hung-task reports come 120 s late). */
#define ONSET_MIN 300.0

const char *aside_name(enum aside a)
{
	switch (a) {
	case ASIDE_OTHER_NODE:
		return "not a node of the job";
	case ASIDE_OTHER_JOB:
		return "another job's";
	case ASIDE_BEFORE:
		return "before the job (the node's history)";
	case ASIDE_BEFORE_BOOT:
		return "before the node rebooted, ahead of the job";
	case ASIDE_OTHER_GPU:
		return "a GPU the job did not use";
	case ASIDE_OTHER_PROCESS:
		return "another program's (its process is not one of the job's)";
	case ASIDE_SURVIVED:
		return "the job kept making progress after it";
	case ASIDE_DURING_HANG:
		return "after the job had already stopped making progress";
	case ASIDE_NONE:
		break;
	}
	return NULL;
}

const char *located_name(enum located l)
{
	switch (l) {
	case LOC_FILE:
		return "the node's own log";
	case LOC_HOST:
		return "the host named on the line";
	case LOC_RANK:
		return "the rank on the line, through the job's rank map";
	case LOC_ONLY_NODE:
		return "the only node of the job";
	case LOC_BATCH_HOST:
		return "the batch host, where the batch script runs";
	case LOC_NONE:
		break;
	}
	return NULL;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

double cadence_of(const double *t, int n)
{
	double *gap, c;
	int ng = 0;

	if (n < 3)
		return 0;
	gap = xmalloc(n * sizeof(double));
	for (int i = 1; i < n; i++)
		if (t[i] > t[i - 1]) /* lines of one instant say nothing of the pace */
			gap[ng++] = t[i] - t[i - 1];
	if (!ng) {
		free(gap);
		return 0;
	}
	qsort(gap, ng, sizeof(double), cmp_double);
	c = gap[ng / 2];
	free(gap);
	return c;
}

bool clock_offsets(const double *t, int n, double *out)
{
	double *seen = xmalloc((n + 1) * sizeof(double)), med;
	int ns = 0;

	for (int i = 0; i < n; i++)
		if (t[i] >= 0)
			seen[ns++] = t[i];
	if (ns < 2) {
		free(seen);
		return false;
	}
	qsort(seen, ns, sizeof(double), cmp_double);
	med = ns % 2 ? seen[ns / 2] : (seen[ns / 2 - 1] + seen[ns / 2]) / 2;
	for (int i = 0; i < n; i++)
		out[i] = t[i] >= 0 ? t[i] - med : 0;
	free(seen);
	return true;
}

/* Every node logs the job's start (slurmd launching its step or running
 * its prolog) at nearly the same true time: the spread of those times is
 * the spread of the clocks.  An offset beyond the catalog's tolerance is
 * taken out of the node's own evidence before anything is ordered. */
static void estimate_clocks(struct analysis *a)
{
	int n = a->job.nodes.n;
	double *t = xmalloc((n + 1) * sizeof(double));

	for (int i = 0; i < n; i++)
		t[i] = -1;
	for (int i = 0; i < a->nsym; i++) {
		const struct symptom *s = a->sym[i];

		if (s->aside || s->located != LOC_FILE || s->node < 0 || s->first_approx ||
		    !(s->code->flags & CODE_CLOCK_SYNC))
			continue;
		if (t[s->node] < 0 || s->first < t[s->node])
			t[s->node] = s->first;
	}
	a->clock_offset = xcalloc(n + 1, sizeof(double));
	a->clock_estimated = clock_offsets(t, n, a->clock_offset);
	free(t);
	if (!a->clock_estimated)
		return;
	for (int i = 0; i < n; i++)
		if (fabs(a->clock_offset[i]) <= a->cat->set.clock_skew)
			a->clock_offset[i] = 0;
	for (int i = 0; i < a->nsym; i++) {
		struct symptom *s = a->sym[i];

		if (s->located == LOC_FILE && s->node >= 0 && a->clock_offset[s->node]) {
			s->first -= a->clock_offset[s->node];
			s->last -= a->clock_offset[s->node];
		}
	}
}

static bool job_pid(const struct strlist *pids, const struct symptom *s)
{
	char buf[24];

	for (int i = 0; i < s->npids; i++) {
		snprintf(buf, sizeof(buf), "%ld", s->pids[i]);
		if (strlist_has(pids, buf))
			return true;
	}
	return false;
}

/* On a node shared by several jobs, a GPU fault belongs to the job that
 * held the GPU.  The job's GPUs on a node are known when every rank there
 * has been seen with its device (NCCL's busId lines, the processes' PCI
 * ids); a fault on any other device of the node is another job's. */
static void scope_gpus(struct analysis *a)
{
	int n = a->job.nodes.n;
	int *ranks = xcalloc(n + 1, sizeof(int));
	struct strlist *dev = xcalloc(n + 1, sizeof(*dev));

	for (int i = 0; i < a->job.nranks; i++)
		if (a->job.ranks[i].node >= 0)
			ranks[a->job.ranks[i].node]++;
	struct strlist *pids = xcalloc(n + 1, sizeof(*pids));

	identity_job_gpus(a->id, dev, pids, n);
	for (int i = 0; i < a->nsym; i++) {
		struct symptom *s = a->sym[i];
		int node = s->node;

		if (s->aside || node < 0 || !ranks[node])
			continue;
		if (dev[node].n >= ranks[node] && s->device && (s->code->flags & CODE_GPU) &&
		    !strlist_has(&dev[node], s->device))
			s->aside = ASIDE_OTHER_GPU;
		/* a fault a program causes (an Xid 13/31/43 names it) whose
		 * process is none of the job's, all of which are known there */
		else if (s->code->also && s->npids && pids[node].n >= ranks[node] && !job_pid(&pids[node], s))
			s->aside = ASIDE_OTHER_PROCESS;
	}
	/* a fault the job cannot outlive, on the node's or the scheduler's
	 * word (never the job's output alone); one that names a process (a
	 * task blocked in the kernel) only when that process is the job's */
	for (int i = 0; i < a->nsym; i++) {
		struct symptom *s = a->sym[i];

		s->fatal = (s->code->flags & CODE_FATAL) && s->code->kind == KIND_FAULT &&
			s->trust == TRUST_VOUCHED &&
			(!s->npids || (s->node >= 0 && job_pid(&pids[s->node], s)));
	}
	for (int i = 0; i < n; i++) {
		strlist_free(&dev[i]);
		strlist_free(&pids[i]);
	}
	free(dev);
	free(pids);
	free(ranks);
}

/* Progress lines after t (sorted times). */
static int progress_after(const struct analysis *a, double t)
{
	int lo = 0, hi = a->nprogress;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (a->progress[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return a->nprogress - lo;
}

/* Whether the job's own processes on the fault's node reported a failure
 * (the application's errors, a rank's exit) soon after it. */
static bool job_failed_near(const struct analysis *a, const struct symptom *f, double grace)
{
	for (int i = 0; i < a->nsym; i++) {
		const struct symptom *s = a->sym[i];

		if (s == f || s->aside || s->node != f->node || !(s->source & (SRC_APP | SRC_JOB)) ||
		    (s->code->kind != KIND_FAULT && s->code->kind != KIND_CONSEQUENCE))
			continue;
		if (s->first >= f->first - a->cat->set.clock_skew && s->first <= f->first + grace)
			return true;
	}
	return false;
}

static bool pid_of(const struct symptom *s, long pid)
{
	for (int k = 0; k < s->npids; k++)
		if (s->pids[k] == pid)
			return true;
	return false;
}

/* The job's progress lines grouped by who printed them (rank, process
 * id, file, host), with the times of each group's last two: whether a
 * process printed two more after a time is then a look-up, not a walk
 * through every line for every symptom. */
struct printer {
	int rank;
	long pid;
	int file;
	const char *host;
	double t1, t2; /* the latest and the one before (-inf: none) */
};

static int cmp_printer(const void *x, const void *y)
{
	const struct printer *a = x, *b = y;

	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->file != b->file)
		return a->file < b->file ? -1 : 1;
	return strcmp(a->host ? a->host : "", b->host ? b->host : "");
}

static void latest_two(double t, double *t1, double *t2)
{
	if (t > *t1) {
		*t2 = *t1;
		*t1 = t;
	} else if (t > *t2) {
		*t2 = t;
	}
}

static int printers_of(const struct analysis *a, struct printer **out)
{
	struct printer *p = xmalloc((a->nprogress + 1) * sizeof(*p));
	int n = 0;

	for (int i = 0; i < a->nprogress; i++) {
		const struct beat *b = &a->beats[i];

		p[i] = (struct printer){ b->rank, b->pid, b->file, b->host, b->time, -INFINITY };
	}
	qsort(p, a->nprogress, sizeof(*p), cmp_printer);
	for (int i = 0; i < a->nprogress; i++)
		if (n && !cmp_printer(&p[n - 1], &p[i]))
			latest_two(p[i].t1, &p[n - 1].t1, &p[n - 1].t2);
		else
			p[n++] = p[i];
	*out = p;
	return n;
}

/* Whether a printer of progress lines is the process a symptom names: its
 * rank; else its process id, on its node (when the lines name a host) or
 * in its file; else, for a line of the job's output naming neither, the
 * same unlabelled file.  A symptom without a time of its own has a
 * neighbouring line's: only the lines of its own file are surely later. */
static bool same_printer(const struct analysis *a, const struct symptom *s, const struct printer *p)
{
	bool in_file = false;

	for (int k = 0; k < s->nev && !in_file; k++)
		in_file = s->ev[k].file == p->file;
	if (s->first_approx && !in_file)
		return false;
	if (s->rank)
		return p->rank == atoi(s->rank);
	if (p->rank >= 0)
		return false;
	if (s->npids)
		return pid_of(s, p->pid) &&
			(p->host ? s->node >= 0 && identity_node(a->id, p->host) == s->node : in_file);
	return (s->sources & SRC_APP) && !p->pid && in_file;
}

/* Whether the process a symptom names printed two progress lines after t
 * (p: the printers, sorted by rank first). */
static bool own_progress_after(const struct analysis *a, const struct printer *p, int n,
			       const struct symptom *s, double t)
{
	double t1 = -INFINITY, t2 = -INFINITY;
	int rank = s->rank ? atoi(s->rank) : -1, lo = 0, hi = n;

	while (lo < hi) { /* the first printer of that rank */
		int mid = (lo + hi) / 2;

		if (p[mid].rank < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (int i = lo; i < n && p[i].rank == rank; i++)
		if (same_printer(a, s, &p[i])) {
			latest_two(p[i].t1, &t1, &t2);
			latest_two(p[i].t2, &t1, &t2);
		}
	return t2 > t;
}

static void scope_progress(struct analysis *a)
{
	double skew = a->cat->set.clock_skew, grace, last, silence;

	if (a->nprogress < 3)
		return;
	struct printer *pr;
	int npr = printers_of(a, &pr);

	qsort(a->progress, a->nprogress, sizeof(double), cmp_double);
	a->cadence = cadence_of(a->progress, a->nprogress);
	last = a->progress[a->nprogress - 1];
	grace = fmax(SURVIVE_CADENCES * a->cadence, SURVIVE_MIN) + skew;
	/* two progress lines well after a fault (its last occurrence: the
	 * same fault again at the end is what the job did not outlive): the
	 * job's collectives went on, so every rank, the faulted GPU's
	 * included, was still working.  Not when the fault's time is only a
	 * neighbour's (it may be later than it looks), nor when the job's own
	 * processes on that node failed right after it (ranks that do not wait
	 * for each other: the others carried on printing) */
	for (int i = 0; i < a->nsym; i++) {
		struct symptom *s = a->sym[i];

		if (!s->aside && s->code->kind == KIND_FAULT && !s->first_approx &&
		    progress_after(a, s->last + grace) >= 2 && !job_failed_near(a, s, grace))
			s->aside = ASIDE_SURVIVED;
	}
	/* any error, of whatever kind or source (a CUDA error, an exception,
	 * an NCCL warning, a worker's segfault), after whose last occurrence
	 * the same rank or process printed progress twice, well after it: it
	 * carried on, so that error did not end it (the error it did not
	 * outlive, if the same recurred, is its last occurrence) */
	for (int i = 0; i < a->nsym; i++) {
		struct symptom *s = a->sym[i];

		if (!s->aside && (s->code->kind == KIND_FAULT || s->code->kind == KIND_CONSEQUENCE) &&
		    own_progress_after(a, pr, npr, s, s->last + grace))
			s->aside = ASIDE_SURVIVED;
	}
	free(pr);
	silence = a->job.end - last;
	if (silence < fmax(HANG_CADENCES * a->cadence, HANG_MIN))
		return;
	a->hang = true;
	a->hang_since = last;
	/* what happened long into the silence did not start it; but a fault
	 * the job cannot outlive (a GPU off the bus, a task no signal ends)
	 * may be seen only late (when the kernel looks, when Slurm kills the
	 * step) and is still why it never moved again */
	double onset = last + fmax(SURVIVE_CADENCES * a->cadence, ONSET_MIN) + skew;
	for (int i = 0; i < a->nsym; i++) {
		struct symptom *s = a->sym[i];

		if (!s->aside && s->code->kind == KIND_FAULT && !s->fatal && !s->first_approx &&
		    s->first > onset)
			s->aside = ASIDE_DURING_HANG;
	}
}

/* A node that booted after a fault and before the job started: the fault
 * was its previous life's (the GPU and the driver were reset since). */
static void scope_boots(struct analysis *a)
{
	int n = a->job.nodes.n;
	double *boot = xcalloc(n + 1, sizeof(double)); /* 0: none seen */
	double start = a->job.start + a->cat->set.clock_skew;

	for (int i = 0; i < a->nsym; i++) {
		const struct symptom *s = a->sym[i];
		double t = s->last <= start ? s->last : s->first; /* the latest boot before the start */

		if ((s->code->flags & CODE_BOOT) && s->node >= 0 && !s->first_approx && t <= start &&
		    t > boot[s->node])
			boot[s->node] = t;
	}
	for (int i = 0; i < a->nsym; i++) {
		struct symptom *s = a->sym[i];

		if ((!s->aside || s->aside == ASIDE_BEFORE) && s->code->kind == KIND_FAULT && s->node >= 0 &&
		    boot[s->node] && s->last < boot[s->node])
			s->aside = ASIDE_BEFORE_BOOT;
	}
	free(boot);
}

void scope(struct analysis *a)
{
	estimate_clocks(a);
	scope_boots(a);
	scope_gpus(a);
	scope_progress(a);
	/* set aside: never a cause; a fault the job ran on through may still
	 * explain what came soon after it (correlate sets it aside after the
	 * refiners) */
	for (int i = 0; i < a->nsym; i++)
		if (a->sym[i]->aside && a->sym[i]->aside != ASIDE_SURVIVED)
			a->sym[i]->role = ROLE_INTERESTING;
}
