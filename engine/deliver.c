/* An extracted event's way into the analysis: its file, line and time,
 * the job's window (a node's history before it kept as context), another
 * job's lines set aside, the application's progress lines, one event per
 * node of a host list, and identity lines (learnt at once, or deferred to
 * the merge when a worker scans the file). */
#include <stdlib.h>
#include <string.h>
#include "scan_parts.h"

static bool same_job(const struct analysis *a, const char *jobid)
{
	const char *id = a->job.job_id;
	size_t n = strlen(id);

	/* 4242, 4242.0 (a step), 4242.batch */
	if (!strncmp(jobid, id, n) && (!jobid[n] || jobid[n] == '.'))
		return true;
	/* an array task (4242_7) or a het-job component (4242+1) known by
	 * that name: the logs print its raw numeric id, which job.json does
	 * not give, so a number cannot be told to be another job's */
	return id[strspn(id, "0123456789")] == '_' || id[strspn(id, "0123456789")] == '+'
		? jobid[strspn(jobid, "0123456789")] == '\0' || jobid[strspn(jobid, "0123456789")] == '.'
		: false;
}

static void deliver_one(struct file_scan *f, struct event *ev, size_t start, size_t end);

static void progress_add(struct analysis *a, const struct event *ev)
{
	const char *rank = event_field(ev, "rank"), *pid = event_field(ev, "pid"),
		   *host = event_field(ev, "node");

	if (a->nprogress == a->capprogress) {
		a->capprogress = a->capprogress * 2 + 64;
		a->progress = xrealloc(a->progress, a->capprogress * sizeof(double));
		a->beats = xrealloc(a->beats, a->capprogress * sizeof(*a->beats));
	}
	a->beats[a->nprogress] = (struct beat){
		ev->time, ev->file,
		rank && *rank && strspn(rank, "0123456789") == strlen(rank) ? atoi(rank) : -1,
		pid && *pid && strspn(pid, "0123456789") == strlen(pid) ? atol(pid) : 0,
		host && *host ? strdup_or_die(host) : NULL
	};
	a->progress[a->nprogress++] = ev->time;
	if (!a->last_progress.text || ev->time >= a->last_progress.time) {
		free(a->last_progress.text);
		a->last_progress = (struct evidence){ ev->file, ev->line, ev->time,
						      text_sanitise(ev->text, ev->text_len, 2000) };
	}
}

/* One event per node of a hostlist ("Nodes node-[02-03] not responding"). */
static bool deliver_nodelist(struct file_scan *f, struct event *ev, size_t start, size_t end)
{
	const char *list = event_field(ev, "nodelist");
	struct strlist hosts = { 0 };

	if (!list || event_field(ev, "node") || !hostlist_expand(list, &hosts, 4096)) {
		strlist_free(&hosts);
		return false;
	}
	for (int i = 0; i < hosts.n; i++) {
		struct event copy;

		event_copy(&copy, ev);
		event_set(&copy, "node", hosts.v[i], strlen(hosts.v[i]));
		deliver_one(f, &copy, start, end);
		event_clear(&copy);
	}
	strlist_free(&hosts);
	return true;
}

/* srun's task id is the global rank when srun launched one task per rank,
 * which the job's ranks show by recording each task's exit. */
static void task_as_rank(const struct analysis *a, struct event *ev)
{
	const char *task = event_field(ev, "task");

	if (!task || !a->job.ranks_exit || event_field(ev, "rank"))
		return;
	event_set(ev, "rank", task, strlen(task));
}

void deliver(struct file_scan *f, struct event *ev, size_t start, size_t end)
{
	task_as_rank(f->a, ev);
	if (!deliver_nodelist(f, ev, start, end))
		deliver_one(f, ev, start, end);
}

