/* The dashboard's JSON API (doc/formats.md, "The dashboard's API"), read
 * only, on the store:
 *
 *   GET /api/v1/jobs?since=&sub_domain=&node=&user=&limit=&cursor=
 *   GET /api/v1/jobs/ID?attempt=
 *   GET /api/v1/nodes?since=
 *   GET /api/v1/report?since=&until=&by=
 *   GET /api/v1/accuracy?since=&by=
 *
 * A request's parameters are checked before anything is read: an unknown
 * or repeated parameter, or a value out of its form, is a 400 that names
 * it.  Pages go by keyset (store_page): next_cursor is the last row's
 * place, opaque to clients. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "api.h"
#include "contract.h"
#include "findings.h"
#include "jsonread.h"
#include "label.h"
#include "report.h"
#include "store.h"
#include "timefmt.h"
#include "util.h"

#define API_LIMIT_DEFAULT 50
#define API_LIMIT_MAX 500
#define API_DAYS 30 /* the sparklines' days */

struct api_req {
	struct json_object *args; /* name -> value (the dashboard fills it) */
	long long now;
	char *err; /* the 400's message */
	size_t errlen;
};

static struct json_object *error_body(const char *msg)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "error", json_object_new_string(msg));
	return o;
}

static const char *arg(struct api_req *q, const char *name)
{
	struct json_object *v;

	return json_object_object_get_ex(q->args, name, &v) ? json_object_get_string(v) : NULL;
}

/* Every parameter is one of allowed (NULL-terminated). */
static bool only(struct api_req *q, const char *const *allowed)
{
	json_object_object_foreach (q->args, k, v) {
		bool ok = false;

		(void)v;
		for (const char *const *a = allowed; *a && !ok; a++)
			ok = !strcmp(k, *a);
		if (!ok) {
			snprintf(q->err, q->errlen, "unknown parameter \"%.64s\"", k);
			return false;
		}
	}
	return true;
}

/* since: Unix seconds, an RFC 3339 time, or an age (7d, 12h, 30m, 90s);
 * absent: def. */
static bool time_arg(struct api_req *q, const char *name, long long def, long long *out)
{
	const char *v = arg(q, name);
	char *end;
	long long n;
	double t;

	*out = def;
	if (!v)
		return true;
	if (time_parse_rfc3339(v, &t)) {
		*out = (long long)t;
		return true;
	}
	errno = 0;
	n = isdigit((unsigned char)*v) ? strtoll(v, &end, 10) : -1;
	if (n >= 0 && !errno && end != v) {
		long long unit = 0;

		if (!*end)
			unit = -1;
		else if (!end[1])
			unit = time_unit_seconds(*end);
		if (unit == -1) {
			*out = n;
			return true;
		}
		if (unit > 0 && n <= q->now / unit) {
			*out = q->now - n * unit;
			return true;
		}
	}
	snprintf(q->err, q->errlen,
		 "%s: \"%.64s\" is not a time (Unix seconds, RFC 3339 such as 2026-12-01T00:00:00Z, "
		 "or an age such as 7d, 12h)",
		 name, v);
	return false;
}

/* a name: what contract_valid_name accepts (job ids, nodes) or, for
 * users, any printable ASCII without spaces, at most NAME_MAX_LEN */
static bool name_arg(struct api_req *q, const char *name, bool node_like, const char **out)
{
	const char *v = arg(q, name);
	bool ok = true;

	*out = v;
	if (!v)
		return true;
	if (node_like)
		ok = contract_valid_name(v);
	else {
		ok = *v && strlen(v) <= NAME_MAX_LEN;
		for (const char *p = v; ok && *p; p++)
			ok = *p > ' ' && *p < 127;
	}
	if (!ok)
		snprintf(q->err, q->errlen, "%s: not a valid name", name);
	return ok;
}

static struct json_object *str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static struct json_object *copy_of(struct json_object *o)
{
	struct json_object *c = NULL;

	if (o && json_object_deep_copy(o, &c, NULL) == 0)
		return c;
	return NULL;
}

/* The decisions of one attempt of a job (store_each_drain gives all). */
static struct json_object *drains_of(store *s, const char *job_id, long attempt)
{
	struct json_object *all = json_object_new_array(), *mine = json_object_new_array();

	store_each_drain(s, job_id, store_drain_json_add, all);
	for (size_t i = 0; i < json_object_array_length(all); i++) {
		struct json_object *d = json_object_array_get_idx(all, i), *at;

		if (json_object_object_get_ex(d, "attempt", &at) && json_object_get_int64(at) == attempt)
			json_object_array_add(mine, json_object_get(d));
	}
	json_object_put(all);
	return mine;
}

