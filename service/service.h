/* attribd: the live pipeline's service (doc/live-pipeline.md, section 4).
 *
 * One header for the service's files, one section per file.  The service
 * takes job records (jobcomp/attrib) and node bundles (attrib-collect),
 * builds a case directory per job attempt, runs the engine, keeps the
 * result in SQLite and appends a summary to the job's accounting record.
 */
#ifndef ATTRIB_SERVICE_H
#define ATTRIB_SERVICE_H

#include <stdarg.h>
#include <stdatomic.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <json-c/json.h>
#include "attrib.h"
#include "conf.h"
#include "contract.h"
#include "jsonread.h"
#include "log.h"
#include "sha256.h"
#include "timefmt.h"
#include "userfile.h"

#define RECORD_MAX_BYTES (16L << 20)   /* a job record (jobcomp/attrib) */
#define JSON_MAX_DEPTH 32	       /* records, bundles, stored results */
#define NAME_MAX_LEN CONTRACT_NAME_MAX /* job ids, node names, file names */

/* ---- util.c: files ---------------------------------------------------- */

/* False when the bundle's (parsed) tasks started before the attempt
 * started at start (RFC 3339): a requeued job's earlier attempt's. */
bool spool_bundle_fresh(struct json_object *bundle, const char *start);
/* Writes data to path atomically: a dot-file beside it, fsync, rename,
 * fsync of the directory.  Mode 0600.  0 or -1 with errno. */
int svc_write_atomic(const char *path, const void *data, size_t len);
int svc_write_file(const char *path, const void *data, size_t len); /* plain, 0600 */
int svc_mkdir_p(const char *path, mode_t mode);
int svc_rmtree(const char *path); /* never follows symlinks; ENOENT is fine */
int svc_fsync_dir(const char *dir);

/* Every string value in o (recursively) cleaned by text_clean (common/
 * text.h): strict UTF-8, no control or bidi characters, at most
 * SVC_TEXT_MAX bytes.  Returns how many strings it changed. */
#define SVC_TEXT_MAX (1 << 20)
int svc_json_clean(struct json_object *o);

/* ---- metrics.c: counters for GET /metrics --------------------------------- */

enum reject_reason {
	REJ_NO_CREDENTIAL, /* 401 */
	REJ_INVALID,	   /* 403: not a credential of our realm, bad MAC, ... */
	REJ_EXPIRED,	   /* 403 */
	REJ_REWOUND,	   /* 403 */
	REJ_REPLAYED,	   /* 403 */
	REJ_UID,	   /* 403: not root */
	REJ_PAYLOAD,	   /* 403: not attrib-bundle:v1:JOB:NODE:HASH */
	REJ_HASH,	   /* 403: the body is not the one the credential names */
	REJ_TOO_LARGE,	   /* 413 */
	REJ_BAD_BODY,	   /* 400: not a bundle, or not the credential's job/node */
	REJ_MUNGE_DOWN,	   /* 503: munged did not answer */
	REJ_INTERNAL,	   /* 500 */
	REJ_ORIGIN,	   /* 403: the credential was not made on the node it names */
	REJ_N
};

/* Label sets of the counters below (metrics.c names them). */
enum { SUBDOM_N = SUB_DOMAIN_N + 1 }; /* contract.h's sub-domains, then "other" */
/* a node's bundle's own entries ("nodes/NODE:SOURCE") by the collector's source */
enum cov_source {
	COV_NODES,
	COV_APP,
	COV_SCHEDULER,
	COV_JOB,
	COV_KERNEL_LOG,
	COV_JOURNAL,
	COV_KMSG,
	COV_LOG_FILE,
	COV_OTHER,
	COV_SRC_N
};
enum cov_status { COV_MISSING, COV_ERROR, COV_ST_OTHER, COV_ST_N };
/* drain decisions recorded in the store, as /metrics counts them */
enum drain_stat {
	DSTAT_DONE,
	DSTAT_FORCED,
	DSTAT_SUGGESTED,
	DSTAT_DRY_RUN,
	DSTAT_REFUSED,
	DSTAT_FAILED,
	DSTAT_OTHER,
	DSTAT_N
};
/* requeue decisions recorded in the store, as /metrics counts them */
enum requeue_stat { RQSTAT_DONE, RQSTAT_SUGGESTED, RQSTAT_REFUSED, RQSTAT_FAILED, RQSTAT_OTHER, RQSTAT_N };
#define LATENCY_BUCKETS 11 /* seconds; then +Inf */

