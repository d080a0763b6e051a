/* A node log line as a message: who wrote it and where its text starts.
 *
 * The kernel and root daemons print text that users choose (a process
 * name in a segfault line, a mount option, a user name in sshd's log), so
 * a rule for a kernel or daemon message must read the message its writer
 * emitted, from its first byte, and only when that writer is the one it
 * expects (doc/rule-format.md, "writer" and "origin").  This file splits
 * the line's header (timestamp, host, syslog tag or the collector's
 * journal fields, the kernel's own timestamp) from the message; the
 * extractors of kernel and daemon rules then run anchored on the message.
 *
 * The forms read here are the ones attrib's collector writes and the ones
 * administrators paste (formats.md, "Node log lines"):
 *   TIME HOST kernel: [ 123.456] msg            syslog, journalctl short
 *   TIME HOST [_UID=0 _COMM=sshd] sshd[9]: msg  the collector's journal entries
 *   [Sun Nov 29 08:12:01 2026] msg              dmesg -T
 *   [ 5321.123456] msg, [  +0.000123] msg       dmesg, dmesg -d/-H deltas
 *   [Nov29 08:12] msg                           dmesg -H
 *   <3>msg, kern  :err   : msg                  dmesg -r, dmesg -x
 *   kernel: msg, HOST kernel: msg               pasted without a time
 *   [ 5321.123456] HOST kernel: msg             journalctl -o short-monotonic
 *   HOST: <any of the above>                    pdsh/clush output
 *   HOST: kern: warning: [2026-...Z]: msg        talosctl dmesg
 */
#include <ctype.h>
#include <string.h>
#include "internal.h"

static size_t skip_spaces(const char *s, size_t len, size_t i)
{
	while (i < len && s[i] == ' ')
		i++;
	return i;
}

/* "[ 5321.123456] " or "[  +0.000123] " (dmesg, its -d and -H deltas),
 * "[Nov29 08:12] " (dmesg -H): their length, or 0 */
static size_t kernel_stamp(const char *s, size_t len)
{
	size_t i = 1, d = 0;

	if (len < 3 || s[0] != '[')
		return 0;
	i = skip_spaces(s, len, i);
	if (i < len && s[i] == '+')
		i++;
	while (i < len && isdigit((unsigned char)s[i]))
		i++, d++;
	if (d && i < len && s[i] == '.') {
		for (i++, d = 0; i < len && isdigit((unsigned char)s[i]); i++)
			d++;
	} else if (len >= 14 && isupper((unsigned char)s[1]) && islower((unsigned char)s[2]) &&
		   islower((unsigned char)s[3]) && isdigit((unsigned char)s[4]) &&
		   isdigit((unsigned char)s[5]) && s[6] == ' ' && isdigit((unsigned char)s[7]) &&
		   isdigit((unsigned char)s[8]) && s[9] == ':' && isdigit((unsigned char)s[10]) &&
		   isdigit((unsigned char)s[11])) {
		i = 12; /* [Nov29 08:12] */
		d = 1;
	} else {
		return 0;
	}
	if (!d || i >= len || s[i] != ']')
		return 0;
	return skip_spaces(s, len, i + 1);
}

/* dmesg -r's "<3>" and dmesg -x's "kern  :err   : " */
static size_t level_prefix(const char *s, size_t len)
{
	static const char *const facilities[] = { "kern",     "user",	"mail",	  "daemon", "auth",
						  "syslog",   "lpr",	"news",	  "uucp",   "cron",
						  "authpriv", "ftp",	"local0", "local1", "local2",
						  "local3",   "local4", "local5", "local6", "local7",
						  NULL };
	static const char *const levels[] = { "emerg",	 "alert",  "crit", "err",   "warn",
					      "warning", "notice", "info", "debug", NULL };
	const char *const *names[] = { facilities, levels };
	size_t i = 0;

	if (len >= 3 && s[0] == '<' && isdigit((unsigned char)s[1])) {
		for (i = 1; i < len && i < 5 && isdigit((unsigned char)s[i]); i++)
			;
		return i < len && s[i] == '>' ? i + 1 : 0;
	}
	for (int part = 0; part < 2; part++) {
		size_t w = i;
		bool known = false;

		while (i < len && (islower((unsigned char)s[i]) || isdigit((unsigned char)s[i])))
			i++;
		for (int k = 0; names[part][k] && !known; k++)
			known = strlen(names[part][k]) == i - w && !memcmp(s + w, names[part][k], i - w);
		if (!known)
			return 0;
		i = skip_spaces(s, len, i);
		if (i >= len || s[i] != ':')
			return 0;
		i = skip_spaces(s, len, i + 1);
	}
	return i;
}

/* A host name or a syslog tag: a run of these, as syslog and journald
 * print them (no space, no colon, no bracket). */