struct page {
	store *s;
	struct json_object *jobs;
	char last_job[NAME_MAX_LEN + 1];
	long long last_created;
	long last_attempt;
};

static int job_row(const struct store_row *r, void *arg)
{
	struct page *p = arg;
	struct json_object *res = r->result_json ? json_tokener_parse(r->result_json) : NULL;
	struct json_object *j = json_object_new_object(), *acts = json_object_new_array();
	struct result_view v;
	struct json_object *culprits;
	char t[32];

	result_view_of(res, &v);
	culprits = copy_of(v.culprit_nodes);
	json_object_object_add(j, "job_id", json_object_new_string(r->job_id ? r->job_id : ""));
	json_object_object_add(j, "attempt", json_object_new_int64(r->attempt));
	json_object_object_add(j, "cluster", str_or_null(r->cluster));
	json_object_object_add(j, "user", str_or_null(r->user));
	json_object_object_add(j, "job_name", str_or_null(v.job_name));
	json_object_object_add(j, "partition", str_or_null(v.partition));
	json_object_object_add(j, "state", str_or_null(r->state));
	json_object_object_add(j, "sub_domain", str_or_null(r->sub_domain));
	json_object_object_add(j, "domain", str_or_null(v.domain));
	json_object_object_add(j, "root_code", str_or_null(r->root_code));
	json_object_object_add(j, "root_title", str_or_null(v.root_title));
	json_object_object_add(j, "culprit_nodes", culprits ? culprits : json_object_new_array());
	json_object_object_add(j, "nodes", json_object_new_int64((int64_t)result_array_len(v.job_nodes)));
	json_object_object_add(j, "start_time", str_or_null(v.start_time));
	json_object_object_add(j, "end_time", str_or_null(v.end_time));
	time_format_sec((time_t)r->created, t, sizeof(t));
	json_object_object_add(j, "stored", json_object_new_string(t));
	for (size_t i = 0;; i++) {
		const char *node, *action;
		struct json_object *a;

		if (!result_action_at(&v, i, &node, &action))
			break;
		if (!strcmp(action, "none"))
			continue;
		a = json_object_new_object();
		json_object_object_add(a, "node", json_object_new_string(node));
		json_object_object_add(a, "action", json_object_new_string(action));
		json_object_array_add(acts, a);
	}
	json_object_object_add(j, "actions", acts);
	json_object_object_add(j, "drains", drains_of(p->s, r->job_id, r->attempt));
	json_object_array_add(p->jobs, j);
	snprintf(p->last_job, sizeof(p->last_job), "%s", r->job_id ? r->job_id : "");
	p->last_created = r->created;
	p->last_attempt = r->attempt;
	json_object_put(res);
	return 0;
}

/* The cursor: "CREATED.ATTEMPT.JOBID" (a job id may hold dots). */
static bool cursor_arg(struct api_req *q, struct store_cursor *c, char *job, size_t joblen)
{
	const char *v = arg(q, "cursor");
	char *e1, *e2;

	memset(c, 0, sizeof(*c));
	if (!v)
		return true;
	errno = 0;
	c->created = strtoll(v, &e1, 10);
	if (!errno && e1 != v && *e1 == '.' && isdigit((unsigned char)e1[1])) {
		c->attempt = strtol(e1 + 1, &e2, 10);
		if (!errno && *e2 == '.' && contract_valid_name(e2 + 1) && strlen(e2 + 1) < joblen) {
			snprintf(job, joblen, "%s", e2 + 1);
			c->job_id = job;
			return true;
		}
	}
	snprintf(q->err, q->errlen, "cursor: not a cursor of this API (use next_cursor as given)");
	return false;
}

