/* Admins' labels (label.h, table labels) and the accuracy they show: each
 * result in a window with its latest label, summed in one pass. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "contract.h"
#include "internal.h"
#include "jsonread.h"
#include "label.h"
#include "timefmt.h"

int store_add_label(store *s, const struct label_row *l)
{
	sqlite3_stmt *st;
	int rc;

	/* a confirm label copies the result's verdict, so later figures
	 * compare against what the admin saw */
	if (sqlite3_prepare_v2(s->db,
			       "INSERT INTO labels(job_id, attempt, by, created, confirm, sub_domain,"
			       " culprits, cause, note)"
			       " SELECT job_id, attempt, ?3, ?4, ?5,"
			       " CASE WHEN ?5 THEN sub_domain ELSE ?6 END,"
			       " CASE WHEN ?5 THEN coalesce(culprits, '') ELSE ?7 END,"
			       " CASE WHEN ?5 THEN root_code ELSE ?8 END, ?9"
			       " FROM results WHERE job_id = ?1 AND attempt = ?2",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, l->job_id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, l->attempt);
	sqlite3_bind_text(st, 3, l->by, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 4, l->created);
	sqlite3_bind_int(st, 5, l->confirm);
	sqlite3_bind_text(st, 6, l->sub_domain, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 7, l->culprits ? l->culprits : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 8, l->cause, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 9, l->note, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st) == SQLITE_DONE ? sqlite3_changes(s->db) > 0 : -1;
	sqlite3_finalize(st);
	return rc;
}

const char *label_invalid(const struct label_row *l)
{
	const char *p = l->culprits ? l->culprits : "";
	char node[CONTRACT_NAME_MAX + 1];

	if (!l->confirm && (!l->sub_domain || sub_domain_index(l->sub_domain) < 0))
		return "sub_domain is not a sub-domain";
	while (*p) {
		size_t n = strcspn(p, ",");

		snprintf(node, sizeof(node), "%.*s", (int)n, p);
		if (n > CONTRACT_NAME_MAX || !contract_valid_name(node))
			return "a culprit is not a node name";
		p += n + (p[n] == ',');
	}
	if (l->cause && !contract_valid_name(l->cause))
		return "cause is not the name of a rule's code";
	if (l->note && strlen(l->note) > LABEL_NOTE_MAX)
		return "note is longer than 4096 bytes";
	return NULL;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int label_join_nodes(const char **names, int n, char *out, size_t len)
{
	size_t used = 0;

	qsort(names, (size_t)n, sizeof(*names), by_name);
	out[0] = 0;
	for (int i = 0; i < n; i++)
		if (i == 0 || strcmp(names[i], names[i - 1])) {
			int w = snprintf(out + used, len - used, "%s%s", used ? "," : "", names[i]);

			if (w < 0 || (size_t)w >= len - used)
				return -1;
			used += (size_t)w;
		}
	return 0;
}

#define LABEL_COLUMNS "job_id, attempt, by, created, confirm, sub_domain, culprits, cause, note"

static struct label_row label_of(sqlite3_stmt *st)
{
	return (struct label_row){
		.job_id = (const char *)sqlite3_column_text(st, 0),
		.attempt = (long)sqlite3_column_int64(st, 1),
		.by = (const char *)sqlite3_column_text(st, 2),
		.created = sqlite3_column_int64(st, 3),
		.confirm = sqlite3_column_int(st, 4) != 0,
		.sub_domain = (const char *)sqlite3_column_text(st, 5),
		.culprits = (const char *)sqlite3_column_text(st, 6),
		.cause = (const char *)sqlite3_column_text(st, 7),
		.note = (const char *)sqlite3_column_text(st, 8),
	};
}

/* The labels of sql (?1 job, ?2 attempt or -1) through fn: their count, -1 on error */
static int labels_of(store *s, const char *sql, const char *job_id, long attempt,
		     int (*fn)(const struct label_row *l, void *arg), void *arg)
{
	sqlite3_stmt *st;
	int rc, n = 0;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, job_id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, attempt);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct label_row l = label_of(st);

		n++;
		if (fn(&l, arg))
			break;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? n : -1;
}

