/* attrib show and attrib list: the diagnoses attribd stored, and the drain
 * and requeue decisions made for them, printed as attrib analyze prints a result or
 * a line each.  Every string comes from a file (the store) and is cleaned
 * before it reaches the terminal. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "command.h"
#include "contract.h"
#include "jsonread.h"
#include "label.h"
#include "render.h"
#include "requeue.h"
#include "text.h"
#include "timefmt.h"

void usage_show(FILE *out)
{
	fputs("Usage: attrib show JOBID [--attempt N] [--json] [--drains|--requeues] [--config FILE]\n"
	      "\n"
	      "Prints the stored diagnosis of a job (its latest attempt unless --attempt)\n"
	      "as `attrib analyze` does, then the drain and requeue decisions made for\n"
	      "the job (by attribd's policy, attrib drain or attrib requeue), then the\n"
	      "fleet findings (repeat offenders) that cite the job; --json prints the\n"
	      "stored result object, with \"findings\" when findings cite the job.\n"
	      "--drains prints only the job's drain decisions, one a line:\n"
	      "TIME ATTEMPT NODE DECISION BY: REASON;\n"
	      "--requeues only the requeue decisions, one a line:\n"
	      "TIME ATTEMPT DECISION BY: NODES [ExcNodeList=LIST]: REASON\n"
	      "(--json: a JSON array).\n"
	      "Exit status: 0 printed; 4 no stored result, or the store cannot be read.\n",
	      out);
}

void usage_list(FILE *out)
{
	fputs("Usage: attrib list [--since AGE|DATE] [--sub-domain X] [--node N] [--user U]\n"
	      "                   [--limit N] [--json] [--config FILE]\n"
	      "\n"
	      "Lists the stored diagnoses, newest first, a line each within 80 columns:\n"
	      "when (MM-DD HH:MM UTC), JOBID[/ATTEMPT] (attempts after a requeue), user\n"
	      "(a name too long for its 8 bytes cut, ending in +), sub-domain, culprit nodes\n"
	      "(the first, +N more) and root cause code.\n"
	      "--json gives every field, the job's end state and all culprits too.\n"
	      "\n"
	      "  --since AGE|DATE  diagnosed in the last AGE (Ns, Nm, Nh, Nd; default 7d)\n"
	      "                    or since DATE (YYYY-MM-DD, UTC)\n"
	      "  --sub-domain X    only this sub-domain (InfraHW, UserCode, ...)\n"
	      "  --node N          only diagnoses that blame node N\n"
	      "  --user U          only jobs of user U\n"
	      "  --limit N         at most N (the newest)\n"
	      "  --json            one JSON array\n"
	      "Exit status: 0 listed (maybe nothing); 4 the store cannot be read.\n",
	      out);
}

struct list_out {
	bool json;
	struct json_object *arr;
};

/* s cleaned (common/text.h) and cut to at most max bytes at a character
 * boundary, for a column; NULL for NULL.  The caller frees. */
static char *column(const char *s, size_t max)
{
	char *c = text_clean_str(s, SIZE_MAX / 4);
	size_t n = c ? strlen(c) : 0;

	if (n > max) {
		while (max > 0 && ((unsigned char)c[max] & 0xc0) == 0x80)
			max--;
		c[max] = 0;
	}
	return c;
}

/* column() for the text's fixed-width columns: a value cut to fit ends in
 * '+' (an ASCII byte, so the column keeps its width), so a reader never
 * takes a cut name for a whole one */
static char *column_marked(const char *s, size_t max)
{
	char *c = column(s, SIZE_MAX / 4);

	if (c && strlen(c) > max && max > 0) {
		char *cut = column(c, max - 1);

		free(c);
		c = realloc(cut, strlen(cut) + 2);
		if (!c)
			abort();
		strcat(c, "+");
	}
	return c;
}

static int list_row_clean(const struct store_row *r, void *arg);

/* A row as the store holds it: its text columns come from job records and
 * results, so they are cleaned before anything prints them. */
