/* attribd, http.c: the intake's HTTP server. */
#ifndef ATTRIB_HTTP_H
#define ATTRIB_HTTP_H

#include <stddef.h>

struct http_server;
/* A server's limits (attrib.conf's Http* keys for the intake; the
 * dashboard's, dashboard.c), applied by httpguard.c. */
struct http_limits {
	unsigned connections, per_address, threads;
	unsigned header_timeout, idle_timeout; /* seconds */
};
#define HTTP_LIMITS_DEFAULT \
	{ \
		4096, 8, 4, 5, 15 \
	}
/* Listens on host:port (port 0: any free one) for POST /v1/bundle,
 * GET /v1/health and GET /metrics, from AllowFrom only (nodetable.c).
 * Each accepted bundle is in STATE/incoming before the 202, then a byte
 * goes to wake_fd (-1: none).  lim NULL: HTTP_LIMITS_DEFAULT. */
struct http_server *http_start(const char *listen, const char *state_dir, size_t max_bundle,
			       const struct http_limits *lim, int wake_fd, char *err, size_t errlen);
unsigned http_port(struct http_server *h);
void http_stop(struct http_server *h);
/* The address to listen on of a host:port setting (key: its name, for the
 * message; host may be empty: every address, or [IPv6]); NULL with a
 * reason.  freeaddrinfo() it. */
struct addrinfo;
struct addrinfo *http_listen_addr(const char *key, const char *listen, char *err, size_t errlen);

#endif
