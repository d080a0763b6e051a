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

#define JOB_JSON_MAX (64L << 20)	/* a 4,096-node job is well under 2 MiB */
#define JOB_JSON_DEPTH 32

static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* A job.json value fit for a one-line message: at most 64 bytes, control
 * characters as '?'. */
static const char *quoted(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	for (; *s && o + 1 < len && o < 64; s++)
		buf[o++] = (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s;
	buf[o] = 0;
	return buf;
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

static int time_field(struct json_object *o, const char *k, double *t, char *err, size_t len)
{
	const char *s = json_str(o, k);
	char q[80];

	if (!s)
		return fail(err, len, "job.json: missing required field \"%s\"", k);
	if (!time_parse_rfc3339(s, t))
		return fail(err, len, "job.json: \"%s\" is not an RFC 3339 time: %s", k,
			    quoted(s, q, sizeof(q)));
	return 0;
}

int job_load(struct job *job, const char *path, char *err, size_t errlen)
{
	struct json_object *o, *nodes, *ranks;
	const char *schema;
	char q[80];

	memset(job, 0, sizeof(*job));
	o = job->root = read_json(path, err, errlen);
	if (!o)
		return -1;
	if (!json_object_is_type(o, json_type_object))
		return fail(err, errlen, "job.json: not a JSON object");
	schema = json_str(o, "schema");
	if (!schema)
		return fail(err, errlen, "job.json: missing required field \"schema\"");
	if (strcmp(schema, ATTRIB_JOB_SCHEMA))
		return fail(err, errlen, "job.json: schema is \"%s\", expected \"%s\"",
			    quoted(schema, q, sizeof(q)), ATTRIB_JOB_SCHEMA);
	if (!(job->job_id = json_str(o, "job_id")) || !*job->job_id)
		return fail(err, errlen, "job.json: missing required field \"job_id\"");
	if (!(job->state = json_str(o, "state")))
		return fail(err, errlen, "job.json: missing required field \"state\"");
	if (!json_object_object_get_ex(o, "nodes", &nodes) ||
	    !json_object_is_type(nodes, json_type_array))
		return fail(err, errlen, "job.json: missing required field \"nodes\" (a list)");
	for (size_t i = 0; i < json_object_array_length(nodes); i++) {
		struct json_object *n = json_object_array_get_idx(nodes, i);

		if (!json_object_is_type(n, json_type_string) || !*json_object_get_string(n) ||
		    strchr(json_object_get_string(n), '/'))
			return fail(err, errlen, "job.json: nodes[%zu] is not a host name", i);
		if (!strlist_has(&job->nodes, json_object_get_string(n)))
			strlist_add(&job->nodes, json_object_get_string(n));
	}
	if (time_field(o, "start_time", &job->start, err, errlen) ||
	    time_field(o, "end_time", &job->end, err, errlen))
		return -1;
	job->reason = json_str(o, "reason");
	job->exit_code = json_str(o, "exit_code");
	job->derived_exit_code = json_str(o, "derived_exit_code");
	job->tz = json_str(o, "log_timezone");
	job->batch_host = json_str(o, "batch_host");

	if (json_object_object_get_ex(o, "ranks", &ranks) &&
	    json_object_is_type(ranks, json_type_array)) {
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

			if (!json_object_is_type(r, json_type_object) ||
			    !(node = json_str(r, "node")))
				continue;
			ri->rank = int_field(r, "rank", -1);
			if (ri->rank < 0)
				continue;	/* nothing allocated for it yet */
			ri->node = lh_table_lookup_ex(index, node, &k) ? (int)(intptr_t)k - 1 : -1;
			ri->gpu = strdup_or_die(json_str(r, "gpu"));
			ri->exit_code = int_field(r, "exit_code", -1);
			ri->signal = int_field(r, "signal", -1);
			ri->has_exit = ri->exit_code >= 0 || ri->signal >= 0;
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
