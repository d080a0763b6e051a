/* The result object (doc/formats.md, "The result"), from the verdict. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "text.h"

#define MAX_SYMPTOMS 200 /* beyond this the list says how many it left out */
#define REASON_MAX 160

/* Every string of the result is valid UTF-8 without control characters,
 * whatever job.json, file names or logs held. */
static struct json_object *str(const char *s)
{
	struct json_object *o;
	char *t;

	if (!s)
		return NULL;
	t = text_sanitise(s, strlen(s), RESULT_TEXT_MAX);
	o = json_object_new_string(t);
	free(t);
	return o;
}

static struct json_object *time_str(double t)
{
	char buf[48];

	time_format(t, buf, sizeof(buf));
	return json_object_new_string(buf);
}

static const char *node_name(const struct analysis *a, const struct symptom *s)
{
	return s->node >= 0 ? a->job.nodes.v[s->node] : NULL;
}

/* A cause that blames its node: a node-scoped fault, or one that may be
 * the node's GPU as much as the program (a candidate of an ambiguous
 * verdict, never drained). */
static bool names_node(const struct symptom *r, const struct verdict *v)
{
	return r->node >= 0 &&
		(r->code->scope == SCOPE_NODE || (r->code->also && !strcmp(v->sub_domain, "ambiguous")));
}

static struct json_object *evidence_one(const struct analysis *a, const struct evidence *ev)
{
	struct json_object *e = json_object_new_object();

	json_object_object_add(e, "file", str(a->files.v[ev->file]));
	json_object_object_add(e, "line", json_object_new_int64(ev->line));
	json_object_object_add(e, "text", str(ev->text ? ev->text : ""));
	return e;
}

static struct json_object *evidence(const struct analysis *a, const struct symptom *s)
{
	struct json_object *arr = json_object_new_array();

	for (int i = 0; i < s->nev; i++)
		json_object_array_add(arr, evidence_one(a, &s->ev[i]));
	return arr;
}

static struct json_object *device(const struct symptom *s)
{
	char buf[48];

	if (!s->device)
		return NULL;
	snprintf(buf, sizeof(buf), "PCI:%s", s->device);
	return json_object_new_string(buf);
}

const char *trust_name(enum trust t)
{
	return t == TRUST_UNAUTHENTICATED ? TRUST_NAME_UNAUTHENTICATED
		: t == TRUST_JOB_OUTPUT	  ? TRUST_NAME_JOB_OUTPUT
					  : NULL;
}

/* A symptom seen only in files anyone on the node may write (evidence.json
 * origin "file" or "journal-user"), or only in the job's own output, is
 * not proof: nothing that takes a node out of service (drain, reboot,
 * reset_gpu) is recommended on it. */
static const char *root_action(const struct symptom *r)
{
	const char *what = r->code->action;

	if (r->trust != TRUST_VOUCHED && strcmp(what, "none") && strcmp(what, "inspect"))
		return "inspect";
	return what;
}

static struct json_object *symptom_json(const struct analysis *a, const struct symptom *s)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "symptom", str(s->code->title));
	json_object_object_add(o, "code", str(s->code->code));
	json_object_object_add(o, "node", str(node_name(a, s)));
	if (s->node < 0 && s->node_raw)
		json_object_object_add(o, "node_as_logged", str(s->node_raw));
	json_object_object_add(o, "role", str(role_name(s->role)));
	json_object_object_add(o, "first_time", time_str(s->first));
	if (s->first_approx)
		json_object_object_add(o, "time_approximate", json_object_new_boolean(1));
	json_object_object_add(o, "count", json_object_new_int64(s->count));
	if (s->device)
		json_object_object_add(o, "device", device(s));
	if (s->peer)
		json_object_object_add(o, "peer", str(s->peer));
	if (s->node >= 0 && s->located)
		json_object_object_add(o, "located_by", str(located_name(s->located)));
	if (s->aside)
		json_object_object_add(o, "set_aside", str(aside_name(s->aside)));
	if (s->refined_by)
		json_object_object_add(o, "rule", str(s->refined_by));
	if (s->explained_by)
		json_object_object_add(o, "explained_by", str(s->explained_by->code->code));
	if (trust_name(s->trust))
		json_object_object_add(o, "trust", str(trust_name(s->trust)));
	json_object_object_add(o, "evidence", evidence(a, s));
	return o;
}

