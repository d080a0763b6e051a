/* attrib eval DIR: attrib scored on a directory of labelled cases.  Every
 * DIR/CASE/ holding job.json and expected.json is one case.  Each is
 * analysed in this process with the catalog loaded once, and only then is
 * its expected.json read: the label is never an input of the diagnosis.
 * The figures are one JSON object (--json prints it; doc/formats.md, "The
 * evaluation"); the text is printed from that object, so both say the
 * same. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "attrib.h"
#include "command.h"
#include "contract.h"
#include "jsonread.h"

#define LABEL_MAX_BYTES (1 << 20)
#define LABEL_DEPTH 16
#define NO_ROOT "(no root cause)"

void usage_eval(FILE *out)
{
	fputs("Usage: attrib eval DIR [--json] [--min-accuracy X] [--rules DIR]\n"
	      "\n"
	      "Scores attrib on a directory of labelled cases: every DIR/CASE/ holding\n" CASE_JOB
	      " and expected.json is one case (doc/formats.md, \"The evaluation\").\n"
	      "Each case is analysed as `attrib analyze` would, without its expected.json;\n"
	      "it is correct when the answered sub-domain is one of expected.json's\n"
	      "sub_domain and the culprit nodes are its culprit_nodes (as a set), or the\n"
	      "same holds for one of its `also` answers.  A drain of a node outside its\n"
	      "drain_ok is a false drain.\n"
	      "\n"
	      "Prints the accuracy, the false drains, the share answered unattributed,\n"
	      "precision and recall per sub-domain, the confusion matrix (expected first\n"
	      "label by answer), precision per rule (the root cause's code), accuracy\n"
	      "per family (expected.json's family, else the case name up to its first\n"
	      "'-') and the wrong cases.  The last line is always\n"
	      "  eval: C/N correct (P%), F false drains, U unattributed\n"
	      "\n"
	      "  --json            the same figures as one JSON object\n"
	      "  --min-accuracy X  fail (exit 1) when the accuracy is below X (0 to 1)\n"
	      "                    or a case has a false drain\n"
	      "  --rules DIR       the rule catalog to score (as before the command)\n"
	      "\n"
	      "Exit status: 0 scored; 1 usage, or below --min-accuracy or a false drain\n"
	      "when it is given; 2 DIR holds no case, cannot be read, or a case's\n"
	      "expected.json is invalid (one line on stderr says which); 3 the rule\n"
	      "catalog is invalid.\n",
	      out);
}

static struct json_object *get(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;

	json_object_object_get_ex(o, k, &v);
	return v;
}

static int num(struct json_object *o, const char *k)
{
	return json_object_get_int(get(o, k));
}

static bool is_array(struct json_object *v)
{
	return json_object_is_type(v, json_type_array);
}

/* absent, or an array of strings */
static bool names_ok(struct json_object *v)
{
	for (size_t i = 0; is_array(v) && i < json_object_array_length(v); i++)
		if (!json_object_is_type(json_object_array_get_idx(v, i), json_type_string))
			return false;
	return !v || is_array(v);
}

static bool has(struct json_object *names, const char *s)
{
	for (size_t i = 0; s && i < result_array_len(names); i++) {
		const char *n = result_array_str(names, i);

		if (n && !strcmp(n, s))
			return true;
	}
	return false;
}

static bool same_set(struct json_object *a, struct json_object *b)
{
	for (size_t i = 0; i < result_array_len(a); i++)
		if (!has(b, result_array_str(a, i)))
			return false;
	for (size_t i = 0; i < result_array_len(b); i++)
		if (!has(a, result_array_str(b, i)))
			return false;
	return true;
}

/* An answer of expected.json ({sub_domain, culprit_nodes}): its sub_domain
 * a non-empty array of sub-domains, its culprits absent or names.  NULL,
 * or what is wrong. */
static const char *answer_invalid(struct json_object *a)
{
	struct json_object *sd = get(a, "sub_domain");

	if (!json_object_is_type(a, json_type_object))
		return "an answer is not an object";
	if (!is_array(sd) || !json_object_array_length(sd))
		return "sub_domain is not a non-empty array";
	for (size_t i = 0; i < json_object_array_length(sd); i++)
		if (sub_domain_index(result_array_str(sd, i)) < 0)
			return "sub_domain names something that is not a sub-domain";
	return names_ok(get(a, "culprit_nodes")) ? NULL : "culprit_nodes is not an array of names";
}

