/* MUNGE authentication and the HTTP endpoint (Check).  Starts a private
 * munged (its own key, socket, pid, log and seed file in a temporary
 * directory; ATTRIB_MUNGE_SOCKET points the service at it) and the
 * service's HTTP server on a free loopback port, then posts bundles: with a
 * good credential 202 (and the bundle is in STATE/incoming before the
 * answer), without one 401, replayed / not root / expired / for another
 * body / not ours 403, too large 413, not a bundle 400, munged down 503,
 * and the service answers on after each.  Needs root (a bundle credential
 * is root's) and munged: skipped otherwise. */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "conf.h"
#include "contract.h"
#include "http.h"
#include "log.h"
#include "metrics.h"
#include "nodetable.h"
#include "sha256.h"
#include "spool.h"
#include "testutil.h"

#define MAX_BUNDLE (256 * 1024)

static char munge_dir[] = "/tmp/attrib-munge-XXXXXX";
static char munge_sock[600];

static struct http_server *srv;
static char *state;
static int wake[2];
static unsigned port;

/* ---- a private munged ---- */

static const char *find_munged(void)
{
	static const char *c[] = { "/usr/sbin/munged", "/sbin/munged", "/usr/local/sbin/munged" };

	for (size_t i = 0; i < sizeof(c) / sizeof(*c); i++)
		if (access(c[i], X_OK) == 0)
			return c[i];
	return NULL;
}

static int start_munged(void)
{
	const char *munged = find_munged();
	char key[600], cmd[4096];
	unsigned char bytes[1024];
	int fd, r;

	if (!munged || !mkdtemp(munge_dir) || chmod(munge_dir, 0711))
		return -1;
	snprintf(key, sizeof(key), "%s/munge.key", munge_dir);
	snprintf(munge_sock, sizeof(munge_sock), "%s/munge.sock", munge_dir);
	fd = open("/dev/urandom", O_RDONLY);
	r = fd >= 0 && read(fd, bytes, sizeof(bytes)) == sizeof(bytes);
	if (fd >= 0)
		close(fd);
	fd = open(key, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (!r || fd < 0 || write(fd, bytes, sizeof(bytes)) != sizeof(bytes))
		return -1;
	close(fd);
	snprintf(cmd, sizeof(cmd),
		 "%s --socket=%s --key-file=%s --pid-file=%s/munged.pid --log-file=%s/munged.log "
		 "--seed-file=%s/munged.seed --origin=127.0.0.1",
		 munged, munge_sock, key, munge_dir, munge_dir, munge_dir);
	if (system(cmd) != 0)
		return -1;
	for (int i = 0; i < 100 && access(munge_sock, F_OK); i++)
		usleep(50000);
	setenv("ATTRIB_MUNGE_SOCKET", munge_sock, 1);
	return access(munge_sock, F_OK);
}

static void stop_munged(void)
{
	char p[600];
	FILE *f;
	int pid = 0;

	snprintf(p, sizeof(p), "%s/munged.pid", munge_dir);
	if ((f = fopen(p, "r"))) {
		if (fscanf(f, "%d", &pid) == 1 && pid > 1) {
			kill(pid, SIGTERM);
			for (int i = 0; i < 100 && kill(pid, 0) == 0; i++)
				usleep(20000);
		}
		fclose(f);
	}
	rmtree(strdup(munge_dir));
}

/* A credential of payload, encoded as uid (0: this process) with ttl (0:
 * munged's default).  The HTTP server's threads run in this process, so the
 * child may only call async-signal-safe functions between fork and exec:
 * libmunge in a forked child can deadlock on a lock another thread held
 * (seen under ASan), the munge(1) client cannot. */
static char *cred_as(uid_t uid, const char *payload, int ttl)
{
	char ttl_s[16], buf[4096];
	const char *argv[] = { "/usr/bin/munge", "--socket", munge_sock, "--string",
			       payload,		 "--ttl",    ttl_s,	 NULL };
	ssize_t n, got = 0;
	int p[2], st;
	pid_t pid;

	snprintf(ttl_s, sizeof(ttl_s), "%d", ttl);
	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(p[0]);
		dup2(p[1], 1);
		if (uid && (setgid(uid) || setuid(uid)))
			_exit(1);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(p[1]);
	while ((n = read(p[0], buf + got, sizeof(buf) - 1 - got)) > 0)
		got += n;
	close(p[0]);
	waitpid(pid, &st, 0);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "munge(1) failed: status %d", st);
	while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == '\r'))
		got--;
	buf[got] = 0;
	return strdup(buf);
}

