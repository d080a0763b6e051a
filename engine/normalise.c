/* What rules read of a line, as its writer meant it: the bytes a terminal,
 * a log shipper or a pasted post added taken out.  The evidence a result
 * shows stays the original line (the scan keeps its file offsets); only
 * the extractors, the prefixes and the time see this form.
 *
 *   ESC [ ... m, ESC [ ... K      ANSI colour and erase (coloured loggers, tqdm)
 *   \r ... \r                      a progress bar's rewrites: the last one
 *   #012 #011 (rsyslog)            an escaped newline or tab inside a message
 *   a trailing \r                  CRLF files
 *
 * Launcher prefixes (srun --label, mpirun --tag-output's [1,15]<stderr>:,
 * torchrun's [default0]:, a CRI log's "TIME stdout F ") are the catalog's
 * `prefixes:` (00-base.yaml), read after this.  A message broken over
 * several physical lines is joined before (unwrap.c). */
#include <string.h>
#include "internal.h"

static bool needs_work(const char *s, size_t len)
{
	return memchr(s, '\x1b', len) || memchr(s, '\r', len) || memmem(s, len, "#01", 3);
}

const char *line_normalise(const char *line, size_t len, char *buf, size_t cap, size_t *out_len)
{
	size_t o = 0, i = 0;

	if (!needs_work(line, len))
		return NULL;
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
