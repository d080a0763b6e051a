/* The service's inputs on disk.  Job records: SPOOL/jobs/JOBID.ATTEMPT.json,
 * written atomically by jobcomp/attrib (dot-files are its temporaries), and
 * STATE/reconcile/JOBID.ATTEMPT.json from reconciliation.  Bundles:
 * STATE/incoming/JOBID/NODE.json, renamed into place from
 * STATE/incoming/.tmp before the 202 answer. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "contract.h"
#include "jsonread.h"
#include "log.h"
#include "spool.h"
#include "timefmt.h"
#include "util.h"

int spool_parse_name(const char *file, struct record_name *rn)
{
	size_t n = strlen(file);
	const char *dot;
	char buf[NAME_MAX_LEN + 32];
	char *end;

	if (n < 8 || n >= sizeof(buf) || file[0] == '.' || strcmp(file + n - 5, ".json"))
		return -1;
	memcpy(buf, file, n - 5);
	buf[n - 5] = 0;
	dot = strrchr(buf, '.');
	if (!dot || !dot[1] || dot == buf)
		return -1;
	errno = 0;
	rn->attempt = strtol(dot + 1, &end, 10);
	if (*end || errno || rn->attempt < 0 || rn->attempt > 1000000 || dot[1] == '-' || dot[1] == '+')
		return -1;
	buf[dot - buf] = 0;
	if (!contract_valid_name(buf))
		return -1;
	strcpy(rn->job_id, buf);
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int spool_each_record(const char *dir,
		      int (*fn)(const char *dir, const char *file, const struct record_name *rn, void *arg),
		      void *arg)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;

	if (!d)
		return errno == ENOENT ? 0 : -1;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap * 2 + 64) * sizeof(*names));

			if (!nn)
				break;
			names = nn;
		}
		if (!(names[n] = strdup(e->d_name)))
			break;
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		struct record_name rn;

		if (spool_parse_name(names[i], &rn) == 0)
			fn(dir, names[i], &rn, arg);
		else
			log_msg(LOGL_DEBUG, "%s/%s: not a JOBID.ATTEMPT.json record; ignored", dir, names[i]);
		free(names[i]);
	}
	free(names);
	return 0;
}

char *spool_bundle_path(const char *state_dir, const char *job_id, const char *node)
{
	char *p;

	if (!contract_valid_name(job_id) || !contract_valid_name(node))
		return NULL;
	if (asprintf(&p, "%s/incoming/%s/%s.json", state_dir, job_id, node) < 0)
		return NULL;
	return p;
}

int spool_tmp_bundle(const char *state_dir, char *path, size_t pathlen)
{
	int fd;

	if (snprintf(path, pathlen, "%s/incoming/.tmp/bundle.XXXXXX", state_dir) >= (int)pathlen) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkostemp(path, O_CLOEXEC);
	return fd;
}

/* Group commit: the end of a 2,048-node job brings a thousand bundles a
 * second, and three journal commits each (the file, its directory, and
 * incoming/) cost more than the disk gives (bench/README.md, section 5).
 * Every file's writeback is started first, so the first fsync's commit
 * carries the others' and theirs find little left to do; the renames then
 * share one commit per directory. */
