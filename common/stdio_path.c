/* A batch job's output file pattern expanded the way slurmstepd does for
 * the batch step: one set of rules for jobcomp/attrib (the job record's
 * std_out, std_err) and attrib-collect (the output it reads on the batch
 * host).  No Slurm header: the plugin compiles it in. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stdio_path.h"

char *stdio_expand(const struct stdio_job *r, const char *pat)
{
	const char *user = r->user;
	char *path = NULL;
	size_t len = 0;
	const char *p;
	FILE *b = open_memstream(&path, &len);

	if (!b)
		return NULL;
	if (pat[0] != '/' && r->work_dir) {
		fputs(r->work_dir, b);
		if (!*r->work_dir || r->work_dir[strlen(r->work_dir) - 1] != '/')
			fputc('/', b);
	}
	if (strchr(pat, '\\')) {
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
	for (p = pat; *p;) {
		const char *pct = p;
		unsigned long width = 0;
		char *end;

		if (*p != '%') {
			size_t n = strcspn(p, "%");

			fwrite(p, 1, n, b);
			p += n;
			continue;
		}
		p++;
		if (*p == '%') {
			fputc('%', b);
			p++;
			continue;
		}
		if (*p >= '0' && *p <= '9') {
			width = strtoul(p, &end, 10);
			if (width > 10)
				width = 10;
			p = end;
		}
		switch (*p) {
		case 'a':
			fprintf(b, "%0*" PRIu32, (int)width, r->array_task_id);
			break;
		case 'A':
			fprintf(b, "%0*" PRIu32, (int)width,
				r->array_task_id == STDIO_NO_TASK ? r->job_id : r->array_job_id);
			break;
		case 'j':
		case 'J': /* the batch step: no ".step" */
			fprintf(b, "%0*" PRIu32, (int)width, r->job_id);
			break;
		case 'n': /* node and task of the batch script: 0 */
		case 't':
			fprintf(b, "%0*u", (int)width, 0u);
			break;
		case 'N':
			if (r->batch_host)
				fputs(r->batch_host, b);
			break;
		case 's':
			fputs("batch", b);
			break;
		case 'u':
			if (user)
				fputs(user, b);
			break;
		case 'x':
			if (r->name)
				fputs(r->name, b);
			break;
		default: /* not a pattern: kept as written */
			fwrite(pct, 1, (size_t)(p - pct) + (*p ? 1 : 0), b);
			if (!*p)
				continue;
		}
		p++;
	}
out:
	if (ferror(b) | fclose(b)) {
		free(path);
		return NULL;
	}
	return path;
}

char *stdio_default(const struct stdio_job *r)
{
	return stdio_expand(r, r->array_task_id == STDIO_NO_TASK ? "slurm-%J.out" : "slurm-%A_%a.out");
}
