/* Unit tests of attribd's drain policy (Check): the mode of each class
 * (DrainPolicy, DrainClasses with CLASS:MODE), each reason to refuse (off,
 * class not listed, no class, node already drained, Slurm unreachable,
 * DrainMaxPerHour, DrainMaxFraction with its rounding on small partitions,
 * a diagnosis below DrainMinConfidence),
 * the reason Slurm gets (short, no quotes, shell metacharacters, control
 * characters or non-ASCII), the store's count of recent drains, and the
 * engine's root_cause.class taken through to a decision.  Node states come
 * from a table here instead of slurmctld; t/live-drain.sh runs the policy on
 * the real cluster. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "attrib.h"
#include "conf.h"
#include "contract.h"
#include "drain_plan.h"
#include "drain_policy.h"
#include "log.h"
#include "slurmapi.h"
#include "store.h"
#include "testutil.h"

/* ---- attrib.conf, written and parsed as the service does ---- */

static char *conf_dir;

static void load_conf(struct attrib_config *c, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/attrib.conf", conf_dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	ck_assert_int_eq(config_load(path, c, stderr), 0);
}

static attrib_catalog *shipped; /* the rules in the tree, loaded once */

static void setup(void)
{
	conf_dir = tmpdir();
}

static void teardown(void)
{
	rmtree(conf_dir); /* frees it */
}

/* ---- what "Slurm" says: a table of nodes ---- */

struct fake_node {
	const char *name;
	bool unavailable;
	int part_nodes, part_unavailable;   /* one partition, "gpu" */
	int part2_nodes, part2_unavailable; /* a second one, "debug", when > 0 */
};

struct cluster {
	struct fake_node nodes[4];
	int asked;	    /* how often the policy asked */
	bool down;	    /* slurmctld does not answer */
	int attrib_drained; /* nodes of the cluster drained with attrib's reason */
};

static int fake_state(const char *node, struct drain_node_state *st, char *err, size_t errlen, void *arg)
{
	struct cluster *c = arg;

	c->asked++;
	memset(st, 0, sizeof(*st));
	if (c->down) {
		snprintf(err, errlen, "Unable to contact slurm controller (connect failure)");
		return -1;
	}
	for (int i = 0; i < 4 && c->nodes[i].name; i++) {
		const struct fake_node *n = &c->nodes[i];

		if (strcmp(n->name, node))
			continue;
		st->unavailable = n->unavailable;
		st->attrib_drained = c->attrib_drained;
		snprintf(st->state, sizeof(st->state), "%s", n->unavailable ? "drained" : "up");
		snprintf(st->part[0].name, sizeof(st->part[0].name), "gpu");
		st->part[0].nodes = n->part_nodes;
		st->part[0].unavailable = n->part_unavailable;
		st->npart = 1;
		if (n->part2_nodes) {
			snprintf(st->part[1].name, sizeof(st->part[1].name), "debug");
			st->part[1].nodes = n->part2_nodes;
			st->part[1].unavailable = n->part2_unavailable;
			st->npart = 2;
		}
		return 0;
	}
	snprintf(err, errlen, "Slurm knows no node %s", node);
	return -1;
}

/* A result as the engine makes it: root cause of class cls (NULL: none)
 * with drain actions for the given nodes, of the confidence given (NULL:
 * none, as a result stored by an older attrib). */
static struct json_object *result_of(const char *cls, const char *sub, const char *dom, const char *drain1,
				     const char *drain2, const char *confidence)
{
	char buf[2048], acts[256] = "[]", klass[64] = "", conf[64] = "";

	if (drain1)
		snprintf(acts, sizeof(acts), "[{\"node\": \"%s\", \"action\": \"drain\"}%s%s%s]", drain1,
			 drain2 ? ", {\"node\": \"" : "", drain2 ? drain2 : "",
			 drain2 ? "\", \"action\": \"drain\"}" : "");
	if (cls)
		snprintf(klass, sizeof(klass), "\"class\": \"%s\", ", cls);
	if (confidence)
		snprintf(conf, sizeof(conf), "\"confidence\": \"%s\", ", confidence);
	snprintf(buf, sizeof(buf),
		 "{%s\"job_id\": \"4242\", \"sub_domain\": \"%s\", \"domain\": \"%s\","
		 " \"root_cause\": {%s\"symptom\": \"GPU has fallen off the bus (Xid 79)\","
		 " \"code\": \"xid.79\", \"device\": \"PCI:0000:3b:00\"},"
		 " \"culprit_nodes\": [\"node-02\", \"node-03\"],"
		 " \"affected_nodes\": [\"node-01\", \"node-02\", \"node-03\"],"
		 " \"actions\": %s}",
		 conf, sub, dom, klass, acts);
	struct json_object *r = json_tokener_parse(buf);
	ck_assert_ptr_nonnull(r);
	return r;
}