static const char *label_invalid(struct json_object *exp)
{
	const char *why = answer_invalid(exp);
	struct json_object *also = get(exp, "also"), *fam = get(exp, "family");

	if (why)
		return why;
	if (!names_ok(get(exp, "drain_ok")))
		return "drain_ok is not an array of names";
	if (fam && !json_object_is_type(fam, json_type_string))
		return "family is not a string";
	if (also && !is_array(also))
		return "also is not an array";
	for (size_t i = 0; also && i < json_object_array_length(also); i++)
		if ((why = answer_invalid(json_object_array_get_idx(also, i))))
			return why;
	return NULL;
}

static bool answers(struct json_object *a, const struct result_view *v)
{
	return has(get(a, "sub_domain"), v->sub_domain) &&
		same_set(get(a, "culprit_nodes"), v->culprit_nodes);
}

bool eval_correct(struct json_object *exp, struct json_object *result, const char **invalid)
{
	struct json_object *also = get(exp, "also");
	struct result_view v;
	bool ok;

	if ((*invalid = label_invalid(exp)))
		return false;
	result_view_of(result, &v);
	ok = answers(exp, &v);
	for (size_t i = 0; also && !ok && i < json_object_array_length(also); i++)
		ok = answers(json_object_array_get_idx(also, i), &v);
	return ok;
}

static struct json_object *copy_names(struct json_object *a)
{
	struct json_object *o = json_object_new_array();

	for (size_t i = 0; i < result_array_len(a); i++)
		if (result_array_str(a, i))
			json_object_array_add(o, json_object_new_string(result_array_str(a, i)));
	return o;
}

/* One case scored: its entry of "results".  NULL with a reason when its
 * expected.json is unusable. */
static struct json_object *score(const attrib_catalog *cat, const char *dir, const char *name, char *err,
				 size_t errlen)
{
	char path[4096], why[512];
	struct json_object *r, *exp, *o, *e, *g, *fd, *also;
	struct result_view v;
	const char *node, *action, *fam, *invalid;
	bool ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	/* the diagnosis first: expected.json is not read before it is made */
	if (!(r = attrib_analyze(cat, path, NULL, why, sizeof(why)))) {
		fprintf(stderr, "attrib: %s: %s\n", path, why);
		r = result_unusable(name, NULL, why);
	}
	snprintf(path, sizeof(path), "%s/%s/expected.json", dir, name);
	if (!(exp = json_read_file(path, LABEL_MAX_BYTES, LABEL_DEPTH, why, sizeof(why)))) {
		snprintf(err, errlen, "%s: %s", path, why);
		json_object_put(r);
		return NULL;
	}
	if (label_invalid(exp)) {
		snprintf(err, errlen, "%s: %s", path, label_invalid(exp));
		json_object_put(exp);
		json_object_put(r);
		return NULL;
	}
	result_view_of(r, &v);
	also = get(exp, "also");
	ok = eval_correct(exp, r, &invalid); /* (checked above) */
	fd = json_object_new_array();
	for (size_t i = 0; i < result_array_len(v.actions); i++)
		if (result_action_at(&v, i, &node, &action) && !strcmp(action, "drain") &&
		    !has(get(exp, "drain_ok"), node))
			json_object_array_add(fd, json_object_new_string(node));

	o = json_object_new_object();
	json_object_object_add(o, "case", json_object_new_string(name));
	fam = json_str(exp, "family");
	json_object_object_add(o, "family",
			       fam ? json_object_new_string(fam)
				   : json_object_new_string_len(name, (int)strcspn(name, "-")));
	json_object_object_add(o, "correct", json_object_new_boolean(ok));
	e = json_object_new_object();
	json_object_object_add(e, "sub_domain", copy_names(get(exp, "sub_domain")));
	json_object_object_add(e, "culprit_nodes", copy_names(get(exp, "culprit_nodes")));
	if (also)
		json_object_object_add(e, "also", json_object_get(also));
	json_object_object_add(o, "expected", e);
	g = json_object_new_object();
	json_object_object_add(g, "sub_domain", json_object_new_string(v.sub_domain ? v.sub_domain : ""));
	json_object_object_add(g, "culprit_nodes", copy_names(v.culprit_nodes));
	json_object_object_add(g, "rule", v.root_code ? json_object_new_string(v.root_code) : NULL);
	json_object_object_add(o, "got", g);
	json_object_object_add(o, "false_drains", fd);
	json_object_put(exp);
	json_object_put(r);
	return o;
}

