/* Loads the rule catalog (the YAML files of rules/, see doc/rule-format.md) with libyaml,
 * checks every field and compiles every regex.  Each problem is reported
 * as file:line: message; any problem refuses the catalog. */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>
#include "internal.h"

struct loader {
	attrib_catalog *cat;
	FILE *err;
	int errors;
	const char *file;
	yaml_document_t *doc;
};

static void problem(struct loader *L, yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void problem(struct loader *L, yaml_node_t *n, const char *fmt, ...)
{
	va_list ap;

	fprintf(L->err, "%s:%lu: ", L->file, n ? (unsigned long)n->start_mark.line + 1 : 0UL);
	va_start(ap, fmt);
	vfprintf(L->err, fmt, ap);
	va_end(ap);
	fputc('\n', L->err);
	L->errors++;
}

static int line_of(yaml_node_t *n)
{
	return n ? (int)n->start_mark.line + 1 : 0;
}

static const char *scalar(yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static yaml_node_t *node(struct loader *L, yaml_node_item_t i)
{
	return yaml_document_get_node(L->doc, i);
}

/* Value of key in a mapping; NULL if absent. */
static yaml_node_t *get(struct loader *L, yaml_node_t *map, const char *key)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		const char *k = scalar(node(L, p->key));

		if (k && !strcmp(k, key))
			return node(L, p->value);
	}
	return NULL;
}

/* Rejects keys a rule does not know: a typo must not pass silently. */
static void known_keys(struct loader *L, yaml_node_t *map, const char *const *keys)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		const char *k = scalar(node(L, p->key));
		bool ok = false;

		for (const char *const *q = keys; *q && k; q++)
			if (!strcmp(*q, k))
				ok = true;
		if (!ok)
			problem(L, node(L, p->key), "unknown key \"%s\"", k ? k : "?");
	}
}

/* Refuses a key given twice in one mapping, anywhere in the file: libyaml
 * keeps both, get() reads the first, so two "id:" would silently merge two
 * rules into one. */
static void unique_keys(struct loader *L)
{
	for (yaml_node_t *m = L->doc->nodes.start; m < L->doc->nodes.top; m++) {
		if (m->type != YAML_MAPPING_NODE)
			continue;
		for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
			const char *k = scalar(node(L, p->key));

			for (yaml_node_pair_t *q = m->data.mapping.pairs.start; k && q < p; q++) {
				const char *e = scalar(node(L, q->key));

				if (e && !strcmp(e, k)) {
					problem(L, node(L, p->key), "duplicate key \"%s\"", k);
					break;
				}
			}
		}
	}
}

static char *get_str(struct loader *L, yaml_node_t *map, const char *key, bool required)
{
	yaml_node_t *v = get(L, map, key);

	if (!v) {
		if (required)
			problem(L, map, "missing \"%s\"", key);
		return NULL;
	}
	if (!scalar(v)) {
		problem(L, v, "\"%s\" must be a string", key);
		return NULL;
	}
	return strdup_or_die(scalar(v));
}

static double get_num(struct loader *L, yaml_node_t *map, const char *key, double def)
{
	yaml_node_t *v = get(L, map, key);
	char *end;
	double d;

	if (!v)
		return def;
	if (!scalar(v) || (d = strtod(scalar(v), &end), *end) || end == scalar(v)) {
		problem(L, v, "\"%s\" must be a number", key);
		return def;
	}
	return d;
}

static bool get_bool(struct loader *L, yaml_node_t *map, const char *key)
{
	const char *s = scalar(get(L, map, key));

	if (!get(L, map, key))
		return false;
	if (s && (!strcmp(s, "true") || !strcmp(s, "yes")))
		return true;
	if (s && (!strcmp(s, "false") || !strcmp(s, "no")))
		return false;
	problem(L, get(L, map, key), "\"%s\" must be true or false", key);
	return false;
}

/* A string or a list of strings. */
static void get_list(struct loader *L, yaml_node_t *map, const char *key, struct strlist *out)
{
	yaml_node_t *v = get(L, map, key);

	if (!v)
		return;
	if (scalar(v)) {
		strlist_add(out, scalar(v));
		return;
	}
	if (v->type != YAML_SEQUENCE_NODE) {
		problem(L, v, "\"%s\" must be a string or a list", key);
		return;
	}
	for (yaml_node_item_t *i = v->data.sequence.items.start; i < v->data.sequence.items.top; i++) {
		const char *s = scalar(node(L, *i));

		if (s)
			strlist_add(out, s);
		else
			problem(L, node(L, *i), "\"%s\" items must be strings", key);
	}
}

/* The file name rules keep pointing at (owned by the catalog). */
static const char *keep_file(struct loader *L)
{
	return L->file;
}

/* ---- classes and codes ---- */

static const char *const code_keys[] = { "code",   "class", "kind",   "sub_domain", "scope",
					 "action", "title", "doc",    "resolution", "mnemonic",
					 "tags",   "also",  "decode", NULL };
static const char *const row_keys[] = { "values", "class", "kind", "sub_domain", "scope",
					"action", "title", "doc",  "resolution", "mnemonic",
					"tags",	  "also",  NULL };

static struct code *find_class(const attrib_catalog *cat, const char *name)
{
	for (int i = 0; i < cat->nclasses; i++)
		if (!strcmp(cat->classes[i]->class_name, name))
			return cat->classes[i];
	return NULL;
}

static void set_str(char **dst, const char *src)
{
	if (src) {
		free(*dst);
		*dst = strdup_or_die(src);
	}
}

static void code_copy_from(struct code *c, const struct code *from)
{
	c->kind = from->kind;
	c->scope = from->scope;
	set_str(&c->sub_domain, from->sub_domain);
	set_str(&c->action, from->action);
	set_str(&c->class_name, from->class_name);
	set_str(&c->also, from->also);
}

