/* Time zone offsets without the process's TZ.
 *
 * mktime() under setenv("TZ") changes the environment of the whole
 * process (a service runs other threads that read it) and is not
 * re-entrant; the zone's rules are read here instead, as glibc reads them:
 * the TZif file under TZDIR (default /usr/share/zoneinfo) for an IANA
 * name, or a POSIX TZ string ("CET-1CEST,M3.5.0,M10.5.0/3") for a name
 * that is no file.  An unknown name is UTC, as for glibc.
 *
 * A civil time that a zone's clock shows twice (the hour the clocks go
 * back) or never (the hour they skip) takes the zone's standard offset,
 * which is what mktime(tm_isdst = -1) returns in the common zones.
 *
 * Parsed zones are kept per thread, so analyses on several threads share
 * nothing.  Nothing here aborts (jobcomp/attrib compiles it in, with
 * timefmt.c): out of memory, a zone is UTC. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "tzone.h"

struct ttype {
	int32_t off;
	bool dst;
};

/* POSIX rule: when DST starts and ends in a year */
struct rule_date {
	char kind; /* 'J' (1..365, no Feb 29), 'D' (0..365), 'M' (month.week.day) */
	int a, b, c;
	int32_t secs; /* local time of day of the change */
};

struct posix_tz {
	bool ok;
	struct ttype std, dst;
	bool has_dst;
	struct rule_date start, end;
};

struct tzone {
	char name[64];
	int64_t *trans;
	uint8_t *idx;
	int ntrans;
	struct ttype types[256];
	int ntypes;
	struct posix_tz footer; /* the rule after the last transition */
};

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int64_t be64(const unsigned char *p)
{
	return (int64_t)((uint64_t)be32(p) << 32 | be32(p + 4));
}

/* ---- POSIX TZ strings ---- */

static const char *tz_name_part(const char *s)
{
	if (*s == '<') {
		const char *e = strchr(s, '>');
		return e ? e + 1 : NULL;
	}
	const char *p = s;
	while (isalpha((unsigned char)*p))
		p++;
	return p - s >= 3 ? p : NULL;
}

/* [+-]hh[:mm[:ss]] in seconds; NULL if none */
static const char *tz_hms(const char *s, int32_t *out)
{
	int sign = 1, h = 0, m = 0, sec = 0;

	if (*s == '+' || *s == '-')
		sign = *s++ == '-' ? -1 : 1;
	if (!isdigit((unsigned char)*s))
		return NULL;
	while (isdigit((unsigned char)*s))
		h = h * 10 + (*s++ - '0');
	if (*s == ':') {
		s++;
		while (isdigit((unsigned char)*s))
			m = m * 10 + (*s++ - '0');
		if (*s == ':') {
			s++;
			while (isdigit((unsigned char)*s))
				sec = sec * 10 + (*s++ - '0');
		}
	}
	if (h > 167 || m > 59 || sec > 59)
		return NULL;
	*out = sign * (h * 3600 + m * 60 + sec);
	return s;
}

static const char *tz_date(const char *s, struct rule_date *d)
{
	char *e;

	d->secs = 7200;
	if (*s == 'M') {
		d->kind = 'M';
		d->a = (int)strtol(s + 1, &e, 10);
		if (*e != '.')
			return NULL;
		d->b = (int)strtol(e + 1, &e, 10);
		if (*e != '.')
			return NULL;
		d->c = (int)strtol(e + 1, &e, 10);
		if (d->a < 1 || d->a > 12 || d->b < 1 || d->b > 5 || d->c < 0 || d->c > 6)
			return NULL;
	} else if (*s == 'J') {
		d->kind = 'J';
		d->a = (int)strtol(s + 1, &e, 10);
		if (d->a < 1 || d->a > 365)
			return NULL;
	} else if (isdigit((unsigned char)*s)) {
		d->kind = 'D';
		d->a = (int)strtol(s, &e, 10);
		if (d->a > 365)
			return NULL;
	} else {
		return NULL;
	}
	s = e;
	if (*s == '/' && !(s = tz_hms(s + 1, &d->secs)))
		return NULL;
	return s;
}

static bool posix_parse(const char *s, struct posix_tz *p)
{
	int32_t o;

	memset(p, 0, sizeof(*p));
	if (!(s = tz_name_part(s)) || !(s = tz_hms(s, &o)))
		return false;
	p->std = (struct ttype){ -o, false };
	if (*s) {
		if (!(s = tz_name_part(s)))
			return false;
		p->has_dst = true;
		p->dst = (struct ttype){ p->std.off + 3600, true };
		if (*s && *s != ',') {
			if (!(s = tz_hms(s, &o)))
				return false;
			p->dst.off = -o;
		}
		/* no rule: the US one, as glibc's default */
		p->start = (struct rule_date){ 'M', 3, 2, 0, 7200 };
		p->end = (struct rule_date){ 'M', 11, 1, 0, 7200 };
		if (*s == ',') {
			if (!(s = tz_date(s + 1, &p->start)) || *s != ',' || !(s = tz_date(s + 1, &p->end)))
				return false;
		}
		if (*s)
			return false;
	}
	p->ok = true;
	return true;
}

