/* attrib drain: the culprits of a stored diagnosis drained through Slurm
 * (the drain plan of policy/drain_plan.c; Slurm through cli/slurm.c), every
 * decision recorded in the store with who asked for it. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "command.h"
#include "slurmapi.h"

void usage_drain(FILE *out)
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
	      "5 refused; 6 Slurm refused the update.\n",
	      out);
}

int cmd_drain(struct ctx *x)
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
	snprintf(by, sizeof(by), "attrib drain (uid %d%s%s)", (int)getuid(), user ? ", " : "",
		 user ? user : "");
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
				snprintf(why, sizeof(why),
					 "refusing: the drains of the last hour cannot be "
					 "counted (attrib drain --force NODE drains anyway)");
			else
				snprintf(why, sizeof(why),
					 "refusing: DrainMaxPerHour (%ld) reached: %ld "
					 "drain%s in the last hour (attrib drain --force NODE drains anyway)",
					 max_per_hour, recent, recent == 1 ? "" : "s");
			fprintf(stderr, "attrib: job %s: %s: %s\n", job, plan.nodes[i], why);
			store_add_drain(s, job, got, plan.nodes[i], why, dry ? DRAIN_DRY_RUN : DRAIN_REFUSED,
					by, now);
			if (rc == 0)
				rc = 5;
			continue;
		}
		if (dry) {
			printf("would drain %s: %s\n", plan.nodes[i], plan.reason);
			store_add_drain(s, job, got, plan.nodes[i], plan.reason, DRAIN_DRY_RUN, by, now);
			recent++; /* as the drain would count */
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
