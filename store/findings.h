/* Fleet findings: what attrib concludes across jobs, beside each job's own
 * diagnosis (which stays what its evidence says).  A finding has a kind
 * (FINDING_REPEAT_OFFENDER about a node, FINDING_SWITCH about a switch),
 * its subject (the node or switch name), a one-line summary for people and
 * the job attempts it cites.  Written by attribd, read by attrib show,
 * attrib nodes, /metrics and the dashboard. */
#ifndef ATTRIB_STORE_FINDINGS_H
#define ATTRIB_STORE_FINDINGS_H

#include "store.h"

#define FINDING_REPEAT_OFFENDER "repeat-offender"
#define FINDING_SWITCH "switch"

struct finding_job {
	const char *job_id;
	long attempt;
};

struct finding_row {
	long long id;
	const char *kind, *subject, *summary;
	/* the cited job attempts: a JSON array of {"job_id": "...", "attempt": N} */
	const char *jobs_json;
	long long created;
};

/* Records a finding citing njobs job attempts; its id, or -1 on error. */
long long store_add_finding(store *s, const char *kind, const char *subject, const char *summary,
			    const struct finding_job *jobs, size_t njobs, long long now);
/* Findings created at or after since, newest first; kind and subject NULL
 * for any.  fn returning nonzero stops (and is returned); -1 on error. */
int store_each_finding(store *s, long long since, const char *kind, const char *subject,
		       int (*fn)(const struct finding_row *f, void *arg), void *arg);
/* The findings that cite a job (any attempt), newest first. */
int store_job_findings(store *s, const char *job_id, int (*fn)(const struct finding_row *f, void *arg),
		       void *arg);
/* The newest finding of kind about subject created at or after since: its
 * creation time, 0 when none, -1 on error (so a finding is not raised again
 * while one stands). */
long long store_latest_finding(store *s, const char *kind, const char *subject, long long since);

#endif
