/* The service's HTTP side (libmicrohttpd):
 *
 *   POST /v1/bundle   one node's bundle; X-Attrib-Credential is a MUNGE
 *                     credential of "attrib-bundle:v1:JOBID:NODE:SHA256"
 *   POST /v1/healthcheck  one node's health check (attrib-collect --health),
 *                     at most HEALTH_MAX_BYTES; X-Attrib-Credential is a MUNGE
 *                     credential of "attrib-health:v1:NODE:SHA256", made on
 *                     that node; kept in STATE/health/NODE.json (the latest
 *                     of each node) for the main loop (service/health_intake.c)
 *   GET  /v1/health   {"status":"ok",...}
 *   GET  /metrics     counters, Prometheus text format
 *
 * A bundle is checked before its body is read (credential: 401 without,
 * 403 when munged refuses it, it is not root's or was not made on the node
 * it names; Content-Length over MaxBundleBytes: 413), then streamed to a
 * temporary file while its SHA-256 is computed and its JSON checked
 * (bundlescan.c: nothing built, so memory does not grow with the body),
 * then checked again (the hash the credential names: 403; a bundle of the
 * credential's job and node: 400; more than MaxBundleBytes without a
 * Content-Length: 413 at its end) and renamed to STATE/incoming/JOBID/NODE.json
 * before the 202.  That last step, the fsyncs, is one thread's (the
 * committer): the connection is suspended meanwhile, and the committer
 * makes every bundle that finished since its last round durable at once
 * (spool_commit_bundles), then resumes their connections.  (A client that
 * half-closes its side before the answer may lose the answer, not the
 * bundle: libmicrohttpd reads that end of stream as an abort; curl, the
 * collector's client, never does.)
 *
 * Abuse (httpguard.c, shared with the dashboard): HttpThreads threads,
 * each with its own epoll set, so thousands of open connections cost no
 * polling time; connections from outside AllowFrom are closed as they are
 * accepted (nodetable.c); HttpPerAddress bounds what one address holds; a
 * connection whose request head is not complete within HttpHeaderTimeout
 * is shut down. */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "auth.h"
#include "bundlescan.h"
#include "contract.h"
#include "http.h"
#include "httpguard.h"
#include "jsonread.h"
#include "log.h"
#include "metrics.h"
#include "nodetable.h"
#include "sha256.h"
#include "spool.h"
#include "util.h"

#define STR_(x) #x
#define STR(x) STR_(x)

struct http_server {
	struct http_guard *g;
	char *state_dir;
	size_t max_bundle;
	int wake_fd;
	/* bundles waiting for the committer */
	pthread_mutex_t qlock;
	pthread_cond_t qcond;
	struct upload *qhead, **qtail;
	bool qstop, committer_started;
	pthread_t committer;
};

enum { UP_RECEIVING, UP_COMMITTING, UP_COMMITTED };

struct upload {
	struct auth_claim claim;
	struct sha256 sha;
	struct bscan scan;
	char tmp[4096];
	int fd;
	size_t got, discarded;
	bool io_error, too_large;
	_Atomic int state;
	int commit_err;		     /* of spool_commit_bundles */
	struct MHD_Connection *conn; /* suspended while committing */
	struct upload *next;	     /* in the committer's queue */
	bool health;		     /* a health report: in mem, not a file */
	char *mem;
};

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type, const char *body)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), (void *)body,
								 MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result reply_json(struct MHD_Connection *c, unsigned status, const char *key, const char *msg)
{
	struct json_object *o = json_object_new_object();
	enum MHD_Result ret;

	json_object_object_add(o, key, json_object_new_string(msg));
	ret = reply(c, status, "application/json", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return ret;
}

static const char *peer(struct MHD_Connection *c, char *buf, size_t len)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);

	snprintf(buf, len, "?");
	if (!ci || !ci->client_addr)
		return buf;
	if (ci->client_addr->sa_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)ci->client_addr)->sin_addr, buf, len);
	else if (ci->client_addr->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)ci->client_addr)->sin6_addr, buf, len);
	return buf;
}

