/* The engine's options from an environment (attrib.h): what the command
 * and the service pass to the engine, which reads no environment itself,
 * so that an analysis depends on nothing of the process's but what its
 * caller hands it. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "attrib.h"

/* A cache directory whose name does not fit is no cache (rather than
 * another directory, its name cut short). */
__attribute__((format(printf, 2, 3))) static void cache_dir(struct attrib_options *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->cache_dir, sizeof(o->cache_dir), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(o->cache_dir))
		o->cache_dir[0] = '\0';
}

struct attrib_options attrib_options_env(char *(*env)(const char *name))
{
	struct attrib_options o = { 0 };
	const char *v;

	/* set: at least one thread (0 or a word is one, as it always was) */
	if ((v = env("ATTRIB_THREADS")) && *v) {
		long n = strtol(v, NULL, 10);

		o.threads = n < 1 ? 1 : n > INT_MAX ? INT_MAX : (int)n;
	}
	if ((v = env("ATTRIB_CHUNK_BYTES")) && *v) {
		long long n = strtoll(v, NULL, 10);

		o.chunk_bytes = n >= 1 ? (size_t)n : 0;
	}
	/* ATTRIB_CACHE= (empty) turns the cache off */
	if ((v = env("ATTRIB_CACHE")))
		cache_dir(&o, "%s", v);
	else if (geteuid() == 0)
		cache_dir(&o, "/var/cache/attrib");
	else if ((v = env("XDG_CACHE_HOME")) && *v)
		cache_dir(&o, "%s/attrib", v);
	else if ((v = env("HOME")))
		cache_dir(&o, "%s/.cache/attrib", v);
	return o;
}