/* Applies class defaults, then the keys given in map. */
static void code_fields(struct loader *L, struct code *c, yaml_node_t *map, bool is_class)
{
	const char *s;

	if (!is_class && (s = scalar(get(L, map, "class")))) {
		struct code *k = find_class(L->cat, s);

		if (k)
			code_copy_from(c, k);
		else if (L->cat->nclasses || get(L, map, "code"))
			problem(L, get(L, map, "class"), "unknown class \"%s\"", s);
		set_str(&c->class_name, s);
	}
	if ((s = scalar(get(L, map, "kind")))) {
		int k = kind_parse(s);

		if (k < 0)
			problem(L, get(L, map, "kind"), "kind must be fault, consequence, scheduler or info");
		else
			c->kind = k;
	}
	if ((s = scalar(get(L, map, "sub_domain")))) {
		if (!sub_domain_domain(s) || !strcmp(s, "Pass") || !strcmp(s, "ambiguous") ||
		    !strcmp(s, "unattributed"))
			problem(L, get(L, map, "sub_domain"), "\"%s\" is not a cause sub_domain", s);
		set_str(&c->sub_domain, s);
	}
	if ((s = scalar(get(L, map, "scope")))) {
		if (strcmp(s, "node") && strcmp(s, "job"))
			problem(L, get(L, map, "scope"), "scope must be node or job");
		c->scope = !strcmp(s, "node") ? SCOPE_NODE : SCOPE_JOB;
	}
	if ((s = scalar(get(L, map, "action")))) {
		if (!action_valid(s))
			problem(L, get(L, map, "action"),
				"action must be drain, reboot, reset_gpu, inspect or none");
		set_str(&c->action, s);
	}
	set_str(&c->title, scalar(get(L, map, "title")));
	set_str(&c->doc, scalar(get(L, map, "doc")));
	set_str(&c->resolution, scalar(get(L, map, "resolution")));
	set_str(&c->mnemonic, scalar(get(L, map, "mnemonic")));
	if ((s = scalar(get(L, map, "also")))) {
		if (!sub_domain_domain(s) || !strcmp(s, "Pass") || !strcmp(s, "ambiguous") ||
		    !strcmp(s, "unattributed"))
			problem(L, get(L, map, "also"), "\"%s\" is not a cause sub_domain", s);
		set_str(&c->also, s);
	}
	if (get(L, map, "tags")) {
		strlist_free(&c->tags);
		get_list(L, map, "tags", &c->tags);
	}
}

static void code_check(struct loader *L, struct code *c, yaml_node_t *at)
{
	if (!c->kind)
		problem(L, at, "%s: no kind (give a class or a kind)", c->code);
	if ((c->kind == KIND_FAULT || c->kind == KIND_SCHEDULER) && !c->sub_domain)
		problem(L, at, "%s: a %s needs a sub_domain", c->code, kind_name(c->kind));
	if (!c->action)
		c->action = strdup_or_die("none");
	if (!c->title)
		c->title = strdup_or_die(c->code);
}

static void load_classes(struct loader *L, yaml_node_t *seq)
{
	static const char *const keys[] = { "class",  "kind", "sub_domain",	  "scope",
					    "action", "also", "drain_by_default", NULL };

	for (yaml_node_item_t *i = seq->data.sequence.items.start; i < seq->data.sequence.items.top; i++) {
		yaml_node_t *m = node(L, *i);
		struct code *c = xcalloc(1, sizeof(*c));

		known_keys(L, m, keys);
		c->class_name = get_str(L, m, "class", true);
		if (!c->class_name) {
			free(c);
			continue;
		}
		if (find_class(L->cat, c->class_name))
			problem(L, m, "class \"%s\" defined twice", c->class_name);
		c->code = strdup_or_die(c->class_name);
		c->file = keep_file(L);
		c->line = line_of(m);
		code_fields(L, c, m, true);
		code_check(L, c, m);
		c->drain_by_default = get_bool(L, m, "drain_by_default");
		L->cat->classes = xrealloc(L->cat->classes, (L->cat->nclasses + 1) * sizeof(void *));
		L->cat->classes[L->cat->nclasses++] = c;
	}
}

static struct code *code_clone(const struct code *p)
{
	struct code *c = xcalloc(1, sizeof(*c));

	c->code = strdup_or_die(p->code);
	c->class_name = strdup_or_die(p->class_name);
	c->kind = p->kind;
	c->scope = p->scope;
	c->sub_domain = strdup_or_die(p->sub_domain);
	c->action = strdup_or_die(p->action);
	c->title = strdup_or_die(p->title);
	c->doc = strdup_or_die(p->doc);
	c->resolution = strdup_or_die(p->resolution);
	c->mnemonic = strdup_or_die(p->mnemonic);
	c->also = strdup_or_die(p->also);
	for (int i = 0; i < p->tags.n; i++)
		strlist_add(&c->tags, p->tags.v[i]);
	c->file = p->file;
	c->line = p->line;
	return c;
}

