#!/bin/bash
# attrib serve against the real test cluster (t/cluster): Slurm 22.05,
# munged, slurmdbd and MariaDB on this machine.  Runs only with
# ATTRIB_LIVE_TESTS=1 (else skipped, exit 77); needs root.
#
#   1. starts the cluster and `attrib serve --foreground` (the cluster's
#      munged authenticates the bundles and slurmdbd takes the comments);
#   2. job A: a 2-node sbatch job that fails; an administrator's note is
#      put in its AdminComment first; the test drops its job record (from
#      sacct, as jobcomp/attrib would write it) into SpoolDir/jobs and POSTs
#      one bundle per node (curl, credentials from the cluster's munge): a
#      GPU-fallen-off-the-bus Xid on node-02.  Checks `attrib show`, and
#      `sacct -o AdminComment` = "<note>; attrib: InfraHW node-02 xid.79 ...";
#   3. job B (an unprivileged user's, CUDA out of memory): no record and
#      no bundle; reconciliation finds it in slurmdbd and attributes it from
#      its default output file (read as the job's user) and SlurmctldLog;
#      its AdminComment gets the summary;
#   4. a record of a job slurmdbd does not know: its summary is retried and
#      stays queued across a restart;
#   5. restarts the service: nothing is written twice;
#   6. stops everything it started (the trap runs on any exit).
#
#   The fleet view (`attrib nodes`) ranks node-02 first with the node's
#   state from slurmctld, then DRAINED with its reason once drained.
#
# Last line: "N passed, N failed".  Takes about 90 s.
set -u

[ "${ATTRIB_LIVE_TESTS:-0}" = 1 ] || { echo "SKIP: set ATTRIB_LIVE_TESTS=1 to run on the test cluster"; exit 77; }

