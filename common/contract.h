/* attrib's formats in code: the job record (attrib.job/v1), the bundle
 * (attrib.bundle/v1: its URL, header and MUNGE payload) and the result
 * (attrib.result/v1).  doc/formats.md describes each field; t/formats.sh
 * checks that document and the outputs against the tables here.
 *
 * Every part of attrib links this (the engine, the service, the command,
 * the collector); jobcomp/attrib compiles contract.c in, inside slurmctld:
 * nothing here aborts, allocation failures are returned. */
#ifndef ATTRIB_CONTRACT_H
#define ATTRIB_CONTRACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <json-c/json.h>
#include "evidence.h"

/* ---- schema names --------------------------------------------------------- */

#define ATTRIB_JOB_SCHEMA "attrib.job/v1"
#define ATTRIB_BUNDLE_SCHEMA "attrib.bundle/v1"
#define ATTRIB_RESULT_SCHEMA "attrib.result/v1"

/* job ids, node names and file names that become one path component */
#define CONTRACT_NAME_MAX 128
/* 1..CONTRACT_NAME_MAX of [A-Za-z0-9._-], not starting with '.' or '-', no "..". */
bool contract_valid_name(const char *s);

/* ---- the vocabulary ------------------------------------------------------- */

/* The sub-domains a result may name and the domain of each, the one list
 * (X(sub_domain, domain)); SUB_DOMAIN_N counts it. */
/* clang-format off: one X() a line, which clang-format cannot keep */
#define CONTRACT_SUB_DOMAINS(X) \
	X("InfraHW", "infra") \
	X("InfraNet", "infra") \
	X("InfraSW", "infra") \
	X("InfraStorage", "infra") \
	X("UserCode", "user") \
	X("UserConfig", "user") \
	X("UserResource", "user") \
	X("SchedTimeLimit", "scheduler") \
	X("SchedPreempted", "scheduler") \
	X("SchedCancelled", "scheduler") \
	X("Pass", "none") \
	X("ambiguous", "unknown") \
	X("unattributed", "unknown")
/* clang-format on */
#define CONTRACT_COUNT_(s, d) +1
enum { SUB_DOMAIN_N = 0 CONTRACT_SUB_DOMAINS(CONTRACT_COUNT_) };
extern const char *const contract_sub_domains[SUB_DOMAIN_N];
/* The domain of a sub-domain, or NULL if it is not one. */
const char *sub_domain_domain(const char *sub_domain);
/* Its index in contract_sub_domains, or -1. */
int sub_domain_index(const char *sub_domain);

/* How far the evidence supports a result's verdict (its "confidence";
 * doc/formats.md says what each level needs), weakest first: a level's
 * rank is its index. */
enum { CONFIDENCE_LOW, CONFIDENCE_MEDIUM, CONFIDENCE_HIGH, CONFIDENCE_N };
extern const char *const contract_confidences[CONFIDENCE_N];
/* The rank of a level's name (CONFIDENCE_*), or -1 if it is not one. */
int confidence_rank(const char *name);

/* The case directory, the kinds of evidence, the origins and the coverage
 * words: common/evidence.h */

/* ---- the job record (attrib.job/v1) --------------------------------------- */

#define JOB_RECORD_NO_VAL 0xfffffffeU	/* Slurm's NO_VAL: not known */
#define JOB_RECORD_INFINITE 0xffffffffU /* Slurm's INFINITE: no time limit */

/* A job attempt as jobcomp/attrib (from slurmctld) and reconciliation
 * (from slurmdbd) know it.  Strings may be NULL (then null or absent). */
