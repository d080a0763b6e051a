/* Allocation for the engine and the collector: out of memory ends the
 * process (abort), the convention of those two layers (doc/hacking.md,
 * "Errors").  The service and the plugins check every allocation instead. */
#ifndef ATTRIB_XALLOC_H
#define ATTRIB_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
/* An array v of n elements of size bytes, with room for one more: v
 * itself, or v moved to twice *cap (first when empty) with *cap updated;
 * NULL when out of memory (v and *cap unchanged), for the parts that
 * check every allocation (the CLI, the service, the policies). */
void *array_room(void *v, size_t *cap, size_t n, size_t size, size_t first);
/* (not "xstrdup": libslurmfull, which attrib serve links, exports that name) */
char *strdup_or_die(const char *s);
char *strndup_or_die(const char *s, size_t n);

#endif
