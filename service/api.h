/* The dashboard's JSON API (api.c) and its HTTP server (dashboard.c). */
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

struct dashboard;
struct attrib_config;
/* Starts the dashboard (Dashboard = on): its own libmicrohttpd daemon on
 * DashboardListen (the intake's guard, httpguard.c, with the dashboard's
 * limits and DashboardAllowFrom), its own read-only connection to db,
 * HTTPS with DashboardTLSCert/Key, a bearer token with DashboardTokenFile,
 * only the Host names of DashboardHosts.  NULL with a reason in err:
 * beyond loopback without TLS and a token (unless DashboardInsecure =
 * yes), a token or key file of another user or others may read. */
struct dashboard *dashboard_start(const struct attrib_config *conf, const char *db, char *err, size_t errlen);
unsigned dashboard_port(struct dashboard *d);
void dashboard_stop(struct dashboard *d);

/* The page's files (www/, embedded at build time: www_files.c). */
struct www_file {
	const char *path, *type;
	const unsigned char *data;
	size_t len;
};
extern const struct www_file www_files[];
extern const size_t www_nfiles;

#endif
