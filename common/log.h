/* The one logger of attrib's programs (attribd, attrib-collect):
 * "TIME IDENT[PID]: LEVEL: [CONTEXT: ]MESSAGE", one write per line, the
 * message cleaned by text_clean (a user's string with a newline, ESC or a
 * bidi control never forges a line nor rewrites a terminal).  To a file,
 * to syslog, or to standard error (the default).  Thread-safe. */
#ifndef ATTRIB_LOG_H
#define ATTRIB_LOG_H

#include <stdbool.h>
#include <sys/types.h>

enum log_level { LOGL_ERROR, LOGL_WARNING, LOGL_INFO, LOGL_DEBUG };

/* The program's name in each line ("attrib" until set). */
void log_set_ident(const char *ident);
/* Appends to path (created with mode, O_NOFOLLOW) when path is set, else
 * to syslog when use_syslog, else standard error.  0, or -1 with errno
 * (the log stays where it was). */
int log_open(const char *path, mode_t mode, bool use_syslog);
/* What writes a line in syslog(3)'s stead when the log is syslog (the
 * collector's: the journal, with the job in a field); NULL: syslog(3). */
void log_set_syslog_writer(void (*writer)(int priority, const char *msg));
/* A prefix for every message from now on ("job 42"); NULL: none. */
void log_set_context(const char *context);
void log_set_level(enum log_level max);
/* Errors and warnings also to standard error (while starting). */
void log_tee(bool on);
void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
