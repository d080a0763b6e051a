/* Webhook: each stored result is POSTed, as the JSON the store holds, to
 * the configured URL.
 *
 * Durable: the delivery is queued in the store (webhook_queue) in the same
 * transaction as the result (store_webhook_arm), and marked done only on a
 * 2xx answer; a receiver that is down gets retries with backoff, and a
 * restart tries everything still pending at once.  So a result may be
 * delivered twice (the service killed between the answer and the mark) but
 * never lost; receivers can tell by job_id and attempt.
 *
 * Its own thread with its own SQLite connection and one libcurl handle:
 * a slow or dead receiver (WebhookTimeout) never holds up attribution. */
#include <curl/curl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "conf.h"
#include "contract.h"
#include "jsonread.h"
#include "log.h"
#include "metrics.h"
#include "store.h"
#include "util.h"
#include "webhook.h"

#define WEBHOOK_BATCH 20

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop, kick, started;
	atomic_bool abort; /* a POST in flight gives up (stopping) */
	pthread_t thread;
	char db[PATH_MAX];
	char *url;
	long timeout;
} W = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

long webhook_backoff(int tries)
{
	long s = 5;

	for (int i = 0; i < tries && s < 3600; i++)
		s *= 2;
	return s < 3600 ? s : 3600;
}

static size_t discard(char *p, size_t size, size_t n, void *arg)
{
	(void)p;
	(void)arg;
	return size * n;
}

static int progress(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	(void)arg, (void)dt, (void)dn, (void)ut, (void)un;
	return atomic_load(&W.abort) ? 1 : 0;
}

/* One POST; 0 on a 2xx answer, else -1 with a reason. */
static int post(CURL *c, const struct comment_item *it, char *err, size_t errlen)
{
	char ebuf[CURL_ERROR_SIZE] = "", hjob[NAME_MAX_LEN + 64];
	struct curl_slist *h = NULL, *h2;
	long status = 0;
	CURLcode rc;

	snprintf(hjob, sizeof(hjob), "X-Attrib-Job: %s.%ld", it->job_id, it->attempt);
	if (!(h2 = curl_slist_append(h, "Content-Type: application/json")) || !(h = h2) ||
	    !(h2 = curl_slist_append(h, hjob)) || !(h = h2) || !(h2 = curl_slist_append(h, "Expect:")) ||
	    !(h = h2)) {
		curl_slist_free_all(h);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, W.url);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
#endif
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, W.timeout);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, W.timeout);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "attrib/" PACKAGE_VERSION);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, it->text);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(it->text));
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, progress);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, ebuf);
	rc = curl_easy_perform(c);
	curl_slist_free_all(h);
	if (rc != CURLE_OK) {
		snprintf(err, errlen, "%s", *ebuf ? ebuf : curl_easy_strerror(rc));
		return -1;
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (status < 200 || status > 299) {
		snprintf(err, errlen, "the receiver answered HTTP %ld", status);
		return -1;
	}
	return 0;
}

/* The body to POST: the stored text, unless a string in it is not clean
 * (a result stored before the service cleaned every string, or a store
 * written by something else): then the result with its strings cleaned,
 * so the receiver always gets strict UTF-8 without control characters.
 * NULL when the stored text is not JSON. */
static char *clean_body(const char *text)
{
	char err[128];
	struct json_object *r = json_parse_bounded(text, strlen(text), JSON_MAX_DEPTH, err, sizeof(err));
	char *body = NULL;

	if (!r)
		return NULL;
	body = strdup(json_clean_strings(r)
			      ? json_object_to_json_string_ext(r,
							       JSON_C_TO_STRING_PLAIN |
								       JSON_C_TO_STRING_NOSLASHESCAPE)
			      : text);
	json_object_put(r);
	return body;
}