static char *cred_for(const char *job, const char *node, const char *body, size_t len, uid_t uid, int ttl)
{
	struct sha256 h;
	char hex[65], payload[512];

	sha256_init(&h);
	sha256_update(&h, body, len);
	sha256_final_hex(&h, hex);
	snprintf(payload, sizeof(payload), "attrib-bundle:v1:%s:%s:%s", job, node, hex);
	return cred_as(uid, payload, ttl);
}

/* ---- a minimal HTTP client ---- */

struct resp {
	int status;
	char body[8192];
	bool closed_early; /* no status line at all */
};

/* Sends the request; body_len may differ from strlen(body) (a Content-Length
 * that lies); send_body false sends the head only. */
static void request(const char *method, const char *path, const char *cred, const char *body,
		    size_t content_length, bool send_body, struct resp *r)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	char head[8192], buf[16384];
	size_t got = 0;
	ssize_t n;
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	int len;

	memset(r, 0, sizeof(*r));
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	len = snprintf(head, sizeof(head), "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n%s%s%s",
		       method, path, cred ? "X-Attrib-Credential: " : "", cred ? cred : "",
		       cred ? "\r\n" : "");
	if (body && content_length == (size_t)-1)
		len += snprintf(head + len, sizeof(head) - len,
				"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n");
	else if (body)
		len += snprintf(head + len, sizeof(head) - len,
				"Content-Type: application/json\r\nContent-Length: %zu\r\n", content_length);
	len += snprintf(head + len, sizeof(head) - len, "\r\n");
	send(fd, head, len, MSG_NOSIGNAL);
	if (body && content_length == (size_t)-1) {
		/* chunks of 16 KiB, no length up front */
		size_t total = strlen(body), off = 0;

		while (off < total) {
			size_t k = total - off < 16384 ? total - off : 16384;
			char h[32];

			snprintf(h, sizeof(h), "%zx\r\n", k);
			if (send(fd, h, strlen(h), MSG_NOSIGNAL) < 0 ||
			    send(fd, body + off, k, MSG_NOSIGNAL) < 0 ||
			    send(fd, "\r\n", 2, MSG_NOSIGNAL) < 0)
				break;
			off += k;
		}
		if (off == total)
			send(fd, "0\r\n\r\n", 5, MSG_NOSIGNAL);
	} else if (body && send_body)
		for (size_t off = 0, total = strlen(body); off < total;) {
			n = send(fd, body + off, total - off, MSG_NOSIGNAL);
			if (n <= 0)
				break;
			off += n;
		}
	/* no shutdown(SHUT_WR): as curl, the collector's client, the sending
	 * side stays open until the answer (a bundle's connection is suspended
	 * while it is committed, and libmicrohttpd takes an end of stream read
	 * then for an abort: the bundle is spooled, the answer lost) */
	while (got < sizeof(buf) - 1 && (n = recv(fd, buf + got, sizeof(buf) - 1 - got, 0)) > 0)
		got += n;
	close(fd);
	buf[got] = 0;
	if (sscanf(buf, "HTTP/1.%*d %d", &r->status) != 1)
		r->closed_early = true;
	char *b = strstr(buf, "\r\n\r\n");
	snprintf(r->body, sizeof(r->body), "%s", b ? b + 4 : "");
}