struct histogram {
	atomic_ulong bucket[LATENCY_BUCKETS]; /* cumulative at render time, not here */
	atomic_ulong count;
	atomic_ullong sum_us; /* microseconds */
};

struct metrics {
	atomic_ulong bundles_accepted;
	atomic_ulong bundles_rejected[REJ_N];
	atomic_ulong jobs_attributed;
	atomic_ulong jobs_not_attributed; /* end state not in AttributeStates */
	atomic_ulong engine_unusable;	  /* attrib_analyze said the case is unusable */
	atomic_ulong comments_written;
	atomic_ulong comment_failures;
	atomic_long comment_queue; /* gauge: comments waiting */
	atomic_ulong reconcile_runs;
	atomic_ulong reconcile_failures;
	atomic_ulong reconciled_jobs;
	atomic_long pending_jobs; /* gauge: records waiting for bundles */
	atomic_ulong jobs_by_sub_domain[SUBDOM_N];
	atomic_ulong coverage_gaps[COV_SRC_N][COV_ST_N]; /* stored results' entries */
	struct histogram attribution_latency;		 /* job end -> result stored */
	struct histogram analysis_duration;		 /* case build + engine */
	atomic_ulong drains[DSTAT_N];			 /* recorded by this process */
	atomic_ulong requeues[RQSTAT_N];		 /* recorded by this process */
	atomic_ulong webhook_delivered;
	atomic_ulong webhook_failures;
	atomic_long webhook_queue;	   /* gauge: deliveries waiting */
	atomic_ulong http_refused_address; /* closed at accept: not in AllowFrom */
	atomic_ulong http_header_timeouts; /* closed: headers slower than HttpHeaderTimeout */
	atomic_ulong jobs_revised;	   /* diagnoses redone for late evidence */
	/* the dashboard's: closed at accept (DashboardAllowFrom), cut at
	 * HttpHeaderTimeout, refused for their Host (DashboardHosts) */
	atomic_ulong dashboard_refused_address, dashboard_header_timeouts, dashboard_refused_host;
	/* gauges of the GPU-hours lost in the last ReportWindow (store/report.h),
	 * in thousandths, by domain; shown once computed (hours_lost_set) */
	atomic_ullong gpu_mhours_lost[4];
	atomic_long hours_lost_jobs, hours_lost_unknown;
	atomic_bool hours_lost_set;
	atomic_ulong health_reports;  /* health checks of nodes accepted */
	atomic_ulong health_failed;   /* of which the check failed */
	atomic_ulong undrains[4];     /* by enum undrain_decision, recorded */
	atomic_ulong findings_repeat; /* repeat-offender findings raised */
};
extern struct metrics svc_metrics;
const char *reject_name(enum reject_reason r);
/* Prometheus text format; the caller frees. */
char *metrics_render(void);
/* A result was stored: its sub-domain, its coverage gaps, the time from
 * the job's end (RFC 3339, may be NULL) and since began (CLOCK_MONOTONIC,
 * when its case was started). */
void metrics_note_result(struct json_object *result, const char *job_end, const struct timespec *began);
/* The GPU-hours lost gauges, from the store: failed jobs ended in
 * [since, until]. */
struct store;
void metrics_note_hours_lost(struct store *s, long long since, long long until);
/* A drain decision was recorded (store_add_drain's decision). */
void metrics_note_drain(const char *decision);
/* A requeue decision was recorded (requeue_row's decision). */
void metrics_note_requeue(const char *decision);

/* ---- auth.c: MUNGE credentials of bundles --------------------------------- */

struct auth_claim {
	char job_id[NAME_MAX_LEN + 1];
	char node[NAME_MAX_LEN + 1];
	char sha256[65];
	uid_t uid;
	gid_t gid;
	struct in_addr origin; /* where munged encoded it (MUNGE_OPT_ADDR4) */
};

/* The socket of munged: $ATTRIB_MUNGE_SOCKET, or libmunge's default. */
const char *auth_socket(void);
/* Decodes cred with munged; on success fills c.  Anything else is a
 * rejection reason (REJ_UID for a valid credential of another user). */
enum reject_reason auth_decode(const char *cred, struct auth_claim *c, char *why, size_t whylen);
/* A bundle's (health false) or a health report's credential. */
enum reject_reason auth_decode_kind(const char *cred, bool health, struct auth_claim *c, char *why,
				    size_t whylen);
