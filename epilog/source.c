/* attrib-collect: the table of evidence sources and the loop over
 * LogSources (source.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "conf.h"
#include "contract.h"
#include "fileio.h"
#include "log.h"
#include "text.h"
#include "timefmt.h"
#include "xalloc.h"
#include "collect.h"
#include "source.h"

/* One line per source.  The order is the reading order: kmsg last, since
 * it reads nothing when a journal gave the kernel's messages. */
static const struct evidence_source *const sources[] = {
	&source_journal,
	&source_file,
	&source_kmsg,
};
#define NSOURCES (sizeof(sources) / sizeof(*sources))

static const struct evidence_source *source_of(const char *spec)
{
	for (size_t i = 0; i < NSOURCES; i++)
		if (sources[i]->match(spec))
			return sources[i];
	return NULL;
}

struct plan {
	const char **spec;
	const struct evidence_source **src;
	int n;
};

static void plan_add(struct plan *p, const char *spec, const struct evidence_source *s)
{
	for (int i = 0; i < p->n; i++)
		if (!strcmp(p->spec[i], spec))
			return; /* named twice ("auto" and itself) */
	p->spec = xrealloc(p->spec, (p->n + 1) * sizeof(*p->spec));
	p->src = xrealloc(p->src, (p->n + 1) * sizeof(*p->src));
	p->spec[p->n] = spec;
	p->src[p->n++] = s;
}

void sources_collect(const struct collect_ctx *cx, size_t budget, json_object *files, json_object *cov,
		     struct names *used)
{
	const struct attrib_config *conf = cx->conf;
	struct plan p = { 0 };
	struct source_out out = { .files = files, .cov = cov, .used = used };
	char absent[1024] = "";
	size_t al = 0;

	for (int i = 0; i < conf->nlog_sources; i++) {
		const char *spec = conf->log_sources[i];
		const struct evidence_source *s;

		if (!strcmp(spec, NODE_SOURCE_AUTO)) {
			/* the node's own: a default it lacks is no gap */
			for (size_t k = 0; k < NSOURCES; k++)
				for (const char *const *d = sources[k]->defaults; d && *d; d++) {
					if (sources[k]->available(*d))
						plan_add(&p, *d, sources[k]);
					else if (al < sizeof(absent))
						al += (size_t)snprintf(absent + al, sizeof(absent) - al,
								       "%s%s", al ? ", " : "", *d);
				}
		} else if ((s = source_of(spec))) {
			plan_add(&p, spec, s);
		} else {
			cover(cov, spec, COVERAGE_ERROR,
			      "not an absolute path, \"journal\", \"kmsg\" nor \"auto\"");
		}
	}
	if (*absent)
		cover(cov, NODE_SOURCE_AUTO, COVERAGE_INFO, "not on this node: %s", absent);
	out.cap = p.n ? budget / (size_t)p.n : 0;
	for (size_t k = 0; k < NSOURCES; k++)
		for (int i = 0; i < p.n; i++)
			if (p.src[i] == sources[k])
				sources[k]->collect(cx, p.spec[i], &out);
	/* what rules on Xid, AER, the OOM killer read: without it a kernel
	 * fault on this node is never seen (doc/admin-guide.md) */
	if (!out.kernel_log)
		cover(cov, NODE_SOURCE_KERNEL_LOG, COVERAGE_MISSING,
		      "kernel log: not found on %s (no journal with the kernel's messages, no readable "
		      "kmsg among LogSources); kernel faults of this node cannot be attributed",
		      cx->node);
	free(p.spec);
	free(p.src);
}
