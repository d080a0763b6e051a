/* A batch job's output paths (stdio_path.c). */
#ifndef ATTRIB_STDIO_PATH_H
#define ATTRIB_STDIO_PATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* not an array job: Slurm's NO_VAL, which %a prints for one as slurmstepd does */
#define STDIO_NO_TASK 0xfffffffeU
/* SLURM_VERSION_NUM(24, 11, 0): the first release that expands %b */
#define STDIO_PCT_B_SINCE 0x180b00U

struct stdio_job {
	uint32_t job_id, array_job_id, array_task_id; /* array_task_id: STDIO_NO_TASK */
	bool array_unknown;			      /* the array ids are not known */
	/* SLURM_VERSION_NUMBER of the slurmstepd that named the files; 0: the newest */
	uint32_t slurm_version;
	/* the job's working directory; %N, %u, %x: slurmstepd's short host
	 * name (slurmd's gethostname), the user's name, SLURM_JOB_NAME of the
	 * batch step's environment; NULL: not known */
	const char *work_dir, *host, *user, *name;
};

/* pat expanded as slurmstepd expands a batch step's output pattern
 * (fname_create, src/slurmd/common/fname.c: a number other than 0 is
 * /dev/null; a pattern with a backslash is taken literally, backslashes
 * removed; %A %a %b %j %J %n %N %s %t %u %x %%, with a zero-pad width of
 * at most 10), made absolute with the working directory as Slurm does.
 * Malloc'd; NULL with a reason in err when a value it needs is not known,
 * or out of memory. */
char *stdio_expand(const struct stdio_job *r, const char *pat, char *err, size_t errlen);
/* Where Slurm writes a batch job's output when it names none. */
char *stdio_default(const struct stdio_job *r, char *err, size_t errlen);
/* The paths of the batch step's standard output and error (equal when
 * they are one file; malloc'd), from the patterns the job was given (NULL:
 * none): -e defaults to -o's pattern, and both to Slurm's name, as
 * batch_stepd_step_rec_create does.  0, or -1 with a reason in err. */
int stdio_paths(const struct stdio_job *r, const char *out_pat, const char *err_pat, char **out_path,
		char **err_path, char *err, size_t errlen);

#endif
