/* The logger: see log.h. */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include "log.h"
#include "text.h"
#include "timefmt.h"

static int log_fd = 2;
static bool log_syslog;
static enum log_level log_max = LOGL_INFO;
static bool log_to_stderr_too;
static char log_ident[32] = "attrib";
static char log_context[80];
static void (*log_writer)(int priority, const char *msg);

void log_set_syslog_writer(void (*writer)(int priority, const char *msg))
{
	log_writer = writer;
}

void log_set_ident(const char *ident)
{
	snprintf(log_ident, sizeof(log_ident), "%s", ident);
}

int log_open(const char *path, mode_t mode, bool use_syslog)
{
	if (path && *path) {
		int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, mode);

		if (fd < 0)
			return -1;
		if (log_fd > 2)
			close(log_fd);
		log_fd = fd;
		log_syslog = false;
	} else if (use_syslog) {
		openlog(log_ident, LOG_PID, LOG_DAEMON);
		log_syslog = true;
	}
	return 0;
}

void log_set_context(const char *context)
{
	snprintf(log_context, sizeof(log_context), "%s", context ? context : "");
}

void log_set_level(enum log_level max)
{
	log_max = max;
}

void log_tee(bool on)
{
	log_to_stderr_too = on;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	static const char *names[] = { "error", "warning", "info", "debug" };
	static const int prio[] = { LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG };
	char msg[2048], line[2300], ts[40];
	va_list ap;
	int n;

	if (level > log_max)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	char *clean = text_clean(msg, strlen(msg), sizeof(msg) - 8);

	snprintf(msg, sizeof(msg), "%s%s%s", log_context, *log_context ? ": " : "", clean);
	free(clean);
	if (log_to_stderr_too && level <= LOGL_WARNING && (log_syslog || log_fd != 2))
		fprintf(stderr, "%s: %s: %s\n", log_ident, names[level], msg);
	if (log_syslog) {
		if (log_writer)
			log_writer(prio[level], msg);
		else
			syslog(prio[level], "%s", msg);
		return;
	}
	time_format_sec(time(NULL), ts, sizeof(ts));
	n = snprintf(line, sizeof(line), "%s %s[%d]: %s: %s\n", ts, log_ident, (int)getpid(), names[level],
		     msg);
	if (n > (int)sizeof(line) - 1)
		n = sizeof(line) - 1;
	if (write(log_fd, line, n) < 0) {
		/* nowhere else to say it */
	}
}