static struct json_object *result(const char *cls, const char *sub, const char *dom, const char *drain1,
				  const char *drain2)
{
	return result_of(cls, sub, dom, drain1, drain2, "high");
}

static struct json_object *hw(const char *cls)
{
	return result(cls, "InfraHW", "infra", "node-02", NULL);
}

#define HEALTHY(n) \
	{ \
		n, false, 100, 0, 0, 0 \
	}

/* ---- the mode of a class ---- */

START_TEST(class_modes)
{
	struct attrib_config c;
	bool listed;

	load_conf(&c, ""); /* the defaults: off for the three GPU classes */
	ck_assert_int_eq(drain_class_mode(&c, "gpu-hardware", &listed), DRAIN_MODE_OFF);
	ck_assert(listed);
	ck_assert_int_eq(drain_class_mode(&c, "host-hardware", &listed), DRAIN_MODE_OFF);
	ck_assert(!listed);
	config_free(&c);

	load_conf(&c, "DrainPolicy = suggest\nDrainClasses = gpu-hardware:auto, nvlink, gpu-memory:off\n");
	ck_assert_int_eq(drain_class_mode(&c, "gpu-hardware", &listed), DRAIN_MODE_AUTO);
	ck_assert(listed);
	ck_assert_int_eq(drain_class_mode(&c, "nvlink", &listed), DRAIN_MODE_SUGGEST);
	ck_assert_int_eq(drain_class_mode(&c, "gpu-memory", &listed), DRAIN_MODE_OFF);
	ck_assert(listed);
	/* a prefix of a listed class is not that class */
	ck_assert_int_eq(drain_class_mode(&c, "gpu", &listed), DRAIN_MODE_OFF);
	ck_assert(!listed);
	ck_assert_int_eq(drain_class_mode(&c, NULL, &listed), DRAIN_MODE_OFF);
	ck_assert(!listed);
	config_free(&c);

	/* the per-class override wins over DrainPolicy = off too: off is the default */
	load_conf(&c, "DrainPolicy = off\nDrainClasses = nvlink:auto,gpu-hardware\n");
	ck_assert_int_eq(drain_class_mode(&c, "nvlink", &listed), DRAIN_MODE_AUTO);
	ck_assert_int_eq(drain_class_mode(&c, "gpu-hardware", &listed), DRAIN_MODE_OFF);
	config_free(&c);
}
END_TEST

START_TEST(class_mode_typo_is_refused)
{
	char path[512], *out = NULL;
	size_t len = 0;
	struct attrib_config c;
	FILE *f, *err = open_memstream(&out, &len);

	snprintf(path, sizeof(path), "%s/attrib.conf", conf_dir);
	f = fopen(path, "w");
	fputs("# drains\nDrainClasses = gpu-hardware:automatic\n", f);
	fclose(f);
	ck_assert_int_eq(config_load(path, &c, err), -1);
	fclose(err);
	ck_assert_msg(strstr(out, "attrib.conf:2: DrainClasses item gpu-hardware:automatic") != NULL, "%s",
		      out);
	free(out);
	config_free(&c);
}
END_TEST

/* ---- each branch of the decision ---- */

START_TEST(policy_off_refuses_without_asking_slurm)
{
	struct attrib_config c;
	struct cluster cl = { .nodes = { HEALTHY("node-02") } };
	struct drain_decisions d;
	struct json_object *r = hw("gpu-hardware");

	load_conf(&c, "");
	drain_policy_decide(&c, r, 0, fake_state, &cl, &d);
	ck_assert_int_eq(d.n, 1);
	ck_assert_str_eq(d.v[0].node, "node-02");
	ck_assert_int_eq(d.v[0].decision, DECIDE_REFUSE);
	ck_assert_str_eq(d.v[0].why, "the drain policy of class gpu-hardware is off");
	ck_assert_int_eq(d.mode, DRAIN_MODE_OFF);
	ck_assert_str_eq(d.class_name, "gpu-hardware");
	ck_assert_int_eq(cl.asked, 0);
	json_object_put(r);
	config_free(&c);
}
END_TEST