#define AUTH_OK REJ_N

/* ---- spool.c: job records in, bundles in ---------------------------------- */

struct record_name {
	char job_id[NAME_MAX_LEN + 1];
	long attempt;
};

/* Who may write job records: root, the service's own user and SlurmUser
 * (jobcomp/attrib writes them inside slurmctld); (uid_t)-1: not known
 * (no slurm.conf), then root and the service's user only. */
void spool_set_slurm_user(uid_t slurm_user);
bool spool_writer_ok(uid_t uid);
/* SpoolDir and SpoolDir/jobs, checked as MUNGE checks its directories:
 * each a directory, not a symbolic link, owned by a writer spool_writer_ok
 * accepts and writable by no one else (no group or other write); their
 * parents not writable by others unless sticky (/tmp).  0 when fine (or
 * not there yet: jobcomp/attrib creates them), -1 with a reason. */
int spool_check_dir(const char *spool_dir, char *err, size_t errlen);

/* "JOBID.ATTEMPT.json" -> parts; -1 for dot-files and anything else. */
int spool_parse_name(const char *file, struct record_name *rn);
/* Calls fn for each record file in dir (SPOOL/jobs or STATE/reconcile),
 * in name order. */
int spool_each_record(const char *dir,
		      int (*fn)(const char *dir, const char *file, const struct record_name *rn, void *arg),
		      void *arg);

/* STATE/incoming/JOBID/NODE.json */
char *spool_bundle_path(const char *state_dir, const char *job_id, const char *node);
/* Finished uploads made durable together: each temporary file (fd, open;
 * closed here) is fsynced and renamed to STATE/incoming/JOBID/NODE.json,
 * and each directory that changed is fsynced once.  Each one's err: 0 when
 * it is durable in place, else an errno; placed: it was renamed (tmp is
 * gone) even if a later fsync failed. */
struct spool_pending {
	int fd;
	const char *tmp, *job_id, *node;
	int err;
	bool placed;
};
void spool_commit_bundles(const char *state_dir, struct spool_pending *v, size_t n);
/* A fresh temporary file for an upload in STATE/incoming/.tmp; fd or -1. */
int spool_tmp_bundle(const char *state_dir, char *path, size_t pathlen);
/* A refused bundle whose credential named job_id and node: kept as
 * STATE/rejected/JOBID/NODE.json ({job_id, node, at, reason (kind),
 * detail (why)}), replacing the one before.  0 or -1 (errno). */
int spool_note_rejection(const char *state_dir, const char *job_id, const char *node, const char *kind,
			 const char *why, time_t at);
/* That record when it was made at or after since (Unix time): this
 * attempt's, not an earlier one's; NULL when there is none. */
struct json_object *spool_rejection(const char *state_dir, const char *job_id, const char *node,
				    double since);
/* Removes STATE/incoming/JOBID (the job's bundles, after attribution). */
void spool_drop_bundles(const char *state_dir, const char *job_id);
/* Removes incoming, done and rejected directories not touched for
 * max_age seconds. */
void spool_gc(const char *state_dir, long max_age);
/* Lays out STATE: incoming/, incoming/.tmp (emptied), cases/, reconcile/,
 * done/, rejected/. */
int spool_prepare(const char *state_dir, char *err, size_t errlen);

/* ---- casebuild.c: the case directory of one job attempt ------------------- */

struct coverage_list {
	struct json_object *arr; /* [{"source","status","detail"}] */
};

/* Builds STATE/cases/JOBID.ATTEMPT from record (a parsed job record) and the
 * bundles in STATE/incoming/JOBID.  Returns the case path (caller frees) or
 * NULL with a reason; coverage entries the engine cannot know of (bundle
 * sources in error, app files not read, missing bundles) go to cov.  A
 * bundle of an earlier attempt (spool_bundle_fresh) is removed, not used,
 * and counted in *stale (stale may be NULL).  The case holds every fact of
 * the job its result shows: the attempt in job.json; cov and history (a
 * revision's "revised" and "revisions", or NULL) in evidence.json. */
char *casebuild(const struct attrib_config *conf, struct json_object *record, const char *job_id,
		long attempt, struct json_object *history, struct json_object *cov, int *stale, char *err,
		size_t errlen);

#include "store.h"
#include "requeue.h"
#include "health.h"
#include "nodedrains.h"
#include "slurmapi.h"

