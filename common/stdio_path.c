/* A batch job's output file pattern expanded the way slurmstepd does for
 * the batch step: one set of rules for jobcomp/attrib (the job record's
 * std_out, std_err) and attrib-collect (the output it reads on the batch
 * host).  No Slurm header: the plugin compiles it in.
 *
 * A port of fname_create's batch branch (src/slurmd/common/fname.c, the
 * same in Slurm 22.05 and 24.11 but for %b, new in 24.11), quirks
 * included, since the file to read is the one Slurm really opened:
 * t/fname-oracle runs Slurm's own function against this one. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stdio_path.h"

static int unknown(char *err, size_t errlen, char conv, const char *what)
{
	snprintf(err, errlen, "%%%c: %s is not known", conv, what);
	return -1;
}

/* Whether slurmstepd expands %c (the others stay as they stand). */
static bool known(const struct stdio_job *r, char c)
{
	if (c == 'b') /* 24.11 */
		return !r->slurm_version || r->slurm_version >= STDIO_PCT_B_SINCE;
	return c && strchr("aAjJntsNux", c);
}

/* the value of conversion c (padded to wid) on b: 0, or -1 when the value
 * is not known (err) */
static int conversion(FILE *b, const struct stdio_job *r, char c, int wid, char *err, size_t errlen)
{
	switch (c) {
	case 'a':
	case 'b':
	case 'A':
		if (r->array_unknown)
			return unknown(err, errlen, c, "the job's array task");
		fprintf(b, "%0*" PRIu32, wid,
			c == 'a'				    ? r->array_task_id
				: c == 'b'			    ? r->array_task_id % 10
				: r->array_task_id == STDIO_NO_TASK ? r->job_id
								    : r->array_job_id);
		return 0;
	case 'j':
	case 'J': /* jobid.stepid, but the batch step has no ".step" */
		fprintf(b, "%0*" PRIu32, wid, r->job_id);
		return 0;
	case 'n': /* node and task of the batch script: 0 */
	case 't':
		fprintf(b, "%0*u", wid, 0u);
		return 0;
	case 's':
		fputs("batch", b);
		return 0;
	case 'N':
		if (!r->host)
			return unknown(err, errlen, c, "the batch host's name");
		fputs(r->host, b);
		return 0;
	case 'u':
		if (!r->user)
			return unknown(err, errlen, c, "the job's user");
		fputs(r->user, b);
		return 0;
	case 'x':
		if (!r->name)
			return unknown(err, errlen, c, "the job's name");
		fputs(r->name, b);
		return 0;
	}
	return 0;
}

char *stdio_expand(const struct stdio_job *r, const char *pat, char *err, size_t errlen)
{
	char *path = NULL, *end;
	const char *p, *q;
	size_t len = 0;
	unsigned long id = strtoul(pat, &end, 10);
	bool escaped = strchr(pat, '\\') != NULL;
	FILE *b;

	/* fname_single_task_io: a number names the one task that writes to
	 * the file, and the others write to /dev/null; the batch script is
	 * task 0 */
	if (!*end && (int)id > 0) {
		if (!(path = strdup("/dev/null")))
			snprintf(err, errlen, "out of memory");
		return path;
	}
	if (pat[0] != '/' && (!r->work_dir || !*r->work_dir)) {
		snprintf(err, errlen, "%s is relative and the job's working directory is not known", pat);
		return NULL;
	}
	if (!(b = open_memstream(&path, &len))) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (pat[0] != '/') {
		fputs(r->work_dir, b);
		/* (with a backslash, Slurm adds no '/') */
		if (!escaped && r->work_dir[strlen(r->work_dir) - 1] != '/')
			fputc('/', b);
	}
	if (escaped) { /* remove_path_slashes: "\\" is '\', a lone '\' goes */
		for (p = pat; *p; p++) {
			if (*p == '\\') {
				if (p[1] != '\\')
					continue;
				p++;
			}
			fputc(*p, b);
		}
		goto out;
	}
	/* _create_batch_fname: q, the text not yet written; p, the scan */
	for (q = p = pat; *p;) {
		int wid = 0;

		if (*p != '%') {
			p++;
			continue;
		}
		if (p[1] == '%') { /* "%%": one '%' */
			fwrite(q, 1, (size_t)(++p - q), b);
			q = ++p;
			continue;
		}
		if (isdigit((unsigned char)*++p)) {
			unsigned long w;

			fwrite(q, 1, (size_t)(p - 1 - q), b);
			w = strtoul(p, &end, 10);
			p = end;
			wid = w > 10 ? 10 : (int)w;
			q = p - 1; /* (Slurm keeps the width's last digit before what is not a conversion) */
			if (!*p)
				break;
		}
		if (!known(r, *p))
			continue;
		/* what stands before the '%' (or nothing, after a width) */
		fwrite(q, 1, (size_t)(p - 1 - q), b);
		if (conversion(b, r, *p, wid, err, errlen) < 0) {
			fclose(b);
			free(path);
			return NULL;
		}
		q = ++p;
	}
	if (q != p)
		fwrite(q, 1, (size_t)(p - q), b);
out:
	if (ferror(b) | fclose(b)) {
		free(path);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	return path;
}

char *stdio_default(const struct stdio_job *r, char *err, size_t errlen)
{
	if (r->array_unknown) {
		snprintf(err, errlen, "Slurm's default name: the job's array task is not known");
		return NULL;
	}
	return stdio_expand(r, r->array_task_id == STDIO_NO_TASK ? "slurm-%J.out" : "slurm-%A_%a.out", err,
			    errlen);
}

int stdio_paths(const struct stdio_job *r, const char *out_pat, const char *err_pat, char **out_path,
		char **err_path, char *err, size_t errlen)
{
	*out_path = out_pat ? stdio_expand(r, out_pat, err, errlen) : stdio_default(r, err, errlen);
	*err_path = NULL;
	if (!*out_path)
		return -1;
	if (!err_pat)
		err_pat = out_pat;
	*err_path = err_pat ? stdio_expand(r, err_pat, err, errlen) : stdio_default(r, err, errlen);
	if (!*err_path) {
		free(*out_path);
		*out_path = NULL;
		return -1;
	}
	return 0;
}