static int list_row(const struct store_row *r, void *arg)
{
	struct list_out *lo = arg;
	struct store_row c = *r;
	char *f[6];
	int rc;

	/* (text: USER is 8 bytes wide, cut at a character's start and marked) */
	c.cluster = f[0] = column(r->cluster, CONTRACT_NAME_MAX);
	c.user = f[1] = lo->json ? column(r->user, CONTRACT_NAME_MAX) : column_marked(r->user, 8);
	c.state = f[2] = column(r->state, CONTRACT_NAME_MAX);
	c.sub_domain = f[3] = column(r->sub_domain, CONTRACT_NAME_MAX);
	c.culprits = f[4] = column(r->culprits, TEXT_MAX);
	c.root_code = f[5] = column(r->root_code, CONTRACT_NAME_MAX);
	rc = list_row_clean(&c, arg);
	for (int i = 0; i < 6; i++)
		free(f[i]);
	return rc;
}

static int list_row_clean(const struct store_row *r, void *arg)
{
	struct list_out *lo = arg;
	char when[40];

	time_format_sec((time_t)r->created, when, sizeof(when));
	if (lo->json) {
		struct json_object *o = json_object_new_object(), *cul = json_object_new_array();
		char *copy = r->culprits ? strdup(r->culprits) : NULL, *save = NULL;

		for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save))
			json_object_array_add(cul, json_object_new_string(t));
		free(copy);
		json_object_object_add(o, "job_id", json_object_new_string(r->job_id));
		json_object_object_add(o, "attempt", json_object_new_int64(r->attempt));
		json_object_object_add(o, "cluster", r->cluster ? json_object_new_string(r->cluster) : NULL);
		json_object_object_add(o, "user", r->user ? json_object_new_string(r->user) : NULL);
		json_object_object_add(o, "state", r->state ? json_object_new_string(r->state) : NULL);
		json_object_object_add(o, "sub_domain",
				       r->sub_domain ? json_object_new_string(r->sub_domain) : NULL);
		json_object_object_add(o, "culprit_nodes", cul);
		json_object_object_add(o, "root_code",
				       r->root_code ? json_object_new_string(r->root_code) : NULL);
		json_object_object_add(o, "created", json_object_new_string(when));
		json_object_array_add(lo->arr, o);
		return 0;
	}
	/* one line within 80 columns: the state is in sacct (and --json), the
	 * culprits beyond the first are counted */
	char job[32], culprits[32], day[16];
	const char *comma = r->culprits ? strchr(r->culprits, ',') : NULL;
	int more = 0;

	for (const char *c = comma; c; c = strchr(c + 1, ','))
		more++;
	if (r->attempt > 0)
		snprintf(job, sizeof(job), "%s/%ld", r->job_id, r->attempt);
	else
		snprintf(job, sizeof(job), "%s", r->job_id);
	if (!r->culprits || !*r->culprits)
		snprintf(culprits, sizeof(culprits), "-");
	else if (more)
		snprintf(culprits, sizeof(culprits), "%.*s+%d", (int)(comma - r->culprits), r->culprits,
			 more);
	else
		snprintf(culprits, sizeof(culprits), "%s", r->culprits);
	/* (a long node name cut inside a character: U+FFFD, never a cut byte) */
	char *cul = column(culprits, sizeof(culprits) - 1);
	/* "YYYY-MM-DDTHH:MM:SSZ" -> "MM-DD HH:MM" */
	snprintf(day, sizeof(day), "%.5s %.5s", when + 5, when + 11);
	printf("%-11s  %-9s %-8s %-14s %-14s %s\n", day, job, r->user ? r->user : "-",
	       r->sub_domain ? r->sub_domain : "-", cul, r->root_code ? r->root_code : "-");
	free(cul);
	return 0;
}

