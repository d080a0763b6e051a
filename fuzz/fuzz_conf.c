/* libFuzzer target: arbitrary bytes as attrib.conf.
 *
 * The bytes become a configuration file read by config_load (common/conf.c,
 * the one parser of the service, the collector and the CLI).  Whatever it
 * says, a configuration comes back whole: the keys that cannot be empty
 * set (their default at least), numbers in their ranges; a refusal names file:line.
 * config_describe then writes every value (attrib.conf(5)'s table) and
 * config_free releases all (LeakSanitizer checks). */
#include <stdint.h>
#include "fuzz_common.h"
#include "conf.h"

static char conf_path[128];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_make_dir();
	snprintf(conf_path, sizeof(conf_path), "%s/attrib.conf", fuzz_dir);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct attrib_config c;
	char *msgs = NULL;
	size_t mlen = 0;
	FILE *err = open_memstream(&msgs, &mlen), *out;
	int rc;

	if (!err)
		abort();
	fuzz_write("attrib.conf", data, size);
	rc = config_load(conf_path, &c, err);
	fclose(err);
	if (rc < 0 && (!mlen || !strstr(msgs, conf_path))) {
		fprintf(stderr, "fuzz_conf: refused without naming the file: %s\n", msgs);
		abort();
	}
	/* keys that cannot be empty (paths and URLs may: "none") */
	if (!c.listen || !c.comment_field || !c.drain_policy)
		abort();
	if (c.nlog_sources < 0 || c.nattribute_states < 0 || c.ndrain_classes < 0 || c.app_max_bytes < 0 ||
	    c.max_bundle_bytes < 0 || c.collect_timeout < 0 || c.bundle_deadline < 0)
		abort();
	for (int i = 0; i < c.nlog_sources; i++)
		if (!c.log_sources[i])
			abort();
	if ((out = fopen("/dev/null", "w"))) {
		config_describe(out, &c);
		fclose(out);
	}
	config_free(&c);
	free(msgs);
	return 0;
}
