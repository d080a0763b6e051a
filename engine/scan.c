/* Reads a case directory: application output first (its NCCL lines
 * teach node identity), scheduler excerpts, each node's directory, then
 * job.json's facts.  The files are listed here, in a fixed order, into a
 * plan that workers.c scans on several threads and merges in that order;
 * every file is read (casefiles.c), never mapped, and each of its lines
 * offered to the multi-pattern matcher once (linescan.c).  Unreadable
 * evidence becomes a coverage entry, never an error.  The parts of the
 * scan and how they call each other: scan_parts.h. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include "scan_parts.h"

/* The node directories and their files into the plan.  Which node a
 * directory is depends on what the application output taught identity
 * (a directory named by an address): dirs and node[] keep what the
 * listing saw, for nodes_still (below). */
static void plan_nodes(struct analysis *a, struct plan *p, bool *have, struct strlist *dirs, int **nodes)
{
	const struct job *j = &a->job;
	struct strlist files = { 0 };
	off_t *sizes = NULL;
	int from;
	DIR *d;
	struct dirent *e;

	/* the listing first, in the main thread: which files, in which order */
	from = a->ncov;
	if ((d = open_dir(a, CASE_NODES))) {
		while ((e = readdir(d)) && dirs->n < MAX_FILES)
			if (e->d_name[0] != '.')
				strlist_add(dirs, e->d_name);
		closedir(d);
	}
	listing_coverage(a, from, p);
	if (dirs->n > 1)
		qsort(dirs->v, dirs->n, sizeof(char *), cmp_str);
	*nodes = xcalloc(dirs->n + 1, sizeof(int));
	for (int i = 0; i < dirs->n; i++) {
		int node = (*nodes)[i] = identity_node(a->id, dirs->v[i]);
		char rel[4096];

		from = a->ncov;
		if (node < 0) {
			analysis_add_coverage(a, CASE_NODES, COVERAGE_ERROR,
					      CASE_NODES "/%s is not one of the job's nodes; not read",
					      dirs->v[i]);
			listing_coverage(a, from, p);
			continue;
		}
		snprintf(rel, sizeof(rel), CASE_NODES "/%s", dirs->v[i]);
		if (list_dir(a, rel, &files, &sizes, 1) < 0) {
			listing_coverage(a, from, p);
			continue; /* said why */
		}
		if (!files.n)
			analysis_add_coverage(a, rel, COVERAGE_MISSING, "no log files");
		listing_coverage(a, from, p);
		if (!files.n)
			continue;
		have[node] = true;
		for (int k = 0; k < files.n; k++) {
			strlist_add(&a->files, files.v[k]);
			plan_file(a, p, a->files.v[a->files.n - 1], a->files.n - 1, SRC_NODE,
				  j->nodes.v[node], sizes[k]);
		}
		strlist_free(&files);
	}
	free(sizes);
}

/* Whether every node directory is still the node the listing took it for,
 * with what the application output has taught identity since. */
static bool nodes_still(const struct analysis *a, const struct strlist *dirs, const int *nodes)
{
	for (int i = 0; i < dirs->n; i++)
		if (identity_node(a->id, dirs->v[i]) != nodes[i])
			return false;
	return true;
}

/* Application output and scheduler excerpts: their files in the plan. */
static void plan_dir(struct analysis *a, struct plan *p, const char *dir, int source)
{
	struct strlist files = { 0 };
	off_t *sizes = NULL;
	int from = a->ncov;

	list_dir(a, dir, &files, &sizes, 0);
	listing_coverage(a, from, p);
	for (int i = 0; i < files.n; i++) {
		strlist_add(&a->files, files.v[i]);
		plan_file(a, p, a->files.v[a->files.n - 1], a->files.n - 1, source, NULL, sizes[i]);
	}
	strlist_free(&files);
	free(sizes);
}

void scan_case(struct analysis *a)
{
	const struct job *j = &a->job;
	bool *have = xcalloc(j->nodes.n, sizeof(bool));
	struct plan p = { .chunk = a->opt->chunk_bytes ? a->opt->chunk_bytes : CHUNK_BYTES };
	struct strlist dirs = { 0 };
	int *nodes = NULL;

	origins_load(a);
	/* application output first: its NCCL init lines teach node identity,
	 * which names the node directories.  All files are scanned at once;
	 * the node directories are listed before that identity is learnt and
	 * listed again in the rare case it changes which node one is.  Every
	 * kind with a folder of its own (common/evidence.h) but the nodes'. */
	for (int k = 0; k < EVIDENCE_KINDS; k++)
		if (evidence_kinds[k].dir && !evidence_kinds[k].per_node)
			plan_dir(a, &p, evidence_kinds[k].dir, 1 << k);
	int napp = p.n, nfiles = a->files.n;
	plan_nodes(a, &p, have, &dirs, &nodes);
	struct run r;

	plan_start(a, &p, &r);
	plan_merge(a, &p, 0, napp, &r);
	if (nodes_still(a, &dirs, nodes)) {
		plan_merge(a, &p, napp, p.n, &r);
		plan_join(&r);
		plan_free(&p);
	} else {
		plan_join(&r);
		plan_drop(&p, napp, p.n);
		plan_free(&p);
		while (a->files.n > nfiles)
			free(a->files.v[--a->files.n]);
		memset(have, 0, j->nodes.n * sizeof(bool));
		strlist_free(&dirs);
		free(nodes);
		plan_nodes(a, &p, have, &dirs, &nodes);
		plan_start(a, &p, &r);
		plan_merge(a, &p, 0, p.n, &r);
		plan_join(&r);
		plan_free(&p);
	}
	strlist_free(&dirs);
	free(nodes);
	for (int i = 0; i < j->nodes.n; i++)
		if (!have[i]) {
			char src[4096];

			snprintf(src, sizeof(src), CASE_NODES "/%s", j->nodes.v[i]);
			analysis_add_coverage(a, src, COVERAGE_MISSING,
					      "no evidence collected from this node");
		}
	scan_job_facts(a, have);
	origins_free(a);
	free(have);
}
