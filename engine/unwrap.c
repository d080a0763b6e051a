/* Messages broken over several physical lines, joined again before rules
 * read them (doc/rule-format.md, "What rules read of a line").
 *
 * A terminal cuts a long line at its width, mid-word; a poster's mail or
 * forum client cuts it at a space; a pasted kernel or NCCL message then
 * goes on on a line that carries no header while every line around it
 * does.  Rules must read "GPU has fal" + "len off the bus." as the one
 * message the driver printed.
 *
 * When a line joins the one before it (a continuation):
 *   - only the line right before it, in the same file, and only when that
 *     one is not empty; a message is at most UNWRAP_LINES physical lines;
 *   - in a node file whose lines have a header (a time, a host and a tag,
 *     a kernel stamp, dmesg's level: message.c), a line without one (and a
 *     line without one begins no message).  A line with a header of its own is a message of its own, whoever wrote
 *     it, so no other writer's line ever becomes part of the one before;
 *     the joined message keeps its first line's header, hence its writer;
 *   - in a file whose lines have none (application output), a line after
 *     one that ends exactly at a terminal's width, when no line of the
 *     file is longer (a terminal shows no longer line), and the cut falls
 *     inside a word (letters or digits on both sides: a line that merely
 *     has the width, "... TIME LIMIT ***", is not joined to "srun: ..."),
 *     and the line does not begin as a message does ("WORD:": a post
 *     that cut a long line short, "... unhandled syst", goes on with
 *     "ncclSystemError: ...", a message of its own); or a line after one
 *     that ends with "NCCL WARN" (NCCL prints no WARN without a message:
 *     a poster broke the line there), on the same two conditions.
 * The join adds nothing where the line before ends at the file's width (a
 * terminal's cut, mid-word), one space elsewhere (a cut at a space whose
 * trailing blank the copy dropped), the continuation's leading blanks (a
 * journal's indentation) taken out.
 *
 * Trust: only a case made by hand (a file evidence.json does not list) is
 * unwrapped.  attrib's collector writes one record a line, so a line
 * without a header in a file it wrote is no wrap but whatever someone
 * wrote there; its files are never joined (and cost nothing here).  In a
 * pasted journal a user's multi-line entry is indented under its own
 * header: it joins the user's line, never the kernel's.
 *
 * Speed: a line whose first bytes have the shape of a line already seen
 * with a header (a "signature": its first four bytes, any digit for a
 * digit: "9999" for 2026-..., "Nov ", "[ 99") is taken as headed without
 * reading its header; only lines of another shape are read (a log of one
 * format reads a few).  A node log whose lines all begin as those its
 * headers were seen on (their first two bytes) is passed in one vector
 * pass, not a step a line.  The cost of the shortcut: a continuation
 * that begins as the file's headers do ("2 more ..." in a log of
 * 2026-... times, "Nov" in one of Nov 29 ...) is read as a line of its
 * own.  A file of more than UNWRAP_FILE_MAX bytes is not looked at
 * (scan.c).  scan.c runs the prefilter on a joined message itself, so a
 * literal the wrap cut in two is found. */
#include <ctype.h>
#include <stdint.h>
#include <string.h>
#include "internal.h"

#define SIG_CACHE 16		/* shapes of headed lines: the months of a year, dmesg -T's week days */
#define EMPTY_WARN " NCCL WARN" /* a line's end: NCCL prints no WARN without a message */
#define DIGIT 1			/* a digit in a signature */

/* the widths terminals are commonly set to */
bool unwrap_terminal_width(size_t w)
{
	static const size_t widths[] = { 80, 100, 120, 132, 160, 200, 240 };

	for (size_t i = 0; i < sizeof(widths) / sizeof(*widths); i++)
		if (w == widths[i])
			return true;
	return false;
}

static size_t line_end(const char *buf, size_t len, size_t start)
{
	const char *nl = memchr(buf + start, '\n', len - start);

	return nl ? (size_t)(nl - buf) : len;
}

/* the bytes of a line without its CR */
static size_t bytes_of(const char *s, size_t len)
{
	while (len && s[len - 1] == '\r')
		len--;
	return len;
}

/* The columns a terminal shows a line in: its bytes less ANSI sequences
 * and UTF-8 continuation bytes. */
size_t unwrap_columns(const char *s, size_t len)
{
	size_t n = 0;

	len = bytes_of(s, len);
	if (!memchr(s, '\x1b', len)) {
		for (size_t i = 0; i < len; i++)
			n += ((unsigned char)s[i] & 0xc0) != 0x80;
		return n;
	}
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\x1b' && i + 1 < len && s[i + 1] == '[') {
			for (i += 2; i < len && (unsigned char)s[i] >= 0x20 && (unsigned char)s[i] <= 0x3f;
			     i++)
				;
			continue; /* the final byte */
		}
		n += ((unsigned char)s[i] & 0xc0) != 0x80;
	}
	return n;
}