/* ---- drain.c: draining the culprits of a stored diagnosis --------------- */

#define DRAIN_REASON_MAX 100
#define DRAIN_MAX_NODES 64

struct drain_plan {
	const char *nodes[DRAIN_MAX_NODES]; /* point into the result or force[] */
	int n;
	char reason[DRAIN_REASON_MAX + 1];
	char refusal[256];
};

/* "attrib: <root cause> <device> (job N)", sanitised, at most
 * DRAIN_REASON_MAX characters (sinfo -R shows it). */
void drain_reason(struct json_object *result, char *buf, size_t len);
/* "attrib: repeat offender: <what> (finding N)", sanitised as above. */
void drain_reason_finding(const char *what, long long finding, char *buf, size_t len);
/* The nodes to drain: the result's drain actions, or force[] (each must be
 * a node the diagnosis names).  -1 with p->refusal when it refuses. */
int drain_plan(struct json_object *result, char *const *force, int nforce, struct drain_plan *p);
/* ---- drain_policy.c: attribd's drain policy (DrainPolicy, DrainClasses,
 * DrainMaxPerHour, DrainMaxFraction) ----------------------------------------- */

enum drain_mode { DRAIN_MODE_OFF, DRAIN_MODE_SUGGEST, DRAIN_MODE_AUTO };
enum drain_decision { DECIDE_DRAIN, DECIDE_SUGGEST, DECIDE_REFUSE, DECIDE_FAILED };

struct drain_verdict {
	const char *node; /* points into the result */
	enum drain_decision decision;
	char why[256]; /* DECIDE_REFUSE: the reason */
};

struct drain_decisions {
	char class_name[64];		   /* the root cause's rule class ("" when none) */
	enum drain_mode mode;		   /* of that class */
	char reason[DRAIN_REASON_MAX + 1]; /* for Slurm (drain_reason) */
	struct drain_verdict v[DRAIN_MAX_NODES];
	int n; /* 0: the diagnosis recommends no drain */
};

const char *drain_mode_name(enum drain_mode m);
const char *drain_decision_name(enum drain_decision d);
/* The mode of a rule class: its own in DrainClasses (CLASS:MODE), else
 * DrainPolicy; *listed false (and off) when DrainClasses does not name it.
 * DrainClasses not set: the catalog's drain_by_default classes (as given
 * to drain_policy_set_defaults), in DrainPolicy's mode. */
enum drain_mode drain_class_mode(const struct attrib_config *conf, const char *class_name, bool *listed);
/* How many nodes of a partition of total nodes may be drained or down:
 * floor(fraction * total), but at least 1 when fraction > 0. */
int drain_fraction_allowed(double fraction, int total);
/* Decides, for each node the diagnosis recommends draining (its drain
 * actions), drain, suggest or refuse: the class's mode, then the node's
 * state (state() is asked only when the mode is not off), then
 * DrainMaxPerHour (drains_last_hour done already), then DrainMaxFraction.
 * Pure but for state(). */
void drain_policy_decide(const struct attrib_config *conf, struct json_object *result, long drains_last_hour,
			 drain_state_fn state, void *arg, struct drain_decisions *d);
/* The same for one node of a fleet finding's class (repeat-offender),
 * drained with reason. */
void drain_policy_decide_node(const struct attrib_config *conf, const char *class_name, const char *node,
			      const char *reason, long drains_last_hour, drain_state_fn state, void *arg,
			      struct drain_decisions *d);
/* The classes DrainClasses means when attrib.conf does not set it: the
 * catalog's drain_by_default ones (rules/00-base.yaml). */
void drain_policy_set_defaults(const attrib_catalog *cat);
/* attribd, after storing a new result: decides, drains through Slurm
 * (auto), records each decision in the store, counts it in the metrics and
 * logs it.  Slurm's errors are recorded (DRAIN_FAILED), never fatal. */
void drain_policy_apply(const struct attrib_config *conf, const attrib_catalog *cat, store *s,
			struct json_object *result, const char *job_id, long attempt, long long now);
/* attribd, after raising finding (about node, of class_name): as
 * drain_policy_apply, each decision recorded under the job attempt whose
 * diagnosis raised it, naming the finding. */
void drain_policy_apply_finding(const struct attrib_config *conf, store *s, long long finding,
				const char *class_name, const char *node, const char *reason,
				const char *job_id, long attempt, long long now);

