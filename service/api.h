/* attribd, api.c: the dashboard's JSON API (its HTTP server: dashboard.h). */
#ifndef ATTRIB_API_H
#define ATTRIB_API_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>
#include "store.h"

/* A node's current Slurm state into buf; false when not known. */
typedef bool (*api_state_fn)(const char *node, char *buf, size_t len, void *arg);

/* Answers GET path (/api/v1/...) with the query's parameters args (an
 * object of name -> string; a repeated name is the caller's 400) at now:
 * the HTTP status and *body (JSON, the caller frees): 200, or 400 / 404 /
 * 500 / 501 with {"error": "..."}.  state may be NULL. */
unsigned api_handle(store *s, const char *path, struct json_object *args, long long now, api_state_fn state,
		    void *state_arg, char **body);

#endif