static unsigned signature(const char *s, size_t len)
{
	unsigned sig = 0;

	for (size_t i = 0; i < 4; i++) {
		unsigned char c = i < len ? (unsigned char)s[i] : 0;

		sig = sig << 8 | (isdigit(c) ? DIGIT : c);
	}
	return sig;
}

/* Does the node line carry a header (message.c's: anything before the
 * message, or a writer)? */
static bool headed(const struct timectx *tc, const char *s, size_t len)
{
	struct line_msg m;

	len = bytes_of(s, len);
	if (len > 512)
		len = 512; /* a header is near the start */
	line_message(tc, s, len, &m);
	return m.header || m.writer || m.start > 0;
}

struct headers {
	const struct timectx *tc;
	unsigned sig[SIG_CACHE];
	int nsig;
};

static bool headed_fast(struct headers *h, const char *s, size_t len)
{
	unsigned sig = signature(s, len);

	for (int i = 0; i < h->nsig; i++)
		if (h->sig[i] == sig)
			return true;
	if (!headed(h->tc, s, len))
		return false;
	if (h->nsig < SIG_CACHE)
		h->sig[h->nsig++] = sig;
	return true;
}

/* The widest line of buf[p, len) in columns; 0 as soon as one is wider
 * than give_up.  (Its bytes bound its columns: only a line longer than
 * the widest so far is counted.) */
static size_t widest(const char *buf, size_t len, size_t p, size_t give_up)
{
	size_t w = 0;

	while (p < len) {
		size_t e = line_end(buf, len, p), n = bytes_of(buf + p, e - p);

		if (n > w && (n = unwrap_columns(buf + p, n)) > w) {
			if (n > give_up)
				return 0;
			w = n;
		}
		p = e + 1;
	}
	return w;
}

/* "WORD:" first (srun:, RuntimeError:, ncclSystemError:): a message's
 * start, which a cut line that lost its end may be followed by */
static bool tag_led(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && (isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '.' || s[i] == '-'))
		i++;
	return i > 0 && i < len && s[i] == ':';
}

/* Does some line of buf[from, end) begin otherwise than the lines the
 * file's headers were seen on (their first two bytes' classes)?  If not,
 * none can go on the line before: a node log of one format is passed in
 * one vector pass, not a step a line (GCC's and Clang's vectors: SSE2 or
 * NEON).  An empty line begins nothing. */
typedef unsigned char bytes16 __attribute__((vector_size(16)));

static bytes16 splat(unsigned char c)
{
	bytes16 v;

	memset(&v, c, sizeof(v));
	return v;
}

/* lanes of v that signature() gives c */
static bytes16 in_class(bytes16 v, unsigned char c)
{
	if (c == DIGIT)
		return (bytes16)(v >= splat('0')) & (bytes16)(v <= splat('9'));
	return (bytes16)(v == splat(c));
}

static bool odd_starts(const struct headers *h, const char *buf, size_t from, size_t end)
{
	bytes16 odd = { 0 };
	size_t i = from ? from : 1;
	uint64_t w[2];

	if (from == 0 && end && signature(buf, end) != h->sig[0])
		return true; /* (the first line is one of those seen) */
	for (; i + 17 <= end; i += 16) {
		bytes16 before, v, next, ok = (bytes16)(splat(0) != splat(0)), starts;

		memcpy(&before, buf + i - 1, 16);
		starts = (bytes16)(before == splat('\n'));
		memcpy(w, &starts, sizeof(w));
		if (!(w[0] | w[1]))
			continue; /* most steps: no line begins in them */
		memcpy(&v, buf + i, 16);
		memcpy(&next, buf + i + 1, 16);
		ok |= (bytes16)(v == splat('\n')) | (bytes16)(v == splat('\r'));
		for (int k = 0; k < h->nsig; k++)
			ok |= in_class(v, (unsigned char)(h->sig[k] >> 24)) &
				in_class(next, (unsigned char)(h->sig[k] >> 16));
		odd |= starts & ~ok;
	}
	memcpy(w, &odd, sizeof(w));
	if (w[0] | w[1])
		return true;
	for (; i < end; i++) /* the last bytes, one at a time */
		if (buf[i - 1] == '\n' && buf[i] != '\n' && buf[i] != '\r') {
			unsigned sig = signature(buf + i, end - i) & 0xffff0000u;
			bool seen = false;

			for (int k = 0; k < h->nsig; k++)
				seen |= (h->sig[k] & 0xffff0000u) == sig;
			if (!seen)
				return true;
		}
	return false;
}

static void add(struct unwrap *u, size_t start, size_t end)
{
	if (u->n == u->cap)
		u->v = xrealloc(u->v, (u->cap = u->cap * 2 + 8) * sizeof(*u->v));
	u->v[u->n++] = (struct wrap_span){ start, end };
}

