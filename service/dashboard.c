/* The dashboard (Dashboard = on): a read-only web page and its JSON API
 * (api.c) on DashboardListen, a libmicrohttpd daemon of its own beside the
 * bundle intake (http.c), so that nothing of it can slow the nodes' uploads
 * and nothing of the intake is reachable from it.
 *
 *   GET /, /app.js, /style.css   the page (www/, embedded at build time)
 *   GET /api/v1/...              api.c
 *
 * Read only: GET and HEAD, anything else 405; but for POST
 * /api/v1/jobs/ID/label (labelapi.c) when LabelTokenFile is set: its own
 * token (401 without, 403 with the read-only one), a body of at most
 * LABEL_BODY_MAX bytes, written through a connection of its own.  HTTPS when DashboardTLSCert
 * and DashboardTLSKey are set (libmicrohttpd with GnuTLS); a bearer token
 * when DashboardTokenFile is (compared in constant time); both files
 * root's or attribd's user's, of mode 0600 at most.  Beyond loopback it
 * starts only with both, or DashboardInsecure = yes.  Every answer carries
 * a strict Content-Security-Policy: the page's script and style come from
 * its own files, none inline.
 *
 * Abuse: the intake's guard (httpguard.c): DASH_THREADS threads,
 * DashboardConnections, DashboardPerAddress, HttpHeaderTimeout,
 * HttpIdleTimeout, and DashboardAllowFrom asked at accept.  Before any
 * of it, a request must name one of DashboardHosts in its Host header
 * (421 otherwise): a page whose name was made to point to this host (DNS
 * rebinding) is refused before the token or the store is looked at.
 * The API's requests take turns on one read-only connection to the store
 * (a SQLite connection is used by one thread at a time); the page's own
 * files need none. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include "api.h"
#include "dashboard.h"
#include "conf.h"
#include "contract.h"
#include "http.h"
#include "labelapi.h"
#include "httpguard.h"
#include "log.h"
#include "metrics.h"
#include "nodetable.h"
#include "slurmapi.h"
#include "store.h"

#define TOKEN_MAX 4096
#define STATE_TTL 60   /* seconds the nodes' Slurm states are kept */
#define DASH_THREADS 2 /* the page answered while one thread waits for the store */
#define HOST_MAX 256
#define LABEL_BODY_MAX 16384

struct dashboard {
	struct http_guard *g;
	struct allow_list allow; /* DashboardAllowFrom */
	char **hosts;		 /* DashboardHosts and DashboardListen's host, lower case */
	size_t nhosts;
	pthread_mutex_t lock; /* s, states, states_at */
	bool lock_made;
	store *s;
	char *token;		   /* NULL: none asked for */
	char *label_token;	   /* LabelTokenFile's; NULL: no labels by the API */
	char *db;		   /* the store's path, for the labels' writes */
	const attrib_catalog *cat; /* a label's cause is one of its codes */
	char *cert, *key;
	struct node_state_map *states;
	long long states_at;
	bool slurm;
};

static const char csp[] = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
			  "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

static enum MHD_Result respond(struct MHD_Connection *c, unsigned status, const char *type, const void *body,
			       size_t len, bool copy, bool cache)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body,
								 copy ? MHD_RESPMEM_MUST_COPY
								      : MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(r, "Content-Security-Policy", csp);
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "X-Frame-Options", "DENY");
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(r, "Cross-Origin-Resource-Policy", "same-origin");
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, cache ? "max-age=300" : "no-store");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	if (status == MHD_HTTP_UNAUTHORIZED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer realm=\"attrib\"");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result send_error(struct MHD_Connection *c, unsigned status, const char *msg)
{
	struct json_object *o = json_object_new_object();
	enum MHD_Result ret;
	const char *t;

	json_object_object_add(o, "error", json_object_new_string(msg));
	t = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	ret = respond(c, status, "application/json", t, strlen(t), true, false);
	json_object_put(o);
	return ret;
}