static int post(const char *cred, const char *body, struct resp *r)
{
	request("POST", "/v1/bundle", cred, body, strlen(body), true, r);
	return r->status;
}

static char *bundle(const char *job, const char *node, const char *text)
{
	char *b;

	ck_assert_int_ge(asprintf(&b,
				  "{\"schema\":\"attrib.bundle/v1\",\"job_id\":\"%s\",\"node\":\"%s\","
				  "\"collected_at\":\"2026-11-29T08:20:00Z\",\"files\":[{\"name\":"
				  "\"kern.log\",\"source\":\"/var/log/"
				  "kern.log\",\"origin\":\"kernel\",\"text\":\"%s\"}],"
				  "\"ranks\":[],\"coverage\":[]}",
				  job, node, text),
			 0);
	return b;
}

static char *spooled(const char *job, const char *node)
{
	char *p;

	ck_assert_int_ge(asprintf(&p, "%s/incoming/%s/%s.json", state, job, node), 0);
	return p;
}

static unsigned long rejected(enum reject_reason r)
{
	return atomic_load(&svc_metrics.bundles_rejected[r]);
}

/* AllowFrom loopback; the nodes' addresses: node-01..node-06 are this
 * host (where the private munged encodes, --origin=127.0.0.1), node-07 is
 * another host (127.0.0.7) */
static char *allow[] = { "127.0.0.0/8" };
static char *node_addrs[] = { "node-01=127.0.0.1", "node-02=127.0.0.1", "node-03=127.0.0.1",
			      "node-04=127.0.0.1", "node-05=127.0.0.1", "node-06=127.0.0.1",
			      "node-07=127.0.0.7" };
static struct attrib_config tconf = {
	.allow_from = allow,
	.nallow_from = 1,
	.node_addresses = node_addrs,
	.nnode_addresses = 7,
	.node_table_refresh = 300,
};

static void setup(void)
{
	char err[256];

	ck_assert_int_eq(nodetable_start(&tconf, false, err, sizeof(err)), 0);

	state = tmpdir();
	ck_assert_int_eq(spool_prepare(state, err, sizeof(err)), 0);
	ck_assert_int_eq(pipe(wake), 0);
	fcntl(wake[0], F_SETFL, O_NONBLOCK);
	fcntl(wake[1], F_SETFL, O_NONBLOCK);
	srv = http_start("127.0.0.1:0", state, MAX_BUNDLE, NULL, wake[1], err, sizeof(err));
	ck_assert_msg(srv != NULL, "%s", err);
	port = http_port(srv);
	ck_assert_uint_ne(port, 0);
	log_set_level(LOGL_ERROR);
}

static void teardown(void)
{
	http_stop(srv);
	nodetable_stop();
	close(wake[0]);
	close(wake[1]);
	rmtree(state);
}

/* ---- the tests ---- */

START_TEST(health_and_metrics)
{
	struct resp r;

	request("GET", "/v1/health", NULL, NULL, 0, false, &r);
	ck_assert_int_eq(r.status, 200);
	ck_assert_ptr_nonnull(strstr(r.body, "\"status\":\"ok\""));
	request("GET", "/metrics", NULL, NULL, 0, false, &r);
	ck_assert_int_eq(r.status, 200);
	ck_assert_ptr_nonnull(strstr(r.body, "attrib_bundles_accepted_total 0"));
	request("GET", "/nothing", NULL, NULL, 0, false, &r);
	ck_assert_int_eq(r.status, 404);
	request("GET", "/v1/bundle", NULL, NULL, 0, false, &r);
	ck_assert_int_eq(r.status, 405);
}
END_TEST