A=${ATTRIB:-./attrib}
case $A in /*) ;; *) A=$(pwd)/$A ;; esac
SRC=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
CLUSTER=$SRC/t/cluster/cluster.sh
export PATH=$PATH:/usr/sbin:/sbin
export ATTRIB_CLUSTER_DIR=${ATTRIB_SERVICE_CLUSTER_DIR:-/tmp/attrib-cluster-service}
W=$(mktemp -d /tmp/attrib-service-live-XXXXXX)
chmod 0755 "$W"

. "$SRC/t/lib/check.sh"
spid='' started_cluster='' cleaned=''
# (finish runs it, so that its check counts; the trap if the test dies)
finish_hook() { cleanup; }
cleanup() {
	[ -n "$cleaned" ] && return
	cleaned=1
	if [ -n "$spid" ]; then kill -TERM "$spid" 2>/dev/null; wait "$spid" 2>/dev/null; fi
	declare -F stored_is_analyzed >/dev/null && stored_is_analyzed "$W/state" "$W/attrib.conf" "$A"
	[ -n "$started_cluster" ] && "$CLUSTER" stop >/dev/null 2>&1
	if [ "$fail" -gt 0 ]; then
		echo "# service log:"; sed 's/^/#   /' "$W/attrib.log" 2>/dev/null | tail -40
	fi
	rm -rf "$W"
}
trap cleanup EXIT

[ "$(id -u)" = 0 ] || { bad "running as root"; finish; }
for c in slurmctld slurmdbd sbatch sacct sacctmgr munge curl sha256sum; do
	command -v "$c" >/dev/null || { bad "$c is installed (t/cluster/deps.sh)"; finish; }
done

# ---- the cluster ----
. "$SRC/t/cluster/lib.sh"
wait_cluster_free || { bad "no other test cluster runs (waited ${ATTRIB_CLUSTER_WAIT:-900} s)"; finish; }
started_cluster=1
if ! "$CLUSTER" start >"$W/cluster.log" 2>&1; then
	bad "the test cluster starts"
	sed 's/^/#   /' "$W/cluster.log" | tail -20
	finish
fi
ok "the test cluster starts"
eval "$("$CLUSTER" env)"
export ATTRIB_MUNGE_SOCKET	# the service decodes with the cluster's munged

# ---- two failing jobs ----
OUT=$W/out
mkdir -p "$OUT"
ja=$(sbatch --parsable -N2 -w node-01,node-02 -o "$OUT/a-%j.out" --wrap 'srun hostname; echo "step failed" >&2; exit 3')
# job B is an unprivileged user's (whose output the service reads as that
# user), when the cluster lets that user submit; else root's
USER_B=attrib-test-user
id "$USER_B" >/dev/null 2>&1 || useradd -M -s /usr/sbin/nologin "$USER_B" >/dev/null 2>&1
OUT_B=$W/out-b
mkdir -p "$OUT_B"
chown "$USER_B:" "$OUT_B" 2>/dev/null
wrap_b='echo "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB"; exit 4'
jb=$(cd / && setpriv --reuid="$USER_B" --regid="$(id -g "$USER_B")" --init-groups \
	sbatch --parsable -N1 --chdir "$OUT_B" --wrap "$wrap_b" 2>"$W/sbatch-b.err")
if [ -z "$jb" ]; then
	echo "# $USER_B cannot submit ($(head -c 200 "$W/sbatch-b.err")): job B is root's"
	USER_B=root
	jb=$(sbatch --parsable -N1 --chdir "$OUT_B" --wrap "$wrap_b")
fi
check "job A ($ja) ends FAILED" test "$(sacct_final "$ja")" = FAILED
check "job B ($jb) ends FAILED" test "$(sacct_final "$jb")" = FAILED
sacctmgr -i modify job where jobid="$ja" set AdminComment='ops: checked' >/dev/null 2>&1
check "job A has an administrator's note" test "$(field "$ja" AdminComment)" = 'ops: checked'

# ---- the service ----
port=
for p in $(seq 27411 27460); do
	if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then port=$p; break; fi
done
mkdir -p "$W/spool/jobs"
cat >"$W/attrib.conf" <<EOF
SpoolDir = $W/spool
StateDir = $W/state
RulesDir = $SRC/rules
# no collector runs here (bundles are POSTed by hand, job B has none): the
# service reads the jobs' output itself, on the users' file system it shares
ReadJobOutput = yes
Listen = 127.0.0.1:$port
BundleDeadline = 5
ReconcileInterval = 10
SlurmctldLog = $ATTRIB_CLUSTER_LOGDIR/slurmctld.log
LogFile = $W/attrib.log
NodeAddresses = $(o=$(munge -n -S "$ATTRIB_MUNGE_SOCKET" | unmunge -S "$ATTRIB_MUNGE_SOCKET" |
	sed -n 's/^ENCODE_HOST:.*(\([0-9.]*\)).*/\1/p'); for n in node-01 node-02 node-03; do printf '%s=%s,' "$n" "$o"; done)
EOF
URL=http://127.0.0.1:$port
"${ATTRIBD:-$(dirname "$A")/attribd}" --config "$W/attrib.conf" --foreground 2>"$W/serve.err" &
spid=$!
answers_or_gone() { curl -sf "$URL/v1/health" >/dev/null 2>&1 || ! kill -0 "$spid" 2>/dev/null; }
wait_for 60 answers_or_gone
if ! curl -sf "$URL/v1/health" >/dev/null 2>&1; then
	bad "attrib serve starts"
	sed 's/^/#   /' "$W/serve.err"
	finish
fi
ok "attrib serve starts against the cluster"

# ---- job A: its record and its nodes' bundles ----
nodes=$(scontrol show hostnames "$(field "$ja" NodeList)" | paste -sd' ')
end=$(field "$ja" End)
xid_at=$(date -u -d "$(echo "$end" | tr T ' ' | tr -d Z) UTC - 2 seconds" +%Y-%m-%dT%H:%M:%S+0000)
json_nodes=$(printf '"%s",' $nodes)
cat >"$W/spool/jobs/.$ja.0.json.tmp" <<EOF
{"schema":"attrib.job/v1","job_id":"$ja","cluster":"$ATTRIB_CLUSTER_NAME","user":"root",
 "partition":"$(field "$ja" Partition)","name":"$(field "$ja" JobName)","nodes":[${json_nodes%,}],
 "submit_time":"$(field "$ja" Submit)","start_time":"$(field "$ja" Start)","end_time":"$end",
 "state":"FAILED","exit_code":"$(field "$ja" ExitCode)","restart_count":0,"attempt":0,
 "uid":0,"gid":0,"std_out":"$OUT/a-$ja.out","std_err":"$OUT/a-$ja.out","work_dir":"$OUT",
 "batch_host":"${nodes%% *}"}
