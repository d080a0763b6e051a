/* libFuzzer target: arbitrary bytes as one node's bundle, as the service
 * receives it.
 *
 * The bytes go the way an upload goes once its credential is accepted:
 * parsed as one JSON value with the service's depth limit (json_parse_bounded,
 * the check http.c makes before the 202), then, whatever the answer, spooled
 * as STATE/incoming/4242/node-02.json (a file on disk may be anything: a
 * crash mid-write, a hand edit) and taken by the service's own path for a
 * job record: spool_bundle_fresh (a requeued attempt's bundle?), casebuild
 * (the bundle's files and ranks into the case, its coverage), then
 * attrib_analyze.  No network, no MUNGE: those are t/service-http's.  A
 * case that cannot be built must say why in one line; a result must keep
 * the engine's invariants, coverage included. */
#include <stdint.h>
#include "attrib.h"
#include "bundlescan.h"
#include "casebuild.h"
#include "conf.h"
#include "contract.h"
#include "fuzz_common.h"
#include "jsonread.h"
#include "log.h"
#include "spool.h"

static struct attrib_config fuzz_conf;
static struct json_object *fuzz_record;

/* The example job (4242 on node-01..04) as jobcomp/attrib writes it,
 * without output files (read as a user: not this target's business). */
static const char record_text[] =
	"{\"schema\":\"attrib.job/v1\",\"job_id\":\"4242\",\"cluster\":\"lab\",\"user\":\"alice\","
	"\"uid\":0,\"gid\":0,\"attempt\":0,\"partition\":\"gpu\",\"name\":\"llm-pretrain\","
	"\"nodes\":[\"node-01\",\"node-02\",\"node-03\",\"node-04\"],"
	"\"submit_time\":\"2026-11-29T07:58:10Z\",\"start_time\":\"2026-11-29T08:00:00Z\","
	"\"end_time\":\"2026-11-29T08:14:07Z\",\"state\":\"FAILED\",\"exit_code\":\"1:0\","
	"\"derived_exit_code\":\"1:0\",\"reason\":\"NonZeroExitCode\",\"restart_count\":0,"
	"\"log_timezone\":\"UTC\"}";

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char err[256], dir[300];

	(void)argc;
	(void)argv;
	fuzz_load_catalog();
	fuzz_make_dir();
	config_load(NULL, &fuzz_conf, stderr);
	free(fuzz_conf.state_dir);
	fuzz_conf.state_dir = strdup(fuzz_dir);
	if (spool_prepare(fuzz_conf.state_dir, err, sizeof(err)) < 0) {
		fprintf(stderr, "fuzz_bundle: %s\n", err);
		exit(1);
	}
	snprintf(dir, sizeof(dir), "%s/incoming/4242", fuzz_dir);
	mkdir(dir, 0700);
	fuzz_record = json_tokener_parse(record_text);
	if (!fuzz_record)
		abort();
	/* the service's errors (a file it cannot write) are not findings */
	log_set_level(LOGL_ERROR);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512], *case_dir;
	struct json_object *parsed, *cov, *r, *arr;

	/* what http.c decides before answering 202: the streaming check, fed
	 * whole and in uneven pieces (as uploads arrive); what it takes, json-c
	 * (which casebuild uses) must take too, and the two feeds agree */
	struct bscan whole, pieces;
	bool ok_whole, ok_pieces = true;

	bscan_init(&whole);
	ok_whole = bscan_feed(&whole, (const char *)data, size) == 0 && bscan_end(&whole) == 0;
	bscan_init(&pieces);
	for (size_t off = 0, k = 1; off < size && ok_pieces; off += k, k = k % 7 + 1)
		ok_pieces = bscan_feed(&pieces, (const char *)data + off, off + k > size ? size - off : k) ==
			0;
	ok_pieces = ok_pieces && bscan_end(&pieces) == 0;
	if (ok_whole != ok_pieces || (!ok_whole && !whole.err[0]) || strcmp(whole.schema, pieces.schema) ||
	    strcmp(whole.node, pieces.node))
		abort();
	parsed = json_parse_bounded((const char *)data, size, JSON_MAX_DEPTH, err, sizeof(err));
	if (!parsed && (!memchr(err, 0, sizeof(err)) || !*err))
		abort();
	/* what http.c takes (the scan, and a top-level object: it refuses
	 * any other value before casebuild parses it) json-c parses too;
	 * json-c cannot end a bare top-level number ("2") at the end of the
	 * input, which the scan, a plain JSON check, takes */
	if (ok_whole && whole.top_type == '{' && !parsed)
		abort();
	json_object_put(parsed);

	/* what the main loop does with it */
	fuzz_write("incoming/4242/node-02.json", data, size);
	cov = json_object_new_array();
	memset(err, 'X', sizeof(err));
	err[0] = 0;
	case_dir = casebuild(&fuzz_conf, fuzz_record, "4242", 0, NULL, cov, NULL, err, sizeof(err));
	if (!case_dir) {
		fprintf(stderr, "fuzz_bundle: the case was not built: %.512s\n", err);
		abort(); /* only the disk can refuse it, never the bundle */
	}
	fuzz_check_strings(cov);
	r = attrib_analyze(fuzz_cat, case_dir, NULL, err, sizeof(err));
	if (!r) {
		/* the record is fixed and usable: only the bundle changed */
		fprintf(stderr, "fuzz_bundle: the engine refused the case: %.512s\n", err);
		abort();
	}
	/* coverage is where the service says what it could not use */
	if (!json_object_object_get_ex(r, "coverage", &arr) || !json_object_is_type(arr, json_type_array))
		abort();
	fuzz_check_result(r);
	json_object_put(r);
	json_object_put(cov);
	free(case_dir);
	return 0;
}
