/* A drain decision (a row of the drains table) as the JSON object that
 * attrib show --json, the findings of attrib nodes/show --json and the
 * dashboard's API print (doc/formats.md): written here once, where each of
 * them wrote its own. */
#include <time.h>
#include <json-c/json.h>
#include "store.h"
#include "timefmt.h"

static struct json_object *str(const char *s)
{
	return json_object_new_string(s ? s : "");
}

struct json_object *store_drain_json(const struct drain_row *d, bool with_job)
{
	struct json_object *o = json_object_new_object();
	char when[32];

	if (!o)
		return NULL;
	json_object_object_add(o, "time",
			       json_object_new_string(
				       time_format_sec((time_t)d->created, when, sizeof(when))));
	if (with_job)
		json_object_object_add(o, "job_id", str(d->job_id));
	json_object_object_add(o, "attempt", json_object_new_int64(d->attempt));
	json_object_object_add(o, "node", str(d->node));
	json_object_object_add(o, "decision", str(d->decision));
	json_object_object_add(o, "by", str(d->by));
	json_object_object_add(o, "reason", str(d->reason));
	return o;
}

int store_drain_json_add(const struct drain_row *d, void *array)
{
	struct json_object *o = store_drain_json(d, false);

	return o && json_object_array_add(array, o) == 0 ? 0 : -1;
}