static enum MHD_Result reject(struct MHD_Connection *c, enum reject_reason r, const char *why,
			      const char *job, const char *node)
{
	static const unsigned status[REJ_N] = {
		[REJ_NO_CREDENTIAL] = MHD_HTTP_UNAUTHORIZED,
		[REJ_INVALID] = MHD_HTTP_FORBIDDEN,
		[REJ_EXPIRED] = MHD_HTTP_FORBIDDEN,
		[REJ_REWOUND] = MHD_HTTP_FORBIDDEN,
		[REJ_REPLAYED] = MHD_HTTP_FORBIDDEN,
		[REJ_UID] = MHD_HTTP_FORBIDDEN,
		[REJ_PAYLOAD] = MHD_HTTP_FORBIDDEN,
		[REJ_HASH] = MHD_HTTP_FORBIDDEN,
		[REJ_TOO_LARGE] = 413 /* Content Too Large */,
		[REJ_BAD_BODY] = MHD_HTTP_BAD_REQUEST,
		[REJ_MUNGE_DOWN] = MHD_HTTP_SERVICE_UNAVAILABLE,
		[REJ_INTERNAL] = MHD_HTTP_INTERNAL_SERVER_ERROR,
		[REJ_ORIGIN] = MHD_HTTP_FORBIDDEN,
	};
	char addr[64];

	atomic_fetch_add(&svc_metrics.bundles_rejected[r], 1);
	log_msg(r == REJ_INTERNAL || r == REJ_MUNGE_DOWN ? LOGL_ERROR : LOGL_WARNING,
		"%s from %s rejected (%s%s%s%s%s): %s", job && !*job ? "health report" : "bundle",
		peer(c, addr, sizeof(addr)), reject_name(r), job && *job ? ", job " : "", job ? job : "",
		node && *node ? ", node " : "", node ? node : "", why);
	return reply_json(c, status[r], "error", why);
}

/* A bundle refused once its credential named its job and node is kept
 * for the job's diagnosis (spool_note_rejection: the node's coverage
 * entry says why) and for attribd --check. */
static enum MHD_Result refuse_bundle(struct http_server *h, struct MHD_Connection *c, enum reject_reason r,
				     const char *why, const struct auth_claim *claim)
{
	if (claim->job_id[0] && claim->node[0] &&
	    spool_note_rejection(h->state_dir, claim->job_id, claim->node, reject_name(r), why, time(NULL)) <
		    0)
		log_msg(LOGL_WARNING, "cannot keep the refusal of job %s's bundle from %s: %s", claim->job_id,
			claim->node, strerror(errno));
	return reject(c, r, why, claim->job_id, claim->node);
}

static void upload_free(struct upload *u)
{
	if (!u)
		return;
	if (u->fd >= 0)
		close(u->fd);
	if (u->tmp[0])
		unlink(u->tmp);
	free(u->mem);
	sha256_free(&u->sha);
	free(u);
}

/* a request ended: its upload's file and memory */
static void request_done(void *cls, void **con_cls)
{
	(void)cls;
	upload_free(*con_cls);
	*con_cls = NULL;
}

static bool allowed(void *cls, const struct sockaddr *sa)
{
	(void)cls;
	return nodetable_allowed(sa);
}

/* The checks of a whole body: NULL when it passes, else why (and r). */
static const char *bundle_problem(struct http_server *h, struct upload *u, enum reject_reason *r, char *why,
				  size_t whylen)
{
	char hex[65];

	*r = REJ_BAD_BODY;
	if (u->too_large) {
		*r = REJ_TOO_LARGE;
		snprintf(why, whylen, "more than MaxBundleBytes (%zu) sent without Content-Length",
			 h->max_bundle);
		return why;
	}
	if (u->io_error) {
		*r = REJ_INTERNAL;
		return "cannot spool the bundle";
	}
	sha256_final_hex(&u->sha, hex);
	if (strcmp(hex, u->claim.sha256)) {
		*r = REJ_HASH;
		return "the credential was not made for this body";
	}
	if (bscan_end(&u->scan) < 0)
		return u->scan.err;
	if (u->scan.top_type != '{' || strcmp(u->scan.schema, ATTRIB_BUNDLE_SCHEMA))
		return "not a " ATTRIB_BUNDLE_SCHEMA " object";
	if (strcmp(u->scan.job_id, u->claim.job_id) || strcmp(u->scan.node, u->claim.node))
		return "job_id and node differ from the credential's";
	if (u->scan.files_type && u->scan.files_type != '[')
		return "files is not a list";
	return NULL;
}