static int role_rank(const struct symptom *s)
{
	return s->aside ? 3 : s->role == ROLE_ROOT ? 0 : s->role == ROLE_DOWNSTREAM ? 1 : 2;
}

static int sym_order(const void *x, const void *y)
{
	const struct symptom *a = *(struct symptom *const *)x, *b = *(struct symptom *const *)y;
	int c;

	if ((c = role_rank(a) - role_rank(b)))
		return c;
	if (a->first != b->first)
		return a->first < b->first ? -1 : 1;
	if ((c = strcmp(a->code->code, b->code->code)))
		return c;
	return a->node - b->node;
}

/* Node lists in the job's order (job_load keeps each name once: no
 * search for duplicates, which was quadratic at thousands of nodes). */
static struct json_object *node_list(const struct analysis *a, const bool *mark)
{
	struct json_object *arr = json_object_new_array();

	for (int i = 0; i < a->job.nodes.n; i++)
		if (mark[i])
			json_object_array_add(arr, str(a->job.nodes.v[i]));
	return arr;
}

static void action_reason(const struct analysis *a, const struct symptom *s, char *buf, size_t len)
{
	char dev[64] = "";

	if (s->device)
		snprintf(dev, sizeof(dev), " on PCI:%s", s->device);
	snprintf(buf, len, "%s%s (job %s)", s->code->title, dev, a->job.job_id);
}

static struct json_object *action(const char *node, const char *what, const char *reason)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "node", str(node));
	json_object_object_add(o, "action", str(what));
	json_object_object_add(o, "reason", str(reason));
	return o;
}

/* With no cause found, the node the evidence points at without proving a
 * fault (a rank a hang report says the others waited for, a node the
 * peers lost) is where to look: inspected, not blamed. */
static const struct symptom *suspect(const struct analysis *a, int i)
{
	const struct symptom *s = a->sym[i];

	return !s->aside && s->node >= 0 && (s->code->flags & CODE_SUSPECT) ? s : NULL;
}

static void suspect_nodes(const struct analysis *a, struct json_object *arr)
{
	bool *done = xcalloc(a->job.nodes.n + 1, sizeof(bool));

	for (int i = 0; i < a->nsym; i++) {
		const struct symptom *s = suspect(a, i);
		char reason[REASON_MAX];

		if (!s || done[s->node])
			continue;
		done[s->node] = true;
		snprintf(reason, sizeof(reason), "%s%s%s%s (job %s)", s->rank ? "rank " : "",
			 s->rank ? s->rank : "", s->rank ? ": " : "", s->code->title, a->job.job_id);
		json_object_array_add(arr, action(a->job.nodes.v[s->node], "inspect", reason));
	}
	free(done);
}

static void duration(double s, char *buf, size_t len)
{
	long m = (long)(s / 60 + 0.5);

	if (m >= 60)
		snprintf(buf, len, "%ld h %02ld min", m / 60, m % 60);
	else
		snprintf(buf, len, "%ld min", m);
}

/* The most telling fault set aside: what a reader would otherwise take for
 * the cause. */
static const struct symptom *first_aside_fault(const struct analysis *a, int *n)
{
	const struct symptom *best = NULL;

	*n = 0;
	for (int i = 0; i < a->nsym; i++) {
		const struct symptom *s = a->sym[i];

		if (!s->aside || s->code->kind != KIND_FAULT)
			continue;
		(*n)++;
		if (!best || s->first > best->first) /* the latest: nearest the end */
			best = s;
	}
	return best;
}

