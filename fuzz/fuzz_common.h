/* Shared by the libFuzzer targets: the shipped rule catalog, loaded once,
 * and a scratch case directory per fuzzing process. */
#ifndef ATTRIB_FUZZ_COMMON_H
#define ATTRIB_FUZZ_COMMON_H

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "attrib.h"
#include <json-c/json.h>

#ifndef SRCDIR
#define SRCDIR "."
#endif

/* Engine bugs the fuzzers found and that are not fixed yet are tolerated
 * unless FUZZ_STRICT=1 (sanitizer reports of them: fuzz/known-bugs.supp),
 * so that a run finds new ones; t/badinput.c has their tests. */
static inline bool fuzz_strict(void)
{
	const char *v = getenv("FUZZ_STRICT");

	return v && *v && strcmp(v, "0");
}

static attrib_catalog *fuzz_cat;
static char fuzz_dir[64];

/* The catalog of $ATTRIB_RULES, else SRCDIR/rules; a fuzzer without it
 * cannot run. */
static inline void fuzz_load_catalog(void)
{
	char path[4096];
	const char *rules = getenv("ATTRIB_RULES");

	if (!rules) {
		snprintf(path, sizeof(path), "%s/rules", SRCDIR);
		rules = path;
	}
	struct attrib_options opt = attrib_options_env(getenv);

	fuzz_cat = attrib_catalog_load(rules, &opt, stderr);
	if (!fuzz_cat) {
		fprintf(stderr, "fuzz: the rule catalog %s does not load\n", rules);
		exit(1);
	}
}

static int fuzz_rm(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static inline void fuzz_remove_dir(void)
{
	if (*fuzz_dir)
		nftw(fuzz_dir, fuzz_rm, 16, FTW_DEPTH | FTW_PHYS);
}

/* The scratch case, removed when the fuzzer exits (a crash leaves it). */
static inline void fuzz_make_dir(void)
{
	snprintf(fuzz_dir, sizeof(fuzz_dir), "/tmp/attrib-fuzz-XXXXXX");
	if (!mkdtemp(fuzz_dir)) {
		perror("fuzz: mkdtemp");
		exit(1);
	}
	atexit(fuzz_remove_dir);
}

static inline void fuzz_write(const char *rel, const void *buf, size_t len)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", fuzz_dir, rel);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(path);
		abort();
	}
	for (size_t o = 0; o < len;) {
		ssize_t n = write(fd, (const char *)buf + o, len - o);

		if (n <= 0) {
			perror(path);
			abort();
		}
		o += (size_t)n;
	}
	close(fd);
}

static inline void fuzz_mkdir(const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", fuzz_dir, rel);
	mkdir(path, 0755);
}

/* What every result must be, whatever went in: JSON that parses back,
 * strings without NUL bytes.  Any breach is a crash for the fuzzer. */
static inline void fuzz_check_strings(struct json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_string:
		if (strlen(json_object_get_string(o)) != (size_t)json_object_get_string_len(o))
			abort();
		break;
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(o); i++)
			fuzz_check_strings(json_object_array_get_idx(o, i));
		break;
	case json_type_object: {
		json_object_object_foreach (o, k, v) {
			(void)k;
			fuzz_check_strings(v);
		}
		break;
	}
	default:
		break;
	}
}

static inline void fuzz_check_result(struct json_object *r)
{
	struct json_object *back;

	fuzz_check_strings(r);
	back = json_tokener_parse(json_object_to_json_string_ext(r, JSON_C_TO_STRING_PLAIN));
	if (!back)
		abort();
	json_object_put(back);
}

#endif