static void load_decode(struct loader *L, struct code *c, yaml_node_t *d)
{
	static const char *const keys[] = { "field", "shift", "mask", "rows", NULL };
	yaml_node_t *rows = get(L, d, "rows");
	char *mask;

	known_keys(L, d, keys);
	c->decode_field = get_str(L, d, "field", true);
	c->decode_shift = (int)get_num(L, d, "shift", 0);
	mask = get_str(L, d, "mask", false);
	c->decode_mask = mask ? strtoul(mask, NULL, 0) : ~0UL;
	free(mask);
	if (!rows || rows->type != YAML_SEQUENCE_NODE) {
		problem(L, d, "decode needs a list of rows");
		return;
	}
	for (yaml_node_item_t *i = rows->data.sequence.items.start; i < rows->data.sequence.items.top; i++) {
		yaml_node_t *m = node(L, *i);
		struct code_row *r;
		struct strlist vals = { 0 };

		known_keys(L, m, row_keys);
		c->rows = xrealloc(c->rows, (c->nrows + 1) * sizeof(*c->rows));
		r = &c->rows[c->nrows++];
		memset(r, 0, sizeof(*r));
		get_list(L, m, "values", &vals);
		if (!vals.n)
			problem(L, m, "a decode row needs values");
		r->values = xcalloc(vals.n, sizeof(long));
		for (int k = 0; k < vals.n; k++) {
			char *end;

			r->values[k] = strtol(vals.v[k], &end, 0);
			if (*end)
				problem(L, m, "decode value \"%s\" is not a number", vals.v[k]);
		}
		r->nvalues = vals.n;
		strlist_free(&vals);
		r->as = code_clone(c);
		r->as->line = line_of(m);
		code_fields(L, r->as, m, false);
		code_check(L, r->as, m);
	}
}

static void load_codes(struct loader *L, yaml_node_t *seq)
{
	for (yaml_node_item_t *i = seq->data.sequence.items.start; i < seq->data.sequence.items.top; i++) {
		yaml_node_t *m = node(L, *i);
		struct code *c = xcalloc(1, sizeof(*c));

		known_keys(L, m, code_keys);
		c->code = get_str(L, m, "code", true);
		if (!c->code) {
			free(c);
			continue;
		}
		if (catalog_code(L->cat, c->code))
			problem(L, m, "code \"%s\" defined twice", c->code);
		if (!get(L, m, "class") && !get(L, m, "kind"))
			problem(L, m, "%s: needs a class", c->code);
		c->file = keep_file(L);
		c->line = line_of(m);
		code_fields(L, c, m, false);
		code_check(L, c, m);
		if (get(L, m, "decode"))
			load_decode(L, c, get(L, m, "decode"));
		L->cat->codes = xrealloc(L->cat->codes, (L->cat->ncodes + 1) * sizeof(void *));
		L->cat->codes[L->cat->ncodes++] = c;
	}
}

/* ---- regexes ---- */

static pcre2_code *compile(struct loader *L, yaml_node_t *at, const char *re, uint32_t opts)
{
	int ec;
	PCRE2_SIZE off;
	pcre2_code *c = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED, opts, &ec, &off, NULL);

	if (!c) {
		PCRE2_UCHAR msg[256];

		pcre2_get_error_message(ec, msg, sizeof(msg));
		problem(L, at, "regex error at offset %zu: %s", (size_t)off, msg);
		return NULL;
	}
	pcre2_jit_compile(c, PCRE2_JIT_COMPLETE); /* falls back to the interpreter */
	return c;
}

/* The bytes a match of the anchored pattern re can begin with: each byte
 * alone as the subject, with hard partial matching, either matches, or is
 * the start of a match the subject ends too early for, or cannot begin
 * one. */
static void first_bytes(pcre2_code *re, bool first[256])
{
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);

	for (int b = 0; b < 256; b++) {
		unsigned char c = (unsigned char)b;
		int rc = pcre2_match(re, &c, 1, 0, PCRE2_PARTIAL_HARD, md, NULL);

		/* an error other than "no match" (none is expected): keep the byte */
		first[b] = rc != PCRE2_ERROR_NOMATCH;
	}
	pcre2_match_data_free(md);
}

static void load_prefixes(struct loader *L, yaml_node_t *seq)
{
	static const char *const keys[] = { "id", "regex", "doc", NULL };

	for (yaml_node_item_t *i = seq->data.sequence.items.start; i < seq->data.sequence.items.top; i++) {
		yaml_node_t *m = node(L, *i);
		struct prefix p = { 0 };
		char *re;

		known_keys(L, m, keys);
		p.id = get_str(L, m, "id", true);
		re = get_str(L, m, "regex", true);
		if (re && re[0] != '^')
			problem(L, m, "a prefix regex must start with ^");
		if (re)
			p.re = compile(L, get(L, m, "regex"), re, PCRE2_ANCHORED);
		if (p.re)
			first_bytes(p.re, p.first);
		free(re);
		p.file = keep_file(L);
		p.line = line_of(m);
		L->cat->prefixes = xrealloc(L->cat->prefixes, (L->cat->nprefixes + 1) * sizeof(p));
		L->cat->prefixes[L->cat->nprefixes++] = p;
	}
}

static int parse_sources(struct loader *L, yaml_node_t *m)
{
	const char *s = scalar(get(L, m, "source"));
	char words[256] = "";
	int k = evidence_kind_of_source(s);

	if (!s || !strcmp(s, "any"))
		return SRC_ANY;
	if (k >= 0)
		return 1 << k;
	for (k = 0; k < EVIDENCE_KINDS; k++)
		snprintf(words + strlen(words), sizeof(words) - strlen(words), "%s, ",
			 evidence_kinds[k].source);
	problem(L, get(L, m, "source"), "source must be %sor any", words);
	return SRC_ANY;
}

/* origin: kernel: the rule reads lines only the kernel can write (NVRM
 * Xid, AER, OOM killer ...), so it must not take a line of a node file
 * anyone could have written (doc/live-pipeline.md, evidence.json). */