/* One batch of the committer's queue (at most BATCH bundles). */
#define BATCH 128
static void commit_batch(struct http_server *h, struct upload *list, bool resume)
{
	struct spool_pending v[BATCH];
	struct upload *ups[BATCH];
	size_t n = 0;

	for (struct upload *u = list; u && n < BATCH; u = u->next, n++) {
		ups[n] = u;
		v[n] = (struct spool_pending){
			.fd = u->fd, .tmp = u->tmp, .job_id = u->claim.job_id, .node = u->claim.node
		};
	}
	spool_commit_bundles(h->state_dir, v, n);
	for (size_t i = 0; i < n; i++) {
		struct upload *u = ups[i];
		struct MHD_Connection *c = u->conn;

		u->fd = -1;
		if (v[i].placed)
			u->tmp[0] = 0;
		u->commit_err = v[i].err;
		atomic_store(&u->state, UP_COMMITTED);
		/* from here on u is the connection's thread's again */
		if (resume)
			MHD_resume_connection(c);
	}
}

static void *committer(void *p)
{
	struct http_server *h = p;

	pthread_mutex_lock(&h->qlock);
	for (;;) {
		struct upload *list, *rest;
		size_t n = 0;

		while (!h->qhead && !h->qstop)
			pthread_cond_wait(&h->qcond, &h->qlock);
		if (!h->qhead)
			break; /* stopping, and nothing left */
		list = h->qhead;
		for (rest = list; rest && n < BATCH; rest = rest->next)
			n++;
		h->qhead = rest;
		if (!rest)
			h->qtail = &h->qhead;
		pthread_mutex_unlock(&h->qlock);
		commit_batch(h, list, true);
		pthread_mutex_lock(&h->qlock);
	}
	pthread_mutex_unlock(&h->qlock);
	return NULL;
}

/* The committer commits what is queued and ends; bundles finished after
 * that are committed by their own threads (commit). */
static void stop_committer(struct http_server *h)
{
	pthread_mutex_lock(&h->qlock);
	h->qstop = true;
	pthread_cond_signal(&h->qcond);
	pthread_mutex_unlock(&h->qlock);
	if (h->committer_started)
		pthread_join(h->committer, NULL);
	h->committer_started = false;
}

/* A checked bundle to the committer (its connection suspended until it is
 * durable); 1 when queued, 0 when committed here (the service stops). */
static int commit(struct http_server *h, struct MHD_Connection *c, struct upload *u)
{
	pthread_mutex_lock(&h->qlock);
	if (!h->qstop) {
		/* suspended before the committer can see it (and resume it) */
		MHD_suspend_connection(c);
		u->conn = c;
		u->next = NULL;
		atomic_store(&u->state, UP_COMMITTING);
		*h->qtail = u;
		h->qtail = &u->next;
		pthread_cond_signal(&h->qcond);
		pthread_mutex_unlock(&h->qlock);
		return 1;
	}
	pthread_mutex_unlock(&h->qlock);
	u->next = NULL;
	u->conn = c;
	atomic_store(&u->state, UP_COMMITTING);
	commit_batch(h, u, false);
	return 0;
}

/* The body is in: checked, then committed (the connection suspended until
 * it is durable: libmicrohttpd calls again after the committer resumes it),
 * then answered. */
static enum MHD_Result finish_bundle(struct http_server *h, struct MHD_Connection *c, struct upload *u)
{
	char msg[256], why[256];

	if (atomic_load(&u->state) == UP_RECEIVING) {
		enum reject_reason r;
		const char *bad = bundle_problem(h, u, &r, why, sizeof(why));

		if (bad)
			return refuse_bundle(h, c, r, bad, &u->claim);
		if (commit(h, c, u))
			return MHD_YES; /* suspended */
	}
	if (atomic_load(&u->state) != UP_COMMITTED)
		return MHD_YES; /* (called while suspended: not by libmicrohttpd 0.9.75) */
	if (u->commit_err) {
		snprintf(msg, sizeof(msg), "cannot spool the bundle: %s", strerror(u->commit_err));
		return refuse_bundle(h, c, REJ_INTERNAL, msg, &u->claim);
	}
	atomic_fetch_add(&svc_metrics.bundles_accepted, 1);
	log_msg(LOGL_INFO, "bundle of job %s from %s accepted (%zu bytes)", u->claim.job_id, u->claim.node,
		u->got);
	if (h->wake_fd >= 0 && write(h->wake_fd, "b", 1) < 0) {
		/* the main loop looks every second anyway */
	}
	{
		struct json_object *o = json_object_new_object();
		enum MHD_Result ret;

		json_object_object_add(o, "status", json_object_new_string("accepted"));
		json_object_object_add(o, "job_id", json_object_new_string(u->claim.job_id));
		json_object_object_add(o, "node", json_object_new_string(u->claim.node));
		ret = reply(c, MHD_HTTP_ACCEPTED, "application/json",
			    json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		json_object_put(o);
		return ret;
	}
}

static enum MHD_Result start_bundle(struct http_server *h, struct MHD_Connection *c, void **con_cls)
{
	const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	const char *cred = MHD_lookup_connection_value(c, MHD_HEADER_KIND, BUNDLE_CREDENTIAL_HEADER);
	struct upload *u;
	enum reject_reason r;
	char why[256];