/* The same time whatever prefix of the token a guess shares with it. */
static bool token_ok(const char *want, const char *got)
{
	size_t n = strlen(want), m = got ? strlen(got) : 0;
	unsigned char d = (unsigned char)(n != m);

	for (size_t i = 0; i < n; i++)
		d |= (unsigned char)want[i] ^ (unsigned char)(i < m ? got[i] : 0);
	return got && !d;
}

struct args {
	struct json_object *o;
	char dup[80];
};

static enum MHD_Result arg_cb(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	struct args *a = cls;

	(void)kind;
	if (json_object_object_get_ex(a->o, key, NULL)) {
		snprintf(a->dup, sizeof(a->dup), "%.64s", key);
		return MHD_NO;
	}
	json_object_object_add(a->o, key, json_object_new_string(value ? value : ""));
	return MHD_YES;
}

static bool slurm_state(const char *node, char *buf, size_t len, void *arg)
{
	struct dashboard *d = arg;
	const char *st = NULL, *reason = NULL;

	if (!d->states || !node_state_of(d->states, node, &st, &reason) || !st)
		return false;
	snprintf(buf, len, "%s", st);
	return true;
}

static enum MHD_Result api(struct dashboard *d, struct MHD_Connection *c, const char *url)
{
	struct args a = { .o = json_object_new_object() };
	long long now = time(NULL);
	char *body = NULL, why[128];
	unsigned status;
	enum MHD_Result ret;

	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, arg_cb, &a);
	if (a.dup[0]) {
		json_object_put(a.o);
		snprintf(why, sizeof(why), "parameter \"%s\" given twice", a.dup);
		return send_error(c, MHD_HTTP_BAD_REQUEST, why);
	}
	pthread_mutex_lock(&d->lock);
	if (!strcmp(url, "/api/v1/nodes") && d->slurm && now - d->states_at >= STATE_TTL) {
		/* the nodes' current states, at most once a minute from slurmctld */
		node_states_free(d->states);
		d->states = node_states_load(why, sizeof(why));
		d->states_at = now;
	}
	status = api_handle(d->s, url, a.o, now, d->slurm ? slurm_state : NULL, d, &body);
	pthread_mutex_unlock(&d->lock);
	json_object_put(a.o);
	if (!body)
		return send_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	if (status >= 500)
		log_msg(LOGL_ERROR, "dashboard: %s: %s", url, body);
	ret = respond(c, status, "application/json", body, strlen(body), true, false);
	free(body);
	return ret;
}

/* The host of a Host header, or of a DashboardHosts item: "name",
 * "name:port", "[IPv6]" or "[IPv6]:port"; lower case into buf.  false
 * when it is none of those. */
static bool host_of(const char *h, char *buf, size_t len)
{
	const char *end, *port;
	size_t n;

	if (*h == '[') {
		if (!(end = strchr(++h, ']')))
			return false;
		port = end + 1;
	} else {
		end = h + strcspn(h, ":");
		port = end;
	}
	n = end - h;
	if (!n || n >= len ||
	    (*port && (*port != ':' || !port[1] || strspn(port + 1, "0123456789") != strlen(port + 1))))
		return false;
	for (size_t i = 0; i < n; i++)
		buf[i] = (char)tolower((unsigned char)h[i]);
	buf[n] = 0;
	return true;
}

/* NULL when the request names one of the hosts the dashboard answers as,
 * else the refusal (its status in *status) */
static const char *host_problem(struct dashboard *d, struct MHD_Connection *c, unsigned *status, char *why,
				size_t len)
{
	const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
	char host[HOST_MAX];

	*status = MHD_HTTP_BAD_REQUEST;
	if (!h)
		return "a Host header is required";
	if (!host_of(h, host, sizeof(host))) {
		snprintf(why, len, "Host \"%.64s\" is not host[:port]", h);
		return why;
	}
	for (size_t i = 0; i < d->nhosts; i++)
		if (!strcmp(host, d->hosts[i]))
			return NULL;
	*status = MHD_HTTP_MISDIRECTED_REQUEST;
	snprintf(why, len, "the dashboard does not answer as \"%.64s\" (DashboardHosts)", host);
	return why;
}

