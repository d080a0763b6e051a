/* attrib: the command line.  `attrib analyze CASE` diagnoses one job;
 * `attrib rules check` validates a rule catalog; `attrib show`/`list` read
 * the store attribd (the service, service/attribd.c) writes, `attrib
 * nodes` ranks the nodes it blames, `attrib drain` drains them.
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
#include "conf.h"
#include "nodes.h"
#include "paths.h"
#include "render.h"
#include "service.h"
#include "text.h"

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
	      	      "  show JOBID [--json]     the stored diagnosis of a job\n"
	      "  list [--since 7d] ...   the stored diagnoses\n"
	      "  nodes [--since 30d] ... nodes ranked by the faults blamed on them\n"
	      "  drain JOBID [--dry-run] drain the culprits of a stored diagnosis\n"
	      "\n"
	      "The service of the live pipeline is attribd(8) (`attrib serve` runs it).\n"
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

static void usage_show(FILE *out)
{
	fputs("Usage: attrib show JOBID [--attempt N] [--json] [--drains] [--config FILE]\n"
	      "\n"
	      "Prints the stored diagnosis of a job (its latest attempt unless --attempt)\n"
	      "as `attrib analyze` does, then the drain decisions made for the job (by\n"
	      "attribd's policy or attrib drain); --json prints the stored result\n"
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
	      "policy of attribd, count, and beyond it a node is refused unless\n"
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

/* What a command is given: every command's options parse into one place. */
struct ctx {
	const char *config;
	bool json, drains, dry_run;
	long attempt;			/* -1: the latest */
	struct store_filter f;		/* since, sub_domain, node, user, limit */
	char *force[DRAIN_MAX_NODES];
	int nforce;
	char **args;			/* the positional arguments */
	int nargs;
	/* what the set-up made of them */
	attrib_catalog *cat;
	struct attrib_config conf;
	store *s;
};

enum need { NEED_NOTHING, NEED_CATALOG, NEED_STORE, NEED_STORE_RW };

struct command {
	const char *name;
	int (*run)(struct ctx *x);
	void (*usage)(FILE *out);
	const struct option *opts;	/* its options, --help included */
	const char *optstring;
	int min_args, max_args;
	bool job_arg;			/* the first argument is a job id */
	enum need need;
	long since;			/* --since's default, seconds back */
};