static char *explanation(const struct analysis *a, const struct verdict *v, int downstream, int down_nodes)
{
	char *buf = NULL, when[48], dev[64] = "", where[300] = "";
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	const struct symptom *r = v->root;

	if (v->pass) {
		fprintf(m, "The job completed successfully (%s %s).", a->job.state,
			a->job.exit_code ? a->job.exit_code : "0:0");
		fclose(m);
		return buf;
	}
	if (a->hang) {
		char since[48], quiet[32];

		time_format(a->hang_since, since, sizeof(since));
		duration(a->job.end - a->hang_since, quiet, sizeof(quiet));
		fprintf(m,
			"The job hung: its last progress line was at %s and it was silent for %s until it "
			"ended %s. ",
			since, quiet, a->job.state);
	}
	if (r && v->culprit_switch) {
		bool *seen = xcalloc(a->job.nodes.n + 1, sizeof(bool));
		int n = 0;

		time_format(r->first, when, sizeof(when));
		fprintf(m, "%s at %s on ", r->code->title, when);
		for (int i = 0; i < v->nroots; i++)
			if (!seen[v->roots[i]->node]) {
				seen[v->roots[i]->node] = true;
				fprintf(m, "%s%s", n++ ? ", " : "", a->job.nodes.v[v->roots[i]->node]);
			}
		free(seen);
		fprintf(m,
			": %d nodes under leaf switch %s lost their links within %g s, which one node's "
			"cable or adapter does not explain. The switch (or its uplink) is the likely cause: "
			"inspect it; no node is drained for it.",
			n, v->culprit_switch, a->cat->set.switch_window);
	} else if (r) {
		time_format(r->first, when, sizeof(when));
		if (r->device)
			snprintf(dev, sizeof(dev), " (device PCI:%s)", r->device);
		if (r->node >= 0)
			snprintf(where, sizeof(where), " on %s%s, found by %s,", a->job.nodes.v[r->node], dev,
				 located_name(r->located) ? located_name(r->located) : "its evidence");
		fprintf(m,
			"%s%s at %s%s is the first cause in the evidence; %d downstream symptom%s on %d "
			"node%s follow%s from it.",
			r->code->title, where, when, r->first_approx ? " (approximate time)" : "", downstream,
			downstream == 1 ? "" : "s", down_nodes, down_nodes == 1 ? "" : "s",
			downstream == 1 ? "s" : "");
	} else if (!strcmp(v->sub_domain, "ambiguous")) {
		fprintf(m, "%d causes fit the evidence: ", v->nroots);
		for (int i = 0; i < v->nroots && i < 8; i++)
			fprintf(m, "%s%s%s%s", i ? "; " : "", v->roots[i]->code->title,
				v->roots[i]->node >= 0 ? " on " : "",
				v->roots[i]->node >= 0 ? a->job.nodes.v[v->roots[i]->node] : "");
		if (v->recurring)
			fprintf(m,
				". The same GPU of %s reported this fault for other programs before this "
				"job, so it may follow the GPU rather than the code",
				a->job.nodes.v[v->recurring->node]);
		else
			for (int i = 0; i < v->nroots; i++)
				if (v->roots[i]->code->also) {
					fprintf(m, ". %s alone may be the program's fault or the node's (%s)",
						v->roots[i]->code->title, v->roots[i]->code->also);
					break;
				}
		fputs(". Each is listed as a root; none is drained automatically.", m);
	} else if (a->hang) {
		fputs("No evidence shows why it hung.", m);
	} else {
		fprintf(m,
			"The job ended %s but no rule names a cause in the evidence; %d symptom%s listed for "
			"inspection.",
			a->job.state, a->nsym, a->nsym == 1 ? " is" : "s are");
	}
	for (int i = 0; !r && !v->nroots && i < a->nsym; i++) {
		const struct symptom *s = suspect(a, i);

		if (s) {
			fprintf(m,
				" The evidence points at %s without showing a fault there (%s%s%s%s): "
				"inspect it.",
				a->job.nodes.v[s->node], s->rank ? "rank " : "", s->rank ? s->rank : "",
				s->rank ? ": " : "", s->code->title);
			break;
		}
	}
	int naside;
	const struct symptom *x = first_aside_fault(a, &naside);
	if (x)
		fprintf(m, " Seen but not the job's: %d fault%s, e.g. %s%s%s (%s).", naside,
			naside == 1 ? "" : "s", x->code->title, x->node >= 0 ? " on " : "",
			x->node >= 0 ? a->job.nodes.v[x->node] : "", aside_name(x->aside));
	fclose(m);
	return buf;
}

/* ---- what the service wrote into the case (evidence.json) ---- */

static struct json_object *manifest_str(struct json_object *o, const char *key)
{
	struct json_object *v;
	char *c;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	c = text_clean_str(json_object_get_string(v), RESULT_TEXT_MAX);
	v = json_object_new_string(c);
	free(c);
	return v;
}

/* The service's coverage entries (bundle sources, app files it could not
 * read, nodes whose bundle was refused) after the engine's: each once, but
 * a node's (the engine says "missing", the service why). */
