#!/bin/bash
# Requeueing a failed batch job without its culprit node on the real test
# cluster (t/cluster): Slurm 22.05 with jobcomp/attrib, spank attrib and the
# Epilog attrib-collect as in t/live-drain.sh (JobRequeue=0 there: a job is
# requeueable only when submitted with --requeue; MinJobAge=30: slurmctld
# forgets a finished job 30 s after its end, so each requeue follows its
# diagnosis at once).  Runs only with ATTRIB_LIVE_TESTS=1 (else skipped, exit
# 77); needs root.
#
#   attribd with RequeuePolicy = suggest:
#   byhand     --requeue, node-02 logs Xid 79 -> InfraHW node-02; the service
#              records a suggestion; attrib requeue JOBID requeues it:
#              scontrol show job: PENDING, Restarts=1, ExcNodeList=node-02;
#              the decision is recorded with who asked (attrib show)
#   norequeue  --no-requeue, the same fault -> attrib requeue refuses (exit 5)
#              and says the job was not submitted requeueable; the service's
#              refusal and the command's are recorded; the job stays FAILED
#   attribd restarted with RequeueClasses = gpu-hardware:auto:
#   policy     --requeue, the same fault -> the service requeues it itself:
#              ExcNodeList=node-02, Restarts=1, recorded as by "attribd
#              (policy auto)", counted in /metrics
# The requeued jobs (which could not run before their BeginTime anyway) are
# cancelled and everything started is stopped.
#
# Last line: "N passed, N failed".  About a minute of jobs.
#
#   ATTRIB, SRCDIR                 the attrib program, the source tree
#   ATTRIB_BUILDDIR                build tree (plugin/.libs, epilog/) [dir of $ATTRIB]
#   ATTRIB_REQUEUE_CLUSTER_DIR     cluster state [/tmp/attrib-cluster-requeue]
#   ATTRIB_CLUSTER_WAIT            seconds to wait for another test cluster [900]
#   ATTRIB_LIVE_KEEP=1             keep the temporary directory
set -u

[ "${ATTRIB_LIVE_TESTS:-0}" = 1 ] || { echo "SKIP: set ATTRIB_LIVE_TESTS=1 to run on the test cluster"; exit 77; }