/* "/api/v1/jobs/ID/label": ID into id */
static bool label_url(const char *url, char *id, size_t len)
{
	const char *p = url + strlen("/api/v1/jobs/"), *end;

	if (strncmp(url, "/api/v1/jobs/", strlen("/api/v1/jobs/")) || !(end = strchr(p, '/')) ||
	    strcmp(end, "/label") || end == p || (size_t)(end - p) >= len)
		return false;
	snprintf(id, len, "%.*s", (int)(end - p), p);
	return true;
}

struct label_body {
	size_t n;
	bool too_big;
	char buf[LABEL_BODY_MAX];
};

static void request_done(void *cls, void **con_cls)
{
	(void)cls;
	free(*con_cls);
	*con_cls = NULL;
}

/* POST /api/v1/jobs/ID/label: the token at the head, then the body, then
 * the label recorded (labelapi.c) */
static enum MHD_Result label_post(struct dashboard *d, struct MHD_Connection *c, const char *id,
				  const char *data, size_t *size, void **con_cls)
{
	struct label_body *b = *con_cls;
	char *body = NULL;
	unsigned status;
	enum MHD_Result ret;

	if (!b) {
		const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							    MHD_HTTP_HEADER_AUTHORIZATION);
		const char *got = h && !strncasecmp(h, "Bearer ", 7) ? h + 7 : NULL;

		*size = 0;
		if (got && !token_ok(d->label_token, got) && d->token && token_ok(d->token, got))
			return send_error(c, MHD_HTTP_FORBIDDEN,
					  "the dashboard's token reads; a label needs LabelTokenFile's");
		if (!got || !token_ok(d->label_token, got))
			return send_error(c, MHD_HTTP_UNAUTHORIZED,
					  "a label needs a bearer token (Authorization: Bearer TOKEN)");
		if (!(b = calloc(1, sizeof(*b))))
			return MHD_NO;
		*con_cls = b;
		return MHD_YES;
	}
	if (*size) {
		if (b->n + *size > sizeof(b->buf))
			b->too_big = true;
		else
			memcpy(b->buf + b->n, data, *size);
		b->n += b->too_big ? 0 : *size;
		*size = 0;
		return MHD_YES;
	}
	if (b->too_big)
		return send_error(c, 413 /* Content Too Large */, "the body is larger than 16384 bytes");
	status = label_api(d->db, d->cat, id, b->buf, b->n, (long long)time(NULL), &body);
	if (!body)
		return send_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	if (status >= 500)
		log_msg(LOGL_ERROR, "dashboard: label of job %s: %s", id, body);
	else if (status == 201)
		log_msg(LOGL_INFO, "dashboard: job %s labelled: %s", id, body);
	ret = respond(c, status, "application/json", body, strlen(body), true, false);
	free(body);
	return ret;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			       const char *version, const char *upload_data, size_t *upload_data_size,
			       void **con_cls)
{
	struct dashboard *d = cls;
	const char *bad;
	unsigned status;
	char why[160];

	char id[CONTRACT_NAME_MAX + 2];

	(void)version;
	if (!*con_cls)
		http_guard_head_done(c);
	if ((bad = host_problem(d, c, &status, why, sizeof(why)))) {
		atomic_fetch_add(&svc_metrics.dashboard_refused_host, 1);
		*upload_data_size = 0; /* a body is not read: the answer closes the connection */
		return send_error(c, status, bad);
	}
	if (d->label_token && !strcmp(method, MHD_HTTP_METHOD_POST) && label_url(url, id, sizeof(id)))
		return label_post(d, c, id, upload_data, upload_data_size, con_cls);
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		*upload_data_size = 0; /* a body is not read: the answer closes the connection */
		return send_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, "read only: GET and HEAD");
	}
	if (d->token) {
		const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							    MHD_HTTP_HEADER_AUTHORIZATION);

		if (!h || strncasecmp(h, "Bearer ", 7) || !token_ok(d->token, h + 7))
			return send_error(c, MHD_HTTP_UNAUTHORIZED,
					  "a bearer token is required (Authorization: Bearer TOKEN)");
	}
	if (!strncmp(url, "/api/", 5))
		return api(d, c, url);
	if (!strcmp(url, "/"))
		url = "/index.html";
	for (size_t i = 0; i < www_nfiles; i++)
		if (!strcmp(url + 1, www_files[i].path))
			return respond(c, MHD_HTTP_OK, www_files[i].type, www_files[i].data, www_files[i].len,
				       false, true);
	return send_error(c, MHD_HTTP_NOT_FOUND, "no such page");
}