void spool_commit_bundles(const char *state_dir, struct spool_pending *v, size_t n)
{
	char dir[PATH_MAX];
	bool created = false;

	for (size_t i = 0; i < n; i++)
		sync_file_range(v[i].fd, 0, 0, SYNC_FILE_RANGE_WRITE);
	for (size_t i = 0; i < n; i++) {
		v[i].err = fsync(v[i].fd) < 0 ? errno : 0;
		if (close(v[i].fd) < 0 && !v[i].err)
			v[i].err = errno;
		v[i].fd = -1;
		v[i].placed = false;
	}
	for (size_t i = 0; i < n; i++) {
		char *dst = spool_bundle_path(state_dir, v[i].job_id, v[i].node);

		if (v[i].err)
			continue;
		if (!dst) {
			v[i].err = EINVAL;
			continue;
		}
		snprintf(dir, sizeof(dir), "%s/incoming/%s", state_dir, v[i].job_id);
		if (mkdir(dir, 0700) == 0)
			created = true;
		else if (errno != EEXIST)
			v[i].err = errno;
		if (!v[i].err && rename(v[i].tmp, dst) < 0)
			v[i].err = errno;
		v[i].placed = !v[i].err;
		free(dst);
	}
	/* each job's directory once, then incoming/ when a job's is new (a new
	 * directory must itself survive a crash) */
	for (size_t i = 0; i < n; i++) {
		size_t k;
		int e;

		if (!v[i].placed)
			continue;
		for (k = 0; k < i && !(v[k].placed && !strcmp(v[k].job_id, v[i].job_id)); k++)
			;
		if (k < i)
			continue; /* done with the first of its job */
		snprintf(dir, sizeof(dir), "%s/incoming/%s", state_dir, v[i].job_id);
		e = svc_fsync_dir(dir) < 0 ? errno : 0;
		for (k = i; e && k < n; k++)
			if (v[k].placed && !strcmp(v[k].job_id, v[i].job_id))
				v[k].err = e;
	}
	if (created) {
		int e;

		snprintf(dir, sizeof(dir), "%s/incoming", state_dir);
		e = svc_fsync_dir(dir) < 0 ? errno : 0;
		for (size_t i = 0; e && i < n; i++)
			if (v[i].placed && !v[i].err)
				v[i].err = e;
	}
}

/* ---- refused bundles ---------------------------------------------------
 * A bundle refused after its credential named its job and node (made on
 * an address that is not the node's, expired, its body not the one the
 * credential names) would only leave that node "missing" in the job's
 * diagnosis: an administrator whose munged puts the wrong address would
 * see every job unattributed without a word of why.  So the HTTP thread
 * keeps the last refusal of each (job, node) as STATE/rejected/JOBID/
 * NODE.json, casebuild makes it the node's coverage entry when no bundle
 * of it came, and attribd --check counts them.  One small file a (job,
 * node), replaced, removed with the age of the spool (spool_gc). */

static int rejection_path(const char *state_dir, const char *job_id, const char *node, char *buf, size_t len)
{
	if (!contract_valid_name(job_id) || !contract_valid_name(node))
		return -1;
	return snprintf(buf, len, "%s/rejected/%s/%s.json", state_dir, job_id, node) < (int)len ? 0 : -1;
}

int spool_note_rejection(const char *state_dir, const char *job_id, const char *node, const char *kind,
			 const char *why, time_t at)
{
	char path[PATH_MAX], dir[PATH_MAX], when[40];
	struct json_object *o;
	int rc;

	if (rejection_path(state_dir, job_id, node, path, sizeof(path)) < 0)
		return -1;
	snprintf(dir, sizeof(dir), "%s/rejected/%s", state_dir, job_id);
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -1;
	o = json_object_new_object();
	json_object_object_add(o, "job_id", json_object_new_string(job_id));
	json_object_object_add(o, "node", json_object_new_string(node));
	json_object_object_add(o, "at", json_object_new_string(time_format_sec(at, when, sizeof(when))));
	json_object_object_add(o, "reason", json_object_new_string(kind));
	json_object_object_add(o, "detail", json_object_new_string(why));
	json_clean_strings(o);
	const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	rc = svc_write_atomic(path, text, strlen(text));
	json_object_put(o);
	return rc;
}

struct json_object *spool_rejection(const char *state_dir, const char *job_id, const char *node, double since)
{
	char path[PATH_MAX], err[128];
	struct json_object *o;
	const char *at;
	double t;

