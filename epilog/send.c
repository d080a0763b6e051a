/* attrib-collect: sending a bundle to attrib serve, signed with a MUNGE
 * credential bound to its SHA-256, with retries within CollectTimeout. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>
#include "conf.h"
#include "contract.h"
#include "fileio.h"
#include "log.h"
#include "sha256.h"
#include "text.h"
#include "timefmt.h"
#include "xalloc.h"
#include "collect.h"
#include <curl/curl.h>
#include <munge.h>

/* ---- MUNGE ---- */

/* slurm.conf's AuthInfo socket=, so the collector talks to Slurm's munged. */
static char *slurm_munge_socket(void)
{
	const char *conf = getenv("SLURM_CONF");
	char line[4096], *res = NULL;
	FILE *f = fopen(conf && *conf ? conf : "/etc/slurm/slurm.conf", "re");

	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *v;

		while (isspace((unsigned char)*p))
			p++;
		if (strncasecmp(p, "AuthInfo", 8) || !(v = strchr(p, '=')))
			continue;
		for (char *q = p + 8; q < v; q++)
			if (!isspace((unsigned char)*q))
				goto next;
		v[strcspn(v, "#\r\n")] = 0;
		for (char *tok = strtok(v + 1, ","); tok; tok = strtok(NULL, ",")) {
			while (isspace((unsigned char)*tok))
				tok++;
			if (!strncasecmp(tok, "socket=", 7)) {
				free(res);
				res = strdup_or_die(tok + 7);
				res[strcspn(res, " \t")] = 0;
			}
		}
next:;
	}
	fclose(f);
	return res;
}

char *munge_socket_choice(const char *opt, const char **from)
{
	const char *env = getenv("ATTRIB_MUNGE_SOCKET");
	char *s;

	if (opt && *opt) {
		*from = "--munge-socket";
		return strdup_or_die(opt);
	}
	if (env && *env) {
		*from = "ATTRIB_MUNGE_SOCKET";
		return strdup_or_die(env);
	}
	if ((s = slurm_munge_socket())) {
		*from = "slurm.conf AuthInfo";
		return s;
	}
	*from = "libmunge's default";
	return NULL;
}

static char *credential(const struct collect_ctx *cx, const char *job, const char *node, const char *hash,
			char *err, size_t errlen)
{
	char payload[512];
	char *cred = NULL;
	munge_ctx_t ctx = munge_ctx_create();
	munge_err_t e;

	if (!ctx) {
		snprintf(err, errlen, "munge_ctx_create failed");
		return NULL;
	}
	if (cx->munge_socket &&
	    (e = munge_ctx_set(ctx, MUNGE_OPT_SOCKET, cx->munge_socket)) != EMUNGE_SUCCESS) {
		snprintf(err, errlen, "MUNGE socket %s: %s", cx->munge_socket, munge_ctx_strerror(ctx));
		munge_ctx_destroy(ctx);
		return NULL;
	}
	struct bundle_claim claim;

	snprintf(claim.job_id, sizeof(claim.job_id), "%s", job ? job : "");
	snprintf(claim.node, sizeof(claim.node), "%s", node);
	snprintf(claim.sha256, sizeof(claim.sha256), "%s", hash);
	/* no job: a health report, whose credential no bundle's can pass for */
	if (job ? bundle_payload_format(&claim, payload, sizeof(payload))
		: health_payload_format(node, hash, payload, sizeof(payload))) {
		snprintf(err, errlen, "job %s or node %s is not a valid name", job ? job : "-", node);
		munge_ctx_destroy(ctx);
		return NULL;
	}
	e = munge_encode(&cred, ctx, payload, (int)strlen(payload));
	if (e != EMUNGE_SUCCESS) {
		snprintf(err, errlen, "munge_encode (socket %s): %s",
			 cx->munge_socket ? cx->munge_socket : "default",
			 munge_ctx_strerror(ctx) ? munge_ctx_strerror(ctx) : munge_strerror(e));
		free(cred);
		cred = NULL;
	}
	munge_ctx_destroy(ctx);
	return cred;
}

/* ---- HTTP ---- */

struct reply {
	char text[256];
	size_t len;
};

