/* attrib.conf: "Key = value" lines.  Keys and their types are one table;
 * a bad value or an unknown key is refused with its line number, so a
 * typo never silently becomes a default. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "conf.h"
#include "timefmt.h"

enum type { T_STR, T_PATH, T_SECONDS, T_SIZE, T_LIST, T_ENUM, T_FLOAT, T_HOSTPORT, T_URL, T_INT };

struct key {
	const char *name;
	enum type type;
	size_t off, count_off; /* count_off: for lists */
	const char *def;
	const char *choices; /* T_ENUM: "a|b|c" */
	const char *doc;
};

#define O(f) offsetof(struct attrib_config, f)
static const struct key keys[] = {
	{ "SpoolDir", T_PATH, O(spool_dir), 0, "/var/spool/attrib", NULL,
	  "Directory where jobcomp/attrib leaves job records (in jobs/); must match JobCompLoc." },
	{ "NodeSpoolDir", T_PATH, O(node_spool_dir), 0, "/var/spool/attrib/node", NULL,
	  "On compute nodes: task records of the SPANK plugin and the collector's outbox." },
	{ "StateDir", T_PATH, O(state_dir), 0, "/var/lib/attrib", NULL,
	  "The service's incoming bundles, case directories and store (attrib.db)." },
	{ "RulesDir", T_PATH, O(rules_dir), 0, "", NULL,
	  "Rule catalog to use; empty for the installed one." },
	{ "Listen", T_HOSTPORT, O(listen), 0, "127.0.0.1:7411", NULL,
	  "Address and port attribd listens on." },
	{ "ServiceURL", T_URL, O(service_url), 0, "http://127.0.0.1:7411", NULL,
	  "Where attrib-collect sends bundles." },
	{ "LogSources", T_LIST, O(log_sources), O(nlog_sources), "auto", NULL,
	  "Node log sources the collector cuts the job window from: \"journal\" (or \"journal:DIR\"), "
	  "\"kmsg\" (the kernel's ring buffer, read only when no journal source holds kernel "
	  "messages), files, or \"auto\": those of journal, /var/log/kern.log, /var/log/syslog, "
	  "/var/log/messages and kmsg the node has (one it lacks is no gap). A source named here that "
	  "the node lacks is a \"missing\" coverage entry of the job, a line in the collector's log and "
	  "a count of attrib_coverage_gaps_total; so is a node where no source held the kernel's "
	  "messages (source kernel_log). Rules for kernel messages (NVRM Xid, AER, OOM killer ...) read only "
	  "what the kernel wrote (the journal's _TRANSPORT=kernel entries, kmsg), never a file: any "
	  "user can write a line into syslog." },
	{ "WindowMargin", T_SECONDS, O(window_margin), 0, "300", NULL,
	  "Seconds before the job's start and after its end that the collector keeps." },
	{ "CollectTimeout", T_SECONDS, O(collect_timeout), 0, "8", NULL,
	  "Time budget of the collector, including retries of the upload." },
	{ "BundleDeadline", T_SECONDS, O(bundle_deadline), 0, "120", NULL,
	  "How long the service waits for every node's bundle before it attributes anyway." },
	{ "AttributeStates", T_LIST, O(attribute_states), O(nattribute_states),
	  "FAILED,NODE_FAIL,TIMEOUT,OUT_OF_MEMORY,BOOT_FAIL,CANCELLED,PREEMPTED,DEADLINE", NULL,
	  "Job end states that get a diagnosis (COMPLETED jobs get none unless listed)." },
	{ "CommentField", T_ENUM, O(comment_field), 0, "AdminComment", "AdminComment|Comment|SystemComment",
	  "Accounting field the summary is appended to." },
	{ "AppMaxBytes", T_SIZE, O(app_max_bytes), 0, "64M", NULL,
	  "How much of the end of each job output file is read." },
	{ "ReadJobOutput", T_ENUM, O(read_job_output), 0, "no", "no|yes",
	  "Where the job's output (std_out, std_err) comes from. no: only from the bundle of the "
	  "batch host, whose collector reads the files' ends as the job's user where the job wrote "
	  "them; yes: the service also reads them itself, as the job's user, when no bundle carried "
	  "them (it needs the users' file systems mounted at the same paths)." },
	{ "MaxBundleBytes", T_SIZE, O(max_bundle_bytes), 0, "64M", NULL,
	  "Largest bundle the service accepts (and the collector sends)." },
	{ "SlurmctldLog", T_PATH, O(slurmctld_log), 0, "", NULL,
	  "slurmctld's log; lines naming the job go to the case's scheduler/ evidence." },
	{ "ReconcileInterval", T_SECONDS, O(reconcile_interval), 0, "300", NULL,
	  "How often the service asks slurmdbd for ended jobs it has no result for (0: never)." },
	{ "DrainPolicy", T_ENUM, O(drain_policy), 0, "off", "off|suggest|auto",
	  "What attribd does when a diagnosis recommends draining its culprit node, for each "
	  "class of DrainClasses without a mode of its own: off: nothing; suggest: record the drain "
	  "it would do; auto: drain the node through Slurm (scontrol's DRAIN, with a reason naming "
	  "the cause, the device and the job). Every decision, refusals with their reason included, "
	  "is kept in the store and shown by attrib show JOBID." },
	{ "DrainClasses", T_LIST, O(drain_classes), O(ndrain_classes), "", "off|suggest|auto",
	  "Rule classes (rules/00-base.yaml) whose culprits the policy may drain, each CLASS (DrainPolicy "
	  "applies) or CLASS:MODE with a mode of its own (off, suggest or auto), e.g. "
	  "gpu-hardware:auto,nvlink with DrainPolicy = suggest. Culprits of any other class are never "
	  "drained by the policy. Besides the rules' classes, repeat-offender is the class of a node "
	  "with a repeat-offender finding (RepeatJobs): the policy drains or suggests that node, "
	  "with a reason naming the finding. Not set: the classes the rules mark drain_by_default (the "
	  "shipped rules: gpu-hardware, gpu-memory, nvlink) in DrainPolicy's mode, and "
	  "repeat-offender:suggest; set, only the classes it names (add repeat-offender:suggest to keep "
	  "the suggestions)." },
	{ "DrainMinConfidence", T_ENUM, O(drain_confidence), 0, "high", "high|medium|low",
	  "The policy drains (or suggests draining) only for a diagnosis at least this confident (the "
	  "result's confidence, defined in the formats document: high, a fault the node's kernel or "
	  "root logged that its rule takes the node out of service for, or a cause the rest of the "
	  "evidence corroborates; medium, one specific failure signature in one kind of evidence, or a "
	  "weaker cause the rest corroborates, such as a node only the scheduler declared down that its "
	  "peers lost too; low, the rest). A "
	  "diagnosis below it is refused, and the refusal says its confidence. Fleet findings "
	  "(repeat-offender) are not diagnoses: this does not apply to them." },
	{ "DrainMaxPerHour", T_INT, O(drain_max_per_hour), 0, "2", NULL,
	  "At most this many drains in any hour, counting those of the policy and of attrib drain; "
	  "beyond it the policy and attrib drain refuse (attrib drain --force overrides) and record why." },
	{ "DrainMaxFraction", T_FLOAT, O(drain_max_fraction), 0, "0.05", NULL,
	  "The policy never leaves more than this fraction of a partition's nodes drained or down "
	  "(counting those Slurm already shows so, in every partition of the node): the fraction of the "
	  "partition's node count rounded down, but at least one node when above 0; 0: the policy "
	  "never drains." },
	{ "DrainMaxNodes", T_INT, O(drain_max_nodes), 0, "10", NULL,
	  "The policy never has more than this many nodes drained by attrib at once, in the whole "
	  "cluster: the nodes Slurm shows drained with a reason starting \"attrib:\" (the policy's, attrib "
	  "drain's, or an administrator's with that prefix) count, with the one to drain; beside "
	  "DrainMaxFraction, which a large partition's fraction makes loose. 0: the policy never "
	  "drains." },
	{ "Undrain", T_ENUM, O(undrain), 0, "off", "off|suggest|auto",
	  "What attribd does when a passing health check (attrib-collect --health) comes from a node "
	  "attrib drained: off: nothing; suggest: record that it would return the node to service; "
	  "auto: return it (scontrol's RESUME). Only a node Slurm shows drained with attrib's reason, "
	  "whose latest drain in the store is attrib's own, UndrainQuiet after that drain, whose latest "
	  "health check since passed, and not drained by attrib twice within UndrainWindow (that one "
	  "needs a person: attrib undrain --force). Every decision is recorded with its reason "
	  "(attrib show JOBID --drains). attrib undrain NODE applies the same checks by hand." },
	{ "UndrainQuiet", T_SECONDS, O(undrain_quiet), 0, "1h", NULL,
	  "Time from attrib's drain of a node to its return to service, at least (attrib undrain "
	  "--force overrides)." },
	{ "UndrainWindow", T_SECONDS, O(undrain_window), 0, "7d", NULL,
	  "A node attrib drained twice within this time is never returned to service automatically "
	  "(attrib undrain --force does, by hand)." },
	{ "HealthCheck", T_STR, O(health_check), 0, "", NULL,
	  "On compute nodes: the command attrib-collect --health runs (from slurmd's "
	  "HealthCheckProgram) and reports, such as /usr/bin/dcgmi diag -r 1, /usr/bin/nvidia-smi -q "
	  "or /usr/sbin/nhc. Split at blanks into the program (an absolute path) and its arguments, "
	  "and run directly, not by a shell; exit status 0 passes. Empty: attrib-collect --health "
	  "runs nothing and reports nothing." },
	{ "HealthCheckTimeout", T_SECONDS, O(health_check_timeout), 0, "45", NULL,
	  "Time limit of HealthCheck; past it its process group is killed and the check fails. "
	  "attrib-collect --health then sends the report within 5 seconds more (never to an outbox: "
	  "a late report would vouch for a node's later state); the whole stays below slurmd's "
	  "60-second limit for HealthCheckProgram at the default." },
	{ "RequeuePolicy", T_ENUM, O(requeue_policy), 0, "off", "off|suggest|auto",
	  "What attribd does, for each class of RequeueClasses without a mode of its own, when it has "
	  "diagnosed a failed batch job with confidence (an infrastructure root cause of a culprit node, "
	  "from authenticated evidence, neither ambiguous nor unattributed): off: nothing; suggest: "
	  "record the requeue it would do; auto: requeue the job through Slurm (scontrol requeue) with "
	  "its culprit nodes added to its ExcNodeList. Only a job submitted requeueable (sbatch "
	  "--requeue, or JobRequeue=1), still known to slurmctld (MinJobAge after its end), ended FAILED, "
	  "NODE_FAIL or TIMEOUT, and requeued fewer than RequeueMax times is requeued; every decision, "
	  "refusals with their reason included, is kept in the store and shown by attrib show JOBID. "
	  "attrib requeue JOBID does it by hand, whatever this policy." },
	{ "RequeueClasses", T_LIST, O(requeue_classes), O(nrequeue_classes), "", "off|suggest|auto",
	  "Rule classes (rules/00-base.yaml) whose failed jobs the policy may requeue, each CLASS "
	  "(RequeuePolicy applies) or CLASS:MODE with a mode of its own (off, suggest or auto), as "
	  "DrainClasses, e.g. gpu-hardware:auto,nvlink with RequeuePolicy = suggest. Jobs of any "
	  "other class are never requeued by the policy (the refusal is recorded). Not set: every "
	  "class, in RequeuePolicy's mode." },
	{ "RequeueMax", T_INT, O(requeue_max), 0, "1", NULL,
	  "A job is requeued (by the policy or attrib requeue) only when Slurm has requeued it fewer "
	  "than this many times before (its restart count, whoever requeued it): 1, the default, "
	  "requeues a job once; 0 never." },
	{ "RepeatWindow", T_SECONDS, O(repeat_window), 0, "24h", NULL,
	  "The history attribd looks at after each diagnosis, for every node the diagnosis names: "
	  "the jobs that ended this long ago or later. It is also how long a repeat-offender finding "
	  "stands: no second one is raised about the node within this time of the first." },
	{ "RepeatJobs", T_INT, O(repeat_jobs), 0, "3", NULL,
	  "A node named (culprit or affected) by the diagnoses of at least this many distinct jobs "
	  "in RepeatWindow, each with one of RepeatCauses, of at least RepeatUsers users, gets a "
	  "repeat-offender finding: shown by attrib nodes and attrib show, counted in "
	  "attrib_findings_total, acted on by the drain policy as class repeat-offender (DrainClasses). "
	  "Attempts of one job count once; each job's own diagnosis is left as it is. 0: never." },
	{ "RepeatUsers", T_INT, O(repeat_users), 0, "2", NULL,
	  "The distinct users those jobs must belong to (one user's bug repeated is no node's "
	  "fault); jobs whose user is not known count for none." },
	{ "RepeatCauses", T_LIST, O(repeat_causes), O(nrepeat_causes), "", NULL,
	  "The outcomes that count towards a repeat-offender finding: sub-domains and root cause "
	  "codes (rules/). Not set: every infrastructure sub-domain, ambiguous and unattributed "
	  "diagnoses, and the root cause codes the rules tag repeat-cause, the failures that look "
	  "like the user's code but are typical of a bad node (shipped: segmentation faults, CUDA "
	  "unknown errors and illegal memory accesses, NCCL timeouts and remote errors). Scheduler "
	  "outcomes (SchedTimeLimit, SchedPreempted, SchedCancelled) and Pass never count, even "
	  "when listed. RepeatJobs = 0 turns the findings off." },
	{ "Webhook", T_URL, O(webhook), 0, "", NULL,
	  "URL each stored result is POSTed to as JSON (empty: none); a delivery that "
	  "fails is retried with backoff, also after a restart." },
	{ "WebhookTimeout", T_SECONDS, O(webhook_timeout), 0, "10", NULL,
	  "Time limit of one Webhook delivery, connection included." },
	{ "LogFile", T_PATH, O(log_file), 0, "", NULL,
	  "Log file of the service and the collector (empty: standard error)." },
	{ "PidFile", T_PATH, O(pid_file), 0, "", NULL,
	  "File the service writes its process id to once it has started (empty: none), and "
	  "removes when it stops; for a start without systemd: stop it with "
	  "kill -TERM $(cat FILE)." },
	{ "AllowFrom", T_LIST, O(allow_from), O(nallow_from), "slurm,127.0.0.0/8,::1", NULL,
	  "Who may connect to attribd: slurm (the NodeAddr and NodeHostname of every node in "
	  "Slurm's node table, and NodeAddresses), IPv4 or IPv6 addresses and CIDR ranges; the address "
	  "of Listen, when it names one, is this host's and always allowed. Any other "
	  "connection is closed as it is accepted, before a byte is read. A bundle is taken only when "
	  "its MUNGE credential was made on the node it names, whatever address sent it." },
	{ "NodeAddresses", T_LIST, O(node_addresses), O(nnode_addresses), "", NULL,
	  "NAME=ADDRESS pairs the service adds to Slurm's node table (nodes it does not list, tests); "
	  "a name may be given several times." },
	{ "NodeTableRefresh", T_SECONDS, O(node_table_refresh), 0, "300", NULL,
	  "How often the service reloads Slurm's node table (slurm_load_node) and resolves its "
	  "addresses." },
	{ "HttpConnections", T_INT, O(http_connections), 0, "4096", NULL,
	  "Connections attribd holds at once (every node of the fleet ending a job together); "
	  "its open-file limit is raised to fit." },
	{ "HttpPerAddress", T_INT, O(http_per_address), 0, "8", NULL,
	  "Connections one address may hold at once; more are closed as they are accepted." },
	{ "HttpHeaderTimeout", T_SECONDS, O(http_header_timeout), 0, "5", NULL,
	  "Time from a connection's start (or its previous request's end) to its request's last "
	  "header; a slower client is disconnected. The dashboard's connections too." },
	{ "HttpIdleTimeout", T_SECONDS, O(http_idle_timeout), 0, "15", NULL,
	  "A connection silent this long is closed (a bundle's body included); the dashboard's "
	  "too." },
	{ "HttpThreads", T_INT, O(http_threads), 0, "4", NULL,
	  "Threads of the HTTP server (each with its own epoll set)." },
	{ "TopologyFile", T_PATH, O(topology_file), 0, "", NULL,
	  "Slurm's network topology (topology.conf's tree, or topology.yaml's cluster_default tree): "
	  "which leaf switch each node hangs from. Empty: the topology.yaml, else topology.conf, beside "
	  "the slurm.conf Slurm uses ($SLURM_CONF, else /etc/slurm/slurm.conf), when there. The service "
	  "copies it into each case directory, so the engine blames a leaf switch when several of a "
	  "job's nodes under it lose their links at once; and it looks across stored diagnoses for "
	  "lost links under one leaf (SwitchWindow, SwitchMinNodes). Without one, no switch is blamed "
	  "and the diagnosis's coverage says so when it would have mattered." },
	{ "SwitchWindow", T_SECONDS, O(switch_window), 0, "60", NULL,
	  "Across jobs: lost links (a diagnosis whose root cause is a node's lost link) on nodes "
	  "under one leaf switch whose times are this close are one event of the switch." },
	{ "SwitchMinNodes", T_INT, O(switch_min_nodes), 0, "2", NULL,
	  "Across jobs: the nodes under one leaf switch that must lose their links within "
	  "SwitchWindow for the service to blame the switch: it then records a fleet finding (kind "
	  "switch) citing the jobs, and its drain policy drains none of those nodes for it (each "
	  "refusal recorded as \"switch NAME blamed\")." },
	{ "ReportWindow", T_SECONDS, O(report_window), 0, "30d", NULL,
	  "The window of the GPU-hours lost that /metrics shows (attrib_gpu_hours_lost, by domain): "
	  "failed jobs that ended in the last this long, as attrib report --since; computed from the "
	  "store at most once a minute. 0: not shown." },
	{ "Dashboard", T_ENUM, O(dashboard), 0, "off", "off|on",
	  "The read-only dashboard (a web page and its JSON API, /api/v1/) on DashboardListen. It shows "
	  "users' names and job names: see the admin guide for who should reach it." },
	{ "DashboardListen", T_HOSTPORT, O(dashboard_listen), 0, "127.0.0.1:8081", NULL,
	  "Address and port of the dashboard; loopback unless DashboardTLSCert or a reverse proxy "
	  "guards it. An address beyond loopback (0.0.0.0 included) needs DashboardTLSCert, "
	  "DashboardTLSKey and DashboardTokenFile, or DashboardInsecure = yes: attribd refuses to "
	  "start otherwise." },
	{ "DashboardTLSCert", T_PATH, O(dashboard_tls_cert), 0, "", NULL,
	  "PEM certificate (chain) of the dashboard: with DashboardTLSKey it speaks HTTPS." },
	{ "DashboardTLSKey", T_PATH, O(dashboard_tls_key), 0, "", NULL,
	  "PEM private key of DashboardTLSCert; readable by the service's user only." },
	{ "DashboardTokenFile", T_PATH, O(dashboard_token_file), 0, "", NULL,
	  "File holding a bearer token (one line of at least 16 printable characters): every request "
	  "must then send \"Authorization: Bearer TOKEN\" (401 without). It, and DashboardTLSKey, "
	  "must be owned by root or by the user attribd runs as, and neither its group nor other "
	  "users may have any access (mode 0600 or less): attribd refuses to start otherwise." },
	{ "LabelTokenFile", T_PATH, O(label_token_file), 0, "", NULL,
	  "File holding the bearer token of POST /api/v1/jobs/ID/label on the dashboard's address (a "
	  "ticket system recording an admin's verdict, as attrib label does): one line of at least 16 "
	  "printable characters, owned and readable as DashboardTokenFile, and not the same token "
	  "(the dashboard's read-only token is refused: 403). Not set: labels are recorded only by "
	  "attrib label." },
	{ "DashboardInsecure", T_ENUM, O(dashboard_insecure), 0, "no", "no|yes",
	  "yes: the dashboard may listen beyond loopback without TLS or without a token, showing "
	  "users' names, job names and log lines to whoever reaches it (a warning is logged at each "
	  "start). no: attribd refuses to start so." },
	{ "DashboardAllowFrom", T_LIST, O(dashboard_allow_from), O(ndashboard_allow_from), "127.0.0.0/8,::1",
	  NULL,
	  "Who may connect to the dashboard: IPv4 or IPv6 addresses and CIDR ranges (the operators' "
	  "workstations, the reverse proxy); the address of DashboardListen, when it names one, is "
	  "this host's and always allowed. Any other connection is closed as it is accepted, before a "
	  "byte is read (attrib_dashboard_refused_address_total). Not slurm: the nodes' users are not "
	  "the dashboard's." },
	{ "DashboardHosts", T_LIST, O(dashboard_hosts), O(ndashboard_hosts), "localhost,127.0.0.1,[::1]",
	  NULL,
	  "The host names (and addresses, IPv6 in brackets) the dashboard answers as: a request whose "
	  "Host header names another gets 421 (attrib_dashboard_refused_host_total), one without a "
	  "Host header 400, so that a web page whose name is made to point to this host (DNS "
	  "rebinding, through an SSH tunnel as well) reads nothing. The port is not compared (a "
	  "tunnel may use another). Given, the list replaces these defaults; the host of "
	  "DashboardListen, when it names one, is always answered. Behind a reverse proxy that "
	  "passes the client's Host on, or on 0.0.0.0, list the names the browsers use." },
	{ "DashboardConnections", T_INT, O(dashboard_connections), 0, "2048", NULL,
	  "Connections the dashboard holds at once; its open-file limit is raised to fit." },
	{ "DashboardPerAddress", T_INT, O(dashboard_per_address), 0, "16", NULL,
	  "Connections one address may hold on the dashboard at once; more are closed as they are "
	  "accepted. A reverse proxy is one address: it needs as many as its concurrent requests." },
};
#define NKEYS (sizeof(keys) / sizeof(*keys))