	if (cl) {
		char *end;
		unsigned long long n = strtoull(cl, &end, 10);

		if (*end || n > h->max_bundle) {
			snprintf(why, sizeof(why), "bundle of %s bytes, larger than MaxBundleBytes (%zu)", cl,
				 h->max_bundle);
			return reject(c, REJ_TOO_LARGE, why, NULL, NULL);
		}
	}
	if (!(u = calloc(1, sizeof(*u))))
		return reject(c, REJ_INTERNAL, "out of memory", NULL, NULL);
	u->fd = -1;
	r = auth_decode(cred, &u->claim, why, sizeof(why));
	if (r == AUTH_OK && !nodetable_origin_ok(u->claim.node, &u->claim.origin, why, sizeof(why)))
		r = REJ_ORIGIN;
	if (r != AUTH_OK) {
		enum MHD_Result ret = refuse_bundle(h, c, r, why, &u->claim);

		upload_free(u);
		return ret;
	}
	sha256_init(&u->sha);
	bscan_init(&u->scan);
	u->fd = spool_tmp_bundle(h->state_dir, u->tmp, sizeof(u->tmp));
	if (u->fd < 0) {
		u->tmp[0] = u->fd < 0 ? 0 : u->tmp[0];
		snprintf(why, sizeof(why), "cannot spool the bundle: %s", strerror(errno));
		enum MHD_Result ret = refuse_bundle(h, c, REJ_INTERNAL, why, &u->claim);

		upload_free(u);
		return ret;
	}
	*con_cls = u;
	return MHD_YES;
}

/* ---- health reports -------------------------------------------------------- */

static enum MHD_Result start_health(struct MHD_Connection *c, void **con_cls)
{
	const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	const char *cred = MHD_lookup_connection_value(c, MHD_HEADER_KIND, BUNDLE_CREDENTIAL_HEADER);
	struct upload *u;
	enum reject_reason r;
	char why[256];

	if (cl && (strtoull(cl, NULL, 10) > HEALTH_MAX_BYTES || strspn(cl, "0123456789") != strlen(cl)))
		return reject(c, REJ_TOO_LARGE, "health report larger than " STR(HEALTH_MAX_BYTES) " bytes",
			      "", NULL);
	if (!(u = calloc(1, sizeof(*u))) || !(u->mem = malloc(HEALTH_MAX_BYTES + 1))) {
		free(u);
		return reject(c, REJ_INTERNAL, "out of memory", "", NULL);
	}
	u->fd = -1;
	u->health = true;
	r = auth_decode_kind(cred, true, &u->claim, why, sizeof(why));
	if (r == AUTH_OK && !nodetable_origin_ok(u->claim.node, &u->claim.origin, why, sizeof(why)))
		r = REJ_ORIGIN;
	if (r != AUTH_OK) {
		enum MHD_Result ret = reject(c, r, why, "", u->claim.node);

		upload_free(u);
		return ret;
	}
	sha256_init(&u->sha);
	*con_cls = u;
	return MHD_YES;
}

/* The whole report: the credential's body, one object of the credential's
 * node, its strings cleaned, kept as STATE/health/NODE.json. */
static enum MHD_Result finish_health(struct http_server *h, struct MHD_Connection *c, struct upload *u)
{
	char hex[65], path[4096], why[256];
	struct json_object *o, *st;
	const char *node, *schema;
	enum reject_reason r = REJ_BAD_BODY;