static bool parse_origin(struct loader *L, yaml_node_t *m, int sources)
{
	const char *s = scalar(get(L, m, "origin"));

	if (!s || !strcmp(s, "any"))
		return false;
	if (strcmp(s, "kernel")) {
		problem(L, get(L, m, "origin"), "origin must be kernel or any");
		return false;
	}
	if (sources != SRC_NODE)
		problem(L, get(L, m, "origin"),
			"origin: kernel needs source: node (only node files have an origin)");
	return true;
}

static void load_fields_map(struct loader *L, yaml_node_t *map, struct strlist *names, struct strlist *values)
{
	if (!map)
		return;
	if (map->type != YAML_MAPPING_NODE) {
		problem(L, map, "fields must be a mapping");
		return;
	}
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		const char *k = scalar(node(L, p->key)), *v = scalar(node(L, p->value));

		if (!k || !v) {
			problem(L, node(L, p->key), "fields: names and values must be strings");
			continue;
		}
		strlist_add(names, k);
		strlist_add(values, v);
	}
}

static struct test_case *load_tests(struct loader *L, yaml_node_t *seq, int *n, bool refiner)
{
	static const char *const xkeys[] = { "line", "code", "fields", "none", NULL };
	static const char *const rkeys[] = { "events", "expect", NULL };
	static const char *const ekeys[] = { "code", "node", "time", "pid", "pci", NULL };
	struct test_case *t = NULL;

	*n = 0;
	if (!seq || seq->type != YAML_SEQUENCE_NODE)
		return NULL;
	for (yaml_node_item_t *i = seq->data.sequence.items.start; i < seq->data.sequence.items.top; i++) {
		yaml_node_t *m = node(L, *i);
		struct test_case *c;

		t = xrealloc(t, (*n + 1) * sizeof(*t));
		c = &t[(*n)++];
		memset(c, 0, sizeof(*c));
		c->src_line = line_of(m);
		if (!refiner) {
			known_keys(L, m, xkeys);
			c->line = get_str(L, m, "line", true);
			c->code = get_str(L, m, "code", false);
			c->none = get_bool(L, m, "none");
			if (c->code && c->none)
				problem(L, m, "a case has either \"code\" or \"none: true\"");
			load_fields_map(L, get(L, m, "fields"), &c->field_names, &c->field_values);
			continue;
		}
		known_keys(L, m, rkeys);
		yaml_node_t *ev = get(L, m, "events");
		if (!ev || ev->type != YAML_SEQUENCE_NODE) {
			problem(L, m, "a refiner case needs a list of events");
			continue;
		}
		for (yaml_node_item_t *e = ev->data.sequence.items.start; e < ev->data.sequence.items.top;
		     e++) {
			yaml_node_t *em = node(L, *e);
			struct test_event *te;

			known_keys(L, em, ekeys);
			c->events = xrealloc(c->events, (c->nevents + 1) * sizeof(*c->events));
			te = &c->events[c->nevents++];
			te->code = get_str(L, em, "code", true);
			te->node = get_str(L, em, "node", false);
			te->time = get_str(L, em, "time", false);
			te->pid = get_str(L, em, "pid", false);
			te->pci = get_str(L, em, "pci", false);
			if (te->code && !catalog_code(L->cat, te->code))
				problem(L, em, "case event code \"%s\" is not in the catalog", te->code);
		}
		load_fields_map(L, get(L, m, "expect"), &c->expect_codes, &c->expect_roles);
		if (!c->expect_codes.n)
			problem(L, m, "a refiner case needs \"expect\"");
	}
	return t;
}

