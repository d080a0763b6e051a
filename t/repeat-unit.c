/* Repeat offenders (Check), on a real store filled through the store API:
 * each threshold (RepeatJobs, RepeatUsers, RepeatWindow), what counts
 * (RepeatCauses; never the scheduler's outcomes or Pass, never a job that
 * does not name the node), attempts of one job counted once, no second
 * finding while one stands, RepeatJobs = 0; the finding's summary and cited
 * jobs; the drain policy's branches for class repeat-offender (DrainClasses
 * not set: suggest; off, suggest, auto, not listed, DrainMaxPerHour); the
 * service's path after a diagnosis (finding, drain decision naming it,
 * metrics); and the real `attrib nodes` and `attrib show` ($ATTRIB) showing
 * the finding, its drain decision and the 80 columns. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "attrib.h"
#include "conf.h"
#include "drain_plan.h"
#include "drain_policy.h"
#include "findings.h"
#include "log.h"
#include "metrics.h"
#include "repeat_apply.h"
#include "repeat_policy.h"
#include "slurmapi.h"
#include "store.h"
#include "testutil.h"
#include "timefmt.h"
#include "xalloc.h"

static char *dir;
static char conf_path[600], db_path[600];
static long long now;
static store *st;
static struct attrib_config conf;
static attrib_catalog *shipped; /* the rules in the tree: RepeatCauses' default */

static void write_conf(const char *text)
{
	FILE *f = fopen(conf_path, "w");

	ck_assert_ptr_nonnull(f);
	fprintf(f, "StateDir = %s\n%s", dir, text);
	fclose(f);
	config_free(&conf);
	ck_assert_int_eq(config_load(conf_path, &conf, stderr), 0);
	ck_assert_int_eq(repeat_causes_default(&conf, shipped), 0); /* as attribd does */
}

static void setup(void)
{
	char err[256];

	dir = tmpdir();
	snprintf(db_path, sizeof(db_path), "%s/attrib.db", dir);
	snprintf(conf_path, sizeof(conf_path), "%s/attrib.conf", dir);
	now = (long long)time(NULL);
	st = store_open(db_path, false, err, sizeof(err));
	ck_assert_msg(st != NULL, "%s", err);
	write_conf(""); /* the defaults: 24h, 3 jobs, 2 users */
}

static void teardown(void)
{
	store_close(st);
	config_free(&conf);
	rmtree(dir);
}

static struct json_object *names(const char *csv)
{
	struct json_object *a = json_object_new_array();
	char *copy = strdup_or_die(csv), *save = NULL;

	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
		json_object_array_add(a, json_object_new_string(t));
	free(copy);
	return a;
}

/* A diagnosis of job/attempt by user, ended ago seconds before now (stored
 * at now), culprit and affected nodes as lists; returns the result (the
 * caller puts it). */
/* the culprit_switch of the next result put, when set */
static const char *put_switch;
/* the trust of the next result's cause ("job-output", "unauthenticated"),
 * when set; NULL: vouched for (each test runs in a process of its own) */
static const char *put_trust;

static struct json_object *put(const char *job, long attempt, const char *user, const char *sub,
			       const char *code, const char *culprits, const char *affected, long long ago)
{
	struct json_object *r = json_object_new_object(), *rc = NULL;
	char end[40];

	json_object_object_add(r, "schema", json_object_new_string("attrib.result/v1"));
	json_object_object_add(r, "job_id", json_object_new_string(job));
	json_object_object_add(r, "sub_domain", json_object_new_string(sub));
	if (code) {
		rc = json_object_new_object();
		json_object_object_add(rc, "code", json_object_new_string(code));
		if (put_trust)
			json_object_object_add(rc, "trust", json_object_new_string(put_trust));
	} else if (!strcmp(sub, "ambiguous")) { /* its causes: candidates of role root */
		struct json_object *sy = json_object_new_array(), *c = json_object_new_object();

		json_object_object_add(c, "code", json_object_new_string("cuda.illegal_address"));
		json_object_object_add(c, "role", json_object_new_string("root"));
		if (put_trust)
			json_object_object_add(c, "trust", json_object_new_string(put_trust));
		json_object_array_add(sy, c);
		json_object_object_add(r, "symptoms", sy);
	}
	json_object_object_add(r, "root_cause", rc);
	json_object_object_add(r, "culprit_nodes", names(culprits));
	json_object_object_add(r, "affected_nodes", names(affected));
	if (put_switch)
		json_object_object_add(r, "culprit_switch", json_object_new_string(put_switch));
	time_format_sec((time_t)(now - ago), end, sizeof(end));
	json_object_object_add(r, "end_time", json_object_new_string(end));
	struct store_row row = {
		.job_id = job,
		.attempt = attempt,
		.cluster = "lab",
		.user = user,
		.state = "FAILED",
		.sub_domain = sub,
		.culprits = *culprits ? culprits : NULL,
		.root_code = code,
		.created = now,
		.result_json = json_object_to_json_string(r),
	};
	ck_assert_int_eq(store_put(st, &row, NULL, now), 1);
	return r;
}

