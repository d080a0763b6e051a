/* attrib-collect's window cutter (epilog/window.c), with Check: a 2 GB
 * sparse syslog file cut by binary search reading a few pages, every
 * timestamp format the collector reads, windows outside the file, lines
 * without timestamps, a clock going backwards, NUL garbage, the cap. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "text.h"
#include "timefmt.h"
#include "window.h"

#define T0 1795939200.0 /* 2026-11-28T00:00:00Z */
#define MB (1024L * 1024L)

static char dir[] = "/tmp/attrib-epilog-window-XXXXXX";
static bool made;

static void setup(void)
{
	if (!made) {
		ck_assert_ptr_nonnull(mkdtemp(dir));
		made = true;
	}
}

static char *path(const char *name)
{
	static char buf[4][512];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
	return buf[k];
}

enum fmt { F3164, F3339, FISO, FDMESG };

static int stamp(enum fmt f, double t, char *buf, size_t len)
{
	time_t s = (time_t)t;
	struct tm tm;
	char b[48];

	gmtime_r(&s, &tm);
	switch (f) {
	case F3164:
		strftime(b, sizeof(b), "%b %e %H:%M:%S", &tm);
		return snprintf(buf, len, "%s", b);
	case F3339:
		strftime(b, sizeof(b), "%Y-%m-%dT%H:%M:%S", &tm);
		return snprintf(buf, len, "%s.%06d+00:00", b, (int)((t - (double)s) * 1e6));
	case FISO:
		strftime(b, sizeof(b), "%Y-%m-%dT%H:%M:%S+0000", &tm);
		return snprintf(buf, len, "%s", b);
	case FDMESG:
		strftime(b, sizeof(b), "[%a %b %e %H:%M:%S %Y]", &tm);
		return snprintf(buf, len, "%s", b);
	}
	return 0;
}

/* A log line: "<stamp> node-01 kernel: <tag>" (dmesg: "<stamp> <tag>"). */
static int line(enum fmt f, double t, const char *tag, char *buf, size_t len)
{
	char s[96];

	stamp(f, t, s, sizeof(s));
	if (f == FDMESG)
		return snprintf(buf, len, "%s %s\n", s, tag);
	return snprintf(buf, len, "%s node-01 kernel: %s\n", s, tag);
}

static int cut_file(const char *p, double start, double end, size_t cap, struct cut *c)
{
	struct timectx tc = { .ref = end, .tz = NULL };
	struct stat st;
	int fd = open(p, O_RDONLY), rc;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	rc = window_cut(fd, st.st_size, start, end, 120, cap, &tc, c);
	close(fd);
	return rc;
}