	if (u->too_large)
		return reject(c, REJ_TOO_LARGE, "health report larger than " STR(HEALTH_MAX_BYTES) " bytes",
			      "", u->claim.node);
	sha256_final_hex(&u->sha, hex);
	if (strcmp(hex, u->claim.sha256))
		return reject(c, REJ_HASH, "the credential was not made for this body", "", u->claim.node);
	u->mem[u->got] = 0;
	if (!(o = json_parse_bounded(u->mem, u->got, JSON_MAX_DEPTH, why, sizeof(why))))
		return reject(c, r, why, "", u->claim.node);
	if (!json_object_is_type(o, json_type_object) || !(schema = json_str(o, "schema")) ||
	    strcmp(schema, ATTRIB_HEALTH_SCHEMA))
		snprintf(why, sizeof(why), "not a " ATTRIB_HEALTH_SCHEMA " object");
	else if (!(node = json_str(o, "node")) || strcmp(node, u->claim.node))
		snprintf(why, sizeof(why), "node differs from the credential's");
	else if (!json_object_object_get_ex(o, "status", &st) || !json_object_is_type(st, json_type_int))
		snprintf(why, sizeof(why), "status is not a number");
	else
		why[0] = 0;
	if (!why[0]) {
		json_clean_strings(o);
		snprintf(path, sizeof(path), "%s/health/%s.json", h->state_dir, u->claim.node);
		const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
		if (svc_write_atomic(path, text, strlen(text)) < 0) {
			r = REJ_INTERNAL;
			snprintf(why, sizeof(why), "cannot keep the health report: %s", strerror(errno));
		}
	}
	json_object_put(o);
	if (why[0])
		return reject(c, r, why, "", u->claim.node);
	atomic_fetch_add(&svc_metrics.health_reports, 1);
	log_msg(LOGL_DEBUG, "health report from %s accepted", u->claim.node);
	if (h->wake_fd >= 0 && write(h->wake_fd, "h", 1) < 0) {
		/* the main loop looks every second anyway */
	}
	return reply_json(c, MHD_HTTP_ACCEPTED, "status", "accepted");
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			       const char *version, const char *upload_data, size_t *upload_data_size,
			       void **con_cls)
{
	struct http_server *h = cls;
	struct upload *u = *con_cls;

	(void)version;
	if (!u)
		http_guard_head_done(c); /* its head is complete */
	if (!strcmp(url, HEALTH_URL_PATH)) {
		if (strcmp(method, MHD_HTTP_METHOD_POST))
			return reply_json(c, MHD_HTTP_METHOD_NOT_ALLOWED, "error", "POST only");
		if (!u)
			return start_health(c, con_cls);
		if (!u->health)
			return MHD_NO;
		if (*upload_data_size) {
			size_t n = *upload_data_size;

			*upload_data_size = 0;
			if (u->got + n > HEALTH_MAX_BYTES) {
				u->too_large = true;
				/* an endless body is cut off */
				return (u->discarded += n) > HEALTH_MAX_BYTES ? MHD_NO : MHD_YES;
			}
			memcpy(u->mem + u->got, upload_data, n);
			u->got += n;
			sha256_update(&u->sha, upload_data, n);
			return MHD_YES;
		}
		return finish_health(h, c, u);
	}
	if (!strcmp(url, BUNDLE_URL_PATH)) {
		if (strcmp(method, MHD_HTTP_METHOD_POST))
			return reply_json(c, MHD_HTTP_METHOD_NOT_ALLOWED, "error", "POST only");
		if (!u)
			return start_bundle(h, c, con_cls);
		if (*upload_data_size) {
			size_t n = *upload_data_size;

			*upload_data_size = 0;
			if (u->too_large || u->got + n > h->max_bundle) {
				/* no Content-Length (chunked): the rest is read and dropped,
				 * and the 413 comes at its end (libmicrohttpd answers only
				 * once the request is in); an endless body is cut off */
				u->too_large = true;
				u->discarded += n;
				if (u->discarded > h->max_bundle) {
					char addr[64];

					atomic_fetch_add(&svc_metrics.bundles_rejected[REJ_TOO_LARGE], 1);
					log_msg(LOGL_WARNING,
						"bundle from %s rejected (too_large, job %s, node %s): "
						"more than twice MaxBundleBytes (%zu) sent without "
						"Content-Length; connection closed",
						peer(c, addr, sizeof(addr)), u->claim.job_id, u->claim.node,
						h->max_bundle);
					return MHD_NO;
				}
				return MHD_YES;
			}
			u->got += n;
			sha256_update(&u->sha, upload_data, n);
			bscan_feed(&u->scan, upload_data, n);
			for (size_t off = 0; !u->io_error && off < n;) {
				ssize_t w = write(u->fd, upload_data + off, n - off);

				if (w < 0 && errno == EINTR)
					continue;
				if (w <= 0)
					u->io_error = true;
				else
					off += w;
			}
			return MHD_YES;
		}
		return finish_bundle(h, c, u);
	}
	if (u)
		return MHD_NO;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply_json(c, MHD_HTTP_METHOD_NOT_ALLOWED, "error", "GET only");
	if (!strcmp(url, "/v1/health")) {
		char body[256];

		snprintf(body, sizeof(body),
			 "{\"status\":\"ok\",\"version\":\"%s\",\"pending_jobs\":%ld,"
			 "\"comment_queue\":%ld}",
			 PACKAGE_VERSION, (long)atomic_load(&svc_metrics.pending_jobs),
			 (long)atomic_load(&svc_metrics.comment_queue));
		return reply(c, MHD_HTTP_OK, "application/json", body);
	}
	if (!strcmp(url, "/metrics")) {
		char *m = metrics_render();
		enum MHD_Result ret;

		if (!m)
			return MHD_NO;
		ret = reply(c, MHD_HTTP_OK, "text/plain; version=0.0.4", m);
		free(m);
		return ret;
	}
	return reply_json(c, MHD_HTTP_NOT_FOUND, "error", "no such resource");
}

struct addrinfo *http_listen_addr(const char *key, const char *listen, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE }, *ai = NULL;
	const char *colon = listen ? strrchr(listen, ':') : NULL;
	char host[256];
	int rc;

