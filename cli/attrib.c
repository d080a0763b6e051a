/* attrib: the command line.  `attrib analyze CASE` diagnoses one job;
 * `attrib rules check` validates a rule catalog; `attrib serve` runs the
 * live pipeline's service, `attrib show`/`attrib list` read its store,
 * `attrib nodes` ranks the nodes it blames. */
#include <ctype.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "attrib.h"
#include "config.h"
#include "render.h"
#ifdef HAVE_SERVICE
#include "conf.h"
#include "service.h"
#include "text.h"
#include "nodes.h"
#endif

enum { EXIT_USAGE = 1, EXIT_CASE = 2, EXIT_RULES = 3, EXIT_STORE = 4 };

static const char *rules_opt;

static void usage(FILE *out)
{
	fputs("Usage: attrib [--rules DIR] COMMAND [ARGS]\n"
	      "\n"
	      "Tells why a distributed GPU job failed, from the job's evidence.\n"
	      "\n"
	      "Commands:\n"
	      "  analyze CASE [--json]   diagnose one job from a case directory\n"
	      "  rules check [PATH]      load a rule catalog and run its inline cases\n"
	      "  rules doc [PATH]        print the catalog as Markdown (doc/rules.md)\n"
	      "  serve [--foreground]    run the service of the live pipeline\n"
	      "  show JOBID [--json]     the stored diagnosis of a job\n"
	      "  list [--since 7d] ...   the stored diagnoses\n"
	      "  nodes [--since 30d] ... nodes ranked by the faults blamed on them\n"
	      "  drain JOBID [--dry-run] drain the culprits of a stored diagnosis\n"
	      "\n"
	      "Options:\n"
	      "  --rules DIR   rule catalog to use (default: $ATTRIB_RULES, then\n"
	      "                " RULESDIR ", then rules/ beside the program)\n"
	      "  -h, --help    this text; `attrib COMMAND --help` for a command\n"
	      "  -V, --version print the version\n"
	      "\n"
	      "Exit status: 0 done (whatever the diagnosis says), 1 usage error,\n"
	      "2 the case is unusable (no or invalid job.json), 3 the rule catalog\n"
	      "is invalid or one of its cases fails, 4 no such stored result or the\n"
	      "store cannot be read.\n", out);
}

static void usage_analyze(FILE *out)
{
	fputs("Usage: attrib analyze CASE [--json]\n"
	      "\n"
	      "Diagnoses one job attempt.  CASE is a directory holding job.json and the\n"
	      "evidence: nodes/NODE/* (system logs of each allocated node), app/* (the\n"
	      "job's output) and optionally scheduler/* (slurmctld.log excerpts).\n"
	      "\n"
	      "Prints the verdict, the root cause with its original log lines, the\n"
	      "first symptom on each node, the downstream symptoms, missing evidence\n"
	      "and the recommended actions.\n"
	      "\n"
	      "  --json   print the result object (doc/formats.md)\n"
	      "           (schema attrib.result/v1) instead\n"
	      "\n"
	      "Exit status: 0 a diagnosis was printed; 2 the case is unusable (one line\n"
	      "on stderr says why); 3 the rule catalog is invalid.\n", out);
}

static void usage_rules(FILE *out)
{
	fputs("Usage: attrib rules check [PATH]\n"
	      "       attrib rules doc [PATH]\n"
	      "\n"
	      "check: loads every *.yaml under PATH (a directory or one file; default\n"
	      "the catalog in use), validates each rule and runs its inline cases.\n"
	      "Problems are printed as FILE:LINE: message; exit status 3 if any.\n"
	      "doc: prints the catalog as Markdown.\n", out);
}

static bool is_dir(const char *p)
{
	struct stat st;

	return p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The catalog to use: --rules, $ATTRIB_RULES, the installed one, or the
 * rules/ directory beside the program (a build tree). */
static const char *rules_path(void)
{
	static char beside[PATH_MAX];
	char exe[PATH_MAX];
	ssize_t n;

	if (rules_opt)
		return rules_opt;
	if (getenv("ATTRIB_RULES") && *getenv("ATTRIB_RULES"))
		return getenv("ATTRIB_RULES");
	if (is_dir(RULESDIR))
		return RULESDIR;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		snprintf(beside, sizeof(beside), "%s/rules", dirname(exe));
		if (is_dir(beside))
			return beside;
	}
	return RULESDIR;
}

