/* Prints attrib.conf(5) from the parser's own key table (one source of
 * truth for every key, its default and its meaning). */
#include <stdio.h>
#include "conf.h"

int main(void)
{
	config_man(stdout);
	return 0;
}