/* groups[key] (an object {cases, correct}) counted once more */
static void tally(struct json_object *groups, const char *key, bool ok)
{
	struct json_object *t = get(groups, key);

	if (!t) {
		t = json_object_new_object();
		json_object_object_add(t, "cases", json_object_new_int(0));
		json_object_object_add(t, "correct", json_object_new_int(0));
		json_object_object_add(groups, key, t);
	}
	json_object_int_inc(get(t, "cases"), 1);
	json_object_int_inc(get(t, "correct"), ok);
}

static int by_cases_then_name(const void *a, const void *b)
{
	struct json_object *x = *(struct json_object *const *)a, *y = *(struct json_object *const *)b;

	if (num(x, "cases") != num(y, "cases"))
		return num(y, "cases") - num(x, "cases");
	return strcmp(json_str(x, "name"), json_str(y, "name"));
}

/* groups as an array of {NAME: key, cases, correct, RATE}, largest first */
static struct json_object *group_list(struct json_object *groups, const char *name, const char *rate)
{
	struct json_object *arr = json_object_new_array();

	json_object_object_foreach (groups, k, t) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "name", json_object_new_string(k));
		json_object_object_add(o, "cases", json_object_new_int(num(t, "cases")));
		json_object_object_add(o, "correct", json_object_new_int(num(t, "correct")));
		json_object_array_add(arr, o);
	}
	json_object_array_sort(arr, by_cases_then_name);
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		struct json_object *o = json_object_array_get_idx(arr, i);

		json_object_object_add(o, name, json_object_new_string(json_str(o, "name")));
		json_object_object_del(o, "name");
		json_object_object_add(o, rate, json_ratio(num(o, "correct"), num(o, "cases")));
	}
	return arr;
}

/* The figures of the scored cases (results: an array of score()'s) */
static struct json_object *figures(const char *dir, const char *catalog, struct json_object *results)
{
	int n = (int)json_object_array_length(results), correct = 0, unattributed = 0;
	int exp_n[SUB_DOMAIN_N] = { 0 }, exp_ok[SUB_DOMAIN_N] = { 0 }, got_n[SUB_DOMAIN_N] = { 0 },
	    got_ok[SUB_DOMAIN_N] = { 0 }, conf[SUB_DOMAIN_N][SUB_DOMAIN_N] = { { 0 } };
	struct json_object *s = json_object_new_object(), *fds = json_object_new_array(),
			   *rules = json_object_new_object(), *fams = json_object_new_object(),
			   *sds = json_object_new_array(), *cm = json_object_new_object();

	for (int i = 0; i < n; i++) {
		struct json_object *c = json_object_array_get_idx(results, i), *fd = get(c, "false_drains");
		const char *got = json_str(get(c, "got"), "sub_domain"),
			   *rule = json_str(get(c, "got"), "rule");
		int w = sub_domain_index(result_array_str(get(get(c, "expected"), "sub_domain"), 0));
		int g = sub_domain_index(got);
		bool ok = json_object_get_boolean(get(c, "correct"));

		if (g < 0) /* not a sub-domain: what the engine never answers */
			g = sub_domain_index("unattributed");
		correct += ok;
		unattributed += !strcmp(contract_sub_domains[g], "unattributed");
		exp_n[w]++, exp_ok[w] += ok, got_n[g]++, got_ok[g] += ok, conf[w][g]++;
		tally(rules, rule ? rule : NO_ROOT, ok);
		tally(fams, json_str(c, "family"), ok);
		for (size_t k = 0; k < result_array_len(fd); k++) {
			struct json_object *o = json_object_new_object();

			json_object_object_add(o, "case", json_object_new_string(json_str(c, "case")));
			json_object_object_add(o, "node", json_object_new_string(result_array_str(fd, k)));
			json_object_array_add(fds, o);
		}
	}
	for (int d = 0; d < SUB_DOMAIN_N; d++) {
		struct json_object *o, *row;

		if (!exp_n[d] && !got_n[d])
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "sub_domain", json_object_new_string(contract_sub_domains[d]));
		json_object_object_add(o, "expected", json_object_new_int(exp_n[d]));
		json_object_object_add(o, "expected_correct", json_object_new_int(exp_ok[d]));
		json_object_object_add(o, "recall", json_ratio(exp_ok[d], exp_n[d]));
		json_object_object_add(o, "answered", json_object_new_int(got_n[d]));
		json_object_object_add(o, "answered_correct", json_object_new_int(got_ok[d]));
		json_object_object_add(o, "precision", json_ratio(got_ok[d], got_n[d]));
		json_object_array_add(sds, o);
		if (!exp_n[d])
			continue;
		row = json_object_new_object();
		for (int k = 0; k < SUB_DOMAIN_N; k++)
			if (conf[d][k])
				json_object_object_add(row, contract_sub_domains[k],
						       json_object_new_int(conf[d][k]));
		json_object_object_add(cm, contract_sub_domains[d], row);
	}
	json_object_object_add(s, "dir", json_object_new_string(dir));
	json_object_object_add(s, "catalog", json_object_new_string(catalog));
	json_object_object_add(s, "cases", json_object_new_int(n));
	json_object_object_add(s, "correct", json_object_new_int(correct));
	json_object_object_add(s, "accuracy", json_ratio(correct, n));
	json_object_object_add(s, "false_drains", fds);
	json_object_object_add(s, "unattributed", json_object_new_int(unattributed));
	json_object_object_add(s, "unattributed_share", json_ratio(unattributed, n));
	json_object_object_add(s, "sub_domains", sds);
	json_object_object_add(s, "confusion", cm);
	json_object_object_add(s, "rules", group_list(rules, "rule", "precision"));
	json_object_object_add(s, "families", group_list(fams, "family", "accuracy"));
	json_object_object_add(s, "results", json_object_get(results));
	json_object_put(rules);
	json_object_put(fams);
	return s;
}

