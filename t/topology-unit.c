/* The topology reader (common/topology.c) and the host lists it expands
 * (common/hostlist.c): Slurm's syntax, nesting, and input it must refuse
 * with a reason rather than crash on. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hostlist.h"
#include "topology.h"

static struct topology *conf(const char *text, char *err)
{
	return topology_parse(text, strlen(text), 0, err, 256);
}

static struct topology *yaml(const char *text, char *err)
{
	return topology_parse(text, strlen(text), 1, err, 256);
}

struct names {
	char v[16][64];
	int n;
};

static bool keep(void *arg, const char *name)
{
	struct names *l = arg;

	if (l->n >= 16)
		return false;
	snprintf(l->v[l->n++], 64, "%s", name);
	return true;
}

START_TEST(hostlist_forms)
{
	struct names l = { 0 };

	ck_assert(hostlist_each("node-[01-03,07],gpu1", 100, keep, &l));
	ck_assert_int_eq(l.n, 5);
	ck_assert_str_eq(l.v[0], "node-01");
	ck_assert_str_eq(l.v[3], "node-07");
	ck_assert_str_eq(l.v[4], "gpu1");
	l.n = 0; /* two bracket groups multiply, as Slurm's names do */
	ck_assert(hostlist_each("r[1-2]-n[8-9]", 100, keep, &l));
	ck_assert_int_eq(l.n, 4);
	ck_assert_str_eq(l.v[1], "r1-n9");
	ck_assert_str_eq(l.v[2], "r2-n8");
	l.n = 0;
	ck_assert(!hostlist_each("n[3-", 100, keep, &l));
	ck_assert(!hostlist_each("n[5-3]", 100, keep, &l));
	ck_assert(!hostlist_each("n[a-b]", 100, keep, &l));
	ck_assert(!hostlist_each("n[[1]]", 100, keep, &l));
	ck_assert(!hostlist_each("n1]", 100, keep, &l));
	ck_assert(!hostlist_each("n[1-100000]", 4096, keep, &l)); /* bounded */
	ck_assert(!hostlist_each("", 100, keep, &l));
	/* a number at the end of long's range: refused, never overflowed */
	ck_assert(!hostlist_each("n[9223372036854775807]", 100, keep, &l));
	ck_assert(!hostlist_each("n[9223372036854775806-9223372036854775807]", 100, keep, &l));
}
END_TEST

START_TEST(conf_tree)
{
	char err[256];
	struct topology *t = conf("# Slurm's tree\n"
				  "SwitchName=leaf1 Nodes=node-[01-02]   # first leaf\n"
				  "switchname=leaf2 nodes=node-[03-04] LinkSpeed=100\n"
				  "SwitchName=spine \\\n"
				  "   Switches=leaf[1-2]\n"
				  "SwitchName=\"odd\\#name\" Nodes=\"gpu7\"\n",
				  err);

	ck_assert_msg(t, "%s", err);
	ck_assert_int_eq(topology_switches(t), 4);
	ck_assert_int_eq(topology_nodes(t), 5);
	ck_assert_str_eq(topology_leaf(t, "node-01"), "leaf1");
	ck_assert_str_eq(topology_leaf(t, "node-04"), "leaf2");
	ck_assert_str_eq(topology_leaf(t, "gpu7"), "odd#name");
	ck_assert_ptr_null(topology_leaf(t, "node-05"));
	ck_assert_str_eq(topology_parent(t, "leaf2"), "spine");
	ck_assert_ptr_null(topology_parent(t, "spine"));
	ck_assert_int_eq(topology_leaf_size(t, "leaf1"), 2);
	ck_assert_int_eq(topology_leaf_size(t, "spine"), 0);
	ck_assert_str_eq(topology_note(t), "");
	topology_free(t);
}
END_TEST

START_TEST(conf_multi_rail)
{
	char err[256];
	struct topology *t = conf("SwitchName=railA Nodes=n[1-2]\nSwitchName=railB Nodes=n[1-2]\n", err);

	ck_assert_msg(t, "%s", err);
	/* which rail failed is not the node's to tell */
	ck_assert_ptr_null(topology_leaf(t, "n1"));
	ck_assert_int_eq(topology_leaf_size(t, "railA"), 0);
	ck_assert_ptr_nonnull(strstr(topology_note(t), "several leaf switches"));
	topology_free(t);
}
END_TEST

