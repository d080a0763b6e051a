/* Unit tests of undrain (Check): each of undrain_decide's checks on a
 * real store in a temporary directory (store/nodedrains.c and
 * store/health.c answer) with Slurm's view of the node given here, the
 * store's own questions (the latest drain event, drains in a window, the
 * newest HEALTH_KEEP checks kept), the MUNGE payload of a health report,
 * and the main loop's intake of health reports.  t/live-undrain.sh runs it
 * on the real cluster. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "conf.h"
#include "contract.h"
#include "drain_policy.h"
#include "health.h"
#include "health_intake.h"
#include "log.h"
#include "nodedrains.h"
#include "store.h"
#include "testutil.h"
#include "undrain_apply.h"
#include "undrain_policy.h"

static char *dir;
static store *s;
static struct attrib_config conf;
#define NOW 1800000000LL
#define REASON "attrib: GPU has fallen off the bus (Xid 79) PCI:0000:3b:00 (job 42)"

static void load_conf(const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/attrib.conf", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	config_free(&conf);
	ck_assert_int_eq(config_load(path, &conf, stderr), 0);
}

static void setup(void)
{
	char path[512], err[256];

	dir = tmpdir();
	snprintf(path, sizeof(path), "%s/attrib.db", dir);
	s = store_open(path, false, err, sizeof(err));
	ck_assert_msg(s != NULL, "%s", err);
	memset(&conf, 0, sizeof(conf));
	load_conf("UndrainQuiet = 1h\nUndrainWindow = 7d\n");
}

static void teardown(void)
{
	store_close(s);
	config_free(&conf);
	rmtree(dir);
}

static void health(const char *node, long long when, int status, bool timed_out)
{
	struct health_row h = { .node = node,
				.received = when,
				.checked = when,
				.command = "/usr/bin/true",
				.status = status,
				.timed_out = timed_out,
				.passed = status == 0 && !timed_out,
				.output = "ok" };

	ck_assert_int_eq(store_add_health(s, &h), 0);
}

/* The store's facts of node, and Slurm's view: drained with reason set at
 * reason_time (drained false: idle). */
static void facts(struct undrain_facts *f, const char *node, bool drained, const char *reason,
		  long long reason_time)
{
	ck_assert_int_eq(undrain_facts_load(s, node, conf.undrain_window, f, NOW), 0);
	f->slurm_ok = true;
	f->slurm_err[0] = 0;
	f->slurm.drained = drained;
	snprintf(f->slurm.state, sizeof(f->slurm.state), "%s", drained ? "DRAINED" : "IDLE");
	snprintf(f->slurm.reason, sizeof(f->slurm.reason), "%s", reason);
	f->slurm.reason_time = reason_time;
}

static enum undrain_decision decide(enum drain_mode mode, bool force, struct undrain_facts *f, char *why,
				    bool *ours)
{
	return undrain_decide(&conf, mode, force, f, NOW, why, 512, ours);
}

/* attrib drained node-02 two hours ago, and it passed a check since */
static void attrib_drained(const char *node, long long when)
{
	ck_assert_int_eq(store_add_drain(s, "42", 0, node, REASON, DRAIN_DONE, "attribd (policy auto)", when),
			 0);
}

START_TEST(returns_a_node_attrib_drained)
{
	struct undrain_facts f;
	char why[512];
	bool ours;

	attrib_drained("node-02", NOW - 7200);
	health("node-02", NOW - 60, 0, false);
	facts(&f, "node-02", true, REASON, NOW - 7200);
	ck_assert_int_eq(f.have_event, 1);
	ck_assert_str_eq(f.last.job_id, "42");
	ck_assert_int_eq(f.drains_in_window, 1);
	ck_assert_int_eq(f.have_health, 1);
	ck_assert(f.health_passed);
	ck_assert_int_eq(decide(DRAIN_MODE_AUTO, false, &f, why, &ours), UNDECIDE_DO);
	ck_assert(ours);
	ck_assert_str_eq(why, "drained by attrib (job 42), health check passed");
	ck_assert_int_eq(decide(DRAIN_MODE_SUGGEST, false, &f, why, &ours), UNDECIDE_SUGGEST);
	ck_assert_str_eq(undrain_decision_name(UNDECIDE_DO, false), UNDRAIN_DONE);
	ck_assert_str_eq(undrain_decision_name(UNDECIDE_DO, true), UNDRAIN_DONE_FORCED);
	ck_assert_str_eq(undrain_decision_name(UNDECIDE_SUGGEST, false), UNDRAIN_SUGGESTED);
}
END_TEST