static void put_only(const char *job, long attempt, const char *user, const char *sub, const char *code,
		     const char *culprits, const char *affected, long long ago)
{
	json_object_put(put(job, attempt, user, sub, code, culprits, affected, ago));
}

static int count_row(const struct finding_row *f, void *arg)
{
	(void)f;
	++*(int *)arg;
	return 0;
}

static int findings_count(void)
{
	int n = 0;

	ck_assert_int_eq(store_each_finding(st, 0, FINDING_REPEAT_OFFENDER, NULL, count_row, &n), 0);
	return n;
}

static int copy_jobs(const struct finding_row *f, void *arg)
{
	snprintf(arg, 512, "%s", f->jobs_json);
	return 1;
}

/* ---- thresholds -------------------------------------------------------- */

START_TEST(two_jobs_below)
{
	char sum[1024];

	put_only("1", 0, "alice", "UserCode", "py.segfault", "", "node-17", 3600);
	put_only("2", 0, "bob", "InfraHW", "cuda.unknown_error", "node-17", "node-17", 1800);
	ck_assert_int_eq(repeat_examine(&conf, st, "node-17", now, sum, sizeof(sum)), 0);
	ck_assert_int_eq(findings_count(), 0);
}
END_TEST

START_TEST(three_jobs_one_user)
{
	char sum[1024];

	put_only("1", 0, "alice", "UserCode", "py.segfault", "", "node-17", 3600);
	put_only("2", 0, "alice", "ambiguous", NULL, "", "node-17", 1800);
	put_only("3", 0, "alice", "InfraHW", "cuda.unknown_error", "node-17", "node-17", 60);
	ck_assert_int_eq(repeat_examine(&conf, st, "node-17", now, sum, sizeof(sum)), 0);
	/* RepeatUsers = 1: then it is one */
	write_conf("RepeatUsers = 1\n");
	ck_assert_int_gt(repeat_examine(&conf, st, "node-17", now, sum, sizeof(sum)), 0);
}
END_TEST

START_TEST(three_jobs_two_users)
{
	char sum[1024], jobs[512] = "";
	long long id;

	put_only("101", 0, "alice", "UserCode", "py.segfault", "", "node-17", 6 * 3600);
	put_only("102", 0, "bob", "InfraHW", "cuda.unknown_error", "node-17", "node-17", 3 * 3600);
	put_only("103", 0, "alice", "UserCode", "py.segfault", "", "node-17,node-18", 60);
	/* a job of another node, and one of this node that is not a counted cause */
	put_only("104", 0, "carol", "InfraHW", "xid.79", "node-18", "node-18", 60);
	put_only("105", 0, "carol", "UserCode", "py.key_error", "", "node-17", 60);
	id = repeat_examine(&conf, st, "node-17", now, sum, sizeof(sum));
	ck_assert_int_gt(id, 0);
	ck_assert_str_eq(sum,
			 "node-17: 3 failed jobs of 2 users in 6 h: py.segfault (2), cuda.unknown_error; "
			 "jobs 101, 102, 103");
	ck_assert_int_eq(findings_count(), 1);
	ck_assert_int_eq(store_each_finding(st, 0, FINDING_REPEAT_OFFENDER, "node-17", copy_jobs, jobs), 1);
	ck_assert_str_eq(jobs,
			 "[{\"job_id\":\"101\",\"attempt\":0},{\"job_id\":\"102\",\"attempt\":0},"
			 "{\"job_id\":\"103\",\"attempt\":0}]");
	/* node-18: two jobs only (103 affected, 104 culprit) */
	ck_assert_int_eq(repeat_examine(&conf, st, "node-18", now, sum, sizeof(sum)), 0);
}
END_TEST

