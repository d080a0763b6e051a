/* Counters of the service, shown by GET /metrics (Prometheus text format). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "contract.h"
#include "findings.h"
#include "jsonread.h"
#include "label.h"
#include "log.h"
#include "metrics.h"
#include "nodedrains.h"
#include "report.h"
#include "requeue.h"
#include "store.h"
#include "timefmt.h"

struct metrics svc_metrics;

static const char *const reject_names[REJ_N] = {
	[REJ_NO_CREDENTIAL] = "no_credential",
	[REJ_INVALID] = "invalid",
	[REJ_EXPIRED] = "expired",
	[REJ_REWOUND] = "rewound",
	[REJ_REPLAYED] = "replayed",
	[REJ_UID] = "not_root",
	[REJ_PAYLOAD] = "bad_payload",
	[REJ_HASH] = "body_hash",
	[REJ_TOO_LARGE] = "too_large",
	[REJ_BAD_BODY] = "bad_body",
	[REJ_MUNGE_DOWN] = "munge_unavailable",
	[REJ_INTERNAL] = "internal_error",
	[REJ_ORIGIN] = "origin",
};

const char *reject_name(enum reject_reason r)
{
	return r < REJ_N ? reject_names[r] : "ok";
}

/* the collector's sources after the kinds (cov_source_label) */
static const char *const node_sources[COV_SRC_N - EVIDENCE_KINDS] = { "kernel_log", "journal", "kmsg",
								      "log_file", "other" };
static const char *const cov_statuses[COV_ST_N] = { COVERAGE_MISSING, COVERAGE_ERROR, "other" };
static const char *const requeue_stats[RQSTAT_N] = { "requeued", "suggested", "refused", "failed", "other" };
static const char *const drain_stats[DSTAT_N] = {
	"drained", "forced", "suggested", "dry_run", "refused", "failed", "other",
};
/* seconds: a job's result is usually stored within BundleDeadline */
static const double latency_le[LATENCY_BUCKETS] = { 1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 21600 };
static const double analysis_le[LATENCY_BUCKETS] = { 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60 };

static void observe(struct histogram *h, const double *le, double seconds)
{
	if (seconds < 0)
		seconds = 0;
	for (int i = 0; i < LATENCY_BUCKETS; i++)
		if (seconds <= le[i]) {
			atomic_fetch_add(&h->bucket[i], 1);
			break;
		}
	atomic_fetch_add(&h->count, 1);
	atomic_fetch_add(&h->sum_us, (unsigned long long)(seconds * 1e6));
}

static const char *cov_source_label(int i)
{
	const struct evidence_kind_row *k = i < EVIDENCE_KINDS ? &evidence_kinds[i] : NULL;

	return k ? (k->dir ? k->dir : k->source) : node_sources[i - EVIDENCE_KINDS];
}

static int cov_source_of(const char *src)
{
	int k = evidence_kind_of_path(src);
	const char *s;

	if (k != EVIDENCE_NODE)
		return k >= 0 ? k : COV_OTHER;
	/* casebuild.c names a bundle's entries nodes/NODE:SOURCE */
	if (!(s = strchr(src, ':')))
		return EVIDENCE_NODE;
	s++;
	if (!strcmp(s, NODE_SOURCE_KERNEL_LOG))
		return COV_KERNEL_LOG;
	if (!strcmp(s, NODE_SOURCE_JOURNAL) || !strncmp(s, NODE_SOURCE_JOURNAL ":", 8))
		return COV_JOURNAL;
	if (!strcmp(s, NODE_SOURCE_KMSG))
		return COV_KMSG;
	return *s == '/' ? COV_LOG_FILE : EVIDENCE_NODE;
}

/* "2026-11-29T08:14:07Z" (or without Z, or with fractions) -> Unix time */
void metrics_note_result(struct json_object *result, const char *job_end, const struct timespec *began)
{
	struct result_view rv;
	struct json_object *cov;
	struct timespec now;
	double end;
	int i;

	result_view_of(result, &rv);
	/* a sub-domain contract.h does not list is counted as "other", so
	 * that a label never comes from stored text */
	i = sub_domain_index(rv.sub_domain);
	atomic_fetch_add(&svc_metrics.jobs_by_sub_domain[i < 0 ? SUB_DOMAIN_N : i], 1);
	if ((cov = rv.coverage))
		for (size_t k = 0; k < json_object_array_length(cov); k++) {
			struct json_object *c = json_object_array_get_idx(cov, k);
			const char *st = json_str(c, "status");
			enum cov_status cs = !st		? COV_ST_OTHER
				: !strcmp(st, COVERAGE_MISSING) ? COV_MISSING
				: !strcmp(st, COVERAGE_ERROR)	? COV_ERROR
								: COV_ST_OTHER;

			atomic_fetch_add(&svc_metrics.coverage_gaps[cov_source_of(json_str(c, "source"))][cs],
					 1);
		}
	if (job_end && time_parse_rfc3339(job_end, &end))
		observe(&svc_metrics.attribution_latency, latency_le, (double)time(NULL) - end);
	if (began) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		observe(&svc_metrics.analysis_duration, analysis_le,
			(double)(now.tv_sec - began->tv_sec) + (now.tv_nsec - began->tv_nsec) / 1e9);
	}
}