/* A whole small file.  A secret's (the token's, the TLS key's) must be
 * root's or attribd's user's (whoever owns it can replace it: with a token
 * of their own, the dashboard is theirs) and no one else's to read or
 * write (0600 or less). */
static char *read_small(const char *path, bool secret, size_t max, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	char *buf = NULL;
	ssize_t n;

	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > (off_t)max) {
		snprintf(err, errlen, "%s: not a regular file of at most %zu bytes", path, max);
	} else if (secret && st.st_uid != 0 && st.st_uid != geteuid()) {
		struct passwd pw, *p = NULL;
		char pwbuf[1024];

		getpwuid_r(st.st_uid, &pw, pwbuf, sizeof(pwbuf), &p);
		snprintf(err, errlen, "%s: owned by %s%s(uid %u), not by root or attribd's user (uid %u)",
			 path, p ? p->pw_name : "", p ? " " : "", (unsigned)st.st_uid, (unsigned)geteuid());
	} else if (secret && (st.st_mode & 077)) {
		snprintf(err, errlen, "%s: mode %03o: its group or other users have access to it (chmod 600)",
			 path, (unsigned)(st.st_mode & 0777));
	} else if ((buf = calloc(1, (size_t)st.st_size + 1))) {
		n = read(fd, buf, (size_t)st.st_size);
		if (n != st.st_size) {
			snprintf(err, errlen, "%s: cannot read it", path);
			free(buf);
			buf = NULL;
		}
	}
	close(fd);
	return buf;
}

static char *read_token(const char *path, char *err, size_t errlen)
{
	char *t = read_small(path, true, TOKEN_MAX, err, errlen);
	size_t n;

	if (!t)
		return NULL;
	n = strcspn(t, "\r\n");
	t[n] = 0;
	for (size_t i = 0; i < n; i++)
		if (t[i] <= ' ' || t[i] > '~')
			n = 0;
	if (n < 16) {
		snprintf(err, errlen, "%s: the token must be one line of at least 16 printable characters",
			 path);
		free(t);
		return NULL;
	}
	return t;
}

static void dashboard_free(struct dashboard *d)
{
	if (!d)
		return;
	allow_list_free(&d->allow);
	for (size_t i = 0; i < d->nhosts; i++)
		free(d->hosts[i]);
	free(d->hosts);
	if (d->lock_made)
		pthread_mutex_destroy(&d->lock);
	store_close(d->s);
	node_states_free(d->states);
	if (d->token)
		explicit_bzero(d->token, strlen(d->token));
	free(d->token);
	if (d->label_token)
		explicit_bzero(d->label_token, strlen(d->label_token));
	free(d->label_token);
	free(d->db);
	if (d->key)
		explicit_bzero(d->key, strlen(d->key));
	free(d->key);
	free(d->cert);
	free(d);
}