static attrib_catalog *load(const char *path)
{
	attrib_catalog *cat = attrib_catalog_load(path, stderr);

	if (!cat)
		fprintf(stderr, "attrib: the rule catalog %s is invalid; refusing to run\n", path);
	return cat;
}

static bool help_flag(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}

static int cmd_analyze(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	bool json = false;
	int c;
	char err[512];

	optind = 0;	/* 0: glibc re-initialises getopt (the global parse used "+") */
	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		if (c == 'j') {
			json = true;
		} else if (c == 'h') {
			usage_analyze(stdout);
			return 0;
		} else {
			usage_analyze(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		usage_analyze(stderr);
		return EXIT_USAGE;
	}
	attrib_catalog *cat = load(rules_path());
	if (!cat)
		return EXIT_RULES;
	struct json_object *r = attrib_analyze(cat, argv[optind], err, sizeof(err));
	attrib_catalog_free(cat);
	if (!r) {
		fprintf(stderr, "attrib: %s: %s\n", argv[optind], err);
		return EXIT_CASE;
	}
	if (json)
		printf("%s\n", json_object_to_json_string_ext(r, JSON_C_TO_STRING_PRETTY |
								    JSON_C_TO_STRING_NOSLASHESCAPE));
	else
		render_text(stdout, r);
	json_object_put(r);
	return 0;
}

static int cmd_rules(int argc, char **argv)
{
	if (argc < 2 || help_flag(argc, argv)) {
		usage_rules(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	const char *path = argc > 2 ? argv[2] : rules_path();
	if (!strcmp(argv[1], "check")) {
		attrib_catalog *cat = attrib_catalog_load(path, stdout);
		int x, codes, refiners, cases;

		if (!cat) {
			printf("%s: invalid\n", path);
			return EXIT_RULES;
		}
		attrib_catalog_stats(cat, &x, &codes, &refiners, &cases);
		printf("%s: ok: %d extractors, %d codes, %d refiners, %d cases passed\n", path, x, codes,
		       refiners, cases);
		attrib_catalog_free(cat);
		return 0;
	}
	if (!strcmp(argv[1], "doc")) {
		attrib_catalog *cat = load(path);

		if (!cat)
			return EXIT_RULES;
		attrib_catalog_markdown(cat, stdout);
		attrib_catalog_free(cat);
		return 0;
	}
	usage_rules(stderr);
	return EXIT_USAGE;
}

#ifdef HAVE_SERVICE
static void usage_serve(FILE *out)
{
	fputs("Usage: attrib serve [--config FILE] [--foreground]\n"
	      "\n"
	      "Runs the service of the live pipeline (doc/live-pipeline.md): takes job\n"
	      "records from SpoolDir/jobs and node bundles on POST /v1/bundle (MUNGE),\n"
	      "diagnoses every job attempt that ended in one of AttributeStates, keeps\n"
	      "the result in StateDir/attrib.db and appends a summary to the job's\n"
	      "CommentField in slurmdbd.  Needs root.\n"
	      "\n"
	      "  --config FILE   attrib.conf to use (default " ATTRIB_CONF_DEFAULT ")\n"
	      "  --foreground    stay in the foreground, log to standard error unless\n"
	      "                  LogFile is set (else: background, LogFile or syslog)\n"
	      "\n"
	      "Environment: ATTRIB_MUNGE_SOCKET, munged's socket; SLURM_CONF.\n"
	      "Exit status: 0 stopped by SIGTERM/SIGINT; 1 bad configuration or the\n"
	      "service could not start; 3 the rule catalog is invalid.\n", out);
}

static void usage_show(FILE *out)
{
	fputs("Usage: attrib show JOBID [--attempt N] [--json] [--drains] [--config FILE]\n"
	      "\n"
	      "Prints the stored diagnosis of a job (its latest attempt unless --attempt)\n"
	      "as `attrib analyze` does, then the drain decisions made for the job (by\n"
	      "attrib serve's policy or attrib drain); --json prints the stored result\n"
	      "object.  --drains prints only the drain decisions, one a line:\n"
	      "TIME ATTEMPT NODE DECISION BY: REASON (--json: a JSON array).\n"
	      "Exit status: 0 printed; 4 no stored result, or the store cannot be read.\n", out);
}

static void usage_list(FILE *out)
{
	fputs("Usage: attrib list [--since AGE|DATE] [--sub-domain X] [--node N] [--user U]\n"
	      "                   [--limit N] [--json] [--config FILE]\n"
	      "\n"
	      "Lists the stored diagnoses, newest first, a line each within 80 columns:\n"
	      "when (MM-DD HH:MM UTC), JOBID[/ATTEMPT] (attempts after a requeue), user,\n"
	      "sub-domain, culprit nodes (the first, +N more) and root cause code.\n"
	      "--json gives every field, the job's end state and all culprits too.\n"
	      "\n"
	      "  --since AGE|DATE  diagnosed in the last AGE (Ns, Nm, Nh, Nd; default 7d)\n"
	      "                    or since DATE (YYYY-MM-DD, UTC)\n"
	      "  --sub-domain X    only this sub-domain (InfraHW, UserCode, ...)\n"
	      "  --node N          only diagnoses that blame node N\n"
	      "  --user U          only jobs of user U\n"
	      "  --limit N         at most N (the newest)\n"
	      "  --json            one JSON array\n"
	      "Exit status: 0 listed (maybe nothing); 4 the store cannot be read.\n", out);
}

static void usage_nodes(FILE *out)
{
	fputs("Usage: attrib nodes [--since AGE|DATE] [--limit N] [--json] [--config FILE]\n"
	      "\n"
	      "The fleet view: every node the stored diagnoses name, ranked by the\n"
	      "faults blamed on it (diagnoses naming it a culprit), then by how often it\n"
	      "was affected, with its causes (root codes, else sub-domains, with\n"
	      "counts), when it was last seen (its latest failed job's end) and its\n"
	      "current Slurm state and reason.  When slurmctld cannot be asked the\n"
	      "state is \"unknown\" and one line on stderr says why.\n"
	      "\n"
	      "  --since AGE|DATE  diagnosed in the last AGE (Ns, Nm, Nh, Nd; default 30d)\n"
	      "                    or since DATE (YYYY-MM-DD, UTC)\n"
	      "  --limit N         the first N nodes only\n"
	      "  --json            one JSON array: node, faults, affected, last_seen,\n"
	      "                    causes [{cause, count}], state (null: not a node of\n"
	      "                    slurmctld), reason\n"
	      "Exit status: 0 listed (maybe nothing); 4 the store cannot be read.\n", out);
}

static int load_config(const char *path, struct attrib_config *conf)
{
	if (config_load(path ? path : ATTRIB_CONF_DEFAULT, conf, stderr) < 0) {
		fprintf(stderr, "attrib: %s is invalid\n", path ? path : ATTRIB_CONF_DEFAULT);
		config_free(conf);
		return -1;
	}
	return 0;
}

static int cmd_serve(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *config = NULL;
	bool foreground = false;
	struct attrib_config conf;
	int c, rc;

	optind = 0;
	while ((c = getopt_long(argc, argv, "c:fh", opts, NULL)) != -1) {
		if (c == 'c') {
			config = optarg;
		} else if (c == 'f') {
			foreground = true;
		} else if (c == 'h') {
			usage_serve(stdout);
			return 0;
		} else {
			usage_serve(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		usage_serve(stderr);
		return EXIT_USAGE;
	}
	if (load_config(config, &conf) < 0)
		return EXIT_USAGE;
	attrib_catalog *cat = load(conf.rules_dir ? conf.rules_dir : rules_path());
	if (!cat) {
		config_free(&conf);
		return EXIT_RULES;
	}
	rc = serve_main(&conf, cat, foreground);
	attrib_catalog_free(cat);
	config_free(&conf);
	return rc;
}

static store *open_store_rw(const struct attrib_config *conf, bool readonly)
{
	char path[PATH_MAX], err[512];
	store *s;

	snprintf(path, sizeof(path), "%s/attrib.db", conf->state_dir);
	if (!(s = store_open(path, readonly, err, sizeof(err))))
		fprintf(stderr, "attrib: cannot read the store: %s\n", err);
	return s;
}

static store *open_store(const struct attrib_config *conf)
{
	return open_store_rw(conf, true);
}

static void usage_drain(FILE *out)
{
	fputs("Usage: attrib drain JOBID [--attempt N] [--dry-run] [--force NODE]... [--config FILE]\n"
	      "\n"
	      "Drains the culprit nodes of a job's stored diagnosis through Slurm\n"
	      "(scontrol's DRAIN), with a reason that names the cause, the device and\n"
	      "the job.  Only the drain actions of the diagnosis are taken: it refuses\n"
	      "when the diagnosis is ambiguous, unattributed or not an infrastructure\n"
	      "fault of a node, unless --force names the node.  DrainMaxPerHour\n"
	      "(attrib.conf) holds: drains done in the last hour, by hand or by the\n"
	      "policy of attrib serve, count, and beyond it a node is refused unless\n"
	      "--force names it.  Every drain done, refused or shown is recorded in the\n"
	      "store with who asked for it (attrib show JOBID --drains).\n"
	      "\n"
	      "  --dry-run      show what would be drained, change nothing\n"
	      "  --force NODE   drain NODE (one the diagnosis names) whatever it says\n"
	      "                 and whatever the rate limit\n"
	      "\n"
	      "Exit status: 0 drained (or shown); 1 usage; 4 no stored result;\n"
	      "5 refused; 6 Slurm refused the update.\n", out);
}

static int cmd_drain(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "attempt", required_argument, NULL, 'a' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "force", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *config = NULL;
	char *force[DRAIN_MAX_NODES], *end, *text, by[128], err[512];
	int nforce = 0, c, rc = 0;
	long attempt = -1, got = 0;
	bool dry = false;
	struct attrib_config conf;
	struct drain_plan plan;

	optind = 0;
	while ((c = getopt_long(argc, argv, "c:a:nf:h", opts, NULL)) != -1) {
		if (c == 'c') {
			config = optarg;
		} else if (c == 'a') {
			attempt = strtol(optarg, &end, 10);
			if (*end || attempt < 0) {
				usage_drain(stderr);
				return EXIT_USAGE;
			}
		} else if (c == 'n') {
			dry = true;
		} else if (c == 'f' && nforce < DRAIN_MAX_NODES && contract_valid_name(optarg)) {
			force[nforce++] = optarg;
		} else if (c == 'h') {
			usage_drain(stdout);
			return 0;
		} else {
			usage_drain(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1 || !contract_valid_name(argv[optind])) {
		usage_drain(stderr);
		return EXIT_USAGE;
	}
	if (load_config(config, &conf) < 0)
		return EXIT_USAGE;
	store *s = open_store_rw(&conf, false);
	long max_per_hour = conf.drain_max_per_hour;
	config_free(&conf);
	if (!s)
		return EXIT_STORE;
	text = store_get(s, argv[optind], attempt, &got);
	if (!text) {
		fprintf(stderr, "attrib: no stored result for job %s\n", argv[optind]);
		store_close(s);
		return EXIT_STORE;
	}
	struct json_object *r = json_tokener_parse(text);
	free(text);
	const char *user = getenv("SUDO_USER") ? getenv("SUDO_USER") : getenv("USER");
	snprintf(by, sizeof(by), "attrib drain (uid %d%s%s)", (int)getuid(), user ? ", " : "", user ? user : "");
	long long now = (long long)time(NULL);
	if (!r || drain_plan(r, force, nforce, &plan) < 0) {
		fprintf(stderr, "attrib: job %s: %s\n", argv[optind], r ? plan.refusal : "stored result is not JSON");
		store_add_drain(s, argv[optind], got, "-", r ? plan.refusal : "invalid", DRAIN_REFUSED, by, now);
		json_object_put(r);
		store_close(s);
		return 5;
	}
	long recent = store_count_drains(s, now - 3600);
	for (int i = 0; i < plan.n; i++) {
		if (!nforce && (recent < 0 || recent >= max_per_hour)) {
			char why[200];

			if (recent < 0)
				snprintf(why, sizeof(why), "refusing: the drains of the last hour cannot be "
					 "counted (attrib drain --force NODE drains anyway)");
			else
				snprintf(why, sizeof(why), "refusing: DrainMaxPerHour (%ld) reached: %ld "
					 "drain%s in the last hour (attrib drain --force NODE drains anyway)",
					 max_per_hour, recent, recent == 1 ? "" : "s");
			fprintf(stderr, "attrib: job %s: %s: %s\n", argv[optind], plan.nodes[i], why);
			store_add_drain(s, argv[optind], got, plan.nodes[i], why,
					dry ? DRAIN_DRY_RUN : DRAIN_REFUSED, by, now);
			if (rc == 0)
				rc = 5;
			continue;
		}
		if (dry) {
			printf("would drain %s: %s\n", plan.nodes[i], plan.reason);
			store_add_drain(s, argv[optind], got, plan.nodes[i], plan.reason, DRAIN_DRY_RUN, by, now);
			recent++;	/* as the drain would count */
		} else if (drain_node(plan.nodes[i], plan.reason, err, sizeof(err)) < 0) {
			fprintf(stderr, "attrib: drain %s\n", err);
			store_add_drain(s, argv[optind], got, plan.nodes[i], plan.reason, DRAIN_FAILED, by, now);
			rc = 6;
		} else {
			printf("drained %s: %s\n", plan.nodes[i], plan.reason);
			store_add_drain(s, argv[optind], got, plan.nodes[i], plan.reason,
					nforce ? DRAIN_DONE_FORCED : DRAIN_DONE, by, now);
			recent++;
		}
	}
	json_object_put(r);
	store_close(s);
	return rc;
}

static int drain_to_json(const struct drain_row *d, void *arg)
{
	struct json_object *o = json_object_new_object();
	char when[32];

	time_format_sec((time_t)d->created, when, sizeof(when));
	json_object_object_add(o, "time", json_object_new_string(when));
	json_object_object_add(o, "attempt", json_object_new_int64(d->attempt));
	json_object_object_add(o, "node", json_object_new_string(d->node ? d->node : ""));
	json_object_object_add(o, "decision", json_object_new_string(d->decision ? d->decision : ""));
	json_object_object_add(o, "by", json_object_new_string(d->by ? d->by : ""));
	json_object_object_add(o, "reason", json_object_new_string(d->reason ? d->reason : ""));
	json_object_array_add(arg, o);
	return 0;
}

/* One line per decision; the texts were sanitised when stored (drain
 * reasons) or written by attrib itself, but a store is a file: the
 * terminal gets printable ASCII only. */
static void print_drains(struct json_object *drains, bool json)
{
	if (json) {
		printf("%s\n", json_object_to_json_string_ext(drains, JSON_C_TO_STRING_PRETTY |
									 JSON_C_TO_STRING_NOSLASHESCAPE));
		return;
	}
	for (size_t i = 0; i < json_object_array_length(drains); i++) {
		struct json_object *o = json_object_array_get_idx(drains, i);
		char line[1024];

		snprintf(line, sizeof(line), "%s %s %s %s %s: %s", json_str(o, "time"),
			 json_str(o, "attempt"), json_str(o, "node"), json_str(o, "decision"),
			 json_str(o, "by"), json_str(o, "reason"));
		for (char *p = line; *p; p++)
			if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
				*p = '?';
		printf("  %s\n", line);
	}
}

static int cmd_show(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "attempt", required_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' },
		{ "drains", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *config = NULL;
	bool json = false, drains_only = false;
	long attempt = -1, got = 0;
	struct attrib_config conf;
	char *end, *text;
	int c;

	optind = 0;
	while ((c = getopt_long(argc, argv, "c:a:jdh", opts, NULL)) != -1) {
		if (c == 'c') {
			config = optarg;
		} else if (c == 'a') {
			attempt = strtol(optarg, &end, 10);
			if (*end || attempt < 0) {
				usage_show(stderr);
				return EXIT_USAGE;
			}
		} else if (c == 'j') {
			json = true;
		} else if (c == 'd') {
			drains_only = true;
		} else if (c == 'h') {
			usage_show(stdout);
			return 0;
		} else {
			usage_show(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1 || !contract_valid_name(argv[optind])) {
		usage_show(stderr);
		return EXIT_USAGE;
	}
	if (load_config(config, &conf) < 0)
		return EXIT_USAGE;
	store *s = open_store(&conf);
	config_free(&conf);
	if (!s)
		return EXIT_STORE;
	text = store_get(s, argv[optind], attempt, &got);
	struct json_object *drains = json_object_new_array();
	if (store_each_drain(s, argv[optind], drain_to_json, drains) < 0)
		fprintf(stderr, "attrib: cannot read the drain decisions of job %s\n", argv[optind]);
	/* (who drained comes from $SUDO_USER or $USER of attrib drain) */
	svc_json_clean(drains);
	store_close(s);
	if (drains_only && !text && !json_object_array_length(drains)) {
		fprintf(stderr, "attrib: no stored result for job %s\n", argv[optind]);
		json_object_put(drains);
		return EXIT_STORE;
	}
	if (drains_only) {
		free(text);
		print_drains(drains, json);
		json_object_put(drains);
		return 0;
	}
	if (!text) {
		json_object_put(drains);
		if (attempt >= 0)
			fprintf(stderr, "attrib: no stored result for job %s attempt %ld\n", argv[optind],
				attempt);
		else
			fprintf(stderr, "attrib: no stored result for job %s\n", argv[optind]);
		return EXIT_STORE;
	}
	char err[256];
	struct json_object *r = json_parse_bounded(text, strlen(text), JSON_MAX_DEPTH, err, sizeof(err));
	free(text);
	if (!r) {
		fprintf(stderr, "attrib: the stored result of job %s is damaged: %s\n", argv[optind], err);
		json_object_put(drains);
		return EXIT_STORE;
	}
	/* results stored by an older service, or a store written by anything
	 * else, may hold strings that would break the terminal or the JSON */
	svc_json_clean(r);
	if (json) {
		printf("%s\n", json_object_to_json_string_ext(r, JSON_C_TO_STRING_PRETTY |
								    JSON_C_TO_STRING_NOSLASHESCAPE));
	} else {
		render_text(stdout, r);
		if (json_object_array_length(drains)) {
			printf("\nDrain decisions:\n");
			print_drains(drains, false);
		}
	}
	json_object_put(drains);
	json_object_put(r);
	return 0;
}

/* "7d", "12h", "30m", "90s", "3600" (seconds) or "YYYY-MM-DD" -> a time. */
static int parse_since(const char *v, long long *since)
{
	struct tm tm;
	char *end;
	long long n;

	memset(&tm, 0, sizeof(tm));
	end = strptime(v, "%Y-%m-%d", &tm);
	if (end && !*end) {
		*since = timegm(&tm);
		return 0;
	}
	if (!isdigit((unsigned char)*v))
		return -1;
	n = strtoll(v, &end, 10);
	if (*end == 'd')
		n *= 86400, end++;
	else if (*end == 'h')
		n *= 3600, end++;
	else if (*end == 'm')
		n *= 60, end++;
	else if (*end == 's')
		end++;
	if (*end || n < 0)
		return -1;
	*since = (long long)time(NULL) - n;
	return 0;
}

static int parse_limit(const char *v, int *limit)
{
	char *end;
	long n = strtol(v, &end, 10);

	if (end == v || *end || n < 1 || n > 1000000) {
		fprintf(stderr, "attrib: --limit %s: expected a number from 1\n", v);
		return -1;
	}
	*limit = (int)n;
	return 0;
}

struct list_out {
	bool json;
	struct json_object *arr;
};

/* s cleaned (common/text.h) and cut to at most max bytes at a character
 * boundary, for a column; NULL for NULL.  The caller frees. */
static char *column(const char *s, size_t max)
{
	char *c = text_clean_str(s, SIZE_MAX / 4);
	size_t n = c ? strlen(c) : 0;

	if (n > max) {
		while (max > 0 && ((unsigned char)c[max] & 0xc0) == 0x80)
			max--;
		c[max] = 0;
	}
	return c;
}

static int list_row_clean(const struct store_row *r, void *arg);

/* A row as the store holds it: its text columns come from job records and
 * results, so they are cleaned before anything prints them. */
static int list_row(const struct store_row *r, void *arg)
{
	struct list_out *lo = arg;
	struct store_row c = *r;
	char *f[6];
	int rc;

	/* (text: USER is 8 bytes wide, cut at a character's start) */
	c.cluster = f[0] = column(r->cluster, NAME_MAX_LEN);
	c.user = f[1] = column(r->user, lo->json ? NAME_MAX_LEN : 8);
	c.state = f[2] = column(r->state, NAME_MAX_LEN);
	c.sub_domain = f[3] = column(r->sub_domain, NAME_MAX_LEN);
	c.culprits = f[4] = column(r->culprits, SVC_TEXT_MAX);
	c.root_code = f[5] = column(r->root_code, NAME_MAX_LEN);
	rc = list_row_clean(&c, arg);
	for (int i = 0; i < 6; i++)
		free(f[i]);
	return rc;
}

static int list_row_clean(const struct store_row *r, void *arg)
{
	struct list_out *lo = arg;
	char when[40];

	time_format_sec((time_t)r->created, when, sizeof(when));
	if (lo->json) {
		struct json_object *o = json_object_new_object(), *cul = json_object_new_array();
		char *copy = r->culprits ? strdup(r->culprits) : NULL, *save = NULL;

		for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save))
			json_object_array_add(cul, json_object_new_string(t));
		free(copy);
		json_object_object_add(o, "job_id", json_object_new_string(r->job_id));
		json_object_object_add(o, "attempt", json_object_new_int64(r->attempt));
		json_object_object_add(o, "cluster", r->cluster ? json_object_new_string(r->cluster) : NULL);
		json_object_object_add(o, "user", r->user ? json_object_new_string(r->user) : NULL);
		json_object_object_add(o, "state", r->state ? json_object_new_string(r->state) : NULL);
		json_object_object_add(o, "sub_domain",
				       r->sub_domain ? json_object_new_string(r->sub_domain) : NULL);
		json_object_object_add(o, "culprit_nodes", cul);
		json_object_object_add(o, "root_code",
				       r->root_code ? json_object_new_string(r->root_code) : NULL);
		json_object_object_add(o, "created", json_object_new_string(when));
		json_object_array_add(lo->arr, o);
		return 0;
	}
	/* one line within 80 columns: the state is in sacct (and --json), the
	 * culprits beyond the first are counted */
	char job[32], culprits[32], day[16];
	const char *comma = r->culprits ? strchr(r->culprits, ',') : NULL;
	int more = 0;

	for (const char *c = comma; c; c = strchr(c + 1, ','))
		more++;
	if (r->attempt > 0)
		snprintf(job, sizeof(job), "%s/%ld", r->job_id, r->attempt);
	else
		snprintf(job, sizeof(job), "%s", r->job_id);
	if (!r->culprits || !*r->culprits)
		snprintf(culprits, sizeof(culprits), "-");
	else if (more)
		snprintf(culprits, sizeof(culprits), "%.*s+%d", (int)(comma - r->culprits), r->culprits,
			 more);
	else
		snprintf(culprits, sizeof(culprits), "%s", r->culprits);
	/* (a long node name cut inside a character: U+FFFD, never a cut byte) */
	char *cul = column(culprits, sizeof(culprits) - 1);
	/* "YYYY-MM-DDTHH:MM:SSZ" -> "MM-DD HH:MM" */
	snprintf(day, sizeof(day), "%.5s %.5s", when + 5, when + 11);
	printf("%-11s  %-9s %-8s %-14s %-14s %s\n", day, job, r->user ? r->user : "-",
	       r->sub_domain ? r->sub_domain : "-", cul, r->root_code ? r->root_code : "-");
	free(cul);
	return 0;
}

static int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "since", required_argument, NULL, 's' },
		{ "sub-domain", required_argument, NULL, 'd' },
		{ "node", required_argument, NULL, 'n' },
		{ "user", required_argument, NULL, 'u' },
		{ "limit", required_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct store_filter f = { .since = (long long)time(NULL) - 7 * 86400 };
	struct list_out lo = { 0 };
	const char *config = NULL;
	struct attrib_config conf;
	int c, n;

	optind = 0;
	while ((c = getopt_long(argc, argv, "c:s:d:n:u:l:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			config = optarg;
			break;
		case 's':
			if (parse_since(optarg, &f.since) < 0) {
				fprintf(stderr, "attrib: --since %s: expected Nd, Nh, Nm, Ns or YYYY-MM-DD\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 'd':
			f.sub_domain = optarg;
			break;
		case 'n':
			f.node = optarg;
			break;
		case 'u':
			f.user = optarg;
			break;
		case 'l':
			if (parse_limit(optarg, &f.limit) < 0)
				return EXIT_USAGE;
			break;
		case 'j':
			lo.json = true;
			break;
		case 'h':
			usage_list(stdout);
			return 0;
		default:
			usage_list(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		usage_list(stderr);
		return EXIT_USAGE;
	}
	if (load_config(config, &conf) < 0)
		return EXIT_USAGE;
	store *s = open_store(&conf);
	config_free(&conf);
	if (!s)
		return EXIT_STORE;
	if (lo.json)
		lo.arr = json_object_new_array();
	else
		printf("%-11s  %-9s %-8s %-14s %-14s %s\n", "DIAGNOSED", "JOBID", "USER", "SUB_DOMAIN",
		       "CULPRITS", "ROOT_CAUSE");
	n = store_list(s, &f, list_row, &lo);
	store_close(s);
	if (n < 0) {
		fprintf(stderr, "attrib: cannot read the store\n");
		json_object_put(lo.arr);
		return EXIT_STORE;
	}
	if (lo.json) {
		printf("%s\n", json_object_to_json_string_ext(lo.arr, JSON_C_TO_STRING_PRETTY |
									  JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(lo.arr);
	}
	return 0;
}

static int cmd_nodes(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "since", required_argument, NULL, 's' },
		{ "limit", required_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	long long since = (long long)time(NULL) - 30 * 86400;
	const char *config = NULL;
	struct attrib_config conf;
	bool json = false;
	int c, limit = 0, rc;

	optind = 0;
	while ((c = getopt_long(argc, argv, "c:s:l:jh", opts, NULL)) != -1) {
		if (c == 'c') {
			config = optarg;
		} else if (c == 's') {
			if (parse_since(optarg, &since) < 0) {
				fprintf(stderr, "attrib: --since %s: expected Nd, Nh, Nm, Ns or YYYY-MM-DD\n",
					optarg);
				return EXIT_USAGE;
			}
		} else if (c == 'l') {
			if (parse_limit(optarg, &limit) < 0)
				return EXIT_USAGE;
		} else if (c == 'j') {
			json = true;
		} else if (c == 'h') {
			usage_nodes(stdout);
			return 0;
		} else {
			usage_nodes(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		usage_nodes(stderr);
		return EXIT_USAGE;
	}
	if (load_config(config, &conf) < 0)
		return EXIT_USAGE;
	store *s = open_store(&conf);
	config_free(&conf);
	if (!s)
		return EXIT_STORE;
	rc = nodes_report(s, since, limit, json, stdout);
	store_close(s);
	return rc < 0 ? EXIT_STORE : 0;
}
#endif

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "rules", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	/* global options stop at the command */
	while ((c = getopt_long(argc, argv, "+hVr:", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			rules_opt = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("attrib %s\n", PACKAGE_VERSION);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	argc -= optind;
	argv += optind;
	if (!strcmp(argv[0], "analyze"))
		return cmd_analyze(argc, argv);
	if (!strcmp(argv[0], "rules"))
		return cmd_rules(argc, argv);
#ifdef HAVE_SERVICE
	if (!strcmp(argv[0], "serve"))
		return cmd_serve(argc, argv);
	if (!strcmp(argv[0], "show"))
		return cmd_show(argc, argv);
	if (!strcmp(argv[0], "list"))
		return cmd_list(argc, argv);
	if (!strcmp(argv[0], "drain"))
		return cmd_drain(argc, argv);
	if (!strcmp(argv[0], "nodes"))
		return cmd_nodes(argc, argv);
#else
	if (!strcmp(argv[0], "serve") || !strcmp(argv[0], "show") || !strcmp(argv[0], "list") ||
	    !strcmp(argv[0], "drain") || !strcmp(argv[0], "nodes")) {
		fprintf(stderr, "attrib: built without the service (configure --disable-service)\n");
		return EXIT_USAGE;
	}
#endif
	if (!strcmp(argv[0], "help")) {
		usage(stdout);
		return 0;
	}
	fprintf(stderr, "attrib: unknown command \"%s\"\n", argv[0]);
	usage(stderr);
	return EXIT_USAGE;
}
