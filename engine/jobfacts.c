/* job.json's facts (state transitions, ranks' exits, the final state,
 * nodes that sent no evidence, a node its peers lost) written as lines
 * and scanned like a file, so rules (source: job) interpret them too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scan_parts.h"

/* A node that the ranks on two or more other nodes name as the peer they
 * lost, and whether it sent evidence: a fact for the rules, at the time the
 * first of them lost it. */
static void peers_lost(struct analysis *a, const bool *have_node, FILE *m)
{
	int n = a->job.nodes.n, with = 0;

	/* a node that sent nothing stands out only where the others did send:
	 * a case of application output alone says nothing of who vanished */
	for (int i = 0; i < n; i++)
		with += have_node[i];
	if (!with)
		return;
	bool *seen = xcalloc((size_t)n * n + 1, sizeof(bool)); /* [blamed * n + reporter] */
	int *reporters = xcalloc(n + 1, sizeof(int));
	double *when = xcalloc(n + 1, sizeof(double));

	for (int i = 0; i < a->nsym; i++) {
		const struct symptom *s = a->sym[i];
		enum located how;
		int blamed, from;

		if (!s->peer || s->aside || (blamed = identity_node(a->id, s->peer)) < 0 ||
		    (from = symptom_named_node(a, s, &how)) < 0 || from == blamed)
			continue;
		if (!reporters[blamed] || s->first < when[blamed])
			when[blamed] = s->first;
		if (!seen[(size_t)blamed * n + from]) {
			seen[(size_t)blamed * n + from] = true;
			reporters[blamed]++;
		}
	}
	for (int i = 0; i < n; i++)
		if (reporters[i] >= 2) {
			char t[48];

			time_format(when[i], t, sizeof(t));
			fprintf(m, "%s peers_lost node=%s reporters=%d evidence=%s\n", t, a->job.nodes.v[i],
				reporters[i], have_node[i] ? "present" : "missing");
		}
	free(seen);
	free(reporters);
	free(when);
}

/* job.json facts as lines, so rules (source: job) interpret them too. */
void scan_job_facts(struct analysis *a, const bool *have_node)
{
	const struct job *j = &a->job;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	struct json_object *tr;

	if (json_object_object_get_ex(j->root, "transitions", &tr) &&
	    json_object_is_type(tr, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(tr) && i < 1000; i++) {
			struct json_object *t = json_object_array_get_idx(tr, i), *s, *r, *tm;

			if (!json_object_object_get_ex(t, "state", &s))
				continue;
			fprintf(m, "%s transition state=%s reason=%s\n",
				json_object_object_get_ex(t, "time", &tm) ? json_object_get_string(tm) : "-",
				json_object_get_string(s),
				json_object_object_get_ex(t, "reason", &r) ? json_object_get_string(r) : "-");
		}
	}
	for (int i = 0; i < j->nranks; i++) {
		const struct rank_info *r = &j->ranks[i];
		char t[40] = "-";

		if (!r->has_exit)
			continue;
		if (r->exit_time)
			time_format(r->exit_time, t, sizeof(t));
		fprintf(m, "%s rank=%d node=%s gpu=%s exit_code=%d signal=%d\n", t, r->rank,
			r->node >= 0 ? j->nodes.v[r->node] : "-", r->gpu ? r->gpu : "-", r->exit_code,
			r->signal);
	}
	/* the GPUs it was allocated, a fact from its start: "no CUDA device"
	 * is the user's request without GPUs, or a node that lost them */
	if (j->gpus >= 0) {
		char start[48];

		time_format(j->start, start, sizeof(start));
		fprintf(m, "%s allocation gpus=%lld\n", start, j->gpus);
	}
	/* the final state and missing evidence are facts at the job's end */
	char end[48];
	time_format(j->end, end, sizeof(end));
	for (int i = 0; i < j->nodes.n; i++)
		if (!have_node[i])
			fprintf(m, "%s evidence=missing node=%s\n", end, j->nodes.v[i]);
	peers_lost(a, have_node, m);
	fprintf(m, "%s state=%s reason=%s exit_code=%s derived_exit_code=%s\n", end, j->state,
		j->reason ? j->reason : "-", j->exit_code ? j->exit_code : "-",
		j->derived_exit_code ? j->derived_exit_code : "-");
	fclose(m);
	strlist_add(&a->files, CASE_JOB);
	struct scan_out out = { 0 };
	scan_range(a, a->files.n - 1, SRC_JOB, NULL, buf, len, 0, len, false, true, false, len, &out);
	file_coverage(a, a->files.n - 1, out.failed, out.long_lines, out.limit_hits, false);
	free(buf);
}
