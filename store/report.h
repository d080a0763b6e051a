/* Hours lost: the GPU-hours that failed jobs cost, from the store (`attrib
 * report`, attribd's /metrics gauges and the dashboard's /api/v1/report
 * call this one function).
 *
 * Each stored result whose outcome is Fail (every sub-domain but Pass)
 * and whose job ended in [since, until] costs (ended - started) x gpus /
 * 3600 GPU-hours, from the columns its job record gave (store.c's
 * migration 6).  Every attempt counts: a requeued job's attempts each ran
 * and each cost their hours.  A result without a GPU count (a record
 * without one, or stored before the store kept it) or without a start
 * costs nothing here and is counted in unknown_gpus. */
#ifndef ATTRIB_STORE_REPORT_H
#define ATTRIB_STORE_REPORT_H

#include <json-c/json.h>
#include "store.h"

/* The dimensions of the report's groups (by); the first is the default. */
#define REPORT_BY_LIST "sub_domain, domain, node, switch, user, partition"

/* The report as one JSON object (doc/formats.md, "The report"):
 * {since, until (RFC 3339), by, jobs, gpu_hours, unknown_gpus, domains
 * {infra, user, scheduler, unknown}, groups [{key, jobs, gpu_hours,
 * share}] largest first, top_nodes [{node, jobs, gpu_hours}] (culprit
 * nodes, top 10), top_switches [{switch, jobs, gpu_hours}], weeks [{week
 * "2026-W48", gpu_hours, by_sub_domain {...}}]}.  until <= 0: now; by
 * NULL: sub_domain.  NULL with a reason in err on a by not in
 * REPORT_BY_LIST or a store error.  A job with several culprit nodes has
 * its hours shared equally among them (by node, top_nodes), so that the
 * groups' shares add up to 1. */
json_object *store_report_json(store *s, long long since, long long until, const char *by, char *err,
			       size_t errlen);

/* Its totals alone (jobs, gpu_hours, unknown_gpus and domains, in the
 * order of report_domains): what attribd's /metrics shows.  0 or -1. */
#define REPORT_NDOMAINS 4
extern const char *const report_domains[REPORT_NDOMAINS]; /* infra, user, scheduler, unknown */
struct report_totals {
	long long jobs, unknown_gpus;
	double gpu_hours, domain[REPORT_NDOMAINS];
	/* infrastructure verdicts whose cause is not vouched for (the job's
	 * own output, files anyone may write): in domain "unknown" */
	long long unvouched_jobs;
	double unvouched_gpu_hours;
};
int store_report_totals(store *s, long long since, long long until, struct report_totals *t, char *err,
			size_t errlen);

#endif