/* (not "job_record": slurmctld.h, which jobcomp/attrib includes, has one) */
struct attrib_job_record {
	uint32_t job_id;
	const char *cluster, *user, *partition, *name;
	long long uid, gid;	/* -1: not known */
	const char *batch_host; /* where the batch script ran */
	char **nodes;		/* expanded host names */
	int nnodes;
	time_t submit, start, end;		   /* <= 0: not known; start <= 0 or after end: end */
	const char *state;			   /* as sacct shows it: FAILED, REQUEUED, ... */
	uint32_t exit_status, derived_exit_status; /* wait(2) status; JOB_RECORD_NO_VAL */
	const char *reason;
	long restart_count, attempt;
	uint32_t time_limit;		      /* minutes; JOB_RECORD_INFINITE; JOB_RECORD_NO_VAL */
	long long gpus;			      /* GPUs allocated (TRES gres/gpu); -1: not known */
	uint32_t array_job_id, array_task_id; /* array_task_id JOB_RECORD_NO_VAL: not an array */
	const char *std_out, *std_err, *work_dir;
	bool std_out_guessed; /* Slurm's default name, not what the job asked for */
	bool reconciled;      /* written by reconciliation, not by slurmctld */
};

/* Appends host h to r->nodes, which takes it over (freed by
 * job_record_free_nodes); false when out of memory (h is freed). */
bool job_record_add_node(struct attrib_job_record *r, char *h);
void job_record_free_nodes(struct attrib_job_record *r);
/* The record as one line of compact JSON with a newline (malloc), or NULL
 * when out of memory.  The one writer of attrib.job/v1. */
char *job_record_json(const struct attrib_job_record *r, size_t *len);
/* The count of TRES key in a TRES string "cpu=2,mem=4G,gres/gpu=8" (as
 * sacct's AllocTRES; slurmdbd's "1=2,2=4096,1001=8" by id: key "1001"),
 * or -1 when the string does not name it. */
long long job_tres_count(const char *tres, const char *key);
/* The record's gpus from a job's allocated TRES: its gres/gpu count (key as
 * job_tres_count's); a TRES string without it means 0 only when gres/gpu
 * is accounted (AccountingStorageTRES): Slurm leaves out what it does not
 * track, as it leaves out zero counts.  -1: not known. */
long long job_tres_gpus(const char *tres, const char *key, bool gpu_accounted);
/* Whether AccountingStorageTRES (a list "cpu,mem,gres/gpu,...") accounts
 * gres/gpu (or a type of it, gres/gpu:a100, which Slurm counts in gres/gpu). */
bool job_tres_accounts_gpu(const char *accounting_storage_tres);
/* "code:signal" of a wait(2) status as sacct shows it. */
void job_exit_string(uint32_t status, char *buf, size_t len);

/* A job record as read: pointers into its JSON object (valid while it is),
 * NULL or -1 when absent.  The engine's job.json and the service's spool
 * record are read through it. */
struct job_record_view {
	const char *job_id, *state, *cluster, *user, *partition, *name, *batch_host, *reason;
	const char *exit_code, *derived_exit_code, *time_limit, *log_timezone;
	const char *std_out, *std_err, *work_dir;
	const char *submit_time, *start_time, *end_time; /* as written */
	double start, end;				 /* epoch seconds, once read */
	long long uid, gid, attempt, gpus;
	bool std_out_guessed, reconciled;
	struct json_object *nodes, *ranks; /* arrays or NULL */
};
/* The one reader of attrib.job/v1.  Fills every field v can take from o,
 * then checks what the engine requires (an object of this schema with
 * job_id, state, nodes as host names, start_time and end_time in RFC 3339):
 * false with a one-line reason ("missing required field \"state\"") when
 * o lacks it. */
bool job_record_read(struct json_object *o, struct job_record_view *v, char *err, size_t errlen);

/* ---- the bundle (attrib.bundle/v1) ---------------------------------------- */

#define BUNDLE_URL_PATH "/v1/bundle"
#define BUNDLE_CREDENTIAL_HEADER "X-Attrib-Credential"
#define BUNDLE_PAYLOAD_PREFIX "attrib-bundle:v1:"

/* The MUNGE payload "attrib-bundle:v1:JOBID:NODE:SHA256HEX" of a bundle:
 * written by the collector, read by the service. */
struct bundle_claim {
	char job_id[CONTRACT_NAME_MAX + 1];
	char node[CONTRACT_NAME_MAX + 1];
	char sha256[65];
};
/* 0, or -1 when it does not fit or a name is not valid. */
int bundle_payload_format(const struct bundle_claim *c, char *buf, size_t len);
/* 0 when p (len bytes) is a payload with valid parts, else -1. */
int bundle_payload_parse(const char *p, size_t len, struct bundle_claim *c);

