/*
 * common/stdio_path.c against Slurm's own code: fname_create (from the
 * configured Slurm source tree the plugins are built against,
 * src/slurmd/common/fname.c, compiled into this program and linked with
 * libslurmfull) expands every pattern below for the batch step of several
 * jobs (plain, array tasks, a working directory with and without its
 * trailing '/', a job without SLURM_JOB_NAME), as slurmstepd does when it
 * opens the batch script's output; stdio_expand must give the same path,
 * byte for byte.  The patterns: every conversion (%A %a %b %j %J %n %N %s
 * %t %u %x), zero padding (%4j, %010a, widths over 10), %%, a '%' at the
 * end, conversions Slurm does not know, single-task numbers (/dev/null),
 * backslash escapes, absolute and relative paths.
 *
 * Prints one line per mismatch and "N passed, N failed"; exit 1 on any.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "src/slurmd/common/fname.c"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stdio_path.h"

slurmd_conf_t *conf; /* slurmd's; fname_create reads conf->hostname */

static const char *const patterns[] = {
	"slurm-%j.out",
	"slurm-%J.out",
	"slurm-%A_%a.out",
	"%x-%j-%u-%N.out",
	"out-%j-%x.txt",
	"/abs/%u/%x.%j.err",
	"%4j",
	"%04j",
	"%10j",
	"%12j",
	"%99999999999999999999j",
	"%010a",
	"%5A_%3a",
	"%b",
	"%3b-%A",
	"%s",
	"%5s",
	"%t%n",
	"%3t-%2n",
	"%J.%s",
	"%%",
	"%%j",
	"%%%j",
	"100%",
	"a%",
	"%5",
	"a%12",
	"%z",
	"%5z",
	"%12z",
	"%5%j",
	"%q%j",
	"%j%",
	"%u%u%x%x",
	"%N",
	"/dev/null",
	"0",
	"3",
	"17",
	" 5",
	"+2",
	"-1",
	"4294967296",
	"07",
	"out\\%j.txt",
	"out\\\\%j.txt",
	"/abs/out\\%j",
	"a\\",
	"dir/",
	"./x-%j",
	"../up/%j",
	"",
};

struct job {
	uint32_t job_id, array_job_id, array_task_id;
	const char *cwd, *user, *name; /* name NULL: no SLURM_JOB_NAME */
};

static const struct job jobs[] = {
	{ 4242, 0, NO_VAL, "/home/kim/run", "kim", "train" },
	{ 4251, 4242, 7, "/home/kim/run/", "kim", "sweep" },
	{ 123456789, 123456700, 13, "/scratch", "a.b", "x%j y" },
	{ 9, 0, NO_VAL, "/w", "root", NULL },
};

int main(void)
{
	slurmd_conf_t c = { 0 };
	int passed = 0, failed = 0;

	c.hostname = "node-07";
	conf = &c;
	for (size_t k = 0; k < sizeof(jobs) / sizeof(jobs[0]); k++) {
		const struct job *j = &jobs[k];
		char envname[256], *env[2] = { NULL, NULL };
		stepd_step_rec_t s;
		struct stdio_job sj = {
			.job_id = j->job_id,
			.array_job_id = j->array_job_id,
			.array_task_id = j->array_task_id,
			.slurm_version = SLURM_VERSION_NUMBER,
			.work_dir = j->cwd,
			.host = c.hostname,
			.user = j->user,
			/* glibc's printf of a NULL string, as Slurm's xstrfmtcat */
			.name = j->name ? j->name : "(null)",
		};

		memset(&s, 0, sizeof(s));
		s.batch = true;
		s.cwd = (char *)j->cwd;
		s.step_id.job_id = j->job_id;
		s.step_id.step_id = SLURM_BATCH_SCRIPT;
		s.step_id.step_het_comp = NO_VAL;
		s.array_job_id = j->array_job_id;
		s.array_task_id = j->array_task_id;
		s.user_name = (char *)j->user;
		s.nodeid = 0;
		s.het_job_task_offset = NO_VAL;
		if (j->name) {
			snprintf(envname, sizeof(envname), "SLURM_JOB_NAME=%s", j->name);
			env[0] = envname;
		}
		s.env = env;
		for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++) {
			char *want = fname_create(&s, patterns[i], 0), err[256] = "";
			char *got = stdio_expand(&sj, patterns[i], err, sizeof(err));

			if (want && got && !strcmp(want, got)) {
				passed++;
			} else {
				failed++;
				printf("# job %u, \"%s\": Slurm \"%s\", stdio_expand \"%s\" %s\n", j->job_id,
				       patterns[i], want ? want : "(none)", got ? got : "(none)", err);
			}
			xfree(want);
			free(got);
		}
	}
	printf("# Slurm %d.%02d's fname_create: %d passed, %d failed\n",
	       SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER), SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER), passed,
	       failed);
	return failed ? 1 : 0;
}