START_TEST(policy_suggest_and_auto)
{
	struct attrib_config c;
	struct cluster cl = { .nodes = { HEALTHY("node-02") } };
	struct drain_decisions d;
	struct json_object *r = hw("gpu-hardware");

	load_conf(&c, "DrainPolicy = suggest\n");
	drain_policy_decide(&c, r, 0, fake_state, &cl, &d);
	ck_assert_int_eq(d.n, 1);
	ck_assert_int_eq(d.v[0].decision, DECIDE_SUGGEST);
	ck_assert_str_eq(d.reason, "attrib: GPU has fallen off the bus (Xid 79) PCI:0000:3b:00 (job 4242)");
	ck_assert_int_eq(cl.asked, 1);
	config_free(&c);

	load_conf(&c, "DrainPolicy = auto\n");
	drain_policy_decide(&c, r, 1, fake_state, &cl, &d);
	ck_assert_int_eq(d.v[0].decision, DECIDE_DRAIN);
	ck_assert_int_eq(d.mode, DRAIN_MODE_AUTO);
	ck_assert_str_eq(drain_decision_name(d.v[0].decision), "drained");
	config_free(&c);
	json_object_put(r);
}
END_TEST

START_TEST(policy_refuses_classes_not_listed_and_no_class)
{
	struct attrib_config c;
	struct cluster cl = { .nodes = { HEALTHY("node-02") } };
	struct drain_decisions d;
	struct json_object *r = hw("node-down");

	load_conf(&c, "DrainPolicy = auto\n");
	drain_policy_decide(&c, r, 0, fake_state, &cl, &d);
	ck_assert_int_eq(d.v[0].decision, DECIDE_REFUSE);
	ck_assert_str_eq(d.v[0].why, "class node-down is not in DrainClasses");
	json_object_put(r);

	r = hw(NULL); /* a result stored before the class was in it */
	drain_policy_decide(&c, r, 0, fake_state, &cl, &d);
	ck_assert_int_eq(d.v[0].decision, DECIDE_REFUSE);
	ck_assert_msg(strstr(d.v[0].why, "names no rule class") != NULL, "%s", d.v[0].why);
	ck_assert_int_eq(cl.asked, 0);
	json_object_put(r);
	config_free(&c);
}
END_TEST

START_TEST(policy_decides_nothing_without_drain_actions)
{
	struct attrib_config c;
	struct cluster cl = { .nodes = { HEALTHY("node-02") } };
	struct drain_decisions d;
	struct json_object *r[] = {
		result("user-code", "UserCode", "user", NULL, NULL),
		result("gpu-hardware", "ambiguous", "unknown", NULL, NULL),
		result("gpu-reported", "InfraHW", "infra", NULL, NULL),	     /* inspect only */
		result("gpu-hardware", "UserCode", "user", "node-02", NULL), /* not infra */
	};

	load_conf(&c, "DrainPolicy = auto\nDrainClasses = gpu-hardware,user-code,gpu-reported\n");
	for (size_t i = 0; i < sizeof(r) / sizeof(*r); i++) {
		drain_policy_decide(&c, r[i], 0, fake_state, &cl, &d);
		ck_assert_int_eq(d.n, 0);
		json_object_put(r[i]);
	}
	ck_assert_int_eq(cl.asked, 0);
	config_free(&c);
}
END_TEST

START_TEST(policy_leaves_drained_nodes_and_unknown_state)
{
	struct attrib_config c;
	struct cluster cl = { .nodes = { { "node-02", true, 100, 1, 0, 0 } } };
	struct drain_decisions d;
	struct json_object *r = hw("gpu-hardware");

	load_conf(&c, "DrainPolicy = auto\n");
	drain_policy_decide(&c, r, 0, fake_state, &cl, &d);
	ck_assert_int_eq(d.v[0].decision, DECIDE_REFUSE);
	ck_assert_str_eq(d.v[0].why, "the node is drained already");

	cl.down = true;
	drain_policy_decide(&c, r, 0, fake_state, &cl, &d);
	ck_assert_int_eq(d.v[0].decision, DECIDE_REFUSE);
	ck_assert_str_eq(d.v[0].why,
			 "Slurm cannot tell the node's state: Unable to contact slurm "
			 "controller (connect failure)");
	json_object_put(r);
	config_free(&c);
}
END_TEST

