/* Allocation that cannot fail, and room in an array: see xalloc.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "xalloc.h"

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

void *array_room(void *v, size_t *cap, size_t n, size_t size, size_t first)
{
	size_t c = *cap ? 2 * *cap : first;

	if (n < *cap)
		return v;
	if (c > SIZE_MAX / size || !(v = realloc(v, c * size)))
		return NULL;
	*cap = c;
	return v;
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