static unsigned jobs(store *s, struct api_req *q, struct json_object **out)
{
	static const char *const allowed[] = {
		"since", "sub_domain", "node", "user", "limit", "cursor", NULL
	};
	struct store_filter f = { 0 };
	struct store_cursor c;
	struct page p = { .s = s };
	const char *lim = arg(q, "limit");
	char job[NAME_MAX_LEN + 1], next[NAME_MAX_LEN + 64];
	long total;
	int n;

	if (!only(q, allowed) || !time_arg(q, "since", 0, &f.since) || !name_arg(q, "node", true, &f.node) ||
	    !name_arg(q, "user", false, &f.user) || !cursor_arg(q, &c, job, sizeof(job)))
		return 400;
	if ((f.sub_domain = arg(q, "sub_domain")) && sub_domain_index(f.sub_domain) < 0) {
		snprintf(q->err, q->errlen,
			 "sub_domain: \"%.64s\" is not a sub-domain (InfraHW, UserCode, ...)", f.sub_domain);
		return 400;
	}
	f.limit = API_LIMIT_DEFAULT;
	if (lim) {
		char *end;
		long l;

		errno = 0;
		l = isdigit((unsigned char)*lim) ? strtol(lim, &end, 10) : -1;
		if (l < 1 || l > API_LIMIT_MAX || errno || *end) {
			snprintf(q->err, q->errlen, "limit: an integer from 1 to %d", API_LIMIT_MAX);
			return 400;
		}
		f.limit = (int)l;
	}
	p.jobs = json_object_new_array();
	/* one row more than the page: whether a next page exists */
	f.limit++;
	n = store_page(s, &f, &c, job_row, &p);
	f.limit--;
	total = store_count(s, &f);
	if (n < 0 || total < 0) {
		json_object_put(p.jobs);
		return 500;
	}
	*out = json_object_new_object();
	if (n > f.limit) {
		struct json_object *last = json_object_array_get_idx(p.jobs, f.limit - 1), *x;
		long long created = 0;
		long attempt = 0;
		double t = 0;

		/* the cursor is the page's last row's place */
		json_object_object_get_ex(last, "stored", &x);
		time_parse_rfc3339(json_object_get_string(x), &t);
		created = (long long)t;
		json_object_object_get_ex(last, "attempt", &x);
		attempt = (long)json_object_get_int64(x);
		json_object_object_get_ex(last, "job_id", &x);
		snprintf(next, sizeof(next), "%lld.%ld.%s", created, attempt, json_object_get_string(x));
		json_object_array_del_idx(p.jobs, f.limit, 1);
		json_object_object_add(*out, "next_cursor", json_object_new_string(next));
	} else
		json_object_object_add(*out, "next_cursor", NULL);
	json_object_object_add(*out, "total", json_object_new_int64(total));
	json_object_object_add(*out, "count",
			       json_object_new_int64((int64_t)json_object_array_length(p.jobs)));
	json_object_object_add(*out, "jobs", p.jobs);
	return 200;
}

static int finding_cb(const struct finding_row *f, void *arg)
{
	struct json_object *o = json_object_new_object(),
			   *jobs = f->jobs_json ? json_tokener_parse(f->jobs_json) : NULL;
	char t[32];

	time_format_sec((time_t)f->created, t, sizeof(t));
	json_object_object_add(o, "id", json_object_new_int64(f->id));
	json_object_object_add(o, "kind", str_or_null(f->kind));
	json_object_object_add(o, "subject", str_or_null(f->subject));
	json_object_object_add(o, "summary", str_or_null(f->summary));
	json_object_object_add(o, "time", json_object_new_string(t));
	json_object_object_add(o, "jobs", jobs ? jobs : json_object_new_array());
	json_object_array_add(arg, o);
	return 0;
}

static unsigned job(store *s, struct api_req *q, const char *id, struct json_object **out)
{
	static const char *const allowed[] = { "attempt", NULL };
	const char *at = arg(q, "attempt");
	long attempt = -1, got = -1;
	char *text;
	struct json_object *res;

	if (!only(q, allowed))
		return 400;
	if (!contract_valid_name(id)) {
		snprintf(q->err, q->errlen, "not a job id");
		return 400;
	}
	if (at) {
		char *end;

		errno = 0;
		attempt = isdigit((unsigned char)*at) ? strtol(at, &end, 10) : -1;
		if (attempt < 0 || errno || *end) {
			snprintf(q->err, q->errlen, "attempt: an integer from 0");
			return 400;
		}
	}
	if (!(text = store_get(s, id, attempt, &got))) {
		snprintf(q->err, q->errlen, "no stored result for job %s", id);
		return 404;
	}
	res = json_tokener_parse(text);
	free(text);
	if (!res)
		return 500;
	*out = json_object_new_object();
	json_object_object_add(*out, "job_id", json_object_new_string(id));
	json_object_object_add(*out, "attempt", json_object_new_int64(got));
	json_object_object_add(*out, "result", res);
	json_object_object_add(*out, "drains", drains_of(s, id, got));
	struct json_object *findings = json_object_new_array();

	if (store_job_findings(s, id, finding_cb, findings) < 0) {
		json_object_put(findings);
		return 500;
	}
	json_object_object_add(*out, "findings", findings);
	/* the admin's latest label (attrib label, POST .../label), or null */
	struct json_object *label = NULL;

	if (store_latest_label(s, id, got, &label) < 0)
		return 500;
	json_clean_strings(label);
	json_object_object_add(*out, "label", label);
	return 200;
}