static long long io_field(const char *name)
{
	FILE *f = fopen("/proc/self/io", "r");
	char key[64];
	long long v, res = -1;

	if (!f)
		return -1;
	while (fscanf(f, "%63[^:]: %lld\n", key, &v) == 2)
		if (!strcmp(key, name))
			res = v;
	fclose(f);
	return res;
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* 2 GB, holes but for 16 clusters of 50 lines, one every 128 MB, 8 hours
 * apart (5 days in all).  The window runs from line 10 of cluster 7 to
 * line 20 of cluster 8: exactly those 61 lines (and the untimed line and
 * the slightly-back-in-time line among them) come out. */
START_TEST(sparse_2g)
{
	const char *p = path("sparse.log");
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	char buf[256], tag[64];
	char *expect = calloc(1, 1 << 20);
	size_t elen = 0;
	double start = T0 + 7 * 8 * 3600 + 10 * 60, end = T0 + 8 * 8 * 3600 + 20 * 60;
	struct cut c;
	long long rchar0, rchar1;
	double t0;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 2048 * MB), 0);
	for (int k = 0; k < 16; k++) {
		off_t off = (off_t)k * 128 * MB;

		for (int i = 0; i < 50; i++) {
			double t = T0 + k * 8 * 3600 + i * 60;
			int n;

			if (k == 8 && i == 15)
				t -= 90; /* the clock went back a little */
			snprintf(tag, sizeof(tag), "cluster %d line %d", k, i);
			n = line(F3164, t, tag, buf, sizeof(buf));
			if (k == 7 && i == 12) /* an untimed line in the window */
				n += snprintf(buf + n, sizeof(buf) - n, "    continuation of line 12\n");
			if (k == 7 && i == 5) /* and one before it */
				n += snprintf(buf + n, sizeof(buf) - n, "    continuation of line 5\n");
			ck_assert_int_eq(pwrite(fd, buf, n, off), n);
			off += n;
			if ((k == 7 && i >= 10) || (k == 8 && (t <= end)))
				memcpy(expect + elen, buf, n), elen += n;
		}
	}
	close(fd);

	rchar0 = io_field("rchar");
	t0 = mono();
	ck_assert_int_eq(cut_file(p, start, end, 64 * MB, &c), 0);
	t0 = mono() - t0;
	rchar1 = io_field("rchar");
	fprintf(stderr,
		"sparse 2 GB: %ld lines [%lld, %lld) first %d last %d, %llu bytes read in %d probes, rchar "
		"%lld, %.4f s\n",
		c.lines, (long long)c.lo, (long long)c.hi, c.has_first, c.has_last,
		(unsigned long long)c.bytes_read, c.probes, rchar1 - rchar0, t0);
	ck_assert_int_eq(c.lines, 40 + 1 + 21); /* and the untimed line 12 */
	ck_assert_uint_eq(c.len, elen);
	ck_assert(memcmp(c.text, expect, elen) == 0);
	ck_assert(!c.truncated);
	ck_assert_uint_lt(c.bytes_read, 4 * MB);
	if (rchar0 >= 0)
		ck_assert_int_lt(rchar1 - rchar0, 4 * MB);
	/* (what is read is bounded above, by bytes and rchar; the time is
	 * a guard with room for a loaded machine, where 0.5 s was not) */
	ck_assert(t0 < 10);
	cut_free(&c);
	free(expect);
	if (!getenv("KEEP"))
		unlink(p);
}
END_TEST

/* A 5000-line file (one line a minute) in one format: the window of lines
 * 1000..1400 comes out exactly. */
static void one_format(enum fmt f)
{
	char name[32], buf[256], tag[32];
	const char *p;
	FILE *fp;
	struct cut c;
	char first[256], last[256];

	snprintf(name, sizeof(name), "fmt%d.log", f);
	p = path(name);
	fp = fopen(p, "w");
	ck_assert_ptr_nonnull(fp);
	for (int i = 0; i < 5000; i++) {
		snprintf(tag, sizeof(tag), "line %d", i);
		line(f, T0 + i * 60 + 0.25, tag, buf, sizeof(buf));
		fputs(buf, fp);
		if (i == 1000)
			strcpy(first, buf);
		if (i == 1400)
			strcpy(last, buf);
	}
	fclose(fp);
	ck_assert_int_eq(cut_file(p, T0 + 1000 * 60, T0 + 1400 * 60 + 30, 64 * MB, &c), 0);
	ck_assert_int_eq(c.lines, 401);
	ck_assert(!strncmp(c.text, first, strlen(first)));
	ck_assert(!strcmp(c.text + c.len - strlen(last), last));
	ck_assert_uint_lt(c.bytes_read, 300 * 1024);
	cut_free(&c);
}

START_TEST(format_3164)
{
	one_format(F3164);
}
END_TEST
START_TEST(format_3339)
{
	one_format(F3339);
}
END_TEST
START_TEST(format_short_iso)
{
	one_format(FISO);
}
END_TEST
START_TEST(format_dmesg_t)
{
	one_format(FDMESG);
}
END_TEST

