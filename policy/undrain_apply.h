/* Undrain carried out, for attribd and attrib undrain alike: Slurm through
 * slurmapi.h's node_drain_info and resume_node, which each program
 * provides (attribd: slurmapi/; attrib: cli/slurm.c's module). */
#ifndef ATTRIB_UNDRAIN_APPLY_H
#define ATTRIB_UNDRAIN_APPLY_H

#include <stdbool.h>
#include <stddef.h>
#include "conf.h"
#include "store.h"
#include "undrain_policy.h"

/* The facts from Slurm (node_drain_info) and the store; -1 when the store
 * cannot count the node's drains. */
int undrain_facts_load(store *s, const char *node, long window, struct undrain_facts *f, long long now);
/* Decides, resumes through Slurm (UNDECIDE_DO) and records the decision
 * (by: who asks) in the drains table under the job of the drain undone.
 * record_foreign false (attribd): nothing is recorded for a node that is
 * not attrib's, nor a refusal recorded already with the same reason. */
enum undrain_decision undrain_apply(const struct attrib_config *conf, store *s, const char *node,
				    enum drain_mode mode, bool force, bool record_foreign, const char *by,
				    long long now, char *why, size_t len, bool *recorded);

#endif
