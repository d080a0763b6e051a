/* attrib: the command line.  `attrib analyze CASE` diagnoses one job;
 * `attrib rules check` validates a rule catalog; `attrib show`/`list` read
 * the store attribd (the service, service/attribd.c) writes, `attrib
 * nodes` ranks the nodes it blames, `attrib drain` drains them, `attrib
 * requeue` requeues a failed job without them, `attrib eval` scores the
 * diagnoses on a directory of labelled cases.
 *
 * Every command is a row of one table (commands[]): its options, its
 * arguments and what it needs (the catalog, attrib.conf and the store) are
 * set up in one place (setup), never in the command.  attrib links the
 * engine and SQLite only: Slurm is loaded when a command asks slurmctld
 * something (cli/slurm.c), so analyze and rules run where no Slurm is. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "attrib.h"
#include "command.h"
#include "conf.h"
#include "contract.h"
#include "paths.h"
#include "render.h"
#include "text.h"
#include "timefmt.h"

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
	      "  show JOBID [--json]     the stored diagnosis of a job\n"
	      "  list [--since 7d] ...   the stored diagnoses\n"
	      "  nodes [--since 30d] ... nodes ranked by the faults blamed on them\n"
	      "  report [--since 30d] .. GPU-hours lost to failed jobs, by cause\n"
	      "  drain JOBID [--dry-run] drain the culprits of a stored diagnosis\n"
	      "  requeue JOBID [--dry-run] requeue a failed job without its culprits\n"
	      "  undrain NODE [--force]  return a node attrib drained to service\n"
	      "  eval DIR [--json] ...   score attrib on a directory of labelled cases\n"
	      "  label JOBID --confirm|--sub-domain X ...  record an admin's verdict\n"
	      "  export JOBID... DIR     stored cases as labelled case directories\n"
	      "  rules diff --from OLD --to NEW [DIR|--store]  two catalogs' verdicts\n"
	      "\n"
	      "The service of the live pipeline is attribd(8) (`attrib serve` runs it).\n"
	      "\n"
	      "Options:\n"
	      "  --rules DIR   rule catalog to use (default: $ATTRIB_RULES, then rules/\n"
	      "                beside the program (a build tree), then " RULESDIR ");\n"
	      "                a diagnosis names the one it used\n"
	      "  -h, --help    this text; `attrib COMMAND --help` for a command\n"
	      "  -V, --version print the version\n"
	      "\n"
	      "Exit status: 0 done (whatever the diagnosis says), 1 usage error,\n"
	      "2 the case is unusable (no or invalid job.json), 3 the rule catalog\n"
	      "is invalid or one of its cases fails, 4 no such stored result or the\n"
	      "store cannot be read.\n",
	      out);
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
	      "on stderr says why); 3 the rule catalog is invalid.\n",
	      out);
}

static void usage_rules(FILE *out)
{
	fputs("Usage: attrib rules check [PATH]\n"
	      "       attrib rules doc [PATH]\n"
	      "       attrib rules diff --from OLD --to NEW (DIR | --store [--config FILE])\n"
	      "                         [--json]\n"
	      "\n"
	      "check: loads every *.yaml under PATH (a directory or one file; default\n"
	      "the catalog in use), validates each rule and runs its inline cases.\n"
	      "Problems are printed as FILE:LINE: message; exit status 3 if any.\n"
	      "doc: prints the catalog as Markdown.\n"
	      "diff: analyses every case of DIR (each DIR/CASE/ with job.json), or with\n"
	      "--store every stored case (STATE/cases/JOB.ATTEMPT), under the catalogs\n"
	      "OLD and NEW, and prints each job whose verdict (sub-domain, culprit\n"
	      "nodes, root cause code) changes, marked by its label (DIR/CASE/\n"
	      "expected.json, or the store's latest label) better, worse, same (right,\n"
	      "or wrong, under both) or unknown (no label); a line\n"
	      "JOB OLD -> NEW MARK, --json an array.  Exit status: 0 no labelled job\n"
	      "got worse; 1 one did (or usage); 2 no case; 3 a catalog is invalid;\n"
	      "4 the store cannot be read.\n",
	      out);
}

/* "7d", "12h", "30m", "90s", "3600" (seconds) or "YYYY-MM-DD" -> a time. */
int parse_since(const char *v, long long *since)
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
	if (time_unit_seconds(*end))
		n *= time_unit_seconds(*end++);
	if (*end || n < 0)
		return -1;
	*since = (long long)time(NULL) - n;
	return 0;
}

int parse_limit(const char *v, int *limit)
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

enum need { NEED_NOTHING, NEED_CATALOG, NEED_STORE, NEED_STORE_RW };

