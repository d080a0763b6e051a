/* attrib nodes: the fleet view.  Nodes ranked by the faults the stored
 * diagnoses blame on them, with their causes, when they were last seen in a
 * failed job and their current Slurm state. */
#include <stdlib.h>
#include <string.h>
#include "command.h"
#include "jsonread.h"
#include "slurmapi.h"
#include "text.h"
#include "timefmt.h"
#include "xalloc.h"

#define WIDTH 79 /* an 80-column terminal, the last column left free */

struct cause {
	char *name;
	long n;
};

struct node_agg {
	char *node;
	long faults, affected;
	long long last;
	struct cause *causes; /* most frequent first (the store's order) */
	int ncauses;
};

struct fleet {
	struct node_agg *v;
	size_t n, cap;
	bool oom;
};

static int add_row(const struct node_fault_row *r, void *arg)
{
	struct fleet *f = arg;
	struct node_agg *a = f->n ? &f->v[f->n - 1] : NULL;

	/* rows come in node order */
	if (!a || strcmp(a->node, r->node)) {
		struct node_agg *v = array_room(f->v, &f->cap, f->n, sizeof(*v), 64);

		if (!v)
			goto oom;
		f->v = v;
		a = &f->v[f->n];
		memset(a, 0, sizeof(*a));
		if (!(a->node = strdup(r->node)))
			goto oom;
		f->n++;
	}
	if (r->last > a->last)
		a->last = r->last;
	if (!r->culprit) {
		a->affected += r->count;
		return 0;
	}
	struct cause *c = realloc(a->causes, (a->ncauses + 1) * sizeof(*c));
	if (!c)
		goto oom;
	a->causes = c;
	c[a->ncauses].n = r->count;
	if (!(c[a->ncauses].name = strdup(r->cause ? r->cause : "?")))
		goto oom;
	a->ncauses++;
	a->faults += r->count;
	return 0;
oom:
	f->oom = true;
	return 1;
}

static int by_rank(const void *pa, const void *pb)
{
	const struct node_agg *a = pa, *b = pb;

	if (a->faults != b->faults)
		return a->faults > b->faults ? -1 : 1;
	if (a->affected != b->affected)
		return a->affected > b->affected ? -1 : 1;
	if (a->last != b->last)
		return a->last > b->last ? -1 : 1;
	return strcmp(a->node, b->node);
}

/* Text from the store or from slurmctld, for a terminal: printable ASCII,
 * at most max bytes (the last three "..." when cut).  Returns the length. */
static size_t clean(char *dst, const char *src, size_t max)
{
	size_t n = 0, len = strlen(src);

	for (const char *p = src; *p && n < max; p++)
		dst[n++] = (*p >= 0x20 && *p < 0x7f) ? *p : '?';
	if (len > max && max > 3)
		memcpy(dst + max - 3, "...", 3);
	dst[n] = 0;
	return n;
}

/* "xid.149 (3), InfraHW (1) +2 more" in at most room columns; a first
 * cause too long for the room is cut ("...") rather than left out. */
static void print_causes(FILE *out, const struct node_agg *a, int room)
{
	char buf[256], item[160], name[128], more[32];
	size_t used = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < a->ncauses; i++) {
		/* what "+N more" needs if this is the last that fits */
		int ml = i + 1 < a->ncauses ? snprintf(more, sizeof(more), " +%d more", a->ncauses - i - 1)
					    : 0;
		int len;

		clean(name, a->causes[i].name, 100);
		len = snprintf(item, sizeof(item), "%s%s (%ld)", i ? ", " : "", name, a->causes[i].n);
		if (!i && len + ml > room) {
			/* cut the name: room for " (N)" and "+N more" kept */
			char cnt[24];
			int cl = snprintf(cnt, sizeof(cnt), " (%ld)", a->causes[i].n);
			int keep = room - ml - cl;

			if (keep < 4)
				break;
			clean(name, a->causes[i].name, (size_t)keep);
			len = snprintf(item, sizeof(item), "%s%s", name, cnt);
		}
		if ((int)(used + len + ml) > room || used + len >= sizeof(buf))
			break;
		memcpy(buf + used, item, len + 1);
		used += len;
	}
	if (i < a->ncauses)
		fprintf(out, "%s%s+%d more", buf, used ? " " : "", a->ncauses - i);
	else
		fputs(used ? buf : "-", out);
}