A=${ATTRIB:-./attrib}
case $A in /*) ;; *) A=$(pwd)/$A ;; esac
SRC=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
export ATTRIB_CLUSTER_DIR=${ATTRIB_REQUEUE_CLUSTER_DIR:-/tmp/attrib-cluster-requeue}
. "$SRC/t/cluster/pipeline.sh"
require_built

pipeline_workdir attrib-live-requeue
jobs_started=''
cleanup_more() { # nothing left queued for whoever comes next
	[ -n "$jobs_started" ] && scancel $jobs_started >/dev/null 2>&1
	:
}

require_root_and slurmctld slurmd slurmdbd sbatch sacct squeue scontrol scancel nsenter curl python3

# ---- helpers (the rest: t/cluster/pipeline.sh) --------------------------------------
requeues_json() { "$A" show "$1" --requeues --json --config "$W/attrib.conf" >"$W/requeues-$1.json"; }
# one field of scontrol show job (ExcNodeList, JobState, Restarts)
job_field() { scontrol -o show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n1; }
metric() { curl -sf "$URL/metrics" | sed -n "s/^attrib_requeues_total{decision=\"$1\"} //p"; }
gpu_fault() { # name sbatch-args...: a 3-node job whose rank on node-02 logs Xid 79
	local name=$1
	shift
	submit "$name" -N3 -n6 -O --gres=gpu:2 "$@" --wrap "srun --label $RANK gpu-fault $W"
}
diagnosed_hw() { # job: its stored diagnosis is InfraHW with culprit node-02
	show_json "$1" 40 &&
		test "$(jv "$W/show-$1.json" '[r["sub_domain"], r["culprit_nodes"]]')" = '["InfraHW",["node-02"]]'
}
# "decision|by|nodes|excluded|reason" of each recorded requeue decision
decisions() { requeues_json "$1" && jv "$W/requeues-$1.json" '"\n".join("|".join([d["decision"], d["by"], d["nodes"], d["excluded"], d["reason"]]) for d in r)'; }

# ---- the cluster and the service (RequeuePolicy = suggest) ------------------------------
pipeline_dirs
for n in $NODES; do boot_log "$n" >"$W/nodes/$n/kmsg"; done
write_epilog
start_cluster
ok "the test cluster starts with jobcomp/attrib, spank attrib and the Epilog"
allbound=1
for n in $NODES; do bind_spool "$n" || allbound=; done
check "each node's spank spool is its own (bind mount in its namespace)" test -n "$allbound"

pick_port 27571 27620
service_conf "$W/attrib.conf" "$W/state" <<EOF2
BundleDeadline = 20
ReconcileInterval = 3600
RequeuePolicy = suggest
EOF2
for n in $NODES; do node_conf "$n" "$URL"; done
service_up "attribd starts on $URL (RequeuePolicy suggest)"

# ---- by hand: a requeueable job, then one submitted --no-requeue ------------------------
ja=$(gpu_fault byhand --requeue)
jb=$(gpu_fault norequeue --no-requeue)
jobs_started="$ja $jb"
note "jobs: requeueable $ja, not requeueable $jb (GPU fault on node-02)"
check "byhand: job $ja ends FAILED" test "$(sacct_final "$ja" 120)" = FAILED
check "byhand: job $ja is diagnosed InfraHW, culprit node-02" diagnosed_hw "$ja"
wait_for 60 grep -q "job $ja attempt 0: requeue without node-02 suggested" "$W/attrib.log"
check "byhand: the service only suggested the requeue (RequeuePolicy suggest)" \
	test "$(decisions "$ja")" = "suggested|attribd (policy suggest)|node-02||attrib: GPU has fallen off the bus (Xid 79) PCI:0000:3b:00 (job $ja)"
check "byhand: job $ja is still FAILED in slurmctld" test "$(job_field "$ja" JobState)" = FAILED
note "attrib requeue $ja (slurmctld forgets it MinJobAge = 30 s after its end)"
"$A" requeue "$ja" --config "$W/attrib.conf" >"$W/requeue-$ja.out" 2>&1
rc=$?
echo "# attrib requeue $ja: exit $rc: $(cat "$W/requeue-$ja.out")"
check "attrib requeue $ja: exit 0, ExcNodeList=node-02" \
	sh -c "[ $rc = 0 ] && grep -q '^requeued job $ja with ExcNodeList=node-02: ' '$W/requeue-$ja.out'"
echo "# scontrol show job $ja: JobState=$(job_field "$ja" JobState) Restarts=$(job_field "$ja" Restarts) ExcNodeList=$(job_field "$ja" ExcNodeList) Reason=$(job_field "$ja" Reason)"
check "scontrol show job $ja: ExcNodeList=node-02" test "$(job_field "$ja" ExcNodeList)" = node-02
check "scontrol show job $ja: pending again (Restarts=1) and released (Priority above 0, not held)" \
	sh -c "[ '$(job_field "$ja" JobState) $(job_field "$ja" Restarts)' = 'PENDING 1' ] &&
		[ '$(job_field "$ja" Priority)' -gt 0 ] && ! echo '$(job_field "$ja" Reason)' | grep -q Held"
check "byhand: attrib show --requeues has the requeue, by attrib requeue (uid 0), excluding node-02" \
	grep -q "^requeued|attrib requeue (uid 0[,)].*|node-02|node-02|attrib: GPU has fallen off the bus" <<<"$(decisions "$ja")"
"$A" show "$ja" --config "$W/attrib.conf" >"$W/show-$ja.txt"
check "byhand: attrib show lists the requeue decisions" \
	sh -c "grep -q '^Requeue decisions:' '$W/show-$ja.txt' && grep -q ' requeued attrib requeue (uid 0.*: node-02 ExcNodeList=node-02: ' '$W/show-$ja.txt'"
"$A" requeue "$ja" --config "$W/attrib.conf" >"$W/again.out" 2>&1
rc=$?
echo "# attrib requeue $ja again: exit $rc: $(cat "$W/again.out")"
check "attrib requeue $ja a second time is refused (pending again)" \
	sh -c "[ $rc = 5 ] && grep -q 'is pending again' '$W/again.out'"

check "norequeue: job $jb ends FAILED" test "$(sacct_final "$jb" 120)" = FAILED
check "norequeue: job $jb is diagnosed InfraHW, culprit node-02" diagnosed_hw "$jb"
wait_for 60 grep -q "job $jb attempt 0: requeue without node-02 refused" "$W/attrib.log"
"$A" requeue "$jb" --config "$W/attrib.conf" >"$W/requeue-$jb.out" 2>&1
rc=$?
echo "# attrib requeue $jb: exit $rc: $(cat "$W/requeue-$jb.out")"
check "attrib requeue $jb is refused (exit 5): not submitted requeueable" \
	sh -c "[ $rc = 5 ] && grep -q 'refusing to requeue: job $jb was not submitted requeueable (sbatch --requeue' '$W/requeue-$jb.out'"
# why requeue_job requeues first: slurmctld refuses to change a finished job
scontrol update jobid="$jb" ExcNodeList=node-02 >"$W/update.out" 2>&1
rc=$?
echo "# scontrol update jobid=$jb ExcNodeList=node-02 (a FAILED job): exit $rc: $(cat "$W/update.out")"
check "slurmctld refuses an ExcNodeList on a finished job (hence: requeue held, then exclude)" \
	sh -c "[ $rc != 0 ] && grep -q 'Job has already finished' '$W/update.out'"
check "norequeue: job $jb stays FAILED, nothing excluded" \
	test "$(job_field "$jb" JobState)|$(job_field "$jb" ExcNodeList)" = "FAILED|(null)"
check "norequeue: both refusals recorded (the service's, attrib requeue's)" \
	test "$(decisions "$jb" | cut -d'|' -f1,2 | sed 's/(uid 0.*/(uid 0)/' | paste -sd';')" \
	= "refused|attribd (policy suggest);refused|attrib requeue (uid 0)"
