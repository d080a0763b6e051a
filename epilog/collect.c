/* attrib-collect: the slurmd Epilog that sends a job's node evidence to
 * attrib serve (doc/live-pipeline.md §3).
 *
 * Runs as root with SLURM_JOB_ID set; cuts the job's time window out of
 * each LogSources entry, adds the SPANK plugin's task records, and POSTs
 * one bundle signed with a MUNGE credential bound to its SHA-256.  When
 * the service does not take it within CollectTimeout the bundle waits in
 * NodeSpoolDir/outbox/ for the next run.  Always exits 0: a problem is a
 * line in the log and, when it concerns evidence, a coverage entry. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <curl/curl.h>
#include <json-c/json.h>
#include <munge.h>
#include "conf.h"
#include "contract.h"
#include "fileio.h"
#include "log.h"
#include "sha256.h"
#include "text.h"
#include "timefmt.h"
#include "xalloc.h"
#include "collect.h"
#include "window.h"

#define MAX_RECORDS 4096	/* task records read per job */
#define MAX_RECORD_BYTES (1 << 20)
#define MAX_OUTBOX 100		/* bundles kept waiting; the oldest go first */
#define SLACK 120.0		/* seconds a log's clock may go backwards */

/* ---- logging ---- */

/* ---- time ---- */