static attrib_catalog *load(const char *path)
{
	attrib_catalog *cat = attrib_catalog_load(path, stderr);

	if (!cat)
		fprintf(stderr, "attrib: the rule catalog %s is invalid; refusing to run\n", path);
	return cat;
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

	svc_rfc3339((time_t)r->created, when, sizeof(when));
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
	case 'N':
		x->dry_run = true;
		return 0;
	case 'a':
		x->attempt = strtol(arg, &end, 10);
		return end == arg || *end || x->attempt < 0 ? -1 : 0;
	case 's':
		if (parse_since(arg, &x->f.since) == 0)
			return 0;
		fprintf(stderr, "attrib: --since %s: expected Nd, Nh, Nm, Ns or YYYY-MM-DD\n", arg);
		return -1;
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
	case 'f':
		if (x->nforce == DRAIN_MAX_NODES || !svc_valid_name(arg))
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
	x->f.since = (long long)time(NULL) - cmd->since;
	optind = 0;	/* 0: glibc re-initialises getopt (the global parse used "+") */
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
	    (cmd->job_arg && !svc_valid_name(x->args[0]))) {
		cmd->usage(stderr);
		return EXIT_USAGE;
	}
	if (cmd->need == NEED_CATALOG && !(x->cat = load(rules_path(rules_opt))))
		return EXIT_RULES;
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
	struct json_object *r = attrib_analyze(x->cat, x->args[0], err, sizeof(err));

	if (!r) {
		fprintf(stderr, "attrib: %s: %s\n", x->args[0], err);
		return EXIT_CASE;
	}
	if (x->json)
		printf("%s\n", json_object_to_json_string_ext(r, JSON_C_TO_STRING_PRETTY |
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

	if (!strcmp(x->args[0], "check")) {
		int xs, codes, refiners, cases;

		if (!(cat = attrib_catalog_load(path, stdout))) {
			printf("%s: invalid\n", path);
			return EXIT_RULES;
		}
		attrib_catalog_stats(cat, &xs, &codes, &refiners, &cases);
		printf("%s: ok: %d extractors, %d codes, %d refiners, %d cases passed\n", path, xs,
		       codes, refiners, cases);
		attrib_catalog_free(cat);
		return 0;
	}
	if (!strcmp(x->args[0], "doc")) {
		if (!(cat = load(path)))
			return EXIT_RULES;
		attrib_catalog_markdown(cat, stdout);
		attrib_catalog_free(cat);
		return 0;
	}
	usage_rules(stderr);
	return EXIT_USAGE;
}

static int cmd_drain(struct ctx *x)
{
	store *s = x->s;
	const char *job = x->args[0];
	char **force = x->force, *text, by[128], err[512];
	int nforce = x->nforce, rc = 0;
	long attempt = x->attempt, got = 0, max_per_hour = x->conf.drain_max_per_hour;
	bool dry = x->dry_run;
	struct drain_plan plan;

	text = store_get(s, job, attempt, &got);
	if (!text) {
		fprintf(stderr, "attrib: no stored result for job %s\n", job);
		return EXIT_STORE;
	}
	struct json_object *r = json_tokener_parse(text);
	free(text);
	const char *user = getenv("SUDO_USER") ? getenv("SUDO_USER") : getenv("USER");
	snprintf(by, sizeof(by), "attrib drain (uid %d%s%s)", (int)getuid(), user ? ", " : "", user ? user : "");
	long long now = (long long)time(NULL);
	if (!r || drain_plan(r, force, nforce, &plan) < 0) {
		fprintf(stderr, "attrib: job %s: %s\n", job, r ? plan.refusal : "stored result is not JSON");
		store_add_drain(s, job, got, "-", r ? plan.refusal : "invalid", DRAIN_REFUSED, by, now);
		json_object_put(r);
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
			fprintf(stderr, "attrib: job %s: %s: %s\n", job, plan.nodes[i], why);
			store_add_drain(s, job, got, plan.nodes[i], why,
					dry ? DRAIN_DRY_RUN : DRAIN_REFUSED, by, now);
			if (rc == 0)
				rc = 5;
			continue;
		}
		if (dry) {
			printf("would drain %s: %s\n", plan.nodes[i], plan.reason);
			store_add_drain(s, job, got, plan.nodes[i], plan.reason, DRAIN_DRY_RUN, by, now);
			recent++;	/* as the drain would count */
		} else if (drain_node(plan.nodes[i], plan.reason, err, sizeof(err)) < 0) {
			fprintf(stderr, "attrib: drain %s\n", err);
			store_add_drain(s, job, got, plan.nodes[i], plan.reason, DRAIN_FAILED, by, now);
			rc = 6;
		} else {
			printf("drained %s: %s\n", plan.nodes[i], plan.reason);
			store_add_drain(s, job, got, plan.nodes[i], plan.reason,
					nforce ? DRAIN_DONE_FORCED : DRAIN_DONE, by, now);
			recent++;
		}
	}
	json_object_put(r);
	return rc;
}

static int drain_to_json(const struct drain_row *d, void *arg)
{
	struct json_object *o = json_object_new_object();
	char when[32];

	svc_rfc3339((time_t)d->created, when, sizeof(when));
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

		snprintf(line, sizeof(line), "%s %s %s %s %s: %s", svc_json_str(o, "time"),
			 svc_json_str(o, "attempt"), svc_json_str(o, "node"), svc_json_str(o, "decision"),
			 svc_json_str(o, "by"), svc_json_str(o, "reason"));
		for (char *p = line; *p; p++)
			if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
				*p = '?';
		printf("  %s\n", line);
	}
}