START_TEST(policy_per_hour_limit)
{
	struct attrib_config c;
	struct cluster cl = { .nodes = { HEALTHY("node-02"), HEALTHY("node-03") } };
	struct drain_decisions d;
	struct json_object *r = hw("gpu-hardware");

	load_conf(&c, "DrainPolicy = auto\nDrainMaxPerHour = 1\n");
	drain_policy_decide(&c, r, 0, fake_state, &cl, &d);
	ck_assert_int_eq(d.v[0].decision, DECIDE_DRAIN);
	drain_policy_decide(&c, r, 1, fake_state, &cl, &d);
	ck_assert_int_eq(d.v[0].decision, DECIDE_REFUSE);
	ck_assert_str_eq(d.v[0].why, "DrainMaxPerHour (1) reached: 1 drain in the last hour");
	json_object_put(r);
	config_free(&c);

	/* two culprits, room for one more: the first is drained, the second refused */
	load_conf(&c, "DrainPolicy = auto\nDrainMaxPerHour = 3\n");
	r = result("gpu-hardware", "InfraHW", "infra", "node-02", "node-03");
	drain_policy_decide(&c, r, 2, fake_state, &cl, &d);
	ck_assert_int_eq(d.n, 2);
	ck_assert_int_eq(d.v[0].decision, DECIDE_DRAIN);
	ck_assert_str_eq(d.v[1].node, "node-03");
	ck_assert_int_eq(d.v[1].decision, DECIDE_REFUSE);
	ck_assert_str_eq(d.v[1].why,
			 "DrainMaxPerHour (3) reached: 2 drains in the last hour and "
			 "earlier nodes of this diagnosis");
	config_free(&c);

	/* suggestions obey the same limit (they say what auto would do) */
	load_conf(&c, "DrainPolicy = suggest\nDrainMaxPerHour = 0\n");
	drain_policy_decide(&c, r, 0, fake_state, &cl, &d);
	ck_assert_int_eq(d.v[0].decision, DECIDE_REFUSE);
	ck_assert_int_eq(d.v[1].decision, DECIDE_REFUSE);
	json_object_put(r);
	config_free(&c);
}
END_TEST

START_TEST(fraction_rounding)
{
	/* floor(fraction * nodes), at least one node when the fraction is above 0 */
	ck_assert_int_eq(drain_fraction_allowed(0.05, 3), 1);
	ck_assert_int_eq(drain_fraction_allowed(0.05, 1), 1);
	ck_assert_int_eq(drain_fraction_allowed(0.05, 19), 1);
	ck_assert_int_eq(drain_fraction_allowed(0.05, 20), 1);
	ck_assert_int_eq(drain_fraction_allowed(0.05, 39), 1);
	ck_assert_int_eq(drain_fraction_allowed(0.05, 40), 2);
	ck_assert_int_eq(drain_fraction_allowed(0.1, 30), 3); /* not 2: 0.1 * 30 < 3 in binary */
	ck_assert_int_eq(drain_fraction_allowed(0.5, 3), 1);
	ck_assert_int_eq(drain_fraction_allowed(1, 3), 3);
	ck_assert_int_eq(drain_fraction_allowed(0, 1000), 0);
	ck_assert_int_eq(drain_fraction_allowed(0.05, 0), 0);
}
END_TEST

START_TEST(policy_fraction_limit)
{
	struct attrib_config c;
	struct cluster cl = { .nodes = {
				      { "node-02", false, 3, 0, 0, 0 }, /* a 3-node partition, all up */
				      { "node-03", false, 3, 1, 0, 0 }, /* one of its 3 down already */
			      } };
	struct drain_decisions d;
	struct json_object *r = hw("gpu-hardware");

	load_conf(&c, "DrainPolicy = auto\nDrainMaxPerHour = 10\n"); /* DrainMaxFraction 0.05 */
	drain_policy_decide(&c, r, 0, fake_state, &cl, &d);
	ck_assert_int_eq(d.v[0].decision, DECIDE_DRAIN); /* 0.05 of 3: still one node */
	json_object_put(r);

	r = result("gpu-hardware", "InfraHW", "infra", "node-03", NULL);
	drain_policy_decide(&c, r, 0, fake_state, &cl, &d);
	ck_assert_int_eq(d.v[0].decision, DECIDE_REFUSE);
	ck_assert_str_eq(d.v[0].why,
			 "DrainMaxFraction (0.05) of partition gpu reached: 1 of its 3 "
			 "nodes drained or down, at most 1");
	json_object_put(r);

	/* two culprits of one 3-node partition: the second would make two */
	r = result("gpu-hardware", "InfraHW", "infra", "node-02", "node-02");
	drain_policy_decide(&c, r, 0, fake_state, &cl, &d);
	ck_assert_int_eq(d.v[0].decision, DECIDE_DRAIN);
	ck_assert_int_eq(d.v[1].decision, DECIDE_REFUSE);
	ck_assert_msg(strstr(d.v[1].why, "DrainMaxFraction") != NULL, "%s", d.v[1].why);
	json_object_put(r);
	config_free(&c);

	/* every partition of the node counts: roomy "gpu", full "debug" */
	struct cluster two = { .nodes = { { "node-02", false, 100, 0, 10, 1 } } };
	load_conf(&c, "DrainPolicy = auto\nDrainMaxFraction = 0.1\n");
	r = hw("gpu-hardware");
	drain_policy_decide(&c, r, 0, fake_state, &two, &d);
	ck_assert_int_eq(d.v[0].decision, DECIDE_REFUSE);
	ck_assert_msg(strstr(d.v[0].why, "partition debug") != NULL, "%s", d.v[0].why);
	config_free(&c);

	/* DrainMaxFraction = 0: never */
	load_conf(&c, "DrainPolicy = auto\nDrainMaxFraction = 0\n");
	drain_policy_decide(&c, r, 0, fake_state, &cl, &d);
	ck_assert_int_eq(d.v[0].decision, DECIDE_REFUSE);
	ck_assert_msg(strstr(d.v[0].why, "at most 0") != NULL, "%s", d.v[0].why);
	json_object_put(r);
	config_free(&c);
}
END_TEST