static size_t on_reply(char *p, size_t size, size_t n, void *arg)
{
	struct reply *r = arg;
	size_t k = size * n, room = sizeof(r->text) - 1 - r->len;

	memcpy(r->text + r->len, p, k < room ? k : room);
	r->len += k < room ? k : room;
	r->text[r->len] = 0;
	return size * n;
}

/* One POST: whether the service took it. */
static enum send_status post_once(const struct collect_ctx *cx, const char *path, const char *body,
				  size_t len, const char *cred, double timeout, char *err, size_t errlen)
{
	CURL *h = curl_easy_init();
	struct curl_slist *hdr = NULL;
	struct reply rep = { .len = 0 };
	char url[2048], line[4096];
	long code = 0;
	CURLcode rc;
	long ms = (long)(timeout * 1000);
	size_t ul;

	if (!h) {
		snprintf(err, errlen, "curl_easy_init failed");
		return SEND_RETRY;
	}
	snprintf(url, sizeof(url), "%s", cx->conf->service_url ? cx->conf->service_url : "");
	ul = strlen(url);
	while (ul && url[ul - 1] == '/')
		url[--ul] = 0;
	snprintf(url + ul, sizeof(url) - ul, "%s", path);
	hdr = curl_slist_append(hdr, "Content-Type: application/json");
	hdr = curl_slist_append(hdr, "Expect:");
	snprintf(line, sizeof(line), BUNDLE_CREDENTIAL_HEADER ": %s", cred);
	hdr = curl_slist_append(hdr, line);
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(h, CURLOPT_POST, 1L);
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, ms > 100 ? ms : 100L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, ms > 100 ? ms : 100L);
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "attrib-collect/" PACKAGE_VERSION);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_reply);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &rep);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(h, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	rc = curl_easy_perform(h);
	if (rc == CURLE_OK)
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
	curl_slist_free_all(hdr);
	curl_easy_cleanup(h);
	if (rc != CURLE_OK) {
		snprintf(err, errlen, "%s: %s", url, curl_easy_strerror(rc));
		return rc == CURLE_COULDNT_CONNECT ? SEND_NO_SERVICE : SEND_RETRY;
	}
	if (code >= 200 && code < 300)
		return SEND_OK;
	rep.text[strcspn(rep.text, "\r\n")] = 0;
	snprintf(err, errlen, "%s: HTTP %ld %s", url, code, rep.text);
	if (code == 408 || code == 429 || code >= 500 || code == 401 || code == 403)
		return SEND_RETRY; /* 401/403: a credential problem that may be fixed */
	return SEND_REFUSED;
}

double remaining(const struct collect_ctx *cx)
{
	return cx->deadline - now_mono();
}

static void sleep_s(double s)
{
	struct timespec ts;

	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Sends a body (a bundle of job; job NULL: a health report): a fresh credential for each try (the service refuses a
 * replayed one), backoff 0.25 s, 0.5 s, 1 s ... within until (monotonic).
 * A refused connection is tried once more (a service restarting), then
 * given up at once: nothing listens, and every second spent here holds the
 * node in its epilog; the outbox keeps the bundle for the next epilog. */
enum send_status send_body(const struct collect_ctx *cx, const char *job, const char *node, const char *body,
			   size_t len, double until, int max_tries, char *err, size_t errlen)
{
	char hash[65];
	double backoff = 0.25;
	enum send_status rc = SEND_RETRY;
	int refused = 0;

	sha256_hex(body, len, hash);
	for (int tries = 0; tries < max_tries; tries++) {
		double left = until - now_mono();
		char *cred;

		if (left <= 0.05) {
			if (!tries)
				snprintf(err, errlen, "no time left to send");
			break;
		}
		if (!(cred = credential(cx, job, node, hash, err, errlen)))
			return SEND_RETRY; /* no munged: retrying now will not help */
		rc = post_once(cx, job ? BUNDLE_URL_PATH : HEALTH_URL_PATH, body, len, cred, left, err,
			       errlen);
		free(cred);
		if (rc == SEND_NO_SERVICE && ++refused >= 2)
			return SEND_RETRY;
		if (rc == SEND_NO_SERVICE)
			rc = SEND_RETRY;
		if (rc != SEND_RETRY)
			return rc;
		if (until - now_mono() <= backoff + 0.1)
			break;
		sleep_s(backoff);
		backoff *= 2;
	}
	return rc;
}