static int cmd_show(struct ctx *x)
{
	store *s = x->s;
	const char *job = x->args[0];
	bool json = x->json, drains_only = x->drains;
	long attempt = x->attempt, got = 0;
	char *text;

	text = store_get(s, job, attempt, &got);
	struct json_object *drains = json_object_new_array();
	if (store_each_drain(s, job, drain_to_json, drains) < 0)
		fprintf(stderr, "attrib: cannot read the drain decisions of job %s\n", job);
	/* (who drained comes from $SUDO_USER or $USER of attrib drain) */
	svc_json_clean(drains);
	if (drains_only && !text && !json_object_array_length(drains)) {
		fprintf(stderr, "attrib: no stored result for job %s\n", job);
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
			fprintf(stderr, "attrib: no stored result for job %s attempt %ld\n", job,
				attempt);
		else
			fprintf(stderr, "attrib: no stored result for job %s\n", job);
		return EXIT_STORE;
	}
	char err[256];
	struct json_object *r = svc_parse_json(text, strlen(text), JSON_MAX_DEPTH, err, sizeof(err));
	free(text);
	if (!r) {
		fprintf(stderr, "attrib: the stored result of job %s is damaged: %s\n", job, err);
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

static int cmd_list(struct ctx *x)
{
	struct list_out lo = { .json = x->json };
	store *s = x->s;
	struct store_filter f = x->f;
	int n;

	if (lo.json)
		lo.arr = json_object_new_array();
	else
		printf("%-11s  %-9s %-8s %-14s %-14s %s\n", "DIAGNOSED", "JOBID", "USER", "SUB_DOMAIN",
		       "CULPRITS", "ROOT_CAUSE");
	n = store_list(s, &f, list_row, &lo);
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

static int cmd_nodes(struct ctx *x)
{
	return nodes_report(x->s, x->f.since, x->f.limit, x->json, stdout) < 0 ? EXIT_STORE : 0;
}

#define OPT(name, arg, val) { name, arg, NULL, val }
#define OPT_HELP OPT("help", no_argument, 'h')
#define OPT_END { NULL, 0, NULL, 0 }
static const struct option analyze_opts[] = { OPT("json", no_argument, 'j'), OPT_HELP, OPT_END };
static const struct option rules_opts[] = { OPT_HELP, OPT_END };
static const struct option show_opts[] = {
	OPT("config", required_argument, 'c'), OPT("attempt", required_argument, 'a'),
	OPT("json", no_argument, 'j'), OPT("drains", no_argument, 'd'), OPT_HELP, OPT_END
};
static const struct option list_opts[] = {
	OPT("config", required_argument, 'c'), OPT("since", required_argument, 's'),
	OPT("sub-domain", required_argument, 'D'), OPT("node", required_argument, 'n'),
	OPT("user", required_argument, 'u'), OPT("limit", required_argument, 'l'),
	OPT("json", no_argument, 'j'), OPT_HELP, OPT_END
};
static const struct option nodes_opts[] = {
	OPT("config", required_argument, 'c'), OPT("since", required_argument, 's'),
	OPT("limit", required_argument, 'l'), OPT("json", no_argument, 'j'), OPT_HELP, OPT_END
};
static const struct option drain_opts[] = {
	OPT("config", required_argument, 'c'), OPT("attempt", required_argument, 'a'),
	OPT("dry-run", no_argument, 'N'), OPT("force", required_argument, 'f'), OPT_HELP, OPT_END
};

static const struct command commands[] = {
	{ "analyze", cmd_analyze, usage_analyze, analyze_opts, "jh", 1, 1, false, NEED_CATALOG, 0 },
	{ "rules", cmd_rules, usage_rules, rules_opts, "h", 1, 2, false, NEED_NOTHING, 0 },
	{ "show", cmd_show, usage_show, show_opts, "c:a:jdh", 1, 1, true, NEED_STORE, 0 },
	{ "list", cmd_list, usage_list, list_opts, "c:s:n:u:l:jh", 0, 0, false, NEED_STORE,
	  7 * 86400 },
	{ "nodes", cmd_nodes, usage_nodes, nodes_opts, "c:s:l:jh", 0, 0, false, NEED_STORE,
	  30 * 86400 },
	{ "drain", cmd_drain, usage_drain, drain_opts, "c:a:f:h", 1, 1, true, NEED_STORE_RW, 0 },
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
	fprintf(stderr, "attrib: the service is attribd(8), and %s cannot be run: %s\n", d,
		strerror(errno));
	free(av);
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