/* Window, job id and identity, then into the symptom table. */
static void deliver_one(struct file_scan *f, struct event *ev, size_t start, size_t end)
{
	struct analysis *a = f->a;
	const char *jobid = event_field(ev, "jobid");

	ev->file = f->file;
	ev->source = f->source;
	ev->file_node = f->node;
	ev->low_trust = ev->low_trust || origin_low_trust(f->origin); /* or a quoted kernel line */
	ev->line = line_number(f, start);
	ev->text = f->buf + start;
	ev->text_len = end - start;
	bool fault = ev->code->kind == KIND_FAULT;

	/* another job's fault is kept as context (set aside), anything else
	 * of another job is not this job's news */
	if (jobid && !same_job(a, jobid)) {
		f->other_jobs++;
		if (!fault)
			return;
		ev->aside = ASIDE_OTHER_JOB;
	}
	if ((ev->code->flags & CODE_PROGRESS)) {
		/* the application's pulse: only a line that carries its own time
		 * says when the job was alive (and it is no neighbour that dates
		 * other lines: that stays as it was without it) */
		if (ev->has_time && !ev->aside && ev->time >= a->job.start - a->cat->set.window_before &&
		    ev->time <= a->job.end + a->cat->set.window_after)
			progress_add(a, ev);
		return;
	}
	if (ev->has_time) {
		const struct settings *set = &a->cat->set;
		double after = (ev->code->flags & CODE_REPORTED_LATE) ? set->report_lag : set->window_after;

		f->prev_time = ev->time;
		f->prev_found = true;
		if (ev->time > a->job.end + (after > set->window_after ? after : set->window_after)) {
			f->out_of_window++;
			if (f->recording)
				record_add(f, ev, false, false);
			return;
		}
		if (ev->time < a->job.start - set->window_before) {
			/* a node's faults of the hours before are its history: context
			 * that can show a fault following a GPU rather than a program */
			if (!(fault || (ev->code->flags & CODE_BOOT)) || !(f->source & SRC_NODE) ||
			    ev->time < a->job.start - set->history) {
				f->out_of_window++;
				if (f->recording)
					record_add(f, ev, false, false);
				return;
			}
			ev->aside = ASIDE_BEFORE;
		}
	} else if (f->recording) {
		struct record *r;

		size_t line_end = line_end_of(f, start);

		ev->approx = true;
		ev->no_later = true; /* unless the chunks' merge finds a previous line's time */
		a->events++;
		record_add(f, ev, true, true);
		r = &f->rec[f->nrec - 1];
		r->q_start = end >= line_end;
		r->q_line = r->q_start ? ev->line + 1 : ev->line;
		r->t_found = timed_from(f, line_end < f->len ? line_end + 1 : f->len, ev->line + 1,
					&r->t_line, &r->t_time);
		return;
	} else {
		ev->no_later = neighbour_time(f, start, end, &ev->time);
		ev->approx = true;
	}
	a->events++;
	if (f->recording) {
		record_add(f, ev, false, true);
		return;
	}
	symptom_add_event(a, ev);
}

void learn_identity(struct file_scan *f, struct event *ev)
{
	struct identity *id = f->a->id;

	if (f->a->deferring) { /* a worker's file: later, in file order */
		struct analysis *a = f->a;

		if (a->ndefer == a->capdefer)
			a->defer = xrealloc(a->defer,
					    (a->capdefer = a->capdefer * 2 + 16) * sizeof(*a->defer));
		struct deferred_identity *d = &a->defer[a->ndefer++];

		/* its names and values, packed (the caller's event is left empty) */
		*d = (struct deferred_identity){ .at = fields_pack(&a->defer_store, &ev->f),
						 .source = f->source,
						 .node = f->node };
		return;
	}
	const char *host = event_field(ev, "node");
	int node = host ? identity_node(id, host) : -1;
	const char *v;

	if (node < 0 && (f->source & SRC_NODE))
		node = identity_node(id, f->node);
	if (node < 0)
		return;
	if ((v = event_field(ev, "ip")))
		identity_learn_ip(id, v, node);
	if ((v = event_field(ev, "rank")))
		identity_learn_rank(id, atoi(v), node);
	if ((v = event_field(ev, "pci")))
		identity_learn_gpu(id, node, event_field(ev, "gpu"), event_field(ev, "pid"), v);
}
