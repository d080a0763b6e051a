/* What attrib asks of slurmctld: drain a node, a node's state and its
 * partitions (drain.c), every node's state (nodestate.c), a job's state
 * and its requeue without its culprits (requeue.c); and of slurmdbd, for
 * attribd (accounting.c).  No other file of attrib's but the plugins'
 * (plugin/) includes Slurm's headers.  The only code
 * that links libslurm(full) on behalf of both programs: attribd links it
 * (slurmapi/libslurmapi.la); attrib loads it with dlopen as the module
 * attrib_slurm.so (module.c, cli/slurm.c) only when a command needs
 * Slurm, so `attrib analyze` runs where no Slurm is installed. */
#ifndef ATTRIB_SLURMAPI_H
#define ATTRIB_SLURMAPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "contract.h" /* struct attrib_job_record */

/* ---- drain.c ------------------------------------------------------------- */

/* How every reason attrib gives a drain starts (sinfo -R): what tells
 * attrib's drains from others in Slurm's view (DrainMaxNodes, undrain). */
#define ATTRIB_DRAIN_PREFIX "attrib:"

/* slurm_update_node(DRAIN) with the reason. */
int drain_node(const char *node, const char *reason, char *err, size_t errlen);

/* What slurmctld says of a node, for the policy. */
#define DRAIN_MAX_PARTITIONS 32
struct drain_partition {
	char name[64];
	int nodes;	 /* the partition's nodes */
	int unavailable; /* of which drained, draining, failing or down */
};
struct drain_node_state {
	bool unavailable;				   /* drained, draining, failing or down already */
	char state[48];					   /* "down", "drained", "failing" (joined) or "up" */
	struct drain_partition part[DRAIN_MAX_PARTITIONS]; /* the node's partitions */
	int npart;
	/* nodes of the cluster drained with a reason starting ATTRIB_DRAIN_PREFIX */
	int attrib_drained;
};
/* Where the policy learns a node's state: drain_slurm_state, or the tests'. */
typedef int (*drain_state_fn)(const char *node, struct drain_node_state *st, char *err, size_t errlen,
			      void *arg);
/* From slurmctld (slurm_load_node, slurm_load_partitions); arg unused.
 * -1 with a reason when Slurm cannot tell. */
int drain_slurm_state(const char *node, struct drain_node_state *st, char *err, size_t errlen, void *arg);

/* ---- requeue.c: a failed batch job requeued without its culprits -------- */

/* What slurmctld says of a job (slurm_load_job). */
struct requeue_job_state {
	bool found;	  /* false: slurmctld no longer knows it (MinJobAge after its end) */
	bool batch;	  /* sbatch, not salloc or srun */
	bool requeueable; /* submitted with --requeue (or JobRequeue=1) */
	bool pending;	  /* pending again: requeued already */
	bool failed;	  /* ended FAILED, NODE_FAIL or TIMEOUT */
	long restart_cnt; /* how often Slurm requeued it */
	char state[48];	  /* "FAILED", "NODE_FAIL+COMPLETING", ... */
	char exc_nodes[1024];
	int excluded; /* how many of the nodes asked about its ExcNodeList holds */
};
/* Where the decision learns a job's state: requeue_slurm_state, or the
 * tests'.  nodes: the culprits, for st->excluded.  0 (st->found false when
 * slurmctld knows no such job) or -1 with a reason when Slurm cannot tell. */
typedef int (*requeue_state_fn)(const char *job_id, const char *const *nodes, int n,
				struct requeue_job_state *st, char *err, size_t errlen, void *arg);
int requeue_slurm_state(const char *job_id, const char *const *nodes, int n, struct requeue_job_state *st,
			char *err, size_t errlen, void *arg);
/* Requeues the job held (slurm_requeue), sets its ExcNodeList to exc_nodes
 * and nodes (into excluded, as a host list), then releases it.  -1 with
 * Slurm's error; a job whose exclusion Slurm refused stays held (err says
 * so). */
int requeue_job(const char *job_id, const char *exc_nodes, const char *const *nodes, int n, char *excluded,
		size_t excludedlen, char *err, size_t errlen);

/* ---- undrain.c: a drained node, and its return to service ----------------- */

struct node_drain_info {
	bool drained;	       /* Slurm's DRAIN flag (drained or draining) */
	char state[48];	       /* node_state_name */
	char reason[256];      /* "" when none */
	long long reason_time; /* when the reason was set (Unix time), 0: unknown */
};
/* -1 with a reason when Slurm cannot tell or knows no such node. */
int node_drain_info(const char *node, struct node_drain_info *ni, char *err, size_t errlen);
/* slurm_update_node(RESUME). */
int resume_node(const char *node, char *err, size_t errlen);