static size_t word(const char *s, size_t len, size_t i)
{
	size_t b = i;

	while (i < len && s[i] != ' ' && s[i] != ':' && s[i] != '[' && s[i] != ']' &&
	       (unsigned char)s[i] >= 0x20)
		i++;
	return i - b;
}

/* "TAG: " or "TAG[PID]: " at i: its end (the message's start), 0 if none;
 * the tag is s[i, *tag_end). */
static size_t tag_at(const char *s, size_t len, size_t i, size_t *tag_end)
{
	size_t n = word(s, len, i);

	if (!n)
		return 0;
	*tag_end = i + n;
	i += n;
	if (i < len && s[i] == '[') {
		size_t d = ++i;

		while (i < len && isdigit((unsigned char)s[i]))
			i++;
		if (i == d || i >= len || s[i] != ']')
			return 0;
		i++;
	}
	if (i >= len || s[i] != ':' || (i + 1 < len && s[i + 1] != ' '))
		return 0;
	return i + 1 < len ? i + 2 : i + 1;
}

static bool is_kernel(const char *s, size_t n)
{
	return n == 6 && !memcmp(s, "kernel", 6);
}

/* the collector's journal fields: "[_UID=0 _COMM=sshd] " at i; _COMM is
 * journald's own (the process's comm), so it names the writer.  Where
 * they end (0: none). */
static size_t journal_fields(const char *s, size_t len, size_t i, struct line_msg *m)
{
	const char *c, *e;

	if (len - i < 7 || memcmp(s + i, "[_UID=", 6))
		return 0;
	e = memchr(s + i, ']', len - i);
	c = e ? memmem(s + i, (size_t)(e - (s + i)), " _COMM=", 7) : NULL;
	if (!c)
		return 0;
	m->writer = c + 7;
	m->wlen = (size_t)(e - m->writer);
	m->journal = true;
	return skip_spaces(s, len, (size_t)(e - s) + 1);
}

/* Kernel messages that begin with a process's name, which its user chose
 * (up to 15 bytes, any of them): "COMM[PID]: segfault at ...", "traps:
 * COMM[PID] general protection fault ...", "COMM (PID): drop_caches: 3",
 * "COMM invoked oom-killer: ...".  The length of "traps: COMM", 0 when
 * the message is not one of them; *comm is where COMM starts. */
static size_t comm_led(const char *s, size_t len, size_t *comm)
{
	size_t base = len >= 7 && !memcmp(s, "traps: ", 7) ? 7 : 0;

	*comm = base;
	for (size_t i = base + 1; i <= base + 15 && i < len; i++) {
		size_t k = i;

		if (s[k] == ' ' && k + 1 < len && s[k + 1] == '(')
			k++;
		if (s[k] == '[' || (s[k] == '(' && k > i)) {
			char close = s[k] == '[' ? ']' : ')';
			size_t d = ++k;

			while (k < len && isdigit((unsigned char)s[k]))
				k++;
			if (k > d && k + 1 < len && s[k] == close && (s[k + 1] == ':' || s[k + 1] == ' '))
				return i;
		}
		if (len - i >= 21 && !memcmp(s + i, " invoked oom-killer: ", 21))
			return i;
	}
	return 0;
}

size_t line_host_prefix(const struct timectx *tc, const char *line, size_t len)
{
	size_t h = word(line, len, 0), n, te, n2, lv;
	double t;

	if (!h || !(n = tag_at(line, len, 0, &te)) || te != h || n >= len)
		return 0;
	/* then the levels of dmesg -x or talosctl dmesg ("kern: warning: ") */
	lv = level_prefix(line + n, len - n);
	if (!lv && !(line[n] == '[' || isdigit((unsigned char)line[n]) || isupper((unsigned char)line[n])))
		return 0;
	n += lv;
	return time_parse_header(tc, line + n, len - n, &t, &n2) || kernel_stamp(line + n, len - n) ? n : 0;
}

