/* job.json: the job record of one job attempt (doc/formats.md, "The job
 * record"). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"

#define JOB_JSON_MAX (64L << 20) /* a 4,096-node job is well under 2 MiB */
#define JOB_JSON_DEPTH 32

static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

static int int_field(struct json_object *o, const char *k, int def)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, k, &v) || !json_object_is_type(v, json_type_int))
		return def;
	return json_object_get_int(v);
}

struct json_object *read_json(const char *path, char *err, size_t errlen)
{
	char why[400];
	struct json_object *o = json_read_file(path, JOB_JSON_MAX, JOB_JSON_DEPTH, why, sizeof(why));

	if (!o)
		fail(err, errlen, "%s: %s", path, why);
	return o;
}

int job_load(struct job *job, const char *path, char *err, size_t errlen)
{
	struct json_object *o, *nodes, *ranks;
	struct job_record_view v;
	char why[300];

	memset(job, 0, sizeof(*job));
	o = job->root = read_json(path, err, errlen);
	if (!o)
		return -1;
	if (!job_record_read(o, &v, why, sizeof(why)))
		return fail(err, errlen, CASE_JOB ": %s", why);
	job->record = v;
	job->job_id = v.job_id;
	job->state = v.state;
	nodes = v.nodes;
	for (size_t i = 0; i < json_object_array_length(nodes); i++) {
		const char *n = json_object_get_string(json_object_array_get_idx(nodes, i));

		if (!strlist_has(&job->nodes, n))
			strlist_add(&job->nodes, n);
	}
	job->start = v.start;
	job->end = v.end;
	job->reason = v.reason;
	job->exit_code = v.exit_code;
	job->derived_exit_code = v.derived_exit_code;
	job->tz = v.log_timezone;
	job->batch_host = v.batch_host;
	job->gpus = v.gpus;

	if ((ranks = v.ranks)) {
		size_t n = json_object_array_length(ranks);
		/* node name -> index + 1, the last of equal names as before: a
		 * linear search per rank is quadratic at thousands of ranks */
		struct lh_table *index = lh_kchar_table_new(job->nodes.n * 2 + 16, NULL);

		for (int k = 0; k < job->nodes.n; k++) {
			struct lh_entry *e = lh_table_lookup_entry(index, job->nodes.v[k]);

			if (e)
				e->v = (void *)(intptr_t)(k + 1);
			else
				lh_table_insert(index, job->nodes.v[k], (void *)(intptr_t)(k + 1));
		}
		job->ranks = xcalloc(n, sizeof(*job->ranks));
		for (size_t i = 0; i < n; i++) {
			struct json_object *r = json_object_array_get_idx(ranks, i);
			struct rank_info *ri = &job->ranks[job->nranks];
			const char *node, *t;
			void *k;

			if (!json_object_is_type(r, json_type_object) || !(node = json_str(r, "node")))
				continue;
			ri->rank = int_field(r, "rank", -1);
			if (ri->rank < 0)
				continue; /* nothing allocated for it yet */
			ri->node = lh_table_lookup_ex(index, node, &k) ? (int)(intptr_t)k - 1 : -1;
			ri->gpu = strdup_or_die(json_str(r, "gpu"));
			ri->exit_code = int_field(r, "exit_code", -1);
			ri->signal = int_field(r, "signal", -1);
			ri->has_exit = ri->exit_code >= 0 || ri->signal >= 0;
			job->ranks_exit |= ri->has_exit;
			if ((t = json_str(r, "exit_time")))
				time_parse_rfc3339(t, &ri->exit_time);
			job->nranks++;
		}
		lh_table_free(index);
	}
	return 0;
}

void job_free(struct job *job)
{
	for (int i = 0; i < job->nranks; i++)
		free(job->ranks[i].gpu);
	free(job->ranks);
	strlist_free(&job->nodes);
	json_object_put(job->root);
	memset(job, 0, sizeof(*job));
}
