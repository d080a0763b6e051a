/* Unit tests of the requeue decision (Check), for attribd's policy and
 * attrib requeue: each mode (RequeuePolicy off, suggest, auto; a class's
 * own in RequeueClasses; a class not listed), each reason a diagnosis is
 * not confident (not infra, ambiguous, unattributed, unauthenticated, no
 * culprit), each thing Slurm may say of the job (gone after MinJobAge,
 * unreachable, not batch, not requeueable, pending again, not failed,
 * another attempt), RequeueMax (reached, 0, above the restart count) and
 * culprits already excluded (all, some), then the requeues table and the
 * /metrics counter.  The job's state comes from a table here instead of
 * slurmctld; t/live-requeue.sh requeues on the real cluster. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "conf.h"
#include "log.h"
#include "metrics.h"
#include "requeue.h"
#include "requeue_policy.h"
#include "slurmapi.h"
#include "store.h"
#include "testutil.h"

static char *dir;

static void setup(void)
{
	dir = tmpdir();
}

static void teardown(void)
{
	rmtree(dir); /* frees it */
}

static void load_conf(struct attrib_config *c, const char *text)
{
	char *path = path_join(dir, "attrib.conf");
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	ck_assert_int_eq(config_load(path, c, stderr), 0);
	free(path);
}

/* ---- what "Slurm" says of the job ---- */

struct fake_job {
	struct requeue_job_state st;
	const char *exc[4]; /* its ExcNodeList, as names */
	bool down;	    /* slurmctld does not answer */
	int asked;
};

static int fake_state(const char *job_id, const char *const *nodes, int n, struct requeue_job_state *st,
		      char *err, size_t errlen, void *arg)
{
	struct fake_job *j = arg;

	(void)job_id;
	j->asked++;
	if (j->down) {
		snprintf(err, errlen, "Unable to contact slurm controller (connect failure)");
		return -1;
	}
	*st = j->st;
	st->excluded = 0;
	for (int i = 0; i < n; i++)
		for (int k = 0; k < 4 && j->exc[k]; k++)
			st->excluded += !strcmp(nodes[i], j->exc[k]);
	return 0;
}

/* a requeueable batch job that ended FAILED in its first attempt */
static struct fake_job failed_job(void)
{
	struct fake_job j = { .st = { .found = true, .batch = true, .requeueable = true, .failed = true } };

	snprintf(j.st.state, sizeof(j.st.state), "FAILED");
	return j;
}

/* a result as the engine makes it */
static struct json_object *result(const char *sub, const char *dom, const char *cls, const char *culprits,
				  const char *trust)
{
	char buf[2048], klass[64] = "", tr[64] = "";

	if (cls)
		snprintf(klass, sizeof(klass), "\"class\": \"%s\", ", cls);
	if (trust)
		snprintf(tr, sizeof(tr), "\"trust\": \"%s\", ", trust);
	snprintf(buf, sizeof(buf),
		 "{\"job_id\": \"4242\", \"sub_domain\": \"%s\", \"domain\": \"%s\","
		 " \"root_cause\": {%s%s\"symptom\": \"GPU has fallen off the bus (Xid 79)\","
		 " \"code\": \"xid.79\", \"device\": \"PCI:0000:3b:00\"},"
		 " \"culprit_nodes\": [%s]}",
		 sub, dom, klass, tr, culprits);
	struct json_object *r = json_tokener_parse(buf);
	ck_assert_ptr_nonnull(r);
	return r;
}

static struct json_object *hw(void)
{
	return result("InfraHW", "infra", "gpu-hardware", "\"node-02\"", NULL);
}

#define DECIDE(conf, r, attempt, by_policy, job, v) \
	requeue_decide(conf, r, "4242", attempt, by_policy, fake_state, job, v)

/* ---- the policy's modes ---- */

START_TEST(policy_off_decides_nothing)
{
	struct attrib_config c;
	struct fake_job j = failed_job();
	struct requeue_verdict v;
	struct json_object *r = hw();

	load_conf(&c, ""); /* RequeuePolicy's default: off */
	DECIDE(&c, r, 0, true, &j, &v);
	ck_assert_int_eq(v.decision, RQ_NONE);
	ck_assert_int_eq(j.asked, 0);
	config_free(&c);
	/* a class's own off, the policy otherwise auto */
	load_conf(&c, "RequeuePolicy = auto\nRequeueClasses = gpu-hardware:off, nvlink\n");
	DECIDE(&c, r, 0, true, &j, &v);
	ck_assert_int_eq(v.decision, RQ_NONE);
	ck_assert_int_eq(j.asked, 0);
	config_free(&c);
	json_object_put(r);
}
END_TEST

