/* attrib.conf: one parser for the service, the collector and the CLI. */
#ifndef ATTRIB_CONFIG_H
#define ATTRIB_CONFIG_H

#include <stdio.h>

#define ATTRIB_CONF_DEFAULT "/etc/slurm/attrib.conf"

struct attrib_config {
	char *spool_dir;      /* SpoolDir: job records from jobcomp/attrib (SPOOL/jobs) */
	char *node_spool_dir; /* NodeSpoolDir: task records and the collector's outbox */
	char *state_dir;      /* StateDir: incoming bundles, cases, the store */
	char *rules_dir;      /* RulesDir */
	char *listen;	      /* Listen: host:port of attribd */
	char *service_url;    /* ServiceURL: where attrib-collect sends bundles */
	char **log_sources;   /* LogSources: files, or "journal" */
	int nlog_sources;
	long window_margin;	 /* WindowMargin, seconds */
	long collect_timeout;	 /* CollectTimeout, seconds */
	long bundle_deadline;	 /* BundleDeadline, seconds */
	char **attribute_states; /* AttributeStates */
	int nattribute_states;
	char *comment_field;	 /* CommentField: AdminComment | Comment | SystemComment */
	long app_max_bytes;	 /* AppMaxBytes */
	char *read_job_output;	 /* ReadJobOutput: no | yes */
	long max_bundle_bytes;	 /* MaxBundleBytes */
	char *slurmctld_log;	 /* SlurmctldLog, or NULL */
	long reconcile_interval; /* ReconcileInterval, seconds */
	char *drain_policy;	 /* DrainPolicy: off | suggest | auto */
	char **drain_classes;	 /* DrainClasses: classes the policy may drain for */
	int ndrain_classes;
	char *drain_confidence;	   /* DrainMinConfidence: high | medium | low */
	long drain_max_per_hour;   /* DrainMaxPerHour */
	double drain_max_fraction; /* DrainMaxFraction of a partition */
	long drain_max_nodes;	   /* DrainMaxNodes drained by attrib at once */
	char *undrain;		   /* Undrain: off | suggest | auto */
	long undrain_quiet;	   /* UndrainQuiet, seconds */
	long undrain_window;	   /* UndrainWindow, seconds */
	char *health_check;	   /* HealthCheck: a command line, no shell */
	long health_check_timeout; /* HealthCheckTimeout, seconds */
	char *requeue_policy;	   /* RequeuePolicy: off | suggest | auto */
	char **requeue_classes;	   /* RequeueClasses: classes the policy may requeue for */
	int nrequeue_classes;
	long requeue_max;     /* RequeueMax: requeues a job may have had before */
	char *webhook;	      /* Webhook URL, or NULL */
	long webhook_timeout; /* WebhookTimeout, seconds */
	char *log_file;	      /* LogFile, or NULL for stderr */
	char *pid_file;	      /* PidFile, or NULL for none */
	char **allow_from;    /* AllowFrom: "slurm", addresses, CIDR ranges */
	int nallow_from;
	char **node_addresses; /* NodeAddresses: NAME=ADDRESS beside Slurm's node table */
	int nnode_addresses;
	long node_table_refresh;    /* NodeTableRefresh, seconds */
	long http_connections;	    /* HttpConnections */
	long http_per_address;	    /* HttpPerAddress */
	long http_header_timeout;   /* HttpHeaderTimeout, seconds */
	long http_idle_timeout;	    /* HttpIdleTimeout, seconds */
	long http_threads;	    /* HttpThreads */
	long report_window;	    /* ReportWindow, seconds: /metrics' GPU-hours lost */
	char *dashboard;	    /* Dashboard: off | on */
	char *dashboard_listen;	    /* DashboardListen */
	char *dashboard_tls_cert;   /* DashboardTLSCert, or NULL */
	char *dashboard_tls_key;    /* DashboardTLSKey, or NULL */
	char *dashboard_token_file; /* DashboardTokenFile, or NULL */
	char *label_token_file;	    /* LabelTokenFile, or NULL: no labels by the API */
	/* who reaches the dashboard (service/dashboard.c) */
	char *dashboard_insecure;    /* DashboardInsecure: no | yes */
	char **dashboard_allow_from; /* DashboardAllowFrom: addresses, CIDR ranges */
	int ndashboard_allow_from;
	char **dashboard_hosts; /* DashboardHosts: the Host names it answers as */
	int ndashboard_hosts;
	long dashboard_connections; /* DashboardConnections */
	long dashboard_per_address; /* DashboardPerAddress */
	/* repeat offenders (policy/repeat_policy.c) */
	long repeat_window;   /* RepeatWindow, seconds */
	long repeat_jobs;     /* RepeatJobs (0: no repeat-offender findings) */
	long repeat_users;    /* RepeatUsers */
	char **repeat_causes; /* RepeatCauses: sub-domains and root codes counted */
	int nrepeat_causes;
	char *topology_file;   /* TopologyFile, or NULL: Slurm's beside slurm.conf */
	long switch_window;    /* SwitchWindow, seconds */
	long switch_min_nodes; /* SwitchMinNodes */
};

/* Defaults, then path (a missing file at the default path is not an
 * error).  Every problem is printed as path:line: message; returns -1 if
 * there was any. */
int config_load(const char *path, struct attrib_config *c, FILE *err);
void config_free(struct attrib_config *c);
/* Writes every key with its value and description (attrib.conf(5)). */
void config_describe(FILE *out, const struct attrib_config *c);
/* attrib.conf(5), generated from the same table the parser uses. */
void config_man(FILE *out);
int config_has_state(const struct attrib_config *c, const char *state);

#endif
