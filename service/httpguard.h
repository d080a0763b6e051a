/* What keeps a libmicrohttpd server of attribd reachable (httpguard.c),
 * one piece for both of them: the bundle intake (http.c) and the
 * dashboard (dashboard.c).  Apart from http.h: it needs libmicrohttpd's
 * types, which the service's other files do not. */
#ifndef ATTRIB_HTTPGUARD_H
#define ATTRIB_HTTPGUARD_H

#include <microhttpd.h>
#include <stdatomic.h>
#include <stdbool.h>
#include "http.h"

struct http_guard_conf {
	const char *name; /* of the server, for the log: "http", "dashboard" */
	const struct sockaddr *addr;
	unsigned flags; /* more of libmicrohttpd's (MHD_USE_TLS, ...) */
	struct http_limits lim;
	/* who may connect: asked before a byte is read */
	bool (*allowed)(void *cls, const struct sockaddr *sa);
	void *cls; /* of allowed and done */
	/* a request ended (answered or not): *con_cls freed; NULL: none */
	void (*done)(void *cls, void **con_cls);
	MHD_AccessHandlerCallback handler;
	void *handler_cls;
	/* counted: closed at accept by allowed, cut by the head timeout */
	atomic_ulong *refused, *timeouts;
	const struct MHD_OptionItem *more; /* NULL, or up to MHD_OPTION_END */
};

struct http_guard;
/* The server listening on conf->addr: lim.threads threads each with its
 * own epoll set, at most lim.connections connections (the listen backlog
 * as long), lim.per_address from one address, closed at accept when not
 * allowed, shut down when a request head is not complete lim.header_timeout
 * seconds after the connection's start or its previous request's end
 * (libmicrohttpd's own timeout, lim.idle_timeout, is an idle one: a client
 * sending a byte a second never reaches it).  NULL when it cannot listen. */
struct http_guard *http_guard_start(const struct http_guard_conf *conf);
struct MHD_Daemon *http_guard_daemon(struct http_guard *g);
/* The handler tells it when c's request head is complete (its first
 * call for the request): the head timeout no longer applies to it. */
void http_guard_head_done(struct MHD_Connection *c);
/* Stops the server (its connections closed) and the watchdog. */
void http_guard_stop(struct http_guard *g);

#endif