START_TEST(policy_suggest_and_auto)
{
	struct attrib_config c;
	struct fake_job j = failed_job();
	struct requeue_verdict v;
	struct json_object *r = hw();

	load_conf(&c, "RequeuePolicy = suggest\n");
	DECIDE(&c, r, 0, true, &j, &v);
	ck_assert_int_eq(v.decision, RQ_SUGGEST);
	ck_assert_int_eq(v.mode, REQUEUE_MODE_SUGGEST);
	ck_assert_str_eq(v.node_list, "node-02");
	ck_assert_str_eq(v.why, "attrib: GPU has fallen off the bus (Xid 79) PCI:0000:3b:00 (job 4242)");
	ck_assert_str_eq(requeue_decision_name(v.decision), REQUEUE_SUGGESTED);
	config_free(&c);
	load_conf(&c, "RequeuePolicy = auto\n");
	DECIDE(&c, r, 0, true, &j, &v);
	ck_assert_int_eq(v.decision, RQ_REQUEUE);
	ck_assert_str_eq(requeue_decision_name(v.decision), REQUEUE_DONE);
	ck_assert_int_eq(v.n, 1);
	ck_assert_str_eq(v.nodes[0], "node-02");
	config_free(&c);
	/* a class's own mode wins over RequeuePolicy = off */
	load_conf(&c, "RequeueClasses = gpu-hardware:auto\n");
	DECIDE(&c, r, 0, true, &j, &v);
	ck_assert_int_eq(v.decision, RQ_REQUEUE);
	ck_assert_int_eq(v.mode, REQUEUE_MODE_AUTO);
	config_free(&c);
	json_object_put(r);
}
END_TEST

START_TEST(policy_refuses_a_class_not_listed)
{
	struct attrib_config c;
	struct fake_job j = failed_job();
	struct requeue_verdict v;
	struct json_object *r = result("InfraNet", "infra", "nvlink", "\"node-02\"", NULL);

	load_conf(&c, "RequeuePolicy = auto\nRequeueClasses = gpu-hardware\n");
	DECIDE(&c, r, 0, true, &j, &v);
	ck_assert_int_eq(v.decision, RQ_REFUSE);
	ck_assert_str_eq(v.why, "class nvlink is not in RequeueClasses");
	ck_assert_int_eq(j.asked, 0);
	/* attrib requeue has no class policy */
	DECIDE(&c, r, 0, false, &j, &v);
	ck_assert_int_eq(v.decision, RQ_REQUEUE);
	config_free(&c);
	json_object_put(r);
}
END_TEST

START_TEST(bad_class_mode_is_refused)
{
	struct attrib_config c;
	char *path = path_join(dir, "bad.conf");
	FILE *f = fopen(path, "w");

	fputs("RequeueClasses = gpu-hardware:yes\n", f);
	fclose(f);
	ck_assert_int_eq(config_load(path, &c, fopen("/dev/null", "w")), -1);
	config_free(&c);
	free(path);
}
END_TEST

/* ---- not confident ---- */

START_TEST(not_confident_is_refused)
{
	static const struct {
		const char *sub, *dom, *culprits, *trust, *why;
	} cases[] = {
		{ "UserCode", "user", "\"node-02\"", NULL,
		  "the diagnosis is UserCode, not an infrastructure fault" },
		{ "ambiguous", "unknown", "\"node-02\"", NULL,
		  "the diagnosis is ambiguous, not an infrastructure fault" },
		{ "unattributed", "unknown", "", NULL,
		  "the diagnosis is unattributed, not an infrastructure fault" },
		{ "InfraHW", "infra", "\"node-02\"", "unauthenticated",
		  "the root cause (xid.79) comes from a file anyone may write (trust: unauthenticated)" },
		{ "InfraHW", "infra", "", NULL, "the diagnosis (InfraHW) names no culprit node" },
	};
	struct attrib_config c;

	load_conf(&c, "RequeuePolicy = auto\n");
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct fake_job j = failed_job();
		struct requeue_verdict v;
		struct json_object *r = result(cases[i].sub, cases[i].dom, "gpu-hardware", cases[i].culprits,
					       cases[i].trust);

		/* attrib requeue: refused, with why, Slurm not asked */
		DECIDE(&c, r, 0, false, &j, &v);
		ck_assert_int_eq(v.decision, RQ_REFUSE);
		ck_assert_str_eq(v.why, cases[i].why);
		ck_assert_int_eq(j.asked, 0);
		/* the policy: the same refusal for an infra diagnosis, nothing
		 * at all for the others (no record for every user error) */
		DECIDE(&c, r, 0, true, &j, &v);
		ck_assert_int_eq(v.decision, strcmp(cases[i].dom, "infra") ? RQ_NONE : RQ_REFUSE);
		ck_assert_int_eq(j.asked, 0);
		json_object_put(r);
	}
	/* a stored result that is not JSON */
	struct fake_job j = failed_job();
	struct requeue_verdict v;
	DECIDE(&c, NULL, 0, false, &j, &v);
	ck_assert_int_eq(v.decision, RQ_REFUSE);
	config_free(&c);
}
END_TEST