static void refused(struct topology *t, const char *err, const char *what)
{
	ck_assert_ptr_null(t);
	ck_assert_msg(strstr(err, what), "\"%s\" does not say \"%s\"", err, what);
}

START_TEST(conf_bad)
{
	char err[256];

	refused(conf("SwitchName=s1 Nodes=n1 Colour=red\n", err), err, "unknown key Colour");
	refused(conf("Nodes=n1\n", err), err, "before SwitchName");
	refused(conf("SwitchName=s1 Nodes=n[1-\n", err), err, "not a host list");
	refused(conf("SwitchName=s1 Switches=s2\nSwitchName=s2 Switches=s1\n", err), err, "loop");
	refused(conf("SwitchName=s1 Switches=s1\n", err), err, "its own child");
	refused(conf("SwitchName=s1 Switches=s3\n", err), err, "not defined");
	refused(conf("SwitchName=s1 Nodes=n1\nSwitchName=s1 Nodes=n2\n", err), err, "defined twice");
	refused(conf("SwitchName=a Nodes=n1\nSwitchName=b Switches=a\nSwitchName=c Switches=a\n", err), err,
		"two parents");
	refused(conf("SwitchName=s1\n", err), err, "neither Nodes nor Switches");
	refused(conf("# nothing\n\n", err), err, "no switch");
	refused(conf("Include /etc/slurm/more.conf\n", err), err, "Include");
	refused(conf("SwitchName=s1 Nodes=\"n1\n", err), err, "quote");
	refused(conf("SwitchName=s Nodes=n[000000-999999]\n", err), err, "at most");
	/* a NUL byte is read as a blank, never as the end of the text */
	struct topology *t = topology_parse("SwitchName=s\0Nodes=n1", 21, 0, err, sizeof(err));
	ck_assert_msg(t, "%s", err);
	ck_assert_str_eq(topology_leaf(t, "n1"), "s");
	topology_free(t);
}
END_TEST

START_TEST(conf_huge)
{
	char err[256];
	size_t n = TOPOLOGY_MAX_BYTES + 10;
	char *big = malloc(n);

	memset(big, '#', n);
	refused(topology_parse(big, n, 0, err, sizeof(err)), err, "larger than");
	free(big);
	ck_assert_ptr_null(topology_load("/nonexistent/topology.conf", err, sizeof(err)));
	ck_assert(*err);
}
END_TEST

START_TEST(yaml_tree)
{
	char err[256];
	struct topology *t = yaml("---\n"
				  "- topology: blocks\n"
				  "  block:\n"
				  "    block_sizes: [4]\n"
				  "- topology: rings\n"
				  "  ring:\n"
				  "    rings:\n"
				  "      - ring: ring0\n"
				  "        nodes: node-[01-08]\n"
				  "- topology: fabric\n"
				  "  cluster_default: true\n"
				  "  tree:\n"
				  "    switches:\n"
				  "      - switch: spine\n"
				  "        children: leaf[1-2]\n"
				  "      - switch: leaf1\n"
				  "        nodes: node-[01-02]\n"
				  "      - switch: leaf2\n"
				  "        nodes: node-[03-04]\n",
				  err);

	ck_assert_msg(t, "%s", err);
	ck_assert_str_eq(topology_leaf(t, "node-02"), "leaf1");
	ck_assert_str_eq(topology_leaf(t, "node-03"), "leaf2");
	ck_assert_str_eq(topology_parent(t, "leaf1"), "spine");
	topology_free(t);
	refused(yaml("- topology: b\n  block:\n    block_sizes: [4]\n", err), err, "not a tree");
	refused(yaml("- topology: t\n  tree:\n    switches:\n      - switch: s\n        colour: red\n", err),
		err, "unknown key colour");
	refused(yaml("- topology: t\n  tree: [\n", err), err, "line");
	refused(yaml("topology: t\n", err), err, "not a list");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("topology");
	TCase *t = tcase_create("parse");
	SRunner *r;
	int failed;

	tcase_add_test(t, hostlist_forms);
	tcase_add_test(t, conf_tree);
	tcase_add_test(t, conf_multi_rail);
	tcase_add_test(t, conf_bad);
	tcase_add_test(t, conf_huge);
	tcase_add_test(t, yaml_tree);
	suite_add_tcase(s, t);
	r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
