/* libFuzzer target: arbitrary bytes as job.json.
 *
 * The bytes become the job.json of a small case (one node log beside it)
 * and go through attrib_analyze, which loads them with job_load and, when
 * they are usable, turns their facts (transitions, ranks, final state,
 * missing nodes) into lines for the rules.  A refusal must come with a
 * one-line reason; a result must keep the engine's invariants. */
#include <stdint.h>
#include "fuzz_common.h"

static const char kern[] =
	"2026-11-29T08:12:01+00:00 node-02 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', "
	"name=<unknown>, GPU has fallen off the bus.\n"
	"Nov 29 08:12:02 node-02 kernel: NVRM: Xid (PCI:0000:3b:00): 45, pid=4242, name=python3, Ch "
	"00000010\n";

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_load_catalog();
	fuzz_make_dir();
	fuzz_mkdir("nodes");
	fuzz_mkdir("nodes/node-02");
	fuzz_write("nodes/node-02/kern.log", kern, sizeof(kern) - 1);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];
	struct json_object *r;

	fuzz_write("job.json", data, size);
	memset(err, 'X', sizeof(err));
	err[0] = 0;
	r = attrib_analyze(fuzz_cat, fuzz_dir, NULL, err, sizeof(err));
	if (!r) {
		/* known engine bug "msg-newline": job.c quotes the offending value
		 * as is, so a newline in it splits the message (FUZZ_STRICT=1
		 * catches it) */
		bool newline = memchr(err, 0, sizeof(err)) && strchr(err, '\n');

		if (!memchr(err, 0, sizeof(err)) || !*err || (newline && fuzz_strict())) {
			fprintf(stderr, "fuzz_job: refused without a one-line reason: %.512s\n", err);
			abort();
		}
		return 0;
	}
	fuzz_check_result(r);
	json_object_put(r);
	return 0;
}