START_TEST(policy_max_nodes)
{
	struct attrib_config c;
	/* a roomy partition: only DrainMaxNodes can refuse */
	struct cluster cl = { .nodes = { { "node-02", false, 1000, 0, 0, 0 },
					 { "node-03", false, 1000, 0, 0, 0 } },
			      .attrib_drained = 2 };
	struct drain_decisions d;
	struct json_object *r = result("gpu-hardware", "InfraHW", "infra", "node-02", "node-03");

	load_conf(&c, "DrainPolicy = auto\nDrainMaxPerHour = 10\nDrainMaxNodes = 3\n");
	ck_assert_int_eq(c.drain_max_nodes, 3);
	drain_policy_decide(&c, r, 0, fake_state, &cl, &d);
	/* 2 drained by attrib + node-02 = 3: allowed; node-03 would be the 4th */
	ck_assert_int_eq(d.v[0].decision, DECIDE_DRAIN);
	ck_assert_int_eq(d.v[1].decision, DECIDE_REFUSE);
	ck_assert_str_eq(
		d.v[1].why,
		"DrainMaxNodes (3) reached: 2 nodes drained by attrib and earlier nodes of this diagnosis");
	/* at the cap already: the first is refused too, in suggest mode as well */
	cl.attrib_drained = 3;
	config_free(&c);
	load_conf(&c, "DrainPolicy = suggest\nDrainMaxPerHour = 10\nDrainMaxNodes = 3\n");
	drain_policy_decide(&c, r, 0, fake_state, &cl, &d);
	ck_assert_int_eq(d.v[0].decision, DECIDE_REFUSE);
	ck_assert_str_eq(d.v[0].why, "DrainMaxNodes (3) reached: 3 nodes drained by attrib");
	config_free(&c);
	/* 0: never; the default is 10 */
	cl.attrib_drained = 0;
	load_conf(&c, "DrainPolicy = auto\nDrainMaxNodes = 0\n");
	drain_policy_decide(&c, r, 0, fake_state, &cl, &d);
	ck_assert_int_eq(d.v[0].decision, DECIDE_REFUSE);
	ck_assert_msg(strstr(d.v[0].why, "DrainMaxNodes (0)") != NULL, "%s", d.v[0].why);
	config_free(&c);
	load_conf(&c, "DrainPolicy = auto\n");
	ck_assert_int_eq(c.drain_max_nodes, 10);
	cl.attrib_drained = 9;
	drain_policy_decide(&c, r, 0, fake_state, &cl, &d);
	ck_assert_int_eq(d.v[0].decision, DECIDE_DRAIN);
	ck_assert_int_eq(d.v[1].decision, DECIDE_REFUSE);
	json_object_put(r);
	config_free(&c);
}
END_TEST

/* ---- the reason Slurm gets ---- */

