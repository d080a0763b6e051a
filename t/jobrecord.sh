#!/bin/bash
# attrib-jobrecord without slurmctld (no cluster): the record it writes from
# the hook's environment alone, as EpilogSlurmctld and as jobcomp/script,
# within its time bound although libslurm cannot find a slurm.conf (it
# retries for 60 s and then ends the process: the child's business); the
# spool as jobcomp/attrib makes it; a symbolic link for SPOOL/jobs refused; no job id, no
# record.  The live pipeline with EpilogSlurmctld: t/live-epilogctld.sh.
set -u
SRC=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$SRC/t/lib/check.sh"
J=${ATTRIB_BUILDDIR:-.}/plugin/attrib-jobrecord
[ -x "$J" ] || skip "$J is not built"
W=$(mktemp -d /tmp/attrib-jobrecord-XXXXXX)
trap 'rm -rf "$W"' EXIT
jv() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

# EpilogSlurmctld's environment (names from slurmctld's job_common_env_vars)
t0=$(date +%s)
env -i PATH=/usr/bin:/bin SLURM_CONF="$W/no-such-slurm.conf" SLURM_JOB_ID=4242 \
	SLURM_JOB_USER=alice SLURM_JOB_UID=1000 SLURM_JOB_GID=1000 SLURM_JOB_NAME=train \
	SLURM_JOB_PARTITION=gpu SLURM_JOB_NODELIST='node-[01-03]' SLURM_CLUSTER_NAME=lab \
	SLURM_JOB_EXIT_CODE=256 SLURM_JOB_DERIVED_EC=0 SLURM_JOB_RESTART_COUNT=1 \
	SLURM_JOB_START_TIME=1764590000 SLURM_JOB_END_TIME=1764590600 \
	"$J" -d "$W/spool" -t 2 2>"$W/err"
rc=$?
t=$(($(date +%s) - t0))
check "EpilogSlurmctld without slurmctld: exit 0 (rc $rc)" test "$rc" = 0
check "within its bound (-t 2): ${t} s" test "$t" -le 4
R=$W/spool/jobs/4242.1.json
check "the record is jobs/JOBID.ATTEMPT.json (attempt = SLURM_JOB_RESTART_COUNT)" test -f "$R"
check "from the environment: job, user, nodes, exit status, times" \
	test "$(jv "$R" '(r["job_id"], r["user"], r["uid"], r["nodes"], r["exit_code"], r["state"], r["start_time"], r["end_time"], r["cluster"])' 2>&1)" = \
	"('4242', 'alice', 1000, ['node-01', 'node-02', 'node-03'], '1:0', 'FAILED', '2025-12-01T11:53:20Z', '2025-12-01T12:03:20Z', 'lab')"
check "what the environment does not hold is null: time limit, submit time, batch host" \
	test "$(jv "$R" '(r["time_limit"], r["submit_time"], r["batch_host"])')" = "(None, None, None)"
check "it says why: the record is from the environment only" grep -q "environment only" "$W/err"
check "the spool as jobcomp/attrib makes it: jobs/ 0700, the record 0600" \
	test "$(stat -c %a "$W/spool/jobs") $(stat -c %a "$R")" = "700 600"

# jobcomp/script's environment
env -i PATH=/usr/bin:/bin SLURM_CONF="$W/no-such-slurm.conf" JOBID=4243 USERNAME=bob UID=1001 \
	GID=1001 JOBNAME=eval PARTITION=gpu NODES=node-02 EXITCODE=0:9 START=1764590000 \
	END=1764590060 "$J" -d "$W/spool" -t 1 2>/dev/null
check "jobcomp/script without slurmctld: the record, signal 9 as FAILED" \
	test "$(jv "$W/spool/jobs/4243.0.json" '(r["user"], r["nodes"], r["exit_code"], r["state"])' 2>&1)" = \
	"('bob', ['node-02'], '0:9', 'FAILED')"

# refusals
mkdir -p "$W/spool2" "$W/elsewhere"
ln -s "$W/elsewhere" "$W/spool2/jobs"
env -i SLURM_CONF="$W/no" SLURM_JOB_ID=4244 "$J" -d "$W/spool2" -t 1 2>"$W/err2"
rc=$?
check "SPOOL/jobs a symbolic link: refused (exit $rc), nothing written" \
	sh -c "[ $rc -ne 0 ] && [ -z \"\$(ls -A '$W/elsewhere')\" ] && grep -q 'symbolic link' '$W/err2'"
env -i SLURM_CONF="$W/no" "$J" -d "$W/spool" -t 1 2>/dev/null
check "no job id: exit 2" test $? = 2
finish
