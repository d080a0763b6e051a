/* The site's network topology: where attribd reads it (TopologyFile, else
 * Slurm's own topology.yaml or topology.conf beside the slurm.conf it
 * uses), the tree read once per change of the file, and its copy into each
 * case directory, so the engine judges the case with the tree the service
 * saw (engine/switch.c). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "conf.h"
#include "log.h"
#include "topology.h"
#include "topology_site.h"
#include "util.h"

/* The site's topology file: TopologyFile, else Slurm's beside slurm.conf
 * (topology_names, in Slurm's order). */
bool topology_site_path(const struct attrib_config *conf, char *buf, size_t len)
{
	const char *slurm_conf = getenv("SLURM_CONF");
	const char *slash;

	if (conf->topology_file) {
		snprintf(buf, len, "%s", conf->topology_file);
		return true;
	}
	if (!slurm_conf || !*slurm_conf)
		slurm_conf = "/etc/slurm/slurm.conf";
	slash = strrchr(slurm_conf, '/');
	for (int i = 0; i < TOPOLOGY_NAMES; i++) {
		snprintf(buf, len, "%.*s/%s", slash ? (int)(slash - slurm_conf) : 1, slash ? slurm_conf : ".",
			 topology_names[i]);
		if (!access(buf, F_OK))
			return true;
	}
	return false;
}

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct topology *cached;
static char cached_path[PATH_MAX];
static struct timespec cached_mtime;
static off_t cached_size;

struct topology *topology_site_get(const struct attrib_config *conf, char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct stat st;
	struct topology *t = NULL;

	err[0] = '\0';
	pthread_mutex_lock(&cache_lock);
	if (!topology_site_path(conf, path, sizeof(path))) {
		snprintf(err, errlen, "no topology.conf or topology.yaml beside slurm.conf");
		return NULL;
	}
	if (stat(path, &st) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (!cached || strcmp(cached_path, path) || st.st_size != cached_size ||
	    st.st_mtim.tv_sec != cached_mtime.tv_sec || st.st_mtim.tv_nsec != cached_mtime.tv_nsec) {
		char why[300];

		topology_free(cached);
		cached = topology_load(path, why, sizeof(why));
		snprintf(cached_path, sizeof(cached_path), "%s", path);
		cached_mtime = st.st_mtim;
		cached_size = st.st_size;
		if (!cached)
			log_msg(LOGL_WARNING, "topology %s: %s", path, why);
	}
	t = cached; /* valid until topology_site_put */
	if (!t)
		snprintf(err, errlen, "%s is not usable (the service's log says why)", path);
	return t;
}

void topology_site_put(void)
{
	pthread_mutex_unlock(&cache_lock);
}

void topology_site_free(void)
{
	pthread_mutex_lock(&cache_lock);
	topology_free(cached);
	cached = NULL;
	pthread_mutex_unlock(&cache_lock);
}

int topology_site_copy(const struct attrib_config *conf, const char *case_dir, char *err, size_t errlen)
{
	char path[PATH_MAX], out[PATH_MAX];
	char *buf;
	ssize_t got;
	int fd;
	struct stat st;

	err[0] = '\0';
	if (!topology_site_path(conf, path, sizeof(path)))
		return 0;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > TOPOLOGY_MAX_BYTES) {
		snprintf(err, errlen, "%s: %s", path,
			 S_ISREG(st.st_mode) ? "too large" : "not a regular file");
		close(fd);
		return -1;
	}
	buf = malloc(st.st_size + 1);
	got = buf ? read(fd, buf, st.st_size) : -1;
	close(fd);
	if (got < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		free(buf);
		return -1;
	}
	/* the engine tells the formats apart by the name, as Slurm does */
	snprintf(out, sizeof(out), "%s/%s", case_dir, topology_names[topology_is_yaml(path) ? 0 : 1]);
	if (svc_write_file(out, buf, got) < 0) {
		snprintf(err, errlen, "cannot write %s: %s", out, strerror(errno));
		free(buf);
		return -1;
	}
	free(buf);
	return 1;
}