/* ---- requeue.c: a failed batch job requeued without its culprits --------- */

enum requeue_mode { REQUEUE_MODE_OFF, REQUEUE_MODE_SUGGEST, REQUEUE_MODE_AUTO };
enum requeue_decision { RQ_NONE, RQ_REQUEUE, RQ_SUGGEST, RQ_REFUSE, RQ_FAILED };

struct requeue_verdict {
	enum requeue_decision decision;	    /* RQ_NONE: nothing to decide, nothing recorded */
	char class_name[64];		    /* the root cause's rule class ("" when none) */
	enum requeue_mode mode;		    /* of that class (the policy's) */
	const char *nodes[DRAIN_MAX_NODES]; /* the culprits, pointing into the result */
	int n;
	char node_list[512];  /* the same, comma-separated */
	char exc_nodes[1024]; /* the job's ExcNodeList now (from Slurm) */
	char why[512];	      /* RQ_REFUSE: the reason; else the root cause (drain_reason) */
};

const char *requeue_mode_name(enum requeue_mode m);
/* REQUEUE_DONE, REQUEUE_SUGGESTED, ... (store.h) */
const char *requeue_decision_name(enum requeue_decision d);
/* The policy's mode for a rule class: its own in RequeueClasses
 * (CLASS:MODE), else RequeuePolicy; *listed false (and off) when
 * RequeueClasses is set and does not name it; not set: every class. */
enum requeue_mode requeue_class_mode(const struct attrib_config *conf, const char *class_name, bool *listed);
/* Whether the diagnosis names an infrastructure culprit with confidence:
 * an infra domain, neither ambiguous nor unattributed, a root cause
 * vouched for (result_cause_vouched: not the job's own output alone, nor
 * only files anyone may write), at least one culprit node.  false with
 * why. */
bool requeue_confident(struct json_object *result, char *why, size_t whylen);
/* Decides for the job's stored diagnosis of attempt: requeue, suggest or
 * refuse (with why).  by_policy: attribd's (RequeuePolicy, RequeueClasses;
 * off, or a diagnosis outside the infra domain: RQ_NONE); else attrib
 * requeue (no class policy).  Then what Slurm says of the job (state() is
 * asked only past the diagnosis' checks): known, batch, requeueable, not
 * pending again, ended FAILED/NODE_FAIL/TIMEOUT, at the diagnosed attempt,
 * fewer than RequeueMax requeues, a culprit not excluded yet.  Pure but
 * for state(). */
void requeue_decide(const struct attrib_config *conf, struct json_object *result, const char *job_id,
		    long attempt, bool by_policy, requeue_state_fn state, void *arg,
		    struct requeue_verdict *v);

/* ---- requeue_policy.c: attribd's requeue policy --------------------------- */

/* attribd, after storing a new result: decides, requeues through Slurm
 * (auto), records the decision in the store, counts it in the metrics
 * and logs it.  Slurm's errors are recorded (REQUEUE_FAILED), never fatal. */
void requeue_policy_apply(const struct attrib_config *conf, store *s, struct json_object *result,
			  const char *job_id, long attempt, long long now);

/* ---- undrain.c: returning a node attrib drained to service (Undrain,
 * UndrainQuiet, UndrainWindow; attrib undrain) ------------------------------- */
enum undrain_decision { UNDECIDE_DO, UNDECIDE_SUGGEST, UNDECIDE_REFUSE, UNDECIDE_FAILED };
/* What undrain_decide looks at: Slurm's view of the node and the store's. */
struct undrain_facts {
	bool slurm_ok; /* else slurm_err */
	char slurm_err[200];
	struct node_drain_info slurm;
	int have_event; /* store_last_drain_event: 1, 0 or -1 */
	struct node_drain_event last;
	long drains_in_window; /* attrib's drains of the node within UndrainWindow */
	int have_health;       /* a health check since last.created: 1, 0 or -1 */
	bool health_passed;    /* the latest one's */
	long long health_received;
};
/* Undo (auto, or by hand), suggest or refuse (why).  *ours: the node is
 * attrib's drain (false: not drained, another's, Slurm cannot tell).
 * force (by hand) overrides UndrainWindow and UndrainQuiet only.  Pure. */
enum undrain_decision undrain_decide(const struct attrib_config *conf, enum drain_mode mode, bool force,
				     const struct undrain_facts *f, long long now, char *why, size_t len,
				     bool *ours);
