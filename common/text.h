/* Cleaning text for display, logs and JSON: the one routine every part of
 * attrib uses (the engine's text_sanitise, the service's results and log
 * lines, attrib show and list, the webhook body).  Strings from logs,
 * bundles and job records are controlled by users and nodes; what leaves
 * attrib must be strict UTF-8 and unable to move a terminal's cursor,
 * forge a log line or reorder text on screen. */
#ifndef ATTRIB_TEXT_H
#define ATTRIB_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* A new string (the caller frees; abort() when out of memory) holding
 * len bytes of in with:
 *   - invalid UTF-8 (stray or cut sequences, overlongs, surrogates,
 *     past U+10FFFF): each byte becomes U+FFFD;
 *   - TAB: a space;
 *   - other C0 controls (NUL, CR, LF, ESC, ...), DEL and the C1 controls
 *     U+0080..U+009F: '?';
 *   - Unicode bidi controls (U+061C, U+200E, U+200F, U+202A..U+202E,
 *     U+2066..U+2069): '?'.
 * After max bytes of output the rest is cut and "…" (U+2026) appended. */
char *text_clean(const char *in, size_t len, size_t max);
/* text_clean of a NUL-terminated string; NULL for NULL. */
char *text_clean_str(const char *s, size_t max);
/* A new string (NULL when out of memory: the plugins call it inside
 * slurmctld) of len bytes of in made strict UTF-8 and nothing more: each
 * byte of an invalid sequence becomes U+FFFD, NUL bytes are dropped,
 * controls are kept (a JSON writer escapes them).  Its length in *outlen. */
char *text_utf8_fix(const char *in, size_t len, size_t *outlen);
/* True when text_clean would return s unchanged (and s is not cut). */
bool text_is_clean(const char *s, size_t len);
/* The bound of one string attrib keeps or shows (a stored result's,
 * a column of attrib list): text_clean's max. */
#define TEXT_MAX (1 << 20)
/* s rewritten in place for places that take printable ASCII only (Slurm's
 * accounting comments, drain reasons): no quotes, backquotes or
 * backslashes (dropped), any other byte outside 0x20..0x7e a space, runs
 * of spaces collapsed, no space at either end, at most max bytes. */
void text_ascii_clean(char *s, size_t max);

#endif
