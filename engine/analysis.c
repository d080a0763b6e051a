/* The analysis of one case as the phases fill it: its coverage list
 * (what evidence was or was not read, and why), and how many threads its
 * parallel phases (the scan, resolving symptoms) may use.  At the bottom
 * of the engine: every phase reports into it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"

void analysis_add_coverage(struct analysis *a, const char *source, const char *status, const char *fmt, ...)
{
	va_list ap;
	char detail[512];

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	if (a->ncov == a->capcov)
		a->cov = xrealloc(a->cov, (a->capcov = a->capcov * 2 + 8) * sizeof(*a->cov));
	a->cov[a->ncov].source = strdup_or_die(source);
	a->cov[a->ncov].status = strdup_or_die(status);
	a->cov[a->ncov].detail = text_sanitise(detail, strlen(detail), 400);
	a->ncov++;
}

int analysis_threads(const struct analysis *a, int items)
{
	long n = a->opt->threads > 0 ? a->opt->threads : sysconf(_SC_NPROCESSORS_ONLN);

	if (n > 16)
		n = 16;
	if (n > items)
		n = items;
	return n < 1 ? 1 : (int)n;
}
