#!/bin/bash
# End-to-end latency of the live pipeline on the real test cluster
# (t/cluster): from a failing job's end to attrib's summary showing in its
# AdminComment in sacct.  The set-up is t/live-pipeline.sh's (Slurm 22.05 with
# jobcomp/attrib, spank attrib, the Epilog attrib-collect on every node,
# `attribd` writing AdminComment), the jobs are its stories
# (t/live/rank.sh), all multi-node and all failing:
#
#   userexc   -N3 -n6, rank 3 raises KeyError          -> attrib: UserCode
#   gpufault  -N3 -n6, node-02 logs Xid 79 in its fake kernel ring, its rank
#             dies with a CUDA error, the others lose their NCCL peer
#                                                       -> attrib: InfraHW node-02 xid.79
#   timeout   -N3 -n3 --time=1, sleeps                  -> attrib: SchedTimeLimit
#
# One job at a time (each waits for the previous one's AdminComment: the
# figure is the pipeline's latency, not a queue's): first the user
# exceptions, beside them the time-limit jobs one after another (one CPU of
# each node), then the GPU faults, each one's Xid line taken out of the log
# after it (else it is the root cause of every later job on node-02).  A watcher polls sacct every 0.2 s for the AdminComment (a figure is
# late by up to 0.2 s plus one sacct call, whose time is printed).
#
# Prints every job's latency, then the median and maximum, twice:
#   - from sacct's End (whole seconds: +-1 s) to the AdminComment in sacct,
#     the figure an administrator sees;
#   - from the batch script's exit (date +%s.%N after srun returns; not
#     available for the time-limit jobs, which are killed).
# and checks every AdminComment against the story's expected summary.
#
#   bench/live/latency.sh [N]     N jobs (default 20; --smoke: 2 jobs, no time limit)
#
# Runs only with ATTRIB_LIVE_TESTS=1 (else skipped, exit 77); needs root and
# the built plugins and collector.  Last line: "N passed, N failed".
# About 4 minutes for 20 jobs (the time-limit jobs set the pace), 40 s smoke.
#
#   ATTRIB, SRCDIR                 the attrib program, the source tree
#   ATTRIB_BUILDDIR                build tree (plugin/.libs, epilog/) [dir of $ATTRIB]
#   ATTRIB_LATENCY_TIMEOUTS        how many of the N are time-limit jobs [N/10]
#   ATTRIB_LATENCY_CLUSTER_DIR     cluster state [/tmp/attrib-cluster-latency]
#   ATTRIB_CLUSTER_WAIT            seconds to wait for another test cluster [900]
#   ATTRIB_LIVE_KEEP=1             keep the temporary directory
set -u

[ "${ATTRIB_LIVE_TESTS:-0}" = 1 ] || { echo "SKIP: set ATTRIB_LIVE_TESTS=1 to run on the test cluster"; exit 77; }

njobs=20 smoke=
case ${1:-} in
--smoke) njobs=2 smoke=1 ;;
'') ;;
*[!0-9]* | 0) echo "usage: $0 [N | --smoke]" >&2; exit 2 ;;
*) njobs=$1 ;;
esac
ntimeout=${ATTRIB_LATENCY_TIMEOUTS:-$((njobs / 10))}
[ -n "$smoke" ] && ntimeout=0
[ "$ntimeout" -le "$njobs" ] || ntimeout=$njobs

