/* attrib export: stored cases as a labelled corpus (next commit). */
#include "command.h"

void usage_export(FILE *out)
{
	fputs("Usage: attrib export JOBID... DIR [--anonymise] [--config FILE]\n", out);
}

int cmd_export(struct ctx *x)
{
	(void)x;
	fputs("attrib: export is not built yet\n", stderr);
	return EXIT_USAGE;
}