START_TEST(reason_is_short_and_inert)
{
	static const char *titles[] = {
		"GPU \\\"lost\\\" it's `id`; $(reboot) && rm -rf / | tee >x <y",
		"line one\\nline two\\r\\ttab",
		"\\u001b[31mred\\u001b[0m \\u001b]0;title\\u0007",
		"caf\\u00e9 \\u2014 \\u00fcber GPU \\ud83d\\udd25",
	};

	for (size_t i = 0; i < sizeof(titles) / sizeof(*titles); i++) {
		char buf[1024], reason[DRAIN_REASON_MAX + 1];

		snprintf(buf, sizeof(buf),
			 "{\"job_id\": \"77\", \"root_cause\": {\"symptom\": \"%s\","
			 " \"device\": \"PCI:0000:3b:00\"}}",
			 titles[i]);
		struct json_object *r = json_tokener_parse(buf);
		ck_assert_ptr_nonnull(r);
		drain_reason(r, reason, sizeof(reason));
		ck_assert_int_le(strlen(reason), DRAIN_REASON_MAX);
		ck_assert_msg(!strncmp(reason, "attrib: ", 8), "%s", reason);
		ck_assert_msg(strstr(reason, "PCI:0000:3b:00 (job 77)") != NULL, "%s", reason);
		for (const char *c = reason; *c; c++)
			ck_assert_msg(*c >= 0x20 && *c < 0x7f && !strchr("\"'`\\;$|&<>", *c),
				      "unsafe byte 0x%02x in %s", (unsigned char)*c, reason);
		ck_assert_msg(!strstr(reason, "  "), "runs of spaces in %s", reason);
		json_object_put(r);
	}

	/* a long title gives way; the device and the job stay */
	char title[300], buf[1024], reason[DRAIN_REASON_MAX + 1];
	memset(title, 'x', 299);
	title[299] = 0;
	snprintf(buf, sizeof(buf),
		 "{\"job_id\": \"123456789_42\", \"root_cause\": {\"symptom\": \"%s\","
		 " \"device\": \"PCI:0000:3b:00\"}}",
		 title);
	struct json_object *r = json_tokener_parse(buf);
	drain_reason(r, reason, sizeof(reason));
	ck_assert_int_eq(strlen(reason), DRAIN_REASON_MAX);
	ck_assert_msg(strstr(reason, "... PCI:0000:3b:00 (job 123456789_42)") != NULL, "%s", reason);
	/* a smaller buffer than Slurm's limit is honoured */
	char small[40];
	drain_reason(r, small, sizeof(small));
	ck_assert_int_le(strlen(small), sizeof(small) - 1);
	json_object_put(r);
}
END_TEST

/* ---- the store: drains in the last hour ---- */

static int row_line(const struct drain_row *row, void *arg)
{
	char line[256];

	snprintf(line, sizeof(line), "%ld %s %s %s", row->attempt, row->node, row->decision, row->by);
	json_object_array_add(arg, json_object_new_string(line));
	return 0;
}

START_TEST(store_counts_drains_done)
{
	char path[512], err[256];
	store *s;
	long long now = 1800000000;

	snprintf(path, sizeof(path), "%s/attrib.db", conf_dir);
	s = store_open(path, false, err, sizeof(err));
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(store_add_drain(s, "1", 0, "node-01", "r", DRAIN_DONE, "attribd (policy auto)",
					 now - 4000),
			 0);
	ck_assert_int_eq(store_add_drain(s, "2", 0, "node-02", "r", DRAIN_DONE, "attribd (policy auto)",
					 now - 100),
			 0);
	ck_assert_int_eq(store_add_drain(s, "3", 0, "node-03", "r", DRAIN_DONE_FORCED, "attrib drain (uid 0)",
					 now - 50),
			 0);
	ck_assert_int_eq(store_add_drain(s, "3", 0, "node-01", "r", DRAIN_REFUSED, "attrib drain (uid 0)",
					 now - 40),
			 0);
	ck_assert_int_eq(store_add_drain(s, "4", 0, "node-01", "r", DRAIN_SUGGESTED,
					 "attribd (policy suggest)", now - 30),
			 0);
	ck_assert_int_eq(store_add_drain(s, "4", 1, "node-01", "r", DRAIN_FAILED, "attribd (policy auto)",
					 now - 20),
			 0);
	ck_assert_int_eq(store_add_drain(s, "4", 1, "node-02", "r", DRAIN_DRY_RUN, "attrib drain (uid 0)",
					 now - 10),
			 0);
	/* only drains done count: by the policy or by hand, forced or not */
	ck_assert_int_eq(store_count_drains(s, now - 3600), 2);
	ck_assert_int_eq(store_count_drains(s, now - 5000), 3);

	struct json_object *seen = json_object_new_array();
	ck_assert_int_eq(store_each_drain(s, "4", row_line, seen), 0);
	ck_assert_str_eq(json_object_to_json_string_ext(seen, JSON_C_TO_STRING_PLAIN),
			 "[\"0 node-01 suggested attribd (policy suggest)\","
			 "\"1 node-01 failed attribd (policy auto)\","
			 "\"1 node-02 dry-run attrib drain (uid 0)\"]");
	json_object_put(seen);
	store_close(s);
}
END_TEST

/* DrainMinConfidence: high by default; a diagnosis below it is refused
 * before Slurm is asked, and the refusal says its confidence */
