/* attrib-collect's parts: context.c (log, clocks, coverage, bundle files),
 * records.c, bundle.c, logfile.c, journal.c, kmsg.c, send.c, outbox.c,
 * main.c.  Not installed. */
#ifndef ATTRIB_COLLECT_H
#define ATTRIB_COLLECT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <json-c/json.h>

struct attrib_config;
struct timectx;

struct collect_ctx {
	const struct attrib_config *conf;
	double deadline;		/* CLOCK_MONOTONIC seconds */
	double start, end;		/* the window, margins included */
	const struct timectx *tc;	/* for timestamps without a year or zone */
	char *munge_socket;		/* NULL: libmunge's default */
	const char *node;		/* this node's name (SLURMD_NODENAME) */
};

#define SLACK 120.0		/* seconds a log's clock may go backwards */

/* context.c */
void clog_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Logs to path from now on (NULL: standard error). */
void log_open(const char *path);
void log_close(void);
/* The job id every log line names. */
void log_set_job(const char *job);
double now_real(void);
double now_mono(void);
bool parse_when(const char *s, double *t);
char *local_zone(void);
void zone_set(const char *zone);
bool valid_job_id(const char *s);
void fmt_time(double t, char *buf, size_t len);
int name_cmp(const void *a, const void *b);	/* for qsort of char * */
int open_log_file(const char *path, struct stat *st, char *why, size_t whylen);
/* A coverage entry {source, status, detail}; logged unless status is "info". */
void cover(json_object *cov, const char *source, const char *status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Where a bundle file's lines came from (doc/live-pipeline.md §3): who
 * could have written them, which is what the engine trusts them for. */
#define ORIGIN_KERNEL "kernel"		/* journal _TRANSPORT=kernel, /dev/kmsg */
#define ORIGIN_JOURNAL "journal"	/* other journal entries of uid 0 */
#define ORIGIN_JOURNAL_USER "journal-user"	/* journal entries of any other uid */
#define ORIGIN_FILE "file"		/* a log file: anyone may write to it via syslog */
#define ORIGIN_JOB_OUTPUT "job-output"	/* the job's std_out/std_err: the job's user wrote it */

/* A bundle file {name, source, origin, text}; the text made valid UTF-8. */
void add_file(json_object *files, const char *name, const char *source, const char *origin,
	      const char *text, size_t len);
void sha256_hex(const void *data, size_t len, char out[65]);

/* records.c: the job and the SPANK plugin's task records */
struct job_info {
	const char *job_id;
	const char *node;
	double start, end;
	const char *window_from;	/* what the window came from */
	json_object *ranks;
	char **record_names;	/* task record files read (to remove) */
	int nrecords;
	char file_node[256];	/* node as record names carry it (node_file_name) */
	int foreign;		/* other nodes' records seen (a shared NodeSpoolDir) */
	bool batch_host;	/* a record of the batch script's step ("batch") is this node's */
	char *std_out, *std_err;	/* the batch script's output files (output@NODE.json) */
};

/* The node's name as the SPANK plugin puts it in a record's name
 * (task-STEP-RANK@NODE.json): a host name's characters, others '_'. */
void node_file_name(const char *node, char *out, size_t len);

/* Reads this node's NODESPOOL/JOBID/task-*@NODE.json into j->ranks. */
void read_records(int spool, struct job_info *j, json_object *cov, double *min_exit,
		  double *max_exit, double *min_start);
/* NODESPOOL/JOBID/output@NODE.json: the files the batch script's output
 * went to, as slurmstepd opened them (the SPANK plugin). */
void read_output_record(int spool, struct job_info *j);
void remove_records(int spool, const struct job_info *j);
/* The job's start and end: Slurm's (23.02+ sets them for the Epilog),
 * else the task records', else the last hour. */
void job_window(struct job_info *j, double min_exit, double max_exit, double min_start,
		json_object *cov);

/* bundle.c */
struct names {
	char **v;
	int n;
};

/* A file name for the bundle, unique within it. */
char *unique_name(struct names *used, const char *base);
json_object *bundle_build(const struct collect_ctx *cx, struct job_info *j, json_object *cov);
/* The body, within MaxBundleBytes. */
char *bundle_body(json_object *b, long maxb, json_object *cov, size_t *len);

/* jobout.c: on the batch host, the end of the job's std_out and std_err
 * (each at most cap bytes); returns the bytes kept. */
size_t jobout_collect(const struct collect_ctx *cx, const struct job_info *j, size_t cap,
		      json_object *files, json_object *cov, struct names *used);

/* send.c */
char *munge_socket_choice(const char *opt, const char **from);
double remaining(const struct collect_ctx *cx);
/* Returns 0 when sent, 1 when a later try may succeed, 2 when refused for good. */
int send_body(const struct collect_ctx *cx, const char *job, const char *node,
	      const char *body, size_t len, double until, int max_tries, char *err, size_t errlen);

/* outbox.c */
int open_spool(const char *path, char *why, size_t whylen);
/* Marks NodeSpoolDir as this node's (a file node@NODE); returns how many
 * other nodes marked it too, naming one in other. */
int spool_mark(int spool, const char *node, char *other, size_t otherlen);
int outbox_put(int spool, const char *job, const char *body, size_t len, char *err, size_t errlen);
void outbox_flush(const struct collect_ctx *cx, int spool, double until);

#endif
