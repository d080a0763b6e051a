/* attrib-collect: the slurmd Epilog that sends a job's node evidence to
 * attrib serve (doc/live-pipeline.md §3).
 *
 * Runs as root with SLURM_JOB_ID set; cuts the job's time window out of
 * each LogSources entry, adds the SPANK plugin's task records, and POSTs
 * one bundle signed with a MUNGE credential bound to its SHA-256.  When
 * the service does not take it within CollectTimeout the bundle waits in
 * NodeSpoolDir/outbox/ for the next run.  Always exits 0: a problem is a
 * line in the log and, when it concerns evidence, a coverage entry. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <math.h>
#include <stdarg.h>
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
#include <curl/curl.h>
#include "window.h"

/* ---- main ---- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: attrib-collect [-c attrib.conf] [--munge-socket PATH] [--job ID] [--node NAME] "
		"[--print]\n"
		"       attrib-collect --health [-c attrib.conf] [--munge-socket PATH] [--node NAME] "
		"[--print]\n"
		"       attrib-collect --cut FILE --start TIME --end TIME [--tz ZONE] [--cap BYTES] "
		"[--stats]\n"
		"Slurm Epilog: sends the job's node logs and task records to attribd.\n"
		"--print: writes the bundle (the report) to standard output; sends nothing.\n"
		"--health (HealthCheckProgram): runs HealthCheck, reports it, exits with its status.\n"
		"TIME is RFC 3339 or seconds since the epoch.  Always exits 0 as an Epilog.\n");
}

static int cut_main(const char *path, const char *start_s, const char *end_s, const char *tz, long cap,
		    bool stats)
{
	struct timectx tc = { 0 };
	double start, end, t0 = now_mono();
	struct stat st;
	char why[256];
	struct cut c;
	int fd;
	char *zone = NULL;

	if (!parse_when(start_s, &start) || !parse_when(end_s, &end)) {
		fprintf(stderr,
			"attrib-collect: --start and --end must be RFC 3339 times or epoch seconds\n");
		return 2;
	}
	tc.ref = end;
	tc.tz = tz ? tz : (zone = local_zone());
	zone_set(tc.tz);
	if ((fd = open_log_file(path, &st, why, sizeof(why))) < 0) {
		fprintf(stderr, "attrib-collect: %s: %s\n", path, why);
		free(zone);
		return 1;
	}
	if (window_cut(fd, st.st_size, start, end, SLACK, cap > 0 ? (size_t)cap : (size_t)1 << 40, &tc, &c)) {
		fprintf(stderr, "attrib-collect: %s: %s\n", path, strerror(errno));
		close(fd);
		free(zone);
		return 1;
	}
	close(fd);
	fwrite(c.text, 1, c.len, stdout);
	fflush(stdout);
	if (stats)
		fprintf(stderr,
			"lines=%ld bytes=%zu read=%llu probes=%d lo=%lld hi=%lld truncated=%d seconds=%.6f\n",
			c.lines, c.len, (unsigned long long)c.bytes_read, c.probes, (long long)c.lo,
			(long long)c.hi, c.truncated, now_mono() - t0);
	cut_free(&c);
	free(zone);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' }, { "munge-socket", required_argument, NULL, 'm' },
		{ "job", required_argument, NULL, 'j' },    { "node", required_argument, NULL, 'n' },
		{ "print", no_argument, NULL, 'p' },	    { "cut", required_argument, NULL, 'C' },
		{ "start", required_argument, NULL, 's' },  { "end", required_argument, NULL, 'e' },
		{ "tz", required_argument, NULL, 'z' },	    { "cap", required_argument, NULL, 'k' },
		{ "stats", no_argument, NULL, 'S' },	    { "health", no_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },	    { NULL, 0, NULL, 0 },
	};
	const char *conf_path = getenv("ATTRIB_CONF"), *munge_opt = NULL, *job = getenv("SLURM_JOB_ID");
	const char *node = getenv("SLURMD_NODENAME"), *cut = NULL, *start_s = NULL, *end_s = NULL, *tz = NULL;
	const char *munge_from = "";
	bool print = false, stats = false, health = false;
	long cap = 0;
	int ch;
	struct attrib_config conf;
	struct collect_ctx cx = { 0 };
	struct timectx tc = { 0 };
	struct job_info j = { 0 };
	json_object *cov, *bundle = NULL;
	char host[256], why[512], err[1024], *zone = NULL, *body = NULL;
	size_t blen = 0;
	int spool = -1;
	char *cfgerr = NULL;
	size_t cfgerrlen = 0;
	FILE *cfgf;

	signal(SIGPIPE, SIG_IGN);
	while ((ch = getopt_long(argc, argv, "c:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			conf_path = optarg;
			break;
		case 'm':
			munge_opt = optarg;
			break;
		case 'j':
			job = optarg;
			break;
		case 'n':
			node = optarg;
			break;
		case 'p':
			print = true;
			break;
		case 'C':
			cut = optarg;
			break;
		case 's':
			start_s = optarg;
			break;
		case 'e':
			end_s = optarg;
			break;
		case 'z':
			tz = optarg;
			break;
		case 'k':
			cap = strtol(optarg, NULL, 10);
			break;
		case 'S':
			stats = true;
			break;
		case 'H':
			health = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return cut ? 2 : 0;
		}
	}
	if (cut)
		return cut_main(cut, start_s, end_s, tz, cap, stats);

	/* configuration; its problems are logged, what it could read is used */
	cfgf = open_memstream(&cfgerr, &cfgerrlen);
	if (config_load(conf_path && *conf_path ? conf_path : ATTRIB_CONF_DEFAULT, &conf,
			cfgf ? cfgf : stderr) &&
	    conf.log_sources == NULL)
		config_load(NULL, &conf, stderr);
	if (cfgf)
		fclose(cfgf);
	if (collect_log_open(conf.log_file, valid_job_id(job) ? job : NULL) < 0)
		clog_msg("cannot open LogFile %s: %s; logging to the system log", conf.log_file,
			 strerror(errno));
	if (cfgerr && *cfgerr) {
		for (char *line = strtok(cfgerr, "\n"); line; line = strtok(NULL, "\n"))
			clog_msg("config: %s", line);
	}
	free(cfgerr);
	cx.conf = &conf;
	cx.deadline = now_mono() + (conf.collect_timeout > 0 ? (double)conf.collect_timeout : 1.0);
	cx.munge_socket = munge_socket_choice(munge_opt, &munge_from);
	curl_global_init(CURL_GLOBAL_DEFAULT);

	if (!node || !*node) {
		if (gethostname(host, sizeof(host)) == 0) {
			host[sizeof(host) - 1] = 0;
			host[strcspn(host, ".")] = 0;
			node = host;
		} else {
			node = "unknown";
		}
	}
	cx.node = node;
	if (health) {
		int status = health_main(&conf, &cx, print);

		config_free(&conf);
		free(cx.munge_socket);
		curl_global_cleanup();
		return status;
	}
	spool = open_spool(conf.node_spool_dir ? conf.node_spool_dir : "/var/spool/attrib/node", why,
			   sizeof(why));
	if (spool < 0)
		clog_msg("NodeSpoolDir %s: %s (no task records, no outbox)",
			 conf.node_spool_dir ? conf.node_spool_dir : "", why);

	if (!valid_job_id(job)) {
		clog_msg("SLURM_JOB_ID %s%s%s: not a job id; sending only what earlier runs left",
			 job ? "\"" : "", job ? job : "unset", job ? "\"" : "");
		if (!print)
			outbox_flush(&cx, spool, cx.deadline);
		goto out;
	}

	cov = json_object_new_array();
	j.job_id = job;
	j.node = node;
	j.ranks = json_object_new_array();
	node_file_name(node, j.file_node, sizeof(j.file_node));
	if (spool < 0)
		cover(cov, "task-records", COVERAGE_ERROR, "NodeSpoolDir %s: %s",
		      conf.node_spool_dir ? conf.node_spool_dir : "", why);
	{
		double min_exit, max_exit, min_start;

		read_records(spool, &j, cov, &min_exit, &max_exit, &min_start);
		read_output_record(spool, &j);
		if (spool >= 0) {
			char other[256] = "";
			int others = spool_mark(spool, node, other, sizeof(other));

			/* the plugin writes where its node's Epilog reads: a spool
			 * shared with other nodes takes their records and outboxes */
			if (others || j.foreign)
				cover(cov, "node-spool", COVERAGE_ERROR,
				      "NodeSpoolDir %s is shared with other nodes (%d other nodes' "
				      "marks%s%s, %d of "
				      "their task records): it must be local to each node; only %s's records "
				      "were taken",
				      conf.node_spool_dir ? conf.node_spool_dir : "", others,
				      others ? ", node@" : "", other, j.foreign, node);
		}
		job_window(&j, min_exit, max_exit, min_start, cov);
	}
	cx.start = j.start - (double)conf.window_margin;
	cx.end = j.end + (double)conf.window_margin;
	tc.ref = j.end;
	tc.tz = zone = local_zone();
	zone_set(tc.tz);
	cx.tc = &tc;
	bundle = bundle_build(&cx, &j, cov);
	body = bundle_body(bundle, conf.max_bundle_bytes, cov, &blen);
	json_object_put(cov);
	if (!body) {
		clog_msg("cannot serialise the bundle");
		goto out;
	}
	if (print) {
		fwrite(body, 1, blen, stdout);
		putchar('\n');
		goto out;
	}

	/* earlier bundles first, with at most half of the time left */
	outbox_flush(&cx, spool, now_mono() + remaining(&cx) / 2);
	enum send_status rc = send_body(&cx, j.job_id, j.node, body, blen, cx.deadline, 1000, err,
					sizeof(err));

	if (rc == SEND_OK) {
		remove_records(spool, &j);
	} else {
		char where[1024];

		if (outbox_put(spool, j.job_id, body, blen, where, sizeof(where)) == 0) {
			/* the bundle in the outbox carries the task records now */
			remove_records(spool, &j);
			clog_msg("bundle not sent (%s); left in %s for the next run%s", err, where,
				 rc == SEND_REFUSED ? " (the service refused it)" : "");
		} else
			clog_msg("bundle not sent (%s) and not kept: %s", err, where);
	}
out:
	if (bundle)
		json_object_put(bundle);
	json_object_put(j.ranks);
	for (int i = 0; i < j.nrecords; i++)
		free(j.record_names[i]);
	free(j.record_names);
	free(j.job_name);
	free(body);
	free(zone);
	free(cx.munge_socket);
	if (spool >= 0)
		close(spool);
	config_free(&conf);
	curl_global_cleanup();
	return 0;
}