static const char *state_of(const struct node_state_map *ns, const char *node, const char **reason)
{
	const char *state = "unknown";

	*reason = NULL;
	if (ns && !node_state_of(ns, node, &state, reason))
		state = "-"; /* slurmctld does not know it (any more) */
	return state;
}

/* The node column: a node with a standing finding marked '*' (listed
 * below the table). */
static void node_cell(char *dst, const char *node, struct json_object *findings)
{
	size_t n = clean(dst, node, 47);

	if (findings_name(findings, node))
		strcpy(dst + n, "*");
}

static void print_text(FILE *out, struct fleet *f, size_t shown, const struct node_state_map *ns,
		       struct json_object *findings)
{
	int w = 4, sw = 5;
	const char *reason;

	/* the node and state columns as wide as what they show */
	for (size_t i = 0; i < shown; i++) {
		char cell[64];
		int l, sl = (int)strlen(state_of(ns, f->v[i].node, &reason));

		node_cell(cell, f->v[i].node, findings);
		l = (int)strlen(cell);

		if (l > w)
			w = l < 24 ? l : 24;
		if (sl > sw)
			sw = sl < 14 ? sl : 14;
	}
	fprintf(out, "%-*s %6s %6s  %-16s  %-*s %s\n", w, "NODE", "FAULTS", "AFFECT", "LAST SEEN (UTC)", sw,
		"STATE", "CAUSES");
	for (size_t i = 0; i < shown; i++) {
		const struct node_agg *a = &f->v[i];
		const char *state = state_of(ns, a->node, &reason);
		char when[32], node[64], st[16];
		struct tm tm;
		time_t t = (time_t)a->last;

		strftime(when, sizeof(when), "%Y-%m-%d %H:%M", gmtime_r(&t, &tm));
		node_cell(node, a->node, findings);
		clean(st, state, 14);
		int used = fprintf(out, "%-*s %6ld %6ld  %-16s  %-*s ", w, node, a->faults, a->affected, when,
				   sw, st);
		print_causes(out, a, WIDTH - used > 12 ? WIDTH - used : 12);
		fputc('\n', out);
		if (reason) {
			char r[WIDTH + 1];

			clean(r, reason, WIDTH - (size_t)w - 10);
			fprintf(out, "%-*s  reason: %s\n", w, "", r);
		}
	}
	if (json_object_array_length(findings)) {
		fputs("\n* standing findings (raised within RepeatWindow):\n", out);
		findings_print(out, findings);
	}
}

static struct json_object *to_json(struct fleet *f, size_t shown, const struct node_state_map *ns,
				   struct json_object *findings)
{
	struct json_object *arr = json_object_new_array();

	for (size_t i = 0; i < shown; i++) {
		const struct node_agg *a = &f->v[i];
		struct json_object *o = json_object_new_object(), *causes = json_object_new_array();
		const char *state = "unknown", *reason = NULL;
		bool known = !ns || node_state_of(ns, a->node, &state, &reason);
		char when[40];

		time_format_sec((time_t)a->last, when, sizeof(when));
		for (int k = 0; k < a->ncauses; k++) {
			struct json_object *c = json_object_new_object();

			json_object_object_add(c, "cause", json_object_new_string(a->causes[k].name));
			json_object_object_add(c, "count", json_object_new_int64(a->causes[k].n));
			json_object_array_add(causes, c);
		}
		json_object_object_add(o, "node", json_object_new_string(a->node));
		json_object_object_add(o, "faults", json_object_new_int64(a->faults));
		json_object_object_add(o, "affected", json_object_new_int64(a->affected));
		json_object_object_add(o, "last_seen", json_object_new_string(when));
		json_object_object_add(o, "causes", causes);
		/* null: slurmctld answered but does not know the node */
		json_object_object_add(o, "state", known ? json_object_new_string(state) : NULL);
		json_object_object_add(o, "reason", reason ? json_object_new_string(reason) : NULL);
		struct json_object *mine = json_object_new_array();
		for (size_t k = 0; k < json_object_array_length(findings); k++) {
			struct json_object *fo = json_object_array_get_idx(findings, k);

			if (!strcmp(json_str(fo, "subject") ? json_str(fo, "subject") : "", a->node))
				json_object_array_add(mine, json_object_get(fo));
		}
		json_object_object_add(o, "findings", mine);
		json_object_array_add(arr, o);
	}
	return arr;
}