/* Delivers what is due (everything pending when all); how many were due. */
static int deliver_due(store *s, CURL *c, bool all)
{
	struct comment_item *items = NULL;
	long long now = time(NULL);
	char err[CURL_ERROR_SIZE + 64];
	int n = store_webhook_due(s, all ? LLONG_MAX : now, WEBHOOK_BATCH, &items);

	for (int i = 0; i < n && !atomic_load(&W.abort); i++) {
		struct comment_item *it = &items[i];

		char *body = it->text ? clean_body(it->text) : NULL;

		if (body) {
			free(it->text);
			it->text = body;
		} else {
			/* (not JSON: never sent, retried with backoff like a failure) */
			snprintf(err, sizeof(err), "%s",
				 it->text ? "the stored result is not JSON" : "out of memory");
		}
		if (body && post(c, it, err, sizeof(err)) == 0) {
			store_webhook_done(s, it->job_id, it->attempt, (long long)time(NULL));
			atomic_fetch_add(&svc_metrics.webhook_delivered, 1);
			log_msg(LOGL_INFO, "job %s attempt %ld: delivered to the webhook", it->job_id,
				it->attempt);
		} else {
			long wait = webhook_backoff(it->tries);

			store_webhook_retry(s, it->job_id, it->attempt, (long long)time(NULL) + wait, err);
			atomic_fetch_add(&svc_metrics.webhook_failures, 1);
			log_msg(it->tries ? LOGL_INFO : LOGL_WARNING,
				"job %s attempt %ld: webhook delivery failed (try %d, again in %ld s): %s",
				it->job_id, it->attempt, it->tries + 1, wait, err);
		}
	}
	store_free_items(items, n > 0 ? n : 0);
	if (n < 0)
		log_msg(LOGL_ERROR, "webhook: cannot read the queue");
	return n;
}

static void *webhook_thread(void *arg)
{
	char err[512];
	store *s = store_open(W.db, false, err, sizeof(err));
	CURL *c = curl_easy_init();
	bool first = true;

	(void)arg;
	if (!s || !c) {
		log_msg(LOGL_ERROR, "webhook: %s", s ? "cannot start libcurl" : err);
		store_close(s);
		if (c)
			curl_easy_cleanup(c);
		return NULL;
	}
	for (;;) {
		int n;

		pthread_mutex_lock(&W.lock);
		W.kick = false;
		pthread_mutex_unlock(&W.lock);
		/* after a restart, what is pending goes at once */
		n = deliver_due(s, c, first);
		first = false;
		atomic_store(&svc_metrics.webhook_queue, store_webhook_pending(s));

		/* until the next try is due (at least 1 s: an item the store
		 * could not reschedule is not retried in a tight loop), at most
		 * 60 s; a full batch goes on at once, a kick wakes it */
		long long next = store_webhook_next(s), now = time(NULL);
		long wait = next < 0 || next - now > 60 ? 60 : next - now < 1 ? 1 : (long)(next - now);
		pthread_mutex_lock(&W.lock);
		if (!W.stop && !W.kick && n < WEBHOOK_BATCH) {
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += wait;
			pthread_cond_timedwait(&W.cond, &W.lock, &ts);
		}
		bool stop = W.stop;
		pthread_mutex_unlock(&W.lock);
		if (stop)
			break;
	}
	curl_easy_cleanup(c);
	store_close(s);
	return NULL;
}

int webhook_start(const struct attrib_config *conf, store *s, const char *db, char *err, size_t errlen)
{
	if (!conf->webhook)
		return 0;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		snprintf(err, errlen, "webhook: cannot initialise libcurl");
		return -1;
	}
	if (store_webhook_arm(s) < 0) {
		snprintf(err, errlen, "webhook: cannot arm the store's delivery queue");
		curl_global_cleanup();
		return -1;
	}
	snprintf(W.db, sizeof(W.db), "%s", db);
	W.url = strdup(conf->webhook);
	W.timeout = conf->webhook_timeout > 0 ? conf->webhook_timeout : 1;
	W.stop = W.kick = false;
	atomic_store(&W.abort, false);
	if (!W.url || pthread_create(&W.thread, NULL, webhook_thread, NULL)) {
		snprintf(err, errlen, "webhook: cannot start its thread");
		free(W.url);
		W.url = NULL;
		curl_global_cleanup();
		return -1;
	}
	W.started = true;
	/* not the URL: it may hold credentials */
	log_msg(LOGL_INFO, "webhook: results are delivered (timeout %ld s)", W.timeout);
	return 0;
}

void webhook_kick(void)
{
	pthread_mutex_lock(&W.lock);
	W.kick = true;
	pthread_cond_signal(&W.cond);
	pthread_mutex_unlock(&W.lock);
}

void webhook_stop(void)
{
	if (!W.started)
		return;
	atomic_store(&W.abort, true);
	pthread_mutex_lock(&W.lock);
	W.stop = true;
	pthread_cond_signal(&W.cond);
	pthread_mutex_unlock(&W.lock);
	pthread_join(W.thread, NULL);
	W.started = false;
	free(W.url);
	W.url = NULL;
	curl_global_cleanup();
}