/* The facts from Slurm (node_drain_info) and the store; -1 when the store
 * cannot count the node's drains. */
int undrain_facts_load(store *s, const char *node, long window, struct undrain_facts *f, long long now);
const char *undrain_decision_name(enum undrain_decision d, bool force);
/* Decides, resumes through Slurm (UNDECIDE_DO) and records the decision
 * (by: who asks) in the drains table under the job of the drain undone.
 * record_foreign false (attribd): nothing is recorded for a node that is
 * not attrib's, nor a refusal recorded already with the same reason. */
enum undrain_decision undrain_apply(const struct attrib_config *conf, store *s, const char *node,
				    enum drain_mode mode, bool force, bool record_foreign, const char *by,
				    long long now, char *why, size_t len, bool *recorded);
/* ---- health.c: nodes' health checks, taken in ------------------------------ */
/* STATE/health, where http.c keeps each node's latest report. */
int health_prepare(const char *state_dir, char *err, size_t errlen);
/* Undrain's mode (attrib.conf's Undrain). */
enum drain_mode undrain_mode(const struct attrib_config *conf);
/* Each report in STATE/health recorded in the store and removed; a passing
 * one asks undrain (Undrain = suggest|auto). */
void health_intake(const struct attrib_config *conf, store *s, long long now);
/* ---- repeat.c: repeat offenders (RepeatWindow, RepeatJobs, RepeatUsers,
 * RepeatCauses) --------------------------------------------------------------- */

/* Looks at node's history in the store at now: when the diagnoses naming
 * it within RepeatWindow, with one of RepeatCauses, are of RepeatJobs
 * distinct jobs or more and RepeatUsers users or more, and no
 * repeat-offender finding about it stands (raised within RepeatWindow),
 * records one citing the jobs (each job's latest counted attempt).  Its id
 * (and its summary in summary), 0 when none was raised, -1 on error. */
long long repeat_examine(const struct attrib_config *conf, store *s, const char *node, long long now,
			 char *summary, size_t len);
/* RepeatCauses not set: fills it in with its default, which names no
 * failure in C: the sub-domains of the domains infra and unknown
 * (common/contract.h) and the codes the rules tag repeat-cause.  At
 * start, after the catalog is loaded; -1 when out of memory. */
int repeat_causes_default(struct attrib_config *conf, const attrib_catalog *cat);
/* attribd, after storing a diagnosis: repeat_examine for every node it
 * names; each finding raised is logged, counted in the metrics and given
 * to the drain policy (class repeat-offender) under job_id/attempt. */
void repeat_after(const struct attrib_config *conf, store *s, struct json_object *result, const char *job_id,
		  long attempt, long long now);

/* ---- accounting.c: the summary in the job's accounting record ------------- */

#define COMMENT_MAX 250

/* Printable ASCII only, no quotes, backslashes or control characters (each
 * becomes a space, runs of spaces collapse), at most max bytes. */
void comment_sanitise(char *s, size_t max);
/* "attrib: <sub_domain> <culprits,comma|-> <root code|-> [<root title>]",
 * sanitised; the caller frees. */
char *comment_summary(struct json_object *result);
/* existing + "; " + ours, or NULL when existing already holds ours. */
char *comment_append(const char *existing, const char *ours);
/* Seconds before the next try after tries failures (30 s doubling to 1 h). */
long comment_backoff(int tries);

/* slurm_init when a slurm.conf can be found; false: accounting is off and
 * comments stay queued. */
bool accounting_init(void);
bool accounting_enabled(void);
/* How many records slurmdbd (connection db) holds for the job in clusters
 * (a list_t; NULL: the default): one per requeued attempt. */
struct xlist;
long accounting_attempts(void *db, struct xlist *clusters, uint32_t id);
/* SlurmUser from slurm.conf, (uid_t)-1 when accounting is off. */
uid_t accounting_slurm_user(void);
/* The local cluster's name from slurm.conf (NULL when accounting is off). */
const char *accounting_cluster(void);
/* Appends text to the job's comment_field (AdminComment, Comment or
 * SystemComment) through slurmdbd unless it is there already.  0 done,
 * -1 to retry later (with a reason). */
int accounting_write(const char *comment_field, const char *cluster, const char *job_id, const char *text,
		     char *err, size_t errlen);

/* ---- webhook.c: each stored result POSTed to Webhook ------------------- */

