/* attrib undrain NODE: a node attrib drained returned to service by hand,
 * through the same checks as attribd's Undrain (policy/undrain_apply.c); the
 * decision recorded in the store with who asked, under the job of the
 * drain it undoes (attrib show JOBID --drains). */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "command.h"
#include "drain_policy.h"
#include "nodedrains.h"
#include "undrain_apply.h"
#include "undrain_policy.h"

void usage_undrain(FILE *out)
{
	fputs("Usage: attrib undrain NODE [--force] [--config FILE]\n"
	      "\n"
	      "Returns a node attrib drained to service through Slurm (scontrol's\n"
	      "RESUME), when every check passes: Slurm shows it drained with a reason\n"
	      "starting \"attrib:\"; the store's latest drain of it is attrib's own, with\n"
	      "that reason (a node an administrator drained is never attrib's to\n"
	      "return, whatever its reason says); UndrainQuiet has passed since that\n"
	      "drain; attrib drained it at most once within UndrainWindow; and its\n"
	      "latest health check since the drain (attrib-collect --health) passed.\n"
	      "The decision, a refusal with its reason included, is recorded in the\n"
	      "store with who asked (attrib show JOBID --drains).\n"
	      "\n"
	      "  --force   return it even if drained twice within UndrainWindow or\n"
	      "            within UndrainQuiet; every other check still holds\n"
	      "\n"
	      "Exit status: 0 returned to service; 1 usage; 4 the store cannot be\n"
	      "read; 5 refused; 6 Slurm refused the update.\n",
	      out);
}

int cmd_undrain(struct ctx *x)
{
	const char *node = x->args[0], *user = getenv("SUDO_USER") ? getenv("SUDO_USER") : getenv("USER");
	char by[128], why[512];
	bool recorded;

	snprintf(by, sizeof(by), "attrib undrain (uid %d%s%s)", (int)getuid(), user ? ", " : "",
		 user ? user : "");
	enum undrain_decision d = undrain_apply(&x->conf, x->s, node, DRAIN_MODE_AUTO, x->force_all, true, by,
						(long long)time(NULL), why, sizeof(why), &recorded);
	if (!recorded)
		fprintf(stderr, "attrib: cannot record the decision in the store\n");
	switch (d) {
	case UNDECIDE_DO:
		printf("undrained %s: %s\n", node, why);
		return 0;
	case UNDECIDE_FAILED:
		fprintf(stderr, "attrib: undrain %s: %s\n", node, why);
		return 6;
	default:
		fprintf(stderr, "attrib: refusing to undrain %s: %s\n", node, why);
		return 5;
	}
}