EOF
mv "$W/spool/jobs/.$ja.0.json.tmp" "$W/spool/jobs/$ja.0.json"
rank=0
for n in $nodes; do
	if [ "$n" = node-02 ]; then
		log="$xid_at $n kernel: NVRM: Xid (PCI:0000:61:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\\n"
	else
		log="$xid_at $n kernel: usb 1-1: new high-speed USB device\\n"
	fi
	printf '{"schema":"attrib.bundle/v1","job_id":"%s","node":"%s","collected_at":"%s","files":[{"name":"kern.log","source":"/var/log/kern.log","origin":"kernel","text":"%s"}],"ranks":[{"rank":%d,"node":"%s","local_rank":0,"step":"0","gpu":"0","exit_code":1}],"coverage":[]}' \
		"$ja" "$n" "$end" "$log" "$rank" "$n" >"$W/b-$n.json"
	cred=$(munge -S "$ATTRIB_MUNGE_SOCKET" -s "attrib-bundle:v1:$ja:$n:$(sha256sum <"$W/b-$n.json" | cut -d' ' -f1)")
	code=$(curl -s -o /dev/null -w '%{http_code}' -H "X-Attrib-Credential: $cred" \
		--data-binary @"$W/b-$n.json" "$URL/v1/bundle")
	check "bundle of $n accepted (202)" test "$code" = 202
	rank=$((rank + 1))
done
# a credential made by a user, not root
code=$(curl -s -o /dev/null -w '%{http_code}' \
	-H "X-Attrib-Credential: $(setpriv --reuid=65534 --regid=65534 --clear-groups munge -S "$ATTRIB_MUNGE_SOCKET" -s "attrib-bundle:v1:$ja:node-01:$(sha256sum <"$W/b-node-01.json" | cut -d' ' -f1)")" \
	--data-binary @"$W/b-node-01.json" "$URL/v1/bundle")
check "a user's credential is refused (403)" test "$code" = 403

stored() { "$A" show "$1" --json --config "$W/attrib.conf" >"$W/$2" 2>/dev/null; } # JOB FILE
wait_for 120 stored "$ja" a.json
check "attrib show $ja --json works" grep -Eq '"schema": ?"attrib.result/v1"' "$W/a.json"
check "job A: InfraHW" grep -Eq '"sub_domain": ?"InfraHW"' "$W/a.json"
check "job A: node-02 is the culprit" sh -c "tr -d ' \n' <'$W/a.json' | grep -q '\"culprit_nodes\":\[\"node-02\"\]'"
"$A" show "$ja" --config "$W/attrib.conf" >"$W/a.txt" 2>&1
check "attrib show $ja prints the diagnosis" grep -q 'fallen off the bus' "$W/a.txt"

# ---- the fleet view: node-02 ranked first, with its state from slurmctld ----
nodes_first() { # STATE [REASON]: the first node of `attrib nodes --json` is node-02 so
	"$A" nodes --json --config "$W/attrib.conf" 2>"$W/nodes.err" | python3 -c '
import json, sys
n = json.load(sys.stdin)[0]
sys.exit(not (n["node"] == "node-02" and n["faults"] == 1 and n["causes"][0]["cause"] == "xid.79"
              and n["state"] == sys.argv[1] and (len(sys.argv) < 3 or n["reason"] == sys.argv[2])))' "$@"
}
state2=$(sinfo -h -N -n node-02 -o %T | head -n1 | tr a-z A-Z)
check "attrib nodes: node-02 first, its fault, its Slurm state ($state2)" nodes_first "$state2"
check "attrib nodes: slurmctld answered (nothing on stderr)" test ! -s "$W/nodes.err"
scontrol update nodename=node-02 state=drain reason="attrib fleet test"
check "attrib nodes: node-02 drained, with the reason" nodes_first DRAINED "attrib fleet test"
"$A" nodes --config "$W/attrib.conf" >"$W/nodes.txt" 2>&1
check "attrib nodes (text): the reason under the node" grep -q '^ *reason: attrib fleet test$' "$W/nodes.txt"
scontrol update nodename=node-02 state=resume