void line_message(const struct timectx *tc, const char *line, size_t len, struct line_msg *m)
{
	size_t pos = 0, n, te;
	double t;

	memset(m, 0, sizeof(*m));
	for (int round = 0; round < 2; round++) {
		pos += level_prefix(line + pos, len - pos);
		if (time_parse_header(tc, line + pos, len - pos, &t, &n)) {
			bool bracketed = line[pos] == '[';

			pos += n;
			if (bracketed && pos < len && line[pos] == ':')
				pos = skip_spaces(line, len, pos + 1);
			if (!bracketed) {
				/* syslog: HOST [journal fields] TAG[PID]: */
				size_t h = word(line, len, pos), at = pos;

				m->header = true;
				if (h && pos + h < len && line[pos + h] == ' ') {
					at = skip_spaces(line, len, pos + h);
					n = journal_fields(line, len, at, m);
					if (n)
						at = n;
					size_t end = tag_at(line, len, at, &te);
					if (end) {
						if (!m->journal) {
							m->writer = line + at;
							m->wlen = te - at;
						}
						pos = end;
					}
				}
				if (!m->writer) { /* a header whose writer cannot be told */
					m->writer = "";
					m->wlen = 0;
				}
			}
			break;
		}
		/* pasted without a time: "kernel: msg", "HOST kernel: msg" (a word
		 * and a space before it is the host); journalctl -o
		 * short-monotonic puts the kernel's stamp first (a dmesg line
		 * whose message began "HOST kernel: " would read the same) */
		size_t at = pos + kernel_stamp(line + pos, len - pos);
		size_t h = word(line, len, at), k = at;

		if (h && at + h + 1 < len && line[at + h] == ' ')
			k = skip_spaces(line, len, at + h);
		if (h && (n = tag_at(line, len, k, &te)) && is_kernel(line + k, te - k)) {
			pos = n;
			m->writer = "kernel";
			m->wlen = 6;
			m->header = true;
			break;
		}
		/* pdsh/clush: "HOST: " before a line that has a header of its own */
		if (round == 0 && (n = line_host_prefix(tc, line, len))) {
			pos = n;
			continue;
		}
		break;
	}
	/* the kernel's own timestamp after "kernel:", or dmesg's without one */
	if (!m->writer || is_kernel(m->writer, m->wlen)) {
		size_t c;

		pos += kernel_stamp(line + pos, len - pos);
		/* the user's part is no kernel message: rules read after it */
		if ((n = comm_led(line + pos, len - pos, &c))) {
			m->comm = line + pos + c;
			m->comm_len = n - c;
		}
		m->start = pos;
		m->kernel_start = pos + n;
		return;
	}
	m->start = m->kernel_start = pos;
}

/* A daemon's message starts where its writer's text starts, after what
 * daemons put before it: "[2026-11-29T08:00:01.212] [4242.batch] error:
 * _run_prolog: ...", "slurmstepd-gpu017: error: ...", "[ERROR] [tid 841]
 * detected ...", "ERROR:  nhc:  Health check failed: ...".  Each such
 * prefix ends a place where the rule may begin (never inside free text):
 * their offsets into line, the message's own first; how many. */
int line_message_starts(const char *line, size_t len, const struct line_msg *m, size_t *starts, int max)
{
	size_t p = m->start;
	int n = 0;

	if (max < 1)
		return 0;
	starts[n++] = p;
	while (n < max && p < len) {
		size_t q = p;

		if (line[q] == '[') { /* [time], [job.step], [ERROR], [tid 841] */
			const char *e = memchr(line + q, ']', len - q < 66 ? len - q : 66);

			if (!e || e == line + q + 1)
				break;
			q = (size_t)(e - line) + 1;
		} else { /* a word and a colon: a level, the daemon's name, a function */
			while (q < len && q - p <= 40 &&
			       (isalnum((unsigned char)line[q]) || line[q] == '_' || line[q] == '-' ||
				line[q] == '.'))
				q++;
			if (q > p && q < len && line[q] == '[') { /* a tag: "nhc[991]:" */
				size_t d = q + 1;

				while (d < len && isdigit((unsigned char)line[d]))
					d++;
				if (d > q + 1 && d < len && line[d] == ']')
					q = d + 1;
			}
			if (q == p || q >= len || line[q] != ':')
				break;
			q++;
		}
		if (q >= len || line[q] != ' ')
			break;
		q = skip_spaces(line, len, q);
		starts[n++] = p = q;
	}
	return n;
}

size_t line_quoted_kernel(const struct timectx *tc, const char *line, size_t len, const struct line_msg *m,
			  double *t)
{
	/* the kernel's own lines (a stamp, a level, a header) are read as
	 * they are: a user's string inside one is no message of the kernel */
	if (m->header || m->writer || m->start || !len || !isalpha((unsigned char)line[0]))
		return 0;
	if (len > 1024) /* an alert's preamble is short */
		len = 1024;
	for (size_t p = 1; p + 1 < len; p++) {
		struct line_msg q;
		size_t n;

		if (line[p - 1] != ' ' || !time_parse_header(tc, line + p, len - p, t, &n))
			continue;
		line_message(tc, line + p, len - p, &q);
		if (q.header && q.writer && is_kernel(q.writer, q.wlen))
			return p + q.kernel_start;
	}
	return 0;
}

bool line_writer_is(const struct line_msg *m, const char *name, size_t n)
{
	if (!m->writer)
		return true; /* the line names no writer: its file's origin says who */
	if (m->wlen == n && !memcmp(m->writer, name, n))
		return true;
	/* journald's _COMM is the kernel's comm: 15 bytes at most */
	return m->journal && m->wlen == 15 && n > 15 && !memcmp(m->writer, name, 15);
}
