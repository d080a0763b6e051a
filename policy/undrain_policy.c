/* Undrain: returning to service a node attrib drained, carefully.  A node
 * taken back too early fails the next job on it, and one an administrator
 * drained is never attrib's to return, whatever its reason says; so each
 * check refuses rather than guesses, and every decision on a node attrib
 * drained is recorded in the store with its reason and who decided.
 *
 * The checks, in order (undrain_decide):
 *   - Slurm shows the node drained (or draining), with a reason starting
 *     ATTRIB_DRAIN_PREFIX;
 *   - the store's latest drain event of the node (drain or undrain done)
 *     is attrib's drain, and Slurm's reason is still the one attrib set,
 *     set no later than shortly after that drain (an administrator who
 *     drained the node again since, even with an attrib-like reason, owns
 *     it now).  Failing any of these, the node is not attrib's: refused,
 *     and --force changes nothing;
 *   - attrib drained it at most once within UndrainWindow (twice: a
 *     flapping node needs a person; --force by hand);
 *   - UndrainQuiet has passed since the drain (--force by hand);
 *   - the node's latest health check since the drain passed
 *     (attrib-collect --health; --force does not replace it).
 * attribd asks on each passing health check (Undrain = suggest|auto);
 * attrib undrain NODE asks by hand (cli/undrain.c); both through
 * undrain_apply.c. */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "conf.h"
#include "drain_policy.h"
#include "nodedrains.h"
#include "slurmapi.h"
#include "store.h"
#include "undrain_policy.h"

/* Slurm's reason time against the store's drain time: the store's time is
 * taken just before the drain request, and slurmctld may be slow */
#define REASON_SLACK 300

static void dur(long long s, char *buf, size_t len)
{
	if (s % 86400 == 0 && s)
		snprintf(buf, len, "%lldd", s / 86400);
	else if (s % 3600 == 0 && s)
		snprintf(buf, len, "%lldh", s / 3600);
	else if (s % 60 == 0 && s)
		snprintf(buf, len, "%lldm", s / 60);
	else
		snprintf(buf, len, "%llds", s);
}

enum undrain_decision undrain_decide(const struct attrib_config *conf, enum drain_mode mode, bool force,
				     const struct undrain_facts *f, long long now, char *why, size_t len,
				     bool *ours)
{
	const struct node_drain_info *ni = &f->slurm;
	const struct node_drain_event *e = &f->last;
	char a[32], b[32];

	*ours = false;
	if (!f->slurm_ok) {
		snprintf(why, len, "Slurm cannot tell the node's state: %s", f->slurm_err);
		return UNDECIDE_REFUSE;
	}
	if (!ni->drained) {
		snprintf(why, len, "the node is %s, not drained", ni->state);
		return UNDECIDE_REFUSE;
	}
	if (strncmp(ni->reason, ATTRIB_DRAIN_PREFIX, strlen(ATTRIB_DRAIN_PREFIX))) {
		snprintf(why, len, "not drained by attrib: its reason (%s) does not start with \"%s\"",
			 *ni->reason ? ni->reason : "none", ATTRIB_DRAIN_PREFIX);
		return UNDECIDE_REFUSE;
	}
	if (f->have_event < 0) {
		snprintf(why, len, "the store cannot tell who drained the node");
		return UNDECIDE_REFUSE;
	}
	if (!f->have_event || (strcmp(e->decision, DRAIN_DONE) && strcmp(e->decision, DRAIN_DONE_FORCED))) {
		snprintf(why, len,
			 "not drained by attrib: the store holds no drain of the node in force (%s); "
			 "an administrator's drain is theirs to resume (scontrol update state=resume)",
			 f->have_event ? "attrib returned it to service since its last drain"
				       : "attrib never drained it");
		return UNDECIDE_REFUSE;
	}
	if (strcmp(ni->reason, e->reason) ||
	    (ni->reason_time && ni->reason_time > e->created + REASON_SLACK)) {
		snprintf(why, len,
			 "not attrib's drain any more: Slurm's reason (%s) was set after attrib's drain of "
			 "job %s (%s); an administrator's drain is theirs to resume",
			 ni->reason, e->job_id, e->reason);
		return UNDECIDE_REFUSE;
	}
	*ours = true;
	if (!force && f->drains_in_window >= 2) {
		dur(conf->undrain_window, a, sizeof(a));
		snprintf(why, len,
			 "drained by attrib %ld times within UndrainWindow (%s): it needs a person "
			 "(attrib undrain --force)",
			 f->drains_in_window, a);
		return UNDECIDE_REFUSE;
	}
	if (!force && now - e->created < conf->undrain_quiet) {
		dur(conf->undrain_quiet, a, sizeof(a));
		dur(conf->undrain_quiet - (now - e->created), b, sizeof(b));
		snprintf(why, len, "UndrainQuiet (%s) not passed since attrib's drain: %s to go", a, b);
		return UNDECIDE_REFUSE;
	}
	if (f->have_health < 0) {
		snprintf(why, len, "the store cannot tell the node's health checks");
		return UNDECIDE_REFUSE;
	}
	if (!f->have_health) {
		snprintf(why, len,
			 "no health check of the node since attrib's drain (attrib-collect --health)");
		return UNDECIDE_REFUSE;
	}
	if (!f->health_passed) {
		snprintf(why, len, "the node's latest health check since attrib's drain failed");
		return UNDECIDE_REFUSE;
	}
	snprintf(why, len, "drained by attrib (job %s), health check passed%s", e->job_id,
		 force ? ", forced by hand" : "");
	return mode == DRAIN_MODE_SUGGEST ? UNDECIDE_SUGGEST : UNDECIDE_DO;
}

const char *undrain_decision_name(enum undrain_decision d, bool force)
{
	switch (d) {
	case UNDECIDE_DO:
		return force ? UNDRAIN_DONE_FORCED : UNDRAIN_DONE;
	case UNDECIDE_SUGGEST:
		return UNDRAIN_SUGGESTED;
	case UNDECIDE_REFUSE:
		return UNDRAIN_REFUSED;
	case UNDECIDE_FAILED:
		return UNDRAIN_FAILED;
	}
	return "?";
}

enum drain_mode undrain_mode(const struct attrib_config *conf)
{
	return conf->undrain && !strcasecmp(conf->undrain, "auto")	 ? DRAIN_MODE_AUTO
		: conf->undrain && !strcasecmp(conf->undrain, "suggest") ? DRAIN_MODE_SUGGEST
									 : DRAIN_MODE_OFF;
}
