/* The formats' code: see contract.h and doc/formats.md. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include "contract.h"
#include "jsonread.h"
#include "text.h"
#include "timefmt.h"

bool contract_valid_name(const char *s)
{
	size_t n;

	if (!s || !*s || *s == '.' || *s == '-')
		return false;
	n = strlen(s);
	if (n > CONTRACT_NAME_MAX || strstr(s, ".."))
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-'))
			return false;
	}
	return true;
}

/* ---- vocabulary ---- */

#define SUB_NAME_(s, d) s,
#define SUB_DOMAIN_(s, d) d,
const char *const contract_sub_domains[SUB_DOMAIN_N] = { CONTRACT_SUB_DOMAINS(SUB_NAME_) };
static const char *const sub_domain_domains[SUB_DOMAIN_N] = { CONTRACT_SUB_DOMAINS(SUB_DOMAIN_) };

int sub_domain_index(const char *sub)
{
	for (int i = 0; sub && i < SUB_DOMAIN_N; i++)
		if (!strcmp(contract_sub_domains[i], sub))
			return i;
	return -1;
}

const char *sub_domain_domain(const char *sub)
{
	int i = sub_domain_index(sub);

	return i < 0 ? NULL : sub_domain_domains[i];
}

const char *const contract_confidences[CONFIDENCE_N] = { "low", "medium", "high" };

int confidence_rank(const char *name)
{
	for (int i = 0; name && i < CONFIDENCE_N; i++)
		if (!strcmp(contract_confidences[i], name))
			return i;
	return -1;
}

/* ---- the job record ---- */

void job_exit_string(uint32_t status, char *buf, size_t len)
{
	/* as sacct: the exit code, then the signal when one ended it */
	snprintf(buf, len, "%d:%d", (int)WEXITSTATUS(status),
		 WIFSIGNALED(status) ? (int)WTERMSIG(status) : 0);
}

long long job_tres_count(const char *tres, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = tres; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		char *end;
		long long n;

		if (strncmp(p, key, kl) || p[kl] != '=')
			continue;
		errno = 0;
		n = strtoll(p + kl + 1, &end, 10);
		if (errno || end == p + kl + 1 || n < 0 || (*end && *end != ','))
			return -1;
		return n;
	}
	return -1;
}

long long job_tres_gpus(const char *tres, const char *key, bool gpu_accounted)
{
	long long n = job_tres_count(tres, key);

	if (n >= 0)
		return n;
	return tres && *tres && gpu_accounted ? 0 : -1;
}

bool job_tres_accounts_gpu(const char *list)
{
	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncasecmp(p, "gres/gpu", 8) && (p[8] == ',' || p[8] == ':' || !p[8]))
			return true;
	return false;
}

/* json-c passes bytes >= 0x80 through unchecked: every string of a record
 * is made strict UTF-8 first.  false when out of memory. */
static bool put_str(struct json_object *o, const char *k, const char *v)
{
	size_t n;
	char *clean;
	struct json_object *s;

	if (!v)
		return json_object_object_add(o, k, NULL) == 0;
	if (!(clean = text_utf8_fix(v, strlen(v), &n)))
		return false;
	s = json_object_new_string_len(clean, (int)n);
	free(clean);
	return s && json_object_object_add(o, k, s) == 0;
}

static bool put_int(struct json_object *o, const char *k, long long v)
{
	struct json_object *i = json_object_new_int64(v);

	return i && json_object_object_add(o, k, i) == 0;
}

static bool put_time(struct json_object *o, const char *k, time_t t)
{
	char buf[40];

	return put_str(o, k, t > 0 ? time_format_sec(t, buf, sizeof(buf)) : NULL);
}

static bool put_exit(struct json_object *o, const char *k, uint32_t status)
{
	char buf[32];

	if (status == JOB_RECORD_NO_VAL)
		return put_str(o, k, NULL);
	job_exit_string(status, buf, sizeof(buf));
	return put_str(o, k, buf);
}

/* minutes as Slurm shows a time limit: UNLIMITED, [D-]HH:MM:SS */
static bool put_limit(struct json_object *o, const char *k, uint32_t m)
{
	char buf[48];

	if (m == JOB_RECORD_NO_VAL)
		return put_str(o, k, NULL);
	if (m == JOB_RECORD_INFINITE)
		snprintf(buf, sizeof(buf), "UNLIMITED");
	else if (m >= 1440)
		snprintf(buf, sizeof(buf), "%u-%02u:%02u:00", m / 1440, m / 60 % 24, m % 60);
	else
		snprintf(buf, sizeof(buf), "%02u:%02u:00", m / 60, m % 60);
	return put_str(o, k, buf);
}

