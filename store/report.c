/* Hours lost (report.h): sums in SQL over the results table's columns
 * (migration 6), one query per part of the report, each over the same
 * failed results of the window (the CTE "f"); json-c builds the object. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "contract.h"
#include "timefmt.h"
#include "internal.h"
#include "report.h"

#define TOP_N 10

/* The failed results of [?1, ?2]: the job's end (the record's, else when
 * it was stored), its GPU-hours (NULL: not known) and its group columns. */
#define FAILED_CTE \
	"WITH f AS (SELECT job_id, attempt, sub_domain, user, partition, culprit_switch, vouched," \
	" coalesce(ended, created) AS t," \
	" CASE WHEN gpus IS NOT NULL AND started IS NOT NULL AND ended IS NOT NULL" \
	"  THEN max(ended - started, 0) * gpus / 3600.0 END AS h" \
	" FROM results WHERE (ended BETWEEN ?1 AND ?2 OR (ended IS NULL AND created BETWEEN ?1 AND ?2))" \
	" AND coalesce(sub_domain, '') <> 'Pass')"

/* Each failed result's hours shared among its culprit nodes (one row a
 * culprit; one with key NULL when it names none, or when its cause is not
 * vouched for: the job's own word blames no node), after FAILED_CTE. */
#define BY_NODE_CTE \
	", g AS (SELECT n.node AS key, f.h / CASE WHEN f.vouched = 1 THEN max(1, (SELECT count(*)" \
	" FROM result_nodes m WHERE m.job_id = f.job_id AND m.attempt = f.attempt AND m.culprit = 1))" \
	" ELSE 1 END AS h FROM f LEFT JOIN result_nodes n" \
	" ON n.job_id = f.job_id AND n.attempt = f.attempt AND n.culprit = 1 AND f.vouched = 1)"

/* The culprit switch of a result whose cause is vouched for, after FAILED_CTE */
#define SWITCH_KEY "CASE WHEN vouched = 1 THEN culprit_switch END"

/* The domain of sub_domain as SQL, from contract.h's one list; an
 * infrastructure verdict whose cause is not vouched for is "unknown": the
 * infra share is what evidence only root, the kernel or Slurm writes
 * shows, never a job's own word. */
static char *domain_sql(void)
{
	char *sql = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&sql, &len);

	if (!m)
		return NULL;
	fputs("CASE sub_domain", m);
#define WHEN_(sd, d) \
	fputs(strcmp(d, "infra") ? " WHEN '" sd "' THEN '" d "'" \
				 : " WHEN '" sd \
				   "' THEN CASE WHEN vouched = 1 THEN 'infra' ELSE 'unknown' END", \
	      m);
	CONTRACT_SUB_DOMAINS(WHEN_)
#undef WHEN_
	fputs(" ELSE 'unknown' END", m);
	if (fclose(m))
		return NULL; /* sql is freed by the caller in either case */
	return sql;
}

/* The infrastructure sub-domains as an SQL list ('InfraHW', ...), from
 * contract.h's one list */
static void infra_list(char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = 0;
	for (int i = 0; i < SUB_DOMAIN_N && at < len; i++)
		if (!strcmp(sub_domain_domain(contract_sub_domains[i]), "infra")) {
			int k = snprintf(buf + at, len - at, "%s'%s'", at ? ", " : "",
					 contract_sub_domains[i]);

			at += k > 0 ? (size_t)k : 0;
		}
}

static int fail(store *s, char *err, size_t errlen)
{
	snprintf(err, errlen, "store: %s", sqlite3_errmsg(s->db));
	return -1;
}

static sqlite3_stmt *prepare(store *s, const char *sql, long long since, long long until)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, since);
	sqlite3_bind_int64(st, 2, until);
	return st;
}

/* hours with three decimals, as written (no 0.30000000000000004) */
static json_object *hours(double h)
{
	char buf[48];

	snprintf(buf, sizeof(buf), "%.3f", h);
	return json_object_new_double_s(strtod(buf, NULL), buf);
}

static const char *text_or(sqlite3_stmt *st, int i, const char *none)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? (const char *)t : none;
}

/* SQL g(key, h) after FAILED_CTE for a dimension, in buf (len), and the
 * key of the group whose key is NULL in *none; NULL when by is none. */
