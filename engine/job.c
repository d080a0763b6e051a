/* job.json: the execution context of one job attempt (contract section 1). */
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

static const char *str_field(struct json_object *o, const char *k)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, k, &v) || json_object_is_type(v, json_type_null))
		return NULL;
	if (!json_object_is_type(v, json_type_string) && !json_object_is_type(v, json_type_int))
		return NULL;
	return json_object_get_string(v);
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
	/* O_NONBLOCK: a FIFO named job.json must not block the open */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	struct json_tokener *tok;
	struct json_object *o;
	struct stat st;
	char *buf;
	ssize_t n;
	size_t got = 0;

	if (fd < 0) {
		fail(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > JOB_JSON_MAX) {
		fail(err, errlen, "%s: not a regular file of at most %ld bytes", path, JOB_JSON_MAX);
		close(fd);
		return NULL;
	}
	buf = xmalloc(st.st_size + 1);
	while (got < (size_t)st.st_size && (n = read(fd, buf + got, st.st_size - got)) > 0)
		got += n;
	close(fd);
	tok = json_tokener_new_ex(JOB_JSON_DEPTH);
	o = json_tokener_parse_ex(tok, buf, (int)got);
	if (!o || json_tokener_get_error(tok) != json_tokener_success ||
	    json_tokener_get_parse_end(tok) < got) {
		enum json_tokener_error e = json_tokener_get_error(tok);
		size_t at = json_tokener_get_parse_end(tok);

		/* trailing white space after the object is fine */
		while (o && at < got && strchr(" \t\r\n", buf[at]))
			at++;
		if (!o || at < got) {
			fail(err, errlen, "%s: invalid JSON at byte %zu: %s", path, at,
			     o ? "trailing data" : json_tokener_error_desc(e));
			json_object_put(o);
			o = NULL;
		}
	}
	json_tokener_free(tok);
	free(buf);
	return o;
}

static int time_field(struct json_object *o, const char *k, double *t, char *err, size_t len)
{
	const char *s = str_field(o, k);
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
	schema = str_field(o, "schema");
	if (!schema)
		return fail(err, errlen, "job.json: missing required field \"schema\"");
	if (strcmp(schema, ATTRIB_JOB_SCHEMA))
		return fail(err, errlen, "job.json: schema is \"%s\", expected \"%s\"",
			    quoted(schema, q, sizeof(q)), ATTRIB_JOB_SCHEMA);
	if (!(job->job_id = str_field(o, "job_id")) || !*job->job_id)
		return fail(err, errlen, "job.json: missing required field \"job_id\"");
	if (!(job->state = str_field(o, "state")))
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
	job->reason = str_field(o, "reason");
	job->exit_code = str_field(o, "exit_code");
	job->derived_exit_code = str_field(o, "derived_exit_code");
	job->tz = str_field(o, "log_timezone");
	job->batch_host = str_field(o, "batch_host");

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
			    !(node = str_field(r, "node")))
				continue;
			ri->rank = int_field(r, "rank", -1);
			if (ri->rank < 0)
				continue;	/* nothing allocated for it yet */
			ri->node = lh_table_lookup_ex(index, node, &k) ? (int)(intptr_t)k - 1 : -1;
			ri->gpu = strdup_or_die(str_field(r, "gpu"));
			ri->exit_code = int_field(r, "exit_code", -1);
			ri->signal = int_field(r, "signal", -1);
			ri->has_exit = ri->exit_code >= 0 || ri->signal >= 0;
			job->ranks_exit |= ri->has_exit;
			if ((t = str_field(r, "exit_time")))
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