int unwrap_find(const struct timectx *tc, const char *buf, size_t len, size_t from, size_t to, int source,
		struct unwrap *u)
{
	struct headers h = { .tc = tc };
	size_t p = from, head = 0, prev_cols = 0, last = 0;
	unsigned char tail = 0;	 /* the line before's last byte */
	bool empty_warn = false; /* the line before is a NCCL WARN without its message */
	int lines = 0, back = UNWRAP_LINES;
	bool node = (source & SRC_NODE) && !(source & SRC_REPORT), app = source & SRC_APP, have_head = false;

	memset(u, 0, sizeof(*u));
	if ((!node && !app) || from >= to)
		return 0;
	/* from the line a message that goes on at from may have begun on */
	while (p > 0 && back-- > 0) {
		p--;
		while (p > 0 && buf[p - 1] != '\n')
			p--;
	}
	if (node) {
		/* the file's lines have a header when one of its first lines does */
		size_t q = p;

		for (int i = 0; i < 4 && q < len && !h.nsig; i++) {
			size_t e = line_end(buf, len, q);

			if (bytes_of(buf + q, e - q))
				headed_fast(&h, buf + q, e - q);
			q = e + 1;
		}
		if (!h.nsig)
			node = false;
		else if (!odd_starts(&h, buf, p, len - p > to - p + UNWRAP_BYTES ? to + UNWRAP_BYTES : len))
			return 0;
	}
	if (!node) {
		/* no headers: a terminal's cut (no line wider than it), or a
		 * NCCL WARN whose message went on the next line */
		u->width = app ? widest(buf, len, 0, 240) : 0;
		if (!unwrap_terminal_width(u->width))
			u->width = 0;
		if (!u->width && !memmem(buf + p, len - p, EMPTY_WARN "\n", sizeof(EMPTY_WARN)) &&
		    !memmem(buf + p, len - p, EMPTY_WARN "\r\n", sizeof(EMPTY_WARN) + 1))
			return 0;
	}
	while (p < len) {
		size_t e = line_end(buf, len, p), n = bytes_of(buf + p, e - p);
		bool cont = false;

		bool hd = node && n && headed_fast(&h, buf + p, n);

		if (have_head && n && lines < UNWRAP_LINES && e - head <= UNWRAP_BYTES) {
			if (node)
				cont = !hd;
			else /* a terminal's cut, mid-word, or an empty NCCL WARN */
				cont = ((u->width && prev_cols == u->width && isalnum(tail)) || empty_warn) &&
					isalnum((unsigned char)buf[p]) && !tag_led(buf + p, n);
		}
		if (cont) {
			lines++;
		} else {
			if (lines > 1 && head < to)
				add(u, head, last);
			lines = 0;
			if (p >= to)
				break;
			head = p;
			lines = 1;
			have_head = node ? hd : n > 0; /* a node line without a header begins nothing */
		}
		/* a line's columns, when it may reach the width */
		prev_cols = !node && u->width && n >= u->width ? unwrap_columns(buf + p, n) : 0;
		empty_warn = !node && n >= sizeof(EMPTY_WARN) - 1 &&
			!memcmp(buf + p + n - (sizeof(EMPTY_WARN) - 1), EMPTY_WARN, sizeof(EMPTY_WARN) - 1);
		tail = n ? (unsigned char)buf[p + n - 1] : 0;
		last = e;
		p = e + 1;
	}
	if (lines > 1 && head < to)
		add(u, head, last);
	if (u->n && node && !unwrap_terminal_width(u->width = widest(buf, len, 0, 240)))
		u->width = 0; /* no terminal's cut: each join is at a space */
	return u->n;
}

size_t unwrap_join(const struct unwrap *u, const char *buf, const struct wrap_span *s, char *out, size_t cap)
{
	size_t o = 0, p = s->start;
	bool first = true;

	if (!cap)
		return 0;
	while (p < s->end) {
		size_t e = line_end(buf, s->end, p), n = bytes_of(buf + p, e - p), q = p;
		if (!first) {
			/* the line before: its columns decide between a terminal's cut
			 * and a cut at a space */
			size_t pe = p - 1, ps = pe;

			while (ps > s->start && buf[ps - 1] != '\n')
				ps--;
			if (!u->width || unwrap_columns(buf + ps, pe - ps) != u->width) {
				while (q < p + n && (buf[q] == ' ' || buf[q] == '\t'))
					q++;
				if (o && out[o - 1] != ' ' && o + 1 < cap)
					out[o++] = ' ';
			}
		}
		n -= q - p;
		if (n > cap - 1 - o)
			n = cap - 1 - o;
		memcpy(out + o, buf + q, n);
		o += n;
		first = false;
		p = e + 1;
	}
	out[o] = 0;
	return o;
}

void unwrap_free(struct unwrap *u)
{
	free(u->v);
	memset(u, 0, sizeof(*u));
}
