/* The fleet view (Check): a store filled through the store API with
 * diagnoses of several jobs, then the real `attrib nodes` and `attrib list`
 * ($ATTRIB) run on it: ranking, fault and affected counts, causes, last
 * seen, --since, --limit, --json (checked by python3's json module and
 * read with json-c), 80 columns with "+N more", and the Slurm state when
 * slurmctld cannot be asked: "unknown" with one line on stderr.  Also
 * store_node_faults itself, and the webhook queue's store functions. */
#include <check.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "findings.h"
#include "log.h"
#include "metrics.h"
#include "store.h"
#include "testutil.h"
#include "text.h"
#include "timefmt.h"
#include "webhook.h"
#include "xalloc.h"

static char *dir;
static char conf_path[600], db_path[600];
static long long now;

struct diag {
	const char *job, *sub, *user, *culprits, *affected, *code;
	long long age, end_age; /* seconds before now: stored, job end (-1: none) */
};

/* gpu-12: 8 faults, 8 causes (one absurdly long); gpu-07: 3 (xid.79
 * twice); gpu-08: 2 and affected 3; gpu-09: 1, affected 3; gpu-10:
 * affected only; gpu-11: 40 days ago (outside the default 30 days).  No
 * age within a minute of a --since boundary the tests use. */
static const struct diag diags[] = {
	{ "101", "InfraHW", "alice", "gpu-07", "gpu-07,gpu-08", "xid.79", 86400, 86400 + 60 },
	{ "102", "InfraHW", "bob", "gpu-07", "gpu-07", "xid.79", 2 * 86400 + 3600, 2 * 86400 + 3660 },
	{ "103", "InfraHW", "alice", "gpu-07", "gpu-07,gpu-09", "xid.48", 3 * 86400, 3 * 86400 + 60 },
	{ "104", "InfraNet", "carol", "gpu-08", "gpu-08,gpu-09", "ib.link_down", 3600, 7200 },
	{ "105", "ambiguous", "bob", "gpu-08,gpu-09", "gpu-08,gpu-09", NULL, 5 * 86400, -1 },
	{ "106", "UserCode", "alice", "", "gpu-10", "cuda.illegal_address", 86400 + 5, 86400 + 65 },
	{ "107", "InfraHW", "alice", "gpu-11", "gpu-11", "xid.79", 40 * 86400, 40 * 86400 + 60 },
	{ "111", "InfraHW", "dave", "gpu-12", "gpu-12", "xid.63", 10 * 86400, -1 },
	{ "112", "InfraHW", "dave", "gpu-12", "gpu-12", "xid.64", 10 * 86400, -1 },
	{ "113", "InfraHW", "dave", "gpu-12", "gpu-12", "xid.94", 10 * 86400, -1 },
	{ "114", "InfraHW", "dave", "gpu-12", "gpu-12", "xid.95", 10 * 86400, -1 },
	{ "115", "InfraHW", "dave", "gpu-12", "gpu-12", "xid.119", 10 * 86400, -1 },
	{ "116", "InfraHW", "dave", "gpu-12", "gpu-12", "xid.120", 10 * 86400, -1 },
	{ "117", "InfraHW", "dave", "gpu-12", "gpu-12", "xid.48", 10 * 86400, -1 },
	{ "118", "InfraHW", "dave", "gpu-12", "gpu-12",
	  "gpu.fell_off_the_bus_and_was_never_heard_of_again_on_this_node", 10 * 86400, -1 },
};
#define NDIAGS (sizeof(diags) / sizeof(*diags))

static struct json_object *names(const char *csv)
{
	struct json_object *a = json_object_new_array();
	char *copy = strdup_or_die(csv), *save = NULL;

	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
		json_object_array_add(a, json_object_new_string(t));
	free(copy);
	return a;
}

