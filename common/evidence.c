/* The table of the kinds of evidence (evidence.h). */
#include <string.h>
#include "evidence.h"

const struct evidence_kind_row evidence_kinds[EVIDENCE_KINDS] = {
	[EVIDENCE_NODE] = { "node", CASE_NODES, true,
			    "a node's logs (kernel ring, journal, syslog files), as its collector cut them "
			    "to the job's window" },
	[EVIDENCE_APP] = { "app", CASE_APP, false, "the job's own output (its std_out and std_err)" },
	[EVIDENCE_SCHEDULER] = { "scheduler", CASE_SCHEDULER, false, "slurmctld's log lines of the job" },
	[EVIDENCE_JOB] = { "job", NULL, false,
			   "the job record's facts (" CASE_JOB ": state, exit code, reason), as lines" },
	[EVIDENCE_REPORT] = { "report", NULL, false,
			      "a node file that is a tool's report (nvidia-smi -q, dcgmi, ibstat: lines "
			      "without timestamps), read as node evidence too" },
};

int evidence_kind_of_source(const char *word)
{
	for (int k = 0; word && k < EVIDENCE_KINDS; k++)
		if (!strcmp(word, evidence_kinds[k].source))
			return k;
	return -1;
}

int evidence_kind_of_path(const char *path)
{
	if (!path)
		return -1;
	if (!strcmp(path, CASE_JOB))
		return EVIDENCE_JOB;
	for (int k = 0; k < EVIDENCE_KINDS; k++) {
		const char *d = evidence_kinds[k].dir;
		size_t n = d ? strlen(d) : 0;

		if (d && !strncmp(path, d, n) && (!path[n] || path[n] == '/'))
			return k;
	}
	return -1;
}