START_TEST(accepts_a_bundle)
{
	char *b = bundle("4242", "node-02", "kernel: NVRM: Xid 149\\n");
	char *c = cred_for("4242", "node-02", b, strlen(b), 0, 0), *p = spooled("4242", "node-02");
	char got[4096], w;
	struct resp r;
	struct stat st;
	FILE *f;

	ck_assert_int_eq(post(c, b, &r), 202);
	ck_assert_ptr_nonnull(strstr(r.body, "accepted"));
	/* on disk before the answer, byte for byte, 0600 */
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	f = fopen(p, "r");
	size_t n = fread(got, 1, sizeof(got) - 1, f);
	fclose(f);
	got[n] = 0;
	ck_assert_str_eq(got, b);
	ck_assert_int_eq(read(wake[0], &w, 1), 1); /* the loop was woken */
	ck_assert_uint_eq(atomic_load(&svc_metrics.bundles_accepted), 1);
	free(b);
	free(c);
	free(p);
}
END_TEST

START_TEST(no_credential_401)
{
	char *b = bundle("4242", "node-02", "x"), *p = spooled("4242", "node-02");
	struct resp r;

	ck_assert_int_eq(post(NULL, b, &r), 401);
	ck_assert_int_eq(post("", b, &r), 401);
	ck_assert_int_ne(access(p, F_OK), 0);
	ck_assert_uint_eq(rejected(REJ_NO_CREDENTIAL), 2);
	/* garbage instead of a credential */
	ck_assert_int_eq(post("MUNGE:AwQFAAB=garbage:", b, &r), 403);
	ck_assert_uint_eq(rejected(REJ_INVALID), 1);
	free(b);
	free(p);
}
END_TEST

START_TEST(replayed_403)
{
	char *b = bundle("4242", "node-01", "x"), *c = cred_for("4242", "node-01", b, strlen(b), 0, 0);
	struct resp r;

	ck_assert_int_eq(post(c, b, &r), 202);
	ck_assert_int_eq(post(c, b, &r), 403);
	ck_assert_ptr_nonnull(strstr(r.body, "eplayed"));
	ck_assert_uint_eq(rejected(REJ_REPLAYED), 1);
	free(b);
	free(c);
}
END_TEST

START_TEST(not_root_403)
{
	struct passwd *pw = getpwnam("nobody");
	uid_t uid = pw ? pw->pw_uid : 65534;
	char *b = bundle("4242", "node-03", "x"), *c = cred_for("4242", "node-03", b, strlen(b), uid, 0);
	char *p = spooled("4242", "node-03");
	struct resp r;

	ck_assert_int_eq(post(c, b, &r), 403);
	ck_assert_ptr_nonnull(strstr(r.body, "not root"));
	ck_assert_uint_eq(rejected(REJ_UID), 1);
	ck_assert_int_ne(access(p, F_OK), 0);
	free(b);
	free(c);
	free(p);
}
END_TEST

START_TEST(expired_403)
{
	char *b = bundle("4242", "node-01", "x"), *c = cred_for("4242", "node-01", b, strlen(b), 0, 1);
	struct resp r;

	sleep(3);
	ck_assert_int_eq(post(c, b, &r), 403);
	ck_assert_uint_eq(rejected(REJ_EXPIRED), 1);
	free(b);
	free(c);
}
END_TEST

START_TEST(credential_bound_to_body_403)
{
	char *b = bundle("4242", "node-01", "the body that was signed");
	char *other = bundle("4242", "node-01", "another body");
	char *c = cred_for("4242", "node-01", b, strlen(b), 0, 0), *p = spooled("4242", "node-01");
	struct resp r;

	ck_assert_int_eq(post(c, other, &r), 403);
	ck_assert_uint_eq(rejected(REJ_HASH), 1);
	ck_assert_int_ne(access(p, F_OK), 0);
	/* a credential that is not for a bundle, and one whose job id is a path */
	char *hello = cred_as(0, "hello", 0);
	ck_assert_int_eq(post(hello, b, &r), 403);
	char payload[256];
	struct sha256 h;
	char hex[65];
	sha256_init(&h);
	sha256_update(&h, b, strlen(b));
	sha256_final_hex(&h, hex);
	/* (a name of this run's own: /tmp/x may be anyone's) */
	char trav_path[64];
	snprintf(trav_path, sizeof(trav_path), "/tmp/attrib-trav-%d", (int)getpid());
	snprintf(payload, sizeof(payload), "attrib-bundle:v1:../../..%s:node-01:%s", trav_path, hex);
	char *trav = cred_as(0, payload, 0);
	ck_assert_int_eq(post(trav, b, &r), 403);
	ck_assert_uint_eq(rejected(REJ_PAYLOAD), 2);
	ck_assert_int_ne(access(trav_path, F_OK), 0);
	free(hello);
	free(trav);
	free(b);
	free(other);
	free(c);
	free(p);
}
END_TEST

