/* Timestamps in every format evidence carries, to epoch seconds, and the
 * RFC 3339 of the formats (doc/formats.md), both ways.
 *
 * Year-less formats (RFC 3164 syslog, glog) take the year that puts them
 * nearest the job; zone-less ones are in the case's log_timezone. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "timefmt.h"
#include "tzone.h"

static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";

static int month_of(const char *s)
{
	for (int i = 0; i < 12; i++)
		if (!strncmp(months + 3 * i, s, 3))
			return i;
	return -1;
}

static bool digits(const char *s, size_t len, size_t n, int *out)
{
	int v = 0;

	if (len < n)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return true;
}

static bool is_utc(const char *tz)
{
	return !tz || !*tz || !strcmp(tz, "UTC") || !strcmp(tz, "Etc/UTC") || !strcmp(tz, "Z") ||
		!strcmp(tz, "GMT");
}

/* Civil time in zone tz to epoch seconds (tzone.c: the zone's rules read
 * without the process's TZ, which setenv/tzset would change for every
 * thread of the process). */
/* timegm's answer by arithmetic (the days of the proleptic Gregorian
 * calendar since 1970, H. Hinnant's days_from_civil): timegm costs a
 * normalisation and a lock a call, and a log's every line needs one.  Out of
 * range days, hours, minutes and seconds count on as timegm normalises them;
 * a month out of range is left to timegm. */
static double utc_of(struct tm *tm)
{
	long long y = tm->tm_year + 1900LL, m = tm->tm_mon + 1, era, yoe, doy, doe;

	if (m < 1 || m > 12)
		return (double)timegm(tm);
	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + tm->tm_mday - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return (double)(era * 146097 + doe - 719468) * 86400.0 + tm->tm_hour * 3600.0 + tm->tm_min * 60.0 +
		tm->tm_sec;
}

static double civil(struct tm *tm, const char *tz)
{
	if (is_utc(tz) || strlen(tz) >= 64)
		return utc_of(tm);
	return utc_of(tm) - tz_local_offset(tz, tm);
}

/* A zone name: an IANA name (Europe/Berlin) or a POSIX TZ string
 * (CET-1CEST,M3.5.0,M10.5.0/3), never a path (tzone.c opens
 * TZDIR/name: a FIFO or a device would block or feed it). */
bool tz_name_ok(const char *tz)
{
	if (!tz || !*tz || strlen(tz) >= 64 || strchr("/:.", tz[0]) || strstr(tz, ".."))
		return false;
	for (const char *p = tz; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("/_+-,.:<>", *p))
			return false;
	return true;
}

/* Fraction ".123456" or ",123"; returns bytes consumed. */
static size_t fraction(const char *s, size_t len, double *frac)
{
	size_t i = 1;
	double scale = 0.1;

	*frac = 0;
	if (len < 2 || (s[0] != '.' && s[0] != ',') || !isdigit((unsigned char)s[1]))
		return 0;
	for (; i < len && isdigit((unsigned char)s[i]); i++, scale /= 10)
		*frac += (s[i] - '0') * scale;
	return i;
}

/* Z, +HH:MM, +HHMM, +HH; returns bytes consumed, offset in seconds. */
static size_t zone(const char *s, size_t len, long *off, bool *has)
{
	int h, m = 0;

	*has = false;
	*off = 0;
	if (len >= 1 && s[0] == 'Z') {
		*has = true;
		return 1;
	}
	if (len < 3 || (s[0] != '+' && s[0] != '-') || !digits(s + 1, len - 1, 2, &h))
		return 0;
	size_t n = 3;
	if (len >= 6 && s[3] == ':' && digits(s + 4, len - 4, 2, &m))
		n = 6;
	else if (len >= 5 && digits(s + 3, len - 3, 2, &m))
		n = 5;
	*off = (h * 3600L + m * 60L) * (s[0] == '-' ? -1 : 1);
	*has = true;
	return n;
}