static char **str_at(struct attrib_config *c, const struct key *k)
{
	return (char **)((char *)c + k->off);
}

static void free_list(char **l, int n)
{
	for (int i = 0; i < n; i++)
		free(l[i]);
	free(l);
}

static int parse_number(const char *v, long *out, int kind)
{
	char *end;
	long n, unit = 1;

	/* digits first: strtol would also take blanks, a sign ("-0", "+5") */
	if (!isdigit((unsigned char)*v))
		return -1;
	errno = 0;
	n = strtol(v, &end, 10);
	if (end == v || errno || n < 0)
		return -1;
	if (kind == T_SECONDS) {
		if (time_unit_seconds(*end))
			unit = time_unit_seconds(*end++);
	} else if (kind == T_SIZE) {
		if (*end == 'K' || *end == 'k')
			unit = 1L << 10, end++;
		else if (*end == 'M')
			unit = 1L << 20, end++;
		else if (*end == 'G')
			unit = 1L << 30, end++;
	}
	/* "9999999999999999G" would overflow (undefined; found by fuzz_conf) */
	if (*end || n > LONG_MAX / unit)
		return -1;
	*out = n * unit;
	return 0;
}

static int list_choice_ok(const char *choices, const char *v)
{
	size_t len = strlen(v);

	for (const char *p = choices; p; p = strchr(p, '|') ? strchr(p, '|') + 1 : NULL)
		if (len && !strncmp(p, v, len) && (p[len] == '|' || !p[len]))
			return 1;
	return 0;
}

