/* Slurm's network tree (topology.h): topology.conf and topology.yaml read
 * into one shape, switches with their parent and nodes with their leaf.
 *
 * topology.conf follows Slurm's configuration parser (s_p_parse_file, as
 * topology/tree uses it): keys are case-insensitive KEY=VALUE pairs, a
 * value may be double-quoted, "#" starts a comment unless escaped as
 * "\#", a line ending in "\" continues on the next, every line is
 * SwitchName=NAME with Nodes=, Switches= and LinkSpeed=.  Anything else is
 * refused, as slurmctld would refuse it. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>
#include <json-c/linkhash.h>
#include "hostlist.h"
#include "evidence.h"
#include "topology.h"
#include "xalloc.h"

struct sw {
	char *name;
	int parent; /* index, -1: a root */
	int nnodes; /* nodes hanging from it (a leaf when > 0) */
};

struct node {
	char *name;
	int leaf; /* switch index; -2: several leaves */
};

struct topology {
	struct sw *sw;
	int nsw, capsw;
	struct node *node;
	int nnode, capnode;
	struct lh_table *sw_index, *node_index; /* name -> index + 1 */
	char note[256];
};

/* one line of the file, before names are resolved */
struct record {
	char *name, *nodes, *switches;
	int line;
};

struct parse {
	struct topology *t;
	struct record *rec;
	int nrec, caprec;
	char *err;
	size_t errlen;
	int names; /* expanded so far, against TOPOLOGY_MAX_NAMES */
};