/* Seconds before the next try after tries failures (5 s doubling to 1 h). */
long webhook_backoff(int tries);
/* Starts the delivery thread when conf->webhook is set (its own connection
 * to db) and arms s, the connection results are stored through.  0 when
 * started or not configured, -1 with a reason. */
int webhook_start(const struct attrib_config *conf, store *s, const char *db, char *err, size_t errlen);
/* A result was stored: deliver now rather than at the next poll. */
void webhook_kick(void);
/* Stops the thread (an ongoing POST is aborted). */
void webhook_stop(void);

/* ---- nodetable.c: who may connect, and each node's addresses ------------- */

struct sockaddr;
struct in_addr;
struct net;
/* Who may connect to a server: addresses and CIDR ranges, and every
 * address of the node table (slurm) where the list admits it. */
struct allow_list {
	struct net *nets;
	size_t n;
	bool slurm;
};
/* The n items of key (replacing what a held); "slurm" only when slurm_ok.
 * -1 with a message for a bad item. */
int allow_list_set(struct allow_list *a, const char *key, char *const *items, int n, bool slurm_ok, char *err,
		   size_t errlen);
/* The address a server listens on, when it names one (not 0.0.0.0 or ::):
 * a connection from it comes from this host.  Before the server starts. */
void allow_list_add_self(struct allow_list *a, const struct sockaddr *sa);
bool allow_list_has(const struct allow_list *a, const struct sockaddr *sa);
void allow_list_free(struct allow_list *a);
/* AllowFrom and NodeAddresses of conf, and Slurm's node table when slurm
 * (refreshed every NodeTableRefresh by a thread of its own).  conf must
 * outlive nodetable_stop.  -1 with a message for a bad entry. */
int nodetable_start(const struct attrib_config *conf, bool slurm, char *err, size_t errlen);
/* The same, the table built once, without the thread (attribd --check). */
int nodetable_load(const struct attrib_config *conf, bool slurm, char *err, size_t errlen);
void nodetable_stop(void);
/* Each (node, address) the table holds, once, NodeAddresses' first; from
 * names where it came from ("NodeAddresses", "Slurm's node table"). */
void nodetable_each(void (*fn)(const char *node, const char *addr, const char *from, void *arg), void *arg);
/* Rebuilds the table now (the thread does it every NodeTableRefresh). */
void nodetable_refresh(void);
/* The address the service listens on, when it names one: a connection
 * from it comes from this host (an administrator's curl), allowed too.
 * Before the server starts. */
void nodetable_allow_self(const struct sockaddr *sa);
/* May this address connect?  (AllowFrom) */
bool nodetable_allowed(const struct sockaddr *sa);
/* Is origin (a MUNGE credential's) an address of node?  A node the table
 * does not list is resolved by DNS.  false with why ("credential made on
 * A, not an address of NODE; see munged --origin"). */
int nodetable_origin_ok(const char *node, const struct in_addr *origin, char *why, size_t whylen);

/* ---- check.c: attribd --check ------------------------------------------- */

/* From this host: each node's addresses its credentials are taken from,
 * what its name resolves to here, the refusals of the last day, whether
 * its latest stored bundle held kernel messages (doc/attribd.8).  0 no
 * problem seen, 2 one or more, 1 a bad configuration. */
int check_main(const struct attrib_config *conf, FILE *out);

/* ---- reconcile.c ------------------------------------------------------- */

/* Asks slurmdbd for jobs that ended in the last day in AttributeStates and
 * have no stored result; writes a record for each into STATE/reconcile/
 * for the main loop.  Returns how many, or -1. */
int reconcile_run(const struct attrib_config *conf, store *s, char *err, size_t errlen);

/* ---- bundlescan.c: a bundle's JSON checked as it streams in -------------- */

/* Values (containers, strings, numbers, literals) a bundle may hold: far
 * above any real one (a few files, about 10 values per rank record, 1,024
 * ranks: 10,000), and what bounds json-c's memory when casebuild parses it
 * later: about 810 bytes per empty object, so 100,000 cost at most ~80 MB
 * beside the text itself (1,000,000 did 810 MB). */