void metrics_note_drain(const char *decision)
{
	static const struct {
		const char *text;
		enum drain_stat stat;
	} known[] = {
		{ DRAIN_DONE, DSTAT_DONE },	      { DRAIN_DONE_FORCED, DSTAT_FORCED },
		{ DRAIN_SUGGESTED, DSTAT_SUGGESTED }, { DRAIN_DRY_RUN, DSTAT_DRY_RUN },
		{ DRAIN_REFUSED, DSTAT_REFUSED },     { DRAIN_FAILED, DSTAT_FAILED },
	};
	enum drain_stat d = DSTAT_OTHER;

	for (size_t i = 0; decision && i < sizeof(known) / sizeof(*known); i++)
		if (!strcmp(decision, known[i].text))
			d = known[i].stat;
	atomic_fetch_add(&svc_metrics.drains[d], 1);
}

void metrics_note_requeue(const char *decision)
{
	static const char *const known[] = { [RQSTAT_DONE] = REQUEUE_DONE,
					     [RQSTAT_SUGGESTED] = REQUEUE_SUGGESTED,
					     [RQSTAT_REFUSED] = REQUEUE_REFUSED,
					     [RQSTAT_FAILED] = REQUEUE_FAILED };
	enum requeue_stat d = RQSTAT_OTHER;

	for (int i = 0; decision && i < RQSTAT_OTHER; i++)
		if (!strcmp(decision, known[i]))
			d = (enum requeue_stat)i;
	atomic_fetch_add(&svc_metrics.requeues[d], 1);
}

static void render_histogram(FILE *f, const char *name, const char *help, struct histogram *h,
			     const double *le)
{
	unsigned long cum = 0;

	fprintf(f, "# HELP attrib_%s %s\n# TYPE attrib_%s histogram\n", name, help, name);
	for (int i = 0; i < LATENCY_BUCKETS; i++) {
		cum += atomic_load(&h->bucket[i]);
		fprintf(f, "attrib_%s_bucket{le=\"%g\"} %lu\n", name, le[i], cum);
	}
	fprintf(f, "attrib_%s_bucket{le=\"+Inf\"} %lu\n", name, (unsigned long)atomic_load(&h->count));
	fprintf(f, "attrib_%s_sum %.6f\n", name, atomic_load(&h->sum_us) / 1e6);
	fprintf(f, "attrib_%s_count %lu\n", name, (unsigned long)atomic_load(&h->count));
}

void metrics_note_hours_lost(store *s, long long since, long long until)
{
	struct report_totals t;
	char err[256];

	if (store_report_totals(s, since, until, &t, err, sizeof(err)) < 0) {
		log_msg(LOGL_WARNING, "metrics: GPU-hours lost not computed: %s", err);
		return;
	}
	for (int i = 0; i < REPORT_NDOMAINS; i++)
		atomic_store(&svc_metrics.gpu_mhours_lost[i], (unsigned long long)(t.domain[i] * 1000 + 0.5));
	atomic_store(&svc_metrics.hours_lost_jobs, (long)t.jobs);
	atomic_store(&svc_metrics.hours_lost_unknown, (long)t.unknown_gpus);
	atomic_store(&svc_metrics.hours_lost_set, true);
}

