/* What the attrib command's files share: the exit statuses, what a
 * command is given (struct ctx, made by cli/main.c's set-up from the
 * command's row of its table) and the commands of each file. */
#ifndef ATTRIB_COMMAND_H
#define ATTRIB_COMMAND_H

#include <stdbool.h>
#include <stdio.h>
#include "attrib.h"
#include "conf.h"
#include "drain_plan.h"
#include "store.h"

enum { EXIT_USAGE = 1, EXIT_CASE = 2, EXIT_RULES = 3, EXIT_STORE = 4 };

/* What a command is given: every command's options parse into one place. */
struct ctx {
	const char *config;
	bool json, drains, requeues, dry_run;
	bool force_all;	       /* --force without a node (attrib undrain) */
	long attempt;	       /* -1: the latest */
	struct store_filter f; /* since, sub_domain, node, user, limit */
	long long until;       /* report: 0, now */
	const char *by;	       /* report: NULL, its default */
	bool csv;
	double min_accuracy;   /* eval: -1, none */
	const char *rules_opt; /* --rules after the command */
	char *force[DRAIN_MAX_NODES];
	int nforce;
	/* label: --confirm, --cause, --note; rules diff: --from, --to,
	 * --store; export: --anonymise */
	bool confirm, use_store, anonymise, accuracy;
	const char *cause, *note, *from, *to;
	char **args; /* the positional arguments */
	int nargs;
	/* what the set-up made of them */
	attrib_catalog *cat;
	const char *rules; /* the catalog's path, when loaded */
	struct attrib_config conf;
	store *s;
};

/* "7d", "12h", "30m", "90s", "3600" (seconds) or "YYYY-MM-DD" -> a time;
 * a limit of 1..1,000,000 (said on stderr when not).  0 or -1. */
int parse_since(const char *v, long long *since);
int parse_limit(const char *v, int *limit);

/* stored.c: what attribd stored */
void usage_show(FILE *out);
/* The catalog at path, with the options of the environment (ATTRIB_THREADS,
 * ...); NULL, said on stderr, when it is invalid. */
attrib_catalog *cli_load_catalog(const char *path);

int cmd_show(struct ctx *x);
void usage_list(FILE *out);
int cmd_list(struct ctx *x);
/* drain.c */
void usage_drain(FILE *out);
int cmd_drain(struct ctx *x);
/* requeue.c */
void usage_requeue(FILE *out);
int cmd_requeue(struct ctx *x);
/* undrain.c */
void usage_undrain(FILE *out);
int cmd_undrain(struct ctx *x);
/* nodes.c: the fleet view */
void usage_nodes(FILE *out);
int cmd_nodes(struct ctx *x);
/* report.c: hours lost */
void usage_report(FILE *out);
int cmd_report(struct ctx *x);
/* eval.c: attrib scored on labelled cases */
void usage_eval(FILE *out);
int cmd_eval(struct ctx *x);
/* Whether result answers the label exp (expected.json, doc/formats.md "The
 * evaluation"): attrib eval's "correct"; false with *invalid saying what
 * is wrong when exp is no label. */
bool eval_correct(struct json_object *exp, struct json_object *result, const char **invalid);

/* label.c: admins' verdicts, and the accuracy they show */
void usage_label(FILE *out);
int cmd_label(struct ctx *x);
int report_accuracy(struct ctx *x);
int cmd_report_or_accuracy(struct ctx *x);
void usage_report_or_accuracy(FILE *out);
/* export.c: stored cases as a labelled corpus */
void usage_export(FILE *out);
int cmd_export(struct ctx *x);
/* rulesdiff.c: two catalogs' verdicts on the same cases */
int cmd_rules_diff(struct ctx *x);

/* findings.c: fleet findings (repeat offenders), each with its drain
 * decisions, as JSON arrays: those raised since since (standing), those
 * citing a job; printed wrapped within 80 columns. */
struct json_object *findings_standing(store *s, long long since);
struct json_object *findings_of_job(store *s, const char *job_id);
bool findings_name(struct json_object *findings, const char *subject);
void findings_print(FILE *out, struct json_object *findings);

#endif
