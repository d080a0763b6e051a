/* attrib label: what the admin found of a stored diagnosis, recorded in
 * the store (store/label.h) beside it; and attrib report --accuracy, what
 * those labels say of attrib on this cluster. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "command.h"
#include "contract.h"
#include "jsonread.h"
#include "label.h"
#include "paths.h"

void usage_label(FILE *out)
{
	fputs("Usage: attrib label JOBID [--attempt N] (--confirm | --sub-domain X\n"
	      "                    [--culprit NODE]... [--cause CODE]) [--note TEXT]\n"
	      "                    [--config FILE]\n"
	      "\n"
	      "Records what you found of a job's stored diagnosis (its latest attempt\n"
	      "unless --attempt): --confirm, the diagnosis is right; or the right\n"
	      "sub-domain, culprit nodes (none: no node to blame) and cause.  The\n"
	      "diagnosis stays as attrib made it; every label is kept with who and\n"
	      "when, and the latest counts (attrib show, attrib report --accuracy,\n"
	      "attrib export).\n"
	      "\n"
	      "  --confirm         the diagnosis is right (its verdict is recorded)\n"
	      "  --sub-domain X    the right sub-domain (InfraHW, UserCode, ...)\n"
	      "  --culprit NODE    a culprit node (repeat for several)\n"
	      "  --cause CODE      the right root cause, a code of the rule catalog\n"
	      "  --note TEXT       a note (a ticket, what was found)\n"
	      "Exit status: 0 recorded; 1 usage; 4 no stored result, or the store\n"
	      "cannot be written.\n",
	      out);
}

int cmd_label(struct ctx *x)
{
	const char *job = x->args[0], *sd = x->f.sub_domain;
	const char *user = getenv("SUDO_USER") ? getenv("SUDO_USER") : getenv("USER");
	char by[160], culprits[DRAIN_MAX_NODES * (CONTRACT_NAME_MAX + 1) + 1];
	long got = -1;
	char *text;

	/* one verdict: confirmed, or the admin's own */
	if (x->confirm == (sd != NULL) || (x->confirm && (x->nforce || x->cause))) {
		usage_label(stderr);
		return EXIT_USAGE;
	}
	if (sd && sub_domain_index(sd) < 0) {
		fprintf(stderr, "attrib: --sub-domain %s: not a sub-domain (", sd);
		for (int i = 0; i < SUB_DOMAIN_N; i++)
			fprintf(stderr, "%s%s", i ? ", " : "", contract_sub_domains[i]);
		fprintf(stderr, ")\n");
		return EXIT_USAGE;
	}
	if (!(text = store_get(x->s, job, x->attempt, &got))) {
		fprintf(stderr, "attrib: no stored result for job %s\n", job);
		return EXIT_STORE;
	}
	free(text);
	/* the cause, a code of the catalog the site runs (RulesDir), when one
	 * can be loaded here: a label naming a code nobody has is no help to
	 * anyone reading it */
	if (x->cause) {
		struct attrib_options opt = attrib_options_env(getenv);
		attrib_catalog *cat = attrib_catalog_load(rules_path(x->conf.rules_dir), &opt, stderr);
		bool known = !cat || attrib_catalog_has_code(cat, x->cause);

		if (!cat)
			fprintf(stderr,
				"attrib: the rule catalog %s cannot be loaded: --cause %s not checked\n",
				rules_path(x->conf.rules_dir), x->cause);
		attrib_catalog_free(cat);
		if (!known) {
			fprintf(stderr, "attrib: --cause %s: no rule of the catalog %s has this code\n",
				x->cause, rules_path(x->conf.rules_dir));
			return EXIT_USAGE;
		}
	}
	label_join_nodes((const char **)x->force, x->nforce, culprits, sizeof(culprits));
	snprintf(by, sizeof(by), "attrib label (uid %d%s%.64s)", (int)getuid(), user ? ", " : "",
		 user ? user : "");
	struct label_row l = { .job_id = job,
			       .attempt = got,
			       .by = by,
			       .created = (long long)time(NULL),
			       .confirm = x->confirm,
			       .sub_domain = sd,
			       .culprits = culprits,
			       .cause = x->cause,
			       .note = x->note };
	const char *why = label_invalid(&l);
	if (why) {
		fprintf(stderr, "attrib: the label of job %s: %s\n", job, why);
		return EXIT_USAGE;
	}
	if (store_add_label(x->s, &l) != 1) {
		fprintf(stderr, "attrib: cannot record the label of job %s\n", job);
		return EXIT_STORE;
	}
	struct json_object *o = NULL;
	store_latest_label(x->s, job, got, &o);
	json_clean_strings(o);
	printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return 0;
}

