/* attrib_slurm.so: slurmapi for the attrib command, which loads it with
 * dlopen (cli/slurm.c) only when a command asks slurmctld something.  Its
 * one exported symbol is this table; its version changes whenever a
 * function's signature or a structure in slurmapi.h does, and the command
 * refuses a module of another version (one of another attrib release). */
#include "slurmapi.h"

__attribute__((visibility("default"))) const struct slurmapi_module attrib_slurm_module = {
	.version = SLURMAPI_MODULE_VERSION,
	.drain_node = drain_node,
	.node_states_load = node_states_load,
	.node_state_of = node_state_of,
	.node_states_free = node_states_free,
	.requeue_state = requeue_slurm_state,
	.requeue_job = requeue_job,
	.node_drain_info = node_drain_info,
	.resume_node = resume_node,
};
