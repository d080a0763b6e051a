/* What rules read of a line, as its writer meant it: the bytes a terminal,
 * a log shipper or a pasted post added taken out.  The evidence a result
 * shows stays the original line (the scan keeps its file offsets); only
 * the extractors, the prefixes and the time see this form.
 *
 *   ESC [ ... m, ESC [ ... K      ANSI colour and erase (coloured loggers, tqdm)
 *   \r ... \r                      a progress bar's rewrites: the last one
 *   #012 #011 (rsyslog)            an escaped newline or tab inside a message
 *   a trailing \r                  CRLF files
 *   {"log":"msg\n","stream":"stderr","time":"T"}
 *                                  Docker's json-file log driver, one object
 *                                  a line: its JSON string decoded, read in
 *                                  the kubelet's CRI form "T stderr F msg"
 *                                  (P: a partial line, its newline missing)
 *
 * Launcher prefixes (srun --label, mpirun --tag-output's [1,15]<stderr>:,
 * torchrun's [default0]:, a CRI log's "TIME stdout F ") are the catalog's
 * `prefixes:` (00-base.yaml), read after this.  A message broken over
 * several physical lines is joined before (unwrap.c). */
#include <json-c/json.h>
#include <string.h>
#include "internal.h"

static _Thread_local char json_buf[64 * 1024 + 1];

static bool docker_json(const char *s, size_t len)
{
	return len > 8 && s[0] == '{' && !memcmp(s, "{\"log\":", 7);
}

/* rsyslog's #012 or #011 (memchr, not memmem: this runs on every line a
 * rule is tried on, and glibc's memmem for three bytes cost 2% of a scan) */
static bool has_escape(const char *s, size_t len)
{
	for (const char *p = s, *end = s + len; (p = memchr(p, '#', (size_t)(end - p))); p++)
		if (end - p >= 4 && p[1] == '0' && p[2] == '1' && (p[3] == '2' || p[3] == '1'))
			return true;
	return false;
}

static bool needs_work(const char *s, size_t len)
{
	return memchr(s, '\x1b', len) || memchr(s, '\r', len) || has_escape(s, len) || docker_json(s, len);
}

static const char *member(struct json_object *o, const char *k, size_t *len)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, k, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	*len = (size_t)json_object_get_string_len(v);
	return json_object_get_string(v);
}

/* A json-file line as the CRI line it says, in json_buf: its length, 0
 * when it is no such object (then it is read as it is). */
static size_t docker_decode(const char *line, size_t len)
{
	json_tokener *tok = json_tokener_new();
	struct json_object *o = tok
		? json_tokener_parse_ex(tok, line, (int)(len < INT32_MAX ? len : INT32_MAX))
		: NULL;
	const char *msg, *stream, *time;
	size_t mlen, slen, tlen, o_ = 0;

	if (!o || !json_object_is_type(o, json_type_object) || !(msg = member(o, "log", &mlen)) ||
	    !(stream = member(o, "stream", &slen)) || !(time = member(o, "time", &tlen)) || slen > 16 ||
	    tlen > 64) {
		json_object_put(o);
		json_tokener_free(tok);
		return 0;
	}
	bool full = mlen && msg[mlen - 1] == '\n';

	if (full)
		mlen--;
	o_ = (size_t)snprintf(json_buf, sizeof(json_buf), "%.*s %.*s %c ", (int)tlen, time, (int)slen, stream,
			      full ? 'F' : 'P');
	for (size_t i = 0; i < mlen && o_ + 1 < sizeof(json_buf); i++) /* no line inside a line */
		json_buf[o_++] = msg[i] == '\n' || msg[i] == 0 ? ' ' : msg[i];
	json_buf[o_] = 0;
	json_object_put(o);
	json_tokener_free(tok);
	return o_;
}

const char *line_normalise(const char *line, size_t len, char *buf, size_t cap, size_t *out_len)
{
	size_t o = 0, i = 0;

	if (!needs_work(line, len))
		return NULL;
	if (docker_json(line, len) && (o = docker_decode(line, len))) {
		line = json_buf;
		len = o;
		o = 0;
		if (!needs_work(line, len)) { /* the decoded line as it is */
			memcpy(buf, line, len < cap ? len : cap - 1);
			buf[len < cap ? len : cap - 1] = 0;
			*out_len = len < cap ? len : cap - 1;
			return buf;
		}
	}
	/* a carriage return inside the line: the terminal shows what came after the last one */
	while (len && line[len - 1] == '\r')
		len--;
	for (size_t k = len; k > 0; k--)
		if (line[k - 1] == '\r') {
			i = k;
			break;
		}
	while (i < len && o + 1 < cap) {
		unsigned char c = (unsigned char)line[i];

		if (c == 0x1b && i + 1 < len && line[i + 1] == '[') { /* CSI: parameters, one final byte */
			i += 2;
			while (i < len && (unsigned char)line[i] >= 0x20 && (unsigned char)line[i] <= 0x3f)
				i++;
			if (i < len)
				i++;
			continue;
		}
		if (c == '#' && i + 3 < len && line[i + 1] == '0' && line[i + 2] == '1' &&
		    (line[i + 3] == '2' || line[i + 3] == '1')) {
			buf[o++] = line[i + 3] == '2' ? ' ' : '\t';
			i += 4;
			continue;
		}
		buf[o++] = (char)c;
		i++;
	}
	buf[o] = 0;
	*out_len = o;
	return buf;
}