static int drain_line(const struct drain_row *d, void *arg);

/* Two users fail three jobs of their own on a healthy node-17 with their
 * own output (a printed segfault, a CUDA illegal address, an ambiguous
 * verdict of such candidates) or logger lines in syslog: causes nobody
 * but them vouches for count 0 times; no finding, no drain decision. The
 * same causes vouched for (a node's kernel, root's journal) still make
 * the finding. */
START_TEST(own_word_counts_nothing)
{
	static const char *const words[] = { "job-output", "unauthenticated" };
	char sum[1024], line[512] = "";
	struct json_object *r;

	for (size_t w = 0; w < 2; w++) {
		put_trust = words[w];
		put_only(w ? "11" : "1", 0, "alice", "UserCode", "py.segfault", "", "node-17", 3600);
		put_only(w ? "12" : "2", 0, "bob", "UserCode", "cuda.illegal_address", "", "node-17", 1800);
		r = put(w ? "13" : "3", 0, "alice", "ambiguous", NULL, "node-17", "node-17", 60);
		ck_assert_int_eq(repeat_examine(&conf, st, "node-17", now, sum, sizeof(sum)), 0);
		repeat_after(&conf, st, r, w ? "13" : "3", 0, now);
		json_object_put(r);
		ck_assert_int_eq(findings_count(), 0);
		ck_assert_int_eq(store_each_drain(st, w ? "13" : "3", drain_line, line), 0);
		ck_assert_str_eq(line, "");
	}
	/* two more of the user's own and one vouched for: still two short */
	put_trust = NULL;
	put_only("21", 0, "carol", "InfraHW", "cuda.unknown_error", "node-17", "node-17", 30);
	ck_assert_int_eq(repeat_examine(&conf, st, "node-17", now, sum, sizeof(sum)), 0);
	put_only("22", 0, "dave", "UserCode", "py.segfault", "", "node-17", 20);
	r = put("23", 0, "carol", "ambiguous", NULL, "node-17", "node-17", 10);
	repeat_after(&conf, st, r, "23", 0, now);
	json_object_put(r);
	ck_assert_int_eq(findings_count(), 1);
	ck_assert_int_eq(store_each_finding(st, 0, FINDING_REPEAT_OFFENDER, "node-17", copy_jobs, sum), 1);
	ck_assert_str_eq(sum,
			 "[{\"job_id\":\"21\",\"attempt\":0},{\"job_id\":\"22\",\"attempt\":0},"
			 "{\"job_id\":\"23\",\"attempt\":0}]");
}
END_TEST

START_TEST(outside_the_window)
{
	char sum[1024];

	put_only("1", 0, "alice", "InfraHW", "xid.79", "node-17", "node-17", 25 * 3600); /* ended 25 h ago */
	put_only("2", 0, "bob", "InfraNet", "ib.link_down", "node-17", "node-17", 3600);
	put_only("3", 0, "carol", "ambiguous", NULL, "node-17", "node-17", 60);
	ck_assert_int_eq(repeat_examine(&conf, st, "node-17", now, sum, sizeof(sum)), 0);
	/* a window of 26 h takes it in */
	write_conf("RepeatWindow = 26h\n");
	ck_assert_int_gt(repeat_examine(&conf, st, "node-17", now, sum, sizeof(sum)), 0);
	ck_assert_msg(strstr(sum, "3 failed jobs of 3 users in 25 h") != NULL, "%s", sum);
}
END_TEST

/* RepeatCauses not set: the infra and unknown sub-domains of
 * common/contract.h and the codes the shipped rules tag repeat-cause,
 * nothing else; set, what it lists */
