/* Unit tests of the service (Check): SHA-256, names that become paths,
 * bounded JSON, the store (idempotent, its queue survives a reopen), the
 * accounting comment (sanitised, appended once), and one job record taken
 * through serve_record (ready, waiting, not attributed, attributed once
 * across a "crash"). */
#include <check.h>
#include <fcntl.h>
#include <netdb.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "accounting.h"
#include "attrib.h"
#include "auth.h"
#include "bundlescan.h"
#include "conf.h"
#include "contract.h"
#include "drain_plan.h"
#include "findings.h"
#include "http.h"
#include "jsonread.h"
#include "log.h"
#include "metrics.h"
#include "repeat_policy.h"
#include "serve.h"
#include "sha256.h"
#include "spool.h"
#include "store.h"
#include "testutil.h"
#include "text.h"
#include "timefmt.h"
#include "util.h"

static char *hex(const char *s, size_t len, size_t chunk)
{
	static char out[65];
	struct sha256 h;

	sha256_init(&h);
	for (size_t o = 0; o < len; o += chunk)
		sha256_update(&h, s + o, len - o < chunk ? len - o : chunk);
	sha256_final_hex(&h, out);
	return out;
}

START_TEST(sha256_vectors)
{
	static const char *abc448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	char *million = malloc(1000000);

	ck_assert_str_eq(hex("", 0, 1), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	ck_assert_str_eq(hex("abc", 3, 1),
			 "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	ck_assert_str_eq(hex(abc448, strlen(abc448), 64),
			 "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	memset(million, 'a', 1000000);
	/* chunks that straddle blocks in every way */
	for (size_t chunk = 1; chunk < 200; chunk += 37)
		ck_assert_str_eq(hex(million, 1000000, chunk * 13),
				 "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	for (size_t n = 50; n < 70; n++) {
		/* padding on both sides of the 56-byte boundary */
		char a[65], b[65];

		strcpy(a, hex(million, n, 1));
		strcpy(b, hex(million, n, n));
		ck_assert_str_eq(a, b);
	}
	free(million);
}
END_TEST

START_TEST(names_that_become_paths)
{
	const char *good[] = { "4242", "node-01", "gpu_a.b-c", "4242_7", "x" };
	const char *bad[] = { "",    ".",   "..",    "a/b",  "../etc", "..x", "a..b", ".hidden",
			      "-rf", "a b", "tab\t", "nl\n", "sémi",   "a:b", "a\\b", "/abs" };
	char longname[200];

	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
		ck_assert_msg(contract_valid_name(good[i]), "%s refused", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		ck_assert_msg(!contract_valid_name(bad[i]), "\"%s\" taken", bad[i]);
	ck_assert(!contract_valid_name(NULL));
	memset(longname, 'a', sizeof(longname));
	longname[NAME_MAX_LEN] = 0;
	ck_assert(contract_valid_name(longname));
	longname[NAME_MAX_LEN] = 'a';
	longname[NAME_MAX_LEN + 1] = 0;
	ck_assert(!contract_valid_name(longname));

	/* bundle paths are built only from valid names */
	ck_assert_ptr_null(spool_bundle_path("/s", "../../etc", "n"));
	ck_assert_ptr_null(spool_bundle_path("/s", "1", "../../../etc/passwd"));
	char *p = spool_bundle_path("/s", "42", "node-01");
	ck_assert_str_eq(p, "/s/incoming/42/node-01.json");
	free(p);
}
END_TEST

START_TEST(record_names)
{
	struct record_name rn;

	ck_assert_int_eq(spool_parse_name("4242.0.json", &rn), 0);
	ck_assert_str_eq(rn.job_id, "4242");
	ck_assert_int_eq(rn.attempt, 0);
	ck_assert_int_eq(spool_parse_name("4242.12.json", &rn), 0);
	ck_assert_int_eq(rn.attempt, 12);
	ck_assert_int_eq(spool_parse_name("4242.json", &rn), -1);
	ck_assert_int_eq(spool_parse_name(".4242.0.json.tmp", &rn), -1);
	ck_assert_int_eq(spool_parse_name(".4242.0.json", &rn), -1);
	ck_assert_int_eq(spool_parse_name("4242.-1.json", &rn), -1);
	ck_assert_int_eq(spool_parse_name("4242.x.json", &rn), -1);
	ck_assert_int_eq(spool_parse_name("a..b.0.json", &rn), -1);
	ck_assert_int_eq(spool_parse_name("4242.0.txt", &rn), -1);
}
END_TEST

#pragma GCC diagnostic ignored "-Wformat-nonliteral"
START_TEST(credential_payloads)
{
	struct auth_claim c;
	struct bundle_claim bc;
	char p[256];
	const char *h = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

	snprintf(p, sizeof(p), "attrib-bundle:v1:4242:node-02:%s", h);
	ck_assert_int_eq(bundle_payload_parse(p, strlen(p), &bc), 0);
	ck_assert_str_eq(bc.job_id, "4242");
	ck_assert_str_eq(bc.node, "node-02");
	ck_assert_str_eq(bc.sha256, h);
	const char *bad[] = {
		"attrib-bundle:v2:4242:node-02:%s",
		"attrib-bundle:v1::node-02:%s",
		"attrib-bundle:v1:4242::%s",
		"attrib-bundle:v1:../x:node-02:%s",
		"attrib-bundle:v1:4242:a/b:%s",
		"attrib-bundle:v1:4242:node:02:%s",
		"attrib-bundle:v1:4242:node-02:%sff",
		"attrib-bundle:v1:4242:node-02:%.63s",
		"hello %s",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		snprintf(p, sizeof(p), bad[i], h);
		ck_assert_msg(bundle_payload_parse(p, strlen(p), &bc) == -1, "taken: %s", p);
	}
	snprintf(p, sizeof(p), "attrib-bundle:v1:4242:node-02:%s", h);
	p[strlen(p) - 1] = 'F'; /* upper case */
	ck_assert_int_eq(bundle_payload_parse(p, strlen(p), &bc), -1);
	snprintf(p, sizeof(p), "attrib-bundle:v1:4242:node-02:%s", h);
	ck_assert_int_eq(bundle_payload_parse(p, strlen(p) + 1, &bc), -1); /* a NUL inside */
	ck_assert_int_eq(auth_decode(NULL, &c, p, sizeof(p)), REJ_NO_CREDENTIAL);
	ck_assert_int_eq(auth_decode("", &c, p, sizeof(p)), REJ_NO_CREDENTIAL);
}
END_TEST

START_TEST(json_limits)
{
	char *dir = tmpdir(), buf[512], err[256];
	struct json_object *o;

	/* depth: 40 nested lists are refused, 10 are fine */
	memset(buf, 0, sizeof(buf));
	for (int i = 0; i < 40; i++)
		buf[i] = '[', buf[79 - i] = ']';
	ck_assert_ptr_null(json_parse_bounded(buf, 80, JSON_MAX_DEPTH, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "invalid JSON"));
	o = json_parse_bounded(buf + 30, 20, JSON_MAX_DEPTH, err, sizeof(err));
	ck_assert_ptr_nonnull(o);
	json_object_put(o);
	ck_assert_ptr_null(json_parse_bounded("{\"a\":1} x", 9, 8, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "trailing"));
	ck_assert_ptr_null(json_parse_bounded("{\"a\":", 5, 8, err, sizeof(err)));
	o = json_parse_bounded("{\"a\":1}\n", 8, 8, err, sizeof(err));
	ck_assert_ptr_nonnull(o);
	json_object_put(o);

	/* files: size limit, no symlink */
	write_file(dir, "big.json", "{\"text\": \"0123456789012345678901234567890123456789\"}");
	snprintf(buf, sizeof(buf), "%s/big.json", dir);
	ck_assert_ptr_null(json_read_file(buf, 20, 8, err, sizeof(err)));
	o = json_read_file(buf, 200, 8, err, sizeof(err));
	ck_assert_ptr_nonnull(o);
	json_object_put(o);
	char link[600];
	snprintf(link, sizeof(link), "%s/link.json", dir);
	ck_assert_int_eq(symlink(buf, link), 0);
	ck_assert_ptr_null(json_read_file(link, 200, 8, err, sizeof(err)));
	rmtree(dir);
}
END_TEST

START_TEST(atomic_write_mode)
{
	char *dir = tmpdir(), p[600];
	struct stat st;

	umask(022); /* the service sets 077; the write itself asks 0600 */
	snprintf(p, sizeof(p), "%s/x.json", dir);
	ck_assert_int_eq(svc_write_atomic(p, "{}", 2), 0);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	ck_assert_int_eq(st.st_size, 2);
	rmtree(dir);
}
END_TEST

/* ---- the store ---- */

/* A row whose result names culprits (comma-separated) as its culprit
 * nodes: the store makes its node rows of the result, not of the column. */
static struct store_row row(const char *job, long attempt, const char *sub, const char *culprits,
			    const char *user, long long created)
{
	static char json[16][512];
	static int next;
	char *j = json[next++ % 16];
	int n = snprintf(j, 512, "{\"schema\":\"attrib.result/v1\",\"culprit_nodes\":[");

	for (const char *p = culprits; p && *p;) {
		size_t len = strcspn(p, ",");

		n += snprintf(j + n, 512 - n, "%s\"%.*s\"", p == culprits ? "" : ",", (int)len, p);
		p += len + (p[len] == ',');
	}
	snprintf(j + n, 512 - n, "]}");
	struct store_row r = {
		.job_id = job,
		.attempt = attempt,
		.cluster = "lab",
		.user = user,
		.state = "FAILED",
		.sub_domain = sub,
		.culprits = culprits,
		.root_code = "xid.149",
		.created = created,
		.result_json = j,
	};
	return r;
}

static int count_rows(const struct store_row *r, void *arg)
{
	(void)r;
	(*(int *)arg)++;
	return 0;
}

static int count(store *s, struct store_filter f)
{
	int n = 0;

	ck_assert_int_ge(store_list(s, &f, count_rows, &n), 0);
	return n;
}

START_TEST(store_idempotent)
{
	char *dir = tmpdir(), db[600], err[256];
	struct stat st;
	store *s;
	struct store_row r = row("4242", 0, "InfraHW", "node-02", "alice", 1000);
	struct comment_item *items;
	long att = -1;

	snprintf(db, sizeof(db), "%s/attrib.db", dir);
	s = store_open(db, false, err, sizeof(err));
	ck_assert_msg(s != NULL, "%s", err);
	ck_assert_int_eq(stat(db, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	ck_assert_int_eq(store_has_result(s, "4242", 0), 0);
	ck_assert_int_eq(store_put(s, &r, "attrib: InfraHW node-02 xid.149 NVLink", 1000), 1);
	ck_assert_int_eq(store_has_result(s, "4242", 0), 1);
	ck_assert_int_eq(store_has_any_result(s, "4242"), 1);
	/* the same attempt again: nothing changes, no second comment */
	r.sub_domain = "UserCode";
	r.result_json = "{\"other\":1}";
	ck_assert_int_eq(store_put(s, &r, "attrib: other", 2000), 0);
	char *j = store_get(s, "4242", 0, &att);
	ck_assert_str_eq(j, "{\"schema\":\"attrib.result/v1\",\"culprit_nodes\":[\"node-02\"]}");
	free(j);
	ck_assert_int_eq(store_pending_comments(s), 1);
	ck_assert_int_eq(store_due(s, 1000, 10, &items), 1);
	ck_assert_str_eq(items[0].text, "attrib: InfraHW node-02 xid.149 NVLink");
	ck_assert_str_eq(items[0].cluster, "lab");
	ck_assert_int_eq(items[0].tries, 0);
	store_free_items(items, 1);
	/* a second attempt of the same job is its own result; show takes the latest */
	struct store_row r1 = row("4242", 1, "UserCode", NULL, "alice", 3000);
	r1.result_json = "{\"attempt\":1}";
	ck_assert_int_eq(store_put(s, &r1, NULL, 3000), 1);
	j = store_get(s, "4242", -1, &att);
	ck_assert_str_eq(j, "{\"attempt\":1}");
	ck_assert_int_eq(att, 1);
	free(j);
	ck_assert_ptr_null(store_get(s, "4243", -1, NULL));
	ck_assert_int_eq(store_pending_comments(s), 1);
	store_close(s);

	/* WAL and the schema version */
	sqlite3 *raw;
	sqlite3_stmt *q;
	ck_assert_int_eq(sqlite3_open(db, &raw), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(raw, "PRAGMA journal_mode", -1, &q, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
	ck_assert_str_eq((const char *)sqlite3_column_text(q, 0), "wal");
	sqlite3_finalize(q);
	ck_assert_int_eq(sqlite3_prepare_v2(raw, "PRAGMA user_version", -1, &q, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
	ck_assert_int_eq(sqlite3_column_int(q, 0), STORE_SCHEMA_VERSION);
	sqlite3_finalize(q);
	/* a store from a newer attrib is refused, not rewritten */
	ck_assert_int_eq(sqlite3_exec(raw, "PRAGMA user_version=99", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(raw);
	ck_assert_ptr_null(store_open(db, false, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "newer"));
	rmtree(dir);
}
END_TEST

START_TEST(store_queue_survives_reopen)
{
	char *dir = tmpdir(), db[600], err[256];
	store *s;
	struct store_row r = row("77", 0, "InfraNet", "a,b", "bob", 100);
	struct comment_item *items;

	snprintf(db, sizeof(db), "%s/attrib.db", dir);
	s = store_open(db, false, err, sizeof(err));
	ck_assert_int_eq(store_put(s, &r, "attrib: InfraNet a,b ib.link_down", 100), 1);
	/* a failed write: retried later */
	ck_assert_int_eq(store_comment_retry(s, "77", 0, 100 + comment_backoff(0)), 0);
	ck_assert_int_eq(store_due(s, 100, 10, &items), 0);
	store_free_items(items, 0);
	store_close(s); /* the service stops (or is killed: WAL keeps the commit) */

	s = store_open(db, false, err, sizeof(err));
	ck_assert_msg(s != NULL, "%s", err);
	ck_assert_int_eq(store_pending_comments(s), 1);
	ck_assert_int_eq(store_due(s, 100 + 30, 10, &items), 1);
	ck_assert_str_eq(items[0].job_id, "77");
	ck_assert_int_eq(items[0].tries, 1);
	store_free_items(items, 1);
	ck_assert_int_eq(store_comment_done(s, "77", 0), 0);
	ck_assert_int_eq(store_pending_comments(s), 0);
	ck_assert_int_eq(store_due(s, 1000000, 10, &items), 0);
	store_free_items(items, 0);
	store_close(s);

	/* show and list open it read-only */
	s = store_open(db, true, err, sizeof(err));
	ck_assert_msg(s != NULL, "%s", err);
	ck_assert_int_eq(store_has_result(s, "77", 0), 1);
	store_close(s);
	rmtree(dir);
}
END_TEST

/* Two connections of the service (one per thread) and an administrator's
 * sqlite3 closing beside them: the service's later results must still be
 * seen by everyone.  (store_open used to open and close the database file
 * each time, which drops every POSIX lock of the process, so the outside
 * sqlite3 believed itself the last user and deleted the live WAL:
 * t/live-faults.sh found it.) */
START_TEST(store_outside_reader_keeps_wal)
{
	char *dir = tmpdir(), db[600], err[256];
	store *s1, *s2;
	struct store_row r1 = row("1", 0, "InfraHW", "a", "bob", 100),
			 r2 = row("2", 0, "InfraHW", "a", "bob", 200);
	pid_t pid;
	int st;

	snprintf(db, sizeof(db), "%s/attrib.db", dir);
	s1 = store_open(db, false, err, sizeof(err));
	ck_assert_msg(s1 != NULL, "%s", err);
	s2 = store_open(db, false, err, sizeof(err));
	ck_assert_msg(s2 != NULL, "%s", err);
	ck_assert_int_eq(store_put(s1, &r1, "attrib: one", 100), 1);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* a process of its own, as an administrator's: a forked child
		 * would share this process's idea of its locks */
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		execlp("sqlite3", "sqlite3", db, "SELECT count(*) FROM results", (char *)NULL);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "sqlite3 %s failed (the sqlite3 program is needed: Debian package sqlite3)", db);
	ck_assert_int_eq(store_put(s1, &r2, "attrib: two", 200), 1);
	/* seen by a process of its own (here SQLite shares the service's
	 * view): the WAL on disk must hold it */
	{
		int fds[2];
		char out[32] = "";
		ssize_t n;

		ck_assert_int_eq(pipe(fds), 0);
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			dup2(fds[1], 1);
			execlp("sqlite3", "sqlite3", db, "SELECT count(*) FROM results WHERE job_id = '2'",
			       (char *)NULL);
			_exit(127);
		}
		close(fds[1]);
		n = read(fds[0], out, sizeof(out) - 1);
		out[n > 0 ? n : 0] = 0;
		close(fds[0]);
		ck_assert_int_eq(waitpid(pid, &st, 0), pid);
		ck_assert_msg(
			!strcmp(out, "1\n"),
			"a result stored after an outside sqlite3 closed is lost (sqlite3 counts \"%s\")",
			out);
	}
	store_close(s2);
	store_close(s1);
	rmtree(dir);
}
END_TEST

START_TEST(store_list_filters)
{
	char *dir = tmpdir(), db[600], err[256];
	store *s;

	snprintf(db, sizeof(db), "%s/attrib.db", dir);
	s = store_open(db, false, err, sizeof(err));
	struct store_row rows[] = {
		row("1", 0, "InfraHW", "node-02", "alice", 100),
		row("2", 0, "InfraHW", "node-12,node-2", "bob", 200),
		row("3", 0, "UserCode", NULL, "alice", 300),
		row("4", 0, "InfraNet", "n_1", "carol", 400),
	};
	for (size_t i = 0; i < 4; i++)
		ck_assert_int_eq(store_put(s, &rows[i], NULL, 0), 1);
	ck_assert_int_eq(count(s, (struct store_filter){ 0 }), 4);
	ck_assert_int_eq(count(s, (struct store_filter){ .since = 250 }), 2);
	ck_assert_int_eq(count(s, (struct store_filter){ .sub_domain = "InfraHW" }), 2);
	ck_assert_int_eq(count(s, (struct store_filter){ .user = "alice" }), 2);
	ck_assert_int_eq(count(s, (struct store_filter){ .node = "node-2" }), 1); /* not node-02, node-12 */
	ck_assert_int_eq(count(s, (struct store_filter){ .node = "node-02" }), 1);
	ck_assert_int_eq(count(s, (struct store_filter){ .node = "n_1" }), 1);
	ck_assert_int_eq(count(s, (struct store_filter){ .node = "nx1" }), 0);
	ck_assert_int_eq(count(s, (struct store_filter){ .node = "n%" }), 0); /* LIKE is literal */
	ck_assert_int_eq(count(s, (struct store_filter){ .limit = 3 }), 3);
	store_close(s);
	rmtree(dir);
}
END_TEST

/* ---- the accounting comment ---- */

START_TEST(comment_sanitising)
{
	char s[600];

	strcpy(s, "attrib: \"quoted\" 'single' back\\slash `tick`\nnew\tline\x01\x7f caf\xc3\xa9  end  ");
	text_ascii_clean(s, COMMENT_MAX);
	ck_assert_str_eq(s, "attrib: quoted single backslash tick new line caf end");
	for (const char *p = s; *p; p++)
		ck_assert(*p >= 0x20 && *p <= 0x7e && !strchr("\"'\\`", *p));
	memset(s, 'x', 599);
	s[599] = 0;
	text_ascii_clean(s, COMMENT_MAX);
	ck_assert_int_eq(strlen(s), COMMENT_MAX);
	strcpy(s, "   ");
	text_ascii_clean(s, COMMENT_MAX);
	ck_assert_str_eq(s, "");
}
END_TEST

START_TEST(comment_summaries)
{
	struct json_object *r = json_tokener_parse(
		"{\"sub_domain\":\"InfraHW\",\"confidence\":\"high\",\"culprit_nodes\":[\"node-02\",\"node-"
		"03\"],"
		"\"root_cause\":{\"code\":\"xid.149\",\"symptom\":\"NVLink signal \\\"integrity\\\"\\n(Xid "
		"149)\"}}");
	char *c = comment_summary(r);

	ck_assert_str_eq(c,
			 "attrib: InfraHW node-02,node-03 xid.149 [high] NVLink signal integrity (Xid 149)");
	free(c);
	json_object_put(r);

	r = json_tokener_parse("{\"sub_domain\":\"unattributed\",\"confidence\":\"low\",\"culprit_nodes\":[],"
			       "\"root_cause\":null}");
	c = comment_summary(r);
	ck_assert_str_eq(c, "attrib: unattributed - - [low]");
	free(c);
	json_object_put(r);

	/* a result without one (an older attrib's) says none */
	r = json_tokener_parse("{\"sub_domain\":\"UserCode\",\"culprit_nodes\":[],"
			       "\"root_cause\":{\"code\":\"cuda.oom\",\"symptom\":\"CUDA out of memory\"}}");
	c = comment_summary(r);
	ck_assert_str_eq(c, "attrib: UserCode - cuda.oom CUDA out of memory");
	free(c);
	json_object_put(r);

	/* hostile parts: no quotes, no newline, parts keep their places, <= 250 */
	char title[2000];
	memset(title, 'T', sizeof(title) - 1);
	title[sizeof(title) - 1] = 0;
	r = json_object_new_object();
	json_object_object_add(r, "sub_domain", json_object_new_string("Infra HW'; DROP"));
	/* not one of the levels: left out, never copied */
	json_object_object_add(r, "confidence", json_object_new_string("high] [x; DROP"));
	struct json_object *cul = json_object_new_array(), *rc = json_object_new_object();
	json_object_array_add(cul, json_object_new_string("node 1\n"));
	json_object_object_add(r, "culprit_nodes", cul);
	json_object_object_add(rc, "code", json_object_new_string("x y"));
	json_object_object_add(rc, "symptom", json_object_new_string(title));
	json_object_object_add(r, "root_cause", rc);
	c = comment_summary(r);
	ck_assert_int_le(strlen(c), COMMENT_MAX);
	ck_assert(!strncmp(c, "attrib: Infra_HW;_DROP node_1 x_y TTTT", 38));
	for (const char *p = c; *p; p++)
		ck_assert(*p >= 0x20 && *p <= 0x7e && !strchr("\"'\\`", *p));
	free(c);
	json_object_put(r);
}
END_TEST

/* The streaming check says what strict json-c says (valid or not), fed whole and
 * a byte at a time, and finds the top-level fields http.c compares. */
START_TEST(bundlescan_agrees_with_json_c)
{
	const char *in[] = {
		"{}",
		"[]",
		"{\"a\":1}",
		"{\"a\":[1,2.5,-0.1e+3,true,false,null,\"x\\u00e9\\n\"]}",
		"{\"a\":{\"b\":{}}} ",
		"\n{ \"a\" : [ ] }\n",
		"",
		"{",
		"}",
		"{\"a\"}",
		"{\"a\":}",
		"{\"a\":1,}",
		"[1,]",
		"[1 2]",
		"{\"a\":01}",
		"{\"a\":-}",
		"{\"a\":tru}",
		"{\"a\":\"\\x\"}",
		"{} {}",
		"{}x",
		"[}",
		"{]",
		"{\"a\":1e}",
		"{1:2}",
		"{\"a\":\"\\u12g4\"}",
	};
	for (size_t i = 0; i < sizeof(in) / sizeof(*in); i++) {
		struct json_tokener *tok = json_tokener_new_ex(JSON_MAX_DEPTH);
		/* strict: the scanner takes RFC 8259 only (json-c's default also
		 * takes trailing commas, which no collector writes) */
		json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
		struct json_object *o = json_tokener_parse_ex(tok, in[i], (int)strlen(in[i]));
		size_t end = json_tokener_get_parse_end(tok);
		bool jc = o && strspn(in[i] + end, " \t\r\n") == strlen(in[i] + end);
		struct bscan a, b;

		json_object_put(o);
		json_tokener_free(tok);
		bscan_init(&a);
		bool whole = bscan_feed(&a, in[i], strlen(in[i])) == 0 && bscan_end(&a) == 0;
		bscan_init(&b);
		bool ok = true;
		for (size_t k = 0; in[i][k] && ok; k++)
			ok = bscan_feed(&b, in[i] + k, 1) == 0;
		bool bytes = ok && bscan_end(&b) == 0;
		ck_assert_msg(whole == jc && bytes == jc, "input %zu (%s): json-c %d, scan %d/%d", i, in[i],
			      jc, whole, bytes);
	}
	struct bscan s;
	const char *bundle = "{\"schema\":\"attrib.bundle/v1\",\"x\":{\"node\":\"inner\"},"
			     "\"job_id\":\"42\",\"node\":\"node-01\",\"files\":[]}";
	bscan_init(&s);
	ck_assert_int_eq(bscan_feed(&s, bundle, strlen(bundle)), 0);
	ck_assert_int_eq(bscan_end(&s), 0);
	ck_assert_str_eq(s.schema, "attrib.bundle/v1");
	ck_assert_str_eq(s.job_id, "42");
	ck_assert_str_eq(s.node, "node-01"); /* not the nested one */
	ck_assert_int_eq(s.top_type, '{');
	ck_assert_int_eq(s.files_type, '[');
	/* an escaped name never equals a plain one */
	bscan_init(&s);
	bscan_feed(&s, "{\"node\":\"node\\u002d01\"}", 22);
	ck_assert_str_ne(s.node, "node-01");
	/* stricter than json-c: "1." and raw control characters in strings */
	bscan_init(&s);
	ck_assert_int_eq(bscan_feed(&s, "{\"a\":\"\x01\"}", 9), -1);
	bscan_init(&s);
	ck_assert_int_eq(bscan_feed(&s, "[1.]", 4), -1);
	/* too deep */
	char deep[80] = "";
	for (int i = 0; i < 40; i++)
		strcat(deep, "[");
	bscan_init(&s);
	ck_assert_int_eq(bscan_feed(&s, deep, strlen(deep)), -1);
	ck_assert_ptr_nonnull(strstr(s.err, "deep"));
}
END_TEST

START_TEST(comment_appending)
{
	char *m;

	m = comment_append(NULL, "attrib: X");
	ck_assert_str_eq(m, "attrib: X");
	free(m);
	m = comment_append("", "attrib: X");
	ck_assert_str_eq(m, "attrib: X");
	free(m);
	m = comment_append("checked by ops", "attrib: X");
	ck_assert_str_eq(m, "checked by ops; attrib: X");
	/* a retried write finds it there and writes nothing */
	ck_assert_ptr_null(comment_append(m, "attrib: X"));
	/* a revised diagnosis replaces ours, and only ours */
	char *r = comment_append(m, "attrib: Y (revised)");
	ck_assert_str_eq(r, "checked by ops; attrib: Y (revised)");
	free(r);
	r = comment_append("attrib: X; later note", "attrib: Y (revised)");
	ck_assert_str_eq(r, "attrib: Y (revised); later note");
	free(r);
	free(m);
	ck_assert_int_eq(comment_backoff(0), 30);
	ck_assert_int_eq(comment_backoff(1), 60);
	ck_assert_int_eq(comment_backoff(5), 960);
	ck_assert_int_eq(comment_backoff(7), 3600);
	ck_assert_int_eq(comment_backoff(1000), 3600);
}
END_TEST

/* ---- one record through the loop (no Slurm: the comment stays queued) ---- */

struct svc {
	char *dir;
	struct attrib_config conf;
	attrib_catalog *cat;
	store *s;
};

static void svc_setup(struct svc *v, long deadline)
{
	char p[600], err[256];

	v->dir = tmpdir();
	ck_assert_int_eq(config_load(NULL, &v->conf, stderr), 0);
	free(v->conf.spool_dir);
	free(v->conf.state_dir);
	ck_assert_int_ge(asprintf(&v->conf.spool_dir, "%s/spool", v->dir), 0);
	ck_assert_int_ge(asprintf(&v->conf.state_dir, "%s/state", v->dir), 0);
	v->conf.bundle_deadline = deadline;
	/* the jobs' output is read here, on the service host (no collector) */
	free(v->conf.read_job_output);
	v->conf.read_job_output = strdup("yes");
	mkdir_p(v->dir, "spool/jobs");
	ck_assert_int_eq(spool_prepare(v->conf.state_dir, err, sizeof(err)), 0);
	snprintf(p, sizeof(p), "%s/attrib.db", v->conf.state_dir);
	v->s = store_open(p, false, err, sizeof(err));
	ck_assert_ptr_nonnull(v->s);
	v->cat = test_catalog();
}

static void svc_teardown(struct svc *v)
{
	store_close(v->s);
	attrib_catalog_free(v->cat);
	config_free(&v->conf);
	rmtree(v->dir);
}

static void put_record(struct svc *v, const char *name, const char *state, const char *nodes)
{
	char buf[1024];

	snprintf(buf, sizeof(buf),
		 "{\"schema\":\"attrib.job/v1\",\"job_id\":\"77\",\"cluster\":\"lab\",\"user\":\"root\","
		 "\"nodes\":%s,\"start_time\":\"2025-11-29T08:00:00Z\",\"end_time\":\"2025-11-29T08:20:00Z\","
		 "\"state\":\"%s\",\"exit_code\":\"1:0\",\"uid\":%u,\"gid\":%u,\"attempt\":0,"
		 "\"std_out\":\"%s/out/slurm-77.out\"}",
		 nodes, state, (unsigned)getuid(), (unsigned)getgid(), v->dir);
	write_file(v->dir, name, buf);
}

static void put_bundle(struct svc *v, const char *node, const char *text)
{
	char rel[256], buf[2048];

	snprintf(rel, sizeof(rel), "state/incoming/77");
	mkdir_p(v->dir, rel);
	snprintf(rel, sizeof(rel), "state/incoming/77/%s.json", node);
	snprintf(buf, sizeof(buf),
		 "{\"schema\":\"attrib.bundle/v1\",\"job_id\":\"77\",\"node\":\"%s\","
		 "\"files\":[{\"name\":\"kern.log\",\"source\":\"/var/log/"
		 "kern.log\",\"origin\":\"kernel\",\"text\":\"%s\"},"
		 "{\"name\":\"../../../escape\",\"source\":\"x\",\"text\":\"nothing\\n\"}],"
		 "\"ranks\":[{\"rank\":0,\"node\":\"%s\",\"step\":\"0\",\"gpu\":\"0\"},"
		 "{\"rank\":5,\"node\":\"elsewhere\"}],"
		 "\"coverage\":[{\"source\":\"journal\",\"status\":\"error\",\"detail\":\"no journal\"}]}",
		 node, text, node);
	write_file(v->dir, rel, buf);
}

static int process(struct svc *v, const char *file)
{
	struct record_name rn;
	char dir[600];

	ck_assert_int_eq(spool_parse_name(file, &rn), 0);
	snprintf(dir, sizeof(dir), "%s/spool/jobs", v->dir);
	return serve_record(&v->conf, v->cat, v->s, dir, file, &rn, time(NULL));
}

static bool exists(struct svc *v, const char *rel)
{
	char *p = path_join(v->dir, rel);
	bool e = access(p, F_OK) == 0;

	free(p);
	return e;
}

static int drain_line(const struct drain_row *d, void *arg)
{
	char line[512];

	snprintf(line, sizeof(line), "%s %s %s: %s", d->node, d->decision, d->by, d->reason);
	json_object_array_add(arg, json_object_new_string(line));
	return 0;
}

/* A bundle of the earlier attempt (its tasks started before this attempt
 * did) is dropped when the case is built, and this attempt's own is waited
 * for; nothing is stored meanwhile. */
START_TEST(stale_bundle_waited_for)
{
	struct svc v;

	svc_setup(&v, 120);
	mkdir_p(v.dir, "out");
	write_file(v.dir, "out/slurm-77.out", "starting\n");
	put_record(&v, "spool/jobs/77.0.json", "FAILED", "[\"a\"]");
	mkdir_p(v.dir, "state/incoming/77");
	write_file(v.dir, "state/incoming/77/a.json",
		   "{\"schema\":\"attrib.bundle/v1\",\"job_id\":\"77\",\"node\":\"a\",\"files\":[],"
		   "\"ranks\":[{\"rank\":0,\"node\":\"a\",\"start_time\":\"2025-11-29T07:00:00Z\"}]}");
	ck_assert_int_eq(process(&v, "77.0.json"), 0);
	ck_assert(!exists(&v, "state/incoming/77/a.json")); /* dropped */
	ck_assert(!exists(&v, "state/cases/77.0"));
	ck_assert_int_eq(store_has_result(v.s, "77", 0), 0);
	ck_assert_int_eq(process(&v, "77.0.json"), 0); /* still waiting, without it */
	put_bundle(&v, "a", "2025-11-29T08:12:00+00:00 a kernel: GPU exploded\\n");
	ck_assert_int_eq(process(&v, "77.0.json"), 1);
	ck_assert_int_eq(store_has_result(v.s, "77", 0), 1);
	svc_teardown(&v);
}
END_TEST

/* job.json's ranks: one record per rank, by rank; a later srun step wins
 * over the batch script's, and of equal steps the bundle read last. */
START_TEST(ranks_merged_by_step)
{
	struct svc v;
	static const char *const bundle =
		"{\"schema\":\"attrib.bundle/v1\",\"job_id\":\"77\",\"node\":\"%s\",\"files\":[],"
		"\"ranks\":[%s]}";
	char buf[1024], err[256];

	svc_setup(&v, 120);
	mkdir_p(v.dir, "out");
	write_file(v.dir, "out/slurm-77.out", "starting\n");
	put_record(&v, "spool/jobs/77.0.json", "FAILED", "[\"a\",\"b\"]");
	mkdir_p(v.dir, "state/incoming/77");
	snprintf(buf, sizeof(buf), bundle, "a",
		 "{\"rank\":2,\"step\":\"batch\",\"pid\":1},{\"rank\":1,\"step\":\"0\",\"pid\":2},"
		 "{\"rank\":0,\"step\":\"1\",\"pid\":3},{\"rank\":3,\"step\":\"0\",\"pid\":4}");
	write_file(v.dir, "state/incoming/77/a.json", buf);
	snprintf(buf, sizeof(buf), bundle, "b",
		 "{\"rank\":2,\"step\":\"0\",\"pid\":5},{\"rank\":1,\"step\":\"batch\",\"pid\":6},"
		 "{\"rank\":0,\"step\":\"0\",\"pid\":7},{\"rank\":3,\"step\":\"0\",\"pid\":8}");
	write_file(v.dir, "state/incoming/77/b.json", buf);
	ck_assert_int_eq(process(&v, "77.0.json"), 1);

	char *p = path_join(v.dir, "state/cases/77.0/job.json");
	struct json_object *job = json_read_file(p, 1 << 20, 32, err, sizeof(err)), *ranks;
	free(p);
	ck_assert_msg(job != NULL, "%s", err);
	ck_assert(json_object_object_get_ex(job, "ranks", &ranks));
	ck_assert_int_eq(json_object_array_length(ranks), 4);
	/* rank 0: step 1 (a) over step 0 (b); 1: step 0 (a) over batch (b);
	 * 2: step 0 (b) over batch (a); 3: equal steps, b's came last */
	static const int pid[4] = { 3, 2, 5, 8 };
	static const char *const node[4] = { "a", "a", "b", "b" };
	for (int i = 0; i < 4; i++) {
		struct json_object *r = json_object_array_get_idx(ranks, i), *x;

		ck_assert(json_object_object_get_ex(r, "rank", &x));
		ck_assert_int_eq(json_object_get_int(x), i);
		ck_assert(json_object_object_get_ex(r, "pid", &x));
		ck_assert_int_eq(json_object_get_int(x), pid[i]);
		ck_assert_str_eq(json_str(r, "node"), node[i]);
	}
	json_object_put(job);
	svc_teardown(&v);
}
END_TEST

START_TEST(record_attributed_once)
{
	struct svc v;
	struct comment_item *items;
	long att;

	svc_setup(&v, 120);
	mkdir_p(v.dir, "out");
	write_file(v.dir, "out/slurm-77.out", "starting\nCUDA error: oops\n");
	put_record(&v, "spool/jobs/77.0.json", "FAILED", "[\"a\"]");
	put_bundle(&v, "a", "2025-11-29T08:12:00+00:00 a kernel: GPU exploded\\n");
	ck_assert_int_eq(process(&v, "77.0.json"), 1);
	ck_assert(!exists(&v, "spool/jobs/77.0.json")); /* consumed */
	ck_assert(!exists(&v, "state/incoming/77"));
	ck_assert(exists(&v, "state/cases/77.0/job.json"));
	ck_assert(exists(&v, "state/cases/77.0/nodes/a/kern.log"));
	ck_assert(exists(&v, "state/cases/77.0/nodes/a/escape")); /* the name's last part only */
	ck_assert(!exists(&v, "escape"));
	if (getuid() == 0) /* (read as the job's user: root here) */
		ck_assert(exists(&v, "state/cases/77.0/app/slurm-77.out"));

	char *text = store_get(v.s, "77", 0, &att);
	ck_assert_ptr_nonnull(text);
	struct json_object *r = json_tokener_parse(text), *x;
	free(text);
	ck_assert_str_eq(json_str(r, "sub_domain"), "InfraHW");
	ck_assert(json_object_object_get_ex(r, "culprit_nodes", &x));
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(x, 0)), "a");
	/* the bundle's own coverage entry is in the result */
	ck_assert(json_object_object_get_ex(r, "coverage", &x));
	ck_assert_ptr_nonnull(
		strstr(json_object_to_json_string_ext(x, JSON_C_TO_STRING_NOSLASHESCAPE), "nodes/a:journal"));
	json_object_put(r);
	/* job.json got the node's rank, not the one claimed for another node */
	char *jp = path_join(v.dir, "state/cases/77.0/job.json");
	char err[128];
	struct json_object *job = json_read_file(jp, 1 << 20, 32, err, sizeof(err));
	free(jp);
	ck_assert(json_object_object_get_ex(job, "ranks", &x));
	ck_assert_int_eq(json_object_array_length(x), 1);
	json_object_put(job);
	/* evidence.json: each node file's origin, as its bundle gave it; a
	 * file without one is "file" (nobody vouches the kernel wrote it) */
	jp = path_join(v.dir, "state/cases/77.0/evidence.json");
	struct json_object *ev = json_read_file(jp, 1 << 20, 32, err, sizeof(err)), *files, *f;
	free(jp);
	ck_assert_ptr_nonnull(ev);
	ck_assert(json_object_object_get_ex(ev, "files", &files));
	ck_assert(json_object_object_get_ex(files, "nodes/a/kern.log", &f));
	ck_assert_str_eq(json_str(f, "origin"), "kernel");
	ck_assert(json_object_object_get_ex(files, "nodes/a/escape", &f));
	ck_assert_str_eq(json_str(f, "origin"), "file");
	ck_assert_int_eq(json_object_object_length(files), 2);
	json_object_put(ev);

	ck_assert_int_eq(store_due(v.s, time(NULL), 10, &items), 1);
	/* the GPU fault the node's kernel logged, drained by its rule: high */
	ck_assert_str_eq(items[0].text, "attrib: InfraHW a t.fault [high] GPU exploded");
	store_free_items(items, 1);
	/* the drain policy decided (the defaults: class hw is not listed) */
	struct json_object *drains = json_object_new_array();
	ck_assert_int_eq(store_each_drain(v.s, "77", drain_line, drains), 0);
	ck_assert_str_eq(json_object_to_json_string_ext(drains, JSON_C_TO_STRING_PLAIN),
			 "[\"a refused attribd (policy off): class hw is not in DrainClasses\"]");

	/* killed after the store, before the record was removed: the record
	 * comes again, and nothing is attributed twice */
	put_record(&v, "spool/jobs/77.0.json", "FAILED", "[\"a\"]");
	put_bundle(&v, "a", "2025-11-29T08:12:00+00:00 a kernel: something else\\n");
	ck_assert_int_eq(process(&v, "77.0.json"), 1);
	ck_assert(!exists(&v, "spool/jobs/77.0.json"));
	ck_assert(!exists(&v, "state/incoming/77"));
	ck_assert_int_eq(store_pending_comments(v.s), 1);
	int n = count(v.s, (struct store_filter){ 0 });
	ck_assert_int_eq(n, 1);
	json_object_put(drains); /* and the policy decided once */
	drains = json_object_new_array();
	ck_assert_int_eq(store_each_drain(v.s, "77", drain_line, drains), 0);
	ck_assert_int_eq(json_object_array_length(drains), 1);
	json_object_put(drains);
	svc_teardown(&v);
}
END_TEST

/* A job of one node (a) of user, ended a few minutes ago, its output and
 * kernel log in a's bundle as the collector sends them (origins
 * job-output and kernel); through serve_record, attributed at once. */
static void one_job(struct svc *v, const char *job, const char *user, const char *out, const char *kern)
{
	char rel[256], buf[4096], t0[40], t1[40];
	struct record_name rn;

	time_format_sec(time(NULL) - 900, t0, sizeof(t0));
	time_format_sec(time(NULL) - 300, t1, sizeof(t1));
	snprintf(buf, sizeof(buf),
		 "{\"schema\":\"attrib.job/v1\",\"job_id\":\"%s\",\"user\":\"%s\",\"nodes\":[\"a\"],"
		 "\"start_time\":\"%s\",\"end_time\":\"%s\",\"state\":\"FAILED\",\"exit_code\":\"1:0\","
		 "\"attempt\":0,\"std_out\":\"/home/%s/slurm-%s.out\"}",
		 job, user, t0, t1, user, job);
	snprintf(rel, sizeof(rel), "spool/jobs/%s.0.json", job);
	write_file(v->dir, rel, buf);
	snprintf(rel, sizeof(rel), "state/incoming/%s", job);
	mkdir_p(v->dir, rel);
	snprintf(rel, sizeof(rel), "state/incoming/%s/a.json", job);
	snprintf(buf, sizeof(buf),
		 "{\"schema\":\"attrib.bundle/v1\",\"job_id\":\"%s\",\"node\":\"a\",\"files\":["
		 "{\"name\":\"slurm-%s.out\",\"source\":\"/home/%s/slurm-%s.out\",\"stream\":\"std_out\","
		 "\"origin\":\"job-output\",\"text\":\"%s\"},"
		 "{\"name\":\"kmsg.log\",\"source\":\"/dev/kmsg\",\"origin\":\"kernel\",\"text\":\"%s\"}],"
		 "\"ranks\":[],\"coverage\":[]}",
		 job, job, user, job, out, kern);
	write_file(v->dir, rel, buf);
	snprintf(rel, sizeof(rel), "%s.0.json", job);
	ck_assert_int_eq(spool_parse_name(rel, &rn), 0);
	snprintf(buf, sizeof(buf), "%s/spool/jobs", v->dir);
	ck_assert_int_eq(serve_record(&v->conf, v->cat, v->s, buf, rel, &rn, time(NULL)), 1);
}

static int count_finding(const struct finding_row *f, void *arg)
{
	(void)f;
	++*(int *)arg;
	return 0;
}

/* Finding 4 of the review: two users fail three jobs of their own on a
 * healthy node with their own output (a segfault, a CUDA illegal
 * address), the real engine and rules, the service's own path after each
 * diagnosis.  Their causes are the job's word (trust job-output): no
 * repeat-offender finding, no drain decision.  Three jobs whose cause the
 * node's kernel tells of make one. */
START_TEST(own_output_makes_no_repeat_offender)
{
	static const char quiet[] = "2026-01-01T00:00:00+00:00 a kernel: eth0: link up\\n";
	struct svc v;
	char kern[512], t[40];
	int n = 0;

	svc_setup(&v, 120);
	attrib_catalog_free(v.cat);
	v.cat = attrib_catalog_load(SRCDIR "/rules", test_options(), stderr);
	ck_assert_ptr_nonnull(v.cat);
	ck_assert_int_eq(repeat_causes_default(&v.conf, v.cat), 0); /* as attribd does */
	one_job(&v, "81", "alice", "step 1\\nSegmentation fault (core dumped)\\n", quiet);
	one_job(&v, "82", "bob", "RuntimeError: CUDA error: an illegal memory access was encountered\\n",
		quiet);
	one_job(&v, "83", "alice", "Fatal Python error: Segmentation fault\\n", quiet);
	ck_assert_int_eq(store_each_finding(v.s, 0, NULL, NULL, count_finding, &n), 0);
	ck_assert_int_eq(n, 0);
	char *text = store_get(v.s, "83", 0, NULL);
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(strstr(text, "\"trust\":\"job-output\""), "%s", text);
	free(text);
	struct json_object *drains = json_object_new_array();
	for (int j = 81; j <= 83; j++) {
		char id[8];

		snprintf(id, sizeof(id), "%d", j);
		ck_assert_int_eq(store_each_drain(v.s, id, drain_line, drains), 0);
	}
	ck_assert_int_eq(json_object_array_length(drains), 0);

	/* a GPU fallen off the bus, in the node's kernel ring, three times */
	time_format_sec(time(NULL) - 600, t, sizeof(t));
	snprintf(kern, sizeof(kern),
		 "%s a kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off the "
		 "bus.\\n",
		 t);
	one_job(&v, "84", "carol", "step 1\\n", kern);
	one_job(&v, "85", "dave", "step 1\\n", kern);
	one_job(&v, "86", "carol", "step 1\\n", kern);
	ck_assert_int_eq(store_each_finding(v.s, 0, NULL, "a", count_finding, &n), 0);
	ck_assert_int_eq(n, 1);
	json_object_put(drains);
	svc_teardown(&v);
}
END_TEST

START_TEST(record_waits_for_bundles)
{
	struct svc v;
	long att;

	svc_setup(&v, 120);
	put_record(&v, "spool/jobs/77.0.json", "NODE_FAIL", "[\"a\",\"b\"]");
	put_bundle(&v, "a", "2025-11-29T08:12:00+00:00 a kernel: GPU exploded\\n");
	ck_assert_int_eq(process(&v, "77.0.json"), 0); /* b's bundle is not in */
	ck_assert(exists(&v, "spool/jobs/77.0.json"));
	ck_assert_int_eq(store_has_result(v.s, "77", 0), 0);
	v.conf.bundle_deadline = 0; /* the deadline passes */
	ck_assert_int_eq(process(&v, "77.0.json"), 1);
	char *text = store_get(v.s, "77", 0, &att);
	ck_assert_ptr_nonnull(strstr(text, "nodes/b")); /* missing evidence is said */
	ck_assert_ptr_nonnull(strstr(text, "missing"));
	ck_assert_ptr_nonnull(strstr(text, "app/slurm-77.out")); /* no output file */
	free(text);
	svc_teardown(&v);
}
END_TEST

START_TEST(record_not_attributed)
{
	struct svc v;

	svc_setup(&v, 120);
	put_record(&v, "spool/jobs/77.0.json", "COMPLETED", "[\"a\"]");
	put_bundle(&v, "a", "x\\n");
	ck_assert_int_eq(process(&v, "77.0.json"), 1);
	ck_assert_int_eq(store_has_result(v.s, "77", 0), 0);
	ck_assert(!exists(&v, "spool/jobs/77.0.json"));
	ck_assert(!exists(&v, "state/incoming/77"));

	/* a record that is not one: set aside as a dot-file, never attributed */
	write_file(v.dir, "spool/jobs/77.1.json", "{\"schema\": ");
	ck_assert_int_eq(process(&v, "77.1.json"), 1);
	ck_assert(exists(&v, "spool/jobs/.invalid.77.1.json"));
	write_file(v.dir, "spool/jobs/78.0.json",
		   "{\"schema\":\"attrib.job/v1\",\"job_id\":\"77\",\"state\":\"FAILED\"}");
	ck_assert_int_eq(process(&v, "78.0.json"), 1);
	ck_assert(exists(&v, "spool/jobs/.invalid.78.0.json"));
	ck_assert_int_eq(store_has_any_result(v.s, "78"), 0);

	/* a job that never started (no start_time) is still diagnosed */
	write_file(v.dir, "spool/jobs/79.0.json",
		   "{\"schema\":\"attrib.job/v1\",\"job_id\":\"79\",\"state\":\"BOOT_FAIL\","
		   "\"nodes\":[],\"end_time\":\"2025-11-29T08:20:00Z\"}");
	ck_assert_int_eq(process(&v, "79.0.json"), 1);
	ck_assert_int_eq(store_has_result(v.s, "79", 0), 1);
	/* and one the engine cannot use is stored as unattributed, once */
	write_file(v.dir, "spool/jobs/80.0.json",
		   "{\"schema\":\"attrib.job/v1\",\"job_id\":\"80\",\"state\":\"FAILED\"}");
	ck_assert_int_eq(process(&v, "80.0.json"), 1);
	char *text = store_get(v.s, "80", 0, NULL);
	ck_assert_ptr_nonnull(strstr(text, "unattributed"));
	free(text);
	svc_teardown(&v);
}
END_TEST

/* ---- a requeued job: bundles of the earlier attempt are not this one's ---- */

START_TEST(bundle_of_earlier_attempt_is_stale)
{
	struct json_object *p = json_tokener_parse(
		"{\"schema\": \"attrib.bundle/v1\", \"ranks\": ["
		"{\"rank\": 0, \"start_time\": \"2026-11-29T08:00:00Z\"},"
		"{\"rank\": 1, \"start_time\": \"2026-11-29T08:00:01Z\"}]}");

	ck_assert_ptr_nonnull(p);
	/* attempt 1 started at 08:30: these tasks ran in attempt 0 */
	ck_assert(!spool_bundle_fresh(p, "2026-11-29T08:30:00Z"));
	/* the attempt they ran in (a second of clock skew allowed) */
	ck_assert(spool_bundle_fresh(p, "2026-11-29T08:00:01.500Z"));
	/* an attempt requeued seconds later is another attempt */
	ck_assert(!spool_bundle_fresh(p, "2026-11-29T08:00:04Z"));
	/* no task times to tell by, or no start in the record: taken */
	struct json_object *p2 = json_tokener_parse("{\"schema\": \"attrib.bundle/v1\", \"ranks\": []}");
	ck_assert(spool_bundle_fresh(p2, "2026-11-29T08:30:00Z"));
	ck_assert(spool_bundle_fresh(p, NULL));
	json_object_put(p);
	json_object_put(p2);
}
END_TEST

/* ---- drain: what may be drained, and the reason sinfo -R shows ---- */

static struct json_object *result_of(const char *sub, const char *dom, const char *actions, const char *title)
{
	char buf[2048];

	snprintf(buf, sizeof(buf),
		 "{\"job_id\": \"4242\", \"sub_domain\": \"%s\", \"domain\": \"%s\","
		 " \"root_cause\": {\"symptom\": \"%s\", \"device\": \"PCI:0000:18:00\"},"
		 " \"culprit_nodes\": [\"node-02\"], \"affected_nodes\": [\"node-01\", \"node-02\"],"
		 " \"actions\": %s}",
		 sub, dom, title, actions);
	return json_tokener_parse(buf);
}

START_TEST(drain_takes_only_drain_actions)
{
	struct json_object *r = result_of("InfraHW", "infra",
					  "[{\"node\": \"node-02\", \"action\": \"drain\"}]",
					  "Xid 149 NVLink SI");
	struct drain_plan p;

	ck_assert_int_eq(drain_plan(r, NULL, 0, &p), 0);
	ck_assert_int_eq(p.n, 1);
	ck_assert_str_eq(p.nodes[0], "node-02");
	ck_assert_str_eq(p.reason, "attrib: Xid 149 NVLink SI PCI:0000:18:00 (job 4242)");
	json_object_put(r);
}
END_TEST

START_TEST(drain_refuses_what_is_not_a_node_fault)
{
	const char *cases[][3] = {
		{ "UserCode", "user", "[]" },
		{ "ambiguous", "unknown", "[{\"node\": \"node-02\", \"action\": \"inspect\"}]" },
		{ "unattributed", "unknown", "[]" },
		{ "InfraNet", "infra", "[{\"node\": \"node-02\", \"action\": \"inspect\"}]" },
		{ "InfraStorage", "infra", "[]" },
	};
	struct drain_plan p;

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct json_object *r = result_of(cases[i][0], cases[i][1], cases[i][2], "t");

		ck_assert_int_eq(drain_plan(r, NULL, 0, &p), -1);
		ck_assert_int_eq(p.n, 0);
		ck_assert_msg(strstr(p.refusal, "refusing") != NULL, "%s", p.refusal);
		json_object_put(r);
	}
	/* forced, per node: only nodes the diagnosis names */
	struct json_object *r = result_of("UserCode", "user", "[]", "t");
	char *ok[] = { "node-01" }, *bad[] = { "node-77" };
	ck_assert_int_eq(drain_plan(r, ok, 1, &p), 0);
	ck_assert_str_eq(p.nodes[0], "node-01");
	ck_assert_int_eq(drain_plan(r, bad, 1, &p), -1);
	json_object_put(r);
}
END_TEST

START_TEST(drain_reason_is_short_and_safe)
{
	char title[400];
	struct drain_plan p;

	memset(title, 'x', 300);
	title[300] = 0;
	memcpy(title, "a \\\"quoted\\\" `$(rm -rf /)`; \\u001b[31m", 36);
	struct json_object *r = result_of("InfraHW", "infra",
					  "[{\"node\": \"node-02\", \"action\": \"drain\"}]", title);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(drain_plan(r, NULL, 0, &p), 0);
	ck_assert_int_le(strlen(p.reason), DRAIN_REASON_MAX);
	ck_assert_msg(strstr(p.reason, "(job 4242)") != NULL, "%s", p.reason); /* the job survives cutting */
	for (const char *c = p.reason; *c; c++)
		ck_assert_msg(*c >= 0x20 && *c < 0x7f && !strchr("\"'`\\", *c), "unsafe byte in %s",
			      p.reason);
	json_object_put(r);
}
END_TEST

/* ---- hostile strings and a hostile spool (doc/hardening.md, Security) ---- */

START_TEST(log_message_is_one_line)
{
	char *dir = tmpdir(), *p = path_join(dir, "attrib.log"), buf[4096];
	ssize_t n;
	int fd;

	ck_assert_int_eq(log_open(p, 0600, false), 0);
	log_msg(LOGL_ERROR, "std_out %s not read",
		"/home/u/x\n2026-12-01T00:00:00Z attrib[1]: error: FORGED\r\x1b[2J\xe2\x80\xae\xff.out");
	fd = open(p, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	ck_assert_int_gt(n, 1);
	buf[n] = 0;
	ck_assert_ptr_eq(strchr(buf, '\n'), buf + n - 1); /* one line, the service's */
	ck_assert_msg(text_is_clean(buf, n - 1), "%s", buf);
	ck_assert_ptr_nonnull(
		strstr(buf, "x?2026-12-01T00:00:00Z attrib[1]: error: FORGED??[2J?\xef\xbf\xbd.out"));
	free(p);
	rmtree(dir);
}
END_TEST

START_TEST(json_strings_cleaned)
{
	const char *in = "{\"a\":[\"x\\u001by\",{\"b\":\"\xe2\x80\xae\"}],\"c\":\"ok \xc3\xa9\","
			 "\"d\":\"\xff\",\"n\":5,\"e\":null}";
	char err[128];
	struct json_object *o = json_parse_bounded(in, strlen(in), 32, err, sizeof(err)), *v;
	const char *out;

	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(json_clean_strings(o), 3);
	out = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	ck_assert_msg(text_is_clean(out, strlen(out)), "%s", out);
	ck_assert(json_object_object_get_ex(o, "c", &v));
	ck_assert_str_eq(json_object_get_string(v), "ok \xc3\xa9"); /* untouched */
	ck_assert(json_object_object_get_ex(o, "a", &v));
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(v, 0)), "x?y");
	ck_assert_int_eq(json_clean_strings(o), 0); /* clean stays clean */
	json_object_put(o);
}
END_TEST

START_TEST(spool_dir_checked)
{
	char *dir = tmpdir(), err[512], p[600], jobs[600];

	snprintf(p, sizeof(p), "%s/spool", dir);
	snprintf(jobs, sizeof(jobs), "%s/spool/jobs", dir);
	ck_assert_int_eq(spool_check_dir(p, err, sizeof(err)), 0); /* not there yet */
	mkdir_p(dir, "spool/jobs");
	chmod(p, 0755);
	chmod(jobs, 0700);
	ck_assert_msg(spool_check_dir(p, err, sizeof(err)) == 0, "%s", err);
	chmod(jobs, 0777);
	ck_assert_int_eq(spool_check_dir(p, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "writable by group or others"));
	chmod(jobs, 0770);
	ck_assert_int_eq(spool_check_dir(p, err, sizeof(err)), -1);
	chmod(jobs, 0700);
	chmod(dir, 0777); /* a parent anyone may rename entries in */
	ck_assert_int_eq(spool_check_dir(p, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "a parent of SpoolDir"));
	chmod(dir, 01777); /* sticky, as /tmp: fine */
	ck_assert_msg(spool_check_dir(p, err, sizeof(err)) == 0, "%s", err);
	chmod(dir, 0700);
	if (geteuid() == 0) {
		ck_assert_int_eq(chown(jobs, 65534, 65534), 0);
		ck_assert_int_eq(spool_check_dir(p, err, sizeof(err)), -1);
		ck_assert_ptr_nonnull(strstr(err, "owned by uid 65534"));
		spool_set_slurm_user(65534); /* SlurmUser's own spool: fine */
		ck_assert_msg(spool_check_dir(p, err, sizeof(err)) == 0, "%s", err);
		spool_set_slurm_user((uid_t)-1);
		ck_assert_int_eq(chown(jobs, 0, 0), 0);
	}
	char moved[700];
	snprintf(moved, sizeof(moved), "%s/elsewhere", dir);
	ck_assert_int_eq(rename(jobs, moved), 0);
	ck_assert_int_eq(symlink(moved, jobs), 0);
	ck_assert_int_eq(spool_check_dir(p, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "symbolic link"));
	rmtree(dir);
}
END_TEST

/* A record names the uid the service reads files as: one written by an
 * ordinary user (a user-writable spool) must not make it read a root-only
 * file into a case (the /etc/shadow copy of the review). */
START_TEST(record_of_ordinary_user_refused)
{
	struct svc v;
	char rec[1024], p[700], q[700];

	if (geteuid() != 0)
		return; /* (needs chown) */
	svc_setup(&v, 0);
	write_file(v.dir, "secret", "TOPSECRET\n");
	snprintf(p, sizeof(p), "%s/secret", v.dir);
	chmod(p, 0600);
	snprintf(rec, sizeof(rec),
		 "{\"schema\":\"attrib.job/v1\",\"job_id\":\"77\",\"nodes\":[],\"reconciled\":true,"
		 "\"start_time\":\"2025-11-29T08:00:00Z\",\"end_time\":\"2025-11-29T08:20:00Z\","
		 "\"state\":\"FAILED\",\"uid\":0,\"gid\":0,\"attempt\":0,\"std_out\":\"%s\"}",
		 p);
	write_file(v.dir, "spool/jobs/77.0.json", rec);
	snprintf(q, sizeof(q), "%s/spool/jobs/77.0.json", v.dir);
	ck_assert_int_eq(chown(q, 65534, 65534), 0);
	ck_assert_int_eq(process(&v, "77.0.json"), 1);
	ck_assert(!exists(&v, "spool/jobs/77.0.json"));
	ck_assert(exists(&v, "spool/jobs/.invalid.77.0.json")); /* moved aside */
	ck_assert_int_eq(store_has_result(v.s, "77", 0), 0);
	ck_assert(!exists(&v, "state/cases/77.0"));
	/* a hard link (a second name of a file someone else made) is refused too */
	write_file(v.dir, "spool/jobs/78.0.json", rec);
	snprintf(p, sizeof(p), "%s/spool/jobs/78.0.json", v.dir);
	snprintf(q, sizeof(q), "%s/other-name", v.dir);
	ck_assert_int_eq(link(p, q), 0);
	ck_assert_int_eq(process(&v, "78.0.json"), 1);
	ck_assert(exists(&v, "spool/jobs/.invalid.78.0.json"));
	ck_assert_int_eq(store_has_result(v.s, "78", 0), 0);
	/* the same record, root's: attributed, and the file read as root */
	ck_assert_int_eq(unlink(q), 0);
	write_file(v.dir, "spool/jobs/77.0.json", rec);
	ck_assert_int_eq(process(&v, "77.0.json"), 1);
	ck_assert_int_eq(store_has_result(v.s, "77", 0), 1);
	svc_teardown(&v);
}
END_TEST

static int check_row_clean(const struct store_row *r, void *arg)
{
	(void)arg;
	ck_assert_msg(text_is_clean(r->user, strlen(r->user)), "user %s", r->user);
	ck_assert_msg(text_is_clean(r->cluster, strlen(r->cluster)), "cluster %s", r->cluster);
	return 0;
}

/* Every string the service adds to a result is clean: the record's output
 * paths, the bundle's coverage, the user and cluster columns. */
START_TEST(service_strings_cleaned)
{
	struct svc v;
	char buf[2048];
	long att;

	svc_setup(&v, 120);
	snprintf(buf, sizeof(buf),
		 "{\"schema\":\"attrib.job/v1\",\"job_id\":\"77\",\"cluster\":\"l\\u001bab\","
		 "\"user\":\"ev\\u001b[7mil\xe2\x80\xae\xff\",\"nodes\":[\"a\"],"
		 "\"start_time\":\"2025-11-29T08:00:00Z\",\"end_time\":\"2025-11-29T08:20:00Z\","
		 "\"state\":\"FAILED\",\"uid\":%u,\"gid\":%u,\"attempt\":0,"
		 "\"std_out\":\"%s/out/x\\nFORGED\\u001b[2J\xc2\x9b\xfe.out\"}",
		 (unsigned)getuid(), (unsigned)getgid(), v.dir);
	write_file(v.dir, "spool/jobs/77.0.json", buf);
	mkdir_p(v.dir, "state/incoming/77");
	write_file(v.dir, "state/incoming/77/a.json",
		   "{\"schema\":\"attrib.bundle/v1\",\"job_id\":\"77\",\"node\":\"a\",\"files\":[],"
		   "\"coverage\":[{\"source\":\"jour\\nnal\\u001b]0;t\\u0007\xe2\x81\xa6\","
		   "\"status\":\"error\",\"detail\":\"d\\r\\n\xff\xe2\x80\x8f\\u0085\"}]}");
	ck_assert_int_eq(process(&v, "77.0.json"), 1);
	char *text = store_get(v.s, "77", 0, &att);
	ck_assert_ptr_nonnull(text);
	struct json_object *r = json_tokener_parse(text);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(json_clean_strings(r), 0); /* every string clean already */
	ck_assert_msg(text_is_clean(text, strlen(text)), "%s", text);
	ck_assert_ptr_nonnull(strstr(text, "nodes/a:jour?nal?]0;t??"));
	ck_assert_ptr_nonnull(strstr(text, "x?FORGED?[2J?\xef\xbf\xbd.out"));
	json_object_put(r);
	free(text);
	struct store_filter f = { 0 };
	ck_assert_int_eq(store_list(v.s, &f, check_row_clean, NULL), 1);
	svc_teardown(&v);
}
END_TEST

/* Listen and DashboardListen read by one function: host:port, [IPv6]:port,
 * :port (every address); anything else refused naming the setting */
START_TEST(listen_addresses)
{
	char err[256] = "";
	struct addrinfo *ai;

	ck_assert_ptr_nonnull(ai = http_listen_addr("Listen", "127.0.0.1:8080", err, sizeof(err)));
	ck_assert_int_eq(ai->ai_family, AF_INET);
	ck_assert_int_eq(ntohs(((struct sockaddr_in *)ai->ai_addr)->sin_port), 8080);
	freeaddrinfo(ai);
	ck_assert_ptr_nonnull(ai = http_listen_addr("Listen", "[::1]:0", err, sizeof(err)));
	ck_assert_int_eq(ai->ai_family, AF_INET6);
	freeaddrinfo(ai);
	ck_assert_ptr_nonnull(ai = http_listen_addr("Listen", ":9000", err, sizeof(err)));
	freeaddrinfo(ai);
	ck_assert_ptr_null(http_listen_addr("DashboardListen", "8080", err, sizeof(err)));
	ck_assert_str_eq(err, "DashboardListen 8080 is not host:port");
	ck_assert_ptr_null(http_listen_addr("DashboardListen", NULL, err, sizeof(err)));
	ck_assert_str_eq(err, "DashboardListen  is not host:port");
	ck_assert_ptr_null(http_listen_addr("Listen", "127.0.0.1:no-such-port-name", err, sizeof(err)));
	ck_assert_msg(!strncmp(err, "Listen 127.0.0.1:no-such-port-name: ", 36), "%s", err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("service");
	TCase *t = tcase_create("pure");

	tcase_add_test(t, sha256_vectors);
	tcase_add_test(t, listen_addresses);
	tcase_add_test(t, names_that_become_paths);
	tcase_add_test(t, record_names);
	tcase_add_test(t, credential_payloads);
	tcase_add_test(t, json_limits);
	tcase_add_test(t, atomic_write_mode);
	tcase_add_test(t, comment_sanitising);
	tcase_add_test(t, comment_summaries);
	tcase_add_test(t, comment_appending);
	tcase_add_test(t, bundlescan_agrees_with_json_c);
	tcase_add_test(t, drain_takes_only_drain_actions);
	tcase_add_test(t, bundle_of_earlier_attempt_is_stale);
	tcase_add_test(t, stale_bundle_waited_for);
	tcase_add_test(t, ranks_merged_by_step);
	tcase_add_test(t, drain_refuses_what_is_not_a_node_fault);
	tcase_add_test(t, drain_reason_is_short_and_safe);
	tcase_add_test(t, log_message_is_one_line);
	tcase_add_test(t, json_strings_cleaned);
	tcase_add_test(t, spool_dir_checked);
	suite_add_tcase(s, t);
	t = tcase_create("store");
	tcase_add_test(t, store_idempotent);
	tcase_add_test(t, store_queue_survives_reopen);
	tcase_add_test(t, store_list_filters);
	tcase_add_test(t, store_outside_reader_keeps_wal);
	suite_add_tcase(s, t);
	t = tcase_create("records");
	tcase_set_timeout(t, 30);
	tcase_add_test(t, record_attributed_once);
	tcase_add_test(t, record_waits_for_bundles);
	tcase_add_test(t, own_output_makes_no_repeat_offender);
	tcase_add_test(t, record_not_attributed);
	tcase_add_test(t, record_of_ordinary_user_refused);
	tcase_add_test(t, service_strings_cleaned);
	suite_add_tcase(s, t);
	log_set_level(LOGL_ERROR);
	return run_suite(s);
}
