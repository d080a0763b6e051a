/* Health checks of nodes, taken in: http.c keeps each node's latest report
 * (POST /v1/healthcheck, MUNGE-checked) as STATE/health/NODE.json; the main
 * loop records each in the store (health_checks) and, for a passing one
 * with Undrain = suggest|auto, asks undrain (policy/undrain_apply.c) whether the node,
 * if attrib drained it, goes back to service. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "conf.h"
#include "contract.h"
#include "drain_policy.h"
#include "health.h"
#include "health_intake.h"
#include "jsonread.h"
#include "log.h"
#include "metrics.h"
#include "store.h"
#include "timefmt.h"
#include "undrain_apply.h"
#include "undrain_policy.h"
#include "util.h"

int health_prepare(const char *state_dir, char *err, size_t errlen)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s/health", state_dir);
	if (svc_mkdir_p(dir, 0700) < 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

static long long num(struct json_object *o, const char *k)
{
	struct json_object *v;

	return json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_int)
		? (long long)json_object_get_int64(v)
		: 0;
}

static bool flag(struct json_object *o, const char *k)
{
	struct json_object *v;

	return json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_boolean) &&
		json_object_get_boolean(v);
}

static void take(const struct attrib_config *conf, store *s, const char *node, struct json_object *o,
		 long long now)
{
	const char *cmd = json_str(o, "command"), *out = json_str(o, "output");
	char tail[HEALTH_OUTPUT_MAX + 1], why[512], by[64];
	struct health_row h = {
		.node = node,
		.received = now,
		.checked = 0,
		.command = cmd ? cmd : "",
		.status = (int)num(o, "status"),
		.timed_out = flag(o, "timed_out"),
		.duration_ms = (long)num(o, "duration_ms"),
	};
	size_t len = out ? strlen(out) : 0;
	double checked;

	if (json_str(o, "checked") && time_parse_rfc3339(json_str(o, "checked"), &checked))
		h.checked = (long long)checked;

	/* the collector sends a bounded tail already; the service holds to it */
	snprintf(tail, sizeof(tail), "%s",
		 out ? out + (len > HEALTH_OUTPUT_MAX ? len - HEALTH_OUTPUT_MAX : 0) : "");
	h.output = tail;
	h.passed = h.status == 0 && !h.timed_out;
	if (store_add_health(s, &h) < 0) {
		log_msg(LOGL_ERROR, "%s: cannot record its health check", node);
		return;
	}
	if (!h.passed)
		atomic_fetch_add(&svc_metrics.health_failed, 1);
	log_msg(h.passed ? LOGL_DEBUG : LOGL_INFO, "%s: health check %s (status %d%s, %ld ms)", node,
		h.passed ? "passed" : "failed", h.status, h.timed_out ? ", timed out" : "", h.duration_ms);
	enum drain_mode mode = undrain_mode(conf);
	if (!h.passed || mode == DRAIN_MODE_OFF)
		return;
	bool recorded;
	snprintf(by, sizeof(by), "attribd (undrain %s)", mode == DRAIN_MODE_AUTO ? "auto" : "suggest");
	enum undrain_decision d = undrain_apply(conf, s, node, mode, false, false, by, now, why, sizeof(why),
						&recorded);
	if (!recorded)
		return;
	atomic_fetch_add(&svc_metrics.undrains[d], 1);
	log_msg(d == UNDECIDE_FAILED ? LOGL_WARNING : LOGL_INFO, "%s: %s: %s", node,
		undrain_decision_name(d, false), why);
}

void health_intake(const struct attrib_config *conf, store *s, long long now)
{
	char dir[PATH_MAX], path[PATH_MAX + 300], err[256], node[NAME_MAX_LEN + 1];
	DIR *d;
	struct dirent *e;

	snprintf(dir, sizeof(dir), "%s/health", conf->state_dir);
	if (!(d = opendir(dir)))
		return;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		struct json_object *o;

		if (e->d_name[0] == '.' || len <= 5 || len - 5 > NAME_MAX_LEN ||
		    strcmp(e->d_name + len - 5, ".json"))
			continue;
		memcpy(node, e->d_name, len - 5);
		node[len - 5] = 0;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (contract_valid_name(node) &&
		    (o = json_read_file(path, HEALTH_MAX_BYTES * 2, JSON_MAX_DEPTH, err, sizeof(err)))) {
			take(conf, s, node, o, now);
			json_object_put(o);
		}
		unlink(path);
	}
	closedir(d);
}