/* YYYY-MM-DD[T _]HH:MM:SS[.f][zone]  (_: torchrun's error summary) */
static size_t parse_iso(const struct timectx *tc, const char *s, size_t len, double *t)
{
	struct tm tm = { 0 };
	int y, mo, d, h, mi, se;
	double frac;
	long off;
	bool has;
	size_t n;

	if (len < 19 || !digits(s, len, 4, &y) || s[4] != '-' || !digits(s + 5, len - 5, 2, &mo) ||
	    s[7] != '-' || !digits(s + 8, len - 8, 2, &d) || (s[10] != 'T' && s[10] != ' ' && s[10] != '_') ||
	    !digits(s + 11, len - 11, 2, &h) || s[13] != ':' || !digits(s + 14, len - 14, 2, &mi) ||
	    s[16] != ':' || !digits(s + 17, len - 17, 2, &se))
		return 0;
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
		return 0;
	n = 19;
	n += fraction(s + n, len - n, &frac);
	n += zone(s + n, len - n, &off, &has);
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = se;
	if (has)
		*t = utc_of(&tm) - off + frac;
	else
		*t = civil(&tm, tc ? tc->tz : NULL) + frac;
	return n;
}

/* Year-less month/day/time: the year that puts it nearest the job. */
static double nearest_year(const struct timectx *tc, struct tm *tm, double frac)
{
	time_t ref = tc && tc->ref > 0 ? (time_t)tc->ref : time(NULL);
	struct tm rt;
	double best = 0;

	gmtime_r(&ref, &rt);
	for (int dy = -1; dy <= 1; dy++) {
		struct tm c = *tm;
		double v;

		c.tm_year = rt.tm_year + dy;
		v = civil(&c, tc ? tc->tz : NULL) + frac;
		if (dy == -1 || fabs(v - (double)ref) < fabs(best - (double)ref))
			best = v;
	}
	return best;
}

/* HH:MM:SS[.f] */
static size_t clock_part(const char *s, size_t len, struct tm *tm, double *frac)
{
	int h, mi, se;

	if (len < 8 || !digits(s, len, 2, &h) || s[2] != ':' || !digits(s + 3, len - 3, 2, &mi) ||
	    s[5] != ':' || !digits(s + 6, len - 6, 2, &se) || h > 23 || mi > 59 || se > 60)
		return 0;
	tm->tm_hour = h;
	tm->tm_min = mi;
	tm->tm_sec = se;
	return 8 + fraction(s + 8, len - 8, frac);
}

/* A stamp without a year (month mon 0-11, day): its clock at s + at, the
 * year the one that puts it nearest the reference; the bytes read, or 0 */
static size_t year_less(const struct timectx *tc, int mon, int day, const char *s, size_t len, size_t at,
			double *t)
{
	struct tm tm = { .tm_mon = mon, .tm_mday = day };
	double frac = 0;
	size_t n = clock_part(s + at, len - at, &tm, &frac);

	if (!n)
		return 0;
	*t = nearest_year(tc, &tm, frac);
	return at + n;
}

/* RFC 3164: "Nov 29 08:12:01" (day space-padded), optional fraction. */
static size_t parse_3164(const struct timectx *tc, const char *s, size_t len, double *t)
{
	int mo, d;

	if (len < 15 || (mo = month_of(s)) < 0 || s[3] != ' ')
		return 0;
	if (s[4] == ' ' && isdigit((unsigned char)s[5]))
		d = s[5] - '0';
	else if (!digits(s + 4, len - 4, 2, &d))
		return 0;
	if (s[6] != ' ' || d < 1 || d > 31)
		return 0;
	return year_less(tc, mo, d, s, len, 7, t);
}

/* dmesg -T: "[Sun Nov 29 08:12:01 2026]" */
static size_t parse_dmesg_t(const struct timectx *tc, const char *s, size_t len, double *t)
{
	struct tm tm = { 0 };
	double frac = 0;
	int mo, d, y;
	size_t n, i;

	if (len < 26 || s[0] != '[' || s[4] != ' ' || (mo = month_of(s + 5)) < 0 || s[8] != ' ')
		return 0;
	i = 9;
	if (s[i] == ' ')
		i++;
	if (!digits(s + i, len - i, isdigit((unsigned char)s[i + 1]) ? 2 : 1, &d))
		return 0;
	i += isdigit((unsigned char)s[i + 1]) ? 2 : 1;
	if (s[i++] != ' ')
		return 0;
	tm.tm_mon = mo;
	tm.tm_mday = d;
	n = clock_part(s + i, len - i, &tm, &frac);
	if (!n)
		return 0;
	i += n;
	if (i + 6 > len || s[i] != ' ' || !digits(s + i + 1, len - i - 1, 4, &y) || s[i + 5] != ']')
		return 0;
	tm.tm_year = y - 1900;
	*t = civil(&tm, tc ? tc->tz : NULL) + frac;
	return i + 6;
}

