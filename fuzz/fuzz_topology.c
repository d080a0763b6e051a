/* libFuzzer target: arbitrary bytes as Slurm's topology.conf and as
 * topology.yaml (common/topology.c, read by the engine from a case and by
 * attribd from TopologyFile).  Either a tree comes back, whose every node
 * has a leaf or none and whose every switch's parents end (no loop), or
 * NULL with a reason; topology_free releases all (LeakSanitizer checks). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "topology.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];

	for (int yaml = 0; yaml < 2; yaml++) {
		struct topology *t = topology_parse((const char *)data, size, yaml, err, sizeof(err));

		if (!t) {
			if (!err[0])
				__builtin_trap(); /* a refusal always says why */
			continue;
		}
		/* walking up from a leaf ends within the number of switches */
		const char *leaf = topology_leaf(t, "n1"), *up = leaf;
		int steps = 0;

		while (up && steps++ <= topology_switches(t))
			up = topology_parent(t, up);
		if (up)
			__builtin_trap();
		if (leaf && !topology_leaf_size(t, leaf))
			__builtin_trap();
		topology_free(t);
	}
	return 0;
}