static bool put_bool(struct json_object *o, const char *k, bool v)
{
	struct json_object *b = json_object_new_boolean(v);

	return b && json_object_object_add(o, k, b) == 0;
}

bool job_record_add_node(struct attrib_job_record *r, char *h)
{
	char **n = realloc(r->nodes, (r->nnodes + 1) * sizeof(*n));

	if (!n) {
		free(h);
		return false;
	}
	r->nodes = n;
	r->nodes[r->nnodes++] = h;
	return true;
}

void job_record_free_nodes(struct attrib_job_record *r)
{
	for (int i = 0; i < r->nnodes; i++)
		free(r->nodes[i]);
	free(r->nodes);
	r->nodes = NULL;
	r->nnodes = 0;
}

char *job_record_json(const struct attrib_job_record *r, size_t *len)
{
	struct json_object *o = json_object_new_object(), *nodes = json_object_new_array();
	char id[16], *line = NULL;
	const char *text;
	time_t start = r->start;
	bool ok = o && nodes;

	/* never started (cancelled while pending): a zero-length run */
	if (start <= 0 || start > r->end)
		start = r->end;
	snprintf(id, sizeof(id), "%u", r->job_id);
	for (int i = 0; ok && i < r->nnodes; i++) {
		struct json_object *h = NULL;
		size_t n;
		char *clean = text_utf8_fix(r->nodes[i], strlen(r->nodes[i]), &n);

		ok = clean && (h = json_object_new_string_len(clean, (int)n)) &&
			json_object_array_add(nodes, h) == 0;
		free(clean);
	}
	ok = ok && put_str(o, "schema", ATTRIB_JOB_SCHEMA) && put_str(o, "job_id", id) &&
		put_str(o, "cluster", r->cluster) && put_str(o, "user", r->user);
	if (ok && r->uid >= 0)
		ok = put_int(o, "uid", r->uid);
	if (ok && r->gid >= 0)
		ok = put_int(o, "gid", r->gid);
	ok = ok && put_str(o, "partition", r->partition) && put_str(o, "name", r->name) &&
		put_str(o, "batch_host", r->batch_host && *r->batch_host ? r->batch_host : NULL);
	if (ok) {
		ok = json_object_object_add(o, "nodes", nodes) == 0;
		nodes = NULL;
	}
	ok = ok && put_time(o, "submit_time", r->submit) && put_time(o, "start_time", start) &&
		put_time(o, "end_time", r->end) && put_str(o, "state", r->state) &&
		put_exit(o, "exit_code", r->exit_status) &&
		put_exit(o, "derived_exit_code", r->derived_exit_status) && put_str(o, "reason", r->reason) &&
		put_int(o, "restart_count", r->restart_count) && put_int(o, "attempt", r->attempt) &&
		put_limit(o, "time_limit", r->time_limit);
	if (ok && r->gpus >= 0)
		ok = put_int(o, "gpus", r->gpus);
	if (ok && r->array_task_id != JOB_RECORD_NO_VAL)
		ok = put_int(o, "array_job_id", r->array_job_id) &&
			put_int(o, "array_task_id", r->array_task_id);
	ok = ok && put_str(o, "std_out", r->std_out) && put_str(o, "std_err", r->std_err) &&
		put_str(o, "work_dir", r->work_dir);
	if (ok && r->std_out_guessed)
		ok = put_bool(o, "std_out_guessed", true);
	if (ok && r->reconciled)
		ok = put_bool(o, "reconciled", true);
	if (ok &&
	    (text = json_object_to_json_string_ext(o,
						   JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)) &&
	    asprintf(&line, "%s\n", text) < 0)
		line = NULL;
	if (line && len)
		*len = strlen(line);
	json_object_put(nodes);
	json_object_put(o);
	return line;
}

/* A value fit for a one-line message: at most 64 bytes, control
 * characters as '?'. */
static const char *quoted(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	for (; *s && o + 1 < len && o < 64; s++)
		buf[o++] = (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s;
	buf[o] = 0;
	return buf;
}

static long long int_of(struct json_object *o, const char *k)
{
	struct json_object *v;

	return json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_int)
		? json_object_get_int64(v)
		: -1;
}

static bool bool_of(struct json_object *o, const char *k)
{
	struct json_object *v;

	return json_object_object_get_ex(o, k, &v) && json_object_get_boolean(v);
}