/* ---- nodestate.c: libslurm, and every node's current state ------------- */

/* $SLURM_CONF, else /etc/slurm/slurm.conf. */
const char *slurm_conf_file(void);
/* slurm_init once for the process (thread-safe), and only when slurm.conf
 * is there: libslurm exits the process when it cannot read it.  false
 * with a reason when it is not there. */
bool slurm_ready(char *err, size_t errlen);
/* A node state as sinfo's long form names it ("IDLE", "DRAINED",
 * "DRAINING", "DOWN*", "MIXED+MAINT"), from slurm.h's public bits only. */
void node_state_name(uint32_t state, char *buf, size_t len);
/* A job's base state as sacct and squeue name it ("COMPLETED", "FAILED",
 * "OUT_OF_MEMORY"), from slurm.h's public enum; NULL past its end. */
const char *job_state_name(uint32_t state);

struct node_state_map;
/* slurm_load_node of every node; NULL with a reason when there is no
 * slurm.conf or slurmctld does not answer. */
struct node_state_map *node_states_load(char *err, size_t errlen);
/* The node's state ("IDLE", "DRAINED", "DOWN*", ...) and reason (NULL when
 * none); false for a node slurmctld does not know. */
bool node_state_of(const struct node_state_map *ns, const char *node, const char **state,
		   const char **reason);
void node_states_free(struct node_state_map *ns);
/* Calls fn for each node of the map with its name, NodeAddr and
 * NodeHostname (either may be NULL), in slurmctld's order. */
void node_states_each(const struct node_state_map *ns,
		      void (*fn)(const char *name, const char *addr, const char *hostname, void *arg),
		      void *arg);

/* ---- accounting.c: slurmdbd and slurm.conf, for attribd ------------------- */

/* slurm.conf's ClusterName and SlurmUser, once slurm_ready. */
const char *slurm_cluster_name(void);
uid_t slurm_user_id(void);
/* The job's comment_field (AdminComment, Comment or SystemComment) of its
 * latest record in slurmdbd (cluster NULL or "": slurm.conf's) replaced by
 * merge(its value, arg) (malloc'ed; freed here), unless merge returns NULL
 * (nothing to change).  0 done, or nothing to do; -1 with a reason. */
int acct_comment_update(const char *comment_field, const char *cluster, const char *job_id,
			char *(*merge)(const char *existing, void *arg), void *arg, char *err, size_t errlen);
/* A job slurmdbd holds, as acct_jobs_ended gives it (valid during the
 * call only): its job record (common/contract.h) as far as slurmdbd knows
 * it, reconciled, without nodes, attempt, output paths or GPUs. */
struct acct_job {
	struct attrib_job_record rec;
	const char *nodes;	  /* a host list expression; NULL: none assigned */
	const char *tres_alloc;	  /* "1=2,...,1001=8": TRES by slurmdbd's ids */
	const char *gpu_key;	  /* gres/gpu's id among them; NULL: not known */
	const char *storage_tres; /* slurm.conf's AccountingStorageTRES */
	const void *scan;	  /* acct_job_attempts' */
};
/* The jobs that ended in [since, until] (Unix time) in one of states
 * (job_state_name's names, any case) in cluster (NULL: slurmdbd's
 * default): fn for each, until it returns nonzero.  How many fn was given,
 * or -1 with a reason. */
int acct_jobs_ended(char *const *states, int nstates, const char *cluster, long long since, long long until,
		    int (*fn)(const struct acct_job *j, void *arg), void *arg, char *err, size_t errlen);
/* How many records slurmdbd holds for the job (one per requeued attempt):
 * from fn of acct_jobs_ended only. */
long acct_job_attempts(const struct acct_job *j);

/* ---- module.c: what attrib_slurm.so gives the attrib command ------------ */

#define SLURMAPI_MODULE_VERSION 3
#define SLURMAPI_MODULE_SYMBOL "attrib_slurm_module"
struct slurmapi_module {
	int version; /* SLURMAPI_MODULE_VERSION */
	int (*drain_node)(const char *node, const char *reason, char *err, size_t errlen);
	struct node_state_map *(*node_states_load)(char *err, size_t errlen);
	bool (*node_state_of)(const struct node_state_map *ns, const char *node, const char **state,
			      const char **reason);
	void (*node_states_free)(struct node_state_map *ns);
	requeue_state_fn requeue_state;
	int (*requeue_job)(const char *job_id, const char *exc_nodes, const char *const *nodes, int n,
			   char *excluded, size_t excludedlen, char *err, size_t errlen);
	int (*node_drain_info)(const char *node, struct node_drain_info *ni, char *err, size_t errlen);
	int (*resume_node)(const char *node, char *err, size_t errlen);
};

#endif