static bool allowed(void *cls, const struct sockaddr *sa)
{
	return allow_list_has(&((struct dashboard *)cls)->allow, sa);
}

static bool loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;

		return IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
	}
	return false;
}

static int add_host(struct dashboard *d, const char *h)
{
	char host[HOST_MAX], **more;

	if (!host_of(h, host, sizeof(host)))
		return -1;
	if (!(more = realloc(d->hosts, (d->nhosts + 1) * sizeof(*d->hosts))))
		return -1;
	d->hosts = more;
	if (!(d->hosts[d->nhosts] = strdup(host)))
		return -1;
	d->nhosts++;
	return 0;
}

/* DashboardHosts, and the host DashboardListen names (not a wildcard) */
static int hosts_set(struct dashboard *d, const struct attrib_config *conf, const struct sockaddr *sa,
		     char *err, size_t errlen)
{
	static const struct in6_addr any6 = IN6ADDR_ANY_INIT;
	bool wildcard = (sa->sa_family == AF_INET && !((const struct sockaddr_in *)sa)->sin_addr.s_addr) ||
		(sa->sa_family == AF_INET6 &&
		 !memcmp(&((const struct sockaddr_in6 *)sa)->sin6_addr, &any6, sizeof(any6)));

	for (int i = 0; i < conf->ndashboard_hosts; i++)
		if (add_host(d, conf->dashboard_hosts[i]) < 0) {
			snprintf(err, errlen,
				 "DashboardHosts: %s is not a host name or address (IPv6 in brackets: [::1])",
				 conf->dashboard_hosts[i]);
			return -1;
		}
	if (!wildcard)
		add_host(d, conf->dashboard_listen); /* host:port (":port" names none: not added) */
	if (!d->nhosts) {
		snprintf(err, errlen,
			 "DashboardHosts is empty and DashboardListen %s names no host: every request "
			 "would be refused",
			 conf->dashboard_listen);
		return -1;
	}
	return 0;
}

