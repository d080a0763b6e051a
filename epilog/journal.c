/* The systemd journal as a log source of attrib-collect.
 *
 * With libsystemd (sd-journal) the window is read in-process, from the
 * job's end backwards, so the cap keeps the entries nearest the end.
 * Without it, journalctl runs with a deadline (killed when it passes),
 * and the coverage says so.  Lines look like journalctl -o
 * short-iso-precise --utc: "2026-11-29T08:12:01.331270+00:00 host ident[pid]: msg". */
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
#include "internal.h"
#include "collect.h"
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

struct piece {
	char *s;
	size_t n;
};

static void journal_sd(const struct collect_ctx *cx, const char *dir, size_t cap, json_object *files,
		       json_object *cov, const char *name, const char *label)
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
		cover(cov, label, "error", "sd_journal_open: %s", strerror(-r));
		return;
	}
	if (!have_journal(dir) && (sd_journal_get_usage(j, &usage) < 0 || !usage)) {
		cover(cov, label, "missing", "no journal files");
		sd_journal_close(j);
		return;
	}
	if ((r = sd_journal_seek_realtime_usec(j, to + 1)) < 0) {
		cover(cov, label, "error", "sd_journal_seek_realtime_usec: %s", strerror(-r));
		sd_journal_close(j);
		return;
	}
	for (long k = 0; (r = sd_journal_previous(j)) > 0; k++) {
		uint64_t t;
		size_t ml = 0, il = 0, pl = 0, hl = 0;
		const char *msg, *ident, *pid, *host;
		char ts[64], *line;
		time_t sec;
		struct tm tm;
		int n;

		if ((k & 255) == 255 && now_mono() > until) {
			late = true;
			break;
		}
		if (sd_journal_get_realtime_usec(j, &t) < 0)
			continue;
		if (t < from)
			break;
		if (t > to || !(msg = field(j, "MESSAGE", &ml)))
			continue;
		if (!(ident = field(j, "SYSLOG_IDENTIFIER", &il)))
			ident = field(j, "_COMM", &il);
		pid = field(j, "_PID", &pl);
		host = field(j, "_HOSTNAME", &hl);
		sec = (time_t)(t / 1000000);
		gmtime_r(&sec, &tm);
		strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
		n = asprintf(&line, "%s.%06u+00:00 %.*s %.*s%s%.*s%s: %.*s\n", ts, (unsigned)(t % 1000000),
			     (int)hl, host ? host : "localhost", (int)il, ident ? ident : "unknown",
			     pid ? "[" : "", (int)pl, pid ? pid : "", pid ? "]" : "", (int)ml, msg);
		if (n < 0)
			break;
		if (total + (size_t)n > cap) {
			free(line);
			truncated = true;
			break;
		}
		v = xrealloc(v, (nv + 1) * sizeof(*v));
		v[nv].s = line;
		v[nv++].n = (size_t)n;
		total += (size_t)n;
	}
	if (r < 0)
		cover(cov, label, "error", "sd_journal_previous: %s", strerror(-r));
	sd_journal_close(j);

	char *text = xmalloc(total + 1), *w = text;

	for (size_t i = nv; i-- > 0;) {	/* oldest first */
		memcpy(w, v[i].s, v[i].n);
		w += v[i].n;
		free(v[i].s);
	}
	free(v);
	add_file(files, name, dir ? dir : "journal", text, total);
	free(text);
	if (truncated)
		cover(cov, label, "partial", "more than %zu bytes in the window: kept the last %zu", cap, total);
	if (late)
		cover(cov, label, "partial", "out of time: kept the last %zu entries", nv);
}
#endif

/* journalctl with a deadline: SIGKILL when it passes. */
static void journal_exec(const struct collect_ctx *cx, const char *dir, size_t cap, json_object *files,
			 json_object *cov, const char *name, const char *label)
{
	const char *jc = access("/usr/bin/journalctl", X_OK) == 0 ? "/usr/bin/journalctl" : "/bin/journalctl";
	char since[64], until_s[64];
	const char *argv[16];
	char *const envp[] = { "PATH=/usr/bin:/bin", "LC_ALL=C", "SYSTEMD_PAGER=", "SYSTEMD_COLORS=0", NULL };
	int out[2], errp[2], argc = 0, status = 0;
	double until = journal_deadline(cx), budget = until - now_mono();
	size_t bufcap = cap + (1 << 20), len = 0, elen = 0;
	char *buf, ebuf[512];
	bool truncated = false, late = false;
	pid_t pid;

	if (!have_journal(dir)) {
		cover(cov, label, "missing", "no journal files");
		return;
	}
	snprintf(since, sizeof(since), "@%lld", (long long)floor(cx->start));
	snprintf(until_s, sizeof(until_s), "@%lld", (long long)ceil(cx->end));
	argv[argc++] = "journalctl";
	argv[argc++] = "--no-pager";
	argv[argc++] = "-q";
	argv[argc++] = "--utc";
	argv[argc++] = "-o";
	argv[argc++] = "short-iso-precise";
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
		cover(cov, label, "error", "pipe: %s", strerror(errno));
		return;
	}
	if ((pid = fork()) < 0) {
		cover(cov, label, "error", "fork: %s", strerror(errno));
		close(out[0]), close(out[1]), close(errp[0]), close(errp[1]);
		return;
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

			if (len == bufcap) {	/* keep the newest cap bytes */
				memmove(buf, buf + len - cap, cap);
				len = cap;
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
				size_t k = (size_t)n < sizeof(ebuf) - 1 - elen ? (size_t)n : sizeof(ebuf) - 1 - elen;

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
	if (len > cap) {
		char *from = buf + len - cap, *nl = memchr(from, '\n', cap);

		if (nl)
			from = nl + 1;
		len -= (size_t)(from - buf);
		memmove(buf, from, len);
		truncated = true;
	}
	if (!late && (!WIFEXITED(status) || WEXITSTATUS(status))) {
		if (WIFEXITED(status))
			cover(cov, label, "error", "journalctl exited with %d%s%s", WEXITSTATUS(status),
			      *ebuf ? ": " : "", ebuf);
		else
			cover(cov, label, "error", "journalctl died of signal %d", WTERMSIG(status));
		free(buf);
		return;
	}
	add_file(files, name, dir ? dir : "journal", buf, len);
	free(buf);
	cover(cov, label, "info", "read with journalctl (attrib-collect built without sd-journal)");
	if (late)
		cover(cov, label, "partial", "journalctl took longer than %.1f s: killed; kept what it wrote",
		      budget);
	if (truncated)
		cover(cov, label, "partial", "more than %zu bytes in the window: kept the last %zu", cap, len);
}

void collect_journal(const struct collect_ctx *cx, const char *src, size_t cap, json_object *files,
		     json_object *cov, const char *name)
{
	const char *dir = !strncmp(src, "journal:", 8) && src[8] ? src + 8 : NULL;

#ifdef HAVE_SYSTEMD
	if (!getenv("ATTRIB_COLLECT_JOURNALCTL")) {
		journal_sd(cx, dir, cap, files, cov, name, src);
		return;
	}
#endif
	journal_exec(cx, dir, cap, files, cov, name, src);
}