START_TEST(default_causes_from_the_rules)
{
	static const char *const want[] = { "InfraHW",
					    "InfraNet",
					    "InfraSW",
					    "InfraStorage",
					    "ambiguous",
					    "unattributed",
					    "cuda.illegal_address",
					    "cuda.unknown_error",
					    "cuda.init_unknown",
					    "nccl.remote_error",
					    "nccl.timeout",
					    "py.segfault",
					    "py.bus_error",
					    "py.killed" };
	size_t n = sizeof(want) / sizeof(*want);

	write_conf("");
	ck_assert_int_eq(conf.nrepeat_causes, (int)n);
	for (size_t i = 0; i < n; i++) {
		bool found = false;

		for (int k = 0; k < conf.nrepeat_causes; k++)
			found = found || !strcmp(conf.repeat_causes[k], want[i]);
		ck_assert_msg(found, "%s is not among the default RepeatCauses", want[i]);
	}
	write_conf("RepeatCauses = InfraNet, xid.79\n");
	ck_assert_int_eq(conf.nrepeat_causes, 2);
	ck_assert_str_eq(conf.repeat_causes[0], "InfraNet");
	ck_assert_str_eq(conf.repeat_causes[1], "xid.79");
}
END_TEST

START_TEST(scheduler_outcomes_never_count)
{
	char sum[1024];

	/* listed or not, cancelled, timed-out, preempted and passed jobs do not count */
	write_conf("RepeatCauses = InfraHW, SchedCancelled, SchedTimeLimit, SchedPreempted, Pass, "
		   "slurm.cancelled\n");
	put_only("1", 0, "alice", "InfraHW", "xid.79", "node-17", "node-17", 3600);
	put_only("2", 0, "bob", "InfraHW", "xid.48", "node-17", "node-17", 1800);
	put_only("3", 0, "carol", "SchedCancelled", "slurm.cancelled", "", "node-17", 60);
	put_only("4", 0, "dave", "SchedTimeLimit", NULL, "", "node-17", 60);
	put_only("5", 0, "erin", "SchedPreempted", NULL, "", "node-17", 60);
	put_only("6", 0, "frank", "Pass", NULL, "", "node-17", 60);
	ck_assert_int_eq(repeat_examine(&conf, st, "node-17", now, sum, sizeof(sum)), 0);
	ck_assert_int_eq(findings_count(), 0);
}
END_TEST

START_TEST(named_nodes_only)
{
	char sum[1024];

	/* three jobs that ran on node-17 but whose diagnoses name other nodes */
	put_only("1", 0, "alice", "InfraHW", "xid.79", "node-18", "node-18", 3600);
	put_only("2", 0, "bob", "InfraHW", "xid.79", "node-19", "node-19", 1800);
	put_only("3", 0, "carol", "unattributed", NULL, "", "", 60);
	ck_assert_int_eq(repeat_examine(&conf, st, "node-17", now, sum, sizeof(sum)), 0);
}
END_TEST

/* A bad node fails three users' jobs; the other nodes of those jobs are
 * affected by it, and no repeat offenders: only the culprit is. */
START_TEST(affected_by_another_culprit)
{
	char sum[1024];

	put_only("1", 0, "alice", "InfraHW", "xid.79", "node-17", "node-17,node-18", 3600);
	put_only("2", 0, "bob", "InfraHW", "xid.79", "node-17", "node-17,node-18", 1800);
	put_only("3", 0, "carol", "InfraNet", "nccl.remote_error", "node-17", "node-17,node-18", 60);
	ck_assert_int_eq(repeat_examine(&conf, st, "node-18", now, sum, sizeof(sum)), 0);
	ck_assert_int_gt(repeat_examine(&conf, st, "node-17", now, sum, sizeof(sum)), 0);
	ck_assert_int_eq(findings_count(), 1);
	/* three jobs failed by the leaf switch above node-19: no node blamed */
	for (int i = 0; i < 3; i++) {
		char job[8];
		const char *user[] = { "alice", "bob", "carol" };

		snprintf(job, sizeof(job), "%d", 11 + i);
		struct json_object *r;

		put_switch = "leaf-2";
		r = put(job, 0, user[i], "InfraNet", "net.link_down", "", "node-19,node-20", 600 - i);
		put_switch = NULL;

		json_object_put(r);
	}
	ck_assert_int_eq(repeat_examine(&conf, st, "node-19", now, sum, sizeof(sum)), 0);
}
END_TEST

