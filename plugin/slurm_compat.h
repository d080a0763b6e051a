/*
 * What differs between the Slurm releases attrib is built against, 22.05
 * (Debian 12) and 24.11 (Debian 13), in one place, for plugin/.  Everything
 * else there is written once, for both (slurmapi/, which attribd and attrib
 * reach Slurm through, needs none of it: it names the list types by their
 * structures, struct xlist and struct listIterator, the same in both).
 *
 * Differences that need no conditional, and how the code is written for them:
 *  - host lists: hostlist_t is a pointer type in 22.05 and the structure
 *    itself in 24.11; `struct hostlist *` is right in both.
 *  - slurm_get_errno() is gone in 24.11: Slurm sets errno; read errno.
 *  - plugin_version: slurmctld loads a plugin only when its plugin_version
 *    equals its own SLURM_VERSION_NUMBER (major.minor.micro; SPANK plugins:
 *    major.minor), in both: jobcomp/attrib is built for one release, the
 *    one whose source it is compiled against.
 *  - the job record fields jobcomp/attrib copies (job_record_t and its
 *    details) and the SPANK items spank attrib reads are the same in both.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef ATTRIB_SLURM_COMPAT_H
#define ATTRIB_SLURM_COMPAT_H

#include <slurm/slurm.h> /* SLURM_VERSION_NUMBER, SLURM_VERSION_NUM */

/* list_t, list_itr_t: Slurm's names in 24.11 (22.05 has only List and
 * ListIterator, pointer types; 24.11 only these) */
#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(24, 11, 0)
typedef struct xlist list_t;
typedef struct listIterator list_itr_t;
#endif

/*
 * The names Slurm prints for a job state, a state reason and a time limit:
 * exported by libslurm (and by libslurmfull, which slurmctld runs on) in
 * both releases, declared by neither's <slurm/slurm.h>.  The reason's
 * function is slurm_job_reason_string in 22.05,
 * slurm_job_state_reason_string in 24.11.
 */
extern char *slurm_job_state_string(uint32_t inx);
extern void slurm_mins2time_str(uint32_t time, char *string, int size);
#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(24, 11, 0)
extern char *slurm_job_reason_string(enum job_state_reason inx);
#define slurm_job_state_reason_string slurm_job_reason_string
#else
extern const char *slurm_job_state_reason_string(enum job_state_reason inx);
#endif

/*
 * slurm.conf as slurm_init() read it: libslurm exports it (its slurm_*
 * names) in both releases, <slurm/slurm.h> declares only its type;
 * Slurm's internal read_config.h declares it for jobcomp/attrib.
 */
#ifndef ATTRIB_SLURM_INTERNAL
extern slurm_conf_t slurm_conf;
#endif

/*
 * jobcomp/attrib only (Slurm's internal headers, ATTRIB_SLURM_INTERNAL).
 * configure accepts a Slurm source tree of the releases checked here,
 * 22.05 and 24.11, and refuses the others: between them Slurm moved these
 * one release at a time, and a release not checked may differ elsewhere.
 *  - the jobcomp interface: src/common/slurm_jobcomp.h (22.05),
 *    src/interfaces/jobcomp.h (24.11);
 *  - jobcomp_p_set_location() takes JobCompLoc as its argument, slurmctld's
 *    built-in default "/var/log/slurm_jobcomp.log" when unset (22.05); it
 *    takes nothing, JobCompLoc is slurm_conf.job_comp_loc, NULL when unset
 *    (24.11);
 *  - the job details: `struct job_details` (22.05), the anonymous structure
 *    job_details_t (24.11).
 */
#ifdef ATTRIB_SLURM_INTERNAL
#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(24, 11, 0)
#include "src/common/slurm_jobcomp.h"
typedef struct job_details job_details_t;
#define JOBCOMP_SET_LOCATION_PARAMS char *location
#define JOBCOMP_LOCATION location
#define JOBCOMP_LOCATION_IS_DEFAULT(l) (!strcmp((l), DEFAULT_JOB_COMP_LOC))
#define JOBCOMP_SET_LOCATION(dir) jobcomp_p_set_location(dir)
#else
#include "src/interfaces/jobcomp.h"
#define JOBCOMP_SET_LOCATION_PARAMS void
#define JOBCOMP_LOCATION slurm_conf.job_comp_loc
#define JOBCOMP_LOCATION_IS_DEFAULT(l) ((void)(l), 0)
#define JOBCOMP_SET_LOCATION(dir) (slurm_conf.job_comp_loc = (dir), jobcomp_p_set_location())
#endif
#endif

#endif
