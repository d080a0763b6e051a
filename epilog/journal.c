/* The systemd journal as a log source of attrib-collect.
 *
 * With libsystemd (sd-journal) the window is read in-process, from the
 * job's end backwards, so the cap keeps the entries nearest the end.
 * Without it, journalctl -o json runs with a deadline (killed when it
 * passes), and the coverage says so.
 *
 * Any user can put an entry in the journal and name it what they like
 * (logger -t kernel, systemd-cat -t kernel: SYSLOG_IDENTIFIER is the
 * client's word).  Only journald's own fields, which begin with "_", are
 * trustworthy: _TRANSPORT=kernel entries came from the kernel's ring
 * (which only the kernel and root write), _UID is the writer's uid.  So
 * the entries go to three files, by origin: the kernel's, root's, and
 * every other uid's.  Lines look like journalctl -o short-iso-precise
 * --utc: "2026-11-29T08:12:01.331270+00:00 host ident[pid]: msg"; those
 * not from the kernel carry the writer as journald saw it after the host:
 * "... host [_UID=1000 _COMM=logger] kernel[4242]: msg". */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "conf.h"
#include "timefmt.h"
#include "xalloc.h"
#include "collect.h"
#include "source.h"
#ifdef HAVE_SYSTEMD
#include <systemd/sd-journal.h>
#endif

/* The journal's share of the time budget. */
static double journal_deadline(const struct collect_ctx *cx)
{
	double left = cx->deadline - now_mono();

	return now_mono() + (left > 0 ? left / 3 : 0);
}

/* Does dir (or a machine-id directory in it) hold a journal file? */
static bool dir_has_journal(const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	bool found = false;

	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		size_t l = strlen(de->d_name);
		char sub[4096];

		if (de->d_name[0] == '.')
			continue;
		if ((l > 8 && !strcmp(de->d_name + l - 8, ".journal")) ||
		    (l > 9 && !strcmp(de->d_name + l - 9, ".journal~")))
			found = true;
		else if (depth > 0 && snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name) < (int)sizeof(sub))
			found = dir_has_journal(sub, depth - 1);
	}
	closedir(d);
	return found;
}

static bool have_journal(const char *dir)
{
	if (dir)
		return dir_has_journal(dir, 1);
	return dir_has_journal("/var/log/journal", 1) || dir_has_journal("/run/log/journal", 1);
}

enum jkind { J_KERNEL, J_ROOT, J_USER };

static const char *const korigin[] = { ORIGIN_NAME_KERNEL, ORIGIN_NAME_JOURNAL, ORIGIN_NAME_JOURNAL_USER };

/* One entry's fields, with their lengths (a journal value need not end
 * in a NUL nor be free of them). */
struct jentry {
	uint64_t t; /* realtime, microseconds */
	const char *msg, *ident, *pid, *host, *uid, *comm, *transport, *facility;
	size_t ml, il, pl, hl, ul, cl, tl, fl;
};

struct piece {
	char *s;
	size_t n;
	enum jkind kind;
};

static bool is(const char *v, size_t l, const char *want)
{
	return v && l == strlen(want) && !memcmp(v, want, l);
}

/* Who wrote it, by journald's trusted fields only.  A record root wrote to
 * /dev/kmsg also has _TRANSPORT=kernel; the kernel refuses it the kernel
 * facility (0), so it is root's, not the kernel's. */
static enum jkind kind_of(const struct jentry *e)
{
	if (is(e->transport, e->tl, "kernel"))
		return !e->facility || is(e->facility, e->fl, "0") ? J_KERNEL : J_ROOT;
	return is(e->uid, e->ul, "0") ? J_ROOT : J_USER;
}

/* The entry as a line; NULL when out of memory. */
static char *format_entry(const struct jentry *e, enum jkind k, size_t *len)
{
	char ts[64], who[300] = "", *line;
	int n;

	time_format_log(e->t, ts, sizeof(ts));
	if (k != J_KERNEL)
		snprintf(who, sizeof(who), "[_UID=%.*s _COMM=%.*s] ", (int)(e->uid ? e->ul : 1),
			 e->uid ? e->uid : "-", (int)(e->comm ? (e->cl < 64 ? e->cl : 64) : 1),
			 e->comm ? e->comm : "-");
	n = asprintf(&line, "%s %.*s %s%.*s%s%.*s%s: %.*s\n", ts, (int)e->hl, e->host ? e->host : "localhost",
		     who, (int)e->il, e->ident ? e->ident : "unknown", e->pid ? "[" : "", (int)e->pl,
		     e->pid ? e->pid : "", e->pid ? "]" : "", (int)e->ml, e->msg);
	if (n < 0)
		return NULL;
	/* a message's own newlines must not start lines of their own */
	for (int i = 0; i < n - 1; i++)
		if (line[i] == '\n' || line[i] == '\r')
			line[i] = ' ';
	*len = (size_t)n;
	return line;
}