START_TEST(attempts_of_one_job_once)
{
	char sum[1024], jobs[512] = "";

	put_only("7", 0, "alice", "InfraHW", "xid.79", "node-17", "node-17", 7200);
	put_only("7", 1, "alice", "InfraHW", "xid.79", "node-17", "node-17", 3600);
	put_only("7", 2, "alice", "InfraHW", "xid.79", "node-17", "node-17", 1800);
	put_only("8", 0, "bob", "InfraHW", "xid.79", "node-17", "node-17", 60);
	ck_assert_int_eq(repeat_examine(&conf, st, "node-17", now, sum, sizeof(sum)), 0);
	put_only("9", 0, "bob", "InfraSW", "host.soft_lockup", "node-17", "node-17", 30);
	ck_assert_int_gt(repeat_examine(&conf, st, "node-17", now, sum, sizeof(sum)), 0);
	ck_assert_msg(strstr(sum, "3 failed jobs of 2 users") && strstr(sum, "jobs 7/2, 8, 9"), "%s", sum);
	ck_assert_int_eq(store_each_finding(st, 0, NULL, NULL, copy_jobs, jobs), 1);
	ck_assert_str_eq(jobs,
			 "[{\"job_id\":\"7\",\"attempt\":2},{\"job_id\":\"8\",\"attempt\":0},"
			 "{\"job_id\":\"9\",\"attempt\":0}]");
}
END_TEST

START_TEST(one_finding_while_it_stands)
{
	char sum[1024];
	long long first, later;

	put_only("1", 0, "alice", "InfraHW", "xid.79", "node-17", "node-17", 3600);
	put_only("2", 0, "bob", "InfraHW", "xid.79", "node-17", "node-17", 1800);
	put_only("3", 0, "carol", "InfraHW", "xid.79", "node-17", "node-17", 60);
	first = repeat_examine(&conf, st, "node-17", now, sum, sizeof(sum));
	ck_assert_int_gt(first, 0);
	put_only("4", 0, "dave", "InfraHW", "xid.79", "node-17", "node-17", 30);
	ck_assert_int_eq(repeat_examine(&conf, st, "node-17", now, sum, sizeof(sum)), 0);
	ck_assert_int_eq(repeat_examine(&conf, st, "node-17", now + 23 * 3600, sum, sizeof(sum)), 0);
	ck_assert_int_eq(findings_count(), 1);
	/* once the window is over, the jobs then in it decide again: none */
	later = now + 24 * 3600 + 60;
	ck_assert_int_eq(repeat_examine(&conf, st, "node-17", later, sum, sizeof(sum)), 0);
	/* RepeatJobs = 0: never */
	write_conf("RepeatJobs = 0\n");
	put_only("5", 0, "erin", "InfraHW", "xid.79", "node-20", "node-20", 60);
	put_only("6", 0, "frank", "InfraHW", "xid.79", "node-20", "node-20", 60);
	put_only("8", 0, "gina", "InfraHW", "xid.79", "node-20", "node-20", 60);
	ck_assert_int_eq(repeat_examine(&conf, st, "node-20", now, sum, sizeof(sum)), 0);
	ck_assert_int_eq(findings_count(), 1);
}
END_TEST

/* ---- the drain policy for class repeat-offender -------------------------- */

static int state_up(const char *node, struct drain_node_state *s, char *err, size_t errlen, void *arg)
{
	(void)node, (void)err, (void)errlen;
	++*(int *)arg;
	memset(s, 0, sizeof(*s));
	snprintf(s->state, sizeof(s->state), "idle");
	s->npart = 1;
	snprintf(s->part[0].name, sizeof(s->part[0].name), "gpu");
	s->part[0].nodes = 100;
	return 0;
}

static void decide(const char *conf_text, long recent, enum drain_decision want, const char *why)
{
	struct drain_decisions d;
	int asked = 0;

	write_conf(conf_text);
	drain_policy_decide_node(&conf, FINDING_REPEAT_OFFENDER, "node-17",
				 "attrib: repeat offender: x (finding 1)", recent, state_up, &asked, &d);
	ck_assert_int_eq(d.n, 1);
	ck_assert_str_eq(d.v[0].node, "node-17");
	ck_assert_msg(d.v[0].decision == want, "%s: %s, not %s (%s)", conf_text,
		      drain_decision_name(d.v[0].decision), drain_decision_name(want), d.v[0].why);
	if (why)
		ck_assert_msg(strstr(d.v[0].why, why) != NULL, "%s: %s", conf_text, d.v[0].why);
	ck_assert_str_eq(d.reason, "attrib: repeat offender: x (finding 1)");
	ck_assert_str_eq(d.class_name, FINDING_REPEAT_OFFENDER);
}

