/* String lists, text sanitising and the rules' vocabulary (kinds, roles,
 * actions); the sub-domains are the result's (common/contract.h). */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "text.h"

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

/* A log line: its first line only (a trailing CR of CRLF dropped), cleaned
 * by the project's one routine (common/text.c), so evidence obeys the same
 * rules as every string the service and the command add. */
char *text_sanitise(const char *in, size_t len, size_t max)
{
	const char *nl = memchr(in, '\n', len);
	size_t n = nl ? (size_t)(nl - in) : len;

	if (!nl && n && in[n - 1] == '\r')
		n--;
	return text_clean(in, n, max);
}

/* The newlines of buf[0, len), 16 bytes a step: a line's number is the
 * newlines before it, and a log read from a window on counts those of
 * the gigabytes before (a memchr a line was a third of the engine's time
 * on the benchmark's 64 nodes; this is 3 to 4 times faster).  GCC's and
 * Clang's vectors: SSE2 or NEON, which every x86-64 and arm64 has. */
typedef unsigned char bytes16 __attribute__((vector_size(16)));

long count_newlines(const char *buf, size_t len)
{
	bytes16 nl;
	size_t i = 0;
	long n = 0;

	memset(&nl, '\n', sizeof(nl));
	while (len - i >= 16) {
		bytes16 acc = { 0 }; /* per lane, at most 255 steps */

		for (int k = 0; k < 255 && len - i >= 16; k++, i += 16) {
			bytes16 v;

			memcpy(&v, buf + i, 16);
			acc -= (bytes16)(v == nl); /* a match is -1 */
		}
		for (int b = 0; b < 16; b++)
			n += acc[b];
	}
	for (; i < len; i++)
		n += buf[i] == '\n';
	return n;
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

bool action_valid(const char *a)
{
	static const char *const actions[] = { "drain", "reboot", "reset_gpu", "inspect", "none" };

	for (size_t i = 0; i < 5; i++)
		if (!strcmp(actions[i], a))
			return true;
	return false;
}