START_TEST(never_a_node_attrib_did_not_drain)
{
	struct undrain_facts f;
	char why[512];
	bool ours;

	/* Slurm cannot tell */
	facts(&f, "node-01", true, REASON, NOW);
	f.slurm_ok = false;
	snprintf(f.slurm_err, sizeof(f.slurm_err), "no slurm.conf");
	ck_assert_int_eq(decide(DRAIN_MODE_AUTO, true, &f, why, &ours), UNDECIDE_REFUSE);
	ck_assert_str_eq(why, "Slurm cannot tell the node's state: no slurm.conf");
	ck_assert(!ours);
	/* not drained */
	facts(&f, "node-01", false, "", 0);
	ck_assert_int_eq(decide(DRAIN_MODE_AUTO, true, &f, why, &ours), UNDECIDE_REFUSE);
	ck_assert_str_eq(why, "the node is IDLE, not drained");
	/* drained with another reason */
	facts(&f, "node-01", true, "bad DIMM -- ops", NOW - 9000);
	ck_assert_int_eq(decide(DRAIN_MODE_AUTO, true, &f, why, &ours), UNDECIDE_REFUSE);
	ck_assert_msg(strstr(why, "not drained by attrib: its reason (bad DIMM -- ops)"), "%s", why);
	/* an administrator's drain with attrib's prefix, nothing in the store,
	 * a passing check: refused, --force or not */
	health("node-01", NOW - 60, 0, false);
	facts(&f, "node-01", true, "attrib: something", NOW - 9000);
	ck_assert_int_eq(f.have_event, 0);
	ck_assert_int_eq(decide(DRAIN_MODE_AUTO, true, &f, why, &ours), UNDECIDE_REFUSE);
	ck_assert(!ours);
	ck_assert_msg(strstr(why, "attrib never drained it"), "%s", why);
	/* attrib drained and returned it; an administrator drained it again */
	attrib_drained("node-01", NOW - 20000);
	ck_assert_int_eq(store_add_drain(s, "42", 0, "node-01", "ok", UNDRAIN_DONE, "attribd (undrain auto)",
					 NOW - 15000),
			 0);
	facts(&f, "node-01", true, "attrib: something", NOW - 9000);
	ck_assert_int_eq(decide(DRAIN_MODE_AUTO, true, &f, why, &ours), UNDECIDE_REFUSE);
	ck_assert_msg(strstr(why, "attrib returned it to service since its last drain"), "%s", why);
	/* attrib's drain is the latest, but Slurm's reason is another */
	attrib_drained("node-01", NOW - 8000);
	facts(&f, "node-01", true, "attrib: something", NOW - 7000);
	ck_assert_int_eq(decide(DRAIN_MODE_AUTO, true, &f, why, &ours), UNDECIDE_REFUSE);
	ck_assert(!ours);
	ck_assert_msg(strstr(why, "not attrib's drain any more"), "%s", why);
	/* the same reason set again by someone well after attrib's drain */
	facts(&f, "node-01", true, REASON, NOW - 7000);
	ck_assert_int_eq(decide(DRAIN_MODE_AUTO, true, &f, why, &ours), UNDECIDE_REFUSE);
	ck_assert_msg(strstr(why, "not attrib's drain any more"), "%s", why);
	/* ... and within the slack of attrib's own drain: attrib's */
	facts(&f, "node-01", true, REASON, NOW - 7990);
	ck_assert_int_eq(decide(DRAIN_MODE_AUTO, true, &f, why, &ours), UNDECIDE_DO);
	ck_assert(ours);
}
END_TEST