void metrics_note_accuracy(store *s, long long since)
{
	struct json_object *r = store_accuracy(s, since, 0, "sub_domain"), *groups, *v;

	if (!r) {
		log_msg(LOGL_WARNING, "metrics: the labels' agreement not computed (the store)");
		return;
	}
	for (int i = 0; i < SUB_DOMAIN_N; i++) {
		atomic_store(&svc_metrics.label_count[i], 0);
		atomic_store(&svc_metrics.label_agree[i], 0);
	}
	json_object_object_get_ex(r, "groups", &groups);
	for (size_t i = 0; i < json_object_array_length(groups); i++) {
		struct json_object *g = json_object_array_get_idx(groups, i);
		int k = sub_domain_index(json_str(g, "sub_domain"));

		if (k < 0)
			continue;
		if (json_object_object_get_ex(g, "labelled", &v))
			atomic_store(&svc_metrics.label_count[k], (long)json_object_get_int64(v));
		if (json_object_object_get_ex(g, "sub_domain_agree", &v))
			atomic_store(&svc_metrics.label_agree[k], (long)json_object_get_int64(v));
	}
	if (json_object_object_get_ex(r, "false_drains", &v))
		atomic_store(&svc_metrics.false_drains, (long)json_object_get_int64(v));
	atomic_store(&svc_metrics.accuracy_set, true);
	json_object_put(r);
}

/* the labels' gauges, once computed: a sub-domain without labels has no
 * ratio (not 0: nothing is known of it) */
static void render_accuracy(FILE *f, const struct metrics *m)
{
	if (!atomic_load(&m->accuracy_set))
		return;
	fputs("# HELP attrib_label_agreement_ratio Of the results of the last ReportWindow an admin"
	      " labelled, the share whose sub-domain the latest label confirms, by the result's"
	      " sub-domain (attrib report --accuracy).\n# TYPE attrib_label_agreement_ratio gauge\n",
	      f);
	for (int i = 0; i < SUB_DOMAIN_N; i++) {
		long n = atomic_load(&m->label_count[i]);

		if (n > 0)
			fprintf(f, "attrib_label_agreement_ratio{sub_domain=\"%s\"} %.4f\n",
				contract_sub_domains[i], (double)atomic_load(&m->label_agree[i]) / n);
	}
	fprintf(f,
		"# HELP attrib_false_drains_total Nodes drained for the results of the last ReportWindow"
		" that their latest label clears (attrib report --accuracy).\n"
		"# TYPE attrib_false_drains_total gauge\nattrib_false_drains_total %ld\n",
		(long)atomic_load(&m->false_drains));
}

/* the GPU-hours lost gauges, once computed */
static void render_hours_lost(FILE *f, const struct metrics *m)
{
	if (!atomic_load(&m->hours_lost_set))
		return;
	fputs("# HELP attrib_gpu_hours_lost GPU-hours of the failed jobs that ended in the last"
	      " ReportWindow, by domain (attrib report).\n# TYPE attrib_gpu_hours_lost gauge\n",
	      f);
	for (int i = 0; i < REPORT_NDOMAINS; i++)
		fprintf(f, "attrib_gpu_hours_lost{domain=\"%s\"} %.3f\n", report_domains[i],
			atomic_load(&m->gpu_mhours_lost[i]) / 1000.0);
	fprintf(f,
		"# HELP attrib_gpu_hours_lost_jobs Failed job attempts that ended in the last ReportWindow.\n"
		"# TYPE attrib_gpu_hours_lost_jobs gauge\nattrib_gpu_hours_lost_jobs %ld\n"
		"# HELP attrib_gpu_hours_lost_unknown_jobs Those without a GPU count (not in"
		" attrib_gpu_hours_lost).\n# TYPE attrib_gpu_hours_lost_unknown_jobs gauge\n"
		"attrib_gpu_hours_lost_unknown_jobs %ld\n",
		(long)atomic_load(&m->hours_lost_jobs), (long)atomic_load(&m->hours_lost_unknown));
}

