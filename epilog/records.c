/* attrib-collect: the SPANK plugin's task records of the job
 * (NODESPOOL/JOBID/task-*.json) and the job's time window. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>
#include "conf.h"
#include "contract.h"
#include "fileio.h"
#include "log.h"
#include "text.h"
#include "timefmt.h"
#include "xalloc.h"
#include "collect.h"

#define MAX_RECORDS 4096 /* task records read per job */
#define MAX_RECORD_BYTES (1 << 20)

/* The job directory as read_records takes it: ours, not writable by others. */
static bool dfd_ok(int dfd)
{
	struct stat st;

	return fstat(dfd, &st) == 0 && st.st_uid == geteuid() && !(st.st_mode & 022);
}

/* Reads NODESPOOL/JOBID/task-*.json into j->ranks. */
void read_records(int spool, struct job_info *j, json_object *cov, double *min_exit, double *max_exit,
		  double *min_start)
{
	int dfd;
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	int n = 0, bad = 0;

	*min_exit = *max_exit = *min_start = NAN;
	if (spool < 0)
		return;
	dfd = openat(spool, j->job_id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		if (errno != ENOENT)
			cover(cov, "task-records", COVERAGE_ERROR, "%s: %s", j->job_id, strerror(errno));
		return;
	}
	/* the SPANK plugin (slurmstepd, root) makes it ours and 0700: anything
	 * else could hold records a user planted */
	struct stat dst;

	if (fstat(dfd, &dst) < 0 || dst.st_uid != geteuid() || (dst.st_mode & 022)) {
		cover(cov, "task-records", COVERAGE_ERROR,
		      "%s: not owned by uid %ld or writable by others; "
		      "not read",
		      j->job_id, (long)geteuid());
		close(dfd);
		return;
	}
	if (!(d = fdopendir(dfd))) {
		close(dfd);
		return;
	}
	while ((de = readdir(d)) && n < MAX_RECORDS) {
		size_t len = strlen(de->d_name);
		const char *at;

		if (strncmp(de->d_name, "task-", 5) || len < 10 || strcmp(de->d_name + len - 5, ".json"))
			continue;
		/* task-STEP-RANK@NODE.json: another node's is not ours to send */
		if ((at = strrchr(de->d_name, '@')) &&
		    ((size_t)(de->d_name + len - 5 - (at + 1)) != strlen(j->file_node) ||
		     strncmp(at + 1, j->file_node, strlen(j->file_node)))) {
			j->foreign++;
			continue;
		}
		names = xrealloc(names, (n + 1) * sizeof(*names));
		names[n++] = strdup_or_die(de->d_name);
	}
	if (n)
		qsort(names, n, sizeof(*names), name_cmp);
	for (int i = 0; i < n; i++) {
		struct stat st;
		int fd = openat(dirfd(d), names[i], O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		char *buf = NULL;
		json_object *o = NULL, *v;
		ssize_t got = -1;
		double t;

		/* (a record of another owner, or a hard link, is not the plugin's) */
		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < MAX_RECORD_BYTES &&
		    st.st_uid == geteuid() && st.st_nlink == 1) {
			buf = xmalloc((size_t)st.st_size + 1);
			got = pread(fd, buf, (size_t)st.st_size, 0);
		}
		if (fd >= 0)
			close(fd);
		if (got >= 0) {
			buf[got] = 0;
			o = json_tokener_parse(buf);
		}
		free(buf);
		/* (a record of an older plugin, without the node in its name) */
		if (o && !strchr(names[i], '@') && json_object_object_get_ex(o, "node", &v) &&
		    json_object_is_type(v, json_type_string) && strcmp(json_object_get_string(v), j->node)) {
			j->foreign++;
			json_object_put(o);
			continue;
		}
		if (!o || !json_object_is_type(o, json_type_object)) {
			if (bad++ < 5)
				cover(cov, "task-records", COVERAGE_ERROR, "%s/%s: not a task record",
				      j->job_id, names[i]);
			json_object_put(o);
			continue;
		}
		if (json_object_object_get_ex(o, "exit_time", &v) &&
		    time_parse_rfc3339(json_object_get_string(v), &t)) {
			if (isnan(*min_exit) || t < *min_exit)
				*min_exit = t;
			if (isnan(*max_exit) || t > *max_exit)
				*max_exit = t;
		}
		if (json_object_object_get_ex(o, "start_time", &v) &&
		    time_parse_rfc3339(json_object_get_string(v), &t) &&
		    (isnan(*min_start) || t < *min_start))
			*min_start = t;
		if (json_object_object_get_ex(o, "step", &v) && json_object_is_type(v, json_type_string) &&
		    !strcmp(json_object_get_string(v), "batch"))
			j->batch_host = true;
		json_object_array_add(j->ranks, o);
		j->record_names = xrealloc(j->record_names, (j->nrecords + 1) * sizeof(char *));
		j->record_names[j->nrecords++] = strdup_or_die(names[i]);
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(d);
}

/* o's key as a uint32_t; false when absent or not one */
static bool u32_of(json_object *o, const char *key, uint32_t *v)
{
	json_object *x;
	int64_t n;

	if (!json_object_object_get_ex(o, key, &x) || !json_object_is_type(x, json_type_int))
		return false;
	n = json_object_get_int64(x);
	if (n < 0 || n > UINT32_MAX)
		return false;
	*v = (uint32_t)n;
	return true;
}

void read_output_record(int spool, struct job_info *j)
{
	char name[300];
	struct stat st;
	int dfd, fd;
	char *buf = NULL;
	ssize_t got = -1;
	json_object *o = NULL, *v;

	if (spool < 0)
		return;
	if ((dfd = openat(spool, j->job_id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return;
	snprintf(name, sizeof(name), "output@%s.json", j->file_node);
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	/* the plugin's, as a task record: ours, one link, small */
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < MAX_RECORD_BYTES &&
	    st.st_uid == geteuid() && st.st_nlink == 1 && (dfd_ok(dfd))) {
		buf = xmalloc((size_t)st.st_size + 1);
		got = pread(fd, buf, (size_t)st.st_size, 0);
	}
	if (fd >= 0)
		close(fd);
	close(dfd);
	if (got >= 0) {
		buf[got] = 0;
		o = json_tokener_parse(buf);
	}
	free(buf);
	if (!o)
		return;
	/* (an older plugin's std_out and std_err, the descriptors it saw
	 * before slurmstepd set them, are not the job's: not read) */
	if (json_object_object_get_ex(o, "job_name", &v))
		j->job_name = strdup_or_die(
			json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "(null)");
	j->array_known = u32_of(o, "array_job_id", &j->array_job_id) &&
		u32_of(o, "array_task_id", &j->array_task_id);
	if (!u32_of(o, "slurm_version", &j->slurm_version))
		j->slurm_version = 0;
	json_object_put(o);
	j->batch_host = true;
	j->record_names = xrealloc(j->record_names, (j->nrecords + 1) * sizeof(char *));
	j->record_names[j->nrecords++] = strdup_or_die(name);
}

void remove_records(int spool, const struct job_info *j)
{
	int dfd;

	if (spool < 0 || !j->nrecords)
		return;
	if ((dfd = openat(spool, j->job_id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return;
	for (int i = 0; i < j->nrecords; i++)
		if (unlinkat(dfd, j->record_names[i], 0) && errno != ENOENT)
			clog_msg("cannot remove task record %s: %s", j->record_names[i], strerror(errno));
	close(dfd);
	if (unlinkat(spool, j->job_id, AT_REMOVEDIR) && errno != ENOTEMPTY && errno != EEXIST &&
	    errno != ENOENT)
		clog_msg("cannot remove %s: %s", j->job_id, strerror(errno));
}

/* The job's start and end: Slurm's (23.02+ sets them for the Epilog),
 * else the task records', else the last hour. */
void job_window(struct job_info *j, double min_exit, double max_exit, double min_start, json_object *cov)
{
	double now = now_real(), t;
	const char *from_start = NULL, *from_end = NULL;

	j->end = NAN;
	j->start = NAN;
	if (parse_when(getenv("SLURM_JOB_END_TIME"), &t) && t > 0)
		j->end = t, from_end = "SLURM_JOB_END_TIME";
	else if (!isnan(max_exit))
		j->end = max_exit, from_end = "task records";
	if (isnan(j->end) || j->end > now + 300)
		j->end = now, from_end = from_end ? "now (the given end is in the future)" : "now";
	if (parse_when(getenv("SLURM_JOB_START_TIME"), &t) && t > 0 && t <= j->end)
		j->start = t, from_start = "SLURM_JOB_START_TIME";
	else if (!isnan(min_start) && min_start <= j->end)
		j->start = min_start, from_start = "task records' start_time";
	else if (!isnan(min_exit) && min_exit <= j->end)
		j->start = min_exit - 3600, from_start = "an hour before the first task exit";
	else
		j->start = j->end - 3600, from_start = "an hour before the end";
	if (strcmp(from_start, "SLURM_JOB_START_TIME") && strncmp(from_start, "task records", 12))
		cover(cov, "window", COVERAGE_INFO, "job start unknown: window from %s; end from %s",
		      from_start, from_end);
}

void node_file_name(const char *node, char *out, size_t len)
{
	snprintf(out, len, "%s", node);
	for (char *c = out; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_' && *c != '.')
			*c = '_';
}