static const char *group_cte(const char *by, const char *domain, char *buf, size_t len, const char **none)
{
	*none = "(unknown)";
	if (!strcmp(by, "node") || !strcmp(by, "switch"))
		*none = "(none)"; /* the result names no culprit node, no switch */
	if (!strcmp(by, "node"))
		snprintf(buf, len, "%s", BY_NODE_CTE);
	else if (!strcmp(by, "domain"))
		snprintf(buf, len, ", g AS (SELECT %s AS key, h FROM f)", domain);
	else if (!strcmp(by, "switch"))
		snprintf(buf, len, ", g AS (SELECT " SWITCH_KEY " AS key, h FROM f)");
	else if (!strcmp(by, "sub_domain") || !strcmp(by, "user") || !strcmp(by, "partition"))
		snprintf(buf, len, ", g AS (SELECT %s AS key, h FROM f)", by);
	else
		return NULL;
	return buf;
}

/* The groups of g, largest first: all of them with their share of total
 * (groups), or the top ones that name something (top_nodes, top_switches,
 * under name). */
static int add_groups(store *s, const char *cte, const char *none, long long since, long long until,
		      double total, const char *name, json_object *arr, char *err, size_t errlen)
{
	char sql[4096];
	sqlite3_stmt *st;
	int rc;

	snprintf(sql, sizeof(sql),
		 FAILED_CTE "%s SELECT key, count(*), total(h) FROM g %s GROUP BY key"
			    " ORDER BY 3 DESC, 2 DESC, key LIMIT %d",
		 cte, name ? "WHERE key IS NOT NULL" : "", name ? TOP_N : -1);
	if (!(st = prepare(s, sql, since, until)))
		return fail(s, err, errlen);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		json_object *g = json_object_new_object();
		double h = sqlite3_column_double(st, 2);

		json_object_object_add(g, name ? name : "key", json_object_new_string(text_or(st, 0, none)));
		json_object_object_add(g, "jobs", json_object_new_int64(sqlite3_column_int64(st, 1)));
		json_object_object_add(g, "gpu_hours", hours(h));
		if (!name)
			json_object_object_add(g, "share", hours(total > 0 ? h / total : 0));
		json_object_array_add(arr, g);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : fail(s, err, errlen);
}

/* "2026-W48": the ISO week of the week that starts on day monday (days
 * since the epoch); its year is that of its Thursday. */
static void iso_week(long long monday, char *buf, size_t len)
{
	time_t thu = (time_t)(monday + 3) * 86400;
	struct tm tm;

	gmtime_r(&thu, &tm);
	snprintf(buf, len, "%04d-W%02d", tm.tm_year + 1900, tm.tm_yday / 7 + 1);
}

static json_object *week_of(long long monday)
{
	json_object *w = json_object_new_object();
	char name[32];

	iso_week(monday, name, sizeof(name));
	json_object_object_add(w, "week", json_object_new_string(name));
	json_object_object_add(w, "gpu_hours", hours(0));
	json_object_object_add(w, "by_sub_domain", json_object_new_object());
	return w;
}

/* The weeks (UTC, Monday to Sunday) from the first to the last with a
 * failed job, those between without one at 0: a trend, not gaps. */
static int add_weeks(store *s, long long since, long long until, json_object *arr, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	json_object *w = NULL;
	long long cur = 0;
	double sum = 0;
	int rc;

	/* 1970-01-01 was a Thursday: day d's Monday is d - (d + 3) % 7 */
	if (!(st = prepare(s,
			   FAILED_CTE
			   " SELECT t / 86400 - (t / 86400 + 3) % 7 AS monday, sub_domain, total(h)"
			   " FROM f GROUP BY monday, sub_domain ORDER BY monday, sub_domain",
			   since, until)))
		return fail(s, err, errlen);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		long long monday = sqlite3_column_int64(st, 0);
		double h = sqlite3_column_double(st, 2);
		json_object *by;

		if (!w || monday != cur) {
			if (w)
				json_object_object_add(w, "gpu_hours", hours(sum));
			for (long long m = w ? cur + 7 : monday; w && m < monday; m += 7)
				json_object_array_add(arr, week_of(m));
			w = week_of(monday);
			json_object_array_add(arr, w);
			cur = monday;
			sum = 0;
		}
		sum += h;
		json_object_object_get_ex(w, "by_sub_domain", &by);
		json_object_object_add(by, text_or(st, 1, "(unknown)"), hours(h));
	}
	if (w)
		json_object_object_add(w, "gpu_hours", hours(sum));
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : fail(s, err, errlen);
}

static json_object *time_str(long long t)
{
	char buf[40];

	return json_object_new_string(time_format_sec((time_t)t, buf, sizeof(buf)));
}

const char *const report_domains[REPORT_NDOMAINS] = { "infra", "user", "scheduler", "unknown" };

