/* The case directory of one job attempt, STATE/cases/JOBID.ATTEMPT:
 *
 *   job.json        the job record, with the ranks of every node's bundle
 *   nodes/NODE/F    each file F of NODE's bundle
 *   evidence.json   {"files": {"nodes/NODE/F": {"origin": O}}}: who could
 *                   have written each node file, as its collector says
 *   app/F           the job's std_out and std_err, read as the job's user
 *   scheduler/slurmctld.log   the lines of SlurmctldLog naming the job
 *   topology.conf   the site's topology (TopologyFile), or topology.yaml
 *
 * The job's output files are the only user-controlled paths the service
 * opens (only with ReadJobOutput; else the batch host's collector sends
 * their ends in its bundle): read as the job's user, never through a
 * symlink (common/userfile.c); what cannot be read is a coverage entry. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "casebuild.h"
#include "conf.h"
#include "contract.h"
#include "jsonread.h"
#include "log.h"
#include "spool.h"
#include "text.h"
#include "timefmt.h"
#include "topology_site.h"
#include "userfile.h"
#include "util.h"

#define SCHED_SCAN_MAX (256L << 20) /* of SlurmctldLog's end */
#define SCHED_KEEP_MAX (4L << 20)   /* lines kept for one job */

static void cov_add(struct json_object *cov, const char *source, const char *status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void cov_add(struct json_object *cov, const char *source, const char *status, const char *fmt, ...)
{
	struct json_object *e = json_object_new_object();
	char detail[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	/* source and detail carry a bundle's words and the job's output
	 * paths: cleaned like every string of a result (common/text.h) */
	char *src = text_clean_str(source, sizeof(detail)), *det = text_clean_str(detail, sizeof(detail));

	json_object_object_add(e, "source", json_object_new_string(src));
	json_object_object_add(e, "status", json_object_new_string(status));
	json_object_object_add(e, "detail", json_object_new_string(det));
	json_object_array_add(cov, e);
	free(src);
	free(det);
}

/* A file name for the case: name if valid, else its valid characters. */
static void safe_name(const char *name, char *out, size_t cap, const char *fallback)
{
	size_t o = 0;

	for (const char *p = name ? name : ""; *p && o + 1 < cap && o < NAME_MAX_LEN; p++) {
		unsigned char c = *p;

		if (c == '/') {
			o = 0; /* the last component */
			continue;
		}
		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
		    c == '_' || c == '-')
			out[o++] = c;
		else
			out[o++] = '_';
	}
	out[o] = 0;
	while (out[0] == '.' || out[0] == '-')
		memmove(out, out + 1, strlen(out));
	for (char *d; (d = strstr(out, ".."));)
		d[0] = '_';
	if (!contract_valid_name(out))
		snprintf(out, cap, "%s", fallback);
}

static int write_in(const char *dir, const char *name, const char *data, size_t len)
{
	char p[PATH_MAX];

	if (snprintf(p, sizeof(p), "%s/%s", dir, name) >= (int)sizeof(p)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return svc_write_file(p, data, len);
}

/* Order of steps: a later srun step wins over the batch script's. */
static long step_key(struct json_object *r)
{
	const char *s = json_str(r, "step");
	char *end;
	long v;

	if (!s)
		return -1;
	if (!strcmp(s, "batch"))
		return -2;
	if (!strcmp(s, "extern"))
		return -3;
	v = strtol(s, &end, 10);
	return *end || v < 0 ? -1 : v;
}

/* Every task record of node's bundle into ranks, as it comes; one per
 * rank is kept at the end (ranks_finish). */
static void add_ranks(struct json_object *ranks, struct json_object *bundle, const char *node)
{
	struct json_object *arr, *v;

	if (!json_object_object_get_ex(bundle, "ranks", &arr) || !json_object_is_type(arr, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		struct json_object *r = json_object_array_get_idx(arr, i), *copy = NULL;
		const char *rn;

		if (!json_object_is_type(r, json_type_object) || !json_object_object_get_ex(r, "rank", &v) ||
		    !json_object_is_type(v, json_type_int) || json_object_get_int(v) < 0)
			continue;
		rn = json_str(r, "node");
		if (rn && strcmp(rn, node))
			continue; /* a node speaks for itself only */
		if (json_object_deep_copy(r, &copy, NULL) || !copy)
			continue;
		json_object_object_add(copy, "node", json_object_new_string(node));
		json_object_array_add(ranks, copy);
	}
}

struct rank_ref {
	int rank;
	long step;
	size_t seq; /* order of arrival */
	struct json_object *o;
};

static int by_rank_step_seq(const void *a, const void *b)
{
	const struct rank_ref *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The ranks by rank number, one record each: a later srun step wins over
 * the batch script's, and of equal steps the record that came last.  By
 * sorting, not by looking each record up among those before it: 16,384
 * ranks would cost 134 million comparisons. */
static struct json_object *ranks_finish(struct json_object *all)
{
	size_t n = json_object_array_length(all);
	struct rank_ref *v = calloc(n ? n : 1, sizeof(*v));
	struct json_object *out = json_object_new_array_ext((int)n), *r;

	if (!v)
		return out;
	for (size_t i = 0; i < n; i++) {
		v[i].o = json_object_array_get_idx(all, i);
		json_object_object_get_ex(v[i].o, "rank", &r);
		v[i].rank = json_object_get_int(r);
		v[i].step = step_key(v[i].o);
		v[i].seq = i;
	}
	qsort(v, n, sizeof(*v), by_rank_step_seq);
	for (size_t i = 0; i < n; i++)
		if (i + 1 == n || v[i + 1].rank != v[i].rank)
			json_object_array_add(out, json_object_get(v[i].o));
	free(v);
	return out;
}

/* A bundle file's origin for evidence.json.  The bundle is the root
 * collector's (MUNGE, uid 0), so its word is taken; a file without a known
 * origin (a collector older than origins) is "file", the least trusted:
 * nobody vouches that the kernel wrote it. */
static const char *origin_of(struct json_object *f)
{
	static const char *const known[] = { ORIGIN_NAME_KERNEL, ORIGIN_NAME_JOURNAL,
					     ORIGIN_NAME_JOURNAL_USER, ORIGIN_NAME_FILE };
	const char *o = json_str(f, "origin");

	for (size_t i = 0; o && i < sizeof(known) / sizeof(*known); i++)
		if (!strcmp(o, known[i]))
			return known[i];
	return ORIGIN_NAME_FILE;
}

/* nodes/NODE/<files> from NODE's bundle (each with its origin in
 * manifest); its ranks and coverage. */
static void node_evidence(const struct attrib_config *conf, const char *case_dir, const char *job_id,
			  const char *node, const char *start, struct json_object *ranks,
			  struct json_object *cov, struct json_object *manifest, int *stale,
			  struct json_object *app)
{
	char *bpath = spool_bundle_path(conf->state_dir, job_id, node), dir[PATH_MAX], err[256];
	struct json_object *b, *files, *bc;
	const char *s;
	int written = 0;

	if (!bpath)
		return;
	b = json_read_file(bpath, conf->max_bundle_bytes, JSON_MAX_DEPTH, err, sizeof(err));
	if (!b) {
		struct json_object *rej;
		double since = 0;

		snprintf(dir, sizeof(dir), CASE_NODES "/%s", node);
		if (access(bpath, F_OK) == 0) {
			cov_add(cov, dir, COVERAGE_ERROR, "bundle unreadable: %s", err);
		} else {
			/* the engine says the node is missing; a refusal of its
			 * bundle since this attempt started says why */
			if (!start || !time_parse_rfc3339(start, &since))
				since = 0;
			if ((rej = spool_rejection(conf->state_dir, job_id, node, since))) {
				cov_add(cov, dir, COVERAGE_ERROR, "rejected: %.400s",
					json_str(rej, "detail"));
				json_object_put(rej);
			}
		}
		free(bpath);
		return;
	}
	if (!(s = json_str(b, "schema")) || strcmp(s, ATTRIB_BUNDLE_SCHEMA) || !(s = json_str(b, "job_id")) ||
	    strcmp(s, job_id) || !(s = json_str(b, "node")) || strcmp(s, node)) {
		snprintf(dir, sizeof(dir), CASE_NODES "/%s", node);
		cov_add(cov, dir, COVERAGE_ERROR, "bundle is not %s of job %s from %s", ATTRIB_BUNDLE_SCHEMA,
			job_id, node);
		json_object_put(b);
		free(bpath);
		return;
	}
	/* checked here, on the bundle parsed once for the case, not by the
	 * main loop on every bundle each time one more arrives */
	if (!spool_bundle_fresh(b, start)) {
		/* this attempt's own bundle replaces it (the caller may wait) */
		log_msg(LOGL_INFO, "job %s: dropping %s, from an earlier attempt", job_id, bpath);
		unlink(bpath);
		if (stale)
			(*stale)++;
		json_object_put(b);
		free(bpath);
		return;
	}
	free(bpath);
	snprintf(dir, sizeof(dir), "%s/" CASE_NODES "/%s", case_dir, node);
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		log_msg(LOGL_ERROR, "cannot create %s: %s", dir, strerror(errno));
		json_object_put(b);
		return;
	}
	if (json_object_object_get_ex(b, "files", &files) && json_object_is_type(files, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(files); i++) {
			struct json_object *f = json_object_array_get_idx(files, i), *t;
			char name[NAME_MAX_LEN + 32], fallback[32], p[PATH_MAX + sizeof(name) + 2];

			if (!json_object_is_type(f, json_type_object) ||
			    !json_object_object_get_ex(f, "text", &t) ||
			    !json_object_is_type(t, json_type_string))
				continue;
			/* the job's output, read on the batch host as the job's
			 * user: app/, the first bundle's (not a node log), by
			 * its path (one file may be both streams) and stream */
			if ((s = json_str(f, "origin")) && !strcmp(s, ORIGIN_NAME_JOB_OUTPUT)) {
				const char *keys[2] = { json_str(f, "source"), json_str(f, "stream") };

				for (int k = 0; k < 2; k++)
					if (keys[k] && *keys[k] &&
					    !json_object_object_get_ex(app, keys[k], NULL))
						json_object_object_add(app, keys[k], json_object_get(t));
				continue;
			}
			snprintf(fallback, sizeof(fallback), "file-%zu.log", i);
			safe_name(json_str(f, "name"), name, NAME_MAX_LEN - 24, fallback);
			snprintf(p, sizeof(p), "%s/%s", dir, name);
			if (access(p, F_OK) == 0) /* two files of one name: the second gets .N */
				snprintf(name + strlen(name), sizeof(name) - strlen(name), ".%zu", i);
			if (write_in(dir, name, json_object_get_string(t), json_object_get_string_len(t)) <
			    0) {
				log_msg(LOGL_ERROR, "cannot write %s/%s: %s", dir, name, strerror(errno));
			} else {
				struct json_object *m = json_object_new_object();
				char rel[PATH_MAX];

				json_object_object_add(m, "origin", json_object_new_string(origin_of(f)));
				snprintf(rel, sizeof(rel), CASE_NODES "/%s/%s", node, name);
				json_object_object_add(manifest, rel, m);
				written++;
			}
		}
	}
	add_ranks(ranks, b, node);
	if (json_object_object_get_ex(b, "coverage", &bc) && json_object_is_type(bc, json_type_array))
		for (size_t i = 0; i < json_object_array_length(bc) && i < 64; i++) {
			struct json_object *c = json_object_array_get_idx(bc, i);
			const char *src = json_str(c, "source"), *st = json_str(c, "status");
			const char *det = json_str(c, "detail");
			char source[256];

			/* "info" says how the collector had a source (the
			 * window's start, journalctl, a default the node lacks,
			 * kmsg left for the journal): no gap */
			if (!src || (st && !strcmp(st, COVERAGE_INFO)))
				continue;
			snprintf(source, sizeof(source), CASE_NODES "/%s:%.200s", node, src);
			cov_add(cov, source,
				st && !strcmp(st, COVERAGE_MISSING) ? COVERAGE_MISSING : COVERAGE_ERROR,
				"%.400s", det ? det : "");
		}
	if (!written) {
		/* an empty directory would only say "no log files" */
		rmdir(dir);
	}
	json_object_put(b);
}

/* app/<name>: the end of one output file, read as the job's user. */
static void app_file(const struct attrib_config *conf, const char *case_dir, struct json_object *rec,
		     const char *key, const char *path, const char *taken, char *name, size_t namecap,
		     struct json_object *app, struct json_object *cov)
{
	struct json_object *bt;
	struct job_record_view jr;
	char err[256], source[NAME_MAX_LEN + 32], full[PATH_MAX], dir[PATH_MAX];
	const char *wd;
	long long uid, gid;
	bool missing;
	size_t len;
	char *data;

	job_record_read(rec, &jr, err, sizeof(err)); /* what it has is enough here */
	wd = jr.work_dir;
	uid = jr.uid;
	gid = jr.gid;
	if (*path != '/') {
		if (!wd || *wd != '/') {
			snprintf(source, sizeof(source), CASE_APP "/%s", key);
			cov_add(cov, source, COVERAGE_ERROR, "%s is relative and the record has no work_dir",
				key);
			return;
		}
		snprintf(full, sizeof(full), "%s/%s", wd, path);
		path = full;
	}
	if (!strcmp(path, "/dev/null")) { /* (-o /dev/null: Slurm wrote nothing) */
		snprintf(source, sizeof(source), CASE_APP "/%s", key);
		cov_add(cov, source, COVERAGE_INFO,
			"%s is /dev/null: the job discarded it; nothing to collect", key);
		return;
	}
	safe_name(path, name, namecap, key);
	if (taken && !strcmp(taken, name)) {
		char tmp[NAME_MAX_LEN + 16];

		snprintf(tmp, sizeof(tmp), "%s-%.*s", key, NAME_MAX_LEN - 10, name);
		snprintf(name, namecap, "%s", tmp);
	}
	snprintf(source, sizeof(source), CASE_APP "/%s", name);
	if (json_object_object_get_ex(app, path, &bt) || json_object_object_get_ex(app, key, &bt)) {
		/* the batch host's collector read it where the job wrote it */
		data = NULL;
		len = (size_t)json_object_get_string_len(bt);
		if (len > (size_t)conf->app_max_bytes)
			len = (size_t)conf->app_max_bytes;
		snprintf(dir, sizeof(dir), "%s/" CASE_APP, case_dir);
		if ((mkdir(dir, 0700) < 0 && errno != EEXIST) ||
		    write_in(dir, name, json_object_get_string(bt) + json_object_get_string_len(bt) - len,
			     len) < 0)
			log_msg(LOGL_ERROR, "cannot write %s/%s: %s", dir, name, strerror(errno));
		return;
	}
	if (strcmp(conf->read_job_output ? conf->read_job_output : "no", "yes")) {
		cov_add(cov, source, COVERAGE_MISSING,
			"%s %s: not in the batch host's bundle (and ReadJobOutput = "
			"no: the service does not read it itself)",
			key, path);
		return;
	}
	if (uid < 0 || uid >= (long long)(uid_t)-1 || gid < 0 || gid >= (long long)(gid_t)-1) {
		cov_add(cov, source, COVERAGE_ERROR, "the record has no uid/gid: %s not read", key);
		return;
	}
	data = read_tail_as_user(path, (uid_t)uid, (gid_t)gid, conf->app_max_bytes, &len, &missing, err,
				 sizeof(err));
	if (!data) {
		cov_add(cov, source, missing ? COVERAGE_MISSING : COVERAGE_ERROR, "%s %s: %s; not read", key,
			path, err);
		log_msg(LOGL_INFO, "%s %s of uid %lld not read: %s", key, path, uid, err);
		return;
	}
	snprintf(dir, sizeof(dir), "%s/" CASE_APP, case_dir);
	if ((mkdir(dir, 0700) < 0 && errno != EEXIST) || write_in(dir, name, data, len) < 0)
		log_msg(LOGL_ERROR, "cannot write %s/%s: %s", dir, name, strerror(errno));
	free(data);
}

/* scheduler/slurmctld.log: SlurmctldLog's lines that name JobId=ID. */
static void sched_log(const struct attrib_config *conf, const char *case_dir, const char *job_id,
		      struct json_object *cov)
{
	char needle[NAME_MAX_LEN + 8], out[PATH_MAX];
	struct stat st;
	FILE *in, *o = NULL;
	char *line = NULL;
	size_t cap = 0, kept = 0, nl = 0;
	ssize_t n;
	int fd;

	if (!conf->slurmctld_log)
		return;
	fd = open(conf->slurmctld_log, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		cov_add(cov, CASE_SCHEDULER "/slurmctld.log", COVERAGE_ERROR, "%s: %s", conf->slurmctld_log,
			fd < 0 ? strerror(errno) : "not a regular file");
		if (fd >= 0)
			close(fd);
		return;
	}
	if (st.st_size > SCHED_SCAN_MAX)
		lseek(fd, st.st_size - SCHED_SCAN_MAX, SEEK_SET);
	if (!(in = fdopen(fd, "r"))) {
		close(fd);
		return;
	}
	nl = snprintf(needle, sizeof(needle), "JobId=%s", job_id);
	while ((n = getline(&line, &cap, in)) > 0 && kept < SCHED_KEEP_MAX) {
		char *p = line;

		while ((p = strcasestr(p, needle))) {
			char next = p[nl];

			if (!(next >= '0' && next <= '9') && next != '_')
				break;
			p += nl;
		}
		if (!p)
			continue;
		if (!o) {
			snprintf(out, sizeof(out), "%s/" CASE_SCHEDULER, case_dir);
			if (mkdir(out, 0700) < 0 && errno != EEXIST)
				break;
			snprintf(out, sizeof(out), "%s/" CASE_SCHEDULER "/slurmctld.log", case_dir);
			if (!(o = fopen(out, "w")))
				break;
		}
		fwrite(line, 1, n, o);
		kept += n;
	}
	free(line);
	fclose(in);
	if (o)
		fclose(o);
}

/* DIR/NAME: o as JSON (0600, as every file of a case) */
static int write_json(const char *dir, const char *name, struct json_object *o, char *err, size_t errlen)
{
	char path[PATH_MAX];
	const char *text = json_object_to_json_string_ext(o,
							  JSON_C_TO_STRING_PRETTY |
								  JSON_C_TO_STRING_NOSLASHESCAPE);

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (svc_write_file(path, text, strlen(text)) < 0) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

char *casebuild(const struct attrib_config *conf, struct json_object *record, const char *job_id,
		long attempt, struct json_object *history, struct json_object *cov, int *stale, char *err,
		size_t errlen)
{
	struct json_object *job = NULL, *nodes, *ranks = json_object_new_array();
	struct json_object *evidence = json_object_new_object(), *manifest = json_object_new_object();
	struct json_object *app = json_object_new_object(); /* path, stream -> a bundle's text */
	char *dir = NULL, sub[PATH_MAX], outname[NAME_MAX_LEN + 16] = "", errname[NAME_MAX_LEN + 16];
	char why[256];
	struct job_record_view jr;
	const char *so, *se;

	if (stale)
		*stale = 0;
	if (!contract_valid_name(job_id)) {
		snprintf(err, errlen, "job id \"%.64s\" cannot be a path", job_id);
		goto fail;
	}
	if (asprintf(&dir, "%s/cases/%s.%ld", conf->state_dir, job_id, attempt) < 0) {
		dir = NULL;
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	/* a case left by an interrupted run is built again from scratch */
	if (svc_rmtree(dir) < 0 || mkdir(dir, 0700) < 0) {
		snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
		goto fail;
	}
	/* app/ and scheduler/ come with their first file (an empty directory
	 * says nothing) */
	snprintf(sub, sizeof(sub), "%s/" CASE_NODES, dir);
	if (mkdir(sub, 0700) < 0) {
		snprintf(err, errlen, "cannot create %s: %s", sub, strerror(errno));
		goto fail;
	}
	if (json_object_deep_copy(record, &job, NULL) || !job) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (json_object_object_get_ex(job, "nodes", &nodes) && json_object_is_type(nodes, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(nodes); i++) {
			const char *node = json_object_get_string(json_object_array_get_idx(nodes, i));

			if (!contract_valid_name(node)) {
				cov_add(cov, CASE_NODES, COVERAGE_ERROR,
					"node name \"%.64s\" is not usable; not read", node ? node : "");
				continue;
			}
			node_evidence(conf, dir, job_id, node, json_str(record, "start_time"), ranks, cov,
				      manifest, stale, app);
		}
	}
	if (json_object_array_length(ranks))
		json_object_object_add(job, "ranks", ranks_finish(ranks));

	job_record_read(record, &jr, why, sizeof(why)); /* the engine judges the rest */
	so = jr.std_out;
	se = jr.std_err;
	if (so && *so)
		app_file(conf, dir, record, "std_out", so, NULL, outname, sizeof(outname), app, cov);
	if (se && *se && !(so && !strcmp(so, se)))
		app_file(conf, dir, record, "std_err", se, outname, errname, sizeof(errname), app, cov);
	if (jr.std_out_guessed)
		log_msg(LOGL_DEBUG, "job %s: std_out guessed as %s", job_id, so);
	sched_log(conf, dir, job_id, cov);
	if (topology_site_copy(conf, dir, why, sizeof(why)) < 0)
		cov_add(cov, "topology", COVERAGE_ERROR, "%s", why);

	/* a job that never started has no start time: its window is its end */
	if (!json_str(job, "start_time") && json_str(job, "end_time"))
		json_object_object_add(job, "start_time", json_object_new_string(json_str(job, "end_time")));
	/* the attempt is a fact of the job the result shows: from the case,
	 * like every other (attrib analyze of the case gives the stored result) */
	json_object_object_add(job, "attempt", json_object_new_int64(attempt));
	/* without it the engine would trust every node file as a hand-made
	 * case's: no case then.  With the files' origins, what the service
	 * could not collect (the engine adds it to its coverage) and, for a
	 * revision, the diagnoses before */
	json_object_object_add(evidence, "files", json_object_get(manifest));
	json_object_object_add(evidence, EVIDENCE_COVERAGE, json_object_get(cov));
	if (history) {
		json_object_object_foreach (history, hk, hv)
			json_object_object_add(evidence, hk, json_object_get(hv));
	}
	if (write_json(dir, EVIDENCE_MANIFEST, evidence, err, errlen) < 0 ||
	    write_json(dir, CASE_JOB, job, err, errlen) < 0)
		goto fail;
	json_object_put(job);
	json_object_put(ranks);
	json_object_put(evidence);
	json_object_put(app);
	json_object_put(manifest);
	return dir;
fail:
	json_object_put(job);
	json_object_put(ranks);
	json_object_put(evidence);
	json_object_put(app);
	json_object_put(manifest);
	free(dir);
	return NULL;
}