struct command {
	const char *name;
	int (*run)(struct ctx *x);
	void (*usage)(FILE *out);
	const struct option *opts; /* its options, --help included */
	const char *optstring;
	int min_args, max_args;
	bool job_arg; /* the first argument is a job id */
	enum need need;
	long since; /* --since's default, seconds back */
};

attrib_catalog *cli_load_catalog(const char *path)
{
	struct attrib_options opt = attrib_options_env(getenv);
	attrib_catalog *cat = attrib_catalog_load(path, &opt, stderr);

	if (!cat)
		fprintf(stderr, "attrib: the rule catalog %s is invalid; refusing to run\n", path);
	return cat;
}

/* One option of any command into x; -1: a usage error (said). */
static int option(struct ctx *x, int c, const char *arg)
{
	char *end;

	switch (c) {
	case 'c':
		x->config = arg;
		return 0;
	case 'j':
		x->json = true;
		return 0;
	case 'd':
		x->drains = true;
		return 0;
	case 'R':
		x->requeues = true;
		return 0;
	case 'N':
		x->dry_run = true;
		return 0;
	case 'F':
		x->force_all = true;
		return 0;
	case 'a':
		x->attempt = strtol(arg, &end, 10);
		return end == arg || *end || x->attempt < 0 ? -1 : 0;
	case 's':
		if (parse_since(arg, &x->f.since) == 0)
			return 0;
		fprintf(stderr, "attrib: --since %s: expected Nd, Nh, Nm, Ns or YYYY-MM-DD\n", arg);
		return -1;
	case 'U':
		if (parse_since(arg, &x->until) == 0)
			return 0;
		fprintf(stderr, "attrib: --until %s: expected Nd, Nh, Nm, Ns or YYYY-MM-DD\n", arg);
		return -1;
	case 'b':
		x->by = arg;
		return 0;
	case 'C':
		x->csv = true;
		return 0;
	case 'M':
		x->min_accuracy = strtod(arg, &end);
		if (end != arg && !*end && x->min_accuracy >= 0 && x->min_accuracy <= 1)
			return 0;
		fprintf(stderr, "attrib: --min-accuracy %s: expected a number from 0 to 1\n", arg);
		return -1;
	case 'r':
		x->rules_opt = arg;
		return 0;
	case 'D':
		x->f.sub_domain = arg;
		return 0;
	case 'n':
		x->f.node = arg;
		return 0;
	case 'u':
		x->f.user = arg;
		return 0;
	case 'l':
		return parse_limit(arg, &x->f.limit);
	case 'K':
		x->confirm = true;
		return 0;
	case 'X':
		x->cause = arg;
		return 0;
	case 'x':
		x->note = arg;
		return 0;
	case 'O':
		x->from = arg;
		return 0;
	case 'P':
		x->to = arg;
		return 0;
	case 'S':
		x->use_store = true;
		return 0;
	case 'A':
		x->anonymise = true;
		return 0;
	case 'Y':
		x->accuracy = true;
		return 0;
	case 'f':
		if (x->nforce == DRAIN_MAX_NODES || !contract_valid_name(arg))
			return -1;
		x->force[x->nforce++] = (char *)arg;
		return 0;
	}
	return -1;
}

/* Options, arguments, then what the command needs: 0 ready, -1 done (help
 * printed), else the exit status. */
static int setup(const struct command *cmd, int argc, char **argv, struct ctx *x)
{
	int c;

	x->attempt = -1;
	x->min_accuracy = -1;
	x->f.since = (long long)time(NULL) - cmd->since;
	optind = 0; /* 0: glibc re-initialises getopt (the global parse used "+") */
	while ((c = getopt_long(argc, argv, cmd->optstring, cmd->opts, NULL)) != -1) {
		if (c == 'h') {
			cmd->usage(stdout);
			return -1;
		}
		if (option(x, c, optarg) < 0) {
			cmd->usage(stderr);
			return EXIT_USAGE;
		}
	}
	x->args = argv + optind;
	x->nargs = argc - optind;
	if (x->nargs < cmd->min_args || x->nargs > cmd->max_args ||
	    (cmd->job_arg && !contract_valid_name(x->args[0]))) {
		cmd->usage(stderr);
		return EXIT_USAGE;
	}
	if (cmd->need == NEED_CATALOG) {
		x->rules = rules_path(x->rules_opt ? x->rules_opt : rules_opt);
		if (!(x->cat = cli_load_catalog(x->rules)))
			return EXIT_RULES;
	}
	if (cmd->need == NEED_STORE || cmd->need == NEED_STORE_RW) {
		const char *conf = x->config ? x->config : ATTRIB_CONF_DEFAULT;
		char path[PATH_MAX], err[512];

		if (config_load(conf, &x->conf, stderr) < 0) {
			fprintf(stderr, "attrib: %s is invalid\n", conf);
			return EXIT_USAGE;
		}
		snprintf(path, sizeof(path), "%s/attrib.db", x->conf.state_dir);
		if (!(x->s = store_open(path, cmd->need == NEED_STORE, err, sizeof(err)))) {
			fprintf(stderr, "attrib: cannot read the store: %s\n", err);
			return EXIT_STORE;
		}
	}
	return 0;
}