static const char *str(struct json_object *o, const char *k)
{
	struct json_object *v;

	return json_object_object_get_ex(o, k, &v) && v ? json_object_get_string(v) : "-";
}

static void print_row(struct json_object *e, const char *key)
{
	char name[40];

	snprintf(name, sizeof(name), "%s", str(e, key));
	for (char *p = name; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
	printf("  %-24s %7s %8s %8s %8s %9s %6s\n", name, str(e, "results"), str(e, "labelled"),
	       str(e, "sub_domain_agreement"), str(e, "culprit_agreement"), str(e, "precision"),
	       str(e, "false_drains"));
}

int report_accuracy(struct ctx *x)
{
	struct json_object *r, *a;

	if (x->by && !accuracy_by_ok(x->by)) {
		fprintf(stderr, "attrib: --by %s: expected one of " ACCURACY_BY_LIST "\n", x->by);
		return EXIT_USAGE;
	}
	if (!(r = store_accuracy(x->s, x->f.since, 0, x->by))) {
		fprintf(stderr, "attrib: cannot read the store\n");
		return EXIT_STORE;
	}
	json_clean_strings(r);
	if (x->json) {
		printf("%s\n",
		       json_object_to_json_string_ext(r,
						      JSON_C_TO_STRING_PRETTY |
							      JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(r);
		return 0;
	}
	printf("Diagnoses: %s, labelled: %s (share %s)\n", str(r, "results"), str(r, "labelled"),
	       str(r, "labelled_share"));
	printf("Agreement with the labels: sub-domain %s, culprit nodes %s, both %s\n",
	       str(r, "sub_domain_agreement"), str(r, "culprit_agreement"), str(r, "precision"));
	printf("Nodes drained for labelled jobs: %s, cleared by the label (false drains): %s\n",
	       str(r, "drained_nodes"), str(r, "false_drains"));
	printf("Unattributed, labelled since: %s\n", str(r, "unattributed_labelled"));
	printf("\nPer rule (root cause code):\n  %-24s %7s %8s %8s %8s %9s %6s\n", "RULE", "JOBS", "LABELLED",
	       "SUB_DOM", "CULPRITS", "PRECISION", "FALSE");
	json_object_object_get_ex(r, "rules", &a);
	for (size_t i = 0; i < json_object_array_length(a); i++)
		print_row(json_object_array_get_idx(a, i), "rule");
	if (x->by && json_object_object_get_ex(r, "groups", &a)) {
		printf("\nBy %s:\n  %-24s %7s %8s %8s %8s %9s %6s\n", x->by, "", "JOBS", "LABELLED",
		       "SUB_DOM", "CULPRITS", "PRECISION", "FALSE");
		for (size_t i = 0; i < json_object_array_length(a); i++)
			print_row(json_object_array_get_idx(a, i), x->by);
	}
	json_object_put(r);
	return 0;
}

/* attrib report: hours lost, or with --accuracy what the labels say */
int cmd_report_or_accuracy(struct ctx *x)
{
	return x->accuracy ? report_accuracy(x) : cmd_report(x);
}

void usage_report_or_accuracy(FILE *out)
{
	usage_report(out);
	fputs("\n"
	      "Usage: attrib report --accuracy [--since AGE|DATE] [--by DIMENSION]\n"
	      "                     [--json] [--config FILE]\n"
	      "\n"
	      "How right attrib is on this cluster, by the admins' labels (attrib\n"
	      "label): of the diagnoses made since (default 30d), the share labelled,\n"
	      "the agreement of sub-domain and culprit nodes with the latest label,\n"
	      "the nodes attrib drained that the label clears (false drains: not among\n"
	      "its culprits, or not an infrastructure fault), the unattributed jobs\n"
	      "labelled since, and each rule's precision (labelled jobs it got right).\n"
	      "  --by DIMENSION    groups: sub_domain, rule, node, partition\n"
	      "Exit status: 0 printed; 1 usage; 4 the store cannot be read.\n",
	      out);
}