	if (rejection_path(state_dir, job_id, node, path, sizeof(path)) < 0 ||
	    !(o = json_read_file(path, 16384, 4, err, sizeof(err))))
		return NULL;
	if (!json_str(o, "detail") || !(at = json_str(o, "at")) || !time_parse_rfc3339(at, &t) || t < since) {
		json_object_put(o); /* not this attempt's (an earlier one's) */
		return NULL;
	}
	return o;
}

void spool_drop_bundles(const char *state_dir, const char *job_id)
{
	char dir[PATH_MAX];

	if (!contract_valid_name(job_id))
		return;
	snprintf(dir, sizeof(dir), "%s/incoming/%s", state_dir, job_id);
	if (svc_rmtree(dir) < 0)
		log_msg(LOGL_WARNING, "cannot remove %s: %s", dir, strerror(errno));
}

void spool_gc(const char *state_dir, long max_age)
{
	char dir[PATH_MAX], sub[PATH_MAX + 260];
	DIR *d;
	struct dirent *e;
	time_t now = time(NULL);

	/* incoming: bundles no record came for; done: the inputs of diagnoses
	 * kept for a late bundle to revise (serve.c), for as long; rejected:
	 * the refusals, as long as the bundles they stand for */
	static const char *const kept[] = { "incoming", "done", "rejected" };

	for (int k = 0; k < 3; k++) {
		snprintf(dir, sizeof(dir), "%s/%s", state_dir, kept[k]);
		if (!(d = opendir(dir)))
			continue;
		while ((e = readdir(d))) {
			struct stat st;

			if (e->d_name[0] == '.')
				continue;
			snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
			if (lstat(sub, &st) == 0 && now - st.st_mtime > max_age) {
				log_msg(k ? LOGL_DEBUG : LOGL_INFO, "removing %s of job %s: %s %ld s",
					k == 2	    ? "the refusals"
						: k ? "the kept inputs"
						    : "bundles",
					e->d_name, k ? "older than" : "no record for them in", max_age);
				svc_rmtree(sub);
			}
		}
		closedir(d);
	}
	/* uploads interrupted long ago */
	snprintf(dir, sizeof(dir), "%s/incoming/.tmp", state_dir);
	if (!(d = opendir(dir)))
		return;
	while ((e = readdir(d))) {
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
		if (lstat(sub, &st) == 0 && S_ISREG(st.st_mode) && now - st.st_mtime > 3600)
			unlink(sub);
	}
	closedir(d);
}

int spool_prepare(const char *state_dir, char *err, size_t errlen)
{
	static const char *subs[] = { "",	    "/incoming", "/incoming/.tmp", "/cases",
				      "/reconcile", "/done",	 "/rejected" };
	char p[PATH_MAX];
	struct stat st;

	for (size_t i = 0; i < sizeof(subs) / sizeof(*subs); i++) {
		snprintf(p, sizeof(p), "%s%s", state_dir, subs[i]);
		if (svc_mkdir_p(p, 0700) < 0) {
			snprintf(err, errlen, "cannot create %s: %s", p, strerror(errno));
			return -1;
		}
		if (lstat(p, &st) < 0 || !S_ISDIR(st.st_mode)) {
			snprintf(err, errlen, "%s is not a directory", p);
			return -1;
		}
		if (st.st_uid != geteuid() || (st.st_mode & 022)) {
			snprintf(err, errlen, "%s must be owned by uid %u and not writable by others", p,
				 (unsigned)geteuid());
			return -1;
		}
	}
	/* what an interrupted upload left */
	snprintf(p, sizeof(p), "%s/incoming/.tmp", state_dir);
	svc_rmtree(p);
	if (mkdir(p, 0700) < 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", p, strerror(errno));
		return -1;
	}
	return 0;
}

/* A bundle belongs to the attempt whose record started at start (RFC 3339)
 * only if its tasks started in that attempt: a requeued job's earlier
 * attempt leaves bundles under the same job id, and their epilogs may
 * finish after the next attempt's record is written.  Without task start
 * times the bundle is taken (its window includes a margin, so it cannot
 * tell the attempts apart). */