static bool leap(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* Seconds from the year's start (00:00 local) to the rule's day. */
static int64_t rule_day(const struct rule_date *d, int year)
{
	static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int day;

	if (d->kind == 'J')
		day = d->a - 1 + (leap(year) && d->a >= 60);
	else if (d->kind == 'D')
		day = d->a;
	else {
		struct tm tm = { .tm_year = year - 1900, .tm_mon = d->a - 1, .tm_mday = 1 };
		time_t first = timegm(&tm);
		int wday = (int)((first / 86400 + 4) % 7), md = mdays[d->a - 1] + (d->a == 2 && leap(year));

		if (wday < 0)
			wday += 7;
		day = (d->c - wday + 7) % 7 + 7 * (d->b - 1);
		while (day >= md)
			day -= 7;
		day += (int)(first - timegm(&(struct tm){ .tm_year = year - 1900, .tm_mday = 1 })) / 86400;
	}
	return (int64_t)day * 86400 + d->secs;
}

static struct ttype posix_at(const struct posix_tz *p, int64_t t)
{
	if (!p->has_dst)
		return p->std;
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	int year = tm.tm_year + 1900;
	int64_t y0 = (int64_t)timegm(&(struct tm){ .tm_year = year - 1900, .tm_mday = 1 });
	/* the changes in UTC: the start in standard time, the end in DST */
	int64_t start = y0 + rule_day(&p->start, year) - p->std.off;
	int64_t end = y0 + rule_day(&p->end, year) - p->dst.off;
	bool dst = start < end ? t >= start && t < end : !(t >= end && t < start);

	return dst ? p->dst : p->std;
}

/* ---- TZif ---- */

static bool tzif_parse(struct tzone *z, const unsigned char *b, size_t n)
{
	if (n < 44 || memcmp(b, "TZif", 4))
		return false;
	uint32_t isut = be32(b + 20), isstd = be32(b + 24), leapc = be32(b + 28), timec = be32(b + 32),
		 typec = be32(b + 36), charc = be32(b + 40);
	size_t tsz = 4, lsz = 8, hdr = 0;

	if (b[4] >= '2') { /* skip the 32-bit block to the 64-bit one */
		size_t v1 = 44 + (size_t)timec * 5 + (size_t)typec * 6 + charc + (size_t)leapc * 8 + isstd +
			isut;

		if (v1 + 44 > n || memcmp(b + v1, "TZif", 4))
			return false;
		hdr = v1;
		isut = be32(b + hdr + 20), isstd = be32(b + hdr + 24), leapc = be32(b + hdr + 28);
		timec = be32(b + hdr + 32), typec = be32(b + hdr + 36), charc = be32(b + hdr + 40);
		tsz = 8;
		lsz = 12;
	}
	const unsigned char *p = b + hdr + 44;
	size_t need = (size_t)timec * (tsz + 1) + (size_t)typec * 6 + charc + (size_t)leapc * lsz + isstd +
		isut;

	if (typec == 0 || typec > 256 || timec > 100000 || hdr + 44 + need > n)
		return false;
	z->trans = calloc(timec + 1, sizeof(int64_t));
	z->idx = calloc(timec + 1, 1);
	if (!z->trans || !z->idx)
		return false;
	z->ntrans = (int)timec;
	for (uint32_t i = 0; i < timec; i++)
		z->trans[i] = tsz == 8 ? be64(p + i * 8) : (int32_t)be32(p + i * 4);
	p += (size_t)timec * tsz;
	for (uint32_t i = 0; i < timec; i++) {
		z->idx[i] = p[i];
		if (p[i] >= typec)
			return false;
	}
	p += timec;
	z->ntypes = (int)typec;
	for (uint32_t i = 0; i < typec; i++)
		z->types[i] = (struct ttype){ (int32_t)be32(p + i * 6), p[i * 6 + 4] != 0 };
	p += (size_t)typec * 6 + charc + (size_t)leapc * lsz + isstd + isut;
	/* the footer: a POSIX TZ string for the times after the last transition */
	if (tsz == 8 && p < b + n && *p == '\n') {
		const unsigned char *e = memchr(p + 1, '\n', (size_t)(b + n - p - 1));

		if (e && e - p - 1 < 128) {
			char f[128];

			memcpy(f, p + 1, (size_t)(e - p - 1));
			f[e - p - 1] = 0;
			posix_parse(f, &z->footer);
		}
	}
	return true;
}

static struct tzone *tzone_load(const char *name)
{
	struct tzone *z = calloc(1, sizeof(*z));
	const char *dir = getenv("TZDIR");
	char path[512];
	int fd;

	if (!z)
		return NULL;
	snprintf(z->name, sizeof(z->name), "%s", name);
	snprintf(path, sizeof(path), "%s/%s", dir && *dir ? dir : "/usr/share/zoneinfo", name);
	/* a name tz_name_ok let through: never a path of its own */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0 && errno == ELOOP) { /* zoneinfo holds links (US/Eastern), followed as glibc does */
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	}
	if (fd >= 0) {
		struct stat st;

		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size < (1 << 20)) {
			unsigned char *b = malloc(st.st_size);
			ssize_t r = b ? read(fd, b, st.st_size) : -1;

			if (r == st.st_size && tzif_parse(z, b, (size_t)r)) {
				free(b);
				close(fd);
				return z;
			}
			free(b);
			free(z->trans);
			free(z->idx);
			z->trans = NULL;
			z->idx = NULL;
			z->ntrans = z->ntypes = 0;
		}
		close(fd);
	}
	if (!posix_parse(name, &z->footer))
		z->footer = (struct posix_tz){ .ok = true }; /* unknown: UTC */
	return z;
}