/* ---- nodes ---- */

struct nodes_acc {
	struct json_object *by_node; /* node -> its object */
	struct json_object *list;
	long long first_day, days;
};

static struct json_object *node_obj(struct nodes_acc *a, const char *node)
{
	struct json_object *o;

	if (json_object_object_get_ex(a->by_node, node, &o))
		return o;
	o = json_object_new_object();
	json_object_object_add(o, "node", json_object_new_string(node));
	json_object_object_add(o, "faults", json_object_new_int64(0));
	json_object_object_add(o, "affected", json_object_new_int64(0));
	json_object_object_add(o, "last", NULL);
	json_object_object_add(o, "state", NULL);
	json_object_object_add(o, "causes", json_object_new_array());
	struct json_object *days = json_object_new_array();
	for (long long d = 0; d < a->days; d++)
		json_object_array_add(days, json_object_new_int64(0));
	json_object_object_add(o, "per_day", days);
	json_object_object_add(a->by_node, node, o);
	json_object_array_add(a->list, json_object_get(o));
	return o;
}

static void add_to(struct json_object *o, const char *key, long n)
{
	struct json_object *v;

	json_object_object_get_ex(o, key, &v);
	json_object_set_int64(v, json_object_get_int64(v) + n);
}

static int fault_cb(const struct node_fault_row *r, void *arg)
{
	struct nodes_acc *a = arg;
	struct json_object *o = node_obj(a, r->node ? r->node : "?"), *last;
	char t[32];

	add_to(o, r->culprit ? "faults" : "affected", r->count);
	json_object_object_get_ex(o, "last", &last);
	time_format_sec((time_t)r->last, t, sizeof(t));
	if (!last || strcmp(json_object_get_string(last), t) < 0)
		json_object_object_add(o, "last", json_object_new_string(t));
	if (r->culprit) {
		struct json_object *c = json_object_new_object(), *causes;

		json_object_object_add(c, "cause", str_or_null(r->cause));
		json_object_object_add(c, "count", json_object_new_int64(r->count));
		json_object_object_get_ex(o, "causes", &causes);
		json_object_array_add(causes, c);
	}
	return 0;
}

static int day_cb(const char *node, long long day, long count, void *arg)
{
	struct nodes_acc *a = arg;
	struct json_object *o, *days;

	if (!node || day < a->first_day || day >= a->first_day + a->days ||
	    !json_object_object_get_ex(a->by_node, node, &o))
		return 0;
	json_object_object_get_ex(o, "per_day", &days);
	json_object_array_put_idx(days, (size_t)(day - a->first_day), json_object_new_int64(count));
	return 0;
}

static int by_faults(const void *x, const void *y)
{
	struct json_object *a = *(struct json_object *const *)x, *b = *(struct json_object *const *)y, *va,
			   *vb;
	long long fa, fb;

	json_object_object_get_ex(a, "faults", &va);
	json_object_object_get_ex(b, "faults", &vb);
	fa = json_object_get_int64(va);
	fb = json_object_get_int64(vb);
	if (fa != fb)
		return fa < fb ? 1 : -1;
	json_object_object_get_ex(a, "affected", &va);
	json_object_object_get_ex(b, "affected", &vb);
	fa = json_object_get_int64(va);
	fb = json_object_get_int64(vb);
	if (fa != fb)
		return fa < fb ? 1 : -1;
	json_object_object_get_ex(a, "node", &va);
	json_object_object_get_ex(b, "node", &vb);
	return strcmp(json_object_get_string(va), json_object_get_string(vb));
}

static unsigned nodes(store *s, struct api_req *q, api_state_fn state, void *state_arg,
		      struct json_object **out)
{
	static const char *const allowed[] = { "since", NULL };
	struct nodes_acc a = { .days = API_DAYS };
	long long since;
	char t[32];

	if (!only(q, allowed) || !time_arg(q, "since", 0, &since))
		return 400;
	a.first_day = q->now / 86400 - (API_DAYS - 1);
	a.by_node = json_object_new_object();
	a.list = json_object_new_array();
	if (store_node_faults(s, since, fault_cb, &a) < 0 || store_node_days(s, since, day_cb, &a) < 0) {
		json_object_put(a.by_node);
		json_object_put(a.list);
		return 500;
	}
	json_object_array_sort(a.list, by_faults);
	for (size_t i = 0; state && i < json_object_array_length(a.list); i++) {
		struct json_object *o = json_object_array_get_idx(a.list, i), *n;
		char st[64];

		json_object_object_get_ex(o, "node", &n);
		if (state(json_object_get_string(n), st, sizeof(st), state_arg))
			json_object_object_add(o, "state", json_object_new_string(st));
	}
	*out = json_object_new_object();
	time_format_sec((time_t)(a.first_day * 86400), t, sizeof(t));
	json_object_object_add(*out, "per_day_from", json_object_new_string(t));
	json_object_object_add(*out, "per_day_days", json_object_new_int64(API_DAYS));
	json_object_object_add(*out, "nodes", a.list);
	json_object_put(a.by_node);
	return 200;
}