static void collected_coverage(const struct analysis *a, struct json_object *arr)
{
	struct json_object *cov;

	if (!a->manifest || !json_object_object_get_ex(a->manifest, EVIDENCE_COVERAGE, &cov) ||
	    !json_object_is_type(cov, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(cov); i++) {
		struct json_object *c = json_object_array_get_idx(cov, i), *e = json_object_new_object();
		const char *src, *st;
		int k;

		json_object_object_add(e, "source", manifest_str(c, "source"));
		json_object_object_add(e, "status", manifest_str(c, "status"));
		json_object_object_add(e, "detail", manifest_str(c, "detail"));
		src = json_str(e, "source");
		st = json_str(e, "status");
		if (!src || !st) {
			json_object_put(e);
			continue;
		}
		for (k = 0; k < a->ncov; k++)
			if (!strcmp(a->cov[k].source, src) && !strcmp(a->cov[k].status, st) &&
			    strncmp(src, CASE_NODES "/", 6))
				break;
		if (k < a->ncov)
			json_object_put(e);
		else
			json_object_array_add(arr, e);
	}
}

/* A diagnosis redone with late evidence: how many times, and what each
 * earlier one said (the service's history, as it wrote it into the case). */
static void revisions(const struct analysis *a, struct json_object *o)
{
	struct json_object *n, *revs, *out;

	if (!a->manifest || !json_object_object_get_ex(a->manifest, EVIDENCE_REVISED, &n) ||
	    !json_object_is_type(n, json_type_int) ||
	    !json_object_object_get_ex(a->manifest, EVIDENCE_REVISIONS, &revs) ||
	    !json_object_is_type(revs, json_type_array))
		return;
	out = json_object_new_array();
	for (size_t i = 0; i < json_object_array_length(revs); i++) {
		struct json_object *r = json_object_array_get_idx(revs, i), *b, *e, *be, *cn;

		if (!json_object_is_type(r, json_type_object))
			continue;
		e = json_object_new_object();
		json_object_object_add(e, "at", manifest_str(r, "at"));
		json_object_object_add(e, "reason", manifest_str(r, "reason"));
		be = json_object_new_object();
		if (json_object_object_get_ex(r, "before", &b) && json_object_is_type(b, json_type_object)) {
			json_object_object_add(be, "sub_domain", manifest_str(b, "sub_domain"));
			json_object_object_add(be, "root_code", manifest_str(b, "root_code"));
			if (json_object_object_get_ex(b, "culprit_nodes", &cn) &&
			    json_object_is_type(cn, json_type_array)) {
				struct json_object *l = json_object_new_array();

				for (size_t k = 0; k < json_object_array_length(cn); k++) {
					struct json_object *x = json_object_array_get_idx(cn, k);
					char *c;

					if (!json_object_is_type(x, json_type_string))
						continue;
					c = text_clean_str(json_object_get_string(x), RESULT_TEXT_MAX);
					json_object_array_add(l, json_object_new_string(c));
					free(c);
				}
				json_object_object_add(be, "culprit_nodes", l);
			}
		}
		json_object_object_add(e, "before", be);
		json_object_array_add(out, e);
	}
	json_object_object_add(o, EVIDENCE_REVISED, json_object_new_int64(json_object_get_int64(n)));
	json_object_object_add(o, EVIDENCE_REVISIONS, out);
}

struct json_object *result_build(struct analysis *a, const struct verdict *v)
{
	struct json_object *o = json_object_new_object(), *arr;
	const char *sub = v->sub_domain;
	bool *culprit = xcalloc(a->job.nodes.n + 1, sizeof(bool));
	bool *affected = xcalloc(a->job.nodes.n + 1, sizeof(bool));
	int downstream = 0, down_nodes = 0;
	bool *dn = xcalloc(a->job.nodes.n + 1, sizeof(bool));

	json_object_object_add(o, "schema", str(ATTRIB_RESULT_SCHEMA));
	json_object_object_add(o, "job_id", str(a->job.job_id));
	json_object_object_add(o, "terminal_state", str(a->job.state));
	json_object_object_add(o, "outcome", str(v->pass ? "Pass" : "Fail"));
	json_object_object_add(o, "domain", str(sub_domain_domain(sub)));
	json_object_object_add(o, "sub_domain", str(sub));
	json_object_object_add(o, "confidence", str(contract_confidences[v->confidence]));

	for (int i = 0; i < v->nroots && !v->pass; i++) {
		const struct symptom *r = v->roots[i];

		if (names_node(r, v) && (!v->root || r->node == v->root->node) && !v->culprit_switch)
			culprit[r->node] = true;
	}
	for (int i = 0; i < a->nsym; i++) {
		const struct symptom *s = a->sym[i];

		if (s->node >= 0 && s->code->kind != KIND_INFO && !v->pass &&
		    (s->role == ROLE_ROOT || s->role == ROLE_DOWNSTREAM))
			affected[s->node] = true;
		if (s->role == ROLE_DOWNSTREAM) {
			downstream++;
			if (s->node >= 0 && !dn[s->node]) {
				dn[s->node] = true;
				down_nodes++;
			}
		}
	}

	if (v->root) {
		struct json_object *rc = json_object_new_object();

		json_object_object_add(rc, "symptom", str(v->root->code->title));
		json_object_object_add(rc, "code", str(v->root->code->code));
		/* the rule class (rules/00-base.yaml), which
		 * attrib serve's drain policy (DrainClasses) goes by */
		json_object_object_add(rc, "class", str(v->root->code->class_name));
		json_object_object_add(rc, "node", str(node_name(a, v->root)));
		if (v->root->node >= 0 && v->root->located)
			json_object_object_add(rc, "located_by", str(located_name(v->root->located)));
		json_object_object_add(rc, "device", device(v->root));
		json_object_object_add(rc, "time", time_str(v->root->first));
		if (v->root->code->doc)
			json_object_object_add(rc, "meaning", str(v->root->code->doc));
		if (v->root->code->resolution)
			json_object_object_add(rc, "resolution", str(v->root->code->resolution));
		if (trust_name(v->root->trust))
			json_object_object_add(rc, "trust", str(trust_name(v->root->trust)));
		/* attribd looks across jobs for losses under one switch */
		if (v->root->code->flags & CODE_LINK_LOST)
			json_object_object_add(rc, "lost_link", json_object_new_boolean(1));
		json_object_object_add(rc, "evidence", evidence(a, v->root));
		json_object_object_add(o, "root_cause", rc);
	} else {
		json_object_object_add(o, "root_cause", NULL);
	}
	json_object_object_add(o, "culprit_nodes", node_list(a, culprit));
	json_object_object_add(o, "affected_nodes", node_list(a, affected));
	int nunder = 0; /* nodes under the switch blamed */
	if (v->culprit_switch) {
		bool *under = xcalloc(a->job.nodes.n + 1, sizeof(bool));

		for (int i = 0; i < v->nroots; i++) /* switch_blame: each root is on a node */
			if (!under[v->roots[i]->node]) {
				under[v->roots[i]->node] = true;
				nunder++;
			}
		json_object_object_add(o, "culprit_switch", str(v->culprit_switch));
		json_object_object_add(o, "switch_nodes", node_list(a, under));
		free(under);
	}

	struct symptom **sorted = xcalloc(a->nsym + 1, sizeof(*sorted));
	memcpy(sorted, a->sym, a->nsym * sizeof(*sorted));
	if (a->nsym)
		qsort(sorted, a->nsym, sizeof(*sorted), sym_order);
	arr = json_object_new_array();
	for (int i = 0; i < a->nsym && i < MAX_SYMPTOMS; i++)
		json_object_array_add(arr, symptom_json(a, sorted[i]));
	json_object_object_add(o, "symptoms", arr);
	if (a->nsym > MAX_SYMPTOMS)
		json_object_object_add(o, "symptoms_omitted", json_object_new_int(a->nsym - MAX_SYMPTOMS));
	free(sorted);

	arr = json_object_new_array();
	if (v->culprit_switch) {
		struct json_object *act = json_object_new_object();
		char reason[REASON_MAX];

		snprintf(reason, sizeof(reason), "%d nodes under it lost their links: %s (job %s)", nunder,
			 v->root->code->title, a->job.job_id);
		json_object_object_add(act, "switch", str(v->culprit_switch));
		json_object_object_add(act, "action", str("inspect"));
		json_object_object_add(act, "reason", str(reason));
		json_object_array_add(arr, act);
	} else if (v->root && !v->pass) {
		char reason[REASON_MAX];

		action_reason(a, v->root, reason, sizeof(reason));
		for (int i = 0; i < a->job.nodes.n; i++)
			if (culprit[i] && strcmp(root_action(v->root), "none"))
				json_object_array_add(arr,
						      action(a->job.nodes.v[i], root_action(v->root),
							     reason));
	} else if (!strcmp(sub, "ambiguous")) {
		bool *done = xcalloc(a->job.nodes.n + 1, sizeof(bool));

		for (int i = 0; i < v->nroots; i++) { /* the earliest candidate per node */
			const struct symptom *r = v->roots[i];
			char reason[REASON_MAX];

			if (!names_node(r, v) || done[r->node])
				continue;
			done[r->node] = true;
			action_reason(a, r, reason, sizeof(reason));
			json_object_array_add(arr, action(a->job.nodes.v[r->node], "inspect", reason));
		}
		free(done);
	}
	if (!v->root && !v->pass && strcmp(sub, "ambiguous"))
		suspect_nodes(a, arr);
	json_object_object_add(o, "actions", arr);

	arr = json_object_new_array();
	for (int i = 0; i < a->ncov; i++) {
		struct json_object *c = json_object_new_object();

		json_object_object_add(c, "source", str(a->cov[i].source));
		json_object_object_add(c, "status", str(a->cov[i].status));
		json_object_object_add(c, "detail", str(a->cov[i].detail));
		json_object_array_add(arr, c);
	}
	collected_coverage(a, arr);
	json_object_object_add(o, "coverage", arr);

	if (a->hang) {
		struct json_object *h = json_object_new_object();

		json_object_object_add(h, "since", time_str(a->hang_since));
		json_object_object_add(h, "silence_s", json_object_new_double(a->job.end - a->hang_since));
		json_object_object_add(h, "cadence_s", json_object_new_double(a->cadence));
		json_object_object_add(h, "last_progress", evidence_one(a, &a->last_progress));
		json_object_object_add(o, "hang", h);
	}
	if (a->clock_estimated) {
		struct json_object *off = NULL;

		for (int i = 0; i < a->job.nodes.n; i++)
			if (a->clock_offset[i]) {
				if (!off)
					off = json_object_new_object();
				char *k = text_sanitise(a->job.nodes.v[i], strlen(a->job.nodes.v[i]), 256);

				json_object_object_add(off, k, json_object_new_double(a->clock_offset[i]));
				free(k);
			}
		if (off)
			json_object_object_add(o, "clock_offsets", off);
	}

	char *ex = explanation(a, v, downstream, down_nodes);
	const char *dom = sub_domain_domain(sub);
	if (v->root && !v->pass &&
	    (v->root->trust == TRUST_UNAUTHENTICATED ||
	     (v->root->trust == TRUST_JOB_OUTPUT && dom && !strcmp(dom, "infra")))) {
		bool down = strcmp(root_action(v->root), v->root->code->action);
		char *more;

		/* the job's word on the infrastructure: its user's own failure
		 * in its own output needs no such note */
		if (asprintf(&more, "%s Its only evidence is %s%s%s.", ex,
			     v->root->trust == TRUST_JOB_OUTPUT
				     ? "the job's own output, which its user writes: it explains this job, "
				       "but proves no fault of a node or switch to other jobs"
				     : "in node files anyone on the node can write (syslog files, other "
				       "users' journal entries): not proof of a fault",
			     down ? ", so the action is inspect, not " : "",
			     down ? v->root->code->action : "") < 0)
			abort();
		free(ex);
		ex = more;
	}
	char *said;
	if (asprintf(&said, "%s Confidence %s: %s%s.", ex, contract_confidences[v->confidence], v->basis,
		     v->basis_more ? v->basis_more : "") < 0)
		abort();
	free(ex);
	json_object_object_add(o, "explanation", str(said));
	free(said);

	struct json_object *eng = json_object_new_object();
	json_object_object_add(eng, "files", json_object_new_int(a->files.n));
	json_object_object_add(eng, "matched_lines", json_object_new_int64(a->lines_scanned));
	json_object_object_add(eng, "events", json_object_new_int64(a->events));
	json_object_object_add(o, "engine", eng);
	/* which catalog decided: a development tree's ./attrib and an installed
	 * one may use different ones */
	json_object_object_add(o, "catalog", str(a->cat->path));
	/* the job's facts (job.json) and the service's history of this
	 * diagnosis (evidence.json): attrib analyze of a stored case gives
	 * the stored result */
	result_add_job(o, &a->job.record);
	revisions(a, o);

	free(culprit);
	free(affected);
	free(dn);
	return o;
}
