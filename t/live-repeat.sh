#!/bin/bash
# Repeat offenders on the real test cluster (t/cluster): Slurm 22.05 with
# jobcomp/attrib, spank attrib and the Epilog attrib-collect as in
# t/live-pipeline.sh, and `attrib serve` with the defaults (RepeatWindow
# 24h, RepeatJobs 3, RepeatUsers 2; DrainClasses not set, so the class
# repeat-offender is suggest).  Three users (made here with useradd, removed
# at the end) each submit, with sbatch --uid, a one-node job on node-02
# that fails printing what a bad node makes jobs print, each job alone
# looking like the user's code or the GPU:
#   segfault   "Segmentation fault (core dumped)"          (py.segfault)
#   cudaerr    "RuntimeError: CUDA error: unknown error"   (cuda.unknown_error)
#   illegal    NCCL's "Cuda failure 'an illegal memory access was encountered'"
#              (cuda.illegal_address)
# Each diagnosis stays its own (UserCode / InfraHW, node-02 named), but
# rests on the job's own output alone (trust job-output), which any user
# writes: no finding, no drain decision (doc/hardening.md, issue 22).  Then
# three more jobs of theirs fail while node-02's kernel ring (the
# collector's kmsg source) holds a GPU MMU fault (Xid 31): each diagnosis
# ambiguous, node-02 its candidate, vouched for by the kernel; the service
# raises one repeat-offender finding about node-02 citing those three
# jobs; attrib nodes marks node-02 and lists the finding; attrib show
# lists it for each cited job (--json: a findings array); the drain policy
# suggests draining node-02 with a reason naming the finding (recorded in
# the drains table with the finding's id, decided by "attribd (policy
# suggest, finding N)"), node-02 is not drained; /metrics counts the
# finding.  Runs only with ATTRIB_LIVE_TESTS=1 (else skipped, exit 77);
# needs root.  Last line: "N passed, N failed".  A few minutes (six jobs).
#
#   ATTRIB, SRCDIR                 the attrib program, the source tree
#   ATTRIB_BUILDDIR                build tree (plugin/.libs, epilog/) [dir of $ATTRIB]
#   ATTRIB_REPEAT_CLUSTER_DIR      cluster state [/tmp/attrib-cluster-repeat]
#   ATTRIB_CLUSTER_WAIT            seconds to wait for another test cluster [900]
#   ATTRIB_LIVE_KEEP=1             keep the temporary directory
set -u

[ "${ATTRIB_LIVE_TESTS:-0}" = 1 ] || { echo "SKIP: set ATTRIB_LIVE_TESTS=1 to run on the test cluster"; exit 77; }