/* Sets one key; returns a message on a bad value, NULL when fine. */
static const char *set(struct attrib_config *c, const struct key *k, const char *v)
{
	static char msg[256];
	long n;

	switch (k->type) {
	case T_PATH:
		if (*v && *v != '/')
			return "must be an absolute path";
		/* fall through */
	case T_STR:
		free(*str_at(c, k));
		*str_at(c, k) = *v ? strdup(v) : NULL;
		return NULL;
	case T_URL:
		if (*v && strncmp(v, "http://", 7) && strncmp(v, "https://", 8))
			return "must be an http:// or https:// URL";
		free(*str_at(c, k));
		*str_at(c, k) = *v ? strdup(v) : NULL;
		return NULL;
	case T_HOSTPORT: {
		const char *colon = strrchr(v, ':');

		if (!colon || colon == v || parse_number(colon + 1, &n, T_INT) || n < 1 || n > 65535)
			return "must be host:port";
		free(*str_at(c, k));
		*str_at(c, k) = strdup(v);
		return NULL;
	}
	case T_ENUM: {
		size_t len = strlen(v);

		for (const char *p = k->choices; p; p = strchr(p, '|') ? strchr(p, '|') + 1 : NULL)
			if (!strncasecmp(p, v, len) && (p[len] == '|' || !p[len])) {
				free(*str_at(c, k));
				*str_at(c, k) = strndup(p, len); /* the canonical spelling */
				return NULL;
			}
		snprintf(msg, sizeof(msg), "must be one of %s", k->choices);
		return msg;
	}
	case T_SECONDS:
	case T_SIZE:
	case T_INT:
		if (parse_number(v, &n, k->type))
			return k->type == T_SECONDS ? "must be a number of seconds (or Nm, Nh, Nd)"
				: k->type == T_SIZE ? "must be a size (N, NK, NM, NG)"
						    : "must be a non-negative whole number";
		*(long *)((char *)c + k->off) = n;
		return NULL;
	case T_FLOAT: {
		char *end;
		double d;

		/* a plain decimal only: strtod would also take "nan" (which
		 * passes every comparison), "inf", hex floats and exponents */
		if (strspn(v, "0123456789.") != strlen(v) || !strpbrk(v, "0123456789") ||
		    strchr(v, '.') != strrchr(v, '.'))
			return "must be a number from 0 to 1";
		d = strtod(v, &end);
		if (end == v || *end || !isfinite(d) || d < 0 || d > 1)
			return "must be a number from 0 to 1";
		*(double *)((char *)c + k->off) = d;
		return NULL;
	}
	case T_LIST: {
		char ***lp = (char ***)((char *)c + k->off);
		int *np = (int *)((char *)c + k->count_off);
		char *copy = strdup(v), *save = NULL;

		free_list(*lp, *np);
		*lp = NULL;
		*np = 0;
		for (char *t = strtok_r(copy, ", \t", &save); t; t = strtok_r(NULL, ", \t", &save)) {
			const char *m = strchr(t, ':');

			/* a list with choices: ITEM or ITEM:CHOICE */
			if (k->choices && m && !list_choice_ok(k->choices, m + 1)) {
				snprintf(msg, sizeof(msg), "item %s: after the colon one of %s", t,
					 k->choices);
				free(copy);
				return msg;
			}
			*lp = realloc(*lp, (*np + 1) * sizeof(char *));
			(*lp)[(*np)++] = strdup(t);
		}
		free(copy);
		return NULL;
	}
	}
	return "unknown type";
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

/* Opens attrib.conf as MUNGE opens its key: whoever can write this file
 * decides where the service (root) reads and writes, so it must be a
 * regular file reached without a symbolic link as its last component,
 * owned by root or by the user running the program, and writable by no
 * one else: not by every user, and by a group only when that group is
 * root's (gid 0), as /etc's files.  A directory, a FIFO or a device is
 * refused (a directory used to read as an empty file: all defaults).
 * NULL with errno (ENOENT: no file, said by the caller) and the reason
 * printed. */
#define CONF_LINE_MAX (1 << 20)
#define CONF_FILE_MAX (16L << 20)

static FILE *open_checked(const char *path, FILE *err)
{
	struct stat st;
	const char *why = NULL;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), e;
	FILE *f;

	if (fd < 0) {
		e = errno;
		if (e == ENOENT && !strcmp(path, ATTRIB_CONF_DEFAULT))
			return NULL; /* no file: the defaults */
		fprintf(err, "%s: %s\n", path,
			e == ELOOP ? "is a symbolic link; refused (name the file itself)" : strerror(e));
		errno = e == ENOENT ? EINVAL : e;
		return NULL;
	}
	if (fstat(fd, &st) < 0)
		why = strerror(errno);
	else if (S_ISDIR(st.st_mode))
		why = "is a directory, not a configuration file";
	else if (!S_ISREG(st.st_mode))
		why = "is not a regular file";
	else if (st.st_size > CONF_FILE_MAX)
		why = "is larger than 16 MiB: not a configuration file";
	else if (st.st_uid != 0 && st.st_uid != geteuid())
		why = "is owned by another user (it must belong to root or to the user running attrib)";
	else if (st.st_mode & S_IWOTH)
		why = "is writable by every user";
	else if ((st.st_mode & S_IWGRP) && st.st_gid != 0)
		why = "is writable by a group other than root's";
	if (why) {
		fprintf(err, "%s: %s; refused\n", path, why);
		close(fd);
		errno = EPERM;
		return NULL;
	}
	/* (O_NONBLOCK only kept a FIFO from blocking the open) */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	if (!(f = fdopen(fd, "r"))) {
		e = errno;
		fprintf(err, "%s: %s\n", path, strerror(e));
		close(fd);
		errno = e;
	}
	return f;
}