START_TEST(policy_min_confidence)
{
	struct attrib_config c;
	struct cluster cl = { .nodes = { HEALTHY("node-02") } };
	struct drain_decisions d;
	struct json_object *medium = result_of("gpu-hardware", "InfraHW", "infra", "node-02", NULL, "medium"),
			   *low = result_of("gpu-hardware", "InfraHW", "infra", "node-02", NULL, "low"),
			   *none = result_of("gpu-hardware", "InfraHW", "infra", "node-02", NULL, NULL),
			   *high = hw("gpu-hardware");

	load_conf(&c, "DrainPolicy = auto\n");
	ck_assert_str_eq(c.drain_confidence, "high");
	drain_policy_decide(&c, medium, 0, fake_state, &cl, &d);
	ck_assert_int_eq(d.n, 1);
	ck_assert_int_eq(d.v[0].decision, DECIDE_REFUSE);
	ck_assert_str_eq(d.v[0].why, "confidence medium is below DrainMinConfidence (high)");
	ck_assert_int_eq(cl.asked, 0);
	drain_policy_decide(&c, none, 0, fake_state, &cl, &d);
	ck_assert_int_eq(d.v[0].decision, DECIDE_REFUSE);
	ck_assert_msg(strstr(d.v[0].why, "states no confidence") != NULL, "%s", d.v[0].why);
	drain_policy_decide(&c, high, 0, fake_state, &cl, &d);
	ck_assert_int_eq(d.v[0].decision, DECIDE_DRAIN);
	config_free(&c);

	/* lowered: medium is drained, low still refused; the level's case does not matter */
	load_conf(&c, "DrainPolicy = auto\nDrainMinConfidence = Medium\n");
	ck_assert_str_eq(c.drain_confidence, "medium");
	drain_policy_decide(&c, medium, 0, fake_state, &cl, &d);
	ck_assert_int_eq(d.v[0].decision, DECIDE_DRAIN);
	drain_policy_decide(&c, low, 0, fake_state, &cl, &d);
	ck_assert_int_eq(d.v[0].decision, DECIDE_REFUSE);
	ck_assert_str_eq(d.v[0].why, "confidence low is below DrainMinConfidence (medium)");
	config_free(&c);

	load_conf(&c, "DrainPolicy = suggest\nDrainMinConfidence = low\n");
	drain_policy_decide(&c, low, 0, fake_state, &cl, &d);
	ck_assert_int_eq(d.v[0].decision, DECIDE_SUGGEST);
	config_free(&c);

	/* a finding has no confidence to check: its own limits decide */
	load_conf(&c, "DrainPolicy = auto\n");
	drain_policy_decide_node(&c, "repeat-offender", "node-02", "attrib: repeat offender (finding 1)", 0,
				 fake_state, &cl, &d);
	ck_assert_int_eq(d.v[0].decision, DECIDE_SUGGEST);
	config_free(&c);
	json_object_put(medium);
	json_object_put(low);
	json_object_put(none);
	json_object_put(high);
}
END_TEST

START_TEST(min_confidence_typo_is_refused)
{
	char path[512], *out = NULL;
	size_t len = 0;
	struct attrib_config c;
	FILE *f, *err = open_memstream(&out, &len);

	snprintf(path, sizeof(path), "%s/attrib.conf", conf_dir);
	f = fopen(path, "w");
	fputs("DrainMinConfidence = certain\n", f);
	fclose(f);
	ck_assert_int_eq(config_load(path, &c, err), -1);
	fclose(err);
	ck_assert_msg(strstr(out, "attrib.conf:1: DrainMinConfidence") != NULL &&
			      strstr(out, "high|medium|low") != NULL,
		      "%s", out);
	free(out);
	config_free(&c);
}
END_TEST

/* ---- from the engine's result to a decision ---- */

START_TEST(engine_result_carries_the_class)
{
	char err[256];
	struct attrib_config c;
	struct cluster cl = { .nodes = { HEALTHY("node-02") } };
	struct drain_decisions d;
	struct json_object *r = attrib_analyze(shipped, SRCDIR "/examples/xid149-nvlink", NULL, err,
					       sizeof(err));
	ck_assert_msg(r != NULL, "%s", err);
	load_conf(&c, "DrainPolicy = suggest\nDrainClasses = nvlink:auto\n");
	drain_policy_decide(&c, r, 0, fake_state, &cl, &d);
	ck_assert_str_eq(d.class_name, "nvlink");
	ck_assert_int_eq(d.n, 1);
	ck_assert_str_eq(d.v[0].node, "node-02");
	ck_assert_int_eq(d.v[0].decision, DECIDE_DRAIN);
	config_free(&c);
	json_object_put(r);
}
END_TEST

/* The engine's confidence decides: a node slurmctld declared down, which
 * only the scheduler and the job's output report (the node sent nothing),
 * is a medium-confidence drain, refused by default and drained once
 * DrainMinConfidence is lowered; a GPU's Xid 79 in the node's kernel log
 * is high */
