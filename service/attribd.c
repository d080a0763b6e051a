/* attribd: the service of the live pipeline (doc/live-pipeline.md), the
 * daemon beside the attrib command as slurmctld is beside scontrol.  It
 * alone links Slurm, microhttpd and MUNGE; attrib reads what it stores. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "attrib.h"
#include "attribd_check.h"
#include "conf.h"
#include "paths.h"
#include "repeat_policy.h"
#include "serve.h"

enum { EXIT_USAGE = 1, EXIT_RULES = 3 };

static void usage(FILE *out)
{
	fputs("Usage: attribd [--config FILE] [--foreground] [--rules DIR]\n"
	      "       attribd --check [--config FILE]\n"
	      "\n"
	      "Runs the service of the live pipeline (doc/live-pipeline.md): takes job\n"
	      "records from SpoolDir/jobs and node bundles on POST /v1/bundle (MUNGE),\n"
	      "diagnoses every job attempt that ended in one of AttributeStates, keeps\n"
	      "the result in StateDir/attrib.db and appends a summary to the job's\n"
	      "CommentField in slurmdbd.  Needs root.  attrib show, list, nodes and\n"
	      "drain read what it stores.\n"
	      "\n"
	      "  --config FILE   attrib.conf to use (default " ATTRIB_CONF_DEFAULT ")\n"
	      "  --foreground    stay in the foreground, log to standard error unless\n"
	      "                  LogFile is set (else: background, LogFile or syslog)\n"
	      "  --rules DIR     rule catalog when attrib.conf has no RulesDir (default:\n"
	      "                  $ATTRIB_RULES, then rules/ beside the program, then\n"
	      "                  " RULESDIR ")\n"
	      "  --check         tell, from this host, which nodes' bundles are or would\n"
	      "                  be refused and why (their addresses, what their names\n"
	      "                  resolve to here, this host's munged, the refusals of the\n"
	      "                  last day), and whether each node's latest stored bundle\n"
	      "                  held kernel messages; then exit\n"
	      "  -V, --version   print the version\n"
	      "\n"
	      "Environment: ATTRIB_MUNGE_SOCKET, munged's socket; SLURM_CONF.\n"
	      "Exit status: 0 stopped by SIGTERM/SIGINT (--check: no problem seen); 1\n"
	      "bad configuration or the service could not start; 2 (--check) a node\n"
	      "with a problem; 3 the rule catalog is invalid.\n",
	      out);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = { { "config", required_argument, NULL, 'c' },
					      { "foreground", no_argument, NULL, 'f' },
					      { "rules", required_argument, NULL, 'r' },
					      { "help", no_argument, NULL, 'h' },
					      { "version", no_argument, NULL, 'V' },
					      { "check", no_argument, NULL, 'k' },
					      { NULL, 0, NULL, 0 } };
	const char *config = ATTRIB_CONF_DEFAULT, *rules = NULL;
	bool foreground = false, check = false;
	struct attrib_config conf;
	int c, rc;

	while ((c = getopt_long(argc, argv, "c:fr:hV", opts, NULL)) != -1) {
		if (c == 'c') {
			config = optarg;
		} else if (c == 'f') {
			foreground = true;
		} else if (c == 'k') {
			check = true;
		} else if (c == 'r') {
			rules = optarg;
		} else if (c == 'h') {
			usage(stdout);
			return 0;
		} else if (c == 'V') {
			printf("attribd %s\n", PACKAGE_VERSION);
			return 0;
		} else {
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (config_load(config, &conf, stderr) < 0) {
		fprintf(stderr, "attribd: %s is invalid\n", config);
		config_free(&conf);
		return EXIT_USAGE;
	}
	if (check) {
		rc = check_main(&conf, stdout);
		config_free(&conf);
		return rc;
	}
	const char *path = rules_path(conf.rules_dir ? conf.rules_dir : rules);
	struct attrib_options opt = attrib_options_env(getenv);
	attrib_catalog *cat = attrib_catalog_load(path, &opt, stderr);
	if (!cat) {
		fprintf(stderr, "attribd: the rule catalog %s is invalid; refusing to run\n", path);
		config_free(&conf);
		return EXIT_RULES;
	}
	if (repeat_causes_default(&conf, cat) < 0) {
		fprintf(stderr, "attribd: out of memory\n");
		attrib_catalog_free(cat);
		config_free(&conf);
		return EXIT_FAILURE;
	}
	rc = serve_main(&conf, cat, foreground);
	attrib_catalog_free(cat);
	config_free(&conf);
	return rc;
}