START_TEST(waits_for_quiet_and_a_passing_check)
{
	struct undrain_facts f;
	char why[512];
	bool ours;

	attrib_drained("node-02", NOW - 600);
	facts(&f, "node-02", true, REASON, NOW - 600);
	ck_assert_int_eq(decide(DRAIN_MODE_AUTO, false, &f, why, &ours), UNDECIDE_REFUSE);
	ck_assert(ours);
	ck_assert_str_eq(why, "UndrainQuiet (1h) not passed since attrib's drain: 50m to go");
	/* --force overrides the quiet time, not the check */
	ck_assert_int_eq(decide(DRAIN_MODE_AUTO, true, &f, why, &ours), UNDECIDE_REFUSE);
	ck_assert_str_eq(why, "no health check of the node since attrib's drain (attrib-collect --health)");
	/* a check from before the drain does not count */
	health("node-02", NOW - 700, 0, false);
	facts(&f, "node-02", true, REASON, NOW - 600);
	ck_assert_int_eq(f.have_health, 0);
	/* a failing one after it, then the latest fails: refused */
	health("node-02", NOW - 300, 0, false);
	health("node-02", NOW - 100, 1, false);
	facts(&f, "node-02", true, REASON, NOW - 600);
	ck_assert_int_eq(decide(DRAIN_MODE_AUTO, true, &f, why, &ours), UNDECIDE_REFUSE);
	ck_assert_str_eq(why, "the node's latest health check since attrib's drain failed");
	health("node-02", NOW - 50, 0, true); /* timed out */
	facts(&f, "node-02", true, REASON, NOW - 600);
	ck_assert_int_eq(decide(DRAIN_MODE_AUTO, true, &f, why, &ours), UNDECIDE_REFUSE);
	health("node-02", NOW - 10, 0, false);
	facts(&f, "node-02", true, REASON, NOW - 600);
	ck_assert_int_eq(decide(DRAIN_MODE_AUTO, true, &f, why, &ours), UNDECIDE_DO);
	ck_assert_str_eq(why, "drained by attrib (job 42), health check passed, forced by hand");
	ck_assert_int_eq(decide(DRAIN_MODE_AUTO, false, &f, why, &ours), UNDECIDE_REFUSE);
	/* UndrainQuiet = 0 */
	load_conf("UndrainQuiet = 0\n");
	ck_assert_int_eq(decide(DRAIN_MODE_AUTO, false, &f, why, &ours), UNDECIDE_DO);
}
END_TEST

START_TEST(twice_within_the_window_needs_a_person)
{
	struct undrain_facts f;
	char why[512];
	bool ours;

	attrib_drained("node-03", NOW - 6 * 86400); /* within 7d */
	ck_assert_int_eq(store_add_drain(s, "42", 0, "node-03", "ok", UNDRAIN_DONE, "attribd (undrain auto)",
					 NOW - 5 * 86400),
			 0);
	ck_assert_int_eq(store_add_drain(s, "43", 0, "node-03", REASON, DRAIN_DONE_FORCED,
					 "attrib drain (uid 0)", NOW - 7200),
			 0);
	health("node-03", NOW - 60, 0, false);
	facts(&f, "node-03", true, REASON, NOW - 7200);
	ck_assert_int_eq(f.drains_in_window, 2);
	ck_assert_str_eq(f.last.job_id, "43");
	ck_assert_int_eq(decide(DRAIN_MODE_AUTO, false, &f, why, &ours), UNDECIDE_REFUSE);
	ck_assert_str_eq(why,
			 "drained by attrib 2 times within UndrainWindow (7d): it needs a person "
			 "(attrib undrain --force)");
	ck_assert_int_eq(decide(DRAIN_MODE_SUGGEST, false, &f, why, &ours), UNDECIDE_REFUSE);
	ck_assert_int_eq(decide(DRAIN_MODE_AUTO, true, &f, why, &ours), UNDECIDE_DO);
	/* a shorter window: the first drain is out of it */
	load_conf("UndrainWindow = 2d\n");
	facts(&f, "node-03", true, REASON, NOW - 7200);
	ck_assert_int_eq(f.drains_in_window, 1);
	ck_assert_int_eq(decide(DRAIN_MODE_AUTO, false, &f, why, &ours), UNDECIDE_DO);
	/* refused, suggested, failed decisions and dry runs are no drains */
	ck_assert_int_eq(store_add_drain(s, "44", 0, "node-03", REASON, DRAIN_REFUSED, "x", NOW - 100), 0);
	ck_assert_int_eq(store_add_drain(s, "44", 0, "node-03", REASON, DRAIN_SUGGESTED, "x", NOW - 90), 0);
	ck_assert_int_eq(store_count_node_drains(s, "node-03", NOW - 86400), 1);
	struct node_drain_event e;
	ck_assert_int_eq(store_last_drain_event(s, "node-03", &e), 1);
	ck_assert_str_eq(e.job_id, "43");
	ck_assert_int_eq(store_last_drain_event(s, "node-09", &e), 0);
}
END_TEST

static int count_row(const struct health_row *h, void *arg)
{
	(*(int *)arg)++;
	ck_assert_str_eq(h->node, "node-04");
	return 0;
}

static int count_row_any(const struct health_row *h, void *arg)
{
	(void)h;
	(*(int *)arg)++;
	return 0;
}

static int first_row(const struct health_row *h, void *arg)
{
	char *buf = arg;

	snprintf(buf, 256, "%lld %lld %s %d %d %d %ld %s", h->received, h->checked, h->command, h->status,
		 h->timed_out, h->passed, h->duration_ms, h->output);
	return 1;
}