START_TEST(too_large_413)
{
	char *big = malloc(MAX_BUNDLE + 2);
	struct resp r;

	memset(big, 'x', MAX_BUNDLE + 1);
	big[MAX_BUNDLE + 1] = 0;
	/* refused on its Content-Length, before the body or the credential */
	request("POST", "/v1/bundle", "irrelevant", big, MAX_BUNDLE + 1, false, &r);
	ck_assert_int_eq(r.status, 413);
	ck_assert_uint_eq(rejected(REJ_TOO_LARGE), 1);
	/* without a Content-Length (chunked): 413 as well, once it is in (it
	 * was a reset connection) */
	char *c = cred_for("4242", "node-01", big, strlen(big), 0, 0);
	request("POST", "/v1/bundle", c, big, (size_t)-1, true, &r);
	ck_assert_int_eq(r.status, 413);
	ck_assert_uint_eq(rejected(REJ_TOO_LARGE), 2);
	char *p = spooled("4242", "node-01");
	ck_assert_int_ne(access(p, F_OK), 0);
	free(p);
	/* a small chunked bundle is fine */
	char *b = bundle("4242", "node-01", "x");
	free(c);
	c = cred_for("4242", "node-01", b, strlen(b), 0, 0);
	request("POST", "/v1/bundle", c, b, (size_t)-1, true, &r);
	ck_assert_int_eq(r.status, 202);
	free(b);
	free(c);
	free(big);
}
END_TEST

START_TEST(not_a_bundle_400)
{
	struct resp r;
	const char *bodies[] = {
		"{\"schema\": \"attrib.bundle/v1\", \"job_id\": \"4242\"", /* cut */
		"{\"schema\":\"attrib.bundle/v1\",\"job_id\":\"4242\",\"node\":\"node-01\"} trailing",
		"{\"schema\":\"other/v1\",\"job_id\":\"4242\",\"node\":\"node-01\"}",
		"{\"schema\":\"attrib.bundle/v1\",\"job_id\":\"4243\",\"node\":\"node-01\"}",
		"{\"schema\":\"attrib.bundle/v1\",\"job_id\":\"4242\",\"node\":\"node-09\"}",
		"[1,2,3]",
	};
	char deep[256];

	for (size_t i = 0; i < sizeof(bodies) / sizeof(*bodies); i++) {
		char *c = cred_for("4242", "node-01", bodies[i], strlen(bodies[i]), 0, 0);

		ck_assert_msg(post(c, bodies[i], &r) == 400, "body %zu: %d", i, r.status);
		free(c);
	}
	/* nested past the depth limit */
	memset(deep, 0, sizeof(deep));
	for (int i = 0; i < 60; i++)
		deep[i] = '[', deep[119 - i] = ']';
	char *c = cred_for("4242", "node-01", deep, strlen(deep), 0, 0);
	ck_assert_int_eq(post(c, deep, &r), 400);
	free(c);
	ck_assert_uint_eq(rejected(REJ_BAD_BODY), 7);
	char *p = spooled("4242", "node-01");
	ck_assert_int_ne(access(p, F_OK), 0);
	free(p);
}
END_TEST