static int requeue_to_json(const struct requeue_row *d, void *arg)
{
	struct json_object *o = json_object_new_object();
	char when[32];

	time_format_sec((time_t)d->created, when, sizeof(when));
	json_object_object_add(o, "time", json_object_new_string(when));
	json_object_object_add(o, "attempt", json_object_new_int64(d->attempt));
	json_object_object_add(o, "nodes", json_object_new_string(d->nodes ? d->nodes : ""));
	json_object_object_add(o, "excluded", json_object_new_string(d->excluded ? d->excluded : ""));
	json_object_object_add(o, "decision", json_object_new_string(d->decision ? d->decision : ""));
	json_object_object_add(o, "by", json_object_new_string(d->by ? d->by : ""));
	json_object_object_add(o, "reason", json_object_new_string(d->reason ? d->reason : ""));
	json_object_array_add(arg, o);
	return 0;
}

/* One line per decision; the texts were sanitised when stored (drain
 * reasons) or written by attrib itself, but a store is a file: the
 * terminal gets printable ASCII only. */
static void print_drains(struct json_object *drains, bool json, bool requeues)
{
	if (json) {
		printf("%s\n",
		       json_object_to_json_string_ext(drains,
						      JSON_C_TO_STRING_PRETTY |
							      JSON_C_TO_STRING_NOSLASHESCAPE));
		return;
	}
	for (size_t i = 0; i < json_object_array_length(drains); i++) {
		struct json_object *o = json_object_array_get_idx(drains, i);
		char line[1024];

		if (requeues)
			snprintf(line, sizeof(line), "%s %s %s %s: %s%s%s: %s", json_str(o, "time"),
				 json_str(o, "attempt"), json_str(o, "decision"), json_str(o, "by"),
				 *json_str(o, "nodes") ? json_str(o, "nodes") : "-",
				 *json_str(o, "excluded") ? " ExcNodeList=" : "", json_str(o, "excluded"),
				 json_str(o, "reason"));
		else
			snprintf(line, sizeof(line), "%s %s %s %s %s: %s", json_str(o, "time"),
				 json_str(o, "attempt"), json_str(o, "node"), json_str(o, "decision"),
				 json_str(o, "by"), json_str(o, "reason"));
		for (char *p = line; *p; p++)
			if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
				*p = '?';
		printf("  %s\n", line);
	}
}

/* the label in a few lines of printable ASCII (a store is a file) */
static const char *lstr(struct json_object *l, const char *k)
{
	const char *v = json_str(l, k);

	return v ? v : "";
}