static void load_extractors(struct loader *L, yaml_node_t *seq)
{
	static const char *const keys[] = { "id",	 "source", "origin", "writer",	 "regex",
					    "prefilter", "code",   "lines",  "priority", "identity",
					    "fields",	 "tests",  "doc",    NULL };

	for (yaml_node_item_t *i = seq->data.sequence.items.start; i < seq->data.sequence.items.top; i++) {
		yaml_node_t *m = node(L, *i);
		struct extractor x = { 0 };

		known_keys(L, m, keys);
		x.id = get_str(L, m, "id", true);
		x.file = keep_file(L);
		x.line = line_of(m);
		/* an earlier extractor without an id (already a problem) has none
		 * to compare (strcmp(NULL): found by fuzz_rules) */
		for (int k = 0; k < L->cat->nextractors && x.id; k++)
			if (L->cat->extractors[k].id && !strcmp(L->cat->extractors[k].id, x.id))
				problem(L, m, "extractor id \"%s\" used twice", x.id);
		x.sources = parse_sources(L, m);
		x.kernel_only = parse_origin(L, m, x.sources);
		get_list(L, m, "writer", &x.writers);
		x.writer_len = xcalloc(x.writers.n + 1, sizeof(size_t));
		for (int w = 0; w < x.writers.n; w++) {
			x.kernel_writer |= !strcmp(x.writers.v[w], "kernel");
			x.writer_len[w] = strlen(x.writers.v[w]);
		}
		if (x.kernel_only && x.writers.n)
			problem(L, get(L, m, "writer"), "origin: kernel names its writer already");
		/* a node file holds many writers' lines, users' among them */
		if ((x.sources & SRC_NODE) && !x.kernel_only && !x.writers.n)
			problem(L, m,
				"a rule that reads node files names its writer (origin: kernel, or writer: "
				"the daemons whose message it is)");
		x.regex = get_str(L, m, "regex", true);
		x.prefilter = get_str(L, m, "prefilter", false);
		x.lines = (int)get_num(L, m, "lines", 1);
		if (x.lines < 1 || x.lines > 50)
			problem(L, m, "lines must be 1 to 50");
		x.priority = (int)get_num(L, m, "priority", 0);
		x.identity = get_bool(L, m, "identity");
		x.code_tpl = get_str(L, m, "code", !x.identity);
		if (x.regex)
			/* a kernel message from its first byte (message.c) */
			x.re = compile(L, get(L, m, "regex"), x.regex,
				       x.lines > 1 ? PCRE2_MULTILINE : (x.kernel_only ? PCRE2_ANCHORED : 0));
		if (x.regex && x.writers.n && x.lines == 1)
			x.re_msg = compile(L, get(L, m, "regex"), x.regex, PCRE2_ANCHORED);
		if (x.code_tpl && !strchr(x.code_tpl, '{')) {
			x.code = catalog_code(L->cat, x.code_tpl);
			if (!x.code)
				problem(L, get(L, m, "code"), "code \"%s\" is not in the catalog",
					x.code_tpl);
		}
		if (x.code_tpl && x.re) { /* every {capture} must exist */
			for (const char *p = strchr(x.code_tpl, '{'); p; p = strchr(p + 1, '{')) {
				const char *e = strchr(p, '}');
				char name[64];

				if (!e || e - p - 1 >= (long)sizeof(name)) {
					problem(L, m, "bad code template \"%s\"", x.code_tpl);
					break;
				}
				snprintf(name, sizeof(name), "%.*s", (int)(e - p - 1), p + 1);
				if (pcre2_substring_number_from_name(x.re, (PCRE2_SPTR)name) < 0)
					problem(L, m,
						"code template names {%s}, which the regex does not capture",
						name);
			}
		}
		load_fields_map(L, get(L, m, "fields"), &x.const_names, &x.const_values);
		x.tests = load_tests(L, get(L, m, "tests"), &x.ntests, false);
		for (int k = 0; k < x.ntests; k++)
			if (!x.tests[k].none && !x.tests[k].code && !x.identity) {
				if (x.code)
					x.tests[k].code = strdup_or_die(x.code->code);
				else
					problem(L, m, "case at line %d: a templated code needs \"code\"",
						x.tests[k].src_line);
			}
		if (!x.identity) {
			bool pos = false, neg = false;

			for (int k = 0; k < x.ntests; k++)
				*(x.tests[k].none ? &neg : &pos) = true;
			if (!pos || !neg)
				problem(L, m, "extractor \"%s\" needs a positive and a negative case",
					x.id ? x.id : "?");
		} else if (!x.ntests) {
			problem(L, m, "extractor \"%s\" needs a case", x.id ? x.id : "?");
		}
		L->cat->extractors = xrealloc(L->cat->extractors, (L->cat->nextractors + 1) * sizeof(x));
		L->cat->extractors[L->cat->nextractors++] = x;
	}
}

/* ---- refiners ---- */

static void load_selector(struct loader *L, yaml_node_t *m, struct selector *s, const char *what)
{
	static const char *const keys[] = { "codes",	   "tags",    "kinds", "classes",
					    "sub_domains", "sources", NULL };
	struct strlist src = { 0 };

	if (!m || m->type != YAML_MAPPING_NODE) {
		problem(L, m, "refiner needs a \"%s\" selector", what);
		return;
	}
	known_keys(L, m, keys);
	get_list(L, m, "sources", &src);
	for (int i = 0; i < src.n; i++) {
		int k = evidence_kind_of_source(src.v[i]);

		if (k < 0)
			problem(L, m, "unknown source \"%s\"", src.v[i]);
		else
			s->sources |= 1 << k;
	}
	strlist_free(&src);
	get_list(L, m, "codes", &s->codes);
	get_list(L, m, "tags", &s->tags);
	get_list(L, m, "kinds", &s->kinds);
	get_list(L, m, "classes", &s->classes);
	get_list(L, m, "sub_domains", &s->sub_domains);
	for (int i = 0; i < s->kinds.n; i++)
		if (kind_parse(s->kinds.v[i]) < 0)
			problem(L, m, "unknown kind \"%s\"", s->kinds.v[i]);
	for (int i = 0; i < s->classes.n; i++)
		if (!find_class(L->cat, s->classes.v[i]))
			problem(L, m, "unknown class \"%s\"", s->classes.v[i]);
	s->any = !s->codes.n && !s->tags.n && !s->kinds.n && !s->classes.n && !s->sub_domains.n &&
		!s->sources;
}

static void load_refiners(struct loader *L, yaml_node_t *seq)
{
	static const char *const keys[] = { "id",     "doc",	 "symptom", "explained_by", "same", "order",
					    "within", "verdict", "as",	    "tests",	    NULL };

	for (yaml_node_item_t *i = seq->data.sequence.items.start; i < seq->data.sequence.items.top; i++) {
		yaml_node_t *m = node(L, *i);
		struct refiner r = { 0 };
		const char *s;

		known_keys(L, m, keys);
		r.id = get_str(L, m, "id", true);
		r.doc = get_str(L, m, "doc", false);
		r.file = keep_file(L);
		r.line = line_of(m);
		load_selector(L, get(L, m, "symptom"), &r.target, "symptom");
		load_selector(L, get(L, m, "explained_by"), &r.by, "explained_by");
		s = scalar(get(L, m, "same"));
		if (!s || !strcmp(s, "job"))
			r.same = SAME_JOB;
		else if (!strcmp(s, "node"))
			r.same = SAME_NODE;
		else if (!strcmp(s, "pid"))
			r.same = SAME_PID;
		else if (!strcmp(s, "gpu"))
			r.same = SAME_GPU;
		else
			problem(L, get(L, m, "same"), "same must be job, node, pid or gpu");
		s = scalar(get(L, m, "order"));
		r.order = !s || !strcmp(s, "after") ? ORDER_AFTER
			: !strcmp(s, "before")	    ? ORDER_BEFORE
						    : ORDER_ANY;
		if (s && strcmp(s, "after") && strcmp(s, "before") && strcmp(s, "any"))
			problem(L, get(L, m, "order"), "order must be after, before or any");
		r.within = get_num(L, m, "within", 0);
		s = scalar(get(L, m, "verdict"));
		r.verdict = ROLE_DOWNSTREAM;
		if (s && !strcmp(s, "interesting"))
			r.verdict = ROLE_INTERESTING;
		else if (s && strcmp(s, "downstream"))
			problem(L, get(L, m, "verdict"), "verdict must be downstream or interesting");
		if ((s = scalar(get(L, m, "as")))) {
			if (get(L, m, "verdict"))
				problem(L, get(L, m, "as"), "a refiner gives a verdict or as, not both");
			if (!(r.as = catalog_code(L->cat, s)))
				problem(L, get(L, m, "as"), "code \"%s\" is not in the catalog", s);
		}
		r.tests = load_tests(L, get(L, m, "tests"), &r.ntests, true);
		if (!r.ntests)
			problem(L, m, "refiner \"%s\" needs a case", r.id ? r.id : "?");
		L->cat->refiners = xrealloc(L->cat->refiners, (L->cat->nrefiners + 1) * sizeof(r));
		L->cat->refiners[L->cat->nrefiners++] = r;
	}
}