START_TEST(keeps_running)
{
	struct resp r;
	char *b = bundle("7", "node-01", "x"), *c;

	/* a burst of bad requests */
	for (int i = 0; i < 20; i++) {
		ck_assert_int_eq(post(NULL, b, &r), 401);
		ck_assert_int_eq(post("junk", b, &r), 403);
	}
	request("POST", "/v1/bundle", NULL, b, MAX_BUNDLE * 4, false, &r);
	ck_assert_int_eq(r.status, 413);
	/* a connection that says nothing */
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	/* then a good one */
	c = cred_for("7", "node-01", b, strlen(b), 0, 0);
	ck_assert_int_eq(post(c, b, &r), 202);
	close(fd);
	request("GET", "/v1/health", NULL, NULL, 0, false, &r);
	ck_assert_int_eq(r.status, 200);
	request("GET", "/metrics", NULL, NULL, 0, false, &r);
	ck_assert_ptr_nonnull(strstr(r.body, "attrib_bundles_rejected_total{reason=\"no_credential\"} 20"));
	ck_assert_ptr_nonnull(strstr(r.body, "attrib_bundles_accepted_total 1"));
	free(b);
	free(c);
}
END_TEST

START_TEST(with_curl)
{
	char dir[600], cmd[8192], out[64] = "";
	FILE *f;

	if (system("curl --version >/dev/null 2>&1") != 0) {
		fprintf(stderr, "with_curl: no curl; skipped\n");
		return;
	}
	/* 100 KiB of log text: curl's own way of sending a body */
	size_t n = 100 * 1024;
	char *text = malloc(n + 1);
	for (size_t i = 0; i < n; i++)
		text[i] = i % 64 == 63 ? 'n' : 'a';
	for (size_t i = 63; i < n; i += 64)
		text[i - 1] = '\\';
	text[n] = 0;
	char *b = bundle("99", "node-01", text), *c = cred_for("99", "node-01", b, strlen(b), 0, 0);
	snprintf(dir, sizeof(dir), "%s/body.json", state);
	f = fopen(dir, "w");
	fputs(b, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "curl -s -o /dev/null -w '%%{http_code}' -H 'Content-Type: application/json' "
		 "-H 'X-Attrib-Credential: %s' --data-binary @%s http://127.0.0.1:%u/v1/bundle",
		 c, dir, port);
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(fgets(out, sizeof(out), f));
	pclose(f);
	ck_assert_str_eq(out, "202");
	char *p = spooled("99", "node-01");
	ck_assert_int_eq(access(p, F_OK), 0);
	free(p);
	/* and 413 for more than MaxBundleBytes (curl waits for 100-continue) */
	f = fopen(dir, "w");
	for (int i = 0; i < 4; i++)
		fputs(b, f);
	fclose(f);
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(fgets(out, sizeof(out), f));
	pclose(f);
	ck_assert_str_eq(out, "413");
	free(text);
	free(b);
	free(c);
}
END_TEST

START_TEST(munge_down_503)
{
	char *b = bundle("4242", "node-01", "x"), *c = cred_for("4242", "node-01", b, strlen(b), 0, 0);
	struct resp r;

	setenv("ATTRIB_MUNGE_SOCKET", "/nonexistent/munge.sock", 1);
	ck_assert_int_eq(post(c, b, &r), 503); /* the collector tries again later */
	ck_assert_uint_eq(rejected(REJ_MUNGE_DOWN), 1);
	setenv("ATTRIB_MUNGE_SOCKET", munge_sock, 1);
	ck_assert_int_eq(post(c, b, &r), 202); /* not consumed by the failed try */
	free(b);
	free(c);
}
END_TEST

/* ---- the sender is the node ---- */