/* v[0..nv) oldest first: the three files; frees the pieces.  Returns how
 * many kernel entries there were. */
static long emit(struct piece *v, size_t nv, json_object *files, const char *source,
		 const char *const names[3])
{
	long nk = 0;

	for (int k = J_KERNEL; k <= J_USER; k++) {
		size_t total = 0;
		char *text, *w;

		for (size_t i = 0; i < nv; i++)
			if (v[i].kind == (enum jkind)k)
				total += v[i].n;
		text = w = xmalloc(total + 1);
		for (size_t i = 0; i < nv; i++)
			if (v[i].kind == (enum jkind)k) {
				memcpy(w, v[i].s, v[i].n);
				w += v[i].n;
				nk += k == J_KERNEL;
			}
		add_file(files, names[k], source, korigin[k], text, total);
		free(text);
	}
	for (size_t i = 0; i < nv; i++)
		free(v[i].s);
	free(v);
	return nk;
}

#ifdef HAVE_SYSTEMD
static const char *field(sd_journal *j, const char *name, size_t *len)
{
	const void *d;
	size_t l, nl = strlen(name);

	if (sd_journal_get_data(j, name, &d, &l) < 0 || l <= nl + 1)
		return NULL;
	*len = l - nl - 1;
	return (const char *)d + nl + 1;
}

static long journal_sd(const struct collect_ctx *cx, const char *dir, size_t cap, json_object *files,
		       json_object *cov, const char *const names[3], const char *label)
{
	sd_journal *j = NULL;
	uint64_t from = (uint64_t)(cx->start * 1e6), to = (uint64_t)(cx->end * 1e6), usage = 0;
	struct piece *v = NULL;
	size_t nv = 0, total = 0;
	bool truncated = false, late = false;
	double until = journal_deadline(cx);
	int r;

	r = dir ? sd_journal_open_directory(&j, dir, 0) : sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY);
	if (r < 0) {
		cover(cov, label, COVERAGE_ERROR, "sd_journal_open: %s", strerror(-r));
		return -1;
	}
	if (!have_journal(dir) && (sd_journal_get_usage(j, &usage) < 0 || !usage)) {
		cover(cov, label, COVERAGE_MISSING, "no journal files");
		sd_journal_close(j);
		return -1;
	}
	if ((r = sd_journal_seek_realtime_usec(j, to + 1)) < 0) {
		cover(cov, label, COVERAGE_ERROR, "sd_journal_seek_realtime_usec: %s", strerror(-r));
		sd_journal_close(j);
		return -1;
	}
	for (long k = 0; (r = sd_journal_previous(j)) > 0; k++) {
		struct jentry e = { 0 };
		enum jkind kind;
		char *line;
		size_t n;

		if ((k & 255) == 255 && now_mono() > until) {
			late = true;
			break;
		}
		if (sd_journal_get_realtime_usec(j, &e.t) < 0)
			continue;
		if (e.t < from)
			break;
		if (e.t > to || !(e.msg = field(j, "MESSAGE", &e.ml)))
			continue;
		/* (each field is copied out before the next is asked for: the
		 * data sd_journal_get_data returns is valid until the next call
		 * only, so the line is built from copies) */
		char *ident = NULL, *pid = NULL, *host = NULL, *uid = NULL, *comm = NULL, *tr = NULL,
		     *fac = NULL, *msg = strndup_or_die(e.msg, e.ml);
#define TAKE(var, name, len) \
	do { \
		const char *d_ = field(j, name, &e.len); \
		var = d_ ? strndup_or_die(d_, e.len) : NULL; \
	} while (0)
		TAKE(ident, "SYSLOG_IDENTIFIER", il);
		if (!ident)
			TAKE(ident, "_COMM", il);
		TAKE(pid, "_PID", pl);
		TAKE(host, "_HOSTNAME", hl);
		TAKE(uid, "_UID", ul);
		TAKE(comm, "_COMM", cl);
		TAKE(tr, "_TRANSPORT", tl);
		TAKE(fac, "SYSLOG_FACILITY", fl);
#undef TAKE
		e.msg = msg, e.ident = ident, e.pid = pid, e.host = host, e.uid = uid, e.comm = comm;
		e.transport = tr, e.facility = fac;
		kind = kind_of(&e);
		line = format_entry(&e, kind, &n);
		free(msg), free(ident), free(pid), free(host), free(uid), free(comm), free(tr), free(fac);
		if (!line)
			break;
		if (total + n > cap) {
			free(line);
			truncated = true;
			break;
		}
		v = xrealloc(v, (nv + 1) * sizeof(*v));
		v[nv++] = (struct piece){ line, n, kind };
		total += n;
	}
	if (r < 0)
		cover(cov, label, COVERAGE_ERROR, "sd_journal_previous: %s", strerror(-r));
	sd_journal_close(j);

	for (size_t i = 0; i < nv / 2; i++) { /* oldest first */
		struct piece p = v[i];

		v[i] = v[nv - 1 - i];
		v[nv - 1 - i] = p;
	}
	if (truncated)
		cover(cov, label, COVERAGE_PARTIAL, "more than %zu bytes in the window: kept the last %zu",
		      cap, total);
	if (late)
		cover(cov, label, COVERAGE_PARTIAL, "out of time: kept the last %zu entries", nv);
	return emit(v, nv, files, dir ? dir : NODE_SOURCE_JOURNAL, names);
}
#endif

