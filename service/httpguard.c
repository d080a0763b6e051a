/* The part of attribd's HTTP servers that keeps them reachable under
 * abuse (httpguard.h), the intake's and the dashboard's alike: measured
 * in doc/hardening.md ("The service under abuse", "The dashboard").
 *
 * libmicrohttpd asks the accept policy before it reads a byte, so a
 * stranger costs an accept and a close; it bounds the connections, in
 * all and per address, itself.  What it lacks is a limit on the time a
 * request head may take: its timeout is an idle one, which a client
 * sending a byte a second never reaches.  A watchdog thread does that:
 * every connection is listed from its start (MHD_OPTION_NOTIFY_CONNECTION),
 * marked when its head is complete (the handler's first call), unmarked
 * when its request ends (MHD_OPTION_NOTIFY_COMPLETED: a kept-alive
 * connection gets the same time for its next head), and shut down when
 * late; libmicrohttpd then sees the end of the stream and closes it in
 * its own thread. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "http.h"
#include "httpguard.h"
#include "log.h"

/* One open connection, for the watchdog. */
struct conn {
	struct http_guard *g;
	int fd;
	long long since_ms; /* its start, or its previous request's end */
	bool in_request;    /* its request head is complete */
	struct conn *prev, *next;
};

struct http_guard {
	struct MHD_Daemon *d;
	struct http_guard_conf conf;
	pthread_mutex_t lock; /* conns */
	struct conn *conns;
	pthread_t watchdog;
	bool watchdog_started, stopping;
	pthread_cond_t stop_cond;
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static struct conn *conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

void http_guard_head_done(struct MHD_Connection *c)
{
	struct conn *k = conn_of(c);

	if (k) {
		pthread_mutex_lock(&k->g->lock);
		k->in_request = true; /* the watchdog lets it be */
		pthread_mutex_unlock(&k->g->lock);
	}
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
		      enum MHD_RequestTerminationCode toe)
{
	struct http_guard *g = cls;
	struct conn *k = conn_of(c);

	(void)toe;
	if (g->conf.done)
		g->conf.done(g->conf.cls, con_cls);
	if (k) {
		/* a kept-alive connection gets the head timeout for its next head */
		pthread_mutex_lock(&g->lock);
		k->in_request = false;
		k->since_ms = now_ms();
		pthread_mutex_unlock(&g->lock);
	}
}

static void notify_conn(void *cls, struct MHD_Connection *c, void **socket_context,
			enum MHD_ConnectionNotificationCode code)
{
	struct http_guard *g = cls;
	struct conn *k;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci =
			MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);

		*socket_context = NULL;
		if (!ci || !(k = calloc(1, sizeof(*k))))
			return;
		k->g = g;
		k->fd = ci->connect_fd;
		k->since_ms = now_ms();
		pthread_mutex_lock(&g->lock);
		k->next = g->conns;
		if (g->conns)
			g->conns->prev = k;
		g->conns = k;
		pthread_mutex_unlock(&g->lock);
		*socket_context = k;
	} else if (code == MHD_CONNECTION_NOTIFY_CLOSED && (k = *socket_context)) {
		/* before libmicrohttpd closes the descriptor: the watchdog never
		 * shuts down a number the kernel gave to someone else since */
		pthread_mutex_lock(&g->lock);
		if (k->prev)
			k->prev->next = k->next;
		else
			g->conns = k->next;
		if (k->next)
			k->next->prev = k->prev;
		pthread_mutex_unlock(&g->lock);
		free(k);
		*socket_context = NULL;
	}
}

/* Shuts down connections whose request head is late. */
static void *watchdog(void *p)
{
	struct http_guard *g = p;
	long long limit = g->conf.lim.header_timeout * 1000LL;

	pthread_mutex_lock(&g->lock);
	while (!g->stopping) {
		struct timespec ts;
		long long now = now_ms();

		for (struct conn *k = g->conns; k; k = k->next)
			if (!k->in_request && k->fd >= 0 && now - k->since_ms > limit) {
				/* counted before the close, so that whoever sees the
				 * connection end sees it counted */
				if (g->conf.timeouts)
					atomic_fetch_add(g->conf.timeouts, 1);
				shutdown(k->fd, SHUT_RDWR);
				k->fd = -1; /* once */
			}
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 250 * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&g->stop_cond, &g->lock, &ts);
	}
	pthread_mutex_unlock(&g->lock);
	return NULL;
}

static enum MHD_Result accept_policy(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
	struct http_guard *g = cls;

	(void)addrlen;
	if (g->conf.allowed(g->conf.cls, addr))
		return MHD_YES;
	if (g->conf.refused)
		atomic_fetch_add(g->conf.refused, 1);
	return MHD_NO;
}

/* libmicrohttpd's messages to the log, at debug level */
static void mhd_log(void *prefix, const char *fmt, va_list ap)
{
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	msg[strcspn(msg, "\n")] = 0;
	log_msg(LOGL_DEBUG, "%s: %s", (const char *)prefix, msg);
}

struct http_guard *http_guard_start(const struct http_guard_conf *conf)
{
	static const struct MHD_OptionItem none[] = { { MHD_OPTION_END, 0, NULL } };
	static const struct http_limits def = HTTP_LIMITS_DEFAULT;
	struct http_guard *g = calloc(1, sizeof(*g));
	/* a thread pool, each thread waiting on its own epoll set (measured in
	 * doc/hardening.md against the poll() threads of before) */
	unsigned flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG | conf->flags;

	if (!g)
		return NULL;
	g->conf = *conf;
	if (!g->conf.lim.threads)
		g->conf.lim.threads = 1;
	if (!g->conf.lim.header_timeout)
		g->conf.lim.header_timeout = def.header_timeout;
	if (conf->addr->sa_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->stop_cond, NULL);
	g->d = MHD_start_daemon(flags, 0, accept_policy, g, conf->handler, conf->handler_cls,
				MHD_OPTION_SOCK_ADDR, conf->addr, MHD_OPTION_THREAD_POOL_SIZE,
				g->conf.lim.threads, MHD_OPTION_CONNECTION_LIMIT, g->conf.lim.connections,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, g->conf.lim.per_address,
				MHD_OPTION_CONNECTION_TIMEOUT, g->conf.lim.idle_timeout,
				/* thousands of nodes connecting in the same second */
				MHD_OPTION_LISTEN_BACKLOG_SIZE, g->conf.lim.connections,
				MHD_OPTION_NOTIFY_COMPLETED, completed, g, MHD_OPTION_NOTIFY_CONNECTION,
				notify_conn, g, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, conf->name,
				MHD_OPTION_ARRAY, conf->more ? conf->more : none, MHD_OPTION_END);
	if (g->d && pthread_create(&g->watchdog, NULL, watchdog, g) == 0)
		g->watchdog_started = true;
	if (!g->watchdog_started) {
		http_guard_stop(g);
		return NULL;
	}
	return g;
}

struct MHD_Daemon *http_guard_daemon(struct http_guard *g)
{
	return g->d;
}

void http_guard_stop(struct http_guard *g)
{
	if (!g)
		return;
	/* the watchdog may run meanwhile: a connection leaves its list
	 * before its descriptor is closed */
	if (g->d)
		MHD_stop_daemon(g->d);
	if (g->watchdog_started) {
		pthread_mutex_lock(&g->lock);
		g->stopping = true;
		pthread_cond_signal(&g->stop_cond);
		pthread_mutex_unlock(&g->lock);
		pthread_join(g->watchdog, NULL);
	}
	pthread_mutex_destroy(&g->lock);
	pthread_cond_destroy(&g->stop_cond);
	free(g);
}
