/* Lost links across jobs (service/switchfind.c) on a real store: results
 * of separate jobs blaming lost links on nodes under one leaf switch of
 * the site's topology (TopologyFile) within SwitchWindow make one finding
 * about the switch, and the drain policy's refusals say so; nodes under
 * different leaves, faults too far apart, a single node, and no topology
 * leave each job's diagnosis to the usual policy.  Also the topology's
 * copy into a case directory. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "conf.h"
#include "contract.h"
#include "drain_apply.h"
#include "findings.h"
#include "store.h"
#include "switchfind.h"
#include "testutil.h"
#include "topology_site.h"
#include "xalloc.h"

static char *dir;
static struct attrib_config conf;
static store *st;
static long long now;

static const char topo[] = "SwitchName=leaf1 Nodes=gpu-s[01-02]\n"
			   "SwitchName=leaf2 Nodes=gpu-s[03-04]\n"
			   "SwitchName=spine Switches=leaf[1-2]\n";

static void setup_with(const char *extra)
{
	char path[600], err[256];
	FILE *f;

	dir = tmpdir();
	write_file(dir, "topology.conf", topo);
	snprintf(path, sizeof(path), "%s/attrib.conf", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "StateDir = %s\nTopologyFile = %s/topology.conf\nSwitchWindow = 60\n%s", dir, dir, extra);
	fclose(f);
	ck_assert_int_eq(config_load(path, &conf, stderr), 0);
	snprintf(path, sizeof(path), "%s/attrib.db", dir);
	st = store_open(path, false, err, sizeof(err));
	ck_assert_msg(st != NULL, "%s", err);
	now = (long long)time(NULL);
}

static void setup(void)
{
	setup_with("");
}

static void teardown(void)
{
	store_close(st);
	topology_site_free();
	config_free(&conf);
	rmtree(dir);
}

/* the trust of the next diagnosis' root cause ("job-output", ...); NULL:
 * vouched for (each test runs in a process of its own) */
static const char *diag_trust;

/* A diagnosis blaming a lost link (or a GPU) on node at time t, stored. */
static struct json_object *diag(const char *job, const char *node, const char *time, bool lost_link)
{
	char trust[64] = "";

	if (diag_trust)
		snprintf(trust, sizeof(trust), ",\"trust\":\"%s\"", diag_trust);
	char text[1024];
	struct json_object *r;
	struct result_view v;

	snprintf(text, sizeof(text),
		 "{\"schema\":\"attrib.result/"
		 "v1\",\"job_id\":\"%s\",\"sub_domain\":\"%s\",\"domain\":\"infra\","
		 "\"root_cause\":{\"code\":\"%s\",\"class\":\"%s\",\"node\":\"%s\",\"time\":\"%s\"%s%s},"
		 "\"culprit_nodes\":[\"%s\"],\"affected_nodes\":[\"%s\"],"
		 "\"actions\":[{\"node\":\"%s\",\"action\":\"drain\",\"reason\":\"r\"}]}",
		 job, lost_link ? "InfraNet" : "InfraHW", lost_link ? "net.link_down" : "xid.79",
		 lost_link ? "network-link" : "gpu-hardware", node, time,
		 lost_link ? ",\"lost_link\":true" : "", trust, node, node, node);
	r = json_tokener_parse(text);
	ck_assert_ptr_nonnull(r);
	result_view_of(r, &v);
	struct store_row row = { .job_id = job,
				 .attempt = 0,
				 .state = "FAILED",
				 .sub_domain = v.sub_domain,
				 .culprits = node,
				 .root_code = v.root_code,
				 .created = now,
				 .result_json = text };
	ck_assert_int_eq(store_put(st, &row, NULL, now), 1);
	return r;
}

static int count_one(const struct finding_row *f, void *a)
{
	(void)f;
	++*(int *)a;
	return 0;
}

static int count_findings(void)
{
	int n = 0;

	ck_assert_int_eq(store_each_finding(st, 0, FINDING_SWITCH, NULL, count_one, &n), 0);
	return n;
}

/* each drain decision of the job: refused, with expect_reason */
static const char *expect_reason;
static int refused_row(const struct drain_row *d, void *a)
{
	ck_assert_str_eq(d->decision, DRAIN_REFUSED);
	ck_assert_str_eq(d->reason, expect_reason);
	++*(int *)a;
	return 0;
}

static int grab_finding(const struct finding_row *f, void *a)
{
	*(char **)a = strdup_or_die(f->jobs_json);
	ck_assert_ptr_nonnull(strstr(f->summary, "gpu-s01"));
	return 1;
}

static int check(struct json_object *r, const char *job, char *sw)
{
	int rc = switch_finding(&conf, st, r, job, 0, now, sw, 64);

	json_object_put(r);
	return rc;
}