A=${ATTRIB:-./attrib}
case $A in /*) ;; *) A=$(pwd)/$A ;; esac
SRC=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
export ATTRIB_CLUSTER_DIR=${ATTRIB_LATENCY_CLUSTER_DIR:-/tmp/attrib-cluster-latency}
. "$SRC/t/cluster/pipeline.sh"
WATCH_POLL=0.2

[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (the test cluster)"; exit 77; }
require_built "$A"
for c in slurmctld slurmd slurmdbd sbatch sacct squeue nsenter curl python3; do
	command -v "$c" >/dev/null || { echo "SKIP: $c is not installed (t/cluster/deps.sh)"; exit 77; }
done

pipeline_workdir attrib-latency
tpid=''
cleanup_more() { [ -n "$tpid" ] && kill "$tpid" 2>/dev/null && wait "$tpid" 2>/dev/null; }

# ---- helpers (the rest: t/cluster/pipeline.sh) ----
# submit NAME STORY sbatch-args...: prints the job id; W/jobs gets "JOBID NAME";
# STORY is t/live/rank.sh's; the batch script writes W/ended/JOBID (epoch, ns)
# when srun has returned
submit() {
	local name=$1 story=$2 id
	shift 2
	id=$(sbatch --parsable -J "$name" -o "$W/out/%x-%j.out" --chdir "$W/out" "$@" \
		--wrap "srun --label $RANK $story $W; rc=\$?; date +%s.%N >$W/ended/\$SLURM_JOB_ID; exit \$rc") || return 1
	echo "$id $name" >>"$W/jobs"
	watch "$id"
	echo "$id"
}

# ---- the test directory and the cluster (t/cluster/pipeline.sh) ----
pipeline_dirs
mkdir -p "$W/ended"
chmod 0777 "$W/ended"
: >"$W/jobs"
for n in $NODES; do boot_log "$n" >"$W/nodes/$n/kmsg"; done
write_epilog
start_cluster 3
ok "the test cluster starts with jobcomp/attrib, spank attrib and the Epilog ($(since "$cluster_t0") s)"
allbound=1
for n in $NODES; do bind_spool "$n" || allbound=; done
check "each node's spank spool is its own" test -n "$allbound"

pick_port 27521 27570
service_conf "$W/attrib.conf" "$W/state" <<EOF
BundleDeadline = 20
ReconcileInterval = 3600
CommentField = AdminComment
SlurmctldLog = $ATTRIB_CLUSTER_LOGDIR/slurmctld.log
EOF
for n in $NODES; do node_conf "$n" "$URL"; done
service_up "attribd starts on $URL"
start_watcher

# ---- the jobs ----
echo "# $njobs failing jobs: $ntimeout time limit, $(((njobs - ntimeout + 1) / 2)) user exception, $(((njobs - ntimeout) / 2)) GPU fault"
# the time-limit jobs, one after another, beside the others
if [ "$ntimeout" -gt 0 ]; then
	(
		for _ in $(seq 1 "$ntimeout"); do
			j=$(submit timeout sleep -N3 -n3 -O --time=1) || exit 1
			sacct_final "$j" 200 >/dev/null
		done
	) &
	tpid=$!
fi
# one_job STORY: submit it, wait (<= 120 s) for its AdminComment
one_job() {
	local story=$1 j
	j=$(submit "$story" "$story" -N3 -n6 -O --gres=gpu:2) || { bad "sbatch ($story)"; return 1; }
	if ! wait_for 120 seen "$j"; then
		echo "# job $j ($story): no AdminComment within 120 s (sacct: $(sacct_final "$j" 1); squeue: $(squeue -h -j "$j" -o '%T %r' 2>&1))"
		squeue -o '#   %i %j %T %r %N' 2>&1
		sinfo -N -h -o '#   %N %T %E' 2>&1
	fi
}
nother=$((njobs - ntimeout))
nuser=$(((nother + 1) / 2))
# An Xid 79 in node-02's log is the root cause of every job on node-02
# whose window holds it (job -300 s): the user exceptions run first, beside
# the time-limit jobs; the GPU faults run once those have ended, and after
# each one its Xid line is taken out of the log (the GPU replaced), so that
# each job is diagnosed by its own story.
for _ in $(seq 1 "$nuser"); do one_job user-exception; done
if [ -n "$tpid" ]; then
	wait "$tpid"
	tpid=
	while read -r j story; do
		[ "$story" = timeout ] && { wait_for 120 seen "$j" || echo "# job $j (timeout): no AdminComment"; }
	done <"$W/jobs"
fi
for _ in $(seq 1 $((nother - nuser))); do
	one_job gpu-fault
	grep -v 'NVRM: Xid' "$W/nodes/node-02/kmsg" >"$W/kern.tmp"
	cat "$W/kern.tmp" >"$W/nodes/node-02/kmsg"
done

# ---- the figures ----
# jobs: JOBID STORY STATE END(epoch) SEEN(epoch) ENDED(epoch, the batch script's)
expect() {
	case $1 in
	user-exception) echo 'attrib: UserCode - ' ;;
	gpu-fault) echo 'attrib: InfraHW node-02 xid.79 ' ;;
	timeout) echo 'attrib: SchedTimeLimit ' ;;
	esac
}
echo "# job   story           state      end -> AdminComment (s)   batch script exit -> AdminComment (s)"
: >"$W/lat-end"
: >"$W/lat-exit"
nok=0
while read -r j story; do
	state=$(sacct_final "$j" 10)
	end=$(field "$j" End)
	case $end in [0-9]*T*) end=$(date -d "$end" +%s 2>/dev/null) ;; *) end= ;; esac
	at=$(sed -n "s/^$j //p" "$W/seen")
	ex=$(cat "$W/ended/$j" 2>/dev/null)
	c=$(comment_of "$j")
	le=- lx=-
	if [ -n "$end" ] && [ -n "$at" ]; then
		le=$(awk -v a="$end" -v b="$at" 'BEGIN { printf "%.1f", b - a }')
		echo "$le" >>"$W/lat-end"
	fi
	if [ -n "$ex" ] && [ -n "$at" ]; then
		lx=$(awk -v a="$ex" -v b="$at" 'BEGIN { printf "%.2f", b - a }')
		echo "$lx" >>"$W/lat-exit"
	fi
	printf '# %-5s %-15s %-10s %-25s %s\n' "$j" "$story" "$state" "$le" "$lx"
	want=$(expect "$story")
	case $c in "$want"*) nok=$((nok + 1)) ;; *) echo "#   job $j: AdminComment '$c', expected '$want...'" ;; esac
done <"$W/jobs"
stats() { # FILE: "median M s, max X s, min N s over K jobs"
	sort -g "$1" | awk '{ v[NR] = $1 } END {
		if (!NR) { print "no measurement"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "median %.2f s, max %.2f s, min %.2f s over %d jobs\n", m, v[NR], v[1], NR }'
}
t=$(date +%s.%N)
for _ in 1 2 3 4 5; do sacct -n -P -X -j "$(paste -sd, "$W/watch")" -o JobID,AdminComment >/dev/null 2>&1; done
echo "# one watcher poll (sacct over the $njobs jobs) takes $(awk -v a="$t" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", (b - a) / 5 }') s"
echo "# all (end -> AdminComment, s): $(sort -g "$W/lat-end" | paste -sd' ')"
echo "# latency, sacct End -> AdminComment in sacct: $(stats "$W/lat-end")"
echo "# latency, batch script exit -> AdminComment in sacct: $(stats "$W/lat-exit")"
n=$(wc -l <"$W/jobs")
if [ "$n" = "$njobs" ]; then ok "$n jobs submitted"; else bad "$n of $njobs jobs submitted"; fi
if [ "$(wc -l <"$W/lat-end")" = "$njobs" ]; then
	ok "every job's AdminComment showed in sacct ($(stats "$W/lat-end"))"
else
	bad "$(wc -l <"$W/lat-end") of $njobs jobs' AdminComments showed in sacct"
fi
if [ "$nok" = "$njobs" ]; then ok "every AdminComment is the story's diagnosis"; else bad "$nok of $njobs AdminComments are the story's diagnosis"; fi
finish