static void fill_store(void)
{
	char err[256];
	store *s;

	dir = tmpdir();
	snprintf(db_path, sizeof(db_path), "%s/attrib.db", dir);
	snprintf(conf_path, sizeof(conf_path), "%s/attrib.conf", dir);
	FILE *f = fopen(conf_path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "StateDir = %s\n", dir);
	fclose(f);
	now = (long long)time(NULL);
	s = store_open(db_path, false, err, sizeof(err));
	ck_assert_msg(s != NULL, "%s", err);
	for (size_t i = 0; i < NDIAGS; i++) {
		const struct diag *d = &diags[i];
		struct json_object *r = json_object_new_object(), *rc = NULL;
		char end[40];

		json_object_object_add(r, "schema", json_object_new_string("attrib.result/v1"));
		json_object_object_add(r, "job_id", json_object_new_string(d->job));
		json_object_object_add(r, "sub_domain", json_object_new_string(d->sub));
		if (d->code) {
			rc = json_object_new_object();
			json_object_object_add(rc, "code", json_object_new_string(d->code));
		}
		json_object_object_add(r, "root_cause", rc);
		json_object_object_add(r, "culprit_nodes", names(d->culprits));
		json_object_object_add(r, "affected_nodes", names(d->affected));
		if (d->end_age >= 0) {
			time_format_sec((time_t)(now - d->end_age), end, sizeof(end));
			json_object_object_add(r, "end_time", json_object_new_string(end));
		}
		struct store_row row = {
			.job_id = d->job,
			.attempt = 0,
			.cluster = "lab",
			.user = d->user,
			.state = "FAILED",
			.sub_domain = d->sub,
			.culprits = *d->culprits ? d->culprits : NULL,
			.root_code = d->code,
			.created = now - d->age,
			.result_json = json_object_to_json_string(r),
		};
		ck_assert_int_eq(store_put(s, &row, NULL, now), 1);
		json_object_put(r);
	}
	store_close(s);
}

static void drop_store(void)
{
	rmtree(dir);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&buf, &n);
	int c;

	ck_assert_ptr_nonnull(f);
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(f);
	fclose(m);
	if (len)
		*len = n;
	return buf;
}

/* Runs `$ATTRIB ARGS --config conf` with SLURM_CONF=slurm_conf; stdout and
 * stderr to files, returned (the caller frees); the exit status. */