START_TEST(store_keeps_the_newest_checks)
{
	int n = 0;
	bool passed;
	long long when;

	for (int i = 0; i < HEALTH_KEEP + 5; i++)
		health("node-04", NOW - 1000 + i, i % 2, false);
	health("node-05", NOW, 0, false);
	ck_assert_int_eq(store_each_health(s, "node-04", 0, count_row, &n), 0);
	ck_assert_int_eq(n, HEALTH_KEEP);
	ck_assert_int_eq(store_last_health(s, "node-04", 0, &passed, &when), 1);
	ck_assert_int_eq(when, NOW - 1000 + HEALTH_KEEP + 4);
	ck_assert(passed == ((HEALTH_KEEP + 4) % 2 == 0));
	ck_assert_int_eq(store_last_health(s, "node-04", NOW, &passed, &when), 0);
	ck_assert_int_eq(store_last_health(s, "node-05", NOW, &passed, &when), 1);
}
END_TEST

START_TEST(health_payload)
{
	struct bundle_claim c;
	char buf[256], sha[65];

	memset(sha, 'a', 64);
	sha[64] = 0;
	ck_assert_int_eq(health_payload_format("node-02", sha, buf, sizeof(buf)), 0);
	ck_assert_int_eq(health_payload_parse(buf, strlen(buf), &c), 0);
	ck_assert_str_eq(c.node, "node-02");
	ck_assert_str_eq(c.job_id, "");
	/* a bundle's credential is no health report's, nor the other way */
	ck_assert_int_eq(bundle_payload_parse(buf, strlen(buf), &c), -1);
	snprintf(buf, sizeof(buf), "attrib-bundle:v1:42:node-02:%s", sha);
	ck_assert_int_eq(health_payload_parse(buf, strlen(buf), &c), -1);
	snprintf(buf, sizeof(buf), "attrib-health:v1:../x:%s", sha);
	ck_assert_int_eq(health_payload_parse(buf, strlen(buf), &c), -1);
	ck_assert_int_eq(health_payload_format("a/b", sha, buf, sizeof(buf)), -1);
}
END_TEST

/* The main loop's intake: each report recorded and removed; with Undrain
 * auto but no Slurm here, a node is never attrib's: nothing recorded in
 * the drains table. */
START_TEST(intake_records_and_removes)
{
	char path[600], sub[600];
	FILE *f;
	int n = 0;

	snprintf(sub, sizeof(sub), "StateDir = %s\nUndrain = auto\n", dir);
	load_conf(sub);
	setenv("SLURM_CONF", "/nonexistent/slurm.conf", 1);
	ck_assert_int_eq(health_prepare(dir, path, sizeof(path)), 0);
	attrib_drained("node-06", NOW - 7200);
	snprintf(path, sizeof(path), "%s/health/node-06.json", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("{\"schema\":\"attrib.health/v1\",\"node\":\"node-06\",\"checked\":\"2027-01-15T08:00:00Z\","
	      "\"command\":\"/usr/bin/true\",\"status\":0,\"timed_out\":false,\"duration_ms\":3,"
	      "\"output\":\"fine\"}",
	      f);
	fclose(f);
	snprintf(sub, sizeof(sub), "%s/health/..json", dir);
	f = fopen(sub, "w");
	fclose(f);
	health_intake(&conf, s, NOW);
	ck_assert_int_eq(access(path, F_OK), -1);
	ck_assert_int_eq(store_each_health(s, "node-06", 0, count_row_any, &n), 0);
	ck_assert_int_eq(n, 1);
	char row[256];
	ck_assert_int_eq(store_each_health(s, "node-06", 0, first_row, row), 0);
	ck_assert_str_eq(row, "1800000000 1800000000 /usr/bin/true 0 0 1 3 fine");
	char d[32], r[256];
	ck_assert_int_eq(store_last_undrain(s, "node-06", 0, d, sizeof(d), r, sizeof(r)), 0);
	ck_assert_int_eq(undrain_mode(&conf), DRAIN_MODE_AUTO);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("undrain");
	TCase *t = tcase_create("undrain");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, returns_a_node_attrib_drained);
	tcase_add_test(t, never_a_node_attrib_did_not_drain);
	tcase_add_test(t, waits_for_quiet_and_a_passing_check);
	tcase_add_test(t, twice_within_the_window_needs_a_person);
	tcase_add_test(t, store_keeps_the_newest_checks);
	tcase_add_test(t, health_payload);
	tcase_add_test(t, intake_records_and_removes);
	suite_add_tcase(su, t);
	log_set_level(LOGL_ERROR);
	return run_suite(su);
}