/* A user's own output naming a node's fault (a printed "CUDA error:
 * unknown error", a forged Xid line in app/): the diagnosis explains the
 * job (InfraHW, culprit node-02, inspect), but no requeue moves the job
 * away from a node on its user's word, by hand or by policy; Slurm is not
 * asked.  The same diagnosis vouched for is requeued. */
START_TEST(own_output_never_requeues)
{
	struct attrib_config c;
	struct requeue_verdict v;
	struct fake_job j = failed_job();
	struct json_object *r = result("InfraHW", "infra", "gpu-hardware", "\"node-02\"", "job-output");

	load_conf(&c, "RequeuePolicy = auto\n");
	for (int by_policy = 0; by_policy < 2; by_policy++) {
		DECIDE(&c, r, 0, by_policy, &j, &v);
		ck_assert_int_eq(v.decision, RQ_REFUSE);
		ck_assert_str_eq(v.why,
				 "the root cause (xid.79) comes from the job's own output, which its user "
				 "writes (trust: job-output)");
		ck_assert_int_eq(j.asked, 0);
	}
	json_object_put(r);
	r = hw();
	DECIDE(&c, r, 0, true, &j, &v);
	ck_assert_int_eq(v.decision, RQ_REQUEUE);
	ck_assert_int_eq(j.asked, 1);
	json_object_put(r);
	config_free(&c);
}
END_TEST

/* ---- what Slurm says of the job ---- */

static void refused(const struct attrib_config *c, struct fake_job *j, long attempt, const char *why)
{
	struct requeue_verdict v;
	struct json_object *r = hw();

	for (int by_policy = 0; by_policy < 2; by_policy++) {
		DECIDE(c, r, attempt, by_policy, j, &v);
		ck_assert_int_eq(v.decision, RQ_REFUSE);
		ck_assert_msg(strstr(v.why, why), "'%s' lacks '%s'", v.why, why);
	}
	json_object_put(r);
}

START_TEST(slurm_refusals)
{
	struct attrib_config c;
	struct fake_job j;

	load_conf(&c, "RequeuePolicy = auto\n");
	j = failed_job();
	j.st.found = false;
	refused(&c, &j, 0, "slurmctld no longer knows job 4242 (it forgets a finished job MinJobAge");
	j = failed_job();
	j.down = true;
	refused(&c, &j, 0, "Slurm cannot tell the job's state: Unable to contact slurm controller");
	j = failed_job();
	j.st.batch = false;
	refused(&c, &j, 0, "job 4242 is not a batch job");
	j = failed_job();
	j.st.requeueable = false;
	refused(&c, &j, 0, "job 4242 was not submitted requeueable (sbatch --requeue");
	j = failed_job();
	j.st.pending = true;
	j.st.failed = false;
	snprintf(j.st.state, sizeof(j.st.state), "PENDING");
	refused(&c, &j, 0, "job 4242 is pending again (PENDING): requeued already");
	j = failed_job();
	j.st.failed = false;
	snprintf(j.st.state, sizeof(j.st.state), "CANCELLED");
	refused(&c, &j, 0, "job 4242 is CANCELLED: only a job that ended FAILED, NODE_FAIL or TIMEOUT");
	j = failed_job();
	j.st.restart_cnt = 1;
	refused(&c, &j, 0, "the diagnosis is of attempt 0, and the job is at attempt 1 in Slurm");
	config_free(&c);
}
END_TEST

START_TEST(requeue_max)
{
	struct attrib_config c;
	struct fake_job j = failed_job();
	struct requeue_verdict v;
	struct json_object *r = hw();

	load_conf(&c, "RequeuePolicy = auto\n"); /* RequeueMax 1 */
	ck_assert_int_eq(c.requeue_max, 1);
	j.st.restart_cnt = 1;
	refused(&c, &j, 1, "RequeueMax (1) reached: job 4242 was requeued 1 time");
	config_free(&c);
	load_conf(&c, "RequeuePolicy = auto\nRequeueMax = 2\n");
	DECIDE(&c, r, 1, true, &j, &v);
	ck_assert_int_eq(v.decision, RQ_REQUEUE);
	j.st.restart_cnt = 2;
	refused(&c, &j, 2, "RequeueMax (2) reached: job 4242 was requeued 2 times");
	config_free(&c);
	load_conf(&c, "RequeuePolicy = auto\nRequeueMax = 0\n");
	j = failed_job();
	refused(&c, &j, 0, "RequeueMax is 0: no job is requeued");
	ck_assert_int_eq(j.asked, 0);
	config_free(&c);
	json_object_put(r);
}
END_TEST

