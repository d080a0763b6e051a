/* Undrain carried out, by attribd (a node's passing health check,
 * service/health_intake.c) and by attrib undrain NODE (cli/undrain.c)
 * alike: the facts from Slurm and the store, the decision
 * (undrain_policy.c), the resume, the record.  Slurm through slurmapi.h's
 * node_drain_info and resume_node, which each program provides: attribd
 * links slurmapi/, attrib forwards them to its dlopen'ed module
 * (cli/slurm.c). */
#include <stdio.h>
#include <string.h>
#include "conf.h"
#include "drain_policy.h"
#include "health.h"
#include "nodedrains.h"
#include "slurmapi.h"
#include "store.h"
#include "undrain_apply.h"
#include "undrain_policy.h"

int undrain_facts_load(store *s, const char *node, long window, struct undrain_facts *f, long long now)
{
	memset(f, 0, sizeof(*f));
	f->slurm_ok = node_drain_info(node, &f->slurm, f->slurm_err, sizeof(f->slurm_err)) == 0;
	f->have_event = store_last_drain_event(s, node, &f->last);
	f->drains_in_window = store_count_node_drains(s, node, now - window);
	if (f->have_event == 1)
		f->have_health = store_last_health(s, node, f->last.created, &f->health_passed,
						   &f->health_received);
	return f->drains_in_window < 0 ? -1 : 0;
}

enum undrain_decision undrain_apply(const struct attrib_config *conf, store *s, const char *node,
				    enum drain_mode mode, bool force, bool record_foreign, const char *by,
				    long long now, char *why, size_t len, bool *recorded)
{
	struct undrain_facts f;
	bool ours;
	enum undrain_decision d;
	char err[256], last_dec[32], last_why[512];

	*recorded = false;
	if (!record_foreign) {
		/* attribd asks on every node's every passing check: slurmctld is
		 * asked only about the nodes the store says attrib drained */
		struct node_drain_event e;
		int have = store_last_drain_event(s, node, &e);

		if (have != 1 || (strcmp(e.decision, DRAIN_DONE) && strcmp(e.decision, DRAIN_DONE_FORCED))) {
			snprintf(why, len, "not drained by attrib");
			return UNDECIDE_REFUSE;
		}
	}
	undrain_facts_load(s, node, conf->undrain_window, &f, now);
	if (f.drains_in_window < 0)
		f.drains_in_window = 2; /* cannot be counted: as if twice, a person decides */
	d = undrain_decide(conf, mode, force, &f, now, why, len, &ours);
	if (!ours && !record_foreign)
		return d; /* not attrib's node: attribd leaves no trace for every healthy node */
	if (d == UNDECIDE_DO && resume_node(node, err, sizeof(err)) < 0) {
		d = UNDECIDE_FAILED;
		snprintf(why, len, "Slurm refused the resume: %s", err);
	}
	/* attribd asks on every health check: a refusal or a suggestion is
	 * recorded once per drain and reason, not every few minutes */
	if (!record_foreign && (d == UNDECIDE_REFUSE || d == UNDECIDE_SUGGEST) &&
	    store_last_undrain(s, node, f.last.created, last_dec, sizeof(last_dec), last_why,
			       sizeof(last_why)) == 1 &&
	    !strcmp(last_dec, undrain_decision_name(d, force)) && !strcmp(last_why, why))
		return d;
	if (store_add_drain(s, f.have_event == 1 ? f.last.job_id : "-",
			    f.have_event == 1 ? f.last.attempt : 0, node, why,
			    undrain_decision_name(d, force), by, now) == 0)
		*recorded = true;
	return d;
}