static const char *small_file(void)
{
	const char *p = path("small.log");
	FILE *fp = fopen(p, "w");
	char buf[256], tag[32];

	for (int i = 0; i < 3000; i++) {
		snprintf(tag, sizeof(tag), "line %d", i);
		line(F3339, T0 + i * 10, tag, buf, sizeof(buf));
		fputs(buf, fp);
	}
	fclose(fp);
	return p;
}

START_TEST(window_before_file)
{
	struct cut c;

	ck_assert_int_eq(cut_file(small_file(), T0 - 7200, T0 - 3600, 64 * MB, &c), 0);
	ck_assert_int_eq(c.lines, 0);
	ck_assert_uint_eq(c.len, 0);
	ck_assert(c.starts_before);
	ck_assert(c.has_first && c.first == T0);
	ck_assert_uint_lt(c.bytes_read, 256 * 1024);
	cut_free(&c);
}
END_TEST

START_TEST(window_after_file)
{
	struct cut c;

	ck_assert_int_eq(cut_file(small_file(), T0 + 86400, T0 + 90000, 64 * MB, &c), 0);
	ck_assert_int_eq(c.lines, 0);
	ck_assert(c.has_last && c.last == T0 + 2999 * 10);
	ck_assert(!c.starts_before);
	ck_assert_uint_lt(c.bytes_read, 256 * 1024);
	cut_free(&c);
}
END_TEST

START_TEST(window_covers_file)
{
	struct cut c;

	ck_assert_int_eq(cut_file(small_file(), T0 - 10, T0 + 86400, 64 * MB, &c), 0);
	ck_assert_int_eq(c.lines, 3000);
	ck_assert(!c.truncated);
	cut_free(&c);
}
END_TEST

/* More than the cap in the window: the end of it is kept, whole lines. */
START_TEST(cap_keeps_end)
{
	struct cut c;
	char buf[256];

	ck_assert_int_eq(cut_file(small_file(), T0, T0 + 2000 * 10, 10000, &c), 0);
	ck_assert(c.truncated);
	ck_assert_uint_le(c.len, 10000);
	line(F3339, T0 + 2000 * 10, "line 2000", buf, sizeof(buf));
	ck_assert(!strcmp(c.text + c.len - strlen(buf), buf));
	ck_assert(c.len && c.text[c.len - 1] == '\n');
	ck_assert(!strncmp(c.text, "2026-", 5));
	cut_free(&c);
}
END_TEST

/* No timestamp anywhere (raw dmesg): the end of the file. */
START_TEST(no_timestamps)
{
	const char *p = path("raw.log");
	FILE *fp = fopen(p, "w");
	struct cut c;

	for (int i = 0; i < 20000; i++)
		fprintf(fp, "[%6d.000000] raw line %d\n", i, i);
	fclose(fp);
	ck_assert_int_eq(cut_file(p, T0, T0 + 60, 4096, &c), 0);
	ck_assert(c.truncated);
	ck_assert(!c.has_first && !c.has_last);
	ck_assert_uint_le(c.len, 4096);
	ck_assert_ptr_nonnull(strstr(c.text, "raw line 19999\n"));
	cut_free(&c);
}
END_TEST

/* What a crash leaves: NUL bytes before a line; stretches of untimed
 * lines; CRLF. */
