/* A refiner's selector (rule-format.md, "refiners"): which symptoms it
 * takes, by their code's name, tags, kind, class and sub-domain (tabulated
 * per code by the loader), and by where their lines were (`sources`: read
 * per symptom).  Read by the loader and by correlation. */
#include <string.h>
#include "internal.h"

static bool any_of(const struct strlist *want, const struct strlist *have)
{
	for (int i = 0; i < want->n; i++)
		if (strlist_has(have, want->v[i]))
			return true;
	return false;
}

bool selector_match(const struct selector *s, const struct symptom *sym)
{
	const struct code *c = sym->code;
	bool ok;

	if (s->codes.n) {
		ok = false;
		for (int i = 0; i < s->codes.n && !ok; i++)
			ok = glob_match(s->codes.v[i], c->code);
		if (!ok)
			return false;
	}
	if (s->tags.n && !any_of(&s->tags, &c->tags))
		return false;
	if (s->kinds.n) {
		ok = false;
		for (int i = 0; i < s->kinds.n && !ok; i++)
			ok = kind_parse(s->kinds.v[i]) == (int)c->kind;
		if (!ok)
			return false;
	}
	if (s->classes.n && (!c->class_name || !strlist_has(&s->classes, c->class_name)))
		return false;
	if (s->sub_domains.n && (!c->sub_domain || !strlist_has(&s->sub_domains, c->sub_domain)))
		return false;
	return selector_sources(s, sym);
}

bool selector_sources(const struct selector *s, const struct symptom *sym)
{
	return !s->sources || !(sym->sources & ~s->sources);
}