/* A field of a journalctl -o json entry, copied: a string, or an array of
 * bytes (a value that is not UTF-8), or an array of either (a field the
 * entry has more than once: the first). */
static char *json_field(json_object *o, const char *name, size_t *len)
{
	json_object *v;

	*len = 0;
	if (!json_object_object_get_ex(o, name, &v))
		return NULL;
	if (json_object_is_type(v, json_type_array) && json_object_array_length(v) &&
	    !json_object_is_type(json_object_array_get_idx(v, 0), json_type_int))
		v = json_object_array_get_idx(v, 0);
	if (json_object_is_type(v, json_type_string)) {
		*len = (size_t)json_object_get_string_len(v);
		return strndup_or_die(json_object_get_string(v), *len);
	}
	if (json_object_is_type(v, json_type_array)) {
		size_t n = json_object_array_length(v);
		char *b = xmalloc(n + 1);

		for (size_t i = 0; i < n; i++)
			b[i] = (char)json_object_get_int(json_object_array_get_idx(v, i));
		b[n] = 0;
		*len = n;
		return b;
	}
	return NULL;
}

/* journalctl -o json's lines (oldest first) in [from, to] as pieces. */
static struct piece *parse_json_lines(char *buf, size_t len, uint64_t from, uint64_t to, size_t *nv)
{
	struct piece *v = NULL;

	*nv = 0;
	for (char *p = buf, *end = buf + len; p < end;) {
		char *nl = memchr(p, '\n', end - p), *ts;
		json_object *o;
		struct jentry e = { 0 };
		size_t tsl, n;
		char *line;

		if (nl)
			*nl = 0;
		o = json_tokener_parse(p);
		p = nl ? nl + 1 : end;
		if (!o)
			continue;
		ts = json_field(o, "__REALTIME_TIMESTAMP", &tsl);
		e.t = ts ? strtoull(ts, NULL, 10) : 0;
		free(ts);
		e.msg = json_field(o, "MESSAGE", &e.ml);
		if (e.t >= from && e.t <= to && e.msg) {
			if (!(e.ident = json_field(o, "SYSLOG_IDENTIFIER", &e.il)))
				e.ident = json_field(o, "_COMM", &e.il);
			e.pid = json_field(o, "_PID", &e.pl);
			e.host = json_field(o, "_HOSTNAME", &e.hl);
			e.uid = json_field(o, "_UID", &e.ul);
			e.comm = json_field(o, "_COMM", &e.cl);
			e.transport = json_field(o, "_TRANSPORT", &e.tl);
			e.facility = json_field(o, "SYSLOG_FACILITY", &e.fl);
			enum jkind k = kind_of(&e);
			if ((line = format_entry(&e, k, &n))) {
				v = xrealloc(v, (*nv + 1) * sizeof(*v));
				v[(*nv)++] = (struct piece){ line, n, k };
			}
		}
		free((char *)e.msg), free((char *)e.ident), free((char *)e.pid), free((char *)e.host);
		free((char *)e.uid), free((char *)e.comm), free((char *)e.transport),
			free((char *)e.facility);
		json_object_put(o);
	}
	return v;
}