static void load_settings(struct loader *L, yaml_node_t *m)
{
	static const char *const keys[] = { "window_before", "window_after",	 "clock_skew",	 "tie_window",
					    "max_evidence",  "history",		 "report_lag",	 "gpu_tags",
					    "switch_window", "switch_min_nodes", "switch_share", NULL };
	struct settings *s = &L->cat->set;

	known_keys(L, m, keys);
	s->window_before = get_num(L, m, "window_before", s->window_before);
	s->window_after = get_num(L, m, "window_after", s->window_after);
	s->clock_skew = get_num(L, m, "clock_skew", s->clock_skew);
	s->tie_window = get_num(L, m, "tie_window", s->tie_window);
	s->history = get_num(L, m, "history", s->history);
	s->report_lag = get_num(L, m, "report_lag", s->report_lag);
	if (get(L, m, "gpu_tags")) {
		strlist_free(&s->gpu_tags);
		get_list(L, m, "gpu_tags", &s->gpu_tags);
	}
	s->max_evidence = (int)get_num(L, m, "max_evidence", s->max_evidence);
	s->switch_window = get_num(L, m, "switch_window", s->switch_window);
	s->switch_min_nodes = (int)get_num(L, m, "switch_min_nodes", s->switch_min_nodes);
	s->switch_share = get_num(L, m, "switch_share", s->switch_share);
	if (s->switch_min_nodes < 2)
		problem(L, m, "switch_min_nodes must be 2 or more (one node's lost link is its own)");
	if (s->switch_share < 0 || s->switch_share > 1 || s->switch_window < 0)
		problem(L, m, "switch_share must be 0 to 1, switch_window 0 or more");
	if (s->max_evidence < 1 || s->max_evidence > 100)
		problem(L, m, "max_evidence must be 1 to 100");
}

static void code_set_flags(const attrib_catalog *cat, struct code *c)
{
	static const struct {
		const char *tag;
		unsigned flag;
	} read[] = {
		{ "progress", CODE_PROGRESS },	 { "clock-sync", CODE_CLOCK_SYNC },
		{ "ends-hang", CODE_ENDS_HANG }, { "reported-late", CODE_REPORTED_LATE },
		{ "suspect", CODE_SUSPECT },	 { "boot", CODE_BOOT },
		{ "link-lost", CODE_LINK_LOST }, { "repeat-cause", CODE_GENERIC },
		{ "fatal", CODE_FATAL },
	};

	c->flags = 0;
	for (size_t i = 0; i < sizeof(read) / sizeof(read[0]); i++)
		if (strlist_has(&c->tags, read[i].tag))
			c->flags |= read[i].flag;
	for (int i = 0; i < cat->set.gpu_tags.n; i++)
		if (strlist_has(&c->tags, cat->set.gpu_tags.v[i]))
			c->flags |= CODE_GPU;
}

/* Each refiner's selectors evaluated once per code. */
static void refiners_index(attrib_catalog *cat, int ncodes)
{
	struct symptom probe = { 0 };

	for (int k = 0; k < cat->nrefiners; k++) {
		struct refiner *r = &cat->refiners[k];

		r->target_code = xcalloc(ncodes + 1, sizeof(bool));
		r->by_code = xcalloc(ncodes + 1, sizeof(bool));
		for (int i = 0; i < cat->ncodes; i++)
			for (int row = -1; row < cat->codes[i]->nrows; row++) {
				probe.code = row < 0 ? cat->codes[i] : cat->codes[i]->rows[row].as;
				r->target_code[probe.code->index] = selector_match(&r->target, &probe);
				r->by_code[probe.code->index] = selector_match(&r->by, &probe);
			}
		probe.code = cat->unknown;
		r->target_code[probe.code->index] = selector_match(&r->target, &probe);
		r->by_code[probe.code->index] = selector_match(&r->by, &probe);
	}
}

/* ---- files ---- */

struct parsed {
	yaml_document_t doc;
	const char *file;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list_files(const char *path, struct strlist *out, FILE *err)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	struct strlist names = { 0 };