static void teardown(struct ctx *x)
{
	attrib_catalog_free(x->cat);
	store_close(x->s);
	config_free(&x->conf);
}

static int cmd_analyze(struct ctx *x)
{
	char err[512];
	struct json_object *r = attrib_analyze(x->cat, x->args[0], NULL, err, sizeof(err));

	if (!r) {
		fprintf(stderr, "attrib: %s: %s\n", x->args[0], err);
		return EXIT_CASE;
	}
	if (x->json)
		printf("%s\n",
		       json_object_to_json_string_ext(r,
						      JSON_C_TO_STRING_PRETTY |
							      JSON_C_TO_STRING_NOSLASHESCAPE));
	else
		render_text(stdout, r);
	json_object_put(r);
	return 0;
}

/* rules check|doc [PATH]: the catalog is the command's argument, loaded
 * here (check prints its problems on standard output) */
static int cmd_rules(struct ctx *x)
{
	const char *path = x->nargs > 1 ? x->args[1] : rules_path(rules_opt);
	attrib_catalog *cat;
	struct attrib_options opt = attrib_options_env(getenv);

	if (!strcmp(x->args[0], "check")) {
		int xs, codes, refiners, cases;

		if (!(cat = attrib_catalog_load(path, &opt, stdout))) {
			printf("%s: invalid\n", path);
			return EXIT_RULES;
		}
		attrib_catalog_stats(cat, &xs, &codes, &refiners, &cases);
		printf("%s: ok: %d extractors, %d codes, %d refiners, %d cases passed\n", path, xs, codes,
		       refiners, cases);
		attrib_catalog_free(cat);
		return 0;
	}
	if (!strcmp(x->args[0], "diff"))
		return cmd_rules_diff(x);
	if (!strcmp(x->args[0], "doc")) {
		if (!(cat = cli_load_catalog(path)))
			return EXIT_RULES;
		attrib_catalog_markdown(cat, stdout);
		attrib_catalog_free(cat);
		return 0;
	}
	usage_rules(stderr);
	return EXIT_USAGE;
}

#define OPT(name, arg, val) \
	{ \
		name, arg, NULL, val \
	}
#define OPT_HELP OPT("help", no_argument, 'h')
#define OPT_END \
	{ \
		NULL, 0, NULL, 0 \
	}
static const struct option analyze_opts[] = { OPT("json", no_argument, 'j'), OPT_HELP, OPT_END };
static const struct option rules_opts[] = { OPT("from", required_argument, 'O'),
					    OPT("to", required_argument, 'P'),
					    OPT("store", no_argument, 'S'),
					    OPT("config", required_argument, 'c'),
					    OPT("json", no_argument, 'j'),
					    OPT_HELP,
					    OPT_END };
static const struct option label_opts[] = { OPT("config", required_argument, 'c'),
					    OPT("attempt", required_argument, 'a'),
					    OPT("confirm", no_argument, 'K'),
					    OPT("sub-domain", required_argument, 'D'),
					    OPT("culprit", required_argument, 'f'),
					    OPT("cause", required_argument, 'X'),
					    OPT("note", required_argument, 'x'),
					    OPT_HELP,
					    OPT_END };
static const struct option export_opts[] = { OPT("config", required_argument, 'c'),
					     OPT("anonymise", no_argument, 'A'), OPT_HELP, OPT_END };
static const struct option show_opts[] = { OPT("config", required_argument, 'c'),
					   OPT("attempt", required_argument, 'a'),
					   OPT("json", no_argument, 'j'),
					   OPT("drains", no_argument, 'd'),
					   OPT("requeues", no_argument, 'R'),
					   OPT_HELP,
					   OPT_END };
static const struct option list_opts[] = { OPT("config", required_argument, 'c'),
					   OPT("since", required_argument, 's'),
					   OPT("sub-domain", required_argument, 'D'),
					   OPT("node", required_argument, 'n'),
					   OPT("user", required_argument, 'u'),
					   OPT("limit", required_argument, 'l'),
					   OPT("json", no_argument, 'j'),
					   OPT_HELP,
					   OPT_END };
static const struct option nodes_opts[] = { OPT("config", required_argument, 'c'),
					    OPT("since", required_argument, 's'),
					    OPT("limit", required_argument, 'l'),
					    OPT("json", no_argument, 'j'),
					    OPT_HELP,
					    OPT_END };