static int fail(struct parse *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct parse *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->err, p->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static void note(struct topology *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct topology *t, const char *fmt, ...)
{
	va_list ap;

	if (t->note[0]) /* the first one says enough */
		return;
	va_start(ap, fmt);
	vsnprintf(t->note, sizeof(t->note), fmt, ap);
	va_end(ap);
}

static int lookup(struct lh_table *tab, const char *name)
{
	void *v = NULL;

	return lh_table_lookup_ex(tab, name, &v) ? (int)(long)v - 1 : -1;
}

void topology_free(struct topology *t)
{
	if (!t)
		return;
	if (t->sw_index)
		lh_table_free(t->sw_index);
	if (t->node_index)
		lh_table_free(t->node_index);
	for (int i = 0; i < t->nsw; i++)
		free(t->sw[i].name);
	for (int i = 0; i < t->nnode; i++)
		free(t->node[i].name);
	free(t->sw);
	free(t->node);
	free(t);
}

static void add_record(struct parse *p, const char *name, const char *nodes, const char *switches, int line)
{
	if (p->nrec == p->caprec) {
		p->caprec = p->caprec ? 2 * p->caprec : 16;
		p->rec = xrealloc(p->rec, p->caprec * sizeof(*p->rec));
	}
	p->rec[p->nrec++] = (struct record){ .name = strdup_or_die(name),
					     .nodes = nodes ? strdup_or_die(nodes) : NULL,
					     .switches = switches ? strdup_or_die(switches) : NULL,
					     .line = line };
}

/* ---- resolving the records into the tree ---- */

struct child_walk {
	struct parse *p;
	int sw; /* the record's switch */
	int line;
	int rc;
};

static bool count_name(struct parse *p)
{
	if (++p->names > TOPOLOGY_MAX_NAMES) {
		fail(p, "more than %d names: not read", TOPOLOGY_MAX_NAMES);
		return false;
	}
	return true;
}

static bool add_child_switch(void *arg, const char *name)
{
	struct child_walk *w = arg;
	struct topology *t = w->p->t;
	int c = lookup(t->sw_index, name);

	if (!count_name(w->p))
		return false;
	if (c < 0) {
		w->rc = fail(w->p, "line %d: switch %s names child switch %.64s, which is not defined",
			     w->line, t->sw[w->sw].name, name);
		return false;
	}
	if (c == w->sw) {
		w->rc = fail(w->p, "line %d: switch %s is its own child", w->line, name);
		return false;
	}
	if (t->sw[c].parent >= 0 && t->sw[c].parent != w->sw) {
		w->rc = fail(w->p, "line %d: switch %s has two parents (%s and %s)", w->line, name,
			     t->sw[t->sw[c].parent].name, t->sw[w->sw].name);
		return false;
	}
	t->sw[c].parent = w->sw;
	return true;
}

static bool add_node(void *arg, const char *name)
{
	struct child_walk *w = arg;
	struct topology *t = w->p->t;
	int n = lookup(t->node_index, name);

	if (!count_name(w->p))
		return false;
	if (n >= 0) {
		if (t->node[n].leaf != w->sw && t->node[n].leaf != -2) {
			note(t, "node %.64s hangs from several leaf switches (%s, %s): no switch is blamed for it",
			     name, t->node[n].leaf >= 0 ? t->sw[t->node[n].leaf].name : "?",
			     t->sw[w->sw].name);
			if (t->node[n].leaf >= 0)
				t->sw[t->node[n].leaf].nnodes--;
			t->node[n].leaf = -2;
		}
		return true;
	}
	if (t->nnode == t->capnode) {
		t->capnode = t->capnode ? 2 * t->capnode : 64;
		t->node = xrealloc(t->node, t->capnode * sizeof(*t->node));
	}
	t->node[t->nnode] = (struct node){ .name = strdup_or_die(name), .leaf = w->sw };
	lh_table_insert(t->node_index, t->node[t->nnode].name, (void *)(long)(t->nnode + 1));
	t->nnode++;
	t->sw[w->sw].nnodes++;
	return true;
}

static int resolve(struct parse *p)
{
	struct topology *t = p->t;

	t->sw_index = lh_kchar_table_new(64, NULL);
	t->node_index = lh_kchar_table_new(256, NULL);
	if (!t->sw_index || !t->node_index)
		return fail(p, "out of memory");
	for (int i = 0; i < p->nrec; i++) {
		struct record *r = &p->rec[i];

		if (lookup(t->sw_index, r->name) >= 0)
			return fail(p, "line %d: switch %.64s is defined twice", r->line, r->name);
		if (!count_name(p))
			return -1;
		if (t->nsw == t->capsw) {
			t->capsw = t->capsw ? 2 * t->capsw : 16;
			t->sw = xrealloc(t->sw, t->capsw * sizeof(*t->sw));
		}
		t->sw[t->nsw] = (struct sw){ .name = strdup_or_die(r->name), .parent = -1 };
		lh_table_insert(t->sw_index, t->sw[t->nsw].name, (void *)(long)(t->nsw + 1));
		t->nsw++;
	}
	for (int i = 0; i < p->nrec; i++) {
		struct record *r = &p->rec[i];
		struct child_walk w = { .p = p, .sw = i, .line = r->line };

		if (!r->nodes && !r->switches)
			return fail(p, "line %d: switch %.64s has neither Nodes nor Switches", r->line,
				    r->name);
		if (r->switches && !hostlist_each(r->switches, TOPOLOGY_MAX_NAMES, add_child_switch, &w))
			return w.rc < 0 || p->names > TOPOLOGY_MAX_NAMES
				? -1
				: fail(p, "line %d: Switches=%.64s is not a host list of at most %d names",
				       r->line, r->switches, TOPOLOGY_MAX_NAMES);
		if (r->nodes && !hostlist_each(r->nodes, TOPOLOGY_MAX_NAMES, add_node, &w))
			return p->names > TOPOLOGY_MAX_NAMES
				? -1
				: fail(p, "line %d: Nodes=%.64s is not a host list of at most %d names",
				       r->line, r->nodes, TOPOLOGY_MAX_NAMES);
	}
	/* a loop has no root: going up from any of its switches never ends */
	for (int i = 0; i < t->nsw; i++) {
		int at = i, steps = 0;

		while (at >= 0 && steps <= t->nsw) {
			at = t->sw[at].parent;
			steps++;
		}
		if (at >= 0)
			return fail(p, "switch %s is in a loop of switches", t->sw[i].name);
	}
	if (!t->nnode)
		return fail(p, "no switch names any node");
	return 0;
}

/* ---- topology.conf ---- */

/* The file's logical lines: comments cut, continuations joined, in place;
 * calls line() with each and its first physical line number. */
static int conf_lines(struct parse *p, char *s, size_t len, int (*line)(struct parse *, char *, int))
{
	char *buf = xmalloc(len + 1);
	size_t n = 0;
	int no = 1, first = 1, rc = 0;
	bool comment = false;

	for (size_t i = 0; i <= len && !rc; i++) {
		char c = i < len ? s[i] : '\n';

		if (c == '\0')
			c = ' ';
		if (c == '\n') {
			no++;
			/* a backslash before the newline continues the line */
			if (!comment && n && buf[n - 1] == '\\') {
				n--;
				continue;
			}
			buf[n] = '\0';
			rc = line(p, buf, first);
			n = 0;
			first = no;
			comment = false;
			continue;
		}
		if (comment)
			continue;
		if (c == '#') {
			if (n && buf[n - 1] == '\\') { /* an escaped "#" is one */
				buf[n - 1] = '#';
				continue;
			}
			comment = true;
			continue;
		}
		buf[n++] = c;
	}
	free(buf);
	return rc;
}

static int conf_line(struct parse *p, char *s, int no)
{
	char *name = NULL, *nodes = NULL, *switches = NULL;

	while (*s) {
		char *key, *val, *eq;

		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		key = s;
		while (*s && !isspace((unsigned char)*s) && *s != '=')
			s++;
		if (*s != '=') {
			if (*s)
				*s++ = '\0';
			if (!strcasecmp(key, "Include"))
				return fail(
					p, "line %d: Include is not followed: put the whole tree in one file",
					no);
			return fail(p, "line %d: \"%.64s\" is not KEY=VALUE", no, key);
		}
		eq = s;
		*eq = '\0';
		val = ++s;
		if (*val == '"') {
			val = ++s;
			while (*s && *s != '"')
				s++;
			if (!*s)
				return fail(p, "line %d: unterminated quote", no);
			*s++ = '\0';
		} else {
			while (*s && !isspace((unsigned char)*s))
				s++;
			if (*s)
				*s++ = '\0';
		}
		if (!strcasecmp(key, "SwitchName")) {
			if (name)
				return fail(p, "line %d: two SwitchName on one line", no);
			name = val;
		} else if (!strcasecmp(key, "Nodes")) {
			nodes = val;
		} else if (!strcasecmp(key, "Switches")) {
			switches = val;
		} else if (!strcasecmp(key, "LinkSpeed")) {
			/* Slurm keeps it and uses it for nothing */
		} else {
			return fail(p, "line %d: unknown key %.64s", no, key);
		}
		if (!name)
			return fail(p, "line %d: %.64s before SwitchName", no, key);
	}
	if (name && !*name)
		return fail(p, "line %d: empty SwitchName", no);
	if (name)
		add_record(p, name, nodes && *nodes ? nodes : NULL, switches && *switches ? switches : NULL,
			   no);
	return 0;
}

/* ---- topology.yaml ---- */

static const char *scalar(yaml_document_t *d, yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static yaml_node_t *member(yaml_document_t *d, yaml_node_t *m, const char *key)
{
	if (!m || m->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *pr = m->data.mapping.pairs.start; pr < m->data.mapping.pairs.top; pr++) {
		const char *k = scalar(d, yaml_document_get_node(d, pr->key));

		if (k && !strcmp(k, key))
			return yaml_document_get_node(d, pr->value);
	}
	return NULL;
}

/* Every key of m is one of keys. */
static int yaml_keys(struct parse *p, yaml_document_t *d, yaml_node_t *m, const char *const *keys,
		     const char *what)
{
	for (yaml_node_pair_t *pr = m->data.mapping.pairs.start; pr < m->data.mapping.pairs.top; pr++) {
		yaml_node_t *kn = yaml_document_get_node(d, pr->key);
		const char *k = scalar(d, kn);
		bool ok = false;

		for (int i = 0; k && keys[i] && !ok; i++)
			ok = !strcmp(k, keys[i]);
		if (!ok)
			return fail(p, "line %lu: unknown key %.64s in %s",
				    kn ? (unsigned long)kn->start_mark.line + 1 : 0, k ? k : "(not a string)",
				    what);
	}
	return 0;
}

static bool yaml_true(const char *s)
{
	return s && (!strcasecmp(s, "true") || !strcasecmp(s, "yes") || !strcmp(s, "1"));
}

static int yaml_tree(struct parse *p, yaml_document_t *d, yaml_node_t *root)
{
	/* a topology's keys in topology.yaml(5) (25.05 and later: block, flat,
	 * ring and torus3d beside tree); only the tree is read */
	static const char *const top_keys[] = { "topology", "cluster_default", "tree", "block", "flat",
						"ring",	    "torus3d",	       NULL };
	static const char *const tree_keys[] = { "switches", NULL };
	static const char *const sw_keys[] = { "switch", "children", "nodes", "link_speed", NULL };
	yaml_node_t *chosen = NULL, *tree, *sws;

	if (!root || root->type != YAML_SEQUENCE_NODE)
		return fail(p, "not a list of topologies");
	for (yaml_node_item_t *it = root->data.sequence.items.start; it < root->data.sequence.items.top;
	     it++) {
		yaml_node_t *t = yaml_document_get_node(d, *it);

		if (!t || t->type != YAML_MAPPING_NODE)
			return fail(p, "a topology is not a mapping");
		if (yaml_keys(p, d, t, top_keys, "a topology") < 0)
			return -1;
		/* the cluster's default, else the first (as slurmctld's
		 * operations not tied to a partition use) */
		if (!chosen ||
		    (yaml_true(scalar(d, member(d, t, "cluster_default"))) &&
		     !yaml_true(scalar(d, member(d, chosen, "cluster_default")))))
			chosen = t;
	}
	if (!chosen)
		return fail(p, "no topology");
	tree = member(d, chosen, "tree");
	if (!tree) {
		const char *name = scalar(d, member(d, chosen, "topology"));

		return fail(p, "topology %.64s is not a tree (block or flat): no switches",
			    name ? name : "?");
	}
	if (tree->type != YAML_MAPPING_NODE || yaml_keys(p, d, tree, tree_keys, "tree") < 0)
		return p->err[0] ? -1 : fail(p, "tree is not a mapping");
	sws = member(d, tree, "switches");
	if (!sws || sws->type != YAML_SEQUENCE_NODE)
		return fail(p, "tree has no list of switches");
	for (yaml_node_item_t *it = sws->data.sequence.items.start; it < sws->data.sequence.items.top; it++) {
		yaml_node_t *s = yaml_document_get_node(d, *it);
		const char *name, *nodes, *children;

		if (!s || s->type != YAML_MAPPING_NODE)
			return fail(p, "a switch is not a mapping");
		if (yaml_keys(p, d, s, sw_keys, "a switch") < 0)
			return -1;
		name = scalar(d, member(d, s, "switch"));
		nodes = scalar(d, member(d, s, "nodes"));
		children = scalar(d, member(d, s, "children"));
		if (!name || !*name)
			return fail(p, "line %lu: a switch without a name",
				    (unsigned long)s->start_mark.line + 1);
		add_record(p, name, nodes && *nodes ? nodes : NULL, children && *children ? children : NULL,
			   (int)s->start_mark.line + 1);
	}
	return 0;
}

static int yaml_read(struct parse *p, const char *text, size_t len)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	int rc;

	if (!yaml_parser_initialize(&parser))
		return fail(p, "out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		rc = fail(p, "line %lu: %s", (unsigned long)parser.problem_mark.line + 1,
			  parser.problem ? parser.problem : "not YAML");
		yaml_parser_delete(&parser);
		return rc;
	}
	rc = yaml_tree(p, &doc, yaml_document_get_root_node(&doc));
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return rc;
}

