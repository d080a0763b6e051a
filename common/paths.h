/* Where attrib's programs find what they did not get on the command line:
 * the rule catalog, and files of the same build (a program run from its
 * build tree uses that tree's catalog, module and daemon). */
#ifndef ATTRIB_PATHS_H
#define ATTRIB_PATHS_H

#include <stddef.h>

/* The catalog to use: opt (--rules, RulesDir), $ATTRIB_RULES, the
 * installed one (RULESDIR), or the rules/ directory beside the program. */
const char *rules_path(const char *opt);
/* dirname(this program)/rel in buf when it exists, else NULL. */
const char *path_beside_program(const char *rel, char *buf, size_t len);

#endif
