/* attrib requeue: a failed batch job requeued without the culprit nodes of
 * its stored diagnosis (policy/requeue_policy.c decides, as for attribd's
 * policy but whatever RequeuePolicy says; Slurm through cli/slurm.c),
 * every decision recorded in the store with who asked for it. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "command.h"
#include "requeue.h"
#include "requeue_policy.h"
#include "slurmapi.h"

void usage_requeue(FILE *out)
{
	fputs("Usage: attrib requeue JOBID [--dry-run] [--config FILE]\n"
	      "\n"
	      "Requeues a failed batch job (scontrol requeue) with the culprit nodes of\n"
	      "its stored diagnosis added to its ExcNodeList, so that its next attempt\n"
	      "runs elsewhere.  It refuses, and says why, unless the diagnosis names an\n"
	      "infrastructure culprit with confidence (not ambiguous or unattributed,\n"
	      "not from files anyone may write) and Slurm still knows the job (for\n"
	      "MinJobAge seconds after its end), a batch job submitted requeueable\n"
	      "(sbatch --requeue, or JobRequeue=1), ended FAILED, NODE_FAIL or TIMEOUT\n"
	      "in the attempt diagnosed, requeued fewer than RequeueMax times\n"
	      "(attrib.conf), and not excluding every culprit already.  Every decision\n"
	      "is recorded in the store with who asked for it (attrib show JOBID).\n"
	      "\n"
	      "  --dry-run      check everything and show what would be done, change nothing\n"
	      "\n"
	      "Exit status: 0 requeued (or shown); 1 usage; 4 no stored result;\n"
	      "5 refused; 6 Slurm refused the requeue.\n",
	      out);
}

int cmd_requeue(struct ctx *x)
{
	const char *job = x->args[0];
	char *text, by[128], excluded[1024] = "", err[512];
	long got = 0;
	struct requeue_verdict v;
	int rc = 0;

	if (!(text = store_get(x->s, job, -1, &got))) {
		fprintf(stderr, "attrib: no stored result for job %s\n", job);
		return EXIT_STORE;
	}
	struct json_object *r = json_tokener_parse(text);
	free(text);
	const char *user = getenv("SUDO_USER") ? getenv("SUDO_USER") : getenv("USER");
	snprintf(by, sizeof(by), "attrib requeue (uid %d%s%s)", (int)getuid(), user ? ", " : "",
		 user ? user : "");
	/* (the job's latest diagnosis: a requeue is of the attempt that ended last) */
	requeue_decide(&x->conf, r, job, got, false, requeue_slurm_state, NULL, &v);
	if (v.decision == RQ_REFUSE) {
		fprintf(stderr, "attrib: job %s: refusing to requeue: %s\n", job, v.why);
		rc = 5;
	} else if (x->dry_run) {
		printf("would requeue job %s without %s (ExcNodeList now: %s): %s\n", job, v.node_list,
		       *v.exc_nodes ? v.exc_nodes : "none", v.why);
	} else if (requeue_job(job, v.exc_nodes, v.nodes, v.n, excluded, sizeof(excluded), err, sizeof(err)) <
		   0) {
		fprintf(stderr, "attrib: job %s: Slurm refused the requeue: %s\n", job, err);
		v.decision = RQ_FAILED;
		snprintf(v.why, sizeof(v.why), "Slurm refused the requeue: %.450s", err);
		excluded[0] = 0;
		rc = 6;
	} else {
		printf("requeued job %s with ExcNodeList=%s: %s\n", job, excluded, v.why);
	}
	struct requeue_row row = {
		.job_id = job,
		.attempt = got,
		.nodes = v.node_list,
		.excluded = excluded,
		.reason = v.why,
		.decision = x->dry_run && v.decision == RQ_REQUEUE ? REQUEUE_DRY_RUN
								   : requeue_decision_name(v.decision),
		.by = by,
		.created = (long long)time(NULL),
	};
	if (store_add_requeue(x->s, &row) < 0)
		fprintf(stderr, "attrib: job %s: cannot record the requeue decision in the store\n", job);
	json_object_put(r);
	return rc;
}