/* ---- the interface ---- */

struct topology *topology_parse(const char *text, size_t len, int yaml, char *err, size_t errlen)
{
	struct parse p = { .t = xcalloc(1, sizeof(struct topology)), .err = err, .errlen = errlen };
	int rc;

	err[0] = '\0';
	if ((long)len > TOPOLOGY_MAX_BYTES) {
		rc = fail(&p, "larger than %ld bytes: not read", TOPOLOGY_MAX_BYTES);
	} else if (yaml) {
		rc = yaml_read(&p, text, len);
	} else {
		char *copy = xmalloc(len + 1);

		memcpy(copy, text, len);
		copy[len] = '\0';
		rc = conf_lines(&p, copy, len, conf_line);
		free(copy);
	}
	if (!rc && !p.nrec)
		rc = fail(&p, "no switch defined");
	if (!rc)
		rc = resolve(&p);
	for (int i = 0; i < p.nrec; i++) {
		free(p.rec[i].name);
		free(p.rec[i].nodes);
		free(p.rec[i].switches);
	}
	free(p.rec);
	if (rc < 0) {
		topology_free(p.t);
		return NULL;
	}
	return p.t;
}

bool topology_is_yaml(const char *path)
{
	size_t n = strlen(path);

	return (n >= 5 && !strcmp(path + n - 5, ".yaml")) || (n >= 4 && !strcmp(path + n - 4, ".yml"));
}