START_TEST(same_leaf_blames_switch)
{
	char sw[64] = "";
	struct json_object *r;

	/* the first job alone: one node, no switch */
	r = diag("9001", "gpu-s01", "2026-11-20T10:40:21Z", true);
	ck_assert_int_eq(check(r, "9001", sw), 0);
	ck_assert_int_eq(count_findings(), 0);
	/* a second job's node under the same leaf, 30 s later: the switch */
	r = diag("9002", "gpu-s02", "2026-11-20T10:40:51Z", true);
	ck_assert_int_eq(switch_finding(&conf, st, r, "9002", 0, now, sw, sizeof(sw)), 1);
	ck_assert_str_eq(sw, "leaf1");
	ck_assert_int_eq(count_findings(), 1);
	/* the refusals name the switch, for the node this result would drain */
	drain_policy_refuse_switch(st, r, "9002", 0, sw, now);
	json_object_put(r);
	int seen = 0;
	expect_reason = "switch leaf1 blamed";
	ck_assert_int_eq(store_each_drain(st, "9002", refused_row, &seen), 0);
	ck_assert_int_eq(seen, 1);
	/* the finding cites both jobs */
	char *jobs = NULL;
	ck_assert_int_eq(store_each_finding(st, 0, FINDING_SWITCH, "leaf1", grab_finding, &jobs), 1);
	ck_assert_ptr_nonnull(strstr(jobs, "\"9001\""));
	ck_assert_ptr_nonnull(strstr(jobs, "\"9002\""));
	free(jobs);
	/* a third within the hour: blamed, but one finding stands already */
	r = diag("9003", "gpu-s01", "2026-11-20T10:41:00Z", true);
	ck_assert_int_eq(check(r, "9003", sw), 1);
	ck_assert_int_eq(count_findings(), 1);
}
END_TEST

START_TEST(other_leaf_window_and_kind)
{
	char sw[64] = "";

	ck_assert_int_eq(check(diag("9101", "gpu-s01", "2026-11-20T10:40:21Z", true), "9101", sw), 0);
	/* another leaf */
	ck_assert_int_eq(check(diag("9102", "gpu-s03", "2026-11-20T10:40:25Z", true), "9102", sw), 0);
	/* the same leaf, but 61 s later: beyond SwitchWindow */
	ck_assert_int_eq(check(diag("9103", "gpu-s02", "2026-11-20T10:41:22Z", true), "9103", sw), 0);
	/* the same leaf in time, but a GPU fault, not a lost link */
	ck_assert_int_eq(check(diag("9104", "gpu-s02", "2026-11-20T10:40:22Z", false), "9104", sw), 0);
	/* a node not in the topology */
	ck_assert_int_eq(check(diag("9105", "gpu-s09", "2026-11-20T10:40:22Z", true), "9105", sw), 0);
	ck_assert_int_eq(count_findings(), 0);
}
END_TEST

START_TEST(min_nodes_setting)
{
	char sw[64] = "";

	teardown();
	setup_with("SwitchMinNodes = 3\n");
	ck_assert_int_eq(check(diag("9201", "gpu-s01", "2026-11-20T10:40:21Z", true), "9201", sw), 0);
	/* the same node again is one node */
	ck_assert_int_eq(check(diag("9202", "gpu-s01", "2026-11-20T10:40:23Z", true), "9202", sw), 0);
	ck_assert_int_eq(check(diag("9203", "gpu-s02", "2026-11-20T10:40:24Z", true), "9203", sw), 0);
	ck_assert_int_eq(count_findings(), 0);
}
END_TEST

/* a diagnosis that blamed leaf2 itself, its root cause's trust as given */
static struct json_object *in_job(const char *job, const char *trust)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "{\"job_id\":\"%s\",\"sub_domain\":\"InfraNet\",\"domain\":\"infra\","
		 "\"root_cause\":{\"code\":\"nccl.ib_port_error\",\"node\":\"gpu-s03\",\"lost_link\":true,"
		 "\"time\":\"2026-11-20T10:40:21Z\"%s%s%s},\"culprit_switch\":\"leaf2\","
		 "\"switch_nodes\":[\"gpu-s03\",\"gpu-s04\"],\"culprit_nodes\":[],\"actions\":[{\"switch\":"
		 "\"leaf2\",\"action\":\"inspect\",\"reason\":\"r\"}]}",
		 job, trust ? ",\"trust\":\"" : "", trust ? trust : "", trust ? "\"" : "");
	return json_tokener_parse(text);
}