static const struct option report_opts[] = { OPT("config", required_argument, 'c'),
					     OPT("since", required_argument, 's'),
					     OPT("until", required_argument, 'U'),
					     OPT("by", required_argument, 'b'),
					     OPT("json", no_argument, 'j'),
					     OPT("csv", no_argument, 'C'),
					     OPT("accuracy", no_argument, 'Y'),
					     OPT_HELP,
					     OPT_END };
static const struct option drain_opts[] = { OPT("config", required_argument, 'c'),
					    OPT("attempt", required_argument, 'a'),
					    OPT("dry-run", no_argument, 'N'),
					    OPT("force", required_argument, 'f'),
					    OPT_HELP,
					    OPT_END };
static const struct option requeue_opts[] = { OPT("config", required_argument, 'c'),
					      OPT("dry-run", no_argument, 'N'), OPT_HELP, OPT_END };
static const struct option eval_opts[] = { OPT("json", no_argument, 'j'),
					   OPT("min-accuracy", required_argument, 'M'),
					   OPT("rules", required_argument, 'r'), OPT_HELP, OPT_END };
static const struct option undrain_opts[] = { OPT("config", required_argument, 'c'),
					      OPT("force", no_argument, 'F'), OPT_HELP, OPT_END };

static const struct command commands[] = {
	{ "analyze", cmd_analyze, usage_analyze, analyze_opts, "jh", 1, 1, false, NEED_CATALOG, 0 },
	{ "rules", cmd_rules, usage_rules, rules_opts, "O:P:Sc:jh", 1, 2, false, NEED_NOTHING, 0 },
	{ "show", cmd_show, usage_show, show_opts, "c:a:jdRh", 1, 1, true, NEED_STORE, 0 },
	{ "list", cmd_list, usage_list, list_opts, "c:s:n:u:l:jh", 0, 0, false, NEED_STORE, 7 * 86400 },
	{ "nodes", cmd_nodes, usage_nodes, nodes_opts, "c:s:l:jh", 0, 0, false, NEED_STORE, 30 * 86400 },
	{ "drain", cmd_drain, usage_drain, drain_opts, "c:a:f:h", 1, 1, true, NEED_STORE_RW, 0 },
	{ "report", cmd_report_or_accuracy, usage_report_or_accuracy, report_opts, "c:s:U:b:jCYh", 0, 0,
	  false, NEED_STORE, 30 * 86400 },
	{ "label", cmd_label, usage_label, label_opts, "c:a:KD:f:X:x:h", 1, 1, true, NEED_STORE_RW, 0 },
	{ "export", cmd_export, usage_export, export_opts, "c:Ah", 2, 100000, false, NEED_STORE, 0 },
	{ "requeue", cmd_requeue, usage_requeue, requeue_opts, "c:h", 1, 1, true, NEED_STORE_RW, 0 },
	{ "undrain", cmd_undrain, usage_undrain, undrain_opts, "c:Fh", 1, 1, true, NEED_STORE_RW, 0 },
	{ "eval", cmd_eval, usage_eval, eval_opts, "jM:r:h", 1, 1, false, NEED_CATALOG, 0 },
};

/* `attrib serve` of earlier releases: attribd, with the same arguments */
static int serve(int argc, char **argv)
{
	char buf[PATH_MAX], **av = calloc(argc + 3, sizeof(*av));
	const char *d = path_beside_program("attribd", buf, sizeof(buf));
	int n = 0;

	if (!d)
		d = SBINDIR "/attribd";
	if (!av)
		return EXIT_USAGE;
	av[n++] = (char *)d;
	if (rules_opt) {
		av[n++] = "--rules";
		av[n++] = (char *)rules_opt;
	}
	for (int i = 1; i < argc; i++)
		av[n++] = argv[i];
	execv(d, av);
	fprintf(stderr, "attrib: the service is attribd(8), and %s cannot be run: %s\n", d, strerror(errno));
	free(av);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = { { "rules", required_argument, NULL, 'r' },
					      { "help", no_argument, NULL, 'h' },
					      { "version", no_argument, NULL, 'V' },
					      { NULL, 0, NULL, 0 } };
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
	if (!strcmp(argv[0], "serve"))
		return serve(argc, argv);
	if (!strcmp(argv[0], "help")) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(*commands); i++) {
		struct ctx x = { 0 };
		int rc;

		if (strcmp(argv[0], commands[i].name))
			continue;
		rc = setup(&commands[i], argc, argv, &x);
		if (rc == 0)
			rc = commands[i].run(&x);
		else if (rc < 0)
			rc = 0;
		teardown(&x);
		return rc;
	}
	fprintf(stderr, "attrib: unknown command \"%s\"\n", argv[0]);
	usage(stderr);
	return EXIT_USAGE;
}