bool spool_bundle_fresh(struct json_object *b, const char *start)
{
	struct json_object *ranks;
	double t_start, latest = 0;

	if (!start || !time_parse_rfc3339(start, &t_start))
		return true;
	if (json_object_object_get_ex(b, "ranks", &ranks) && json_object_is_type(ranks, json_type_array))
		for (size_t i = 0; i < json_object_array_length(ranks); i++) {
			struct json_object *st;
			double t;

			if (json_object_object_get_ex(json_object_array_get_idx(ranks, i), "start_time",
						      &st) &&
			    json_object_is_type(st, json_type_string) &&
			    time_parse_rfc3339(json_object_get_string(st), &t) && t > latest)
				latest = t;
		}
	/* a task of this attempt starts after slurmctld started the attempt;
	 * one second absorbs the skew of NTP-synchronised clocks (a requeued
	 * attempt can start seconds after the last one's tasks did) */
	return latest == 0 || latest >= t_start - 1;
}

/* ---- who may write the spool (doc/hardening.md, "Spool") ---- */

static uid_t slurm_user = (uid_t)-1;

void spool_set_slurm_user(uid_t u)
{
	slurm_user = u;
}

bool spool_writer_ok(uid_t uid)
{
	return uid == 0 || uid == geteuid() || (slurm_user != (uid_t)-1 && uid == slurm_user);
}

/* One directory of the spool itself: lstat, so a symbolic link is refused
 * (the service, as root, would otherwise read wherever it points). */
static int check_own_dir(const char *p, char *err, size_t errlen)
{
	struct stat st;

	if (lstat(p, &st) < 0)
		return errno == ENOENT ? 1 : (snprintf(err, errlen, "%s: %s", p, strerror(errno)), -1);
	if (S_ISLNK(st.st_mode)) {
		snprintf(err, errlen, "%s is a symbolic link; refused (name the directory itself)", p);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s is not a directory", p);
		return -1;
	}
	if (!spool_writer_ok(st.st_uid)) {
		snprintf(err, errlen, "%s is owned by uid %u, not root, SlurmUser or the service's user%s", p,
			 (unsigned)st.st_uid,
			 slurm_user == (uid_t)-1 ? " (SlurmUser unknown: no slurm.conf)" : "");
		return -1;
	}
	if (st.st_mode & 022) {
		snprintf(err, errlen,
			 "%s is writable by group or others (mode %04o); a user could "
			 "plant job records",
			 p, (unsigned)(st.st_mode & 07777));
		return -1;
	}
	return 0;
}

int spool_check_dir(const char *spool_dir, char *err, size_t errlen)
{
	char p[PATH_MAX];
	int rc;

	if (snprintf(p, sizeof(p), "%s", spool_dir) >= (int)sizeof(p)) {
		snprintf(err, errlen, "SpoolDir too long");
		return -1;
	}
	/* the parents: whoever may rename an entry in one may swap the spool */
	for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		struct stat st;

		*s = 0;
		if (stat(p, &st) == 0 && (st.st_mode & 022) && !(st.st_mode & S_ISVTX)) {
			snprintf(err, errlen,
				 "%s (a parent of SpoolDir) is writable by group or others "
				 "without the sticky bit",
				 p);
			return -1;
		}
		if (stat(p, &st) == 0 && !spool_writer_ok(st.st_uid)) {
			snprintf(err, errlen, "%s (a parent of SpoolDir) is owned by uid %u", p,
				 (unsigned)st.st_uid);
			return -1;
		}
		*s = '/';
	}
	if ((rc = check_own_dir(p, err, errlen)))
		return rc > 0 ? 0 : -1;
	snprintf(p, sizeof(p), "%s/jobs", spool_dir);
	rc = check_own_dir(p, err, errlen);
	return rc > 0 ? 0 : rc;
}
