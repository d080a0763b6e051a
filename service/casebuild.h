/* attribd, casebuild.c: the case directory of one job attempt. */
#ifndef ATTRIB_CASEBUILD_H
#define ATTRIB_CASEBUILD_H

#include <json-c/json.h>
#include "conf.h"

struct coverage_list {
	struct json_object *arr; /* [{"source","status","detail"}] */
};

/* Builds STATE/cases/JOBID.ATTEMPT from record (a parsed job record) and the
 * bundles in STATE/incoming/JOBID.  Returns the case path (caller frees) or
 * NULL with a reason; coverage entries the engine cannot know of (bundle
 * sources in error, app files not read, missing bundles) go to cov.  A
 * bundle of an earlier attempt (spool_bundle_fresh) is removed, not used,
 * and counted in *stale (stale may be NULL).  The case holds every fact of
 * the job its result shows: the attempt in job.json; cov and history (a
 * revision's "revised" and "revisions", or NULL) in evidence.json. */
char *casebuild(const struct attrib_config *conf, struct json_object *record, const char *job_id,
		long attempt, struct json_object *history, struct json_object *cov, int *stale, char *err,
		size_t errlen);

#endif