START_TEST(culprits_already_excluded)
{
	struct attrib_config c;
	struct fake_job j = failed_job();
	struct requeue_verdict v;
	struct json_object *two = result("InfraHW", "infra", "gpu-hardware", "\"node-02\", \"node-03\"",
					 NULL);

	load_conf(&c, "RequeuePolicy = auto\n");
	j.exc[0] = "node-02";
	snprintf(j.st.exc_nodes, sizeof(j.st.exc_nodes), "node-02");
	refused(&c, &j, 0, "job 4242 excludes node-02 already (ExcNodeList=node-02)");
	/* one of two excluded: requeued, the list keeps what it had */
	DECIDE(&c, two, 0, false, &j, &v);
	ck_assert_int_eq(v.decision, RQ_REQUEUE);
	ck_assert_str_eq(v.node_list, "node-02,node-03");
	ck_assert_str_eq(v.exc_nodes, "node-02");
	j.exc[1] = "node-03";
	DECIDE(&c, two, 0, false, &j, &v);
	ck_assert_int_eq(v.decision, RQ_REFUSE);
	config_free(&c);
	json_object_put(two);
}
END_TEST

/* ---- the store and the metrics ---- */

static int collect(const struct requeue_row *r, void *arg)
{
	char *buf = arg;
	size_t len = strlen(buf);

	snprintf(buf + len, 1024 - len, "%s/%ld/%s/%s/%s/%s/%s/%lld;", r->job_id, r->attempt, r->nodes,
		 r->excluded, r->decision, r->by, r->reason, r->created);
	return 0;
}

START_TEST(store_keeps_decisions)
{
	char *path = path_join(dir, "attrib.db"), err[256], got[1024] = "";
	store *s = store_open(path, false, err, sizeof(err));

	ck_assert_msg(s != NULL, "%s", err);
	struct requeue_row a = { "77",
				 0,
				 "node-02",
				 "",
				 "job 77 was not submitted requeueable",
				 REQUEUE_REFUSED,
				 "attribd (policy auto)",
				 100 };
	struct requeue_row b = {
		"77", 0, "node-02", "node-02", "attrib: GPU", REQUEUE_DONE, "attrib requeue (uid 0)", 200
	};
	struct requeue_row other = { "78", 1, "node-01", "", "x", REQUEUE_SUGGESTED, "y", 150 };
	ck_assert_int_eq(store_add_requeue(s, &b), 0);
	ck_assert_int_eq(store_add_requeue(s, &a), 0);
	ck_assert_int_eq(store_add_requeue(s, &other), 0);
	ck_assert_int_eq(store_each_requeue(s, "77", collect, got), 0);
	ck_assert_str_eq(
		got,
		"77/0/node-02//refused/attribd (policy auto)/job 77 was not submitted requeueable/100;"
		"77/0/node-02/node-02/requeued/attrib requeue (uid 0)/attrib: GPU/200;");
	store_close(s);
	free(path);
}
END_TEST

START_TEST(metrics_count_decisions)
{
	metrics_note_requeue(REQUEUE_DONE);
	metrics_note_requeue(REQUEUE_REFUSED);
	metrics_note_requeue(REQUEUE_REFUSED);
	metrics_note_requeue("something else");
	char *m = metrics_render();
	ck_assert_ptr_nonnull(strstr(m, "attrib_requeues_total{decision=\"requeued\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(m, "attrib_requeues_total{decision=\"refused\"} 2\n"));
	ck_assert_ptr_nonnull(strstr(m, "attrib_requeues_total{decision=\"suggested\"} 0\n"));
	ck_assert_ptr_nonnull(strstr(m, "attrib_requeues_total{decision=\"failed\"} 0\n"));
	ck_assert_ptr_nonnull(strstr(m, "attrib_requeues_total{decision=\"other\"} 1\n"));
	free(m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("requeue");
	TCase *t = tcase_create("decision");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, policy_off_decides_nothing);
	tcase_add_test(t, policy_suggest_and_auto);
	tcase_add_test(t, policy_refuses_a_class_not_listed);
	tcase_add_test(t, bad_class_mode_is_refused);
	tcase_add_test(t, not_confident_is_refused);
	tcase_add_test(t, own_output_never_requeues);
	tcase_add_test(t, slurm_refusals);
	tcase_add_test(t, requeue_max);
	tcase_add_test(t, culprits_already_excluded);
	tcase_add_test(t, store_keeps_decisions);
	tcase_add_test(t, metrics_count_decisions);
	suite_add_tcase(s, t);
	log_set_level(LOGL_ERROR);
	return run_suite(s);
}