/* by: one of REPORT_BY_LIST's names */
static bool by_ok(const char *by)
{
	static const char list[] = REPORT_BY_LIST;
	size_t n = strlen(by);

	for (const char *p = list; n && (p = strstr(p, by)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

/* attrib report's figures (store_report_json), for the jobs that ended
 * in [since, until]; since defaults to 30 days ago as attrib report's. */
static unsigned report(store *s, struct api_req *q, struct json_object **out)
{
	static const char *const allowed[] = { "since", "until", "by", NULL };
	const char *by = arg(q, "by");
	long long since, until;

	if (!only(q, allowed) || !time_arg(q, "since", q->now - 30 * 86400LL, &since) ||
	    !time_arg(q, "until", 0, &until))
		return 400;
	if (by && !by_ok(by)) {
		snprintf(q->err, q->errlen, "by: \"%.64s\" is not one of %s", by, REPORT_BY_LIST);
		return 400;
	}
	*out = store_report_json(s, since, until, by, q->err, q->errlen);
	return *out ? 200 : 500;
}

#define ACCURACY_WEEKS 12

/* attrib report --accuracy's figures (store_accuracy) since since
 * (default 30 days ago), grouped by (default sub_domain), and the
 * agreement of each of the last ACCURACY_WEEKS weeks (7 days back from
 * now, oldest first): the Fleet page's table and trend */
static unsigned accuracy(store *s, struct api_req *q, struct json_object **out)
{
	static const char *const allowed[] = { "since", "by", NULL };
	const char *by = arg(q, "by") ? arg(q, "by") : "sub_domain";
	struct json_object *weeks;
	long long since;

	if (!only(q, allowed) || !time_arg(q, "since", q->now - 30 * 86400LL, &since))
		return 400;
	if (!accuracy_by_ok(by)) {
		snprintf(q->err, q->errlen, "by: \"%.64s\" is not one of " ACCURACY_BY_LIST, by);
		return 400;
	}
	if (!(*out = store_accuracy(s, since, 0, by)))
		return 500;
	weeks = json_object_new_array();
	json_object_object_add(*out, "weeks", weeks);
	for (int w = ACCURACY_WEEKS; w > 0; w--) {
		long long from = q->now - w * 7 * 86400LL, to = from + 7 * 86400LL;
		struct json_object *r = store_accuracy(s, from, to, NULL), *o, *v;
		char t[40];

		if (!r)
			return 500;
		o = json_object_new_object();
		time_format_sec((time_t)from, t, sizeof(t));
		json_object_object_add(o, "from", json_object_new_string(t));
		for (const char *const *k =
			     (const char *const[]){ "results", "labelled", "sub_domain_agreement",
						    "precision", "false_drains", NULL };
		     *k; k++)
			if (json_object_object_get_ex(r, *k, &v))
				json_object_object_add(o, *k, json_object_get(v));
		json_object_array_add(weeks, o);
		json_object_put(r);
	}
	json_clean_strings(*out);
	return 200;
}

unsigned api_handle(store *s, const char *path, struct json_object *args, long long now, api_state_fn state,
		    void *state_arg, char **body)
{
	char err[300] = "";
	struct api_req q = { .args = args, .now = now, .err = err, .errlen = sizeof(err) };
	struct json_object *out = NULL;
	unsigned status;

	if (!strcmp(path, "/api/v1/jobs"))
		status = jobs(s, &q, &out);
	else if (!strncmp(path, "/api/v1/jobs/", 13) && path[13])
		status = job(s, &q, path + 13, &out);
	else if (!strcmp(path, "/api/v1/nodes"))
		status = nodes(s, &q, state, state_arg, &out);
	else if (!strcmp(path, "/api/v1/report"))
		status = report(s, &q, &out);
	else if (!strcmp(path, "/api/v1/accuracy"))
		status = accuracy(s, &q, &out);
	else {
		snprintf(err, sizeof(err), "no such resource");
		status = 404;
	}
	if (status != 200) {
		json_object_put(out);
		out = error_body(*err ? err : "internal error (see the service's log)");
	}
	*body = strdup(
		json_object_to_json_string_ext(out, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(out);
	return *body ? status : 500;
}
