/* Admins' verdicts on stored diagnoses (table labels): what the admin who
 * looked at a job found, beside the diagnosis (which stays as the engine
 * made it).  A job attempt may be labelled several times; every label is
 * kept, the latest counts.  Written by attrib label, read by attrib show,
 * attrib report --accuracy, attrib export and attrib rules diff --store. */
#ifndef ATTRIB_STORE_LABEL_H
#define ATTRIB_STORE_LABEL_H

#include "store.h"

struct label_row {
	const char *job_id;
	long attempt;
	const char *by; /* who: "attrib label (uid N, NAME)" */
	long long created;
	/* confirm: the admin agrees with the diagnosis; sub_domain, culprits
	 * and cause are then the diagnosis's, copied when the label is written
	 * (a later revision of the result does not change what was confirmed) */
	bool confirm;
	const char *sub_domain;
	const char *culprits; /* node names, comma-separated, sorted; "" none */
	const char *cause;    /* a code of the rule catalog, NULL: not said */
	const char *note;     /* NULL: none */
};

#define LABEL_NOTE_MAX 4096
#define LABEL_NODES_MAX 64

/* What is wrong with l (not confirm: a sub-domain that is not one; a
 * culprit that is not a node name; a cause that is not a code's name; a
 * note over LABEL_NOTE_MAX bytes), NULL when nothing: one check for attrib
 * label and the service's POST /api/v1/jobs/ID/label. */
const char *label_invalid(const struct label_row *l);
/* The n names sorted, each once, comma-separated into out (a label's
 * culprits, compared as a set); -1 when they do not fit. */
int label_join_nodes(const char **names, int n, char *out, size_t len);

/* Records a label; a confirm label takes its sub_domain, culprits and
 * cause from the stored result of (job, attempt).  1 written, 0 (job,
 * attempt) has no result, -1 on error. */
int store_add_label(store *s, const struct label_row *l);
/* The labels of a job (attempt < 0: every attempt), oldest first. */
int store_each_label(store *s, const char *job_id, long attempt,
		     int (*fn)(const struct label_row *l, void *arg), void *arg);
/* A label as JSON (doc/formats.md, "Labels"); NULL when out of memory. */
struct json_object *store_label_json(const struct label_row *l);
/* The latest label of (job, attempt) as JSON in *out (the caller puts
 * it): 1 found, 0 none (*out NULL), -1 error. */
int store_latest_label(store *s, const char *job_id, long attempt, struct json_object **out);
/* attrib eval's expected.json (doc/formats.md, "The evaluation") made of
 * a label's JSON: its sub-domain, its culprits (drain_ok too), its cause
 * as root_code, and the label itself.  The caller puts it. */
struct json_object *label_expected_json(struct json_object *label);

/* attrib report --accuracy: the results stored since since (and before
 * until, 0: no end), each with its latest label, summed (doc/formats.md,
 * "attrib report --accuracy --json"); by: NULL, "sub_domain", "rule",
 * "node" or "partition" adds "groups".  NULL on error. */
struct json_object *store_accuracy(store *s, long long since, long long until, const char *by);
#define ACCURACY_BY_LIST "sub_domain, rule, node, partition"
/* by is one of ACCURACY_BY_LIST's */
bool accuracy_by_ok(const char *by);
/* Whether a comma-separated list of names a and b hold the same names. */
bool label_same_nodes(const char *a, const char *b);

#endif