START_TEST(engine_confidence_decides)
{
	char err[256];
	struct attrib_config c;
	struct cluster cl = { .nodes = { HEALTHY("c7-gpu-03"), HEALTHY("n042") } };
	struct drain_decisions d;
	struct json_object *down = attrib_analyze(shipped, SRCDIR "/t/cases/node-fail-missing-dir", NULL, err,
						  sizeof(err)),
			   *xid = attrib_analyze(shipped, SRCDIR "/t/cases/xid79-aer-fqdn", NULL, err,
						 sizeof(err));
	struct result_view v;

	ck_assert_msg(down && xid, "%s", err);
	result_view_of(down, &v);
	ck_assert_str_eq(v.confidence, "medium");
	load_conf(&c, "DrainPolicy = auto\nDrainClasses = node-down, gpu-hardware\n");
	drain_policy_decide(&c, down, 0, fake_state, &cl, &d);
	ck_assert_int_eq(d.n, 1);
	ck_assert_str_eq(d.v[0].node, "c7-gpu-03");
	ck_assert_int_eq(d.v[0].decision, DECIDE_REFUSE);
	ck_assert_str_eq(d.v[0].why, "confidence medium is below DrainMinConfidence (high)");
	drain_policy_decide(&c, xid, 0, fake_state, &cl, &d);
	ck_assert_int_eq(d.n, 1);
	ck_assert_str_eq(d.v[0].node, "n042");
	ck_assert_int_eq(d.v[0].decision, DECIDE_DRAIN);
	config_free(&c);
	load_conf(&c, "DrainPolicy = auto\nDrainClasses = node-down\nDrainMinConfidence = medium\n");
	drain_policy_decide(&c, down, 0, fake_state, &cl, &d);
	ck_assert_int_eq(d.v[0].decision, DECIDE_DRAIN);
	config_free(&c);
	json_object_put(down);
	json_object_put(xid);
}
END_TEST

/* DrainClasses not set: the classes the shipped rules mark
 * drain_by_default, and no other */
START_TEST(default_classes_come_from_the_rules)
{
	const char *names[8];
	struct attrib_config c;
	bool listed;
	int n = attrib_catalog_drain_classes(shipped, names, 8);

	ck_assert_int_eq(n, 3);
	ck_assert_str_eq(names[0], "gpu-hardware");
	ck_assert_str_eq(names[1], "gpu-memory");
	ck_assert_str_eq(names[2], "nvlink");
	load_conf(&c, "DrainPolicy = suggest\n");
	ck_assert_int_eq(drain_class_mode(&c, "gpu-memory", &listed), DRAIN_MODE_SUGGEST);
	ck_assert(listed);
	ck_assert_int_eq(drain_class_mode(&c, "node-down", &listed), DRAIN_MODE_OFF);
	ck_assert(!listed);
	config_free(&c);
	/* set: only what it names */
	load_conf(&c, "DrainPolicy = suggest\nDrainClasses = node-down\n");
	ck_assert_int_eq(drain_class_mode(&c, "gpu-memory", &listed), DRAIN_MODE_OFF);
	ck_assert(!listed);
	ck_assert_int_eq(drain_class_mode(&c, "node-down", &listed), DRAIN_MODE_SUGGEST);
	config_free(&c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("drain");
	TCase *t = tcase_create("policy");
	int rc;

	/* what attrib serve does with its catalog: the default DrainClasses */
	shipped = attrib_catalog_load(SRCDIR "/rules", test_options(), stderr);
	if (!shipped)
		return 1;
	drain_policy_set_defaults(shipped);

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, class_modes);
	tcase_add_test(t, class_mode_typo_is_refused);
	tcase_add_test(t, policy_off_refuses_without_asking_slurm);
	tcase_add_test(t, policy_suggest_and_auto);
	tcase_add_test(t, policy_refuses_classes_not_listed_and_no_class);
	tcase_add_test(t, policy_decides_nothing_without_drain_actions);
	tcase_add_test(t, policy_leaves_drained_nodes_and_unknown_state);
	tcase_add_test(t, policy_per_hour_limit);
	tcase_add_test(t, fraction_rounding);
	tcase_add_test(t, policy_fraction_limit);
	tcase_add_test(t, policy_max_nodes);
	tcase_add_test(t, reason_is_short_and_inert);
	tcase_add_test(t, store_counts_drains_done);
	tcase_add_test(t, engine_result_carries_the_class);
	tcase_add_test(t, policy_min_confidence);
	tcase_add_test(t, min_confidence_typo_is_refused);
	tcase_add_test(t, engine_confidence_decides);
	tcase_add_test(t, default_classes_come_from_the_rules);
	suite_add_tcase(s, t);
	log_set_level(LOGL_ERROR);
	rc = run_suite(s);
	attrib_catalog_free(shipped);
	return rc;
}