/* The nodes of the results stored since since, ranked by the faults blamed
 * on them (then how often affected, then last seen), at most limit (0:
 * all), as text for an 80-column terminal or as JSON.  The Slurm state is
 * "unknown" (with a note on stderr) when slurmctld cannot be asked.  0, or
 * -1 when the store cannot be read. */
static int nodes_report(store *s, long long since, int limit, bool json, FILE *out,
			struct json_object *findings)
{
	struct fleet f = { 0 };
	struct node_state_map *ns;
	char err[512];
	size_t shown;
	int rc = 0;

	if (store_node_faults(s, since, add_row, &f) < 0 || f.oom) {
		fprintf(stderr, "attrib: cannot read the store\n");
		rc = -1;
		goto out;
	}
	/* node names and causes come from stored results (an older service's
	 * may hold raw bytes): cleaned once grouped, before anything prints */
	for (size_t i = 0; i < f.n; i++) {
		char *c = text_clean_str(f.v[i].node, TEXT_MAX);

		free(f.v[i].node);
		f.v[i].node = c;
		for (int k = 0; k < f.v[i].ncauses; k++) {
			c = text_clean_str(f.v[i].causes[k].name, TEXT_MAX);
			free(f.v[i].causes[k].name);
			f.v[i].causes[k].name = c;
		}
	}
	if (f.n)
		qsort(f.v, f.n, sizeof(*f.v), by_rank);
	shown = limit > 0 && (size_t)limit < f.n ? (size_t)limit : f.n;
	ns = shown ? node_states_load(err, sizeof(err)) : NULL;
	if (shown && !ns)
		fprintf(stderr, "attrib: node states unknown (%s)\n", err);
	if (json) {
		struct json_object *arr = to_json(&f, shown, ns, findings);

		fprintf(out, "%s\n",
			json_object_to_json_string_ext(arr,
						       JSON_C_TO_STRING_PRETTY |
							       JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(arr);
	} else {
		print_text(out, &f, shown, ns, findings);
	}
	node_states_free(ns);
out:
	for (size_t i = 0; i < f.n; i++) {
		for (int k = 0; k < f.v[i].ncauses; k++)
			free(f.v[i].causes[k].name);
		free(f.v[i].causes);
		free(f.v[i].node);
	}
	free(f.v);
	return rc;
}

void usage_nodes(FILE *out)
{
	fputs("Usage: attrib nodes [--since AGE|DATE] [--limit N] [--json] [--config FILE]\n"
	      "\n"
	      "The fleet view: every node the stored diagnoses name, ranked by the\n"
	      "faults blamed on it (diagnoses naming it a culprit), then by how often it\n"
	      "was affected, with its causes (root codes, else sub-domains, with\n"
	      "counts), when it was last seen (its latest failed job's end) and its\n"
	      "current Slurm state and reason.  When slurmctld cannot be asked the\n"
	      "state is \"unknown\" and one line on stderr says why.\n"
	      "\n"
	      "  --since AGE|DATE  diagnosed in the last AGE (Ns, Nm, Nh, Nd; default 30d)\n"
	      "                    or since DATE (YYYY-MM-DD, UTC)\n"
	      "  --limit N         the first N nodes only\n"
	      "  --json            one JSON array: node, faults, affected, last_seen,\n"
	      "                    causes [{cause, count}], state (null: not a node of\n"
	      "                    slurmctld), reason, findings (those standing)\n"
	      "A node marked '*' has a standing repeat-offender finding (raised within\n"
	      "RepeatWindow, attrib.conf(5)): the findings are listed below the table,\n"
	      "each with its summary, the jobs it cites and its drain decisions.\n"
	      "Exit status: 0 listed (maybe nothing); 4 the store cannot be read.\n",
	      out);
}

int cmd_nodes(struct ctx *x)
{
	/* the findings that stand: raised within RepeatWindow */
	struct json_object *findings = findings_standing(x->s, (long long)time(NULL) - x->conf.repeat_window);
	int rc = nodes_report(x->s, x->f.since, x->f.limit, x->json, stdout, findings);

	json_object_put(findings);
	return rc < 0 ? EXIT_STORE : 0;
}