static int run(const char *args, const char *slurm_conf, char **out, char **errout)
{
	const char *a = getenv("ATTRIB") ? getenv("ATTRIB") : "./attrib";
	char cmd[2048], o[700], e[700];
	int st;

	snprintf(o, sizeof(o), "%s/out", dir);
	snprintf(e, sizeof(e), "%s/err", dir);
	snprintf(cmd, sizeof(cmd), "SLURM_CONF='%s' '%s' %s --config '%s' >'%s' 2>'%s'", slurm_conf, a, args,
		 conf_path, o, e);
	st = system(cmd);
	*out = slurp(o, NULL);
	if (errout)
		*errout = slurp(e, NULL);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static bool valid_for_python(const char *json)
{
	char p[700], cmd[900];

	snprintf(p, sizeof(p), "%s/check.json", dir);
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(json, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' '%s'", p);
	return system(cmd) == 0;
}

static struct json_object *nodes_json(const char *args, const char *slurm_conf)
{
	char *out, *err, full[256];
	struct json_object *a;

	snprintf(full, sizeof(full), "nodes --json %s", args);
	ck_assert_int_eq(run(full, slurm_conf, &out, &err), 0);
	ck_assert_msg(valid_for_python(out), "not JSON for python3: %s", out);
	a = json_tokener_parse(out);
	ck_assert_ptr_nonnull(a);
	ck_assert(json_object_is_type(a, json_type_array));
	free(out);
	free(err);
	return a;
}

static const char *str(struct json_object *o, const char *k)
{
	struct json_object *v;

	return json_object_object_get_ex(o, k, &v) ? json_object_get_string(v) : NULL;
}

static long num(struct json_object *o, const char *k)
{
	struct json_object *v;

	ck_assert(json_object_object_get_ex(o, k, &v));
	return (long)json_object_get_int64(v);
}

static const char *no_slurm(void)
{
	static char p[700];

	snprintf(p, sizeof(p), "%s/no-slurm.conf", dir);
	return p;
}

START_TEST(ranking_counts_causes)
{
	struct json_object *a = nodes_json("", no_slurm()), *n, *causes, *c;
	static const char *order[] = { "gpu-12", "gpu-07", "gpu-08", "gpu-09", "gpu-10" };
	static const long faults[] = { 8, 3, 2, 1, 0 }, affected[] = { 8, 3, 3, 3, 1 };
	char end[40];

	ck_assert_int_eq(json_object_array_length(a), 5); /* not gpu-11 (40 days) */
	for (size_t i = 0; i < 5; i++) {
		n = json_object_array_get_idx(a, i);
		ck_assert_str_eq(str(n, "node"), order[i]);
		ck_assert_int_eq(num(n, "faults"), faults[i]);
		ck_assert_int_eq(num(n, "affected"), affected[i]);
		ck_assert_str_eq(str(n, "state"), "unknown"); /* no slurm.conf */
	}
	/* gpu-07: xid.79 twice, then xid.48; last seen: job 101's end */
	n = json_object_array_get_idx(a, 1);
	ck_assert(json_object_object_get_ex(n, "causes", &causes));
	ck_assert_int_eq(json_object_array_length(causes), 2);
	c = json_object_array_get_idx(causes, 0);
	ck_assert_str_eq(str(c, "cause"), "xid.79");
	ck_assert_int_eq(num(c, "count"), 2);
	c = json_object_array_get_idx(causes, 1);
	ck_assert_str_eq(str(c, "cause"), "xid.48");
	ck_assert_int_eq(num(c, "count"), 1);
	time_format_sec((time_t)(now - 86400 - 60), end, sizeof(end));
	ck_assert_str_eq(str(n, "last_seen"), end);
	/* gpu-08: the ambiguous diagnosis counts by its sub-domain; last seen
	 * job 104's end (2 h ago) */
	n = json_object_array_get_idx(a, 2);
	ck_assert(json_object_object_get_ex(n, "causes", &causes));
	ck_assert_str_eq(str(json_object_array_get_idx(causes, 0), "cause"), "ambiguous");
	ck_assert_str_eq(str(json_object_array_get_idx(causes, 1), "cause"), "ib.link_down");
	time_format_sec((time_t)(now - 7200), end, sizeof(end));
	ck_assert_str_eq(str(n, "last_seen"), end);
	/* gpu-12: no end_time stored: when the results were stored */
	n = json_object_array_get_idx(a, 0);
	time_format_sec((time_t)(now - 10 * 86400), end, sizeof(end));
	ck_assert_str_eq(str(n, "last_seen"), end);
	ck_assert(json_object_object_get_ex(n, "causes", &causes));
	ck_assert_int_eq(json_object_array_length(causes), 8);
	/* gpu-10: affected only, no causes */
	n = json_object_array_get_idx(a, 4);
	ck_assert(json_object_object_get_ex(n, "causes", &causes));
	ck_assert_int_eq(json_object_array_length(causes), 0);
	json_object_put(a);
}
END_TEST

START_TEST(since_and_limit)
{
	struct json_object *a = nodes_json("--since 2d", no_slurm()), *n;

	/* jobs 101, 104, 106: gpu-08 (1 fault, affected twice) before gpu-07 */
	ck_assert_int_eq(json_object_array_length(a), 4);
	n = json_object_array_get_idx(a, 0);
	ck_assert_str_eq(str(n, "node"), "gpu-08");
	ck_assert_int_eq(num(n, "faults"), 1);
	ck_assert_int_eq(num(n, "affected"), 2);
	n = json_object_array_get_idx(a, 1);
	ck_assert_str_eq(str(n, "node"), "gpu-07");
	ck_assert_int_eq(num(n, "faults"), 1);
	ck_assert_int_eq(num(n, "affected"), 1);
	json_object_put(a);

	a = nodes_json("--since 60d --limit 3", no_slurm());
	ck_assert_int_eq(json_object_array_length(a), 3);
	ck_assert_str_eq(str(json_object_array_get_idx(a, 1), "node"), "gpu-07");
	ck_assert_int_eq(num(json_object_array_get_idx(a, 1), "faults"), 3);
	json_object_put(a);

	a = nodes_json("--since 60d", no_slurm());
	ck_assert_int_eq(json_object_array_length(a), 6); /* gpu-11 now, after gpu-09 (affected more) */
	ck_assert_str_eq(str(json_object_array_get_idx(a, 3), "node"), "gpu-09");
	ck_assert_str_eq(str(json_object_array_get_idx(a, 4), "node"), "gpu-11");
	ck_assert_int_eq(num(json_object_array_get_idx(a, 4), "faults"), 1);
	json_object_put(a);
	a = nodes_json("--since 1m", no_slurm());
	ck_assert_int_eq(json_object_array_length(a), 0);
	json_object_put(a);

	char *out;
	ck_assert_int_eq(run("nodes --limit 0", no_slurm(), &out, NULL), 1);
	free(out);
	ck_assert_int_eq(run("nodes --since yesterday", no_slurm(), &out, NULL), 1);
	free(out);
}
END_TEST

START_TEST(text_fits_80_columns)
{
	char *out, *err;

	ck_assert_int_eq(run("nodes", no_slurm(), &out, &err), 0);
	ck_assert_msg(strncmp(out, "NODE ", 5) == 0, "%s", out);
	for (char *line = out, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		ck_assert_ptr_nonnull(nl);
		ck_assert_msg(nl - line <= 80, "%d columns: %.*s", (int)(nl - line), (int)(nl - line), line);
	}
	/* gpu-12's eight causes do not fit: some are named, the rest counted */
	char *l12 = strstr(out, "\ngpu-12 ");
	ck_assert_ptr_nonnull(l12);
	ck_assert_msg(strstr(l12, "xid.") != NULL, "%s", out);
	char *more = strstr(l12, " more\n");
	ck_assert_msg(more != NULL && more < strchr(l12 + 1, '\n') + 1, "%s", out);
	ck_assert_msg(strstr(out, "xid.79 (2), xid.48 (1)") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "unknown") != NULL, "%s", out);
	/* one line on stderr says why the state is unknown */
	ck_assert_msg(strstr(err, "node states unknown (no slurm.conf at") != NULL, "%s", err);
	ck_assert_int_eq((int)(strchr(err, '\n') - err), (int)strlen(err) - 1);
	free(out);
	free(err);
}
END_TEST

/* A slurm.conf whose slurmctld is not there (a port nothing listens on):
 * slurm_load_node fails, the view still comes, the state unknown. */
START_TEST(slurmctld_unreachable)
{
	char p[700], *out, *err;
	FILE *f;

	snprintf(p, sizeof(p), "%s/slurm.conf", dir);
	ck_assert_ptr_nonnull(f = fopen(p, "w"));
	fprintf(f,
		"ClusterName=nowhere\nSlurmctldHost=localhost(127.0.0.1)\nSlurmctldPort=9\n"
		"AuthType=auth/munge\nMessageTimeout=2\nNodeName=gpu-07 CPUs=1 State=UNKNOWN\n"
		"PartitionName=p Nodes=gpu-07 Default=YES\n");
	fclose(f);
	time_t t0 = time(NULL);
	ck_assert_int_eq(run("nodes --json --limit 2", p, &out, &err), 0);
	ck_assert_msg(time(NULL) - t0 < 60, "took %ld s", (long)(time(NULL) - t0));
	struct json_object *a = json_tokener_parse(out);
	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(json_object_array_length(a), 2);
	ck_assert_str_eq(str(json_object_array_get_idx(a, 0), "state"), "unknown");
	ck_assert_str_eq(str(json_object_array_get_idx(a, 1), "state"), "unknown");
	ck_assert_msg(strstr(err, "attrib: node states unknown (slurmctld: ") != NULL, "%s", err);
	json_object_put(a);
	free(out);
	free(err);
}
END_TEST

static int list_count(const char *args)
{
	char *out, full[256];
	struct json_object *a;
	int n;

	snprintf(full, sizeof(full), "list --json %s", args);
	ck_assert_int_eq(run(full, no_slurm(), &out, NULL), 0);
	ck_assert_msg(valid_for_python(out), "not JSON for python3: %s", out);
	a = json_tokener_parse(out);
	ck_assert_ptr_nonnull(a);
	n = (int)json_object_array_length(a);
	json_object_put(a);
	free(out);
	return n;
}

START_TEST(list_filters)
{
	char date[32], args[64];
	time_t t = (time_t)(now - 45 * 86400);
	struct tm tm;

	ck_assert_int_eq(list_count(""), 6); /* 7 days: 101-106 */
	ck_assert_int_eq(list_count("--since 60d"), 15);
	ck_assert_int_eq(list_count("--since 2d"), 3);
	strftime(date, sizeof(date), "%Y-%m-%d", gmtime_r(&t, &tm));
	snprintf(args, sizeof(args), "--since %s", date);
	ck_assert_int_eq(list_count(args), 15);
	ck_assert_int_eq(list_count("--since 60d --node gpu-07"), 3);
	ck_assert_int_eq(list_count("--since 60d --node gpu-11"), 1);
	ck_assert_int_eq(list_count("--since 60d --node gpu-0"), 0);
	ck_assert_int_eq(list_count("--since 60d --node gpu-09"),
			 1); /* 105: culprit; 103, 104 only affected */
	ck_assert_int_eq(list_count("--since 60d --sub-domain InfraNet"), 1);
	ck_assert_int_eq(list_count("--since 60d --user alice"), 4);
	ck_assert_int_eq(list_count("--since 60d --user alice --sub-domain InfraHW"), 3);
	ck_assert_int_eq(list_count("--since 60d --limit 2"), 2);

	char *out;
	ck_assert_int_eq(run("list --json --since 60d --limit 1", no_slurm(), &out, NULL), 0);
	ck_assert_msg(strstr(out, "\"104\"") != NULL, "newest first: %s", out); /* stored 1 h ago */
	free(out);
	ck_assert_int_eq(run("list --limit x", no_slurm(), &out, NULL), 1);
	free(out);
}
END_TEST

static int collect(const struct node_fault_row *r, void *arg)
{
	FILE *f = arg;

	fprintf(f, "%s %d %s %ld|", r->node, r->culprit, r->cause ? r->cause : "-", r->count);
	return 0;
}

START_TEST(store_rows)
{
	char err[256], *buf = NULL;
	size_t len = 0;
	store *s = store_open(db_path, true, err, sizeof(err));
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(store_node_faults(s, now - 2 * 86400, collect, f), 6);
	fclose(f);
	ck_assert_str_eq(buf,
			 "gpu-07 1 xid.79 1|gpu-07 0 - 1|gpu-08 1 ib.link_down 1|gpu-08 0 - 2|"
			 "gpu-09 0 - 1|gpu-10 0 - 1|");
	free(buf);
	store_close(s);
}
END_TEST

static int finding_line(const struct finding_row *r, void *arg)
{
	fprintf(arg, "%s %s %s %s|", r->kind, r->subject, r->summary, r->jobs_json);
	return 0;
}

/* findings: written, listed newest first by kind and subject and since,
 * found by a job they cite (not by a job id that only shares a prefix),
 * and the latest one of a subject */
START_TEST(findings_rows)
{
	char err[256], *buf = NULL;
	size_t len = 0;
	store *s = store_open(db_path, false, err, sizeof(err));
	const struct finding_job three[] = { { "101", 0 }, { "102", 1 }, { "103", 0 } },
				 one[] = { { "1010", 0 } };
	FILE *f;

	ck_assert_ptr_nonnull(s);
	ck_assert_int_gt(store_add_finding(s, FINDING_REPEAT_OFFENDER, "gpu-07", "3 jobs", three, 3,
					   now - 100),
			 0);
	ck_assert_int_gt(store_add_finding(s, FINDING_SWITCH, "leaf-1", "2 nodes", one, 1, now - 50), 0);
	f = open_memstream(&buf, &len);
	ck_assert_int_eq(store_each_finding(s, now - 1000, NULL, NULL, finding_line, f), 0);
	fclose(f);
	ck_assert_str_eq(buf,
			 "switch leaf-1 2 nodes [{\"job_id\":\"1010\",\"attempt\":0}]|"
			 "repeat-offender gpu-07 3 jobs [{\"job_id\":\"101\",\"attempt\":0},"
			 "{\"job_id\":\"102\",\"attempt\":1},{\"job_id\":\"103\",\"attempt\":0}]|");
	free(buf);
	f = open_memstream(&buf, &len);
	ck_assert_int_eq(store_each_finding(s, now - 70, NULL, NULL, finding_line, f), 0);
	ck_assert_int_eq(store_each_finding(s, 0, FINDING_REPEAT_OFFENDER, "gpu-08", finding_line, f), 0);
	fclose(f);
	ck_assert_str_eq(buf, "switch leaf-1 2 nodes [{\"job_id\":\"1010\",\"attempt\":0}]|");
	free(buf);
	f = open_memstream(&buf, &len);
	ck_assert_int_eq(store_job_findings(s, "102", finding_line, f), 0);
	fclose(f);
	ck_assert(strncmp(buf, "repeat-offender gpu-07 ", 23) == 0 && !strstr(buf, "switch"));
	free(buf);
	ck_assert_int_eq(store_latest_finding(s, FINDING_REPEAT_OFFENDER, "gpu-07", now - 1000), now - 100);
	ck_assert_int_eq(store_latest_finding(s, FINDING_REPEAT_OFFENDER, "gpu-07", now - 99), 0);
	ck_assert_int_eq(store_latest_finding(s, FINDING_SWITCH, "gpu-07", 0), 0);
	store_close(s);
}
END_TEST

START_TEST(webhook_queue)
{
	char *d = tmpdir(), db[600], err[256];
	struct comment_item *items;
	store *s;

	snprintf(db, sizeof(db), "%s/attrib.db", d);
	s = store_open(db, false, err, sizeof(err));
	ck_assert_ptr_nonnull(s);
	struct store_row r = { .job_id = "9", .attempt = 1, .created = 500, .result_json = "{\"a\":1}" };
	/* not armed: nothing queued */
	ck_assert_int_eq(store_put(s, &r, NULL, 500), 1);
	ck_assert_int_eq(store_webhook_pending(s), 0);
	ck_assert_int_eq(store_webhook_arm(s), 0);
	r.job_id = "10";
	ck_assert_int_eq(store_put(s, &r, NULL, 500), 1);
	ck_assert_int_eq(store_put(s, &r, NULL, 600), 0); /* there already: queued once */
	ck_assert_int_eq(store_webhook_pending(s), 1);
	ck_assert_int_eq(store_webhook_next(s), 500);
	ck_assert_int_eq(store_webhook_due(s, 499, 10, &items), 0);
	store_free_items(items, 0);
	ck_assert_int_eq(store_webhook_due(s, 500, 10, &items), 1);
	ck_assert_str_eq(items[0].job_id, "10");
	ck_assert_str_eq(items[0].text, "{\"a\":1}");
	store_free_items(items, 1);
	ck_assert_int_eq(store_webhook_retry(s, "10", 1, 500 + webhook_backoff(0), "down"), 0);
	ck_assert_int_eq(webhook_backoff(0), 5);
	ck_assert_int_eq(webhook_backoff(1), 10);
	ck_assert_int_eq(webhook_backoff(40), 3600);
	store_close(s);
	/* reopened (a restart): still pending, the try counted */
	s = store_open(db, false, err, sizeof(err));
	ck_assert_int_eq(store_webhook_pending(s), 1);
	ck_assert_int_eq(store_webhook_due(s, 504, 10, &items), 0);
	store_free_items(items, 0);
	ck_assert_int_eq(store_webhook_due(s, 505, 10, &items), 1);
	ck_assert_int_eq(items[0].tries, 1);
	store_free_items(items, 1);
	ck_assert_int_eq(store_webhook_done(s, "10", 1, 506), 0);
	ck_assert_int_eq(store_webhook_pending(s), 0);
	ck_assert_int_eq(store_webhook_next(s), -1);
	/* the trigger went with the connection that armed it */
	r.job_id = "11";
	ck_assert_int_eq(store_put(s, &r, NULL, 700), 1);
	ck_assert_int_eq(store_webhook_pending(s), 0);
	store_close(s);
	rmtree(d);
}
END_TEST

/* Drain decisions attribd records (its drain policy: drain_policy_apply
 * notes each one it stored) are counted for /metrics, by decision. */
START_TEST(drains_counted)
{
	char *m;

	metrics_note_drain("dry-run");
	metrics_note_drain("drained");
	metrics_note_drain("drained (forced)");
	metrics_note_drain("refused");
	metrics_note_drain("whatever");
	m = metrics_render();
	ck_assert_ptr_nonnull(m);
	ck_assert_msg(strstr(m, "attrib_drains_total{decision=\"dry_run\"} 1\n") != NULL, "%s", m);
	ck_assert_msg(strstr(m, "attrib_drains_total{decision=\"drained\"} 1\n") != NULL, "%s", m);
	ck_assert_msg(strstr(m, "attrib_drains_total{decision=\"forced\"} 1\n") != NULL, "%s", m);
	ck_assert_msg(strstr(m, "attrib_drains_total{decision=\"refused\"} 1\n") != NULL, "%s", m);
	ck_assert_msg(strstr(m, "attrib_drains_total{decision=\"failed\"} 0\n") != NULL, "%s", m);
	ck_assert_msg(strstr(m, "attrib_drains_total{decision=\"other\"} 1\n") != NULL, "%s", m);
	free(m);
}
END_TEST

/* A store whose results hold raw ESC, bidi controls and invalid UTF-8 in a
 * node name and a cause (an older service's): the fleet view prints them
 * cleaned, as text and as JSON Python reads.  Its own store (this child
 * process only: dir and conf_path are this test's). */
START_TEST(dirty_store_printed_clean)
{
	char err[256], *out;
	store *s;

	char *fixture_dir = dir; /* the fixture's store is back after this test */

	dir = tmpdir();
	snprintf(db_path, sizeof(db_path), "%s/attrib.db", dir);
	snprintf(conf_path, sizeof(conf_path), "%s/attrib.conf", dir);
	FILE *f = fopen(conf_path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "StateDir = %s\n", dir);
	fclose(f);
	s = store_open(db_path, false, err, sizeof(err));
	ck_assert_msg(s != NULL, "%s", err);
	const char *json = "{\"schema\":\"attrib.result/v1\",\"job_id\":\"9\",\"sub_domain\":\"InfraHW\","
			   "\"root_cause\":{\"code\":\"xid.\\u001b[2J\xe2\x80\xae\"},"
			   "\"culprit_nodes\":[\"gpu\\u001b[31m\xff\"],\"affected_nodes\":[]}";
	struct store_row row = {
		.job_id = "9",
		.attempt = 0,
		.cluster = "lab",
		.user = "u",
		.state = "FAILED",
		.sub_domain = "InfraHW",
		.culprits = "gpu",
		.root_code = "xid.\x1b[2J",
		.created = (long long)time(NULL),
		.result_json = json,
	};
	ck_assert_int_eq(store_put(s, &row, NULL, (long long)time(NULL)), 1);
	store_close(s);
	ck_assert_int_eq(run("nodes", no_slurm(), &out, NULL), 0);
	for (char *line = out, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		ck_assert_ptr_nonnull(nl);
		ck_assert_msg(text_is_clean(line, nl - line), "%.*s", (int)(nl - line), line);
	}
	ck_assert_msg(strstr(out, "gpu?[31m") != NULL && strstr(out, "xid.?[2J") != NULL, "%s", out);
	free(out);
	ck_assert_int_eq(run("nodes --json", no_slurm(), &out, NULL), 0);
	for (char *line = out, *nl; (nl = strchr(line, '\n')); line = nl + 1)
		ck_assert_msg(text_is_clean(line, nl - line), "%.*s", (int)(nl - line), line);
	ck_assert_msg(valid_for_python(out), "%s", out);
	ck_assert_msg(strstr(out, "\\u001b") == NULL && strstr(out, "\xe2\x80\xae") == NULL, "%s", out);
	ck_assert_msg(strstr(out, "gpu?[31m\xef\xbf\xbd") != NULL, "%s", out);
	free(out);
	rmtree(dir);
	dir = fixture_dir;
	snprintf(db_path, sizeof(db_path), "%s/attrib.db", dir);
	snprintf(conf_path, sizeof(conf_path), "%s/attrib.conf", dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fleet");
	TCase *t = tcase_create("nodes");

	tcase_add_unchecked_fixture(t, fill_store, drop_store);
	tcase_set_timeout(t, 120);
	tcase_add_test(t, ranking_counts_causes);
	tcase_add_test(t, since_and_limit);
	tcase_add_test(t, text_fits_80_columns);
	tcase_add_test(t, slurmctld_unreachable);
	tcase_add_test(t, list_filters);
	tcase_add_test(t, store_rows);
	tcase_add_test(t, webhook_queue);
	tcase_add_test(t, drains_counted);
	tcase_add_test(t, dirty_store_printed_clean);
	tcase_add_test(t, findings_rows);
	suite_add_tcase(s, t);
	log_set_level(LOGL_ERROR);
	return run_suite(s);
}