START_TEST(policy_branches)
{
	/* DrainClasses not set: repeat-offender is suggest, whatever DrainPolicy */
	decide("", 0, DECIDE_SUGGEST, NULL);
	decide("DrainPolicy = auto\n", 0, DECIDE_SUGGEST, NULL);
	decide("DrainClasses = repeat-offender:auto\n", 0, DECIDE_DRAIN, NULL);
	decide("DrainClasses = repeat-offender:suggest\n", 0, DECIDE_SUGGEST, NULL);
	decide("DrainClasses = gpu-hardware, repeat-offender:off\nDrainPolicy = auto\n", 0, DECIDE_REFUSE,
	       "the drain policy of class repeat-offender is off");
	decide("DrainClasses = repeat-offender\nDrainPolicy = auto\n", 0, DECIDE_DRAIN, NULL);
	decide("DrainClasses = repeat-offender\n", 0, DECIDE_REFUSE, "is off"); /* DrainPolicy off */
	/* set without it: not drained */
	decide("DrainClasses = gpu-hardware:auto\n", 0, DECIDE_REFUSE,
	       "class repeat-offender is not in DrainClasses");
	/* the same limits as every drain */
	decide("DrainClasses = repeat-offender:auto\nDrainMaxPerHour = 2\n", 2, DECIDE_REFUSE,
	       "DrainMaxPerHour (2) reached");
}
END_TEST

START_TEST(reason_names_the_finding)
{
	char r[DRAIN_REASON_MAX + 1];
	char *longer = malloc(400);

	drain_reason_finding("3 jobs of 3 users in 6 h", 12, r, sizeof(r));
	ck_assert_str_eq(r, "attrib: repeat offender: 3 jobs of 3 users in 6 h (finding 12)");
	memset(longer, 'x', 399);
	longer[0] = ';';
	longer[399] = 0;
	drain_reason_finding(longer, 123456, r, sizeof(r));
	ck_assert_msg(strlen(r) <= DRAIN_REASON_MAX && strstr(r, "(finding 123456)") && !strchr(r, ';'), "%s",
		      r);
	free(longer);
}
END_TEST

/* ---- the service's path after a diagnosis, and the command line ----------- */

static int drain_line(const struct drain_row *d, void *arg)
{
	snprintf(arg, 512, "%s/%ld %s %s %s|%s", d->job_id, d->attempt, d->node, d->decision, d->by,
		 d->reason);
	return 0;
}

static char *slurp(const char *path)
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
	return buf;
}