/* (a case keeps Slurm's name for the file: CASE_TOPOLOGY) */
const char *const topology_names[TOPOLOGY_NAMES] = { "topology.yaml", CASE_TOPOLOGY };

struct topology *topology_load(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	char *buf;
	size_t n;
	struct topology *t;

	if (!f) {
		snprintf(err, errlen, "%s", strerror(errno));
		return NULL;
	}
	/* one byte more than the limit tells a file that is too big */
	buf = xmalloc(TOPOLOGY_MAX_BYTES + 1);
	n = fread(buf, 1, TOPOLOGY_MAX_BYTES + 1, f);
	if (ferror(f)) {
		snprintf(err, errlen, "%s", strerror(errno ? errno : EIO));
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	t = topology_parse(buf, n, topology_is_yaml(path), err, errlen);
	free(buf);
	return t;
}

const char *topology_leaf(const struct topology *t, const char *node)
{
	int n = t && node ? lookup(t->node_index, node) : -1;

	return n >= 0 && t->node[n].leaf >= 0 ? t->sw[t->node[n].leaf].name : NULL;
}

const char *topology_parent(const struct topology *t, const char *sw)
{
	int s = t && sw ? lookup(t->sw_index, sw) : -1;

	return s >= 0 && t->sw[s].parent >= 0 ? t->sw[t->sw[s].parent].name : NULL;
}

int topology_leaf_size(const struct topology *t, const char *sw)
{
	int s = t && sw ? lookup(t->sw_index, sw) : -1;

	return s >= 0 ? t->sw[s].nnodes : 0;
}

int topology_nodes(const struct topology *t)
{
	return t ? t->nnode : 0;
}

int topology_switches(const struct topology *t)
{
	return t ? t->nsw : 0;
}

const char *topology_note(const struct topology *t)
{
	return t ? t->note : "";
}
