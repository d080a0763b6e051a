/* Where a line is and when: line numbers counted as the scan goes, and
 * the time of a line without its own, taken from its neighbours (a whole
 * file), or recorded with what a chunk knows of them for the merge to
 * find (chunks.c). */
#include <string.h>
#include "scan_parts.h"

size_t line_end_of(const struct file_scan *f, size_t start)
{
	const char *nl = memchr(f->buf + start, '\n', f->len - start);

	return nl ? (size_t)(nl - f->buf) : f->len;
}

/* Number of the line starting at off (lines are visited in order). */
long line_number(struct file_scan *f, size_t off)
{
	if (off < f->counted_to) { /* a multi-line match reaching back */
		long n = f->line_no;

		for (size_t p = off; p < f->counted_to; p++)
			if (f->buf[p] == '\n')
				n--;
		return n;
	}
	f->line_no += count_newlines(f->buf + f->counted_to, off - f->counted_to);
	f->counted_to = off;
	return f->line_no;
}

/* Time of a line by itself (header or prefix), if it has one. */
static bool line_own_time(const struct analysis *a, int source, const char *line, size_t len, double *t)
{
	size_t hdr;

	if (len > MAX_LINE)
		len = MAX_LINE;
	if (time_parse_header(&a->tc, line, len, t, &hdr))
		return true;
	if (source & SRC_NODE)
		return false;
	return line_time(a->cat, &a->tc, line, len, t);
}

static bool own_time(struct file_scan *f, size_t start, size_t end, double *t)
{
	return line_own_time(f->a, f->source, f->buf + start, end - start, t);
}

/* A line without a time of its own takes the next timestamped line's time
 * (an upper bound: it was printed no later), else the previous one's (a
 * lower bound), else the job's end (an upper bound: the job's output and
 * its nodes' logs of it were written while it ran).  Returns whether the
 * time is an upper bound.  (record_untimed and emulate_time below give the
 * same times for a file cut into chunks.) */
bool neighbour_time(struct file_scan *f, size_t start, size_t end, double *t)
{
	if (f->next_found && start < f->next_at && start >= f->next_from) {
		*t = f->next_time;
		return true;
	}
	f->next_found = false;
	size_t p = end < f->len ? end + 1 : f->len, from = p;
	/* lines already searched in vain are not searched again (thousands of
	 * ranks' NCCL lines in a row carry no time: each hit among them would
	 * otherwise re-read the same stretch) */
	if (f->clear_from <= p && p < f->clear_to)
		p = f->clear_to;
	for (int i = 0; i < NEIGHBOUR_LINES && p < f->len; i++) {
		size_t e = line_end_of(f, p);
		double tt;

		if (own_time(f, p, e, &tt)) {
			f->next_from = start;
			f->next_at = p;
			f->next_time = tt;
			f->next_found = true;
			*t = tt;
			return true;
		}
		p = e + 1;
	}
	if (!(f->clear_from <= from && from <= f->clear_to))
		f->clear_from = from;
	f->clear_to = p;
	if (f->prev_found) {
		*t = f->prev_time;
		return false;
	}
	*t = f->a->job.end;
	return true;
}

/* In a chunk: the first of its lines at or after q (a line start, number
 * q_line) that has a time of its own (each line is looked at once in a
 * run of hits).  Returns whether there is one, with its number and time. */
bool timed_from(struct file_scan *f, size_t q, long q_line, long *t_line, double *t_time)
{
	if (!(f->t_from <= q && q <= f->t_upto)) {
		f->t_from = f->t_upto = q;
		f->t_upto_line = q_line;
		f->t_found = false;
	}
	while (!f->t_found && f->t_upto < f->to) {
		size_t e = line_end_of(f, f->t_upto);

		if (own_time(f, f->t_upto, e, &f->t_time)) {
			f->t_found = true;
			break;
		}
		f->t_upto = e + 1;
		f->t_upto_line++;
	}
	*t_line = f->t_upto_line;
	*t_time = f->t_time;
	return f->t_found;
}

/* Records an event (keep) or only its time; a kept event's values are
 * copied into the record and the caller's event is left empty. */
void record_add(struct file_scan *f, struct event *ev, bool untimed, bool keep)
{
	if (f->nrec == f->caprec)
		f->rec = xrealloc(f->rec, (f->caprec = f->caprec * 2 + 64) * sizeof(*f->rec));
	struct record *r = &f->rec[f->nrec++];

	*r = (struct record){ .untimed = untimed, .time = ev->time };
	if (!keep)
		return; /* a timestamped event the window drops: its time still counts */
	r->code = ev->code;
	r->file = ev->file;
	r->source = ev->source;
	r->extractor = ev->extractor;
	r->line = ev->line;
	r->text_len = ev->text_len;
	r->match_start = ev->match_start;
	r->has_time = ev->has_time;
	r->approx = ev->approx;
	r->no_later = ev->no_later;
	r->low_trust = ev->low_trust;
	r->aside = ev->aside;
	r->file_node = ev->file_node;
	r->text_at = packed_put(&f->store, ev->text, ev->text_len);
	r->fields_at = fields_pack(&f->store, &ev->f);
}

/* A kept record as the event it was, its line and values in the chunk's
 * store (which the event borrows: it must not be cleared). */
void record_event(const struct record *r, char *store, struct event *ev)
{
	ev->code = r->code;
	ev->file = r->file;
	ev->source = r->source;
	ev->extractor = r->extractor;
	ev->line = r->line;
	ev->text = store + r->text_at;
	ev->text_len = r->text_len;
	ev->match_start = r->match_start;
	ev->time = r->time;
	ev->has_time = r->has_time;
	ev->approx = r->approx;
	ev->no_later = r->no_later;
	ev->low_trust = r->low_trust;
	ev->aside = r->aside;
	ev->file_node = r->file_node;
	fields_unpack(&ev->f, store + r->fields_at);
}
