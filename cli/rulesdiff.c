/* attrib rules diff: a catalog upgrade checked before it lands.  Every
 * case (a directory of cases, or the store's) is analysed under the old
 * and the new catalog; each job whose verdict changes is listed, marked
 * against its label (expected.json, or the store's latest label): better,
 * worse, or unknown without one.  A labelled job that got worse is the
 * exit status 1, so an upgrade can be refused by a script. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "command.h"
#include "contract.h"
#include "evidence.h"
#include "jsonread.h"
#include "label.h"

/* expected.json's limits, as attrib eval reads it */
#define LABEL_MAX_BYTES (1 << 20)
#define LABEL_DEPTH 16

/* the verdict compared: sub_domain, culprit nodes (as a set), root code */
static void verdict(struct json_object *r, char *out, size_t len)
{
	struct result_view v;
	const char *names[64];
	size_t n = 0, used;

	result_view_of(r, &v);
	for (size_t i = 0; i < result_array_len(v.culprit_nodes) && n < 64; i++)
		if (result_array_str(v.culprit_nodes, i))
			names[n++] = result_array_str(v.culprit_nodes, i);
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			const char *t = names[j];

			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	used = (size_t)snprintf(out, len, "%s [", v.sub_domain ? v.sub_domain : "-");
	for (size_t i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%s", i ? "," : "", names[i]);
	if (used < len)
		snprintf(out + used, len - used, "] %s", v.root_code ? v.root_code : "-");
}

/* the store's latest label of "JOB.ATTEMPT" as expected.json, NULL: none */
static struct json_object *store_expected(store *s, const char *name)
{
	char job[CONTRACT_NAME_MAX + 1];
	const char *dot = strrchr(name, '.');
	struct json_object *label = NULL, *e = NULL;
	char *end;
	long attempt;

	if (!dot || (size_t)(dot - name) > CONTRACT_NAME_MAX)
		return NULL;
	attempt = strtol(dot + 1, &end, 10);
	if (end == dot + 1 || *end)
		return NULL;
	snprintf(job, sizeof(job), "%.*s", (int)(dot - name), name);
	if (store_latest_label(s, job, attempt, &label) == 1)
		e = label_expected_json(label);
	json_object_put(label);
	return e;
}

static int is_case(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

int cmd_rules_diff(struct ctx *x)
{
	char dir[PATH_MAX];
	struct attrib_config conf = { 0 };
	attrib_catalog *from = NULL, *to = NULL;
	struct json_object *out = json_object_new_array();
	struct dirent **list = NULL;
	store *s = NULL;
	int n = 0, rc = 0, cases = 0, worse = 0, better = 0, changed = 0;

	if (!x->from || !x->to || (x->use_store == (x->nargs == 2))) {
		fprintf(stderr, "attrib: rules diff: --from, --to, and DIR or --store\n");
		rc = EXIT_USAGE;
		goto done;
	}
	if (x->use_store) {
		const char *cf = x->config ? x->config : ATTRIB_CONF_DEFAULT;
		char db[PATH_MAX + 16], err[512];

		if (config_load(cf, &conf, stderr) < 0) {
			fprintf(stderr, "attrib: %s is invalid\n", cf);
			rc = EXIT_USAGE;
			goto done;
		}
		snprintf(db, sizeof(db), "%s/attrib.db", conf.state_dir);
		if (!(s = store_open(db, true, err, sizeof(err)))) {
			fprintf(stderr, "attrib: cannot read the store: %s\n", err);
			rc = EXIT_STORE;
			goto done;
		}
		snprintf(dir, sizeof(dir), "%s/cases", conf.state_dir);
	} else {
		snprintf(dir, sizeof(dir), "%s", x->args[1]);
	}
	if (!(from = cli_load_catalog(x->from)) || !(to = cli_load_catalog(x->to))) {
		rc = EXIT_RULES;
		goto done;
	}
	if ((n = scandir(dir, &list, is_case, alphasort)) < 0) {
		fprintf(stderr, "attrib: %s: %s\n", dir, strerror(errno));
		rc = EXIT_CASE;
		n = 0;
		goto done;
	}
	for (int i = 0; i < n; i++) {
		char path[PATH_MAX + 300], why[512], vold[2048], vnew[2048];
		const char *name = list[i]->d_name, *invalid = NULL, *mark = "unknown";
		struct json_object *ro, *rn, *exp = NULL, *o;
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s/" CASE_JOB, dir, name);
		if (lstat(path, &st) < 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		cases++;
		if (!(ro = attrib_analyze(from, path, NULL, why, sizeof(why))))
			ro = result_unusable(name, NULL, why);
		if (!(rn = attrib_analyze(to, path, NULL, why, sizeof(why))))
			rn = result_unusable(name, NULL, why);
		verdict(ro, vold, sizeof(vold));
		verdict(rn, vnew, sizeof(vnew));
		if (strcmp(vold, vnew)) {
			changed++;
			if (s) {
				exp = store_expected(s, name);
			} else {
				snprintf(path, sizeof(path), "%s/%s/expected.json", dir, name);
				if (access(path, F_OK) == 0 &&
				    !(exp = json_read_file(path, LABEL_MAX_BYTES, LABEL_DEPTH, why,
							   sizeof(why))))
					fprintf(stderr, "attrib: %s: %s\n", path, why);
			}
			if (exp) {
				bool was = eval_correct(exp, ro, &invalid),
				     is = eval_correct(exp, rn, &invalid);

				mark = invalid ? "unknown" : was == is ? "same" : is ? "better" : "worse";
				if (invalid)
					fprintf(stderr, "attrib: %s: the label: %s\n", name, invalid);
			}
			worse += !strcmp(mark, "worse");
			better += !strcmp(mark, "better");
			o = json_object_new_object();
			json_object_object_add(o, "case", json_object_new_string(name));
			json_object_object_add(o, "from", json_object_new_string(vold));
			json_object_object_add(o, "to", json_object_new_string(vnew));
			json_object_object_add(o, "label", json_object_new_string(mark));
			json_object_array_add(out, o);
			json_object_put(exp);
		}
		json_object_put(ro);
		json_object_put(rn);
	}
	json_clean_strings(out);
	if (x->json) {
		printf("%s\n",
		       json_object_to_json_string_ext(out,
						      JSON_C_TO_STRING_PRETTY |
							      JSON_C_TO_STRING_NOSLASHESCAPE));
	} else {
		for (size_t i = 0; i < json_object_array_length(out); i++) {
			struct json_object *o = json_object_array_get_idx(out, i);

			printf("%s: %s -> %s %s\n", json_str(o, "case"), json_str(o, "from"),
			       json_str(o, "to"), json_str(o, "label"));
		}
		printf("%d cases, %d changed: %d better, %d worse by their labels\n", cases, changed, better,
		       worse);
	}
	if (!cases) {
		fprintf(stderr, "attrib: %s: no case (a directory holding job.json)\n", dir);
		rc = EXIT_CASE;
	} else if (worse) {
		rc = 1;
	}
done:
	for (int i = 0; i < n; i++)
		free(list[i]);
	free(list);
	json_object_put(out);
	attrib_catalog_free(from);
	attrib_catalog_free(to);
	store_close(s);
	config_free(&conf);
	return rc;
}