static bool __attribute__((format(printf, 3, 4))) fail_with(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return false;
}

static bool time_of(const char *s, const char *k, double *t, char *err, size_t errlen)
{
	char q[80];

	if (!s)
		return fail_with(err, errlen, "missing required field \"%s\"", k);
	if (!time_parse_rfc3339(s, t))
		return fail_with(err, errlen, "\"%s\" is not an RFC 3339 time: %s", k,
				 quoted(s, q, sizeof(q)));
	return true;
}

bool job_record_read(struct json_object *o, struct job_record_view *v, char *err, size_t errlen)
{
	const char *schema = json_str(o, "schema");
	struct json_object *a;
	char q[80];

	memset(v, 0, sizeof(*v));
	v->uid = v->gid = v->attempt = v->gpus = -1;
	if (!json_object_is_type(o, json_type_object))
		return fail_with(err, errlen, "not a JSON object");
	v->job_id = json_str(o, "job_id");
	v->state = json_str(o, "state");
	v->cluster = json_str(o, "cluster");
	v->user = json_str(o, "user");
	v->partition = json_str(o, "partition");
	v->name = json_str(o, "name");
	v->batch_host = json_str(o, "batch_host");
	v->reason = json_str(o, "reason");
	v->exit_code = json_str(o, "exit_code");
	v->derived_exit_code = json_str(o, "derived_exit_code");
	v->time_limit = json_str(o, "time_limit");
	v->log_timezone = json_str(o, "log_timezone");
	v->std_out = json_str(o, "std_out");
	v->std_err = json_str(o, "std_err");
	v->work_dir = json_str(o, "work_dir");
	v->submit_time = json_str(o, "submit_time");
	v->start_time = json_str(o, "start_time");
	v->end_time = json_str(o, "end_time");
	v->uid = int_of(o, "uid");
	v->gid = int_of(o, "gid");
	v->attempt = int_of(o, "attempt");
	v->gpus = int_of(o, "gpus");
	v->std_out_guessed = bool_of(o, "std_out_guessed");
	v->reconciled = bool_of(o, "reconciled");
	if (json_object_object_get_ex(o, "nodes", &a) && json_object_is_type(a, json_type_array))
		v->nodes = a;
	if (json_object_object_get_ex(o, "ranks", &a) && json_object_is_type(a, json_type_array))
		v->ranks = a;

	if (!schema)
		return fail_with(err, errlen, "missing required field \"schema\"");
	if (strcmp(schema, ATTRIB_JOB_SCHEMA))
		return fail_with(err, errlen, "schema is \"%s\", expected \"%s\"",
				 quoted(schema, q, sizeof(q)), ATTRIB_JOB_SCHEMA);
	if (!v->job_id || !*v->job_id)
		return fail_with(err, errlen, "missing required field \"job_id\"");
	if (!v->state)
		return fail_with(err, errlen, "missing required field \"state\"");
	if (!v->nodes)
		return fail_with(err, errlen, "missing required field \"nodes\" (a list)");
	for (size_t i = 0; i < json_object_array_length(v->nodes); i++) {
		struct json_object *n = json_object_array_get_idx(v->nodes, i);

		if (!json_object_is_type(n, json_type_string) || !*json_object_get_string(n) ||
		    strchr(json_object_get_string(n), '/')) {
			return fail_with(err, errlen, "nodes[%zu] is not a host name", i);
		}
	}
	return time_of(v->start_time, "start_time", &v->start, err, errlen) &&
		time_of(v->end_time, "end_time", &v->end, err, errlen);
}

/* ---- the bundle ---- */

