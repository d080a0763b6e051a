/* libFuzzer target: arbitrary bytes as a rule file.
 *
 * The bytes become rules/50-fuzz.yaml beside the shipped 00-base.yaml (the
 * settings, classes and prefixes every rule file builds on) and go through
 * attrib_catalog_load: YAML parsing, every section's checks, the regexes
 * compiled by PCRE2 and Hyperscan (matcher_build), and the inline test
 * cases run by the self-test.  A catalog that loads is then used on a
 * small case (one node log) to show that what the loader accepts the
 * engine can run.  A refusal must name the problem. */
#include <stdint.h>
#include "fuzz_common.h"

static char rules_dir[128];
static char case_dir[128];
static char *errbuf;
static size_t errlen;

static const char kern[] =
	"2026-11-29T08:12:01+00:00 node-02 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', "
	"name=<unknown>, GPU has fallen off the bus.\n"
	"2026-11-29T08:12:02+00:00 node-02 python3[4242]: RuntimeError: CUDA error: out of memory\n";

static const char job[] = "{\"schema\":\"attrib.job/v1\",\"job_id\":\"1\",\"nodes\":[\"node-02\"],"
			  "\"start_time\":\"2026-11-29T08:00:00Z\",\"end_time\":\"2026-11-29T08:14:07Z\","
			  "\"state\":\"FAILED\",\"exit_code\":\"1:0\"}";

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_make_dir();
	fuzz_mkdir("rules");
	fuzz_mkdir("case");
	fuzz_mkdir("case/nodes");
	fuzz_mkdir("case/nodes/node-02");
	fuzz_write("case/nodes/node-02/kern.log", kern, sizeof(kern) - 1);
	fuzz_write("case/job.json", job, sizeof(job) - 1);
	{
		char base[4096];
		FILE *f;
		char *text = NULL;
		size_t len = 0;

		snprintf(base, sizeof(base), "%s/rules/00-base.yaml", SRCDIR);
		if (!(f = fopen(base, "rb"))) {
			perror(base);
			exit(1);
		}
		text = malloc(1 << 20);
		len = fread(text, 1, 1 << 20, f);
		fclose(f);
		fuzz_write("rules/00-base.yaml", text, len);
		free(text);
	}
	snprintf(rules_dir, sizeof(rules_dir), "%s/rules", fuzz_dir);
	snprintf(case_dir, sizeof(case_dir), "%s/case", fuzz_dir);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *err = open_memstream(&errbuf, &errlen);
	struct attrib_options opt = attrib_options_env(getenv);
	attrib_catalog *cat;

	if (!err)
		abort();
	fuzz_write("rules/50-fuzz.yaml", data, size);
	cat = attrib_catalog_load(rules_dir, &opt, err);
	fclose(err);
	if (!cat) {
		if (!errlen) {
			fprintf(stderr, "fuzz_rules: refused without a reason\n");
			abort();
		}
	} else {
		char why[512];
		struct json_object *r;

		attrib_catalog_selftest(cat, NULL, 0) == 0 ? (void)0 : abort();
		r = attrib_analyze(cat, case_dir, NULL, why, sizeof(why));
		if (!r) {
			fprintf(stderr, "fuzz_rules: a loaded catalog cannot analyse a usable case: %s\n",
				why);
			abort();
		}
		fuzz_check_result(r);
		json_object_put(r);
		attrib_catalog_free(cat);
	}
	free(errbuf);
	errbuf = NULL;
	return 0;
}
