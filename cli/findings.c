/* Fleet findings on the command line (store/findings.h): those standing
 * (attrib nodes) and those citing a job (attrib show), each with the drain
 * decisions taken for it, as JSON objects and as text wrapped within 80
 * columns.  A store is a file: every string is cleaned before it prints. */
#include <stdlib.h>
#include <string.h>
#include "command.h"
#include "findings.h"
#include "jsonread.h"
#include "timefmt.h"

#define WIDTH 79

static const char *str(struct json_object *o, const char *k)
{
	const char *s = json_str(o, k);

	return s ? s : "";
}

static int drain_json(const struct drain_row *d, void *arg)
{
	struct json_object *o = store_drain_json(d, true);

	return o && json_object_array_add(arg, o) == 0 ? 0 : -1;
}

struct collect {
	store *s;
	struct json_object *arr;
};

static int finding_json(const struct finding_row *f, void *arg)
{
	struct collect *c = arg;
	struct json_object *o = json_object_new_object(), *drains = json_object_new_array();
	struct json_object *jobs = f->jobs_json ? json_tokener_parse(f->jobs_json) : NULL;
	char when[32];

	time_format_sec((time_t)f->created, when, sizeof(when));
	if (store_finding_drains(c->s, f->id, drain_json, drains) < 0)
		fprintf(stderr, "attrib: cannot read the drain decisions of finding %lld\n", f->id);
	json_object_object_add(o, "id", json_object_new_int64(f->id));
	json_object_object_add(o, "kind", json_object_new_string(f->kind ? f->kind : ""));
	json_object_object_add(o, "subject", json_object_new_string(f->subject ? f->subject : ""));
	json_object_object_add(o, "summary", json_object_new_string(f->summary ? f->summary : ""));
	json_object_object_add(o, "created", json_object_new_string(when));
	json_object_object_add(o, "jobs",
			       json_object_is_type(jobs, json_type_array) ? jobs : json_object_new_array());
	if (jobs && !json_object_is_type(jobs, json_type_array))
		json_object_put(jobs);
	json_object_object_add(o, "drains", drains);
	json_object_array_add(c->arr, o);
	return 0;
}

struct json_object *findings_standing(store *s, long long since)
{
	struct collect c = { s, json_object_new_array() };

	if (store_each_finding(s, since, NULL, NULL, finding_json, &c) < 0)
		fprintf(stderr, "attrib: cannot read the fleet findings\n");
	json_clean_strings(c.arr);
	return c.arr;
}

struct json_object *findings_of_job(store *s, const char *job_id)
{
	struct collect c = { s, json_object_new_array() };

	if (store_job_findings(s, job_id, finding_json, &c) < 0)
		fprintf(stderr, "attrib: cannot read the fleet findings of job %s\n", job_id);
	json_clean_strings(c.arr);
	return c.arr;
}

bool findings_name(struct json_object *findings, const char *subject)
{
	for (size_t i = 0; i < json_object_array_length(findings); i++)
		if (!strcmp(str(json_object_array_get_idx(findings, i), "subject"), subject))
			return true;
	return false;
}

/* text as words filling lines of WIDTH columns, the first after lead, the
 * others indented by indent; printable ASCII only */
static void wrap(FILE *out, const char *lead, const char *text, int indent)
{
	char *t = strdup(text), *save = NULL;
	int col = fprintf(out, "%s", lead);

	if (!t)
		return;
	for (char *p = t; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
	for (char *w = strtok_r(t, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		int len = (int)strlen(w);

		if (col > indent && col + 1 + len > WIDTH) {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
		}
		/* a word longer than a line is cut, never past the edge */
		if (col + (col > indent) + len > WIDTH)
			len = WIDTH - col - (col > indent) > 0 ? WIDTH - col - (col > indent) : 0;
		col += fprintf(out, "%s%.*s", col > indent ? " " : "", len, w);
	}
	fputc('\n', out);
	free(t);
}

void findings_print(FILE *out, struct json_object *findings)
{
	for (size_t i = 0; i < json_object_array_length(findings); i++) {
		struct json_object *f = json_object_array_get_idx(findings, i), *drains;
		char lead[160];

		snprintf(lead, sizeof(lead), "  finding %s, %.16s UTC, %.40s:", str(f, "id"),
			 str(f, "created"), str(f, "kind"));
		for (char *p = lead; *p; p++)
			if (*p == 'T' && p[-1] >= '0' && p[-1] <= '9')
				*p = ' '; /* "2026-12-01T20:30" -> "2026-12-01 20:30" */
		wrap(out, lead, str(f, "summary"), 4);
		drains = json_object_object_get(f, "drains");
		for (size_t k = 0; k < json_object_array_length(drains); k++) {
			struct json_object *d = json_object_array_get_idx(drains, k);
			char line[1024];

			snprintf(line, sizeof(line), "%s %s %s: %s", str(d, "node"), str(d, "decision"),
				 str(d, "by"), str(d, "reason"));
			wrap(out, "    drain:", line, 6);
		}
	}
}