static void print_label(struct json_object *l)
{
	struct json_object *cul = NULL;
	char line[1024];
	size_t n;

	json_object_object_get_ex(l, "culprit_nodes", &cul);
	n = (size_t)snprintf(line, sizeof(line), "%s by %s: %s, culprits ",
			     json_object_get_boolean(json_object_object_get(l, "confirm")) ? "Confirmed"
											   : "Labelled",
			     lstr(l, "by"), lstr(l, "sub_domain"));
	for (size_t i = 0; i < json_object_array_length(cul) && n < sizeof(line); i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s", i ? "," : "",
				      json_object_get_string(json_object_array_get_idx(cul, i)));
	if (!json_object_array_length(cul) && n < sizeof(line))
		n += (size_t)snprintf(line + n, sizeof(line) - n, "none");
	if (n < sizeof(line) && *lstr(l, "cause"))
		n += (size_t)snprintf(line + n, sizeof(line) - n, ", cause %s", lstr(l, "cause"));
	if (n < sizeof(line) && *lstr(l, "note"))
		snprintf(line + n, sizeof(line) - n, "; note: %s", lstr(l, "note"));
	for (char *p = line; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
	printf("\nAdmin's label (the latest):\n  %s\n", line);
}

int cmd_show(struct ctx *x)
{
	store *s = x->s;
	const char *job = x->args[0];
	bool json = x->json, only = x->drains || x->requeues;
	long attempt = x->attempt, got = 0;
	char *text;

	text = store_get(s, job, attempt, &got);
	struct json_object *drains = json_object_new_array(), *requeues = json_object_new_array();
	if (store_each_drain(s, job, store_drain_json_add, drains) < 0)
		fprintf(stderr, "attrib: cannot read the drain decisions of job %s\n", job);
	if (store_each_requeue(s, job, requeue_to_json, requeues) < 0)
		fprintf(stderr, "attrib: cannot read the requeue decisions of job %s\n", job);
	/* (who drained comes from $SUDO_USER or $USER of attrib drain) */
	json_clean_strings(drains);
	json_clean_strings(requeues);
	struct json_object *shown = x->requeues ? requeues : drains;
	int rc = 0;
	if (only) {
		if (!text && !json_object_array_length(shown)) {
			fprintf(stderr, "attrib: no stored result for job %s\n", job);
			rc = EXIT_STORE;
		} else {
			print_drains(shown, json, x->requeues);
		}
		free(text);
		json_object_put(drains);
		json_object_put(requeues);
		return rc;
	}
	if (!text) {
		json_object_put(drains);
		json_object_put(requeues);
		if (attempt >= 0)
			fprintf(stderr, "attrib: no stored result for job %s attempt %ld\n", job, attempt);
		else
			fprintf(stderr, "attrib: no stored result for job %s\n", job);
		return EXIT_STORE;
	}
	char err[256];
	struct json_object *r = json_parse_bounded(text, strlen(text), JSON_MAX_DEPTH, err, sizeof(err));
	free(text);
	if (!r) {
		fprintf(stderr, "attrib: the stored result of job %s is damaged: %s\n", job, err);
		json_object_put(drains);
		json_object_put(requeues);
		return EXIT_STORE;
	}
	/* results stored by an older service, or a store written by anything
	 * else, may hold strings that would break the terminal or the JSON */
	json_clean_strings(r);
	/* the fleet findings citing the job: the service's, beside the
	 * engine's result (which stays as stored) */
	struct json_object *findings = findings_of_job(s, job);
	if (json && json_object_array_length(findings))
		json_object_object_add(r, "findings", json_object_get(findings));
	/* the admin's latest label, beside the diagnosis as the findings are */
	struct json_object *label = NULL;
	if (store_latest_label(s, job, got, &label) < 0)
		fprintf(stderr, "attrib: cannot read the labels of job %s\n", job);
	json_clean_strings(label);
	if (json && label)
		json_object_object_add(r, "label", json_object_get(label));
	if (json) {
		printf("%s\n",
		       json_object_to_json_string_ext(r,
						      JSON_C_TO_STRING_PRETTY |
							      JSON_C_TO_STRING_NOSLASHESCAPE));
	} else {
		render_text(stdout, r);
		if (json_object_array_length(drains)) {
			printf("\nDrain decisions:\n");
			print_drains(drains, false, false);
		}
		if (json_object_array_length(requeues)) {
			printf("\nRequeue decisions:\n");
			print_drains(requeues, false, true);
		}
		if (json_object_array_length(findings)) {
			printf("\nFleet findings citing this job:\n");
			findings_print(stdout, findings);
		}
		if (label)
			print_label(label);
	}
	json_object_put(label);
	json_object_put(findings);
	json_object_put(drains);
	json_object_put(requeues);
	json_object_put(r);
	return 0;
}

int cmd_list(struct ctx *x)
{
	struct list_out lo = { .json = x->json };
	store *s = x->s;
	struct store_filter f = x->f;
	int n;

	if (lo.json)
		lo.arr = json_object_new_array();
	else
		printf("%-11s  %-9s %-8s %-14s %-14s %s\n", "DIAGNOSED", "JOBID", "USER", "SUB_DOMAIN",
		       "CULPRITS", "ROOT_CAUSE");
	n = store_list(s, &f, list_row, &lo);
	if (n < 0) {
		fprintf(stderr, "attrib: cannot read the store\n");
		json_object_put(lo.arr);
		return EXIT_STORE;
	}
	if (lo.json) {
		printf("%s\n",
		       json_object_to_json_string_ext(lo.arr,
						      JSON_C_TO_STRING_PRETTY |
							      JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(lo.arr);
	}
	return 0;
}