check "metrics: 1 suggested, 1 refused, 0 requeued, 0 failed (the service's own)" \
	test "$(metric suggested) $(metric refused) $(metric requeued) $(metric failed)" = "1 1 0 0"

# ---- the policy: RequeueClasses = gpu-hardware:auto -------------------------------------
check "SIGTERM stops attribd (exit 0)" stop_service
echo "RequeueClasses = gpu-hardware:auto" >>"$W/attrib.conf"	# its own mode; the others: suggest
service_up "attribd restarts with RequeueClasses gpu-hardware:auto"
jc=$(gpu_fault policy --requeue)
jobs_started="$jobs_started $jc"
note "job $jc: requeueable, GPU fault on node-02"
# (sacct may never show it FAILED: the service requeues it as soon as it is
# diagnosed, and the attempt's accounting record becomes REQUEUED)
check "policy: job $jc is diagnosed InfraHW, culprit node-02" diagnosed_hw "$jc"
check "policy: the diagnosed attempt ended FAILED" test "$(jv "$W/show-$jc.json" 'r["terminal_state"]')" = FAILED
wait_for 60 grep -q "job $jc attempt 0: requeue without node-02 requeued" "$W/attrib.log"
echo "# scontrol show job $jc: JobState=$(job_field "$jc" JobState) Restarts=$(job_field "$jc" Restarts) ExcNodeList=$(job_field "$jc" ExcNodeList)"
check "policy: scontrol show job $jc: ExcNodeList=node-02, pending again, Restarts=1" \
	test "$(job_field "$jc" ExcNodeList) $(job_field "$jc" JobState) $(job_field "$jc" Restarts)" = "node-02 PENDING 1"
check "policy: recorded as requeued by attribd (policy auto), excluding node-02" \
	test "$(decisions "$jc" | cut -d'|' -f1-4)" = "requeued|attribd (policy auto)|node-02|node-02"
check "metrics: 1 requeued" test "$(metric requeued)" = 1

scancel $jobs_started
check "the requeued jobs are cancelled" \
	wait_for 60 sh -c "[ \"\$(squeue -h -j $ja,$jc 2>/dev/null)\" = '' ]"
check "SIGTERM stops attribd (exit 0)" stop_service
finish
