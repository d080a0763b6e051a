/* attrib_analyze: the pipeline, phase by phase. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

static void analysis_free(struct analysis *a)
{
	symptoms_free(a);
	for (int i = 0; i < a->ncov; i++) {
		free(a->cov[i].source);
		free(a->cov[i].status);
		free(a->cov[i].detail);
	}
	free(a->cov);
	strlist_free(&a->files);
	free(a->progress);
	for (int i = 0; i < a->nprogress; i++)
		free(a->beats[i].host);
	free(a->beats);
	free(a->last_progress.text);
	free(a->clock_offset);
	identity_free(a->id);
	json_object_put(a->manifest);
	job_free(&a->job);
}

struct json_object *attrib_analyze(const attrib_catalog *cat, const char *dir,
				   const struct attrib_options *opt, char *err, size_t errlen)
{
	struct analysis a = { .cat = cat, .opt = opt ? opt : &cat->opt, .dir = dir };
	struct verdict v;
	struct json_object *res;
	char *path = xmalloc(strlen(dir) + 16);

	sprintf(path, "%s/" CASE_JOB, dir);
	if (job_load(&a.job, path, err, errlen) < 0) {
		free(path);
		job_free(&a.job);
		return NULL;
	}
	free(path);
	a.tc.ref = a.job.start;
	a.tc.tz = a.job.tz;
	if (a.job.tz && !tz_name_ok(a.job.tz)) {
		analysis_add_coverage(&a, CASE_JOB, COVERAGE_ERROR,
				      "log_timezone \"%.64s\" is not a time zone name; UTC assumed",
				      a.job.tz);
		a.tc.tz = NULL;
	}
	a.id = identity_new(&a.job);

	scan_case(&a);	      /* extract, filter, collapse */
	symptoms_resolve(&a); /* per node and device */
	scope(&a);	      /* the job's own, its clocks, its pulse */
	correlate(&a, &v);    /* refiners, first cause, verdict */
	res = result_build(&a, &v);
	free(v.roots);
	free(v.culprit_switch);
	analysis_free(&a);
	return res;
}