/* "c/n (p%)", or "-" when n is 0 */
static const char *frac(int c, int n, char *buf, size_t len)
{
	if (!n)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%d/%d (%.1f%%)", c, n, 100.0 * c / n);
	return buf;
}

static void print_names(struct json_object *a, const char *sep)
{
	for (size_t i = 0; i < result_array_len(a); i++)
		printf("%s%s", i ? sep : "", result_array_str(a, i));
}

/* "SUB|SUB [node,node]" */
static void print_answer(struct json_object *sd, struct json_object *culprits)
{
	if (json_object_is_type(sd, json_type_string))
		printf("%s", json_object_get_string(sd));
	else
		print_names(sd, "|");
	printf(" [");
	print_names(culprits, ",");
	printf("]");
}

static void print_groups(struct json_object *arr, const char *title, const char *key)
{
	char buf[64];

	printf("\n%-32s correct/cases\n", title);
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		struct json_object *o = json_object_array_get_idx(arr, i);

		printf("  %-30s %s\n", json_str(o, key),
		       frac(num(o, "correct"), num(o, "cases"), buf, sizeof(buf)));
	}
}

static void print_confusion(struct json_object *cm, struct json_object *sds)
{
	int col[SUB_DOMAIN_N], ncol = 0;

	/* the columns: the sub-domains answered, in the contract's order */
	for (size_t i = 0; i < json_object_array_length(sds); i++) {
		struct json_object *o = json_object_array_get_idx(sds, i);

		if (num(o, "answered"))
			col[ncol++] = sub_domain_index(json_str(o, "sub_domain"));
	}
	printf("\nConfusion: rows expected (first label), columns answered\n%-18s", "");
	for (int k = 0; k < ncol; k++)
		printf("%4d", k + 1);
	printf("\n");
	json_object_object_foreach (cm, want, row) {
		printf("  %-16s", want);
		for (int k = 0; k < ncol; k++) {
			int c = num(row, contract_sub_domains[col[k]]);

			if (c)
				printf("%4d", c);
			else
				printf("%4s", ".");
		}
		printf("\n");
	}
	for (int k = 0, w = 0; k < ncol; k++) {
		char item[40];
		int len = snprintf(item, sizeof(item), " %d %s%s", k + 1, contract_sub_domains[col[k]],
				   k + 1 < ncol ? "," : "");

		if (!k || w + len > 79) /* the legend's next line, under its first */
			w = printf("%s", k ? "\n         " : "  columns:");
		w += printf("%s", item);
	}
	printf("\n");
}