START_TEST(garbage)
{
	const char *p = path("garbage.log");
	FILE *fp = fopen(p, "w");
	char buf[256], tag[32];
	struct cut c;

	for (int i = 0; i < 4000; i++) {
		if (i == 2000)
			for (int k = 0; k < 70000; k++)
				fputc(0, fp);
		snprintf(tag, sizeof(tag), "line %d\r", i);
		line(F3164, T0 + i * 10, tag, buf, sizeof(buf));
		fputs(buf, fp);
		if (i % 500 == 7)
			for (int k = 0; k < 300; k++)
				fprintf(fp, "  untimed %d.%d\n", i, k);
	}
	fclose(fp);
	ck_assert_int_eq(cut_file(p, T0 + 1990 * 10, T0 + 2010 * 10, 64 * MB, &c), 0);
	ck_assert_int_eq(c.lines, 21 + 300); /* the untimed lines after 2007 */
	ck_assert(!memchr(c.text, 0, c.len));
	line(F3164, T0 + 2000 * 10, "line 2000\r", buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(c.text, buf));
	cut_free(&c);
	/* line 2007 and the untimed lines after it */
	ck_assert_int_eq(cut_file(p, T0 + 2007 * 10, T0 + 2007 * 10 + 5, 64 * MB, &c), 0);
	ck_assert_int_eq(c.lines, 301);
	cut_free(&c);
}
END_TEST

START_TEST(empty_file)
{
	const char *p = path("empty.log");
	FILE *fp = fopen(p, "w");
	struct cut c;

	fclose(fp);
	ck_assert_int_eq(cut_file(p, T0, T0 + 60, 4096, &c), 0);
	ck_assert_int_eq(c.lines, 0);
	ck_assert_uint_eq(c.len, 0);
	cut_free(&c);
}
END_TEST

/* RFC 3164 lines in the node's local time (Europe/Berlin, UTC+1 in
 * November): the window, given in UTC, is moved by the zone. */
START_TEST(local_zone_3164)
{
	const char *p = path("berlin.log");
	FILE *fp = fopen(p, "w");
	struct timectx tc = { .ref = T0 + 20000, .tz = "Europe/Berlin" };
	struct stat st;
	struct cut c;
	int fd;

	for (int i = 0; i < 3000; i++) {
		time_t t = (time_t)(T0 + 3600 + i * 10); /* local = UTC + 1 h */
		struct tm tm;
		char b[32];

		gmtime_r(&t, &tm);
		strftime(b, sizeof(b), "%b %e %H:%M:%S", &tm);
		fprintf(fp, "%s node-01 kernel: utc %d\n", b, i * 10);
	}
	fclose(fp);
	fd = open(p, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	fstat(fd, &st);
	ck_assert_int_eq(window_cut(fd, st.st_size, T0 + 10000, T0 + 10100, 120, 1 << 20, &tc, &c), 0);
	close(fd);
	ck_assert_int_eq(c.lines, 11);
	ck_assert_ptr_nonnull(strstr(c.text, "kernel: utc 10000\n"));
	ck_assert_ptr_nonnull(strstr(c.text, "kernel: utc 10100\n"));
	cut_free(&c);
}
END_TEST

START_TEST(utf8)
{
	size_t n;
	static const char in[] = "ok \xc3\xa9 \xff\xfe x\0y \xe2\x82 z";
	char *s = text_utf8_fix(in, sizeof(in) - 1, &n);

	ck_assert_str_eq(s, "ok \xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd xy \xef\xbf\xbd\xef\xbf\xbd z");
	ck_assert_uint_eq(n, strlen(s));
	free(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("epilog-window");
	TCase *tc = tcase_create("cut");
	SRunner *sr;
	int failed;

	setenv("TZ", "UTC", 1);
	tcase_add_unchecked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, sparse_2g);
	tcase_add_test(tc, format_3164);
	tcase_add_test(tc, format_3339);
	tcase_add_test(tc, format_short_iso);
	tcase_add_test(tc, format_dmesg_t);
	tcase_add_test(tc, window_before_file);
	tcase_add_test(tc, window_after_file);
	tcase_add_test(tc, window_covers_file);
	tcase_add_test(tc, cap_keeps_end);
	tcase_add_test(tc, no_timestamps);
	tcase_add_test(tc, garbage);
	tcase_add_test(tc, empty_file);
	tcase_add_test(tc, local_zone_3164);
	tcase_add_test(tc, utf8);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	if (made && !getenv("KEEP")) {
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd))
			fprintf(stderr, "could not remove %s\n", dir);
	}
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