static void tzone_free(struct tzone *z)
{
	if (!z)
		return;
	free(z->trans);
	free(z->idx);
	free(z);
}

/* The zone's offset at UTC time t. */
static struct ttype zone_at(const struct tzone *z, int64_t t)
{
	if (z->ntrans && t >= z->trans[z->ntrans - 1] && z->footer.ok)
		return posix_at(&z->footer, t);
	if (!z->ntrans || t < z->trans[0]) {
		if (z->ntypes)
			return z->types[0];
		return z->footer.ok ? posix_at(&z->footer, t) : (struct ttype){ 0, false };
	}
	int lo = 0, hi = z->ntrans - 1; /* the last transition <= t */
	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;

		if (z->trans[mid] <= t)
			lo = mid;
		else
			hi = mid - 1;
	}
	return z->types[z->idx[lo]];
}

/* ---- per thread: the zones met, and the offsets of recent hours ---- */

#define ZONES 4
#define HOURS 32
struct zcache {
	struct tzone *zone[ZONES];
	unsigned next_zone;
	struct {
		const struct tzone *z;
		int64_t hour; /* civil time / 3600, as if UTC */
		long off;
	} memo[HOURS];
	unsigned next;
};

static pthread_key_t zkey;
static pthread_once_t zonce = PTHREAD_ONCE_INIT;

static void zcache_free(void *p)
{
	struct zcache *c = p;

	for (int i = 0; i < ZONES; i++)
		tzone_free(c->zone[i]);
	free(c);
}

static void zkey_make(void)
{
	pthread_key_create(&zkey, zcache_free);
}

static struct zcache *zcache(void)
{
	struct zcache *c;

	pthread_once(&zonce, zkey_make);
	if (!(c = pthread_getspecific(zkey)) && (c = calloc(1, sizeof(*c))))
		pthread_setspecific(zkey, c);
	return c;
}

long tz_local_offset(const char *tz, const struct tm *tm)
{
	struct zcache *c = zcache();
	struct tzone *z = NULL;
	struct tm u = *tm;

	if (!c)
		return 0; /* no memory: UTC */
	u.tm_min = u.tm_sec = 0;
	int64_t local = (int64_t)timegm(&u); /* the civil hour, counted as if UTC */

	for (int i = 0; i < ZONES && !z; i++)
		if (c->zone[i] && !strcmp(c->zone[i]->name, tz))
			z = c->zone[i];
	if (!z) {
		unsigned i = c->next_zone++ % ZONES;

		/* the memo may name the zone evicted */
		for (int k = 0; k < HOURS; k++)
			if (c->memo[k].z == c->zone[i])
				c->memo[k].z = NULL;
		tzone_free(c->zone[i]);
		if (!(z = c->zone[i] = tzone_load(tz)))
			return 0;
	}
	for (int k = 0; k < HOURS; k++)
		if (c->memo[k].z == z && c->memo[k].hour == local / 3600)
			return c->memo[k].off;

	/* the offsets in force a day around it: the ones this civil time
	 * can be under */
	struct ttype a = zone_at(z, local - 86400), b = zone_at(z, local + 86400);
	struct ttype ta = zone_at(z, local - a.off), tb = zone_at(z, local - b.off);
	bool va = ta.off == a.off, vb = tb.off == b.off;
	long off;

	if (va && vb && a.off != b.off) /* shown twice */
		off = a.dst ? b.off : a.off;
	else if (va)
		off = a.off;
	else if (vb)
		off = b.off;
	else /* skipped */
		off = a.dst ? b.off : a.off;
	unsigned k = c->next++ % HOURS;
	c->memo[k].z = z;
	c->memo[k].hour = local / 3600;
	c->memo[k].off = off;
	return off;
}
