/* attrib-collect: the bundle (doc/live-pipeline.md §3) built from the
 * log sources and the task records, and its body within MaxBundleBytes. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
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

/* ---- bundle ---- */

json_object *bundle_build(const struct collect_ctx *cx, struct job_info *j, json_object *cov)
{
	json_object *b = json_object_new_object(), *w = json_object_new_object();
	json_object *files = json_object_new_array();
	struct names used = { 0 };
	char ts[64];

	json_object_object_add(b, "schema", json_object_new_string(ATTRIB_BUNDLE_SCHEMA));
	json_object_object_add(b, "job_id", json_object_new_string(j->job_id));
	json_object_object_add(b, "node", json_object_new_string(j->node));
	time_format(now_real(), ts, sizeof(ts));
	json_object_object_add(b, "collected_at", json_object_new_string(ts));
	time_format(cx->start, ts, sizeof(ts));
	json_object_object_add(w, "start", json_object_new_string(ts));
	time_format(cx->end, ts, sizeof(ts));
	json_object_object_add(w, "end", json_object_new_string(ts));
	json_object_object_add(b, "window", w);
	{
		long maxb = cx->conf->max_bundle_bytes;
		size_t reserve = (size_t)(maxb / 8 < (1 << 20) ? maxb / 8 : (1 << 20));
		size_t budget = (size_t)maxb - reserve, app = budget / 4;

		if (cx->conf->app_max_bytes > 0 && (size_t)cx->conf->app_max_bytes < app)
			app = (size_t)cx->conf->app_max_bytes;
		/* the job's output first: what UserCode diagnoses read */
		budget -= jobout_collect(j, app, files, cov, &used);
		sources_collect(cx, budget, files, cov, &used);
	}
	json_object_object_add(b, "files", files);
	json_object_object_add(b, "ranks", json_object_get(j->ranks));
	json_object_object_add(b, "coverage", json_object_get(cov));
	for (int i = 0; i < used.n; i++)
		free(used.v[i]);
	free(used.v);
	return b;
}

/* The body, within MaxBundleBytes: texts are cut from the front (the end
 * of the window is what matters most) until it fits. */
char *bundle_body(json_object *b, long maxb, json_object *cov, size_t *len)
{
	for (int round = 0;; round++) {
		size_t n;
		const char *s = json_object_to_json_string_length(b,
								  JSON_C_TO_STRING_PLAIN |
									  JSON_C_TO_STRING_NOSLASHESCAPE,
								  &n);
		json_object *files;

		if (!s)
			return NULL;
		if ((long)n <= maxb || round >= 8 || !json_object_object_get_ex(b, "files", &files)) {
			*len = n;
			return strndup_or_die(s, n);
		}
		for (size_t i = 0; i < json_object_array_length(files); i++) {
			json_object *f = json_object_array_get_idx(files, i), *t;
			const char *text;
			size_t tl, keep;

			if (!json_object_object_get_ex(f, "text", &t))
				continue;
			text = json_object_get_string(t);
			tl = (size_t)json_object_get_string_len(t);
			keep = tl / 2;
			if (!keep)
				continue;
			const char *from = text + tl - keep, *nl = memchr(from, '\n', keep);

			if (nl)
				from = nl + 1;
			json_object_object_add(f, "text",
					       json_object_new_string_len(from, (int)(text + tl - from)));
		}
		if (round == 0)
			cover(cov, "bundle", COVERAGE_PARTIAL,
			      "over MaxBundleBytes (%ld) after JSON escaping: texts cut to fit", maxb);
	}
}