	if (stat(path, &st) < 0) {
		fprintf(err, "%s: %s\n", path, strerror(errno));
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		strlist_add(out, path);
		return;
	}
	if (!(d = opendir(path))) {
		fprintf(err, "%s: %s\n", path, strerror(errno));
		return;
	}
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (e->d_name[0] != '.' && n > 5 && !strcmp(e->d_name + n - 5, ".yaml"))
			strlist_add(&names, e->d_name);
	}
	closedir(d);
	if (names.n) /* qsort(NULL, 0) is undefined */
		qsort(names.v, names.n, sizeof(char *), cmp_str);
	for (int i = 0; i < names.n; i++) {
		char *p = xmalloc(strlen(path) + strlen(names.v[i]) + 2);

		sprintf(p, "%s/%s", path, names.v[i]);
		strlist_add(out, p);
		free(p);
	}
	strlist_free(&names);
}

static bool parse_file(const char *path, struct parsed *p, FILE *err)
{
	FILE *f = fopen(path, "rb");
	yaml_parser_t parser;
	bool ok;

	if (!f) {
		fprintf(err, "%s: %s\n", path, strerror(errno));
		return false;
	}
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_file(&parser, f);
	ok = yaml_parser_load(&parser, &p->doc);
	if (!ok)
		fprintf(err, "%s:%lu: YAML: %s %s\n", path, (unsigned long)parser.problem_mark.line + 1,
			parser.problem ? parser.problem : "error", parser.context ? parser.context : "");
	yaml_parser_delete(&parser);
	fclose(f);
	return ok;
}

static yaml_node_t *section(struct loader *L, yaml_node_t *root, const char *key, yaml_node_type_t type)
{
	yaml_node_t *v = get(L, root, key);

	if (v && v->type != type) {
		problem(L, v, "\"%s\" must be a %s", key, type == YAML_SEQUENCE_NODE ? "list" : "mapping");
		return NULL;
	}
	return v;
}

static const attrib_catalog *sort_cat;

/* Highest priority first; the catalog's order breaks ties. */
static int by_priority(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	int px = sort_cat->extractors[x].priority, py = sort_cat->extractors[y].priority;

	return px != py ? py - px : x - y;
}

attrib_catalog *catalog_read(const char *path, const struct attrib_options *opt, FILE *err)
{
	static const char *const top[] = { "settings", "classes",  "prefixes", "extractors",
					   "codes",    "refiners", NULL };
	attrib_catalog *cat = xcalloc(1, sizeof(*cat));
	struct loader L = { .cat = cat, .err = err };
	struct strlist paths = { 0 };
	struct parsed *docs;

	if (opt)
		cat->opt = *opt;
	int n = 0;

	cat->set = (struct settings){ .window_before = 300,
				      .window_after = 120,
				      .clock_skew = 5,
				      .tie_window = 5,
				      .history = 86400,
				      .report_lag = 600,
				      .switch_window = 10,
				      .switch_min_nodes = 2,
				      .switch_share = 0.5,
				      .max_evidence = 3 };
	cat->path = realpath(path, NULL);
	if (!cat->path)
		cat->path = strdup_or_die(path);
	list_files(path, &paths, err);
	if (!paths.n) {
		fprintf(err, "%s: no rule files (*.yaml)\n", path);
		L.errors++;
	}
	docs = xcalloc(paths.n, sizeof(*docs));
	for (int i = 0; i < paths.n; i++) {
		if (!parse_file(paths.v[i], &docs[n], err)) {
			L.errors++;
			continue;
		}
		strlist_add(&cat->files, paths.v[i]);
		docs[n++].file = cat->files.v[cat->files.n - 1];
	}
	/* sections in dependency order across all files */
	static const char *const order[] = { "settings", "classes",    "codes",
					     "prefixes", "extractors", "refiners" };
	for (int s = 0; s < 6; s++) {
		for (int i = 0; i < n; i++) {
			yaml_node_t *root = yaml_document_get_root_node(&docs[i].doc), *v;

			L.file = docs[i].file;
			L.doc = &docs[i].doc;
			if (!root)
				continue;
			if (s == 0) {
				if (root->type != YAML_MAPPING_NODE) {
					problem(&L, root, "a rule file is a mapping of sections");
					continue;
				}
				known_keys(&L, root, top);
				unique_keys(&L);
			}
			if (!strcmp(order[s], "settings") &&
			    (v = section(&L, root, "settings", YAML_MAPPING_NODE)))
				load_settings(&L, v);
			if (!strcmp(order[s], "classes") &&
			    (v = section(&L, root, "classes", YAML_SEQUENCE_NODE)))
				load_classes(&L, v);
			if (!strcmp(order[s], "codes") &&
			    (v = section(&L, root, "codes", YAML_SEQUENCE_NODE)))
				load_codes(&L, v);
			if (!strcmp(order[s], "prefixes") &&
			    (v = section(&L, root, "prefixes", YAML_SEQUENCE_NODE)))
				load_prefixes(&L, v);
			if (!strcmp(order[s], "extractors") &&
			    (v = section(&L, root, "extractors", YAML_SEQUENCE_NODE)))
				load_extractors(&L, v);
			if (!strcmp(order[s], "refiners") &&
			    (v = section(&L, root, "refiners", YAML_SEQUENCE_NODE)))
				load_refiners(&L, v);
		}
	}
	for (int i = 0; i < n; i++)
		yaml_document_delete(&docs[i].doc);
	free(docs);
	strlist_free(&paths);

	cat->unknown = xcalloc(1, sizeof(*cat->unknown));
	cat->unknown->code = strdup_or_die("unknown");
	cat->unknown->kind = KIND_INFO;
	cat->unknown->action = strdup_or_die("none");
	cat->unknown->title = strdup_or_die("event with a code the catalog does not know");

	int ncodes = 0;
	for (int i = 0; i < cat->ncodes; i++) {
		code_set_flags(cat, cat->codes[i]);
		cat->codes[i]->index = ++ncodes;
		for (int k = 0; k < cat->codes[i]->nrows; k++) {
			code_set_flags(cat, cat->codes[i]->rows[k].as);
			cat->codes[i]->rows[k].as->index = ++ncodes;
		}
	}
	cat->unknown->index = ++ncodes;
	refiners_index(cat, ncodes);
	cat->code_index = lh_kchar_table_new(cat->ncodes * 2 + 16, NULL);
	for (int i = 0; i < cat->ncodes; i++)
		lh_table_insert(cat->code_index, cat->codes[i]->code, cat->codes[i]);
	cat->by_priority = xcalloc(cat->nextractors, sizeof(int));
	for (int i = 0; i < cat->nextractors; i++)
		cat->by_priority[i] = i;
	sort_cat = cat;
	if (cat->nextractors)
		qsort(cat->by_priority, cat->nextractors, sizeof(int), by_priority);
	cat->priority_rank = xcalloc(cat->nextractors + 1, sizeof(int));
	for (int i = 0; i < cat->nextractors; i++)
		cat->priority_rank[cat->by_priority[i]] = i;

	if (!L.errors) {
		cat->matcher = matcher_build(cat, err);
		if (!cat->matcher)
			L.errors++;
	}
	if (L.errors) {
		attrib_catalog_free(cat);
		return NULL;
	}
	return cat;
}