int config_load(const char *path, struct attrib_config *c, FILE *err)
{
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int lineno = 0, errors = 0;
	unsigned char seen[NKEYS] = { 0 };

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < NKEYS; i++)
		set(c, &keys[i], keys[i].def);
	if (!path)
		return 0;
	if (!(f = open_checked(path, err)))
		return errno == ENOENT && !strcmp(path, ATTRIB_CONF_DEFAULT) ? 0 : -1;
	/* no fixed line length: NodeAddresses of a few thousand nodes is one
	 * line (a key given again replaces it); CONF_LINE_MAX bounds a file
	 * that is not a configuration at all */
	while ((len = getline(&line, &cap, f)) >= 0) {
		char *s, *eq, *key, *val;
		const char *msg;
		size_t i;

		lineno++;
		if (len > CONF_LINE_MAX || memchr(line, 0, len)) {
			fprintf(err, "%s:%d: line longer than %d bytes or not text\n", path, lineno,
				CONF_LINE_MAX);
			errors++;
			continue;
		}
		if ((s = strchr(line, '#')))
			*s = 0;
		s = trim(line);
		if (!*s)
			continue;
		if (!(eq = strchr(s, '='))) {
			fprintf(err, "%s:%d: expected Key = value\n", path, lineno);
			errors++;
			continue;
		}
		*eq = 0;
		key = trim(s);
		val = trim(eq + 1);
		for (i = 0; i < NKEYS; i++)
			if (!strcasecmp(keys[i].name, key))
				break;
		if (i == NKEYS) {
			fprintf(err, "%s:%d: unknown key \"%s\"\n", path, lineno, key);
			errors++;
			continue;
		}
		if (seen[i]++)
			fprintf(err, "%s:%d: %s given again; the last one counts\n", path, lineno,
				keys[i].name);
		if ((msg = set(c, &keys[i], val))) {
			fprintf(err, "%s:%d: %s %s (got \"%s\")\n", path, lineno, keys[i].name, msg, val);
			errors++;
		}
	}
	free(line);
	fclose(f);
	return errors ? -1 : 0;
}

