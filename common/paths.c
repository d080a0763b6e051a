/* Where attrib's programs find their catalog and the files of their own
 * build (common/paths.h). */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "paths.h"

const char *path_beside_program(const char *rel, char *buf, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return NULL;
	exe[n] = 0;
	snprintf(buf, len, "%s/%s", dirname(exe), rel);
	return access(buf, F_OK) == 0 ? buf : NULL;
}

static int is_dir(const char *p)
{
	struct stat st;

	return p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *rules_path(const char *opt)
{
	static char beside[PATH_MAX];
	const char *env = getenv("ATTRIB_RULES");

	if (opt)
		return opt;
	if (env && *env)
		return env;
	if (is_dir(RULESDIR))
		return RULESDIR;
	if (path_beside_program("rules", beside, sizeof(beside)) && is_dir(beside))
		return beside;
	return RULESDIR;
}
