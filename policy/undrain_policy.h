/* Returning a node attrib drained to service (Undrain, UndrainQuiet,
 * UndrainWindow; attrib undrain): the decision, pure.  Carried out by
 * undrain_apply.h. */
#ifndef ATTRIB_UNDRAIN_POLICY_H
#define ATTRIB_UNDRAIN_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include "conf.h"
#include "drain_policy.h" /* enum drain_mode */
#include "nodedrains.h"	  /* struct node_drain_event */
#include "slurmapi.h"	  /* struct node_drain_info */

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
const char *undrain_decision_name(enum undrain_decision d, bool force);
/* Undrain's mode (attrib.conf's Undrain). */
enum drain_mode undrain_mode(const struct attrib_config *conf);

#endif
