/* Allocation, string lists, text sanitising and the contract's vocabulary. */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		abort();
	return p;
}

void *xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);
	if (!p)
		abort();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		abort();
	return p;
}

char *strdup_or_die(const char *s)
{
	return s ? strndup_or_die(s, strlen(s)) : NULL;
}

char *strndup_or_die(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

void strlist_add(struct strlist *l, const char *s)
{
	l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
	l->v[l->n++] = strdup_or_die(s);
}

void strlist_free(struct strlist *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

bool strlist_has(const struct strlist *l, const char *s)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return true;
	return false;
}

bool glob_match(const char *pat, const char *s)
{
	return fnmatch(pat, s, 0) == 0;
}

/* Length of the valid UTF-8 sequence at s (1-4), or 0 if invalid. */
static size_t utf8_seq(const unsigned char *s, size_t len)
{
	size_t n;
	unsigned c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (n > len)
		return 0;
	/* no overlong forms, no UTF-16 surrogates, nothing past U+10FFFF */
	if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f) ||
	    (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] > 0x8f))
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

char *text_sanitise(const char *in, size_t len, size_t max)
{
	const unsigned char *s = (const unsigned char *)in;
	char *out = xmalloc((len < max ? len : max) * 3 + 8);
	size_t o = 0, i = 0;

	while (i < len && s[i] != '\n' && !(s[i] == '\r' && i + 1 == len)) {
		size_t n = utf8_seq(s + i, len - i);

		if (o >= max) {
			memcpy(out + o, "\xe2\x80\xa6", 3);	/* … */
			o += 3;
			break;
		}
		if (n == 0) {	/* invalid byte: U+FFFD */
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		} else if (n == 1 && (s[i] < 0x20 || s[i] == 0x7f)) {
			out[o++] = s[i] == '\t' ? ' ' : '?';
			i++;
		} else {
			memcpy(out + o, s + i, n);
			o += n;
			i += n;
		}
	}
	out[o] = 0;
	return out;
}

/* ---- vocabulary ---- */

static const char *const kinds[] = { "", "fault", "consequence", "scheduler", "info" };
static const char *const roles[] = { "", "root", "downstream", "interesting" };

const char *kind_name(enum kind k)
{
	return kinds[k];
}

int kind_parse(const char *s)
{
	for (int i = 1; i < 5; i++)
		if (!strcmp(kinds[i], s))
			return i;
	return -1;
}

const char *role_name(enum role r)
{
	return roles[r];
}

static const struct {
	const char *sub, *dom;
} sub_domains[] = {
	{ "InfraHW", "infra" }, { "InfraNet", "infra" },
	{ "InfraSW", "infra" }, { "InfraStorage", "infra" },
	{ "UserCode", "user" }, { "UserConfig", "user" },
	{ "UserResource", "user" }, { "SchedTimeLimit", "scheduler" },
	{ "SchedPreempted", "scheduler" }, { "SchedCancelled", "scheduler" },
	{ "Pass", "none" }, { "ambiguous", "unknown" },
	{ "unattributed", "unknown" },
};

const char *sub_domain_domain(const char *sub)
{
	for (size_t i = 0; i < sizeof(sub_domains) / sizeof(*sub_domains); i++)
		if (!strcmp(sub_domains[i].sub, sub))
			return sub_domains[i].dom;
	return NULL;
}

bool action_valid(const char *a)
{
	static const char *const actions[] = { "drain", "reboot", "reset_gpu", "inspect", "none" };

	for (size_t i = 0; i < 5; i++)
		if (!strcmp(actions[i], a))
			return true;
	return false;
}