comment=
commented() { # JOB PATTERN: the AdminComment (in comment) matches
	comment=$(sacct -n -P -X -j "$1" -o AdminComment 2>/dev/null | head -n1)
	case $comment in $2) ;; *) return 1 ;; esac
}
WAIT_FOR_POLL=0.5 wait_for 120 commented "$ja" '*attrib:*'
echo "# sacct -j $ja -o AdminComment: $comment"
check "sacct shows attrib: in AdminComment" sh -c "echo '$comment' | grep -q 'attrib: InfraHW node-02 xid.79'"
check "the administrator's note is kept before it" sh -c "echo '$comment' | grep -q 'ops: checked; attrib: '"
curl -s "$URL/metrics" >"$W/metrics"
check "metrics: the user's credential was counted" grep -qx 'attrib_bundles_rejected_total{reason="not_root"} 1' "$W/metrics"

# ---- job B: reconciliation ----
WAIT_FOR_POLL=0.5 wait_for 120 stored "$jb" b.json
check "job B ($jb) was found by reconciliation and diagnosed" grep -Eq '"job_id": ?"'"$jb"'"' "$W/b.json"
check "job B's missing bundle is in coverage" grep -q 'missing' "$W/b.json"
check "job B's default output was read (as $USER_B)" test -s "$W/state/cases/$jb.0/app/slurm-$jb.out"
check "job B: UserResource (CUDA out of memory, from its output)" grep -Eq '"sub_domain": ?"UserResource"' "$W/b.json"
check "job B's slurmctld lines are in the case" grep -q "JobId=$jb" "$W/state/cases/$jb.0/scheduler/slurmctld.log"
WAIT_FOR_POLL=0.5 wait_for 120 commented "$jb" 'attrib:*'
echo "# sacct -j $jb -o AdminComment: $comment"
check "job B's AdminComment has the summary" sh -c "echo '$comment' | grep -q '^attrib: UserResource - cuda.oom '"

# ---- a job slurmdbd does not know: its summary stays queued ----
jc=999990
printf '{"schema":"attrib.job/v1","job_id":"%s","cluster":"%s","nodes":[],"start_time":"%s","end_time":"%s","state":"FAILED","attempt":0}' \
	"$jc" "$ATTRIB_CLUSTER_NAME" "$end" "$end" >"$W/spool/jobs/.c.tmp"
mv "$W/spool/jobs/.c.tmp" "$W/spool/jobs/$jc.0.json"
metric() { curl -s "$URL/metrics" | sed -n "s/^attrib_$1 //p"; }
failures=0
failed_once() { failures=$(metric comment_failures_total); [ "${failures:-0}" -ge 1 ]; }
wait_for 120 failed_once
check "a summary slurmdbd cannot take is retried, not dropped" \
	sh -c "[ '${failures:-0}' -ge 1 ] && curl -s '$URL/metrics' | grep -qx 'attrib_comment_queue 1'"
check "the log says why" grep -q "job $jc attempt 0: AdminComment not written" "$W/attrib.log"

# ---- restart: nothing twice ----
kill -TERM "$spid"
wait "$spid"
check "SIGTERM stops attrib serve (exit 0)" test $? -eq 0
spid=
"${ATTRIBD:-$(dirname "$A")/attribd}" --config "$W/attrib.conf" --foreground 2>>"$W/serve.err" &
spid=$!
# one reconciliation and one pass of the comment queue after the start:
# the second reconciliation follows both (ReconcileInterval 10 s)
reconciled_twice() { [ "$(metric reconcile_runs_total)" -ge 2 ] 2>/dev/null; }
wait_for 120 reconciled_twice
check "after a restart: still one summary on job A" \
	test "$(sacct -n -P -X -j "$ja" -o AdminComment | grep -o 'attrib:' | wc -l)" = 1
check "after a restart: still one summary on job B" \
	test "$(sacct -n -P -X -j "$jb" -o AdminComment | grep -o 'attrib:' | wc -l)" = 1
check "after a restart: three stored diagnoses" \
	test "$("$A" list --json --config "$W/attrib.conf" | grep -c '"job_id"')" = 3
curl -s "$URL/metrics" >"$W/metrics"
check "after a restart: the unknown job's summary still waits" grep -qx 'attrib_comment_queue 1' "$W/metrics"
kill -TERM "$spid"
wait "$spid"
spid=

finish