struct dashboard *dashboard_start(const struct attrib_config *conf, const attrib_catalog *cat, const char *db,
				  char *err, size_t errlen)
{
	struct dashboard *d = calloc(1, sizeof(*d));
	struct addrinfo *ai = NULL;
	const char *listen = conf->dashboard_listen;
	bool insecure = conf->dashboard_insecure && !strcmp(conf->dashboard_insecure, "yes");
	unsigned flags = 0;
	char why[256];

	if (!d)
		return NULL;
	if (!(ai = http_listen_addr("DashboardListen", listen, err, errlen)))
		goto fail;
	if (!conf->dashboard_tls_cert != !conf->dashboard_tls_key) {
		snprintf(err, errlen, "DashboardTLSCert and DashboardTLSKey go together");
		goto fail;
	}
	/* users' names, job names and log lines: beyond this host only
	 * encrypted and to whoever has the token, unless the admin says so */
	if (!loopback(ai->ai_addr) && !(conf->dashboard_tls_cert && conf->dashboard_token_file)) {
		const char *missing = "DashboardTLSCert, DashboardTLSKey and DashboardTokenFile";

		if (conf->dashboard_tls_cert)
			missing = "DashboardTokenFile";
		else if (conf->dashboard_token_file)
			missing = "DashboardTLSCert and DashboardTLSKey";
		if (!insecure) {
			snprintf(err, errlen,
				 "DashboardListen %s is not a loopback address, and the dashboard shows "
				 "users' job names and log lines: set %s, or listen on 127.0.0.1 behind a "
				 "reverse proxy, or set DashboardInsecure = yes to serve it so anyway",
				 listen, missing);
			goto fail;
		}
		log_msg(LOGL_WARNING,
			"dashboard on %s without TLS and a token (DashboardInsecure = yes, no %s): whoever "
			"reaches it reads users' job names and log lines",
			listen, missing);
	}
	if (conf->dashboard_tls_cert) {
		if (!MHD_is_feature_supported(MHD_FEATURE_TLS)) {
			snprintf(err, errlen, "DashboardTLSCert: this libmicrohttpd has no TLS");
			goto fail;
		}
		if (!(d->cert = read_small(conf->dashboard_tls_cert, false, 1 << 20, why, sizeof(why))) ||
		    !(d->key = read_small(conf->dashboard_tls_key, true, 1 << 20, why, sizeof(why)))) {
			snprintf(err, errlen, "Dashboard TLS: %s", why);
			goto fail;
		}
		flags |= MHD_USE_TLS;
	}
	if (conf->dashboard_token_file &&
	    !(d->token = read_token(conf->dashboard_token_file, why, sizeof(why)))) {
		snprintf(err, errlen, "DashboardTokenFile %s", why);
		goto fail;
	}
	if (conf->label_token_file &&
	    !(d->label_token = read_token(conf->label_token_file, why, sizeof(why)))) {
		snprintf(err, errlen, "LabelTokenFile %s", why);
		goto fail;
	}
	if (d->label_token && d->token && !strcmp(d->label_token, d->token)) {
		snprintf(err, errlen,
			 "LabelTokenFile holds DashboardTokenFile's token: whoever reads "
			 "the dashboard could then write labels");
		goto fail;
	}
	d->cat = cat;
	if (!(d->db = strdup(db))) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (allow_list_set(&d->allow, "DashboardAllowFrom", conf->dashboard_allow_from,
			   conf->ndashboard_allow_from, false, err, errlen) < 0 ||
	    hosts_set(d, conf, ai->ai_addr, err, errlen) < 0)
		goto fail;
	allow_list_add_self(&d->allow, ai->ai_addr);
	if (!(d->s = store_open(db, true, why, sizeof(why)))) {
		snprintf(err, errlen, "dashboard: store: %s", why);
		goto fail;
	}
	pthread_mutex_init(&d->lock, NULL);
	d->lock_made = true;
	d->slurm = slurm_ready(why, sizeof(why));
	struct MHD_OptionItem tls[] = {
		{ MHD_OPTION_HTTPS_MEM_CERT, 0, d->cert },
		{ MHD_OPTION_HTTPS_MEM_KEY, 0, d->key },
		{ MHD_OPTION_END, 0, NULL },
	};
	d->g = http_guard_start(&(struct http_guard_conf){
		.name = "dashboard",
		.addr = ai->ai_addr,
		.flags = flags,
		.lim = { .connections = (unsigned)conf->dashboard_connections,
			 .per_address = (unsigned)conf->dashboard_per_address,
			 .threads = DASH_THREADS,
			 .header_timeout = (unsigned)conf->http_header_timeout,
			 .idle_timeout = (unsigned)conf->http_idle_timeout },
		.allowed = allowed,
		.cls = d,
		.done = request_done,
		.handler = handler,
		.handler_cls = d,
		.refused = &svc_metrics.dashboard_refused_address,
		.timeouts = &svc_metrics.dashboard_header_timeouts,
		.more = d->cert ? tls : NULL,
	});
	freeaddrinfo(ai);
	ai = NULL;
	if (!d->g) {
		snprintf(err, errlen,
			 "dashboard: cannot listen on %s (in use, not an address of this host, "
			 "or a TLS certificate and key that do not go together)",
			 listen);
		goto fail;
	}
	return d;
fail:
	if (ai)
		freeaddrinfo(ai);
	dashboard_free(d);
	return NULL;
}

unsigned dashboard_port(struct dashboard *d)
{
	const union MHD_DaemonInfo *i = d
		? MHD_get_daemon_info(http_guard_daemon(d->g), MHD_DAEMON_INFO_BIND_PORT)
		: NULL;

	return i ? i->port : 0;
}

void dashboard_stop(struct dashboard *d)
{
	if (!d)
		return;
	http_guard_stop(d->g);
	dashboard_free(d);
}