int bundle_payload_format(const struct bundle_claim *c, char *buf, size_t len)
{
	int n;

	if (!contract_valid_name(c->job_id) || !contract_valid_name(c->node))
		return -1;
	n = snprintf(buf, len, "%s%s:%s:%s", BUNDLE_PAYLOAD_PREFIX, c->job_id, c->node, c->sha256);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

static int copy_part(char *dst, size_t cap, const char *p, size_t n)
{
	if (n == 0 || n >= cap)
		return -1;
	memcpy(dst, p, n);
	dst[n] = 0;
	return 0;
}

/* prefix, then JOBID: when with_job, then NODE:SHA256HEX */
static int payload_parse(const char *p, size_t len, const char *prefix, bool with_job, struct bundle_claim *c)
{
	size_t pre = strlen(prefix);
	const char *end = p + len, *a, *b;

	memset(c, 0, sizeof(*c));
	if (len <= pre || memcmp(p, prefix, pre) || memchr(p, 0, len))
		return -1;
	a = p + pre;
	if (with_job) {
		b = memchr(a, ':', end - a);
		if (!b || copy_part(c->job_id, sizeof(c->job_id), a, b - a))
			return -1;
		a = b + 1;
	}
	b = memchr(a, ':', end - a);
	if (!b || copy_part(c->node, sizeof(c->node), a, b - a))
		return -1;
	a = b + 1;
	if (end - a != 64 || copy_part(c->sha256, sizeof(c->sha256), a, 64))
		return -1;
	for (int i = 0; i < 64; i++)
		if (!strchr("0123456789abcdef", c->sha256[i]) || !c->sha256[i])
			return -1;
	if ((with_job && !contract_valid_name(c->job_id)) || !contract_valid_name(c->node))
		return -1;
	return 0;
}

int bundle_payload_parse(const char *p, size_t len, struct bundle_claim *c)
{
	return payload_parse(p, len, BUNDLE_PAYLOAD_PREFIX, true, c);
}

/* ---- a node's health check ---- */

int health_payload_format(const char *node, const char *sha256, char *buf, size_t len)
{
	int n;

	if (!contract_valid_name(node))
		return -1;
	n = snprintf(buf, len, "%s%s:%s", HEALTH_PAYLOAD_PREFIX, node, sha256);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int health_payload_parse(const char *p, size_t len, struct bundle_claim *c)
{
	return payload_parse(p, len, HEALTH_PAYLOAD_PREFIX, false, c);
}

/* ---- the result ---- */

/* doc/formats.md, "The result", describes each of these; t/formats.sh
 * checks the document and real results against this table. */
const struct result_field result_fields[] = {
	{ "schema", "string", "engine" },
	{ "job_id", "string", "engine" },
	{ "terminal_state", "string", "engine" },
	{ "outcome", "string", "engine" },
	{ "domain", "string", "engine" },
	{ "sub_domain", "string", "engine" },
	{ "confidence", "string", "engine" },
	{ "root_cause", "object|null", "engine" },
	{ "root_cause.symptom", "string", "engine" },
	{ "root_cause.code", "string", "engine" },
	{ "root_cause.class", "string", "engine" },
	{ "root_cause.meaning", "string", "engine" },
	{ "root_cause.resolution", "string", "engine" },
	{ "root_cause.node", "string|null", "engine" },
	{ "root_cause.device", "string|null", "engine" },
	{ "root_cause.located_by", "string", "engine" },
	{ "root_cause.time", "string", "engine" },
	{ "root_cause.trust", "string", "engine" },
	{ "root_cause.lost_link", "boolean", "engine" },
	{ "root_cause.evidence", "array", "engine" },
	{ "root_cause.evidence[].file", "string", "engine" },
	{ "root_cause.evidence[].line", "integer", "engine" },
	{ "root_cause.evidence[].text", "string", "engine" },
	{ "culprit_nodes", "array", "engine" },
	{ "affected_nodes", "array", "engine" },
	{ "culprit_switch", "string", "engine" },
	{ "switch_nodes", "array", "engine" },
	{ "symptoms", "array", "engine" },
	{ "symptoms[].symptom", "string", "engine" },
	{ "symptoms[].code", "string", "engine" },
	{ "symptoms[].rule", "string", "engine" },
	{ "symptoms[].role", "string", "engine" },
	{ "symptoms[].node", "string|null", "engine" },
	{ "symptoms[].node_as_logged", "string", "engine" },
	{ "symptoms[].located_by", "string", "engine" },
	{ "symptoms[].first_time", "string", "engine" },
	{ "symptoms[].time_approximate", "boolean", "engine" },
	{ "symptoms[].count", "integer", "engine" },
	{ "symptoms[].device", "string", "engine" },
	{ "symptoms[].peer", "string", "engine" },
	{ "symptoms[].explained_by", "string", "engine" },
	{ "symptoms[].set_aside", "string", "engine" },
	{ "symptoms[].trust", "string", "engine" },
	{ "symptoms[].evidence", "array", "engine" },
	{ "symptoms[].evidence[].file", "string", "engine" },
	{ "symptoms[].evidence[].line", "integer", "engine" },
	{ "symptoms[].evidence[].text", "string", "engine" },
	{ "symptoms_omitted", "integer", "engine" },
	{ "actions", "array", "engine" },
	{ "actions[].node", "string", "engine" },
	{ "actions[].switch", "string", "engine" },
	{ "actions[].action", "string", "engine" },
	{ "actions[].reason", "string", "engine" },
	{ "hang", "object", "engine" },
	{ "hang.since", "string", "engine" },
	{ "hang.silence_s", "number", "engine" },
	{ "hang.cadence_s", "number", "engine" },
	{ "hang.last_progress", "object", "engine" },
	{ "hang.last_progress.file", "string", "engine" },
	{ "hang.last_progress.line", "integer", "engine" },
	{ "hang.last_progress.text", "string", "engine" },
	{ "clock_offsets", "object", "engine" },
	{ "clock_offsets.*", "number", "engine" },
	{ "coverage", "array", "engine" },
	{ "coverage[].source", "string", "engine" },
	{ "coverage[].status", "string", "engine" },
	{ "coverage[].detail", "string", "engine" },
	{ "engine", "object", "engine" },
	{ "engine.files", "integer", "engine" },
	{ "engine.matched_lines", "integer", "engine" },
	{ "engine.events", "integer", "engine" },
	{ "catalog", "string", "engine" },
	{ "explanation", "string", "engine" },
	{ "attempt", "integer", "engine" },
	{ "end_time", "string", "engine" },
	{ "job_name", "string", "engine" },
	{ "partition", "string", "engine" },
	{ "start_time", "string", "engine" },
	{ "job_nodes", "array of strings", "engine" },
	{ "revised", "integer", "engine" },
	{ "revisions", "array", "engine" },
	{ "revisions[].at", "string", "engine" },
	{ "revisions[].reason", "string", "engine" },
	{ "revisions[].before", "object", "engine" },
	{ "revisions[].before.sub_domain", "string|null", "engine" },
	{ "revisions[].before.root_code", "string|null", "engine" },
	{ "revisions[].before.culprit_nodes", "array", "engine" },
};
const size_t result_nfields = sizeof(result_fields) / sizeof(*result_fields);

static struct json_object *typed(struct json_object *o, const char *k, json_type t)
{
	struct json_object *v;

	return o && json_object_object_get_ex(o, k, &v) && json_object_is_type(v, t) ? v : NULL;
}

bool result_view_of(struct json_object *r, struct result_view *v)
{
	struct json_object *a;

	memset(v, 0, sizeof(*v));
	v->attempt = -1;
	if (!json_object_is_type(r, json_type_object))
		return false;
	v->job_id = json_str(r, "job_id");
	v->terminal_state = json_str(r, "terminal_state");
	v->outcome = json_str(r, "outcome");
	v->domain = json_str(r, "domain");
	v->sub_domain = json_str(r, "sub_domain");
	v->explanation = json_str(r, "explanation");
	v->confidence = json_str(r, "confidence");
	v->end_time = json_str(r, "end_time");
	v->start_time = json_str(r, "start_time");
	v->job_name = json_str(r, "job_name");
	v->partition = json_str(r, "partition");
	v->job_nodes = typed(r, "job_nodes", json_type_array);
	if ((a = typed(r, "attempt", json_type_int)))
		v->attempt = (long)json_object_get_int64(a);
	v->root_cause = typed(r, "root_cause", json_type_object);
	v->root_code = json_str(v->root_cause, "code");
	v->root_class = json_str(v->root_cause, "class");
	v->root_title = json_str(v->root_cause, "symptom");
	v->root_device = json_str(v->root_cause, "device");
	v->root_trust = json_str(v->root_cause, "trust");
	v->culprit_nodes = typed(r, "culprit_nodes", json_type_array);
	v->affected_nodes = typed(r, "affected_nodes", json_type_array);
	v->symptoms = typed(r, "symptoms", json_type_array);
	v->actions = typed(r, "actions", json_type_array);
	v->coverage = typed(r, "coverage", json_type_array);
	return true;
}

bool result_cause_vouched(const struct result_view *v)
{
	bool any = false;

	if (v->root_cause)
		return !v->root_trust;
	for (size_t i = 0; i < result_array_len(v->symptoms); i++) {
		struct json_object *s = json_object_array_get_idx(v->symptoms, i);
		const char *role = json_str(s, "role");

		if (!role || strcmp(role, "root"))
			continue;
		if (json_str(s, "trust"))
			return false;
		any = true;
	}
	return any;
}

size_t result_array_len(struct json_object *a)
{
	return json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

const char *result_array_str(struct json_object *a, size_t n)
{
	struct json_object *s;

	if (n >= result_array_len(a) || !(s = json_object_array_get_idx(a, n)) ||
	    !json_object_is_type(s, json_type_string))
		return NULL;
	return json_object_get_string(s);
}

char *result_join_culprits(const struct result_view *v)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	if (!result_array_len(v->culprit_nodes) || !(f = open_memstream(&out, &len)))
		return NULL;
	for (size_t i = 0; i < result_array_len(v->culprit_nodes); i++) {
		const char *n = result_array_str(v->culprit_nodes, i);

		fprintf(f, "%s%s", i ? "," : "", n ? n : "");
	}
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

bool result_names_node(const struct result_view *v, const char *node)
{
	struct json_object *lists[2] = { v->affected_nodes, v->culprit_nodes };

	for (int l = 0; l < 2; l++)
		for (size_t i = 0; i < result_array_len(lists[l]); i++) {
			const char *n = result_array_str(lists[l], i);

			if (n && !strcmp(n, node))
				return true;
		}
	return false;
}

bool result_action_at(const struct result_view *v, size_t n, const char **node, const char **action)
{
	struct json_object *a;

	if (n >= result_array_len(v->actions))
		return false;
	a = json_object_array_get_idx(v->actions, n);
	*node = json_str(a, "node");
	*action = json_str(a, "action");
	return *node && *action;
}

/* the record's strings are its user's and slurmctld's: made clean here,
 * for the engine's result and the service's alike */
static struct json_object *clean_string(const char *s)
{
	char *c = text_clean_str(s, RESULT_TEXT_MAX);
	struct json_object *o = json_object_new_string(c);

	free(c);
	return o;
}

void result_add_job(struct json_object *res, const struct job_record_view *jr)
{
	if (jr->attempt >= 0)
		json_object_object_add(res, "attempt", json_object_new_int64(jr->attempt));
	if (jr->end_time) /* when its nodes were last seen (attrib nodes) */
		json_object_object_add(res, "end_time", clean_string(jr->end_time));
	if (jr->start_time)
		json_object_object_add(res, "start_time", clean_string(jr->start_time));
	if (jr->name)
		json_object_object_add(res, "job_name", clean_string(jr->name));
	if (jr->partition)
		json_object_object_add(res, "partition", clean_string(jr->partition));
	if (jr->nodes && json_object_is_type(jr->nodes, json_type_array)) {
		struct json_object *a = json_object_new_array();

		for (size_t i = 0; a && i < json_object_array_length(jr->nodes); i++) {
			struct json_object *n = json_object_array_get_idx(jr->nodes, i);

			if (json_object_is_type(n, json_type_string))
				json_object_array_add(a, clean_string(json_object_get_string(n)));
		}
		if (a)
			json_object_object_add(res, "job_nodes", a);
	}
}

struct json_object *result_unusable(const char *job_id, const char *state, const char *why)
{
	struct json_object *o = json_object_new_object(), *cov = json_object_new_array(),
			   *c = json_object_new_object();
	char ex[600];

	if (!o || !cov || !c) {
		json_object_put(o);
		json_object_put(cov);
		json_object_put(c);
		return NULL;
	}
	snprintf(ex, sizeof(ex), "The job's record could not be analysed (%s).", why);
	json_object_object_add(o, "schema", json_object_new_string(ATTRIB_RESULT_SCHEMA));
	json_object_object_add(o, "job_id", json_object_new_string(job_id));
	json_object_object_add(o, "terminal_state", json_object_new_string(state ? state : "UNKNOWN"));
	json_object_object_add(o, "outcome", json_object_new_string("Fail"));
	json_object_object_add(o, "domain", json_object_new_string(sub_domain_domain("unattributed")));
	json_object_object_add(o, "sub_domain", json_object_new_string("unattributed"));
	json_object_object_add(o, "confidence", json_object_new_string(contract_confidences[CONFIDENCE_LOW]));
	json_object_object_add(o, "root_cause", NULL);
	json_object_object_add(o, "culprit_nodes", json_object_new_array());
	json_object_object_add(o, "affected_nodes", json_object_new_array());
	json_object_object_add(o, "symptoms", json_object_new_array());
	json_object_object_add(o, "actions", json_object_new_array());
	json_object_object_add(c, "source", json_object_new_string(CASE_JOB));
	json_object_object_add(c, "status", json_object_new_string(COVERAGE_ERROR));
	json_object_object_add(c, "detail", json_object_new_string(why));
	json_object_array_add(cov, c);
	json_object_object_add(o, "coverage", cov);
	json_object_object_add(o, "explanation", json_object_new_string(ex));
	return o;
}