#define BUNDLE_MAX_VALUES 100000
#define BUNDLE_MAX_VALUES_S "100000"
struct bscan {
	int st, nst, depth, key, litpos;
	char stack[JSON_MAX_DEPTH];
	bool in_string, in_number, is_key, esc, capturing, cap_bad;
	int uhex;
	const char *lit;
	size_t off, values, caplen;
	char cap[NAME_MAX_LEN + 1];
	/* the top level: its type ('{', '[', 's', 'n', 'b', 'z'; 0: none),
	 * files' type, and the strings schema, job_id, node ("" when absent) */
	char top_type, files_type;
	char schema[NAME_MAX_LEN + 1], job_id[NAME_MAX_LEN + 1], node[NAME_MAX_LEN + 1];
	char err[128];
};
void bscan_init(struct bscan *b);
/* -1 once the input is not JSON (b->err says why, with the byte offset) */
int bscan_feed(struct bscan *b, const char *data, size_t len);
/* -1 when the input so far is not one whole JSON value */
int bscan_end(struct bscan *b);

/* ---- http.c ------------------------------------------------------------ */

struct http_server;
/* A server's limits (attrib.conf's Http* keys for the intake; the
 * dashboard's, dashboard.c), applied by httpguard.c. */
struct http_limits {
	unsigned connections, per_address, threads;
	unsigned header_timeout, idle_timeout; /* seconds */
};
#define HTTP_LIMITS_DEFAULT \
	{ \
		4096, 8, 4, 5, 15 \
	}
/* Listens on host:port (port 0: any free one) for POST /v1/bundle,
 * GET /v1/health and GET /metrics, from AllowFrom only (nodetable.c).
 * Each accepted bundle is in STATE/incoming before the 202, then a byte
 * goes to wake_fd (-1: none).  lim NULL: HTTP_LIMITS_DEFAULT. */
struct http_server *http_start(const char *listen, const char *state_dir, size_t max_bundle,
			       const struct http_limits *lim, int wake_fd, char *err, size_t errlen);
unsigned http_port(struct http_server *h);
void http_stop(struct http_server *h);
/* The address to listen on of a host:port setting (key: its name, for the
 * message; host may be empty: every address, or [IPv6]); NULL with a
 * reason.  freeaddrinfo() it. */
struct addrinfo;
struct addrinfo *http_listen_addr(const char *key, const char *listen, char *err, size_t errlen);

/* ---- serve.c ----------------------------------------------------------- */

/* attribd: runs until SIGTERM/SIGINT.  Returns the exit status. */
int serve_main(const struct attrib_config *conf, const attrib_catalog *cat, bool foreground);
/* One job record: attribute when ready.  Exposed for the tests.
 * Returns 1 when the record is finished with (attributed, or nothing to
 * do), 0 when it waits for bundles, -1 on error. */
int serve_record(const struct attrib_config *conf, const attrib_catalog *cat, store *s, const char *dir,
		 const char *file, const struct record_name *rn, long long now);

/* ---- topology_site.c: the site's network tree (TopologyFile) ------------- */

struct topology;
/* TopologyFile, else topology.yaml or topology.conf beside slurm.conf
 * ($SLURM_CONF or /etc/slurm/slurm.conf) when there: false when none. */
bool topology_site_path(const struct attrib_config *conf, char *buf, size_t len);
/* The tree, read again when the file changed; NULL with a reason when
 * there is none or it is unusable.  Always pair with topology_site_put
 * (the tree is valid until then). */
struct topology *topology_site_get(const struct attrib_config *conf, char *err, size_t errlen);
void topology_site_put(void);
void topology_site_free(void);
/* Copies the site's topology file into the case directory (as
 * topology.conf or topology.yaml): 1 copied, 0 there is none, -1 with a
 * reason. */
int topology_site_copy(const struct attrib_config *conf, const char *case_dir, char *err, size_t errlen);

/* ---- switchfind.c: lost links under one leaf switch, across jobs --------- */

/* After a result is stored: 1 with the switch's name in sw when it blames
 * a leaf switch (its own culprit_switch, or lost links of other stored
 * results under the same leaf within SwitchWindow, SwitchMinNodes nodes in
 * all): a FINDING_SWITCH is recorded (one per switch an hour).  0 when
 * not. */
int switch_finding(const struct attrib_config *conf, store *s, struct json_object *res, const char *job_id,
		   long attempt, long long now, char *sw, size_t swlen);
/* drain_policy.c: records a refusal, "switch SW blamed", for every node
 * the result would drain and every node under the switch it names. */
void drain_policy_refuse_switch(store *s, struct json_object *result, const char *job_id, long attempt,
				const char *sw, long long now);

#endif
