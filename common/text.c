/* text_clean and text_utf8_fix: see text.h.  One routine for the whole project, so the
 * engine's evidence lines and the service's own strings obey the same
 * rules (doc/hardening.md, "Strings"). */
#include <stdlib.h>
#include <string.h>
#include "text.h"

/* Length of the valid UTF-8 sequence at s (1-4), or 0 if invalid. */
static size_t utf8_seq(const unsigned char *s, size_t len)
{
	size_t n;
	unsigned c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (n > len)
		return 0;
	/* no overlong forms, no UTF-16 surrogates, nothing past U+10FFFF */
	if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f) || (c == 0xf0 && s[1] < 0x90) ||
	    (c == 0xf4 && s[1] > 0x8f))
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* A valid sequence of n bytes that must not be shown: C0, DEL, C1, bidi. */
static bool is_control(const unsigned char *s, size_t n)
{
	if (n == 1)
		return s[0] < 0x20 || s[0] == 0x7f;
	if (n == 2) /* U+0080..U+009F; U+061C ARABIC LETTER MARK */
		return (s[0] == 0xc2 && s[1] <= 0x9f) || (s[0] == 0xd8 && s[1] == 0x9c);
	if (n == 3 && s[0] == 0xe2 && s[1] == 0x80) /* U+200E, U+200F, U+202A..U+202E */
		return s[2] == 0x8e || s[2] == 0x8f || (s[2] >= 0xaa && s[2] <= 0xae);
	if (n == 3 && s[0] == 0xe2 && s[1] == 0x81) /* U+2066..U+2069 */
		return s[2] >= 0xa6 && s[2] <= 0xa9;
	return false;
}

char *text_clean(const char *in, size_t len, size_t max)
{
	const unsigned char *s = (const unsigned char *)in;
	/* each input byte gives at most 3 output bytes, then "…" and NUL */
	size_t cap = (len < max ? len : max) * 3 + 8;
	char *out = malloc(cap);
	size_t o = 0, i = 0;

	if (!out)
		abort();
	while (i < len) {
		size_t n;

		if (o >= max) {
			memcpy(out + o, "\xe2\x80\xa6", 3); /* … */
			o += 3;
			break;
		}
		if (s[i] >= 0x20 && s[i] < 0x7f) { /* a run of printable ASCII, the common case, at once */
			size_t j = i + 1, room = i + (max - o);

			while (j < len && j < room && s[j] >= 0x20 && s[j] < 0x7f)
				j++;
			memcpy(out + o, s + i, j - i);
			o += j - i;
			i = j;
			continue;
		}
		n = utf8_seq(s + i, len - i);
		if (n == 0) { /* invalid byte: U+FFFD */
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		} else if (is_control(s + i, n)) {
			out[o++] = s[i] == '\t' ? ' ' : '?';
			i += n;
		} else {
			memcpy(out + o, s + i, n);
			o += n;
			i += n;
		}
	}
	out[o] = 0;
	/* give back what the worst case set aside (a line's evidence is kept
	 * by the ten thousand in a large job; shrinking in place is cheap) */
	if (o + 1 < cap / 2) {
		char *fit = realloc(out, o + 1);

		if (fit)
			out = fit;
	}
	return out;
}

char *text_clean_str(const char *s, size_t max)
{
	return s ? text_clean(s, strlen(s), max) : NULL;
}

char *text_utf8_fix(const char *in, size_t len, size_t *outlen)
{
	const unsigned char *s = (const unsigned char *)in;
	char *out = malloc(len * 3 + 1); /* each bad byte becomes 3 */
	size_t o = 0, i = 0;

	if (!out)
		return NULL;
	while (i < len) {
		size_t n = utf8_seq(s + i, len - i);

		if (n == 0) {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		} else {
			if (n > 1 || s[i])
				memcpy(out + o, s + i, n), o += n;
			i += n;
		}
	}
	out[o] = 0;
	if (outlen)
		*outlen = o;
	return out;
}

bool text_is_clean(const char *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		size_t n = utf8_seq((const unsigned char *)s + i, len - i);

		if (!n || is_control((const unsigned char *)s + i, n))
			return false;
		i += n;
	}
	return true;
}

void text_ascii_clean(char *s, size_t max)
{
	size_t o = 0;

	for (size_t i = 0; s[i]; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\'' || c == '`' || c == '\\')
			continue;
		if (c < 0x20 || c > 0x7e)
			c = ' ';
		if (c == ' ' && (o == 0 || s[o - 1] == ' '))
			continue;
		s[o++] = c;
	}
	while (o && s[o - 1] == ' ')
		o--;
	if (o > max) {
		o = max;
		while (o && s[o - 1] == ' ')
			o--;
	}
	s[o] = 0;
}
