/* attribd, dashboard.c: the dashboard's HTTP server (its API: api.h). */
#ifndef ATTRIB_DASHBOARD_H
#define ATTRIB_DASHBOARD_H

#include <stddef.h>
#include "attrib.h"
#include "conf.h"

struct dashboard;
/* Starts the dashboard (Dashboard = on): its own libmicrohttpd daemon on
 * DashboardListen (the intake's guard, httpguard.c, with the dashboard's
 * limits and DashboardAllowFrom), its own read-only connection to db,
 * HTTPS with DashboardTLSCert/Key, a bearer token with DashboardTokenFile,
 * only the Host names of DashboardHosts.  NULL with a reason in err:
 * beyond loopback without TLS and a token (unless DashboardInsecure =
 * yes), a token or key file of another user or others may read. */
struct dashboard *dashboard_start(const struct attrib_config *conf, const attrib_catalog *cat, const char *db,
				  char *err, size_t errlen);
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