	if (!colon || (size_t)(colon - listen) >= sizeof(host)) {
		snprintf(err, errlen, "%s %s is not host:port", key, listen ? listen : "");
		return NULL;
	}
	memcpy(host, listen, colon - listen);
	host[colon - listen] = 0;
	if (host[0] == '[' && host[strlen(host) - 1] == ']') { /* [::1]:8080 */
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = 0;
	}
	if ((rc = getaddrinfo(*host ? host : NULL, colon + 1, &hints, &ai)) || !ai) {
		snprintf(err, errlen, "%s %s: %s", key, listen, gai_strerror(rc));
		return NULL;
	}
	return ai;
}

struct http_server *http_start(const char *listen, const char *state_dir, size_t max_bundle,
			       const struct http_limits *lim, int wake_fd, char *err, size_t errlen)
{
	static const struct http_limits def = HTTP_LIMITS_DEFAULT;
	struct http_server *h = calloc(1, sizeof(*h));
	struct addrinfo *ai = NULL;

	if (!h) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (!(ai = http_listen_addr("Listen", listen, err, errlen))) {
		free(h);
		return NULL;
	}
	h->state_dir = strdup(state_dir);
	h->max_bundle = max_bundle;
	h->wake_fd = wake_fd;
	nodetable_allow_self(ai->ai_addr);
	pthread_mutex_init(&h->qlock, NULL);
	pthread_cond_init(&h->qcond, NULL);
	h->qtail = &h->qhead;
	/* without it each bundle is committed by the thread that took it */
	h->committer_started = pthread_create(&h->committer, NULL, committer, h) == 0;
	h->qstop = !h->committer_started;
	h->g = http_guard_start(&(struct http_guard_conf){
		.name = "http",
		.addr = ai->ai_addr,
		.flags = MHD_ALLOW_SUSPEND_RESUME,
		.lim = lim ? *lim : def,
		.allowed = allowed,
		.done = request_done,
		.handler = handler,
		.handler_cls = h,
		.refused = &svc_metrics.http_refused_address,
		.timeouts = &svc_metrics.http_header_timeouts,
	});
	freeaddrinfo(ai);
	if (!h->g) {
		snprintf(err, errlen, "cannot listen on %s (in use, or not an address of this host)", listen);
		stop_committer(h);
		free(h->state_dir);
		free(h);
		return NULL;
	}
	return h;
}

unsigned http_port(struct http_server *h)
{
	const union MHD_DaemonInfo *i = MHD_get_daemon_info(http_guard_daemon(h->g),
							    MHD_DAEMON_INFO_BIND_PORT);

	return i ? i->port : 0;
}

void http_stop(struct http_server *h)
{
	if (!h)
		return;
	/* before libmicrohttpd stops: no connection may stay suspended */
	stop_committer(h);
	http_guard_stop(h->g);
	free(h->state_dir);
	free(h);
}