A=${ATTRIB:-./attrib}
case $A in /*) ;; *) A=$(pwd)/$A ;; esac
SRC=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
export ATTRIB_CLUSTER_DIR=${ATTRIB_REPEAT_CLUSTER_DIR:-/tmp/attrib-cluster-repeat}
. "$SRC/t/cluster/pipeline.sh"
require_built

pipeline_workdir attrib-live-repeat
USERS="attrib-rep-a attrib-rep-b attrib-rep-c"
made_users=''
cleanup_more() { # the users made here, and a clean cluster for whoever comes next
	local u
	[ -n "$started_cluster" ] && scontrol update nodename=node-02 state=resume >/dev/null 2>&1
	for u in $made_users; do userdel "$u" >/dev/null 2>&1; done
}
finish_hook() { cleanup; }

require_root_and slurmctld slurmd slurmdbd sbatch sacct sinfo scontrol nsenter curl python3 useradd userdel

metric() { curl -sf "$URL/metrics" | sed -n "s/^attrib_findings_total{kind=\"$1\"} //p"; }
# the drains table itself: "node|decision|decided_by|reason|finding" of the findings' drains
db_rows() {
	python3 - "$W/state/attrib.db" <<'EOF'
import sqlite3, sys
db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
for row in db.execute("SELECT node, decision, decided_by, reason, finding FROM drains WHERE finding IS NOT NULL ORDER BY rowid"):
    print("|".join(str(c) for c in row))
EOF
}

# ---- three users, each with an output directory of their own ------------------------
for u in $USERS; do
	if ! id "$u" >/dev/null 2>&1; then
		useradd -M -s /bin/sh "$u" && made_users="$made_users $u"
	fi
done
allmade=1
for u in $USERS; do
	id "$u" >/dev/null 2>&1 || allmade=
	mkdir -p "$W/out-$u" && chown "$u:" "$W/out-$u" 2>/dev/null
done
check "three users to submit as: $USERS" test -n "$allmade"

# ---- the test directory, the cluster and the service (t/cluster/pipeline.sh) -------------
pipeline_dirs
for n in $NODES; do boot_log "$n" >"$W/nodes/$n/kmsg"; done
write_epilog
start_cluster
ok "the test cluster starts with jobcomp/attrib, spank attrib and the Epilog"
allbound=1
for n in $NODES; do bind_spool "$n" || allbound=; done
check "each node's spank spool is its own (bind mount in its namespace)" test -n "$allbound"

pick_port 27571 27620
service_conf "$W/attrib.conf" "$W/state" <<EOF
BundleDeadline = 20
ReconcileInterval = 3600
EOF
for n in $NODES; do node_conf "$n" "$URL"; done
service_up "attrib serve starts on $URL (the Repeat* and Drain* defaults)"

# ---- three users' jobs fail on node-02 --------------------------------------------------
submit_as() { # user name line: a one-node job on node-02 printing line, exit 1
	local u=$1
	(cd "$W/out-$u" && sbatch --parsable --uid="$u" --gid="$(id -g "$u")" -J "$2" -N1 -n1 -w node-02 \
		-o "$W/out-$u/%x-%j.out" --chdir "$W/out-$u" \
		--wrap "echo 'step 1200 | loss 2.31'; sleep 1; echo \"$3\"; exit 1")
}
set -- $USERS
j1=$(submit_as "$1" segfault 'Segmentation fault (core dumped)')
j2=$(submit_as "$2" cudaerr 'RuntimeError: CUDA error: unknown error')
j3=$(submit_as "$3" illegal "node-02:4242:4300 [0] NCCL WARN Cuda failure 'an illegal memory access was encountered'")
echo "# jobs: $j1 ($1), $j2 ($2), $j3 ($3)"
check "three jobs submitted as three users" test -n "$j1" -a -n "$j2" -a -n "$j3"
for j in $j1 $j2 $j3; do
	check "job $j ends FAILED" test "$(sacct_final "$j" 120)" = FAILED
done
want_sub=([$j1]=UserCode [$j2]=InfraHW [$j3]=UserCode)
want_code=([$j1]=py.segfault [$j2]=cuda.unknown_error [$j3]=cuda.illegal_address)
for j in $j1 $j2 $j3; do
	if show_json "$j" 120; then
		got=$(jv "$W/show-$j.json" '[r["sub_domain"], r["root_cause"]["code"], r["root_cause"].get("trust"), "node-02" in r["culprit_nodes"] + r["affected_nodes"]]')
		check "job $j: its own diagnosis, ${want_sub[$j]} ${want_code[$j]} on the job's word, names node-02 ($got)" \
			test "$got" = "[\"${want_sub[$j]}\",\"${want_code[$j]}\",\"job-output\",true]"
	else
		bad "job $j has a stored diagnosis"
	fi
done
# (the service's reasoning across jobs is done when it keeps a job's inputs)
for j in $j1 $j2 $j3; do wait_for 30 test -e "$W/state/done/$j/.record.json"; done
rows=$(db_rows) m=$(metric repeat-offender)
check "three users' own output: no finding, no drain decision for one (metrics $m)" \
	sh -c "! grep -q 'repeat offender' '$W/attrib.log' && [ -z '$rows' ] && [ '$m' = 0 ]"

# ---- three more, while node-02's kernel ring holds a GPU MMU fault -----------------------
kmsg_record "NVRM: Xid (PCI:0000:3b:00): 31, pid='<unknown>', name=<unknown>, Ch 00000008, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC1 GPCCLIENT_T1_3 faulted @ 0x7f1a_2c000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" \
	>>"$W/nodes/node-02/kmsg"
j1=$(submit_as "$1" mmu1 'stopped') j2=$(submit_as "$2" mmu2 'stopped') j3=$(submit_as "$3" mmu3 'stopped')
echo "# jobs: $j1 ($1), $j2 ($2), $j3 ($3)"
for j in $j1 $j2 $j3; do
	check "job $j ends FAILED" test "$(sacct_final "$j" 120)" = FAILED
	if show_json "$j" 120; then
		got=$(jv "$W/show-$j.json" '[r["sub_domain"], r["culprit_nodes"], [s["code"] for s in r["symptoms"] if s["role"] == "root" and not s.get("trust")]]')
		check "job $j: ambiguous, node-02's Xid 31 from its kernel ring the candidate ($got)" \
			test "$got" = '["ambiguous",["node-02"],["xid.31"]]'
	else
		bad "job $j has a stored diagnosis"
	fi
done

# ---- the finding ------------------------------------------------------------------------
# (raised after the third diagnosis is stored, a moment after it)
wait_for 60 grep -q "repeat offender node-02" "$W/attrib.log"
"$A" nodes --config "$W/attrib.conf" >"$W/nodes.txt" 2>/dev/null
sed 's/^/#   /' "$W/nodes.txt"
check "attrib nodes marks node-02 (node-02*)" grep -q '^node-02\* ' "$W/nodes.txt"
# (the text is wrapped: its lines joined)
check "attrib nodes lists the finding: node-02: 3 failed jobs of 3 users" \
	grep -q "repeat-offender: node-02: 3 failed jobs of 3 users in " <(tr -s ' \n' ' ' <"$W/nodes.txt")
check "attrib nodes: every line within 80 columns" sh -c "! awk 'length > 80' '$W/nodes.txt' | grep -q ."
"$A" nodes --json --config "$W/attrib.conf" >"$W/nodes.json" 2>/dev/null
check "attrib nodes --json: node-02 has one finding citing the three jobs" \
	test "$(jv "$W/nodes.json" '[sorted(j["job_id"] for j in n["findings"][0]["jobs"]) for n in r if n["node"] == "node-02"]')" \
	= "$(python3 -c "import json,sys; print(json.dumps([sorted(sys.argv[1:])], separators=(',', ':')))" "$j1" "$j2" "$j3")"
for j in $j1 $j2 $j3; do
	"$A" show "$j" --config "$W/attrib.conf" >"$W/show-$j.txt" 2>/dev/null
	check "attrib show $j lists the finding about node-02" \
		sh -c "grep -q 'Fleet findings citing this job:' '$W/show-$j.txt' && grep -q 'repeat-offender: node-02: 3 failed jobs' '$W/show-$j.txt'"
	"$A" show "$j" --json --config "$W/attrib.conf" >"$W/show-$j.json" 2>/dev/null
	check "attrib show $j --json: findings[0] is the repeat offender node-02" \
		test "$(jv "$W/show-$j.json" '[r["findings"][0]["kind"], r["findings"][0]["subject"], len(r["findings"])]')" \
		= '["repeat-offender","node-02",1]'
done
sed -n '/Fleet findings/,$p' "$W/show-$j3.txt" | sed 's/^/#   /'

# ---- its drain decision: suggested, node-02 left in service ----------------------------------
has_rows() { [ -n "$(db_rows)" ]; }
wait_for 60 has_rows
rows=$(db_rows)
echo "# drains table, findings: $rows"
check "one drain decision for the finding: node-02 suggested by attribd (policy suggest, finding N), reason naming it" \
	grep -Eq '^node-02\|suggested\|attribd \(policy suggest, finding ([0-9]+)\)\|attrib: repeat offender: 3 jobs of 3 users in [0-9]+ (min|h) \(finding \1\)\|\1$' <<<"$rows"
check "exactly one decision" test "$(grep -c . <<<"$rows")" = 1
check "attrib show $j1 lists the suggested drain under the finding" \
	grep -q 'drain: node-02 suggested attribd (policy suggest, finding' "$W/show-$j1.txt"
check "node-02 is not drained (suggest only)" sh -c "! sinfo -h -n node-02 -o %T | grep -q '^drain'"
check "metrics: attrib_findings_total{kind=\"repeat-offender\"} 1" test "$(metric repeat-offender)" = 1

check "SIGTERM stops attrib serve (exit 0)" stop_service
finish
