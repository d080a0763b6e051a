/* Slurm for the attrib command, loaded only when a command asks slurmctld
 * something (attrib drain, attrib requeue, the state column of attrib nodes): the module
 * attrib_slurm.so (slurmapi/module.c, in the attribd package) links
 * libslurm; attrib itself does not, so analyze, rules, show and list run
 * on a host without Slurm.  These are slurmapi.h's functions for the
 * command, each forwarding to the module's. */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "paths.h"
#include "slurmapi.h"

static const struct slurmapi_module *mod;

static const struct slurmapi_module *load(char *err, size_t errlen)
{
	char buf[PATH_MAX];
	const char *path;
	void *h;

	if (mod)
		return mod;
	/* the build tree's module when this program runs from one (libtool
	 * puts it there), else the installed one */
	if (!(path = path_beside_program("slurmapi/.libs/attrib_slurm.so", buf, sizeof(buf))))
		path = SLURM_MODULE;
	/* RTLD_GLOBAL: the plugins libslurm loads in turn (auth/munge) find
	 * its symbols (slurm_conf) in the global scope, as in Slurm's own
	 * commands, which link it; attrib's own functions are hidden
	 * (Makefile.am), so neither side binds to the other's */
	if (!(h = dlopen(path, RTLD_NOW | RTLD_GLOBAL))) {
		snprintf(err, errlen,
			 "Slurm is not available to attrib (%s; the attribd package "
			 "installs it): %s",
			 path, dlerror());
		return NULL;
	}
	const struct slurmapi_module *m = dlsym(h, SLURMAPI_MODULE_SYMBOL);
	if (!m || m->version != SLURMAPI_MODULE_VERSION) {
		snprintf(err, errlen, "%s is not this attrib's Slurm module (version %d, want %d)", path,
			 m ? m->version : -1, SLURMAPI_MODULE_VERSION);
		dlclose(h);
		return NULL;
	}
	return mod = m; /* kept loaded: libslurm cannot be unloaded cleanly */
}

int drain_node(const char *node, const char *reason, char *err, size_t errlen)
{
	char why[PATH_MAX + 256];

	if (!load(why, sizeof(why))) {
		snprintf(err, errlen, "%s: %s", node, why);
		return -1;
	}
	return mod->drain_node(node, reason, err, errlen);
}

struct node_state_map *node_states_load(char *err, size_t errlen)
{
	return load(err, errlen) ? mod->node_states_load(err, errlen) : NULL;
}

/* (a map comes from node_states_load: the module is loaded) */
bool node_state_of(const struct node_state_map *ns, const char *node, const char **state, const char **reason)
{
	return mod->node_state_of(ns, node, state, reason);
}

void node_states_free(struct node_state_map *ns)
{
	if (ns)
		mod->node_states_free(ns);
}

int requeue_slurm_state(const char *job_id, const char *const *nodes, int n, struct requeue_job_state *st,
			char *err, size_t errlen, void *arg)
{
	return load(err, errlen) ? mod->requeue_state(job_id, nodes, n, st, err, errlen, arg) : -1;
}

int requeue_job(const char *job_id, const char *exc_nodes, const char *const *nodes, int n, char *excluded,
		size_t excludedlen, char *err, size_t errlen)
{
	return load(err, errlen)
		? mod->requeue_job(job_id, exc_nodes, nodes, n, excluded, excludedlen, err, errlen)
		: -1;
}

int node_drain_info(const char *node, struct node_drain_info *ni, char *err, size_t errlen)
{
	memset(ni, 0, sizeof(*ni));
	return load(err, errlen) ? mod->node_drain_info(node, ni, err, errlen) : -1;
}

int resume_node(const char *node, char *err, size_t errlen)
{
	return load(err, errlen) ? mod->resume_node(node, err, errlen) : -1;
}