START_TEST(origin_not_the_node_403)
{
	/* node-07 is 127.0.0.7; the credential was made here (127.0.0.1): a
	 * root elsewhere cannot send, or overwrite, node-07's evidence */
	char *b = bundle("4242", "node-07", "x"), *c = cred_for("4242", "node-07", b, strlen(b), 0, 0);
	char *p = spooled("4242", "node-07");
	struct resp r;

	ck_assert_int_eq(post(c, b, &r), 403);
	ck_assert_ptr_nonnull(strstr(r.body, "127.0.0.1"));
	ck_assert_uint_eq(rejected(REJ_ORIGIN), 1);
	ck_assert_int_ne(access(p, F_OK), 0);
	free(b);
	free(c);
	free(p);
	/* a node neither the table nor DNS knows */
	b = bundle("4242", "no-such-node-x9", "x");
	c = cred_for("4242", "no-such-node-x9", b, strlen(b), 0, 0);
	ck_assert_int_eq(post(c, b, &r), 403);
	ck_assert_uint_eq(rejected(REJ_ORIGIN), 2);
	free(b);
	free(c);
	/* node-01 is this host: taken */
	b = bundle("4242", "node-01", "x");
	c = cred_for("4242", "node-01", b, strlen(b), 0, 0);
	ck_assert_int_eq(post(c, b, &r), 202);
	request("GET", "/metrics", NULL, NULL, 0, false, &r);
	ck_assert_ptr_nonnull(strstr(r.body, "attrib_bundles_rejected_total{reason=\"origin\"} 2"));
	free(b);
	free(c);
}
END_TEST

/* a TCP connection from src (127.0.0.N) to the server */
static int connect_from(const char *src, unsigned to_port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(to_port) },
			   s = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	inet_pton(AF_INET, src, &s.sin_addr);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&s, sizeof(s)), 0);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	return fd;
}

/* seconds until the server closes fd (reads and drops what it sends) */
static double until_closed(int fd, double max)
{
	struct timespec t0, t1;
	char buf[512];

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct timeval tv = { 0, 100000 };
		ssize_t n;

		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		n = recv(fd, buf, sizeof(buf), 0);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		double el = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK))
			return el;
		if (el > max)
			return -1;
	}
}

START_TEST(refused_at_accept)
{
	static char *only[] = { "127.0.0.1/32" };
	struct attrib_config c2 = tconf;
	char err[256];
	struct resp r;

	nodetable_stop();
	c2.allow_from = only;
	ck_assert_int_eq(nodetable_start(&c2, false, err, sizeof(err)), 0);
	/* 127.0.0.9 is not in AllowFrom: closed before a byte is read */
	int fd = connect_from("127.0.0.9", port);
	send(fd, "GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n", 37, MSG_NOSIGNAL);
	/* (closed, not kept open until the 15 s idle timeout: 10 s is a
	 * bound for a loaded machine, where 1 s was not always) */
	double t = until_closed(fd, 10);
	close(fd);
	ck_assert_msg(t >= 0, "not closed within 10 s");
	ck_assert_uint_ge(atomic_load(&svc_metrics.http_refused_address), 1);
	request("GET", "/v1/health", NULL, NULL, 0, false, &r);
	ck_assert_int_eq(r.status, 200);
}
END_TEST

START_TEST(slow_head_is_cut)
{
	struct http_limits lim = HTTP_LIMITS_DEFAULT;
	char err[256];
	struct resp r;

	/* a second server with a 1 s head timeout */
	http_stop(srv);
	lim.header_timeout = 1;
	srv = http_start("127.0.0.1:0", state, MAX_BUNDLE, &lim, wake[1], err, sizeof(err));
	ck_assert_ptr_nonnull(srv);
	port = http_port(srv);
	/* a head sent a byte every 200 ms never goes idle, yet is cut */
	const char *head = "POST /v1/bundle HTTP/1.1\r\nHost: x\r\nX-Attrib-Credential: "
			   "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
	int fd = connect_from("127.0.0.2", port);
	struct timespec t0, t1;
	bool closed = false;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t i = 0; head[i] && !closed; i++) {
		if (send(fd, head + i, 1, MSG_NOSIGNAL) < 0)
			closed = true;
		else
			closed = until_closed(fd, 0.2) >= 0;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	close(fd);
	double el = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	ck_assert_msg(closed, "a head sent byte by byte for %.1f s was not cut", el);
	/* (the head takes 20 s to send: cut well before, by the 1 s header
	 * timeout; 10 s is a bound for a loaded machine) */
	ck_assert_msg(el < 10, "cut after %.1f s (HttpHeaderTimeout 1 s)", el);
	ck_assert_uint_ge(atomic_load(&svc_metrics.http_header_timeouts), 1);
	/* a normal request is not: its head is complete at once */
	request("GET", "/v1/health", NULL, NULL, 0, false, &r);
	ck_assert_int_eq(r.status, 200);
}
END_TEST