static void print_text(struct json_object *s)
{
	struct json_object *fds = get(s, "false_drains"), *sds = get(s, "sub_domains"),
			   *res = get(s, "results");
	int n = num(s, "cases"), nwrong = n - num(s, "correct");
	char b1[64], b2[64];

	printf("attrib eval %s: %d cases, catalog %s\n\n", json_str(s, "dir"), n, json_str(s, "catalog"));
	printf("Accuracy      %s\n", frac(num(s, "correct"), n, b1, sizeof(b1)));
	printf("Unattributed  %s\n", frac(num(s, "unattributed"), n, b1, sizeof(b1)));
	printf("False drains  %zu\n", json_object_array_length(fds));
	for (size_t i = 0; i < json_object_array_length(fds); i++) {
		struct json_object *o = json_object_array_get_idx(fds, i);

		printf("  %s: drain %s\n", json_str(o, "case"), json_str(o, "node"));
	}

	printf("\n%-18s%-20s%s\n", "Sub-domain", "precision", "recall");
	for (size_t i = 0; i < json_object_array_length(sds); i++) {
		struct json_object *o = json_object_array_get_idx(sds, i);

		printf("  %-16s%-20s%s\n", json_str(o, "sub_domain"),
		       frac(num(o, "answered_correct"), num(o, "answered"), b1, sizeof(b1)),
		       frac(num(o, "expected_correct"), num(o, "expected"), b2, sizeof(b2)));
	}
	print_confusion(get(s, "confusion"), sds);
	print_groups(get(s, "rules"), "Rule (the root cause's code)", "rule");
	print_groups(get(s, "families"), "Family", "family");

	printf("\nWrong cases (%d)\n", nwrong);
	for (size_t i = 0; i < json_object_array_length(res); i++) {
		struct json_object *c = json_object_array_get_idx(res, i), *e = get(c, "expected"),
				   *g = get(c, "got"), *also = get(e, "also");

		if (json_object_get_boolean(get(c, "correct")))
			continue;
		printf("  %s\n    expected ", json_str(c, "case"));
		print_answer(get(e, "sub_domain"), get(e, "culprit_nodes"));
		for (size_t k = 0; k < result_array_len(also); k++) {
			printf(" or ");
			print_answer(get(json_object_array_get_idx(also, k), "sub_domain"),
				     get(json_object_array_get_idx(also, k), "culprit_nodes"));
		}
		printf("\n    got      ");
		print_answer(get(g, "sub_domain"), get(g, "culprit_nodes"));
		printf(" by %s\n", json_str(g, "rule") ? json_str(g, "rule") : NO_ROOT);
	}
	printf("\neval: %d/%d correct (%.1f%%), %zu false drains, %d unattributed\n", num(s, "correct"), n,
	       100.0 * num(s, "correct") / n, json_object_array_length(fds), num(s, "unattributed"));
}

static int is_case(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

int cmd_eval(struct ctx *x)
{
	const char *dir = x->args[0];
	struct dirent **list;
	struct json_object *results, *s;
	char catalog[PATH_MAX];
	int n, rc = 0;

	if ((n = scandir(dir, &list, is_case, alphasort)) < 0) {
		fprintf(stderr, "attrib: %s: %s\n", dir, strerror(errno));
		return EXIT_CASE;
	}
	results = json_object_new_array();
	for (int i = 0; i < n; i++) {
		char job[4096], exp[4096], err[4700];
		struct stat st;
		struct json_object *c;

		snprintf(job, sizeof(job), "%s/%s/" CASE_JOB, dir, list[i]->d_name);
		snprintf(exp, sizeof(exp), "%s/%s/expected.json", dir, list[i]->d_name);
		/* a directory of other things (a README, unlabelled cases) is no case */
		if (rc || lstat(job, &st) < 0 || lstat(exp, &st) < 0) {
			free(list[i]);
			continue;
		}
		if ((c = score(x->cat, dir, list[i]->d_name, err, sizeof(err))))
			json_object_array_add(results, c);
		else {
			fprintf(stderr, "attrib: %s\n", err);
			rc = EXIT_CASE;
		}
		free(list[i]);
	}
	free(list);
	if (!rc && !json_object_array_length(results)) {
		fprintf(stderr, "attrib: %s: no case (a directory holding job.json and expected.json)\n",
			dir);
		rc = EXIT_CASE;
	}
	if (rc) {
		json_object_put(results);
		return rc;
	}
	s = figures(dir, realpath(x->rules, catalog) ? catalog : x->rules, results);
	json_object_put(results);
	json_clean_strings(s); /* names and labels are anyone's text */
	if (x->json)
		printf("%s\n",
		       json_object_to_json_string_ext(s,
						      JSON_C_TO_STRING_PRETTY |
							      JSON_C_TO_STRING_NOSLASHESCAPE));
	else
		print_text(s);
	if (x->min_accuracy >= 0 &&
	    (json_object_array_length(get(s, "false_drains")) ||
	     (double)num(s, "correct") / num(s, "cases") < x->min_accuracy))
		rc = EXIT_USAGE;
	json_object_put(s);
	return rc;
}