int store_each_label(store *s, const char *job_id, long attempt,
		     int (*fn)(const struct label_row *l, void *arg), void *arg)
{
	int n = labels_of(s,
			  "SELECT " LABEL_COLUMNS
			  " FROM labels WHERE job_id = ?1 AND (?2 < 0 OR attempt = ?2)"
			  " ORDER BY created, id",
			  job_id, attempt, fn, arg);

	return n < 0 ? -1 : 0;
}

static struct json_object *str_or_null(const char *v)
{
	return v ? json_object_new_string(v) : NULL;
}

/* "a,b" as a JSON array of its names */
static struct json_object *names_array(const char *list)
{
	struct json_object *a = json_object_new_array();
	const char *p = list ? list : "";

	while (*p) {
		size_t n = strcspn(p, ",");

		if (n)
			json_object_array_add(a, json_object_new_string_len(p, (int)n));
		p += n + (p[n] == ',');
	}
	return a;
}

struct json_object *store_label_json(const struct label_row *l)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;

	json_object_object_add(o, "job_id", str_or_null(l->job_id));
	json_object_object_add(o, "attempt", json_object_new_int64(l->attempt));
	json_object_object_add(o, "by", str_or_null(l->by));
	char when[40];

	time_format_sec((time_t)l->created, when, sizeof(when));
	json_object_object_add(o, "time", json_object_new_string(when));
	json_object_object_add(o, "confirm", json_object_new_boolean(l->confirm));
	json_object_object_add(o, "sub_domain", str_or_null(l->sub_domain));
	json_object_object_add(o, "culprit_nodes", names_array(l->culprits));
	json_object_object_add(o, "cause", str_or_null(l->cause));
	json_object_object_add(o, "note", str_or_null(l->note));
	return o;
}

static int latest_json(const struct label_row *l, void *arg)
{
	*(struct json_object **)arg = store_label_json(l);
	return 1;
}

int store_latest_label(store *s, const char *job_id, long attempt, struct json_object **out)
{
	int n;

	*out = NULL;
	n = labels_of(s,
		      "SELECT " LABEL_COLUMNS " FROM labels WHERE job_id = ?1 AND attempt = ?2"
		      " ORDER BY created DESC, id DESC LIMIT 1",
		      job_id, attempt, latest_json, out);
	return n < 0 || (n > 0 && !*out) ? -1 : n > 0;
}

struct json_object *label_expected_json(struct json_object *label)
{
	struct json_object *e = json_object_new_object(), *sd = json_object_new_array(), *v = NULL;

	json_object_object_get_ex(label, "sub_domain", &v);
	json_object_array_add(sd, json_object_get(v));
	json_object_object_add(e, "sub_domain", sd);
	v = NULL;
	json_object_object_get_ex(label, "culprit_nodes", &v);
	json_object_object_add(e, "culprit_nodes", json_object_get(v));
	/* a drain of a culprit the admin named is no false drain */
	json_object_object_add(e, "drain_ok", json_object_get(v));
	if (json_object_object_get_ex(label, "cause", &v) && v)
		json_object_object_add(e, "root_code", json_object_get(v));
	json_object_object_add(e, "source", json_object_new_string("attrib label"));
	json_object_object_add(e, "label", json_object_get(label));
	return e;
}

