/* attrib export: stored cases (STATE/cases/JOB.ATTEMPT) copied as case
 * directories, each with an expected.json made from its latest label (the
 * label attrib eval reads, doc/formats.md "The evaluation"), so a site
 * grows a corpus of its own incidents.  --anonymise replaces the job's
 * user name, uid and home directory in every file and file name of the
 * case, the same way everywhere, so the case still analyses as before. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "command.h"
#include "contract.h"
#include "fileio.h"
#include "jsonread.h"
#include "label.h"

void usage_export(FILE *out)
{
	fputs("Usage: attrib export JOBID... DIR [--anonymise] [--config FILE]\n"
	      "\n"
	      "Copies the stored case of each job (its latest attempt; STATE/cases/\n"
	      "JOBID.ATTEMPT) to DIR/JOBID.ATTEMPT, with an expected.json made from\n"
	      "the job's latest label (attrib label): the corpus attrib eval DIR\n"
	      "scores.  A job without a label is copied without expected.json (eval\n"
	      "ignores it), and said.\n"
	      "\n"
	      "  --anonymise   replace the job's user name (as a whole word), uid and\n"
	      "                home directory in every file and file name of the case,\n"
	      "                the same everywhere (user1, /home/user1)\n"
	      "Exit status: 0 every job exported; 1 usage, or DIR/JOBID.ATTEMPT\n"
	      "exists; 4 a job has no stored result or case, or a file cannot be\n"
	      "read or written.\n",
	      out);
}

/* what --anonymise replaces, and with what */
struct anon {
	const char *from[3], *to[3];
	int n;
};

static bool word_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Whether the word at buf[i] is the first component of an absolute path
 * ("/dev/null" for a user named dev): a system directory, never the
 * user's, so a user name there is left alone (the case would no longer
 * analyse the same: /dev/null is a discarded stream). */
static bool root_dir(const char *buf, size_t i)
{
	return i > 0 && buf[i - 1] == '/' &&
		(i == 1 || !(word_byte((unsigned char)buf[i - 2]) || buf[i - 2] == '.' || buf[i - 2] == '-'));
}

/* buf with every replacement made (a user name only as a whole word, not
 * a root directory's name); the caller frees; *len updated */