/* ---- a node's health check (attrib.health/v1) ----------------------------- */

#define ATTRIB_HEALTH_SCHEMA "attrib.health/v1"
#define HEALTH_URL_PATH "/v1/healthcheck"
#define HEALTH_PAYLOAD_PREFIX "attrib-health:v1:"
/* a report's largest body: its output is a bounded tail */
#define HEALTH_MAX_BYTES 16384
#define HEALTH_OUTPUT_MAX 4096
/* The MUNGE payload "attrib-health:v1:NODE:SHA256HEX" of a health report:
 * another prefix than a bundle's, so neither credential passes for the
 * other.  c->job_id is "" */
int health_payload_format(const char *node, const char *sha256, char *buf, size_t len);
int health_payload_parse(const char *p, size_t len, struct bundle_claim *c);

/* ---- the result (attrib.result/v1) ---------------------------------------- */

/* Every field a result may hold, for doc/formats.md and t/formats.sh:
 * path ("root_cause.code", "symptoms[].evidence[].file"), JSON type and
 * who writes it: "engine" (from the case alone: attrib serve stores the
 * result as the engine made it). */
struct result_field {
	const char *path, *type, *by;
};
extern const struct result_field result_fields[];
extern const size_t result_nfields;

/* What consumers read of a stored or fresh result, without knowing its
 * keys: pointers into r (valid while r is), NULL when absent. */
struct result_view {
	const char *job_id, *terminal_state, *outcome, *domain, *sub_domain, *explanation;
	const char *confidence;			       /* high, medium, low; NULL: an older result */
	const char *end_time;			       /* service: the record's end_time */
	const char *start_time, *job_name, *partition; /* service: the record's */
	struct json_object *job_nodes;		       /* service: the record's nodes */
	long attempt;				       /* service: -1 when absent */
	struct json_object *root_cause;		       /* object or NULL */
	const char *root_code, *root_class, *root_title, *root_device;
	const char *root_trust; /* root_cause.trust: NULL when vouched for */
	struct json_object *culprit_nodes, *affected_nodes, *symptoms, *actions, *coverage;
};
/* Fills v from r (a result object); false when r is not an object. */
bool result_view_of(struct json_object *r, struct result_view *v);
/* Whether the diagnosis' cause is vouched for by evidence its job's user
 * could not have written: its root cause has no "trust" or, without one
 * (ambiguous), no candidate (symptom of role root) has.  No cause at all
 * (unattributed, Pass) is not.  attribd's reasoning across jobs (repeat
 * offenders, switch findings, requeue, the report's infrastructure share)
 * counts only such diagnoses: the job's own output explains its job, it
 * blames nothing beyond it. */
bool result_cause_vouched(const struct result_view *v);
/* The n-th string of a view's array (culprit_nodes, ...), or NULL. */
const char *result_array_str(struct json_object *a, size_t n);
size_t result_array_len(struct json_object *a);
/* The culprit nodes joined with commas (malloc); NULL when there is none
 * or no memory. */
char *result_join_culprits(const struct result_view *v);
/* Whether node is one of the view's culprit or affected nodes. */
bool result_names_node(const struct result_view *v, const char *node);
/* The n-th of the view's actions: false past the end or when it lacks
 * its node or action. */
bool result_action_at(const struct result_view *v, size_t n, const char **node, const char **action);

/* The longest string of a result (longer ones are cut, ending in "…"). */
#define RESULT_TEXT_MAX (1 << 20)
/* The result's fields from the job record (doc/formats.md): attempt,
 * end_time, start_time, job_name, partition and job_nodes (the job's
 * hosts: the dashboard's lanes), where the record has them, made clean. */
void result_add_job(struct json_object *res, const struct job_record_view *jr);

/* The result of a case the engine could not read (no or invalid job.json):
 * unattributed, with why as its coverage entry.  NULL when out of memory. */
struct json_object *result_unusable(const char *job_id, const char *state, const char *why);

#endif