double now_real(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Epoch seconds ("1764403921", "@1764403921.5") or RFC 3339. */
bool parse_when(const char *s, double *t)
{
	char *end;

	if (!s || !*s)
		return false;
	if (*s == '@' || isdigit((unsigned char)*s)) {
		const char *p = *s == '@' ? s + 1 : s;
		double v;

		errno = 0;
		v = strtod(p, &end);
		if (!errno && end != p && !*end && v >= 0) {
			*t = v;
			return true;
		}
	}
	return time_parse_rfc3339(s, t);
}

/* The zone the node's syslog writes local times in (for timestamps
 * without a zone): TZ, else /etc/localtime's name, else /etc/timezone. */
char *local_zone(void)
{
	const char *tz = getenv("TZ");
	char buf[512];
	ssize_t n;
	FILE *f;

	if (tz && *tz)
		return strdup_or_die(*tz == ':' ? tz + 1 : tz);
	if ((n = readlink("/etc/localtime", buf, sizeof(buf) - 1)) > 0) {
		char *z;

		buf[n] = 0;
		if ((z = strstr(buf, "zoneinfo/")))
			return strdup_or_die(z + 9);
	}
	if ((f = fopen("/etc/timezone", "re"))) {
		char *r = fgets(buf, sizeof(buf), f) ? buf : NULL;

		fclose(f);
		if (r) {
			buf[strcspn(buf, " \t\r\n")] = 0;
			if (*buf)
				return strdup_or_die(buf);
		}
	}
	return NULL;
}

/* Makes zone the process's TZ: the engine's conversion of zone-less
 * times sets TZ to the zone and back for each one, which costs a reload
 * of the zone file unless TZ already names it (150 us a line, else). */
static void zone_set(const char *zone)
{
	if (zone && *zone) {
		setenv("TZ", zone, 1);
		tzset();
	}
}

/* ---- small helpers ---- */

void cover(json_object *cov, const char *source, const char *status, const char *fmt, ...)
{
	char detail[1024];
	va_list ap;
	json_object *e = json_object_new_object();

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	json_object_object_add(e, "source", json_object_new_string(source));
	json_object_object_add(e, "status", json_object_new_string(status));
	json_object_object_add(e, "detail", json_object_new_string(detail));
	json_object_array_add(cov, e);
	if (strcmp(status, "info"))
		clog_msg("%s: %s: %s", source, status, detail);
}

static bool valid_job_id(const char *s)
{
	if (!s || !*s || strlen(s) > 20)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* Opens a root log file the way the collector must: no symlink, no FIFO
 * or device, never blocking. */
int open_log_file(const char *path, struct stat *st, char *why, size_t whylen)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

	if (fd < 0) {
		snprintf(why, whylen, "%s", errno == ELOOP ? "is a symbolic link (refused)" : strerror(errno));
		return -1;
	}
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
		snprintf(why, whylen, "not a regular file (refused)");
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

/* ---- the job and its task records ---- */

struct job_info {
	const char *job_id;
	const char *node;
	double start, end;
	const char *window_from;	/* what the window came from */
	json_object *ranks;
	char **record_names;	/* task record files read (to remove) */
	int nrecords;
};

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Reads NODESPOOL/JOBID/task-*.json into j->ranks. */
static void read_records(int spool, struct job_info *j, json_object *cov, double *min_exit,
			 double *max_exit, double *min_start)
{
	int dfd;
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	int n = 0, bad = 0;

	*min_exit = *max_exit = *min_start = NAN;
	if (spool < 0)
		return;
	dfd = openat(spool, j->job_id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		if (errno != ENOENT)
			cover(cov, "task-records", "error", "%s: %s", j->job_id, strerror(errno));
		return;
	}
	/* the SPANK plugin (slurmstepd, root) makes it ours and 0700: anything
	 * else could hold records a user planted */
	struct stat dst;

	if (fstat(dfd, &dst) < 0 || dst.st_uid != geteuid() || (dst.st_mode & 022)) {
		cover(cov, "task-records", "error", "%s: not owned by uid %ld or writable by others; "
		      "not read", j->job_id, (long)geteuid());
		close(dfd);
		return;
	}
	if (!(d = fdopendir(dfd))) {
		close(dfd);
		return;
	}
	while ((de = readdir(d)) && n < MAX_RECORDS) {
		size_t len = strlen(de->d_name);

		if (strncmp(de->d_name, "task-", 5) || len < 10 || strcmp(de->d_name + len - 5, ".json"))
			continue;
		names = xrealloc(names, (n + 1) * sizeof(*names));
		names[n++] = strdup_or_die(de->d_name);
	}
	if (n)
		qsort(names, n, sizeof(*names), name_cmp);
	for (int i = 0; i < n; i++) {
		struct stat st;
		int fd = openat(dirfd(d), names[i], O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		char *buf = NULL;
		json_object *o = NULL, *v;
		ssize_t got = -1;
		double t;

		/* (a record of another owner, or a hard link, is not the plugin's) */
		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < MAX_RECORD_BYTES &&
		    st.st_uid == geteuid() && st.st_nlink == 1) {
			buf = xmalloc((size_t)st.st_size + 1);
			got = pread(fd, buf, (size_t)st.st_size, 0);
		}
		if (fd >= 0)
			close(fd);
		if (got >= 0) {
			buf[got] = 0;
			o = json_tokener_parse(buf);
		}
		free(buf);
		if (!o || !json_object_is_type(o, json_type_object)) {
			if (bad++ < 5)
				cover(cov, "task-records", "error", "%s/%s: not a task record", j->job_id, names[i]);
			json_object_put(o);
			continue;
		}
		if (json_object_object_get_ex(o, "exit_time", &v) &&
		    time_parse_rfc3339(json_object_get_string(v), &t)) {
			if (isnan(*min_exit) || t < *min_exit)
				*min_exit = t;
			if (isnan(*max_exit) || t > *max_exit)
				*max_exit = t;
		}
		if (json_object_object_get_ex(o, "start_time", &v) &&
		    time_parse_rfc3339(json_object_get_string(v), &t) &&
		    (isnan(*min_start) || t < *min_start))
			*min_start = t;
		json_object_array_add(j->ranks, o);
		j->record_names = xrealloc(j->record_names, (j->nrecords + 1) * sizeof(char *));
		j->record_names[j->nrecords++] = strdup_or_die(names[i]);
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(d);
}

static void remove_records(int spool, const struct job_info *j)
{
	int dfd;

	if (spool < 0 || !j->nrecords)
		return;
	if ((dfd = openat(spool, j->job_id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return;
	for (int i = 0; i < j->nrecords; i++)
		if (unlinkat(dfd, j->record_names[i], 0) && errno != ENOENT)
			clog_msg("cannot remove task record %s: %s", j->record_names[i], strerror(errno));
	close(dfd);
	if (unlinkat(spool, j->job_id, AT_REMOVEDIR) && errno != ENOTEMPTY && errno != EEXIST &&
	    errno != ENOENT)
		clog_msg("cannot remove %s: %s", j->job_id, strerror(errno));
}

/* The job's start and end: Slurm's (23.02+ sets them for the Epilog),
 * else the task records', else the last hour. */
static void job_window(struct job_info *j, double min_exit, double max_exit, double min_start,
		       json_object *cov)
{
	double now = now_real(), t;
	const char *from_start = NULL, *from_end = NULL;

	j->end = NAN;
	j->start = NAN;
	if (parse_when(getenv("SLURM_JOB_END_TIME"), &t) && t > 0)
		j->end = t, from_end = "SLURM_JOB_END_TIME";
	else if (!isnan(max_exit))
		j->end = max_exit, from_end = "task records";
	if (isnan(j->end) || j->end > now + 300)
		j->end = now, from_end = from_end ? "now (the given end is in the future)" : "now";
	if (parse_when(getenv("SLURM_JOB_START_TIME"), &t) && t > 0 && t <= j->end)
		j->start = t, from_start = "SLURM_JOB_START_TIME";
	else if (!isnan(min_start) && min_start <= j->end)
		j->start = min_start, from_start = "task records' start_time";
	else if (!isnan(min_exit) && min_exit <= j->end)
		j->start = min_exit - 3600, from_start = "an hour before the first task exit";
	else
		j->start = j->end - 3600, from_start = "an hour before the end";
	if (strcmp(from_start, "SLURM_JOB_START_TIME") && strncmp(from_start, "task records", 12))
		cover(cov, "window", "info", "job start unknown: window from %s; end from %s",
		      from_start, from_end);
}

/* ---- log sources ---- */

struct names {
	char **v;
	int n;
};

/* A file name for the bundle, unique within it. */
static char *unique_name(struct names *used, const char *base)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s", *base ? base : "log");
	for (int k = 2; ; k++) {
		int i;

		for (i = 0; i < used->n && strcmp(used->v[i], buf); i++)
			;
		if (i == used->n)
			break;
		snprintf(buf, sizeof(buf), "%s-%d", base, k);
	}
	used->v = xrealloc(used->v, (used->n + 1) * sizeof(char *));
	used->v[used->n++] = strdup_or_die(buf);
	return used->v[used->n - 1];
}

void add_file(json_object *files, const char *name, const char *source, const char *origin,
	      const char *text, size_t len)
{
	size_t flen;
	char *fixed = text_utf8_fix(text, len, &flen);
	json_object *f = json_object_new_object();

	json_object_object_add(f, "name", json_object_new_string(name));
	json_object_object_add(f, "source", json_object_new_string(source));
	json_object_object_add(f, "origin", json_object_new_string(origin));
	json_object_object_add(f, "text", json_object_new_string_len(fixed ? fixed : "", fixed ? (int)flen : 0));
	json_object_array_add(files, f);
	free(fixed);
}

/* Cuts one file (and, when the window starts before it, its rotated .1). */
static void collect_file(const struct collect_ctx *cx, const char *path, size_t cap,
			 json_object *files, json_object *cov, struct names *used)
{
	char why[256], a[64], b[64];
	struct stat st;
	struct cut c, c1 = { 0 };
	int fd = open_log_file(path, &st, why, sizeof(why));
	const char *slash = strrchr(path, '/');
	char *name;

	if (fd < 0) {
		cover(cov, path, errno == ENOENT ? "missing" : "error", "%s", why);
		return;
	}
	if (window_cut(fd, st.st_size, cx->start, cx->end, SLACK, cap, cx->tc, &c)) {
		cover(cov, path, "error", "read: %s", strerror(errno));
		close(fd);
		return;
	}
	close(fd);
	if (c.starts_before && c.len < cap) {
		char p1[4096];
		struct stat st1;
		int fd1;

		snprintf(p1, sizeof(p1), "%s.1", path);
		if ((fd1 = open_log_file(p1, &st1, why, sizeof(why))) >= 0) {
			if (window_cut(fd1, st1.st_size, cx->start, cx->end, SLACK, cap - c.len, cx->tc, &c1))
				cover(cov, p1, "error", "read: %s", strerror(errno));
			close(fd1);
			if (c1.text && c1.len) {
				char n1[512];

				snprintf(n1, sizeof(n1), "%s.1", slash ? slash + 1 : path);
				add_file(files, unique_name(used, n1), p1, ORIGIN_NAME_FILE, c1.text, c1.len);
			}
			if (c1.truncated)
				cover(cov, p1, "partial", "more than %zu bytes in the window: kept the last %zu",
				      cap - c.len, c1.len);
			cut_free(&c1);
		} else if (errno != ENOENT) {
			cover(cov, p1, "error", "%s", why);
		}
	}
	name = unique_name(used, slash ? slash + 1 : path);
	add_file(files, name, path, ORIGIN_NAME_FILE, c.text, c.len);
	if (c.truncated)
		cover(cov, path, "partial",
		      c.has_first || c.has_last ? "more than %zu bytes in the window: kept the last %zu"
						: "no timestamps: kept the last %zu of its bytes (cap %zu)",
		      c.has_first || c.has_last ? cap : c.len, c.has_first || c.has_last ? c.len : cap);
	else if (!c.has_first && !c.has_last && st.st_size)
		cover(cov, path, "partial", "no timestamps: kept the whole file (%zu bytes)", c.len);
	else if (!c.lines && st.st_size) {
		if (c.has_last && c.last < cx->start) {
			time_format(c.last, a, sizeof(a));
			cover(cov, path, "empty", "no line in the window: the file ends at %s", a);
		} else if (c.has_first && c.first > cx->end) {
			time_format(c.first, a, sizeof(a));
			cover(cov, path, "empty", "no line in the window: the file starts at %s%s", a,
			      c1.lines ? "" : " (and no rotated .1 covers it)");
		} else {
			time_format(cx->start, a, sizeof(a));
			time_format(cx->end, b, sizeof(b));
			cover(cov, path, "empty", "no line between %s and %s", a, b);
		}
	}
	cut_free(&c);
}

/* ---- bundle ---- */

json_object *bundle_build(const struct collect_ctx *cx, struct job_info *j, json_object *cov)
{
	json_object *b = json_object_new_object(), *w = json_object_new_object();
	json_object *files = json_object_new_array();
	struct names used = { 0 };
	char ts[64];
	int n = cx->conf->nlog_sources;
	long maxb = cx->conf->max_bundle_bytes;
	size_t reserve = (size_t)(maxb / 8 < (1 << 20) ? maxb / 8 : (1 << 20));
	size_t cap = n ? ((size_t)maxb - reserve) / (size_t)n : 0;
	long kernel_entries = 0;
	bool kmsg = false;

	json_object_object_add(b, "schema", json_object_new_string(ATTRIB_BUNDLE_SCHEMA));
	json_object_object_add(b, "job_id", json_object_new_string(j->job_id));
	json_object_object_add(b, "node", json_object_new_string(j->node));
	time_format(now_real(), ts, sizeof(ts));
	json_object_object_add(b, "collected_at", json_object_new_string(ts));
	time_format(cx->start, ts, sizeof(ts));
	json_object_object_add(w, "start", json_object_new_string(ts));
	time_format(cx->end, ts, sizeof(ts));
	json_object_object_add(w, "end", json_object_new_string(ts));
	json_object_object_add(b, "window", w);
	for (int i = 0; i < n; i++) {
		const char *src = cx->conf->log_sources[i];

		if (!strcmp(src, "journal") || !strncmp(src, "journal:", 8)) {
			const char *const names[3] = { unique_name(&used, "kernel.log"),
						       unique_name(&used, "journal.log"),
						       unique_name(&used, "journal-user.log") };

			kernel_entries += collect_journal(cx, src, cap, files, cov, names);
		} else if (!strcmp(src, "kmsg"))
			kmsg = true;
		else if (*src == '/')
			collect_file(cx, src, cap, files, cov, &used);
		else
			cover(cov, src, "error", "not an absolute path, \"journal\" nor \"kmsg\"");
	}
	/* journald copies the kernel's ring into the journal: the same lines
	 * twice would count every kernel event twice */
	if (kmsg && kernel_entries)
		cover(cov, "kmsg", "info", "not read: the journal holds the kernel's messages of the window");
	else if (kmsg)
		collect_kmsg(cx, cap, files, cov, unique_name(&used, "kmsg.log"));
	json_object_object_add(b, "files", files);
	json_object_object_add(b, "ranks", json_object_get(j->ranks));
	json_object_object_add(b, "coverage", json_object_get(cov));
	for (int i = 0; i < used.n; i++)
		free(used.v[i]);
	free(used.v);
	return b;
}

/* The body, within MaxBundleBytes: texts are cut from the front (the end
 * of the window is what matters most) until it fits. */
static char *bundle_body(json_object *b, long maxb, json_object *cov, size_t *len)
{
	for (int round = 0; ; round++) {
		size_t n;
		const char *s = json_object_to_json_string_length(
			b, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &n);
		json_object *files;

		if (!s)
			return NULL;
		if ((long)n <= maxb || round >= 8 || !json_object_object_get_ex(b, "files", &files)) {
			*len = n;
			return strndup_or_die(s, n);
		}
		for (size_t i = 0; i < json_object_array_length(files); i++) {
			json_object *f = json_object_array_get_idx(files, i), *t;
			const char *text;
			size_t tl, keep;

			if (!json_object_object_get_ex(f, "text", &t))
				continue;
			text = json_object_get_string(t);
			tl = (size_t)json_object_get_string_len(t);
			keep = tl / 2;
			if (!keep)
				continue;
			const char *from = text + tl - keep, *nl = memchr(from, '\n', keep);

			if (nl)
				from = nl + 1;
			json_object_object_add(f, "text", json_object_new_string_len(from, (int)(text + tl - from)));
		}
		if (round == 0)
			cover(cov, "bundle", "partial", "over MaxBundleBytes (%ld) after JSON escaping: texts cut to fit", maxb);
	}
}

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

static char *credential(const struct collect_ctx *cx, const char *job, const char *node,
			const char *hash, char *err, size_t errlen)
{
	char payload[512];
	char *cred = NULL;
	munge_ctx_t ctx = munge_ctx_create();
	munge_err_t e;

	if (!ctx) {
		snprintf(err, errlen, "munge_ctx_create failed");
		return NULL;
	}
	if (cx->munge_socket && (e = munge_ctx_set(ctx, MUNGE_OPT_SOCKET, cx->munge_socket)) != EMUNGE_SUCCESS) {
		snprintf(err, errlen, "MUNGE socket %s: %s", cx->munge_socket, munge_ctx_strerror(ctx));
		munge_ctx_destroy(ctx);
		return NULL;
	}
	struct bundle_claim claim;

	snprintf(claim.job_id, sizeof(claim.job_id), "%s", job);
	snprintf(claim.node, sizeof(claim.node), "%s", node);
	snprintf(claim.sha256, sizeof(claim.sha256), "%s", hash);
	if (bundle_payload_format(&claim, payload, sizeof(payload))) {
		snprintf(err, errlen, "job %s or node %s is not a valid name", job, node);
		munge_ctx_destroy(ctx);
		return NULL;
	}
	e = munge_encode(&cred, ctx, payload, (int)strlen(payload));
	if (e != EMUNGE_SUCCESS) {
		snprintf(err, errlen, "munge_encode (socket %s): %s",
			 cx->munge_socket ? cx->munge_socket : "default", munge_ctx_strerror(ctx)
			 ? munge_ctx_strerror(ctx) : munge_strerror(e));
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
static enum send_status post_once(const struct collect_ctx *cx, const char *body, size_t len, const char *cred,
		     double timeout, char *err, size_t errlen)
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
	snprintf(url + ul, sizeof(url) - ul, BUNDLE_URL_PATH);
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
		return SEND_RETRY;	/* 401/403: a credential problem that may be fixed */
	return SEND_REFUSED;
}

static double remaining(const struct collect_ctx *cx)
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

/* Sends a body: a fresh credential for each try (the service refuses a
 * replayed one), backoff 0.25 s, 0.5 s, 1 s ... within until (monotonic).
 * A refused connection is tried once more (a service restarting), then
 * given up at once: nothing listens, and every second spent here holds the
 * node in its epilog; the outbox keeps the bundle for the next epilog. */
static enum send_status send_body(const struct collect_ctx *cx, const char *job,
				  const char *node, const char *body, size_t len, double until,
				  int max_tries, char *err, size_t errlen)
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
			return SEND_RETRY;	/* no munged: retrying now will not help */
		rc = post_once(cx, body, len, cred, left, err, errlen);
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

/* ---- outbox ---- */

static int open_dir_at(int at, const char *name, bool create)
{
	int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT && create) {
		if (mkdirat(at, name, 0700) && errno != EEXIST)
			return -1;
		fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	return fd;
}

/* Opens NodeSpoolDir, making it (0700) when missing. */
int open_spool(const char *path, char *why, size_t whylen)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0 && errno == ENOENT) {
		char *p = strdup_or_die(path);

		for (char *s = strchr(p + 1, '/'); ; s = strchr(s + 1, '/')) {
			if (s)
				*s = 0;
			if (mkdir(p, 0700) && errno != EEXIST)
				break;
			if (!s)
				break;
			*s = '/';
		}
		free(p);
		fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0) {
		snprintf(why, whylen, "%s", errno == ELOOP || errno == ENOTDIR ? "not a directory (or a symbolic link)"
								   : strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || st.st_uid != geteuid() || (st.st_mode & 022)) {
		snprintf(why, whylen, "must be owned by uid %ld and writable by it alone", (long)geteuid());
		close(fd);
		return -1;
	}
	return fd;
}

/* Writes body to outbox/ atomically (temporary dot-file, fsync, rename). */
static int outbox_put(int spool, const char *job, const char *body, size_t len, char *err, size_t errlen)
{
	int ob;
	char tmp[256], name[128], why[300];
	struct timeval tv;

	if (spool < 0) {
		snprintf(err, errlen, "no NodeSpoolDir");
		return -1;
	}
	if ((ob = open_dir_at(spool, "outbox", true)) < 0) {
		snprintf(err, errlen, "outbox: %s", strerror(errno));
		return -1;
	}
	gettimeofday(&tv, NULL);
	snprintf(name, sizeof(name), "%010lld.%06ld-%s.json", (long long)tv.tv_sec, (long)tv.tv_usec, job);
	snprintf(tmp, sizeof(tmp), ".%s.%ld.tmp", name, (long)getpid());
	if (write_atomic_at(ob, name, tmp, body, len, 0600, true, why, sizeof(why))) {
		snprintf(err, errlen, "outbox: %s", why);
		close(ob);
		return -1;
	}
	fsync(ob);
	close(ob);
	snprintf(err, errlen, "outbox/%s", name);
	return 0;
}

static char *read_small(int dir, const char *name, long max, size_t *len)
{
	struct stat st;
	int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	char *buf = NULL;
	ssize_t got;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= max) {
		buf = xmalloc((size_t)st.st_size + 1);
		got = pread(fd, buf, (size_t)st.st_size, 0);
		if (got != st.st_size) {
			free(buf);
			buf = NULL;
		} else {
			buf[got] = 0;
			*len = (size_t)got;
		}
	}
	close(fd);
	return buf;
}

/* Sends what earlier runs left in outbox/, oldest first, one try each,
 * until one fails; uses at most until (monotonic).  A bundle the service
 * refuses for good moves to outbox/rejected/. */
static void outbox_flush(const struct collect_ctx *cx, int spool, double until)
{
	int ob = spool >= 0 ? open_dir_at(spool, "outbox", false) : -1;
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	int n = 0;

	if (ob < 0)
		return;
	if (flock(ob, LOCK_EX | LOCK_NB)) {	/* another epilog is sending them */
		close(ob);
		return;
	}
	if (!(d = fdopendir(ob))) {
		close(ob);
		return;
	}
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (de->d_name[0] == '.' || l < 6 || strcmp(de->d_name + l - 5, ".json"))
			continue;
		names = xrealloc(names, (n + 1) * sizeof(*names));
		names[n++] = strdup_or_die(de->d_name);
	}
	if (n)
		qsort(names, n, sizeof(*names), name_cmp);
	for (int i = 0; i + MAX_OUTBOX < n; i++) {	/* too many waiting: drop the oldest */
		if (!unlinkat(dirfd(d), names[i], 0))
			clog_msg("outbox full (%d bundles): dropped %s", n, names[i]);
		free(names[i]);
		names[i] = NULL;
	}
	for (int i = 0; i < n; i++) {
		size_t len = 0;
		char *body, err[1024];
		json_object *o = NULL, *jv, *nv;
		enum send_status rc;

		if (!names[i])
			continue;
		if (now_mono() >= until) {
			clog_msg("outbox: no time left for %s (and %d more); the next run sends them", names[i], n - i - 1);
			break;
		}
		body = read_small(dirfd(d), names[i], cx->conf->max_bundle_bytes * 2, &len);
		if (body)
			o = json_tokener_parse(body);
		if (!o || !json_object_object_get_ex(o, "job_id", &jv) ||
		    !json_object_object_get_ex(o, "node", &nv)) {
			clog_msg("outbox: %s is not a bundle; moved to outbox/rejected/", names[i]);
			rc = SEND_REFUSED;
		} else {
			rc = send_body(cx, json_object_get_string(jv), json_object_get_string(nv), body, len,
				       until, 1, err, sizeof(err));
			if (rc == SEND_OK)
				clog_msg("outbox: sent %s", names[i]);
			else
				clog_msg("outbox: %s not sent: %s", names[i], err);
		}
		json_object_put(o);
		free(body);
		if (rc == SEND_OK) {
			unlinkat(dirfd(d), names[i], 0);
		} else if (rc == SEND_REFUSED) {
			int rj = open_dir_at(dirfd(d), "rejected", true);

			if (rj < 0 || renameat(dirfd(d), names[i], rj, names[i]))
				unlinkat(dirfd(d), names[i], 0);
			if (rj >= 0)
				close(rj);
		} else {
			break;	/* the service is not answering: keep the rest */
		}
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(d);
}

/* ---- main ---- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: attrib-collect [-c attrib.conf] [--munge-socket PATH] [--job ID] [--node NAME] [--print]\n"
		"       attrib-collect --cut FILE --start TIME --end TIME [--tz ZONE] [--cap BYTES] [--stats]\n"
		"Slurm Epilog: sends the job's node logs and task records to attrib serve.\n"
		"TIME is RFC 3339 or seconds since the epoch.  Always exits 0 as an Epilog.\n");
}

static int cut_main(const char *path, const char *start_s, const char *end_s, const char *tz,
		    long cap, bool stats)
{
	struct timectx tc = { 0 };
	double start, end, t0 = now_mono();
	struct stat st;
	char why[256];
	struct cut c;
	int fd;
	char *zone = NULL;

	if (!parse_when(start_s, &start) || !parse_when(end_s, &end)) {
		fprintf(stderr, "attrib-collect: --start and --end must be RFC 3339 times or epoch seconds\n");
		return 2;
	}
	tc.ref = end;
	tc.tz = tz ? tz : (zone = local_zone());
	zone_set(tc.tz);
	if ((fd = open_log_file(path, &st, why, sizeof(why))) < 0) {
		fprintf(stderr, "attrib-collect: %s: %s\n", path, why);
		free(zone);
		return 1;
	}
	if (window_cut(fd, st.st_size, start, end, SLACK, cap > 0 ? (size_t)cap : (size_t)1 << 40, &tc, &c)) {
		fprintf(stderr, "attrib-collect: %s: %s\n", path, strerror(errno));
		close(fd);
		free(zone);
		return 1;
	}
	close(fd);
	fwrite(c.text, 1, c.len, stdout);
	fflush(stdout);
	if (stats)
		fprintf(stderr, "lines=%ld bytes=%zu read=%llu probes=%d lo=%lld hi=%lld truncated=%d seconds=%.6f\n",
			c.lines, c.len, (unsigned long long)c.bytes_read, c.probes, (long long)c.lo,
			(long long)c.hi, c.truncated, now_mono() - t0);
	cut_free(&c);
	free(zone);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "munge-socket", required_argument, NULL, 'm' },
		{ "job", required_argument, NULL, 'j' },
		{ "node", required_argument, NULL, 'n' },
		{ "print", no_argument, NULL, 'p' },
		{ "cut", required_argument, NULL, 'C' },
		{ "start", required_argument, NULL, 's' },
		{ "end", required_argument, NULL, 'e' },
		{ "tz", required_argument, NULL, 'z' },
		{ "cap", required_argument, NULL, 'k' },
		{ "stats", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *conf_path = getenv("ATTRIB_CONF"), *munge_opt = NULL, *job = getenv("SLURM_JOB_ID");
	const char *node = getenv("SLURMD_NODENAME"), *cut = NULL, *start_s = NULL, *end_s = NULL, *tz = NULL;
	const char *munge_from = "";
	bool print = false, stats = false;
	long cap = 0;
	int ch;
	struct attrib_config conf;
	struct collect_ctx cx = { 0 };
	struct timectx tc = { 0 };
	struct job_info j = { 0 };
	json_object *cov, *bundle = NULL;
	char host[256], why[512], err[1024], *zone = NULL, *body = NULL;
	size_t blen = 0;
	int spool = -1;
	char *cfgerr = NULL;
	size_t cfgerrlen = 0;
	FILE *cfgf;

	signal(SIGPIPE, SIG_IGN);
	while ((ch = getopt_long(argc, argv, "c:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'c': conf_path = optarg; break;
		case 'm': munge_opt = optarg; break;
		case 'j': job = optarg; break;
		case 'n': node = optarg; break;
		case 'p': print = true; break;
		case 'C': cut = optarg; break;
		case 's': start_s = optarg; break;
		case 'e': end_s = optarg; break;
		case 'z': tz = optarg; break;
		case 'k': cap = strtol(optarg, NULL, 10); break;
		case 'S': stats = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return cut ? 2 : 0;
		}
	}
	if (cut)
		return cut_main(cut, start_s, end_s, tz, cap, stats);

	/* configuration; its problems are logged, what it could read is used */
	cfgf = open_memstream(&cfgerr, &cfgerrlen);
	if (config_load(conf_path && *conf_path ? conf_path : ATTRIB_CONF_DEFAULT, &conf, cfgf ? cfgf : stderr) &&
	    conf.log_sources == NULL)
		config_load(NULL, &conf, stderr);
	if (cfgf)
		fclose(cfgf);
	if (conf.log_file && log_open(conf.log_file, 0640, false) < 0)
		clog_msg("cannot open LogFile %s: %s; logging to standard error", conf.log_file,
			 strerror(errno));
	if (valid_job_id(job)) {
		char context[80];

		snprintf(context, sizeof(context), "job %s", job);
		log_set_context(context);
	}
	if (cfgerr && *cfgerr) {
		for (char *line = strtok(cfgerr, "\n"); line; line = strtok(NULL, "\n"))
			clog_msg("config: %s", line);
	}
	free(cfgerr);
	cx.conf = &conf;
	cx.deadline = now_mono() + (conf.collect_timeout > 0 ? (double)conf.collect_timeout : 1.0);
	cx.munge_socket = munge_socket_choice(munge_opt, &munge_from);
	curl_global_init(CURL_GLOBAL_DEFAULT);

	if (!node || !*node) {
		if (gethostname(host, sizeof(host)) == 0) {
			host[sizeof(host) - 1] = 0;
			host[strcspn(host, ".")] = 0;
			node = host;
		} else {
			node = "unknown";
		}
	}
	spool = open_spool(conf.node_spool_dir ? conf.node_spool_dir : "/var/spool/attrib/node", why, sizeof(why));
	if (spool < 0)
		clog_msg("NodeSpoolDir %s: %s (no task records, no outbox)",
			 conf.node_spool_dir ? conf.node_spool_dir : "", why);

	if (!valid_job_id(job)) {
		clog_msg("SLURM_JOB_ID %s%s%s: not a job id; sending only what earlier runs left",
			 job ? "\"" : "", job ? job : "unset", job ? "\"" : "");
		if (!print)
			outbox_flush(&cx, spool, cx.deadline);
		goto out;
	}

	cov = json_object_new_array();
	j.job_id = job;
	j.node = node;
	j.ranks = json_object_new_array();
	if (spool < 0)
		cover(cov, "task-records", "error", "NodeSpoolDir %s: %s", conf.node_spool_dir ? conf.node_spool_dir : "", why);
	{
		double min_exit, max_exit, min_start;

		read_records(spool, &j, cov, &min_exit, &max_exit, &min_start);
		job_window(&j, min_exit, max_exit, min_start, cov);
	}
	cx.start = j.start - (double)conf.window_margin;
	cx.end = j.end + (double)conf.window_margin;
	tc.ref = j.end;
	tc.tz = zone = local_zone();
	zone_set(tc.tz);
	cx.tc = &tc;
	bundle = bundle_build(&cx, &j, cov);
	body = bundle_body(bundle, conf.max_bundle_bytes, cov, &blen);
	json_object_put(cov);
	if (!body) {
		clog_msg("cannot serialise the bundle");
		goto out;
	}
	if (print) {
		fwrite(body, 1, blen, stdout);
		putchar('\n');
		goto out;
	}

	/* earlier bundles first, with at most half of the time left */
	outbox_flush(&cx, spool, now_mono() + remaining(&cx) / 2);
	enum send_status rc = send_body(&cx, j.job_id, j.node, body, blen, cx.deadline, 1000, err,
					sizeof(err));

	if (rc == SEND_OK) {
		remove_records(spool, &j);
	} else {
		char where[1024];

		if (outbox_put(spool, j.job_id, body, blen, where, sizeof(where)) == 0) {
			/* the bundle in the outbox carries the task records now */
			remove_records(spool, &j);
			clog_msg("bundle not sent (%s); left in %s for the next run%s", err, where,
				 rc == SEND_REFUSED ? " (the service refused it)" : "");
		} else
			clog_msg("bundle not sent (%s) and not kept: %s", err, where);
	}
out:
	if (bundle)
		json_object_put(bundle);
	json_object_put(j.ranks);
	for (int i = 0; i < j.nrecords; i++)
		free(j.record_names[i]);
	free(j.record_names);
	free(body);
	free(zone);
	free(cx.munge_socket);
	if (spool >= 0)
		close(spool);
	config_free(&conf);
	curl_global_cleanup();
	return 0;
}