static char *replaced(const char *buf, size_t *len, const struct anon *a)
{
	size_t cap = *len + 64, n = 0;
	char *out = malloc(cap);

	if (!out)
		return NULL;
	for (size_t i = 0; i < *len;) {
		int hit = -1;
		size_t fl = 0;

		for (int k = 0; k < a->n && hit < 0; k++) {
			fl = strlen(a->from[k]);
			if (fl && i + fl <= *len && !memcmp(buf + i, a->from[k], fl) &&
			    (a->from[k][0] == '/' ||
			     (!root_dir(buf, i) && (i == 0 || !word_byte((unsigned char)buf[i - 1])) &&
			      (i + fl == *len || !word_byte((unsigned char)buf[i + fl])))))
				hit = k;
		}
		const char *add = hit >= 0 ? a->to[hit] : buf + i;
		size_t al = hit >= 0 ? strlen(a->to[hit]) : 1;

		if (n + al + 1 > cap) {
			char *more = realloc(out, cap = (n + al + 1) * 2);

			if (!more) {
				free(out);
				return NULL;
			}
			out = more;
		}
		memcpy(out + n, add, al);
		n += al;
		i += hit >= 0 ? fl : 1;
	}
	out[n] = 0;
	*len = n;
	return out;
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		return NULL;
	do {
		if (n + 65536 > cap) {
			char *more = realloc(buf, cap = (n + 65536) * 2);

			if (!more) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = more;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got);
	if (ferror(f)) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = n;
	return buf;
}

static int write_file(const char *path, const char *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	int rc;

	if (fd < 0)
		return -1;
	rc = write_all(fd, buf, len);
	if (close(fd) < 0)
		rc = -1;
	return rc;
}

/* src copied to dst (regular files and directories; anything else is
 * left out, as attribd builds no other); a: NULL or the replacements */
static int copy_tree(const char *src, const char *dst, const struct anon *a)
{
	DIR *d = opendir(src);
	struct dirent *e;
	int rc = 0;

	if (!d || mkdir(dst, 0700) < 0) {
		fprintf(stderr, "attrib: %s: %s\n", d ? dst : src, strerror(errno));
		if (d)
			closedir(d);
		return -1;
	}
	while (rc == 0 && (e = readdir(d))) {
		char from[PATH_MAX], to[PATH_MAX], *name = e->d_name, *anon = NULL;
		size_t nl = strlen(name);
		struct stat st;

		if (!strcmp(name, ".") || !strcmp(name, ".."))
			continue;
		if (a && (anon = replaced(name, &nl, a)))
			name = anon;
		snprintf(from, sizeof(from), "%s/%s", src, e->d_name);
		snprintf(to, sizeof(to), "%s/%s", dst, name);
		free(anon);
		if (lstat(from, &st) < 0)
			rc = -1;
		else if (S_ISDIR(st.st_mode))
			rc = copy_tree(from, to, a);
		else if (S_ISREG(st.st_mode)) {
			size_t len = 0;
			char *buf = read_all(from, &len), *out = buf;

			if (buf && a)
				out = replaced(buf, &len, a);
			rc = out ? write_file(to, out, len) : -1;
			if (out != buf)
				free(out);
			free(buf);
			if (rc < 0)
				fprintf(stderr, "attrib: %s: %s\n", to, strerror(errno));
		}
	}
	closedir(d);
	return rc;
}

static int anonymise_ids(const char *dst)
{
	char path[PATH_MAX + 32];
	struct json_object *j;
	bool changed = false;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/job.json", dst);
	if (!(j = json_object_from_file(path)))
		return -1;
	for (const char *const *k = (const char *const[]){ "uid", "gid", NULL }; *k; k++)
		if (json_object_object_get_ex(j, *k, NULL)) {
			json_object_object_add(j, *k, json_object_new_int(10001));
			changed = true;
		}
	/* (unlinked first: the copy was made O_EXCL, and is rewritten whole) */
	if (changed &&
	    (unlink(path) < 0 ||
	     json_object_to_file_ext(path, j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE) <
		     0)) {
		fprintf(stderr, "attrib: %s: cannot be written\n", path);
		rc = -1;
	}
	json_object_put(j);
	return rc;
}

static int export_one(struct ctx *x, const char *job, const char *dir)
{
	char src[PATH_MAX], dst[PATH_MAX], path[PATH_MAX + 32], home[PATH_MAX] = "";
	struct anon a = { .n = 0 };
	struct json_object *jobj = NULL, *label = NULL;
	long got = -1;
	char *text;
	int rc = EXIT_STORE;

	if (!contract_valid_name(job)) {
		fprintf(stderr, "attrib: %s: not a job id\n", job);
		return EXIT_USAGE;
	}
	if (!(text = store_get(x->s, job, -1, &got))) {
		fprintf(stderr, "attrib: no stored result for job %s\n", job);
		return EXIT_STORE;
	}
	free(text);
	snprintf(src, sizeof(src), "%s/cases/%s.%ld", x->conf.state_dir, job, got);
	snprintf(dst, sizeof(dst), "%s/%s.%ld", dir, job, got);
	snprintf(path, sizeof(path), "%s/job.json", src);
	if (access(dst, F_OK) == 0) {
		fprintf(stderr, "attrib: %s exists\n", dst);
		return EXIT_USAGE;
	}
	if (!(jobj = json_object_from_file(path))) {
		fprintf(stderr, "attrib: job %s: no stored case (%s)\n", job, path);
		return EXIT_STORE;
	}
	if (x->anonymise) {
		const char *user = json_str(jobj, "user");
		struct passwd *pw = user ? getpwnam(user) : NULL;
		/* the home directory first: it may hold the name */
		if (pw && pw->pw_dir && strlen(pw->pw_dir) > 1) {
			snprintf(home, sizeof(home), "%s", pw->pw_dir);
			a.from[a.n] = home;
			a.to[a.n++] = "/home/user1";
		}
		if (user && *user) {
			a.from[a.n] = user;
			a.to[a.n++] = "user1";
		}
	}
	if (copy_tree(src, dst, x->anonymise ? &a : NULL) < 0)
		goto out;
	/* the uid and gid are numbers, which other lines hold too: replaced
	 * in job.json alone */
	if (x->anonymise && anonymise_ids(dst) < 0)
		goto out;
	if (store_latest_label(x->s, job, got, &label) == 1) {
		struct json_object *e = label_expected_json(label);
		const char *s = json_object_to_json_string_ext(e,
							       JSON_C_TO_STRING_PRETTY |
								       JSON_C_TO_STRING_NOSLASHESCAPE);
		size_t len = strlen(s);
		char *out = x->anonymise ? replaced(s, &len, &a) : strdup(s);

		snprintf(path, sizeof(path), "%s/expected.json", dst);
		if (!out || write_file(path, out, len) < 0) {
			fprintf(stderr, "attrib: %s: %s\n", path, strerror(errno));
			free(out);
			json_object_put(e);
			goto out;
		}
		free(out);
		json_object_put(e);
		printf("%s\n", dst);
	} else {
		printf("%s (no label: no expected.json)\n", dst);
	}
	rc = 0;
out:
	json_object_put(label);
	json_object_put(jobj);
	return rc;
}

int cmd_export(struct ctx *x)
{
	const char *dir = x->args[x->nargs - 1];
	int rc = 0;

	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		fprintf(stderr, "attrib: %s: %s\n", dir, strerror(errno));
		return EXIT_USAGE;
	}
	for (int i = 0; i < x->nargs - 1; i++) {
		int r = export_one(x, x->args[i], dir);

		if (r && !rc)
			rc = r;
	}
	return rc;
}