/* glog: "E0908 23:53:26.858664036" */
static size_t parse_glog(const struct timectx *tc, const char *s, size_t len, double *t)
{
	int mo, d;

	if (len < 14 || !strchr("EWIF", s[0]) || !digits(s + 1, len - 1, 2, &mo) ||
	    !digits(s + 3, len - 3, 2, &d) || s[5] != ' ' || mo < 1 || mo > 12)
		return 0;
	return year_less(tc, mo - 1, d, s, len, 6, t);
}

/* ctime(3): "Sat Nov 29 08:12:01 2025" (mpirun --timestamp-output), the
 * form dmesg -T prints in brackets */
static size_t parse_ctime(const struct timectx *tc, const char *s, size_t len, double *t)
{
	char b[32];

	if (len < 24 || len > 26)
		return 0;
	b[0] = '[';
	memcpy(b + 1, s, len);
	b[len + 1] = ']';
	return parse_dmesg_t(tc, b, len + 2, t) == len + 2 ? len : 0;
}

bool time_parse_any(const struct timectx *tc, const char *s, size_t len, double *t)
{
	return parse_iso(tc, s, len, t) || parse_3164(tc, s, len, t) || parse_dmesg_t(tc, s, len, t) ||
		parse_glog(tc, s, len, t) || parse_ctime(tc, s, len, t);
}

/* dmesg -H (--reltime): "[May19 19:57]" opens a minute, the lines after
 * it say only "[  +0.000127]" (util-linux: strftime "%b%d %H:%M") */
static size_t parse_dmesg_h(const struct timectx *tc, const char *s, size_t len, double *t)
{
	struct tm tm = { 0 };
	int mo, d, h, mi;

	if (len < 13 || s[0] != '[' || (mo = month_of(s + 1)) < 0 || !digits(s + 4, len - 4, 2, &d) ||
	    s[6] != ' ' || !digits(s + 7, len - 7, 2, &h) || s[9] != ':' ||
	    !digits(s + 10, len - 10, 2, &mi) || s[12] != ']' || d < 1 || d > 31 || h > 23 || mi > 59)
		return 0;
	tm.tm_mon = mo;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	*t = nearest_year(tc, &tm, 0);
	return 13;
}

bool time_parse_header(const struct timectx *tc, const char *s, size_t len, double *t, size_t *hdr)
{
	size_t n;

	*hdr = 0;
	if ((n = parse_iso(tc, s, len, t)) || (n = parse_3164(tc, s, len, t)) ||
	    (n = parse_dmesg_t(tc, s, len, t)) || (n = parse_dmesg_h(tc, s, len, t))) {
		*hdr = n;
	} else if (len > 1 && s[0] == '[' && (n = parse_iso(tc, s + 1, len - 1, t)) && n + 1 < len &&
		   s[n + 1] == ']') {
		*hdr = n + 2; /* [2026-11-29T08:12:01.123] slurmctld.log */
	} else {
		return false;
	}
	while (*hdr < len && s[*hdr] == ' ')
		(*hdr)++;
	return true;
}

bool time_parse_rfc3339(const char *s, double *t)
{
	size_t len = strlen(s);

	return len && parse_iso(NULL, s, len, t) == len;
}

void time_format(double t, char *buf, size_t len)
{
	time_t sec = (time_t)floor(t);
	long usec = lround((t - (double)sec) * 1e6);
	struct tm tm;

	if (usec >= 1000000) {
		sec++;
		usec -= 1000000;
	}
	gmtime_r(&sec, &tm);
	if (usec)
		snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ", tm.tm_year + 1900, tm.tm_mon + 1,
			 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, usec);
	else
		snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1,
			 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

char *time_format_sec(time_t t, char *buf, size_t len)
{
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "1970-01-01T00:00:00Z");
	return buf;
}

void time_format_log(unsigned long long usec, char *buf, size_t len)
{
	time_t sec = (time_t)(usec / 1000000);
	struct tm tm;

	gmtime_r(&sec, &tm);
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%06u+00:00", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (unsigned)(usec % 1000000));
}
