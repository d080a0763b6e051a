/* attrib-collect --health: the node's health check, from slurmd's
 * HealthCheckProgram (which slurmd runs on drained nodes too).  Runs
 * HealthCheck (attrib.conf, root's: split at blanks, executed directly,
 * never by a shell) in a process group of its own with HealthCheckTimeout,
 * keeps the end of its output, and POSTs the outcome to attribd with a
 * MUNGE credential ("attrib-health:v1:NODE:SHA256") within a few seconds;
 * exits with the check's status (124 when it timed out, 127 when it could
 * not run), so that a wrapper HealthCheckProgram can act on it too.
 *
 * Never an outbox: a report is about the node now; one delivered later
 * would vouch for a state the node may have left (the next run of
 * HealthCheckInterval sends a fresh one). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>
#include "conf.h"
#include "contract.h"
#include "text.h"
#include "timefmt.h"
#include "collect.h"

#define MAX_ARGS 64
#define SEND_SECONDS 5.0  /* the report's own time limit */
#define DRAIN_SECONDS 1.0 /* after the check exits: its output still held by a child */

/* The end of the output: a ring of HEALTH_OUTPUT_MAX bytes. */
struct tail {
	char buf[HEALTH_OUTPUT_MAX];
	size_t len, start; /* start: the oldest byte when full */
};

static void tail_add(struct tail *t, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (t->len < sizeof(t->buf))
			t->buf[t->len++] = p[i];
		else {
			t->buf[t->start] = p[i];
			t->start = (t->start + 1) % sizeof(t->buf);
		}
	}
}

static char *tail_text(const struct tail *t)
{
	char lin[HEALTH_OUTPUT_MAX];

	size_t n = t->len;

	for (size_t i = 0; i < n; i++)
		lin[i] = t->buf[(t->start + i) % sizeof(t->buf)];
	while (n && strchr("\r\n\t ", lin[n - 1]))
		n--;
	return text_clean(lin, n, HEALTH_OUTPUT_MAX);
}

static int split(char *line, char **argv)
{
	int n = 0;

	for (char *tok = strtok(line, " \t"); tok && n < MAX_ARGS; tok = strtok(NULL, " \t"))
		argv[n++] = tok;
	argv[n] = NULL;
	return n;
}

struct outcome {
	int status;
	bool timed_out;
	long duration_ms;
};

/* Runs argv with a time limit; the output's end in t.  -1 with why when it
 * cannot be started. */
static int run(char **argv, double timeout, struct tail *t, struct outcome *o, char *why, size_t whylen)
{
	int p[2], st = 0;
	double t0 = now_mono(), limit = t0 + timeout, eof_by = 0;
	pid_t pid;
	bool exited = false, eof = false;

	if (pipe2(p, O_CLOEXEC) < 0) {
		snprintf(why, whylen, "pipe: %s", strerror(errno));
		return -1;
	}
	if ((pid = fork()) < 0) {
		snprintf(why, whylen, "fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		setpgid(0, 0);
		signal(SIGPIPE, SIG_DFL);
		if (null >= 0)
			dup2(null, 0);
		dup2(p[1], 1);
		dup2(p[1], 2);
		execv(argv[0], argv);
		dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid); /* (either side may win the race) */
	close(p[1]);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	while (!(exited && (eof || now_mono() >= eof_by))) {
		double left = (exited ? eof_by : limit) - now_mono();
		struct pollfd pfd = { .fd = p[0], .events = POLLIN };

		if (!exited && left <= 0) {
			/* the whole group: a check's own children go too */
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			o->timed_out = true;
			break;
		}
		if (!eof && poll(&pfd, 1, left > 0.2 || left <= 0 ? 200 : (int)(left * 1000) + 1) > 0) {
			char buf[4096];
			ssize_t n = read(p[0], buf, sizeof(buf));

			if (n > 0)
				tail_add(t, buf, (size_t)n);
			else if (n == 0)
				eof = true;
		} else if (eof)
			usleep(50000);
		if (!exited && waitpid(pid, &st, WNOHANG) == pid) {
			exited = true;
			eof_by = now_mono() + DRAIN_SECONDS;
		}
	}
	if (exited && !eof)
		kill(-pid, SIGKILL); /* a leftover child holding the output */
	close(p[0]);
	o->duration_ms = (long)((now_mono() - t0) * 1000);
	o->status = o->timed_out  ? 124
		: WIFEXITED(st)	  ? WEXITSTATUS(st)
		: WIFSIGNALED(st) ? 128 + WTERMSIG(st)
				  : 1;
	return 0;
}

int health_main(const struct attrib_config *conf, struct collect_ctx *cx, bool print)
{
	char line[4096], *argv[MAX_ARGS + 1], why[512] = "", err[1024];
	struct tail *t = calloc(1, sizeof(*t));
	struct outcome o = { 0 };
	const char *cmd = conf->health_check;
	int rc;

	if (!t)
		return 1;
	if (!cmd || !*cmd) {
		clog_msg("health: HealthCheck is not set in attrib.conf; nothing to run or report");
		free(t);
		return 0;
	}
	snprintf(line, sizeof(line), "%s", cmd);
	if (split(line, argv) == 0 || argv[0][0] != '/') {
		snprintf(why, sizeof(why), "HealthCheck %s: the program must be an absolute path", cmd);
		o.status = 127;
	} else if (run(argv, conf->health_check_timeout > 0 ? (double)conf->health_check_timeout : 45.0, t,
		       &o, why, sizeof(why)) < 0)
		o.status = 127;
	if (why[0])
		tail_add(t, why, strlen(why));

	json_object *r = json_object_new_object();
	char *out = tail_text(t);

	json_object_object_add(r, "schema", json_object_new_string(ATTRIB_HEALTH_SCHEMA));
	json_object_object_add(r, "node", json_object_new_string(cx->node));
	char when[64];

	time_format_sec(time(NULL), when, sizeof(when));
	json_object_object_add(r, "checked", json_object_new_string(when));
	json_object_object_add(r, "command", json_object_new_string(cmd));
	json_object_object_add(r, "status", json_object_new_int(o.status));
	json_object_object_add(r, "timed_out", json_object_new_boolean(o.timed_out));
	json_object_object_add(r, "duration_ms", json_object_new_int64(o.duration_ms));
	json_object_object_add(r, "output", json_object_new_string(out));
	free(out);
	const char *body = json_object_to_json_string_ext(r, JSON_C_TO_STRING_PLAIN);
	clog_msg("health: %s: %s (status %d, %ld ms)", cmd,
		 o.status == 0 && !o.timed_out ? "passed"
			 : o.timed_out	       ? "timed out"
					       : "failed",
		 o.status, o.duration_ms);
	if (print)
		printf("%s\n", body);
	else if (send_body(cx, NULL, cx->node, body, strlen(body), now_mono() + SEND_SECONDS, 4, err,
			   sizeof(err)) != SEND_OK)
		clog_msg("health: report not sent (%s); the next health check sends a fresh one", err);
	rc = o.status;
	json_object_put(r);
	free(t);
	return rc;
}