/* journalctl with a deadline: SIGKILL when it passes. */
static long journal_exec(const struct collect_ctx *cx, const char *dir, size_t cap, json_object *files,
			 json_object *cov, const char *const names[3], const char *label)
{
	const char *jc = access("/usr/bin/journalctl", X_OK) == 0 ? "/usr/bin/journalctl" : "/bin/journalctl";
	char since[64], until_s[64];
	const char *argv[16];
	char *const envp[] = { "PATH=/usr/bin:/bin", "LC_ALL=C", "SYSTEMD_PAGER=", "SYSTEMD_COLORS=0", NULL };
	int out[2], errp[2], argc = 0, status = 0;
	double until = journal_deadline(cx), budget = until - now_mono();
	/* the JSON of an entry is several times the line made of it */
	size_t keep = cap < ((size_t)1 << 40) ? cap * 4 : cap, bufcap = keep + (1 << 20), len = 0, elen = 0;
	char *buf, ebuf[512];
	bool truncated = false, late = false;
	pid_t pid;
	struct piece *v;
	size_t nv, total = 0, first;

	if (!have_journal(dir)) {
		cover(cov, label, COVERAGE_MISSING, "no journal files");
		return -1;
	}
	snprintf(since, sizeof(since), "@%lld", (long long)floor(cx->start));
	snprintf(until_s, sizeof(until_s), "@%lld", (long long)ceil(cx->end));
	argv[argc++] = "journalctl";
	argv[argc++] = "--no-pager";
	argv[argc++] = "-q";
	argv[argc++] = "--utc";
	argv[argc++] = "--all"; /* long and binary values too (else null) */
	argv[argc++] = "-o";
	argv[argc++] = "json";
	argv[argc++] = "--output-fields=MESSAGE,SYSLOG_IDENTIFIER,_PID,_HOSTNAME,_UID,_COMM,_TRANSPORT,"
		       "SYSLOG_FACILITY";
	if (dir) {
		argv[argc++] = "-D";
		argv[argc++] = dir;
	}
	argv[argc++] = "--since";
	argv[argc++] = since;
	argv[argc++] = "--until";
	argv[argc++] = until_s;
	argv[argc] = NULL;
	if (pipe2(out, O_CLOEXEC) || pipe2(errp, O_CLOEXEC)) {
		cover(cov, label, COVERAGE_ERROR, "pipe: %s", strerror(errno));
		return -1;
	}
	if ((pid = fork()) < 0) {
		cover(cov, label, COVERAGE_ERROR, "fork: %s", strerror(errno));
		close(out[0]), close(out[1]), close(errp[0]), close(errp[1]);
		return -1;
	}
	if (pid == 0) {
		int nul = open("/dev/null", O_RDONLY);

		if (nul >= 0)
			dup2(nul, 0);
		dup2(out[1], 1);
		dup2(errp[1], 2);
		execve(jc, (char *const *)argv, envp);
		_exit(127);
	}
	close(out[1]);
	close(errp[1]);
	buf = xmalloc(bufcap);
	for (bool oo = true, eo = true; oo || eo;) {
		struct pollfd p[2] = { { oo ? out[0] : -1, POLLIN, 0 }, { eo ? errp[0] : -1, POLLIN, 0 } };
		double left = until - now_mono();
		int r;

		if (left <= 0) {
			late = true;
			break;
		}
		r = poll(p, 2, (int)(left * 1000) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		if (p[0].revents) {
			ssize_t n;

			if (len == bufcap) { /* keep the newest keep bytes */
				memmove(buf, buf + len - keep, keep);
				len = keep;
				truncated = true;
			}
			n = read(out[0], buf + len, bufcap - len);
			if (n > 0)
				len += (size_t)n;
			else if (n == 0 || errno != EINTR)
				oo = false;
		}
		if (p[1].revents) {
			char tmp[512];
			ssize_t n = read(errp[0], tmp, sizeof(tmp));

			if (n > 0 && elen < sizeof(ebuf) - 1) {
				size_t k = (size_t)n < sizeof(ebuf) - 1 - elen ? (size_t)n
									       : sizeof(ebuf) - 1 - elen;

				memcpy(ebuf + elen, tmp, k);
				elen += k;
			} else if (n <= 0 && (n == 0 || errno != EINTR)) {
				eo = false;
			}
		}
	}
	ebuf[elen] = 0;
	ebuf[strcspn(ebuf, "\n")] = 0;
	if (late)
		kill(pid, SIGKILL);
	close(out[0]);
	close(errp[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (truncated && len) { /* the first line is a piece of an entry */
		char *nl = memchr(buf, '\n', len);

		len = nl ? len - (size_t)(nl + 1 - buf) : 0;
		memmove(buf, nl ? nl + 1 : buf, len);
	}
	if (!late && (!WIFEXITED(status) || WEXITSTATUS(status))) {
		if (WIFEXITED(status))
			cover(cov, label, COVERAGE_ERROR, "journalctl exited with %d%s%s",
			      WEXITSTATUS(status), *ebuf ? ": " : "", ebuf);
		else
			cover(cov, label, COVERAGE_ERROR, "journalctl died of signal %d", WTERMSIG(status));
		free(buf);
		return -1;
	}
	v = parse_json_lines(buf, len, (uint64_t)(cx->start * 1e6), (uint64_t)(cx->end * 1e6), &nv);
	free(buf);
	first = nv; /* the newest entries within cap */
	while (first > 0 && total + v[first - 1].n <= cap)
		total += v[--first].n;
	if (first > 0)
		truncated = true;
	for (size_t i = 0; i < first; i++)
		free(v[i].s);
	if (first)
		memmove(v, v + first, (nv - first) * sizeof(*v));
	nv -= first;
	cover(cov, label, COVERAGE_INFO, "read with journalctl (attrib-collect built without sd-journal)");
	if (late)
		cover(cov, label, COVERAGE_PARTIAL,
		      "journalctl took longer than %.1f s: killed; kept what it wrote", budget);
	if (truncated)
		cover(cov, label, COVERAGE_PARTIAL, "more than %zu bytes in the window: kept the last %zu",
		      cap, total);
	return emit(v, nv, files, dir ? dir : NODE_SOURCE_JOURNAL, names);
}

/* The journal's lines in the window (source "journal", or "journal:DIR"
 * for a directory of journal files) as three files by who wrote them:
 * names[0] the kernel's (_TRANSPORT=kernel), names[1] root's, names[2]
 * other users'.  Returns how many kernel entries it kept, -1 when there
 * was no journal to read. */
static long collect_journal(const struct collect_ctx *cx, const char *src, size_t cap, json_object *files,
			    json_object *cov, const char *const names[3])
{
	const char *dir = !strncmp(src, NODE_SOURCE_JOURNAL ":", 8) && src[8] ? src + 8 : NULL;

#ifdef HAVE_SYSTEMD
	if (!getenv("ATTRIB_COLLECT_JOURNALCTL"))
		return journal_sd(cx, dir, cap, files, cov, names, src);
#endif
	return journal_exec(cx, dir, cap, files, cov, names, src);
}

static bool journal_match(const char *spec)
{
	return !strcmp(spec, NODE_SOURCE_JOURNAL) || !strncmp(spec, NODE_SOURCE_JOURNAL ":", 8);
}

static bool journal_available(const char *spec)
{
	return have_journal(!strncmp(spec, NODE_SOURCE_JOURNAL ":", 8) && spec[8] ? spec + 8 : NULL);
}

static void journal_collect(const struct collect_ctx *cx, const char *spec, struct source_out *out)
{
	const char *const names[3] = { unique_name(out->used, "kernel.log"),
				       unique_name(out->used, "journal.log"),
				       unique_name(out->used, "journal-user.log") };
	long n = collect_journal(cx, spec, out->cap, out->files, out->cov, names);

	if (n >= 0) {
		/* journald reads the kernel's ring (ReadKMsg=yes, its default) */
		out->kernel_log = true;
		out->kernel_entries += n;
	}
}

static const char *const journal_defaults[] = { NODE_SOURCE_JOURNAL, NULL };

const struct evidence_source source_journal = {
	.name = NODE_SOURCE_JOURNAL,
	.match = journal_match,
	.defaults = journal_defaults,
	.available = journal_available,
	.collect = journal_collect,
};