START_TEST(in_job_switch_recorded)
{
	char sw[64] = "";
	struct json_object *r = in_job("9301", NULL);
	int n = 0;

	ck_assert_int_eq(switch_finding(&conf, st, r, "9301", 0, now, sw, sizeof(sw)), 1);
	ck_assert_str_eq(sw, "leaf2");
	ck_assert_int_eq(count_findings(), 1);
	drain_policy_refuse_switch(st, r, "9301", 0, sw, now);
	expect_reason = "switch leaf2 blamed";
	ck_assert_int_eq(store_each_drain(st, "9301", refused_row, &n), 0);
	ck_assert_int_eq(n, 2); /* each node under it, none drained */
	json_object_put(r);
}
END_TEST

/* Lost links only the jobs' own output tells of (NCCL port errors a user
 * prints naming two nodes under leaf1), or files anyone may write: no
 * switch finding, so neither node's drain is refused for a switch; a
 * diagnosis that blamed a switch on them (an engine before trust) is not
 * recorded either.  Vouched for, the same losses blame the switch. */
START_TEST(own_word_blames_no_switch)
{
	char sw[64] = "";
	struct json_object *r;

	diag_trust = "job-output";
	ck_assert_int_eq(check(diag("9501", "gpu-s01", "2026-11-20T10:40:21Z", true), "9501", sw), 0);
	ck_assert_int_eq(check(diag("9502", "gpu-s02", "2026-11-20T10:40:23Z", true), "9502", sw), 0);
	diag_trust = "unauthenticated";
	ck_assert_int_eq(check(diag("9503", "gpu-s02", "2026-11-20T10:40:24Z", true), "9503", sw), 0);
	r = in_job("9504", "job-output");
	ck_assert_int_eq(switch_finding(&conf, st, r, "9504", 0, now, sw, sizeof(sw)), 0);
	json_object_put(r);
	ck_assert_int_eq(count_findings(), 0);
	/* one vouched loss beside them is one node: still no switch */
	diag_trust = NULL;
	ck_assert_int_eq(check(diag("9505", "gpu-s01", "2026-11-20T10:40:25Z", true), "9505", sw), 0);
	ck_assert_int_eq(count_findings(), 0);
	/* a second vouched one under the same leaf: the switch, citing those two */
	r = diag("9506", "gpu-s02", "2026-11-20T10:40:26Z", true);
	ck_assert_int_eq(switch_finding(&conf, st, r, "9506", 0, now, sw, sizeof(sw)), 1);
	json_object_put(r);
	char *jobs = NULL;
	ck_assert_int_eq(store_each_finding(st, 0, FINDING_SWITCH, "leaf1", grab_finding, &jobs), 1);
	ck_assert_str_eq(jobs, "[{\"job_id\":\"9506\",\"attempt\":0},{\"job_id\":\"9505\",\"attempt\":0}]");
	free(jobs);
}
END_TEST

START_TEST(no_topology)
{
	char sw[64] = "", path[600];

	snprintf(path, sizeof(path), "%s/topology.conf", dir);
	unlink(path);
	ck_assert_int_eq(check(diag("9401", "gpu-s01", "2026-11-20T10:40:21Z", true), "9401", sw), 0);
	ck_assert_int_eq(check(diag("9402", "gpu-s02", "2026-11-20T10:40:22Z", true), "9402", sw), 0);
	/* a file that is not a topology: no switch either, no crash */
	write_file(dir, "topology.conf", "SwitchName=a Switches=b\nSwitchName=b Switches=a\n");
	ck_assert_int_eq(check(diag("9403", "gpu-s02", "2026-11-20T10:40:23Z", true), "9403", sw), 0);
	ck_assert_int_eq(count_findings(), 0);
}
END_TEST

START_TEST(copied_into_case)
{
	char err[256], *c = path_join(dir, "case");
	char *copy;
	FILE *f;
	char buf[256] = "";

	mkdir_p(dir, "case");
	ck_assert_int_eq(topology_site_copy(&conf, c, err, sizeof(err)), 1);
	copy = path_join(c, "topology.conf");
	f = fopen(copy, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_gt(fread(buf, 1, sizeof(buf) - 1, f), 0);
	fclose(f);
	ck_assert_str_eq(buf, topo);
	free(copy);
	/* TopologyFile unreadable: a reason, for the case's coverage */
	free(conf.topology_file);
	conf.topology_file = strdup_or_die("/nonexistent/topology.conf");
	ck_assert_int_eq(topology_site_copy(&conf, c, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent/topology.conf"));
	free(c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("switch");
	TCase *t = tcase_create("across jobs");
	SRunner *r;
	int failed;

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, same_leaf_blames_switch);
	tcase_add_test(t, other_leaf_window_and_kind);
	tcase_add_test(t, min_nodes_setting);
	tcase_add_test(t, in_job_switch_recorded);
	tcase_add_test(t, own_word_blames_no_switch);
	tcase_add_test(t, no_topology);
	tcase_add_test(t, copied_into_case);
	suite_add_tcase(s, t);
	r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
