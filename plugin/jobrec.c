/*
 * The job record as JSON: see jobrec.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* open_memstream */
#endif
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <slurm/slurm.h>

#include "jobrec.h"
#include "slurm_compat.h"
#include "util.h"

/* "exit:signal" of a wait status, as sacct prints it */
static void fmt_exit(uint32_t status, char *buf, size_t len)
{
	int code = 0, sig = 0;

	if (status != NO_VAL) {
		if (WIFSIGNALED(status))
			sig = WTERMSIG(status);
		else if (WIFEXITED(status))
			code = WEXITSTATUS(status);
	}
	snprintf(buf, len, "%d:%d", code, sig);
}

/* the state sacct shows for the record (flags such as COMPLETING dropped) */
static const char *state_name(uint32_t state)
{
	if (state & JOB_REQUEUE)
		return "REQUEUED";
	return slurm_job_state_string(state & JOB_STATE_BASE);
}

/*
 * Expand a batch job's output file pattern the way slurmstepd does for the
 * batch step (%A %a %j %J %n %N %s %t %u %x %%, optional zero-pad width; a
 * pattern with a backslash is taken literally, backslashes removed), made
 * absolute with the working directory.
 */
static char *expand_stdio(const struct rec *r, const char *pat, const char *user)
{
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
			       r->array_task_id == NO_VAL ? r->job_id : r->array_job_id);
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

/* r as one line of JSON (malloc; NULL when out of memory): job.json of the
 * contract plus uid, gid, std_out, std_err, work_dir, batch_host, attempt */
char *rec_json(const struct rec *r, size_t *len)
{
	char ec[32], dec[32], limit[64], id[16], pwbuf[4096], *out = NULL, *err = NULL, *line;
	const char *user = r->user;
	struct passwd pw, *pwp = NULL;
	struct json_object *o, *nodes;
	time_t start = r->start;

	if (!user && getpwuid_r((uid_t)r->uid, &pw, pwbuf, sizeof(pwbuf), &pwp) == 0 && pwp)
		user = pw.pw_name;
	/* never started (cancelled while pending): a zero-length run */
	if (start <= 0 || start > r->end)
		start = r->end;
	fmt_exit(r->exit_code, ec, sizeof(ec));
	fmt_exit(r->derived_ec, dec, sizeof(dec));
	slurm_mins2time_str(r->time_limit, limit, sizeof(limit));

	if (r->std_out)
		out = expand_stdio(r, r->std_out, user);
	else if (r->batch_flag)
		out = expand_stdio(r, r->array_task_id == NO_VAL ? "slurm-%J.out" : "slurm-%A_%a.out",
				   user);
	if (r->std_err)
		err = expand_stdio(r, r->std_err, user);
	else if (out)
		err = strdup(out); /* stderr goes where stdout goes */

	if (!(o = json_object_new_object()) || !(nodes = json_object_new_array())) {
		json_object_put(o);
		free(out);
		free(err);
		return NULL;
	}
	snprintf(id, sizeof(id), "%" PRIu32, r->job_id);
	jo_str(o, "schema", "attrib.job/v1");
	jo_str(o, "job_id", id);
	jo_str(o, "cluster", r->cluster);
	jo_str(o, "user", user);
	jo_int(o, "uid", r->uid);
	jo_int(o, "gid", r->gid);
	jo_str(o, "partition", r->partition);
	jo_str(o, "name", r->name);
	/* where the batch script ran: the engine places the batch step's own
	 * lines (its script in Slurm's spool) there */
	jo_str(o, "batch_host", r->batch_host);
	json_object_object_add(o, "nodes", nodes);
	if (r->nodes && *r->nodes) {
		struct hostlist *hl = slurm_hostlist_create(r->nodes);
		char *h;

		while (hl && (h = slurm_hostlist_shift(hl))) {
			json_object_array_add(nodes, json_object_new_string(h));
			free(h);
		}
		if (hl)
			slurm_hostlist_destroy(hl);
	}
	jo_time(o, "submit_time", r->submit);
	jo_time(o, "start_time", start);
	jo_time(o, "end_time", r->end);
	jo_str(o, "state", state_name(r->job_state));
	jo_str(o, "exit_code", ec);
	jo_str(o, "derived_exit_code", dec);
	jo_str(o, "reason", slurm_job_state_reason_string(r->state_reason));
	jo_int(o, "restart_count", r->restart_cnt);
	jo_int(o, "attempt", r->restart_cnt);
	jo_str(o, "time_limit", r->time_limit == NO_VAL ? NULL : limit); /* unknown */
	if (r->array_task_id != NO_VAL) {
		jo_int(o, "array_job_id", r->array_job_id);
		jo_int(o, "array_task_id", r->array_task_id);
	}
	jo_str(o, "std_out", out);
	jo_str(o, "std_err", err);
	jo_str(o, "work_dir", r->work_dir);
	jo_str(o, "batch_host", r->batch_host && *r->batch_host ? r->batch_host : NULL);
	line = jo_line(o, len);
	json_object_put(o);
	free(out);
	free(err);
	return line;
}
