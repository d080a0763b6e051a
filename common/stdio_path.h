/* A batch job's output paths (stdio_path.c). */
#ifndef ATTRIB_STDIO_PATH_H
#define ATTRIB_STDIO_PATH_H

#include <stdint.h>

/* not an array job: Slurm's NO_VAL, which %a prints for one as slurmstepd does */
#define STDIO_NO_TASK 0xfffffffeU

struct stdio_job {
	uint32_t job_id, array_job_id, array_task_id;	 /* array_task_id: STDIO_NO_TASK */
	const char *work_dir, *batch_host, *user, *name; /* any may be NULL */
};

/* pat (%A %a %j %J %n %N %s %t %u %x %%, optional zero-pad width; a
 * pattern with a backslash is taken literally, backslashes removed),
 * made absolute with the working directory; malloc'd, NULL when out of
 * memory. */
char *stdio_expand(const struct stdio_job *r, const char *pat);
/* Where Slurm writes a batch job's output when it names none. */
char *stdio_default(const struct stdio_job *r);

#endif