static long status_kb(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			v = atol(line + strlen(key) + 1);
	if (f)
		fclose(f);
	return v;
}

START_TEST(empty_objects_bounded_memory)
{
	/* 64 MiB of empty objects: json-c cost ~270 bytes per input byte (a
	 * 3 MB one took 810 MB, kept after the request) */
	size_t size = 64u << 20;
	struct http_limits lim = HTTP_LIMITS_DEFAULT;
	char err[256];
	struct resp r;
	const char *pre =
		"{\"schema\":\"attrib.bundle/v1\",\"job_id\":\"4242\",\"node\":\"node-01\",\"ranks\":[";
	size_t n = strlen(pre);
	char *body = malloc(size + 16);

	http_stop(srv);
	srv = http_start("127.0.0.1:0", state, size + 16, &lim, wake[1], err, sizeof(err));
	ck_assert_ptr_nonnull(srv);
	port = http_port(srv);
	memcpy(body, pre, n);
	while (n + 3 < size)
		memcpy(body + n, "{},", 3), n += 3;
	memcpy(body + n - 1, "]}", 3); /* replaces the last comma */
	char *c = cred_for("4242", "node-01", body, strlen(body), 0, 0);
	long base = status_kb("VmRSS:");
	/* the peak is this process's: the server's threads and the client (the
	 * body above is counted in base already) */
	ck_assert_int_eq(post(c, body, &r), 400);
	ck_assert_ptr_nonnull(strstr(r.body, "values"));
	long peak = status_kb("VmHWM:"), after = status_kb("VmRSS:");
	fprintf(stderr, "empty objects (64 MiB): RSS %ld MB before, peak %ld MB, %ld MB after\n", base / 1024,
		peak / 1024, after / 1024);
	ck_assert_msg(peak - base < 256 * 1024, "peak %ld kB over %ld kB", peak, base);
	ck_assert_msg(after - base < 32 * 1024, "%ld kB kept after the request", after - base);
	free(body);
	free(c);
}
END_TEST

int main(void)
{
	int rc;

	if (geteuid() != 0) {
		fprintf(stderr, "service-http: needs root (bundle credentials are root's); skipped\n");
		return 77;
	}
	if (start_munged() < 0) {
		fprintf(stderr, "service-http: cannot start a private munged; skipped\n");
		return 77;
	}
	Suite *s = suite_create("service-http");
	TCase *t = tcase_create("bundles");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_set_timeout(t, 30);
	tcase_add_test(t, health_and_metrics);
	tcase_add_test(t, accepts_a_bundle);
	tcase_add_test(t, no_credential_401);
	tcase_add_test(t, replayed_403);
	tcase_add_test(t, not_root_403);
	tcase_add_test(t, expired_403);
	tcase_add_test(t, credential_bound_to_body_403);
	tcase_add_test(t, too_large_413);
	tcase_add_test(t, not_a_bundle_400);
	tcase_add_test(t, keeps_running);
	tcase_add_test(t, with_curl);
	tcase_add_test(t, munge_down_503);
	tcase_add_test(t, origin_not_the_node_403);
	tcase_add_test(t, refused_at_accept);
	tcase_add_test(t, slow_head_is_cut);
	tcase_add_test(t, empty_objects_bounded_memory);
	suite_add_tcase(s, t);
	rc = run_suite(s);
	stop_munged();
	return rc;
}