static void code_free(struct code *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->nrows; i++) {
		free(c->rows[i].values);
		code_free(c->rows[i].as);
	}
	free(c->rows);
	free(c->code);
	free(c->class_name);
	free(c->sub_domain);
	free(c->action);
	free(c->title);
	free(c->doc);
	free(c->resolution);
	free(c->mnemonic);
	free(c->also);
	free(c->decode_field);
	strlist_free(&c->tags);
	free(c);
}

static void tests_free(struct test_case *t, int n)
{
	for (int i = 0; i < n; i++) {
		free(t[i].line);
		free(t[i].code);
		strlist_free(&t[i].field_names);
		strlist_free(&t[i].field_values);
		for (int k = 0; k < t[i].nevents; k++) {
			free(t[i].events[k].code);
			free(t[i].events[k].node);
			free(t[i].events[k].time);
			free(t[i].events[k].pid);
			free(t[i].events[k].pci);
		}
		free(t[i].events);
		strlist_free(&t[i].expect_codes);
		strlist_free(&t[i].expect_roles);
	}
	free(t);
}

static void selector_free(struct selector *s)
{
	strlist_free(&s->codes);
	strlist_free(&s->tags);
	strlist_free(&s->kinds);
	strlist_free(&s->classes);
	strlist_free(&s->sub_domains);
}

void attrib_catalog_free(attrib_catalog *cat)
{
	if (!cat)
		return;
	free(cat->path);
	strlist_free(&cat->set.gpu_tags);
	matcher_free(cat->matcher);
	if (cat->code_index)
		lh_table_free(cat->code_index);
	free(cat->by_priority);
	free(cat->priority_rank);
	for (int i = 0; i < cat->ncodes; i++)
		code_free(cat->codes[i]);
	free(cat->codes);
	for (int i = 0; i < cat->nclasses; i++)
		code_free(cat->classes[i]);
	free(cat->classes);
	code_free(cat->unknown);
	for (int i = 0; i < cat->nprefixes; i++) {
		free(cat->prefixes[i].id);
		pcre2_code_free(cat->prefixes[i].re);
	}
	free(cat->prefixes);
	for (int i = 0; i < cat->nextractors; i++) {
		struct extractor *x = &cat->extractors[i];

		free(x->id);
		free(x->regex);
		free(x->prefilter);
		free(x->code_tpl);
		pcre2_code_free(x->re);
		pcre2_code_free(x->re_msg);
		strlist_free(&x->const_names);
		strlist_free(&x->const_values);
		strlist_free(&x->writers);
		free(x->writer_len);
		tests_free(x->tests, x->ntests);
	}
	free(cat->extractors);
	for (int i = 0; i < cat->nrefiners; i++) {
		struct refiner *r = &cat->refiners[i];

		free(r->id);
		free(r->doc);
		selector_free(&r->target);
		selector_free(&r->by);
		free(r->target_code);
		free(r->by_code);
		tests_free(r->tests, r->ntests);
	}
	free(cat->refiners);
	strlist_free(&cat->files);
	free(cat);
}

void attrib_catalog_stats(const attrib_catalog *cat, int *extractors, int *codes, int *refiners, int *cases)
{
	*extractors = cat->nextractors;
	*codes = cat->ncodes;
	*refiners = cat->nrefiners;
	*cases = 0;
	for (int i = 0; i < cat->nextractors; i++)
		*cases += cat->extractors[i].ntests;
	for (int i = 0; i < cat->nrefiners; i++)
		*cases += cat->refiners[i].ntests;
}

int attrib_catalog_tagged_codes(const attrib_catalog *cat, const char *tag, const char **names, int max)
{
	int n = 0;

	for (int i = 0; i < cat->ncodes; i++)
		if (cat->codes[i]->code && strlist_has(&cat->codes[i]->tags, tag)) {
			if (n < max)
				names[n] = cat->codes[i]->code;
			n++;
		}
	return n;
}

bool attrib_catalog_has_code(const attrib_catalog *cat, const char *code)
{
	for (int i = 0; i < cat->ncodes; i++)
		if (cat->codes[i]->code && !strcmp(cat->codes[i]->code, code))
			return true;
	return false;
}

int attrib_catalog_drain_classes(const attrib_catalog *cat, const char **names, int max)
{
	int n = 0;

	for (int i = 0; i < cat->nclasses && n < max; i++)
		if (cat->classes[i]->drain_by_default)
			names[n++] = cat->classes[i]->class_name;
	return n;
}
