/* A test helper (not a test): puts diagnoses into a store as attribd
 * does (the job record's fields through result_add_job, the row through
 * result_view and store_put), for the dashboard's tests and bench.
 *
 *   t/dash-fill DB CREATED CASE_DIR RESULT_JSON [COPIES]
 *
 * CREATED: the stored time (Unix).  COPIES > 1: the result again under
 * job ids ID-c2..ID-cN (c: the copy), one second older each (the bench's
 * store of 100,000), in one transaction of the store's own connection. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "contract.h"
#include "jsonread.h"
#include "store.h"
#include "../store/internal.h" /* the connection: synchronous off for the bench */

int main(int argc, char **argv)
{
	struct json_object *rec, *res;
	struct job_record_view jr;
	struct result_view v;
	char err[512];
	long copies = argc > 5 ? atol(argv[5]) : 1;
	long long created;
	store *s;
	char path[4096];

	if (argc < 5) {
		fprintf(stderr, "usage: dash-fill DB CREATED CASE_DIR RESULT_JSON [COPIES]\n");
		return 2;
	}
	created = atoll(argv[2]);
	snprintf(path, sizeof(path), "%s/job.json", argv[3]);
	if (!(rec = json_object_from_file(path)) || !(res = json_object_from_file(argv[4]))) {
		fprintf(stderr, "dash-fill: cannot read %s or %s\n", path, argv[4]);
		return 1;
	}
	job_record_read(rec, &jr, err, sizeof(err));
	json_object_object_add(res, "attempt", json_object_new_int64(0));
	result_add_job(res, &jr);
	json_clean_strings(res); /* as attribd stores it */
	if (!(s = store_open(argv[1], false, err, sizeof(err)))) {
		fprintf(stderr, "dash-fill: %s\n", err);
		return 1;
	}
	sqlite3_exec(s->db, "PRAGMA synchronous = OFF", NULL, NULL, NULL);
	result_view_of(res, &v);
	char *culprits = result_join_culprits(&v);
	const char *text = json_object_to_json_string_ext(res,
							  JSON_C_TO_STRING_PLAIN |
								  JSON_C_TO_STRING_NOSLASHESCAPE);
	int rc = 0;

	for (long c = 1; c <= copies && rc >= 0; c++) {
		char id[160];
		struct store_row row = {
			.job_id = id,
			.attempt = 0,
			.cluster = jr.cluster,
			.user = jr.user,
			.state = v.terminal_state,
			.sub_domain = v.sub_domain,
			.culprits = culprits,
			.root_code = v.root_code,
			.created = created - (c - 1),
			.started = (long long)jr.start,
			.gpus = jr.gpus,
			.partition = jr.partition,
			.result_json = text,
		};

		if (c == 1)
			snprintf(id, sizeof(id), "%s", v.job_id ? v.job_id : "0");
		else
			snprintf(id, sizeof(id), "%s-c%ld", v.job_id ? v.job_id : "0", c);
		rc = store_put(s, &row, NULL, created);
	}
	free(culprits);
	store_close(s);
	json_object_put(rec);
	json_object_put(res);
	if (rc < 0)
		fprintf(stderr, "dash-fill: store_put failed\n");
	return rc < 0;
}
