/* attrib rules diff: two catalogs' verdicts on the same cases (next commit). */
#include "command.h"

int cmd_rules_diff(struct ctx *x)
{
	(void)x;
	fputs("attrib: rules diff is not built yet\n", stderr);
	return EXIT_USAGE;
}
