/* POST /api/v1/jobs/ID/label (labelapi.h): an admin's verdict from a
 * ticket system, recorded as attrib label records it (store/label.h),
 * checked by the same label_invalid. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "contract.h"
#include "jsonread.h"
#include "label.h"
#include "labelapi.h"

static struct json_object *error_json(const char *msg)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "error", json_object_new_string(msg));
	return o;
}

/* the label of body into l (its strings point into body's object), or
 * what is wrong */
static const char *read_body(struct json_object *o, struct label_row *l, long *attempt, const char **names,
			     int *n)
{
	struct json_object *v;

	if (!json_object_is_type(o, json_type_object))
		return "the body is not a JSON object";
	json_object_object_foreach (o, k, val) {
		(void)val;
		if (strcmp(k, "confirm") && strcmp(k, "sub_domain") && strcmp(k, "culprit_nodes") &&
		    strcmp(k, "cause") && strcmp(k, "note") && strcmp(k, "attempt") && strcmp(k, "by"))
			return "an unknown field (confirm, sub_domain, culprit_nodes, cause, note, attempt, "
			       "by)";
	}
	if (json_object_object_get_ex(o, "confirm", &v) && v) {
		if (!json_object_is_type(v, json_type_boolean))
			return "confirm is not a boolean";
		l->confirm = json_object_get_boolean(v);
	}
	l->sub_domain = json_str(o, "sub_domain");
	l->cause = json_str(o, "cause");
	l->note = json_str(o, "note");
	if (l->confirm == (l->sub_domain != NULL))
		return "either confirm: true or a sub_domain";
	if (l->confirm && (l->cause || json_object_object_get_ex(o, "culprit_nodes", NULL)))
		return "confirm takes no culprit_nodes nor cause";
	if (json_object_object_get_ex(o, "culprit_nodes", &v) && v) {
		if (!json_object_is_type(v, json_type_array) || json_object_array_length(v) > LABEL_NODES_MAX)
			return "culprit_nodes is not an array of at most 64 names";
		for (size_t i = 0; i < json_object_array_length(v); i++) {
			struct json_object *e = json_object_array_get_idx(v, i);

			if (!json_object_is_type(e, json_type_string) ||
			    !contract_valid_name(json_object_get_string(e)))
				return "culprit_nodes holds something that is not a node name";
			names[(*n)++] = json_object_get_string(e);
		}
	}
	if (json_object_object_get_ex(o, "attempt", &v) && v) {
		if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
			return "attempt is not an integer from 0";
		*attempt = (long)json_object_get_int64(v);
	}
	return NULL;
}

unsigned label_api(const char *db, const attrib_catalog *cat, const char *id, const char *body, size_t len,
		   long long now, char **out)
{
	struct label_row l = { .job_id = id, .created = now };
	const char *names[LABEL_NODES_MAX], *why = NULL, *who;
	char culprits[LABEL_NODES_MAX * (CONTRACT_NAME_MAX + 1) + 1] = "", by[CONTRACT_NAME_MAX + 16],
								  err[300];
	struct json_object *o = NULL, *res = NULL;
	long attempt = -1, got = -1;
	int n = 0;
	unsigned status = 400;
	store *s = NULL;
	char *text;

	if (!contract_valid_name(id))
		why = "not a job id";
	else if (!(o = json_parse_bounded(body, len, 8, err, sizeof(err))))
		why = "the body is not JSON";
	else if (!(why = read_body(o, &l, &attempt, names, &n))) {
		label_join_nodes(names, n, culprits, sizeof(culprits));
		l.culprits = culprits;
		why = label_invalid(&l);
		/* as attrib label checks it: a code of the catalog attribd uses */
		if (!why && l.cause && cat && !attrib_catalog_has_code(cat, l.cause))
			why = "cause is not a code of the rule catalog";
	}
	if (why)
		goto done;
	who = json_str(o, "by");
	snprintf(by, sizeof(by), "api%s%s%s", who && contract_valid_name(who) ? " (" : "",
		 who && contract_valid_name(who) ? who : "", who && contract_valid_name(who) ? ")" : "");
	l.by = by;
	status = 500;
	if (!(s = store_open(db, false, err, sizeof(err)))) {
		why = "the store cannot be written";
		goto done;
	}
	if (!(text = store_get(s, id, attempt, &got))) {
		status = 404;
		why = "no stored result for this job";
		goto done;
	}
	free(text);
	l.attempt = got;
	if (store_add_label(s, &l) != 1 || store_latest_label(s, id, got, &res) != 1) {
		why = "the label cannot be recorded";
		goto done;
	}
	json_clean_strings(res);
	status = 201;
done:
	if (!res)
		res = error_json(why ? why : "internal error");
	*out = strdup(
		json_object_to_json_string_ext(res, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(res);
	json_object_put(o);
	store_close(s);
	return *out ? status : 500;
}