/* whether the comma-separated list has name */
static bool list_has(const char *list, const char *name, size_t len)
{
	const char *p = list ? list : "";

	while (*p) {
		size_t n = strcspn(p, ",");

		if (n == len && !strncmp(p, name, len))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

/* every name of a in b */
static bool list_within(const char *a, const char *b)
{
	const char *p = a ? a : "";

	while (*p) {
		size_t n = strcspn(p, ",");

		if (n && !list_has(b, p, n))
			return false;
		p += n + (p[n] == ',');
	}
	return true;
}

bool label_same_nodes(const char *a, const char *b)
{
	return list_within(a, b) && list_within(b, a);
}

enum {
	F_RESULTS,
	F_LABELLED,
	F_SUB_AGREE,
	F_CULPRITS_AGREE,
	F_CORRECT,
	F_DRAINED,
	F_FALSE_DRAINS,
	F_UNATTRIBUTED_LABELLED,
	F_N
};
static const char *const field_names[F_N] = { "results",	  "labelled",
					      "sub_domain_agree", "culprits_agree",
					      "correct",	  "drained_nodes",
					      "false_drains",	  "unattributed_labelled" };

/* tally[key] (an object of the counts) counted by add */
static void count(struct json_object *tally, const char *key, const long add[F_N])
{
	struct json_object *t, *v;

	if (!json_object_object_get_ex(tally, key, &t)) {
		t = json_object_new_object();
		for (int i = 0; i < F_N; i++)
			json_object_object_add(t, field_names[i], json_object_new_int64(0));
		json_object_object_add(tally, key, t);
	}
	for (int i = 0; i < F_N; i++)
		if (add[i] && json_object_object_get_ex(t, field_names[i], &v))
			json_object_int_inc(v, add[i]);
}

static long get_count(struct json_object *t, int f)
{
	struct json_object *v;

	return json_object_object_get_ex(t, field_names[f], &v) ? (long)json_object_get_int64(v) : 0;
}

/* the counts with their ratios, as the report prints them */
static void add_ratios(struct json_object *t)
{
	long labelled = get_count(t, F_LABELLED);

	json_object_object_add(t, "labelled_share", json_ratio(labelled, get_count(t, F_RESULTS)));
	json_object_object_add(t, "sub_domain_agreement", json_ratio(get_count(t, F_SUB_AGREE), labelled));
	json_object_object_add(t, "culprit_agreement", json_ratio(get_count(t, F_CULPRITS_AGREE), labelled));
	json_object_object_add(t, "precision", json_ratio(get_count(t, F_CORRECT), labelled));
}

static int by_key(const void *a, const void *b)
{
	struct json_object *x = *(struct json_object *const *)a, *y = *(struct json_object *const *)b, *kx,
			   *ky;

	json_object_object_get_ex(x, "key", &kx);
	json_object_object_get_ex(y, "key", &ky);
	return strcmp(json_object_get_string(kx), json_object_get_string(ky));
}

/* tally as an array of its entries, each with its key (name) and ratios */
static struct json_object *entries(struct json_object *tally, const char *name)
{
	struct json_object *a = json_object_new_array();

	json_object_object_foreach (tally, key, t) {
		struct json_object *e = json_object_new_object();

		json_object_object_add(e, "key", json_object_new_string(key));
		json_object_object_foreach (t, k, v)
			json_object_object_add(e, k, json_object_get(v));
		add_ratios(e);
		json_object_array_add(a, e);
	}
	json_object_array_sort(a, by_key);
	/* "key" renamed for the reader: rule, node, partition, sub_domain */
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		struct json_object *e = json_object_array_get_idx(a, i), *k;

		json_object_object_get_ex(e, "key", &k);
		json_object_object_add(e, name, json_object_get(k));
		json_object_object_del(e, "key");
	}
	return a;
}

bool accuracy_by_ok(const char *by)
{
	return !strcmp(by, "sub_domain") || !strcmp(by, "rule") || !strcmp(by, "node") ||
		!strcmp(by, "partition");
}

struct json_object *store_accuracy(store *s, long long since, long long until, const char *by)
{
	sqlite3_stmt *st = NULL, *dr = NULL;
	struct json_object *all = json_object_new_object(), *rules = json_object_new_object(),
			   *groups = json_object_new_object(), *out = NULL;
	int rc;

	if (by && !accuracy_by_ok(by))
		goto done;
	if (sqlite3_prepare_v2(
		    s->db,
		    "SELECT r.job_id, r.attempt, r.sub_domain, coalesce(r.culprits, ''), r.root_code,"
		    " r.partition, l.sub_domain, l.culprits, l.id IS NOT NULL"
		    " FROM results r LEFT JOIN labels l ON l.id = (SELECT id FROM labels"
		    "  WHERE job_id = r.job_id AND attempt = r.attempt ORDER BY created DESC, id DESC LIMIT "
		    "1)"
		    " WHERE r.created >= ?1 AND (?2 = 0 OR r.created < ?2) ORDER BY r.created, r.job_id, "
		    "r.attempt",
		    -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db,
			       "SELECT DISTINCT node FROM drains WHERE job_id = ?1 AND attempt = ?2"
			       " AND decision IN ('" DRAIN_DONE "', '" DRAIN_DONE_FORCED "')",
			       -1, &dr, NULL) != SQLITE_OK)
		goto done;
	sqlite3_bind_int64(st, 1, since);
	sqlite3_bind_int64(st, 2, until);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *job = (const char *)sqlite3_column_text(st, 0);
		const char *sd = (const char *)sqlite3_column_text(st, 2);
		const char *culprits = (const char *)sqlite3_column_text(st, 3);
		const char *code = (const char *)sqlite3_column_text(st, 4);
		const char *partition = (const char *)sqlite3_column_text(st, 5);
		const char *lsd = (const char *)sqlite3_column_text(st, 6);
		const char *lculprits = (const char *)sqlite3_column_text(st, 7);
		bool labelled = sqlite3_column_int(st, 8) != 0;
		long add[F_N] = { [F_RESULTS] = 1 };

		if (labelled) {
			const char *domain = lsd ? sub_domain_domain(lsd) : NULL;

			add[F_LABELLED] = 1;
			add[F_SUB_AGREE] = sd && lsd && !strcmp(sd, lsd);
			add[F_CULPRITS_AGREE] = label_same_nodes(culprits, lculprits);
			add[F_CORRECT] = add[F_SUB_AGREE] && add[F_CULPRITS_AGREE];
			add[F_UNATTRIBUTED_LABELLED] = sd && !strcmp(sd, "unattributed") && lsd &&
				strcmp(lsd, "unattributed");
			/* a node attrib drained that the admin cleared: not among
			 * the label's culprits, or the fault not the infrastructure's */
			sqlite3_reset(dr);
			sqlite3_bind_text(dr, 1, job, -1, SQLITE_TRANSIENT);
			sqlite3_bind_int64(dr, 2, sqlite3_column_int64(st, 1));
			while (sqlite3_step(dr) == SQLITE_ROW) {
				const char *node = (const char *)sqlite3_column_text(dr, 0);

				add[F_DRAINED]++;
				if (!domain || strcmp(domain, "infra") ||
				    !list_has(lculprits, node, strlen(node)))
					add[F_FALSE_DRAINS]++;
			}
			count(rules, code ? code : "-", add);
		}
		count(all, "all", add);
		if (!by)
			continue;
		if (!strcmp(by, "node")) {
			const char *p = culprits;

			if (!*p)
				count(groups, "-", add);
			while (*p) {
				size_t n = strcspn(p, ",");
				char node[CONTRACT_NAME_MAX + 1];

				snprintf(node, sizeof(node), "%.*s", (int)n, p);
				if (n)
					count(groups, node, add);
				p += n + (p[n] == ',');
			}
		} else {
			const char *key = !strcmp(by, "rule") ? code
				: !strcmp(by, "partition")    ? partition
							      : sd;
			count(groups, key ? key : "-", add);
		}
	}
	if (rc != SQLITE_DONE)
		goto done;
	{
		long zero[F_N] = { 0 };
		struct json_object *t;

		count(all, "all", zero);
		json_object_object_get_ex(all, "all", &t);
		out = json_object_get(t);
		add_ratios(out);
		json_object_object_add(out, "since", json_object_new_int64(since));
		json_object_object_add(out, "rules", entries(rules, "rule"));
		if (by) {
			json_object_object_add(out, "by", json_object_new_string(by));
			json_object_object_add(out, "groups", entries(groups, by));
		}
	}
done:
	sqlite3_finalize(st);
	sqlite3_finalize(dr);
	json_object_put(all);
	json_object_put(rules);
	json_object_put(groups);
	return out;
}