char *metrics_render(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct metrics *m = &svc_metrics;

	if (!f)
		return NULL;
#define COUNTER(name, help, v) \
	fprintf(f, \
		"# HELP attrib_" name " " help "\n# TYPE attrib_" name " counter\n" \
		"attrib_" name " %lu\n", \
		(unsigned long)atomic_load(&(v)))
#define GAUGE(name, help, v) \
	fprintf(f, \
		"# HELP attrib_" name " " help "\n# TYPE attrib_" name " gauge\n" \
		"attrib_" name " %ld\n", \
		(long)atomic_load(&(v)))
	COUNTER("bundles_accepted_total", "Bundles written to the incoming spool.", m->bundles_accepted);
	fputs("# HELP attrib_bundles_rejected_total Bundles refused, by reason.\n"
	      "# TYPE attrib_bundles_rejected_total counter\n",
	      f);
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
	fputs("# HELP attrib_jobs_attributed_by_sub_domain_total Job attempts diagnosed and stored,"
	      " by sub-domain.\n# TYPE attrib_jobs_attributed_by_sub_domain_total counter\n",
	      f);
	for (int i = 0; i < SUBDOM_N; i++)
		fprintf(f, "attrib_jobs_attributed_by_sub_domain_total{sub_domain=\"%s\"} %lu\n",
			i < SUB_DOMAIN_N ? contract_sub_domains[i] : "other",
			(unsigned long)atomic_load(&m->jobs_by_sub_domain[i]));
	fputs("# HELP attrib_coverage_gaps_total Evidence sources missing or in error in stored"
	      " results, by source and status.\n# TYPE attrib_coverage_gaps_total counter\n",
	      f);
	for (int i = 0; i < COV_SRC_N; i++)
		for (int k = 0; k < COV_ST_N; k++)
			fprintf(f, "attrib_coverage_gaps_total{source=\"%s\",status=\"%s\"} %lu\n",
				cov_source_label(i), cov_statuses[k],
				(unsigned long)atomic_load(&m->coverage_gaps[i][k]));
	render_histogram(f, "attribution_latency_seconds", "Seconds from a job's end to its stored result.",
			 &m->attribution_latency, latency_le);
	render_histogram(f, "analysis_duration_seconds", "Seconds to build a job's case and run the engine.",
			 &m->analysis_duration, analysis_le);
	fputs("# HELP attrib_drains_total Drain decisions recorded by the service, by decision.\n"
	      "# TYPE attrib_drains_total counter\n",
	      f);
	for (int i = 0; i < DSTAT_N; i++)
		fprintf(f, "attrib_drains_total{decision=\"%s\"} %lu\n", drain_stats[i],
			(unsigned long)atomic_load(&m->drains[i]));
	fputs("# HELP attrib_requeues_total Requeue decisions recorded by the service, by decision.\n"
	      "# TYPE attrib_requeues_total counter\n",
	      f);
	for (int i = 0; i < RQSTAT_N; i++)
		fprintf(f, "attrib_requeues_total{decision=\"%s\"} %lu\n", requeue_stats[i],
			(unsigned long)atomic_load(&m->requeues[i]));
	COUNTER("health_reports_total", "Health checks of nodes (attrib-collect --health) accepted.",
		m->health_reports);
	COUNTER("health_failed_total", "Accepted health checks whose check failed or timed out.",
		m->health_failed);
	fputs("# HELP attrib_undrains_total Undrain decisions recorded by the service, by decision.\n"
	      "# TYPE attrib_undrains_total counter\n",
	      f);
	for (int i = 0; i < 4; i++)
		fprintf(f, "attrib_undrains_total{decision=\"%s\"} %lu\n",
			(const char *[]){ "undrained", "suggested", "refused", "failed" }[i],
			(unsigned long)atomic_load(&m->undrains[i]));
	COUNTER("webhook_delivered_total", "Results POSTed to the Webhook and accepted (2xx).",
		m->webhook_delivered);
	COUNTER("webhook_failures_total", "Failed Webhook deliveries (retried with backoff).",
		m->webhook_failures);
	GAUGE("webhook_queue", "Results waiting to be delivered to the Webhook.", m->webhook_queue);
	COUNTER("http_refused_address_total",
		"Connections closed at accept: the address is not in AllowFrom.", m->http_refused_address);
	COUNTER("http_header_timeouts_total",
		"Connections closed: no complete request head within HttpHeaderTimeout.",
		m->http_header_timeouts);
	COUNTER("jobs_revised_total", "Stored diagnoses redone because evidence arrived late.",
		m->jobs_revised);
	COUNTER("dashboard_refused_address_total",
		"Dashboard connections closed at accept: the address is not in DashboardAllowFrom.",
		m->dashboard_refused_address);
	COUNTER("dashboard_header_timeouts_total",
		"Dashboard connections closed: no complete request head within HttpHeaderTimeout.",
		m->dashboard_header_timeouts);
	COUNTER("dashboard_refused_host_total",
		"Dashboard requests refused (421, or 400 without one) for their Host: not in DashboardHosts.",
		m->dashboard_refused_host);
	render_hours_lost(f, m);
	render_accuracy(f, m);
	fputs("# HELP attrib_findings_total Fleet findings raised by the service, by kind.\n"
	      "# TYPE attrib_findings_total counter\n",
	      f);
	fprintf(f, "attrib_findings_total{kind=\"%s\"} %lu\n", FINDING_REPEAT_OFFENDER,
		(unsigned long)atomic_load(&m->findings_repeat));
#undef COUNTER
#undef GAUGE
	fclose(f);
	return buf;
}