static int run(const char *args, char **out)
{
	const char *a = getenv("ATTRIB") ? getenv("ATTRIB") : "./attrib";
	char cmd[2048], o[700];
	int status;

	snprintf(o, sizeof(o), "%s/out", dir);
	snprintf(cmd, sizeof(cmd), "SLURM_CONF='%s/none.conf' '%s' %s --config '%s' >'%s' 2>/dev/null", dir,
		 a, args, conf_path, o);
	status = system(cmd);
	*out = slurp(o);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int finding_id(const struct finding_row *f, void *arg)
{
	*(long long *)arg = f->id;
	return 1;
}

START_TEST(after_a_diagnosis)
{
	char line[512] = "", *out;
	unsigned long before = atomic_load(&svc_metrics.findings_repeat);
	struct json_object *r;
	long long id = 0;

	put_only("201", 0, "alice", "UserCode", "py.segfault", "", "node-02", 600);
	put_only("202", 0, "bob", "InfraHW", "cuda.unknown_error", "node-02", "node-02", 300);
	r = put("203", 0, "carol", "ambiguous", NULL, "", "node-01,node-02", 60);
	repeat_after(&conf, st, r, "203", 0, now);
	json_object_put(r);
	ck_assert_uint_eq(atomic_load(&svc_metrics.findings_repeat), before + 1);
	ck_assert_int_eq(findings_count(), 1); /* node-02 only */
	ck_assert_int_eq(store_each_finding(st, 0, FINDING_REPEAT_OFFENDER, "node-02", finding_id, &id), 1);
	/* its drain decision (suggest by default; no slurm.conf here, so
	 * refused for the node's unknown state) names the finding */
	ck_assert_int_eq(store_finding_drains(st, id, drain_line, line), 0);
	char want[128];
	snprintf(want, sizeof(want), "203/0 node-02 refused attribd (policy suggest, finding %lld)|", id);
	ck_assert_msg(strncmp(line, want, strlen(want)) == 0, "%s", line);
	ck_assert_msg(strstr(line, "Slurm cannot tell the node's state"), "%s", line);
	char *metrics = metrics_render();
	ck_assert_msg(strstr(metrics, "attrib_findings_total{kind=\"repeat-offender\"} "), "%s", metrics);
	free(metrics);

	/* attrib nodes: node-02 marked, the finding below the table, 80 columns */
	ck_assert_int_eq(run("nodes", &out), 0);
	ck_assert_msg(strstr(out, "\nnode-02* ") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "\nnode-01 ") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "* standing findings") &&
			      strstr(out, "repeat-offender: node-02: 3 failed jobs of 3"),
		      "%s", out);
	ck_assert_msg(strstr(out, "drain: node-02 refused attribd (policy suggest, finding"), "%s", out);
	for (char *l = out, *nl; *l; l = nl + 1) {
		nl = strchr(l, '\n');
		ck_assert_ptr_nonnull(nl);
		ck_assert_msg(nl - l <= 80, "%d columns: %.*s", (int)(nl - l), (int)(nl - l), l);
	}
	free(out);
	ck_assert_int_eq(run("nodes --json", &out), 0);
	struct json_object *a = json_tokener_parse(out), *f;
	ck_assert_ptr_nonnull(a);
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		struct json_object *n = json_object_array_get_idx(a, i);
		size_t nf = json_object_array_length(json_object_object_get(n, "findings"));

		ck_assert_int_eq(nf,
				 !strcmp(json_object_get_string(json_object_object_get(n, "node")),
					 "node-02"));
	}
	json_object_put(a);
	free(out);
	/* attrib show of a cited job: the finding and its drain; of another: none */
	ck_assert_int_eq(run("show 201", &out), 0);
	ck_assert_msg(strstr(out, "Fleet findings citing this job:") &&
			      strstr(out, "repeat-offender: node-02: 3 failed jobs"),
		      "%s", out);
	free(out);
	ck_assert_int_eq(run("show 201 --json", &out), 0);
	a = json_tokener_parse(out);
	ck_assert_ptr_nonnull(a);
	f = json_object_array_get_idx(json_object_object_get(a, "findings"), 0);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(f, "subject")), "node-02");
	ck_assert_str_eq(json_object_get_string(json_object_object_get(f, "kind")), "repeat-offender");
	ck_assert_int_eq(json_object_array_length(json_object_object_get(f, "jobs")), 3);
	ck_assert_int_eq(json_object_array_length(json_object_object_get(f, "drains")), 1);
	json_object_put(a);
	free(out);
	put_only("204", 0, "dave", "UserCode", "py.key_error", "", "node-03", 60);
	ck_assert_int_eq(run("show 204 --json", &out), 0);
	ck_assert_msg(strstr(out, "\"findings\"") == NULL, "%s", out);
	free(out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("repeat");
	TCase *t = tcase_create("offenders");

	int rc;

	shipped = attrib_catalog_load(SRCDIR "/rules", test_options(), stderr);
	if (!shipped)
		return 1;
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_set_timeout(t, 60);
	tcase_add_test(t, default_causes_from_the_rules);
	tcase_add_test(t, two_jobs_below);
	tcase_add_test(t, three_jobs_one_user);
	tcase_add_test(t, three_jobs_two_users);
	tcase_add_test(t, own_word_counts_nothing);
	tcase_add_test(t, outside_the_window);
	tcase_add_test(t, scheduler_outcomes_never_count);
	tcase_add_test(t, named_nodes_only);
	tcase_add_test(t, affected_by_another_culprit);
	tcase_add_test(t, attempts_of_one_job_once);
	tcase_add_test(t, one_finding_while_it_stands);
	tcase_add_test(t, policy_branches);
	tcase_add_test(t, reason_names_the_finding);
	tcase_add_test(t, after_a_diagnosis);
	suite_add_tcase(s, t);
	log_set_level(LOGL_ERROR);
	rc = run_suite(s);
	attrib_catalog_free(shipped);
	return rc;
}
