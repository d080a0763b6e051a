/* Counters of the service, shown by GET /metrics (Prometheus text format). */
#include <stdlib.h>
#include <string.h>
#include "service.h"

struct metrics svc_metrics;

static const char *const reject_names[REJ_N] = {
	[REJ_NO_CREDENTIAL] = "no_credential", [REJ_INVALID] = "invalid",
	[REJ_EXPIRED] = "expired",	       [REJ_REWOUND] = "rewound",
	[REJ_REPLAYED] = "replayed",	       [REJ_UID] = "not_root",
	[REJ_PAYLOAD] = "bad_payload",	       [REJ_HASH] = "body_hash",
	[REJ_TOO_LARGE] = "too_large",	       [REJ_BAD_BODY] = "bad_body",
	[REJ_MUNGE_DOWN] = "munge_unavailable", [REJ_INTERNAL] = "internal_error",
};

const char *reject_name(enum reject_reason r)
{
	return r < REJ_N ? reject_names[r] : "ok";
}

char *metrics_render(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct metrics *m = &svc_metrics;

	if (!f)
		return NULL;
#define COUNTER(name, help, v)                                                   \
	fprintf(f, "# HELP attrib_" name " " help "\n# TYPE attrib_" name " counter\n" \
		   "attrib_" name " %lu\n", (unsigned long)atomic_load(&(v)))
#define GAUGE(name, help, v)                                                     \
	fprintf(f, "# HELP attrib_" name " " help "\n# TYPE attrib_" name " gauge\n" \
		   "attrib_" name " %ld\n", (long)atomic_load(&(v)))
	COUNTER("bundles_accepted_total", "Bundles written to the incoming spool.",
		m->bundles_accepted);
	fputs("# HELP attrib_bundles_rejected_total Bundles refused, by reason.\n"
	      "# TYPE attrib_bundles_rejected_total counter\n", f);
	for (int r = 0; r < REJ_N; r++)
		fprintf(f, "attrib_bundles_rejected_total{reason=\"%s\"} %lu\n", reject_names[r],
			(unsigned long)atomic_load(&m->bundles_rejected[r]));
	COUNTER("jobs_attributed_total", "Job attempts diagnosed and stored.", m->jobs_attributed);
	COUNTER("jobs_not_attributed_total", "Job attempts whose end state is not in AttributeStates.",
		m->jobs_not_attributed);
	COUNTER("engine_unusable_total", "Cases the engine found unusable (stored as unattributed).",
		m->engine_unusable);
	COUNTER("comments_written_total", "Summaries appended to the accounting record.",
		m->comments_written);
	COUNTER("comment_failures_total", "Failed attempts to write a summary (retried).",
		m->comment_failures);
	GAUGE("comment_queue", "Summaries waiting to be written.", m->comment_queue);
	GAUGE("pending_jobs", "Job records waiting for bundles.", m->pending_jobs);
	COUNTER("reconcile_runs_total", "Reconciliations with slurmdbd.", m->reconcile_runs);
	COUNTER("reconcile_failures_total", "Reconciliations that failed.", m->reconcile_failures);
	COUNTER("reconciled_jobs_total", "Jobs found by reconciliation without a result.",
		m->reconciled_jobs);
	fputs("# HELP attrib_drain_decisions_total Drain decisions of the policy (attrib serve), by decision.\n"
	      "# TYPE attrib_drain_decisions_total counter\n", f);
	for (int d = DECIDE_DRAIN; d <= DECIDE_FAILED; d++)
		fprintf(f, "attrib_drain_decisions_total{decision=\"%s\"} %lu\n", drain_decision_name(d),
			(unsigned long)atomic_load(&m->drain_decisions[d]));
#undef COUNTER
#undef GAUGE
	fclose(f);
	return buf;
}
