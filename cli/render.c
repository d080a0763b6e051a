/* The diagnosis as a person reads it in ten seconds, from the result
 * object (so the terminal shows exactly what --json and the store hold). */
#include <stdio.h>
#include <string.h>
#include "contract.h"
#include "jsonread.h"
#include "render.h"

static struct json_object *arr(struct json_object *o, const char *k)
{
	struct json_object *v;

	return json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_array) ? v : NULL;
}

static void evidence(FILE *out, struct json_object *sym, const char *indent)
{
	struct json_object *ev = arr(sym, "evidence");

	for (size_t i = 0; ev && i < json_object_array_length(ev); i++) {
		struct json_object *e = json_object_array_get_idx(ev, i), *ln;

		json_object_object_get_ex(e, "line", &ln);
		fprintf(out, "%s%s:%d\n%s  %s\n", indent, json_str(e, "file"), json_object_get_int(ln),
			indent, json_str(e, "text"));
	}
}

/* HH:MM:SS.mmm of an RFC 3339 time */
static void clock_of(const char *t, char *buf, size_t len)
{
	snprintf(buf, len, "%.12s", t && strlen(t) > 11 ? t + 11 : "?");
}

static void node_list(FILE *out, struct json_object *a)
{
	for (size_t i = 0; a && i < json_object_array_length(a); i++)
		fprintf(out, "%s%s", i ? ", " : "", json_object_get_string(json_object_array_get_idx(a, i)));
	if (!a || !json_object_array_length(a))
		fputs("none", out);
}

