/* Slurm hostlist expressions, expanded name by name (see hostlist.h).
 * Each comma outside brackets separates names; each bracket group is a
 * list of numbers and ranges (zero-padded as written); several groups in
 * one name multiply, as Slurm's multi-dimensional names do. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hostlist.h"

#define NAME_MAX_LEN 256
#define NUMBER_MAX 1000000000000000L

struct walk {
	int max, count;
	bool (*add)(void *arg, const char *name);
	void *arg;
};

/* Expands name[0..n) whose first n_done bytes are in out already. */
static bool expand(struct walk *w, const char *name, size_t n, char *out, size_t done)
{
	const char *lb = memchr(name, '[', n), *rb;
	size_t head = lb ? (size_t)(lb - name) : n;

	if (done + head >= NAME_MAX_LEN)
		return false;
	memcpy(out + done, name, head);
	done += head;
	if (!lb) {
		out[done] = '\0';
		if (!done || ++w->count > w->max)
			return false;
		return w->add(w->arg, out);
	}
	rb = memchr(lb, ']', n - head);
	if (!rb)
		return false;
	for (const char *p = lb + 1; p < rb;) {
		const char *e = memchr(p, ',', rb - p);
		char *end;
		long a, b;
		int width;

		if (!e)
			e = rb;
		width = (int)strspn(p, "0123456789");
		a = strtol(p, &end, 10);
		if (end == p || *p == '-' || *p == '+')
			return false;
		b = a;
		if (*end == '-') {
			const char *q = end + 1;

			if (*q < '0' || *q > '9')
				return false;
			b = strtol(q, &end, 10);
		}
		/* (no host number is this large; the loop below must not overflow) */
		if (end != e || b < a || b - a > w->max || b >= NUMBER_MAX)
			return false;
		for (long v = a; v <= b; v++) {
			int k = snprintf(out + done, NAME_MAX_LEN - done, "%0*ld", width, v);

			if (k < 0 || done + k >= NAME_MAX_LEN)
				return false;
			if (!expand(w, rb + 1, n - (rb + 1 - name), out, done + k))
				return false;
		}
		p = e + 1;
	}
	return true;
}

bool hostlist_each(const char *list, int max, bool (*add)(void *arg, const char *name), void *arg)
{
	struct walk w = { .max = max, .add = add, .arg = arg };
	char out[NAME_MAX_LEN];
	const char *p = list;

	while (p && *p) {
		size_t n = 0;
		int depth = 0;

		while (p[n] && (depth || p[n] != ',')) { /* commas inside [] belong to the range */
			if (p[n] == '[' && ++depth > 1)
				return false;
			depth -= p[n] == ']';
			if (depth < 0)
				return false;
			n++;
		}
		if (depth || !expand(&w, p, n, out, 0))
			return false;
		p = p[n] ? p + n + 1 : NULL;
	}
	return w.count > 0;
}
