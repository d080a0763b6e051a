/* attrib-collect's parts: context.c (log, clocks, coverage, bundle files),
 * records.c, bundle.c, logfile.c, journal.c, kmsg.c, send.c, outbox.c,
 * main.c.  Not installed. */
#ifndef ATTRIB_COLLECT_H
#define ATTRIB_COLLECT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <json-c/json.h>
#include "contract.h"
#include "log.h"

struct attrib_config;
struct timectx;

struct collect_ctx {
	const struct attrib_config *conf;
	double deadline;	  /* CLOCK_MONOTONIC seconds */
	double start, end;	  /* the window, margins included */
	const struct timectx *tc; /* for timestamps without a year or zone */
	char *munge_socket;	  /* NULL: libmunge's default */
	const char *node;	  /* this node's name (SLURMD_NODENAME) */
};

#define SLACK 120.0 /* seconds a log's clock may go backwards */

/* context.c */
/* The collector's messages (common/log.h): to LogFile when set, else the
 * journal or syslog, each prefixed with the job; problems (coverage) are
 * warnings, also on standard error. */
#define clog_msg(...) log_msg(LOGL_INFO, __VA_ARGS__)
/* Sets the logger up for job (NULL: none); 0, or -1 with errno when
 * LogFile cannot be opened. */
int collect_log_open(const char *log_file, const char *job);
double now_real(void);
double now_mono(void);
bool parse_when(const char *s, double *t);
char *local_zone(void);
void zone_set(const char *zone);
bool valid_job_id(const char *s);
int name_cmp(const void *a, const void *b); /* for qsort of char * */
int open_log_file(const char *path, struct stat *st, char *why, size_t whylen);
/* A coverage entry {source, status, detail}; logged unless status is "info". */
void cover(json_object *cov, const char *source, const char *status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* How one POST of a bundle went. */
enum send_status {
	SEND_OK,	 /* the service took it */
	SEND_RETRY,	 /* a later try may succeed */
	SEND_REFUSED,	 /* the service refused this bundle for good */
	SEND_NO_SERVICE, /* connection refused: the service is down or restarting */
};

/* A bundle file {name, source, origin, text}; the text made valid UTF-8. */
void add_file(json_object *files, const char *name, const char *source, const char *origin, const char *text,
	      size_t len);
/* A file name for the bundle, unique within it (the names used so far in
 * *used). */
struct names {
	char **v;
	int n;
};
char *unique_name(struct names *used, const char *base);

/* records.c: the job and the SPANK plugin's task records */
struct job_info {
	const char *job_id;
	const char *node;
	double start, end;
	const char *window_from; /* what the window came from */
	json_object *ranks;
	char **record_names; /* task record files read (to remove) */
	int nrecords;
	char file_node[256]; /* node as record names carry it (node_file_name) */
	int foreign;	     /* other nodes' records seen (a shared NodeSpoolDir) */
	bool batch_host;     /* a record of the batch script's step ("batch") is this node's */
	/* what slurmstepd expanded the batch script's output patterns with
	 * (output@NODE.json): SLURM_JOB_NAME of its environment ("(null)" when
	 * unset, as Slurm prints it; NULL: not known), array ids (array_known),
	 * SLURM_VERSION_NUMBER (0: not known) */
	char *job_name;
	uint32_t array_job_id, array_task_id, slurm_version;
	bool array_known;
};

/* The node's name as the SPANK plugin puts it in a record's name
 * (task-STEP-RANK@NODE.json): a host name's characters, others '_'. */
void node_file_name(const char *node, char *out, size_t len);

/* Reads this node's NODESPOOL/JOBID/task-*@NODE.json into j->ranks. */
void read_records(int spool, struct job_info *j, json_object *cov, double *min_exit, double *max_exit,
		  double *min_start);
/* NODESPOOL/JOBID/output@NODE.json: what slurmstepd expanded the batch
 * script's output patterns with (the SPANK plugin). */
void read_output_record(int spool, struct job_info *j);
void remove_records(int spool, const struct job_info *j);
/* The job's start and end: Slurm's (23.02+ sets them for the Epilog),
 * else the task records', else the last hour. */
void job_window(struct job_info *j, double min_exit, double max_exit, double min_start, json_object *cov);

/* bundle.c */
json_object *bundle_build(const struct collect_ctx *cx, struct job_info *j, json_object *cov);
/* The body, within MaxBundleBytes. */
char *bundle_body(json_object *b, long maxb, json_object *cov, size_t *len);

/* jobout.c: on the batch host, the end of the job's std_out and std_err
 * (each at most cap bytes); returns the bytes kept. */
size_t jobout_collect(const struct job_info *j, size_t cap, json_object *files, json_object *cov,
		      struct names *used);

/* send.c */
char *munge_socket_choice(const char *opt, const char **from);
double remaining(const struct collect_ctx *cx);
enum send_status send_body(const struct collect_ctx *cx, const char *job, const char *node, const char *body,
			   size_t len, double until, int max_tries, char *err, size_t errlen);

/* health.c: attrib-collect --health (HealthCheck, its report); returns
 * the exit status */
int health_main(const struct attrib_config *conf, struct collect_ctx *cx, bool print);

/* outbox.c */
int open_spool(const char *path, char *why, size_t whylen);
/* Marks NodeSpoolDir as this node's (a file node@NODE); returns how many
 * other nodes marked it too, naming one in other. */
int spool_mark(int spool, const char *node, char *other, size_t otherlen);
int outbox_put(int spool, const char *job, const char *body, size_t len, char *err, size_t errlen);
void outbox_flush(const struct collect_ctx *cx, int spool, double until);

#endif