void config_free(struct attrib_config *c)
{
	for (size_t i = 0; i < NKEYS; i++) {
		const struct key *k = &keys[i];

		if (k->type == T_LIST)
			free_list(*(char ***)((char *)c + k->off), *(int *)((char *)c + k->count_off));
		else if (k->type != T_SECONDS && k->type != T_SIZE && k->type != T_INT && k->type != T_FLOAT)
			free(*str_at(c, k));
	}
	memset(c, 0, sizeof(*c));
}

/* troff-safe: a leading dot or quote and backslashes would be read as
 * requests or escapes */
static void roff(FILE *out, const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", out);
	for (; *s; s++)
		fputs(*s == '\\' ? "\\e" : *s == '-' ? "\\-" : (char[]){ *s, 0 }, out);
}

void config_man(FILE *out)
{
	fputs(".TH ATTRIB.CONF 5 \"\" \"attrib\" \"File formats\"\n"
	      ".SH NAME\nattrib.conf \\- configuration of the attrib service, collector and command\n"
	      ".SH SYNOPSIS\n/etc/slurm/attrib.conf\n"
	      ".SH DESCRIPTION\nOne \\fIKey\\fR = \\fIvalue\\fR per line; \\fB#\\fR starts a comment; keys "
	      "are "
	      "not case-sensitive. An unknown key or a bad value stops the program at start with the file "
	      "name "
	      "and line number. A missing file at the default path means every default below.\n"
	      ".PP\nDurations are seconds, or a number followed by \\fBm\\fR, \\fBh\\fR or \\fBd\\fR; sizes "
	      "are bytes, "
	      "or a "
	      "number followed by \\fBK\\fR, \\fBM\\fR or \\fBG\\fR; lists are separated by commas.\n"
	      ".PP\nThe file is refused, as MUNGE refuses its key, when it is a symbolic link (name the "
	      "file itself), not a regular file (a directory, for one), owned by a user other than root or "
	      "the one running the program, writable by every user, or writable by a group other than "
	      "root's (gid 0). Numbers are plain decimals: no sign, no blanks, no \\fBnan\\fR or "
	      "\\fBinf\\fR, nothing after the number but its unit.\n"
	      ".SH KEYS\n",
	      out);
	for (size_t i = 0; i < NKEYS; i++) {
		fputs(".TP\n\\fB", out);
		roff(out, keys[i].name);
		fputs("\\fR (default: ", out);
		roff(out, *keys[i].def ? keys[i].def : "none");
		fputs(")\n", out);
		roff(out, keys[i].doc);
		if (keys[i].choices && keys[i].type != T_LIST) {
			fputs(" One of: ", out);
			roff(out, keys[i].choices);
			fputs(".", out);
		}
		fputs("\n", out);
	}
	fputs(".SH SEE ALSO\n\\fBattrib\\fR(1), \\fBslurm.conf\\fR(5)\n", out);
}

void config_describe(FILE *out, const struct attrib_config *c)
{
	(void)c;
	for (size_t i = 0; i < NKEYS; i++)
		fprintf(out, "%s = %s\n    %s%s%s\n", keys[i].name, keys[i].def, keys[i].doc,
			keys[i].choices && keys[i].type != T_LIST ? " One of " : "",
			keys[i].choices && keys[i].type != T_LIST ? keys[i].choices : "");
}

int config_has_state(const struct attrib_config *c, const char *state)
{
	for (int i = 0; i < c->nattribute_states; i++)
		if (!strcasecmp(c->attribute_states[i], state))
			return 1;
	return 0;
}
