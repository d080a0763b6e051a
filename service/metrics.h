/* attribd, metrics.c: counters for GET /metrics. */
#ifndef ATTRIB_METRICS_H
#define ATTRIB_METRICS_H

#include <json-c/json.h>
#include <stdatomic.h>
#include <time.h>
#include "contract.h"
#include "store.h"

enum reject_reason {
	REJ_NO_CREDENTIAL, /* 401 */
	REJ_INVALID,	   /* 403: not a credential of our realm, bad MAC, ... */
	REJ_EXPIRED,	   /* 403 */
	REJ_REWOUND,	   /* 403 */
	REJ_REPLAYED,	   /* 403 */
	REJ_UID,	   /* 403: not root */
	REJ_PAYLOAD,	   /* 403: not attrib-bundle:v1:JOB:NODE:HASH */
	REJ_HASH,	   /* 403: the body is not the one the credential names */
	REJ_TOO_LARGE,	   /* 413 */
	REJ_BAD_BODY,	   /* 400: not a bundle, or not the credential's job/node */
	REJ_MUNGE_DOWN,	   /* 503: munged did not answer */
	REJ_INTERNAL,	   /* 500 */
	REJ_ORIGIN,	   /* 403: the credential was not made on the node it names */
	REJ_N
};

/* Label sets of the counters below (metrics.c names them). */
enum { SUBDOM_N = SUB_DOMAIN_N + 1 }; /* contract.h's sub-domains, then "other" */
/* a coverage entry's source: a kind of evidence (common/evidence.h: its
 * case folder, or its rules' word), or a node's bundle's own entry
 * ("nodes/NODE:SOURCE") by the collector's source */
enum cov_source {
	COV_KERNEL_LOG = EVIDENCE_KINDS,
	COV_JOURNAL,
	COV_KMSG,
	COV_LOG_FILE,
	COV_OTHER,
	COV_SRC_N
};
enum cov_status { COV_MISSING, COV_ERROR, COV_ST_OTHER, COV_ST_N };
/* drain decisions recorded in the store, as /metrics counts them */
enum drain_stat {
	DSTAT_DONE,
	DSTAT_FORCED,
	DSTAT_SUGGESTED,
	DSTAT_DRY_RUN,
	DSTAT_REFUSED,
	DSTAT_FAILED,
	DSTAT_OTHER,
	DSTAT_N
};
/* requeue decisions recorded in the store, as /metrics counts them */
enum requeue_stat { RQSTAT_DONE, RQSTAT_SUGGESTED, RQSTAT_REFUSED, RQSTAT_FAILED, RQSTAT_OTHER, RQSTAT_N };
#define LATENCY_BUCKETS 11 /* seconds; then +Inf */

struct histogram {
	atomic_ulong bucket[LATENCY_BUCKETS]; /* cumulative at render time, not here */
	atomic_ulong count;
	atomic_ullong sum_us; /* microseconds */
};

struct metrics {
	atomic_ulong bundles_accepted;
	atomic_ulong bundles_rejected[REJ_N];
	atomic_ulong jobs_attributed;
	atomic_ulong jobs_not_attributed; /* end state not in AttributeStates */
	atomic_ulong engine_unusable;	  /* attrib_analyze said the case is unusable */
	atomic_ulong comments_written;
	atomic_ulong comment_failures;
	atomic_long comment_queue; /* gauge: comments waiting */
	atomic_ulong reconcile_runs;
	atomic_ulong reconcile_failures;
	atomic_ulong reconciled_jobs;
	atomic_long pending_jobs; /* gauge: records waiting for bundles */
	atomic_ulong jobs_by_sub_domain[SUBDOM_N];
	atomic_ulong coverage_gaps[COV_SRC_N][COV_ST_N]; /* stored results' entries */
	struct histogram attribution_latency;		 /* job end -> result stored */
	struct histogram analysis_duration;		 /* case build + engine */
	atomic_ulong drains[DSTAT_N];			 /* recorded by this process */
	atomic_ulong requeues[RQSTAT_N];		 /* recorded by this process */
	atomic_ulong webhook_delivered;
	atomic_ulong webhook_failures;
	atomic_long webhook_queue;	   /* gauge: deliveries waiting */
	atomic_ulong http_refused_address; /* closed at accept: not in AllowFrom */
	atomic_ulong http_header_timeouts; /* closed: headers slower than HttpHeaderTimeout */
	atomic_ulong jobs_revised;	   /* diagnoses redone for late evidence */
	/* the dashboard's: closed at accept (DashboardAllowFrom), cut at
	 * HttpHeaderTimeout, refused for their Host (DashboardHosts) */
	atomic_ulong dashboard_refused_address, dashboard_header_timeouts, dashboard_refused_host;
	/* gauges of the GPU-hours lost in the last ReportWindow (store/report.h),
	 * in thousandths, by domain; shown once computed (hours_lost_set) */
	atomic_ullong gpu_mhours_lost[4];
	atomic_long hours_lost_jobs, hours_lost_unknown;
	atomic_bool hours_lost_set;
	atomic_ulong health_reports;  /* health checks of nodes accepted */
	atomic_ulong health_failed;   /* of which the check failed */
	atomic_ulong undrains[4];     /* by enum undrain_decision, recorded */
	atomic_ulong findings_repeat; /* repeat-offender findings raised */
	/* the admins' labels of the results of the last ReportWindow
	 * (store_accuracy): per sub-domain of the result, labelled and agreed
	 * with; the drains the labels clear; shown once computed */
	atomic_long label_count[SUB_DOMAIN_N], label_agree[SUB_DOMAIN_N];
	atomic_long false_drains;
	atomic_bool accuracy_set;
};
extern struct metrics svc_metrics;
const char *reject_name(enum reject_reason r);
/* Prometheus text format; the caller frees. */
char *metrics_render(void);
/* A result was stored: its sub-domain, its coverage gaps, the time from
 * the job's end (RFC 3339, may be NULL) and since began (CLOCK_MONOTONIC,
 * when its case was started). */
void metrics_note_result(struct json_object *result, const char *job_end, const struct timespec *began);
/* The GPU-hours lost gauges, from the store: failed jobs ended in
 * [since, until]. */
struct store;
void metrics_note_hours_lost(struct store *s, long long since, long long until);
/* The labels' gauges, from the store: results stored since since. */
void metrics_note_accuracy(struct store *s, long long since);
/* A drain decision was recorded (store_add_drain's decision). */
void metrics_note_drain(const char *decision);
/* A requeue decision was recorded (requeue_row's decision). */
void metrics_note_requeue(const char *decision);

#endif
