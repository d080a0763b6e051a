/* attrib: the command line.  `attrib analyze CASE` diagnoses one job;
 * `attrib rules check` validates a rule catalog. */
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "attrib.h"
#include "config.h"
#include "render.h"

enum { EXIT_USAGE = 1, EXIT_CASE = 2, EXIT_RULES = 3 };

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
	      "\n"
	      "Options:\n"
	      "  --rules DIR   rule catalog to use (default: $ATTRIB_RULES, then\n"
	      "                " RULESDIR ", then rules/ beside the program)\n"
	      "  -h, --help    this text; `attrib COMMAND --help` for a command\n"
	      "  -V, --version print the version\n"
	      "\n"
	      "Exit status: 0 done (whatever the diagnosis says), 1 usage error,\n"
	      "2 the case is unusable (no or invalid job.json), 3 the rule catalog\n"
	      "is invalid or one of its cases fails.\n", out);
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
	      "  --json   print the result object of the evidence/result contract\n"
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
	if (!strcmp(argv[0], "help")) {
		usage(stdout);
		return 0;
	}
	fprintf(stderr, "attrib: unknown command \"%s\"\n", argv[0]);
	usage(stderr);
	return EXIT_USAGE;
}