static int totals(store *s, long long since, long long until, const char *domain, struct report_totals *t,
		  char *err, size_t errlen)
{
	char sql[4096], infra[256];
	sqlite3_stmt *st;

	memset(t, 0, sizeof(*t));
	infra_list(infra, sizeof(infra));
	/* the infrastructure verdicts domain_sql counts as unknown */
	snprintf(sql, sizeof(sql),
		 FAILED_CTE
		 " SELECT count(*), total(h), count(*) - count(h),"
		 " count(*) FILTER (WHERE coalesce(vouched, 0) <> 1 AND sub_domain IN (%s)),"
		 " total(h) FILTER (WHERE coalesce(vouched, 0) <> 1 AND sub_domain IN (%s)) FROM f",
		 infra, infra);
	if (!(st = prepare(s, sql, since, until)) || sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return fail(s, err, errlen);
	}
	t->jobs = sqlite3_column_int64(st, 0);
	t->gpu_hours = sqlite3_column_double(st, 1);
	t->unknown_gpus = sqlite3_column_int64(st, 2);
	t->unvouched_jobs = sqlite3_column_int64(st, 3);
	t->unvouched_gpu_hours = sqlite3_column_double(st, 4);
	sqlite3_finalize(st);
	snprintf(sql, sizeof(sql), FAILED_CTE " SELECT %s AS d, total(h) FROM f GROUP BY d", domain);
	if (!(st = prepare(s, sql, since, until)))
		return fail(s, err, errlen);
	while (sqlite3_step(st) == SQLITE_ROW)
		for (int i = 0; i < REPORT_NDOMAINS; i++)
			if (!strcmp(text_or(st, 0, "unknown"), report_domains[i]))
				t->domain[i] = sqlite3_column_double(st, 1);
	sqlite3_finalize(st);
	return 0;
}

static void window(long long *since, long long *until)
{
	if (*since < 0)
		*since = 0;
	if (*until <= 0)
		*until = time(NULL);
}

int store_report_totals(store *s, long long since, long long until, struct report_totals *t, char *err,
			size_t errlen)
{
	char *domain = domain_sql();
	int rc;

	if (!domain) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	window(&since, &until);
	rc = totals(s, since, until, domain, t, err, errlen);
	free(domain);
	return rc;
}

json_object *store_report_json(store *s, long long since, long long until, const char *by, char *err,
			       size_t errlen)
{
	json_object *o = NULL, *domains, *arr;
	char *domain = NULL, cte[4096], sw[256];
	const char *none, *sw_none;
	struct report_totals t;

	if (!by)
		by = "sub_domain";
	window(&since, &until);
	if (!(domain = domain_sql())) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	group_cte("switch", domain, sw, sizeof(sw), &sw_none);
	if (!group_cte(by, domain, cte, sizeof(cte), &none)) {
		snprintf(err, errlen, "cannot group by \"%.64s\": one of %s", by, REPORT_BY_LIST);
		goto bad;
	}
	if (totals(s, since, until, domain, &t, err, errlen) < 0)
		goto bad;
	o = json_object_new_object();
	json_object_object_add(o, "since", time_str(since));
	json_object_object_add(o, "until", time_str(until));
	json_object_object_add(o, "by", json_object_new_string(by));
	json_object_object_add(o, "jobs", json_object_new_int64(t.jobs));
	json_object_object_add(o, "gpu_hours", hours(t.gpu_hours));
	json_object_object_add(o, "unknown_gpus", json_object_new_int64(t.unknown_gpus));
	json_object_object_add(o, "domains", domains = json_object_new_object());
	for (int i = 0; i < REPORT_NDOMAINS; i++)
		json_object_object_add(domains, report_domains[i], hours(t.domain[i]));
	json_object *uv = json_object_new_object();
	json_object_object_add(uv, "jobs", json_object_new_int64(t.unvouched_jobs));
	json_object_object_add(uv, "gpu_hours", hours(t.unvouched_gpu_hours));
	json_object_object_add(o, "unvouched", uv);

	json_object_object_add(o, "groups", arr = json_object_new_array());
	if (add_groups(s, cte, none, since, until, t.gpu_hours, NULL, arr, err, errlen) < 0)
		goto bad;
	json_object_object_add(o, "top_nodes", arr = json_object_new_array());
	if (add_groups(s, BY_NODE_CTE, NULL, since, until, t.gpu_hours, "node", arr, err, errlen) < 0)
		goto bad;
	json_object_object_add(o, "top_switches", arr = json_object_new_array());
	if (add_groups(s, sw, sw_none, since, until, t.gpu_hours, "switch", arr, err, errlen) < 0)
		goto bad;
	json_object_object_add(o, "weeks", arr = json_object_new_array());
	if (add_weeks(s, since, until, arr, err, errlen) < 0)
		goto bad;
	free(domain);
	return o;
bad:
	free(domain);
	json_object_put(o);
	return NULL;
}