void render_text(FILE *out, struct json_object *r)
{
	struct result_view rv;

	result_view_of(r, &rv);

	struct json_object *rc = rv.root_cause, *syms = rv.symptoms, *cov = rv.coverage, *acts = rv.actions;

	fprintf(out, "job %s %s: %s / %s", rv.job_id, rv.terminal_state, rv.outcome, rv.sub_domain);
	/* how far to trust it (a result of an older attrib has none) */
	if (confidence_rank(rv.confidence) >= 0)
		fprintf(out, ", confidence %s", rv.confidence);
	fputs("\n\n", out);
	/* the service redid the diagnosis when evidence arrived late */
	struct json_object *revs = arr(r, "revisions");
	for (size_t i = 0; revs && i < json_object_array_length(revs); i++) {
		struct json_object *v = json_object_array_get_idx(revs, i), *b = NULL;
		const char *was = json_object_object_get_ex(v, "before", &b) && b ? json_str(b, "sub_domain")
										  : NULL;

		fprintf(out, "%s %s: %s (was %s)\n", i ? "             " : "Revised     ",
			json_str(v, "at") ? json_str(v, "at") : "?",
			json_str(v, "reason") ? json_str(v, "reason") : "?", was ? was : "?");
	}
	if (revs && json_object_array_length(revs))
		fputs("\n", out);
	if (rc) {
		fprintf(out, "Root cause   %s [%s]\n", json_str(rc, "symptom"), json_str(rc, "code"));
		fprintf(out, "             on %s%s%s at %s\n",
			json_str(rc, "node") ? json_str(rc, "node") : "(no single node)",
			json_str(rc, "device") ? " " : "",
			json_str(rc, "device") ? json_str(rc, "device") : "", json_str(rc, "time"));
		if (json_str(rc, "located_by"))
			fprintf(out, "             node found by %s\n", json_str(rc, "located_by"));
		if (json_str(rc, "resolution"))
			fprintf(out, "             resolution: %s\n", json_str(rc, "resolution"));
		evidence(out, rc, "             ");
	} else if (syms) {
		for (size_t i = 0; i < json_object_array_length(syms); i++) {
			struct json_object *y = json_object_array_get_idx(syms, i);

			if (strcmp(json_str(y, "role"), "root"))
				continue;
			fprintf(out, "Candidate    %s [%s] on %s\n", json_str(y, "symptom"),
				json_str(y, "code"), json_str(y, "node") ? json_str(y, "node") : "(job)");
			evidence(out, y, "             ");
		}
	}
	fputs("Culprit      ", out);
	if (json_str(r, "culprit_switch")) { /* a leaf switch, over the nodes that lost links */
		struct json_object *under = NULL;

		json_object_object_get_ex(r, "switch_nodes", &under);
		fprintf(out, "leaf switch %s, over ", json_str(r, "culprit_switch"));
		node_list(out, under);
	} else {
		node_list(out, rv.culprit_nodes);
	}
	fputs("\nAffected     ", out);
	node_list(out, rv.affected_nodes);
	fputs("\n\n", out);

	/* first symptom per node, in time order (symptoms are sorted by role
	 * then time; collect and order by time) */
	fputs("Timeline (first symptom per node)\n", out);
	struct json_object *seen = json_object_new_object();
	struct json_object *firsts = json_object_new_array();
	for (size_t i = 0; syms && i < json_object_array_length(syms); i++) {
		struct json_object *y = json_object_array_get_idx(syms, i);
		const char *node = json_str(y, "node") ? json_str(y, "node") : "(job)";
		struct json_object *prev;

		if (!strcmp(json_str(y, "role"), "interesting"))
			continue;
		if (json_object_object_get_ex(seen, node, &prev) &&
		    strcmp(json_str(prev, "first_time"), json_str(y, "first_time")) <= 0)
			continue;
		json_object_object_add(seen, node, json_object_get(y));
	}
	json_object_object_foreach (seen, key, val) {
		(void)key;
		json_object_array_add(firsts, json_object_get(val));
	}
	size_t n = json_object_array_length(firsts);
	for (size_t i = 0; i < n; i++) /* few entries: selection order by time */
		for (size_t k = i + 1; k < n; k++)
			if (strcmp(json_str(json_object_array_get_idx(firsts, k), "first_time"),
				   json_str(json_object_array_get_idx(firsts, i), "first_time")) < 0) {
				struct json_object *a = json_object_get(json_object_array_get_idx(firsts, i));
				struct json_object *b = json_object_get(json_object_array_get_idx(firsts, k));

				json_object_array_put_idx(firsts, i, b);
				json_object_array_put_idx(firsts, k, a);
			}
	for (size_t i = 0; i < n && i < 20; i++) {
		struct json_object *y = json_object_array_get_idx(firsts, i);
		char clk[16];

		clock_of(json_str(y, "first_time"), clk, sizeof(clk));
		fprintf(out, "  %-12s%s %-12s %-11s %s\n", clk, json_str(y, "time_approximate") ? "~" : " ",
			json_str(y, "node") ? json_str(y, "node") : "(job)", json_str(y, "role"),
			json_str(y, "symptom"));
	}
	if (n > 20)
		fprintf(out, "  ... %zu more nodes\n", n - 20);
	if (!n)
		fputs("  (no failure symptom)\n", out);
	json_object_put(seen);
	json_object_put(firsts);

	long down = 0, downcount = 0;
	for (size_t i = 0; syms && i < json_object_array_length(syms); i++) {
		struct json_object *y = json_object_array_get_idx(syms, i), *c;

		if (!strcmp(json_str(y, "role"), "downstream")) {
			down++;
			json_object_object_get_ex(y, "count", &c);
			downcount += json_object_get_int64(c);
		}
	}
	fprintf(out, "\nDownstream   %ld symptoms (%ld log lines) explained by the root cause\n", down,
		downcount);

	struct json_object *hang;
	if (json_object_object_get_ex(r, "hang", &hang) && hang) {
		struct json_object *lp;

		fprintf(out, "Hang         no progress since %s", json_str(hang, "since"));
		if (json_object_object_get_ex(hang, "last_progress", &lp) && lp)
			fprintf(out, " (last progress line %s:%s)", json_str(lp, "file"),
				json_str(lp, "line"));
		fputc('\n', out);
	}
	/* what was seen but is not the job's: never a cause, shown so that a
	 * reader who greps the logs knows why it was not taken */
	int aside = 0;
	for (size_t i = 0; syms && i < json_object_array_length(syms); i++) {
		struct json_object *y = json_object_array_get_idx(syms, i);

		if (!json_str(y, "set_aside"))
			continue;
		if (aside < 8)
			fprintf(out, "%s%s%s%s: %s\n", aside ? "             " : "Set aside    ",
				json_str(y, "symptom"), json_str(y, "node") ? " on " : "",
				json_str(y, "node") ? json_str(y, "node") : "", json_str(y, "set_aside"));
		aside++;
	}
	if (aside > 8)
		fprintf(out, "             ... %d more\n", aside - 8);

	fputs("Missing      ", out);
	if (!cov || !json_object_array_length(cov))
		fputs("nothing\n", out);
	for (size_t i = 0; cov && i < json_object_array_length(cov); i++) {
		struct json_object *c = json_object_array_get_idx(cov, i);

		fprintf(out, "%s%s (%s): %s\n", i ? "             " : "", json_str(c, "source"),
			json_str(c, "status"), json_str(c, "detail"));
	}
	fputs("Actions      ", out);
	if (!acts || !json_object_array_length(acts))
		fputs("none\n", out);
	for (size_t i = 0; acts && i < json_object_array_length(acts); i++) {
		struct json_object *c = json_object_array_get_idx(acts, i);

		const char *sw = json_str(c, "switch");

		fprintf(out, "%s%s %s%s: %s\n", i ? "             " : "", json_str(c, "action"),
			sw ? "switch " : "", sw ? sw : json_str(c, "node"), json_str(c, "reason"));
	}
	fprintf(out, "\n%s\n", rv.explanation);
	if (json_str(r, "catalog"))
		fprintf(out, "\nRules        %s\n", json_str(r, "catalog"));
}
