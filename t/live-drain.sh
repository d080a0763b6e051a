#!/bin/bash
# The drain policy of attrib serve on the real test cluster (t/cluster):
# Slurm 22.05 with jobcomp/attrib, spank attrib and the Epilog attrib-collect
# as in t/live-pipeline.sh, and `attrib serve` with
#     DrainPolicy = suggest, DrainClasses = gpu-hardware:auto,nvlink,
#     DrainMaxPerHour = 1 (DrainMaxFraction: the default 0.05, one node of 3)
# Runs only with ATTRIB_LIVE_TESTS=1 (else skipped, exit 77); needs root.
#
#   userexc    rank 3 raises KeyError (UserCode)     -> nothing drained, no
#              drain decision recorded
#   gpufault   node-02 logs Xid 79 (gpu-hardware)    -> confidence high; node-02 drained by the
#              policy with the reason "attrib: GPU has fallen off the bus
#              (Xid 79) PCI:0000:3b:00 (job N)" in sinfo -R; node-01 and
#              node-03 stay undrained
#   gpufault2  node-03 logs Xid 79 within the hour   -> refused: DrainMaxPerHour;
#              the refusal and its reason are in the store (attrib show
#              --drains and the drains table); node-03 stays undrained
#   by hand    attrib drain of the second job is refused by the same limit
#              (exit 5, recorded); --force drains node-03 anyway
# The metrics count the decisions.  At the end the drained nodes are resumed
# (scontrol update state=resume) and everything started is stopped.
#
# Last line: "N passed, N failed".  About a minute.
#
#   ATTRIB, SRCDIR                 the attrib program, the source tree
#   ATTRIB_BUILDDIR                build tree (plugin/.libs, epilog/) [dir of $ATTRIB]
#   ATTRIB_DRAIN_CLUSTER_DIR       cluster state [/tmp/attrib-cluster-drain]
#   ATTRIB_CLUSTER_WAIT            seconds to wait for another test cluster [900]
#   ATTRIB_LIVE_KEEP=1             keep the temporary directory
set -u

[ "${ATTRIB_LIVE_TESTS:-0}" = 1 ] || { echo "SKIP: set ATTRIB_LIVE_TESTS=1 to run on the test cluster"; exit 77; }

A=${ATTRIB:-./attrib}
case $A in /*) ;; *) A=$(pwd)/$A ;; esac
SRC=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
export ATTRIB_CLUSTER_DIR=${ATTRIB_DRAIN_CLUSTER_DIR:-/tmp/attrib-cluster-drain}
. "$SRC/t/cluster/pipeline.sh"
require_built

pipeline_workdir attrib-live-drain
cleanup_more() { # a clean cluster for whoever comes next (the state goes with it too)
	[ -n "$started_cluster" ] && scontrol update nodename=node-02,node-03 state=resume >/dev/null 2>&1
}
finish_hook() { cleanup; }

require_root_and slurmctld slurmd slurmdbd sbatch sacct sinfo scontrol nsenter curl python3

# ---- helpers (the rest: t/cluster/pipeline.sh) --------------------------------------
drains_json() { "$A" show "$1" --drains --json --config "$W/attrib.conf" >"$W/drains-$1.json"; }
drained() { sinfo -h -n "$1" -o %T 2>/dev/null | grep -q '^drain'; }	# drained, draining
reason_of() { sinfo -h -R -n "$1" -o %E 2>/dev/null | head -n1; }
metric() { curl -sf "$URL/metrics" | sed -n "s/^attrib_drains_total{decision=\"$1\"} //p"; }
# the drains table itself (not through attrib): "node|decision|decided_by|reason" per row
db_rows() {
	python3 - "$W/state/attrib.db" "$1" <<'EOF'
import sqlite3, sys
db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
for row in db.execute("SELECT node, decision, decided_by, reason FROM drains WHERE job_id = ? ORDER BY rowid", (sys.argv[2],)):
    print("|".join(row))
EOF
}

# ---- the test directory and the cluster (t/cluster/pipeline.sh) -------------------------
pipeline_dirs
for n in $NODES; do boot_log "$n" >"$W/nodes/$n/kmsg"; done
write_epilog
start_cluster
ok "the test cluster starts with jobcomp/attrib, spank attrib and the Epilog"
allbound=1
for n in $NODES; do bind_spool "$n" || allbound=; done
check "each node's spank spool is its own (bind mount in its namespace)" test -n "$allbound"
check "no node is drained at the start (sinfo -R is empty)" test -z "$(sinfo -h -R)"

# ---- the service, with the drain policy ----------------------------------------------
pick_port 27521 27570
service_conf "$W/attrib.conf" "$W/state" <<EOF
BundleDeadline = 20
ReconcileInterval = 3600
DrainPolicy = suggest
DrainClasses = gpu-hardware:auto, nvlink
DrainMaxPerHour = 1
EOF
for n in $NODES; do node_conf "$n" "$URL"; done
service_up "attrib serve starts on $URL (DrainPolicy suggest, gpu-hardware:auto, DrainMaxPerHour 1)"

# ---- a user-code failure and a GPU fault on node-02 -------------------------------------
ju=$(submit userexc -N3 -n6 -O --gres=gpu:2 --wrap "srun --label $RANK user-exception $W")
jg=$(submit gpufault -N3 -n6 -O --gres=gpu:2 --wrap "srun --label $RANK gpu-fault $W")
echo "# jobs: user exception $ju, GPU fault on node-02 $jg"
check "user exception: job $ju ends FAILED" test "$(sacct_final "$ju" 120)" = FAILED
check "GPU fault: job $jg ends FAILED" test "$(sacct_final "$jg" 120)" = FAILED

if show_json "$ju" 120; then
	check "user exception: diagnosed UserCode" test "$(jv "$W/show-$ju.json" 'r["sub_domain"]')" = UserCode
	drains_json "$ju"
	check "user exception: no drain decision recorded" test "$(jv "$W/drains-$ju.json" 'len(r)')" = 0
	check "user exception: nothing in the drains table for job $ju" test -z "$(db_rows "$ju")"
else
	bad "user exception: job $ju has a stored diagnosis"
fi

if show_json "$jg" 120; then
	echo "#   attrib show $jg: $(jv "$W/show-$jg.json" '[r["sub_domain"], r["culprit_nodes"], r["root_cause"]["code"], r["root_cause"].get("class")]')"
	check "GPU fault: InfraHW, culprit node-02, xid.79 of class gpu-hardware" test \
		"$(jv "$W/show-$jg.json" '[r["sub_domain"], r["culprit_nodes"], r["root_cause"]["code"], r["root_cause"].get("class")]')" \
		= '["InfraHW",["node-02"],"xid.79","gpu-hardware"]'
	# the kernel ring's Xid 79: a definitive fault, above DrainMinConfidence's default
	check "GPU fault: confidence high (the kernel's own record of a fault its rule drains for)" test \
		"$(jv "$W/show-$jg.json" 'r.get("confidence")')" = high
else
	bad "GPU fault: job $jg has a stored diagnosis"
fi
want="attrib: GPU has fallen off the bus (Xid 79) PCI:0000:3b:00 (job $jg)"
check "GPU fault: node-02 is drained" wait_for 60 drained node-02
got=$(reason_of node-02)
echo "# sinfo -R node-02: $got"
check "GPU fault: sinfo -R gives node-02 the reason '$want'" test "$got" = "$want"
check "GPU fault: node-01 and node-03 are not drained" sh -c "! sinfo -h -R | grep -q 'node-0[13]'"
drains_json "$jg"
check "GPU fault: attrib show --drains: node-02 drained by attribd (policy auto) with that reason" \
	test "$(jv "$W/drains-$jg.json" '[(d["node"], d["decision"], d["by"], d["reason"]) for d in r]')" \
	= "[[\"node-02\",\"drained\",\"attribd (policy auto)\",\"$want\"]]"
"$A" show "$jg" --config "$W/attrib.conf" >"$W/show-$jg.txt"
check "GPU fault: attrib show lists the drain decision" \
	grep -q "node-02 drained attribd (policy auto): $want" "$W/show-$jg.txt"

# ---- a second GPU fault, on node-03, within the hour ---------------------------------
jh=$(ATTRIB_FAULT_NODE=node-03 submit gpufault2 -N2 -n4 -O -w node-01,node-03 --gres=gpu:2 \
	--wrap "srun --label $RANK gpu-fault $W")
echo "# job $jh: GPU fault on node-03"
check "second GPU fault: job $jh ends FAILED" test "$(sacct_final "$jh" 120)" = FAILED
if show_json "$jh" 120; then
	check "second GPU fault: culprit node-03, xid.79" test \
		"$(jv "$W/show-$jh.json" '[r["culprit_nodes"], r["root_cause"]["code"]]')" = '[["node-03"],"xid.79"]'
else
	bad "second GPU fault: job $jh has a stored diagnosis"
fi
refusal="DrainMaxPerHour (1) reached: 1 drain in the last hour"
# (the decision follows the stored result by a moment)
wait_for 60 grep -q "job $jh attempt 0: node-03 refused" "$W/attrib.log"
rows=$(db_rows "$jh")
echo "# drains table, job $jh: $rows"
check "second GPU fault: the drains table has node-03 refused by the policy: $refusal" \
	test "$rows" = "node-03|refused|attribd (policy auto)|$refusal"
drains_json "$jh"
check "second GPU fault: attrib show --drains shows the refusal and its reason" \
	test "$(jv "$W/drains-$jh.json" '[(d["node"], d["decision"], d["reason"]) for d in r]')" \
	= "[[\"node-03\",\"refused\",\"$refusal\"]]"
check "second GPU fault: node-03 is not drained" sh -c "! sinfo -h -R | grep -q node-03"
check "metrics: 1 drained, 1 refused, 0 suggested, 0 failed" \
	test "$(metric drained) $(metric refused) $(metric suggested) $(metric failed)" = "1 1 0 0"

# ---- by hand: the same limit, unless --force -----------------------------------------------
"$A" drain "$jh" --config "$W/attrib.conf" >"$W/drain.out" 2>"$W/drain.err"
rc=$?
echo "# attrib drain $jh: exit $rc: $(cat "$W/drain.err")"
check "attrib drain $jh is refused by DrainMaxPerHour (exit 5)" \
	sh -c "[ $rc = 5 ] && grep -q 'node-03: refusing: DrainMaxPerHour (1) reached' '$W/drain.err'"
rows=$(db_rows "$jh" | grep '|attrib drain (uid 0')
echo "# drains table, job $jh, by hand: $rows"
check "attrib drain: the refusal is recorded with who asked and why" \
	grep -q "^node-03|refused|attrib drain (uid 0[,)].*|refusing: DrainMaxPerHour (1) reached: 1 drain in the last hour" <<<"$rows"
check "attrib drain: node-03 is still not drained" sh -c "! sinfo -h -R | grep -q node-03"
"$A" drain "$jh" --force node-03 --config "$W/attrib.conf" >"$W/force.out" 2>&1
rc=$?
echo "# attrib drain $jh --force node-03: exit $rc: $(cat "$W/force.out")"
check "attrib drain --force node-03 drains it despite the limit" \
	sh -c "[ $rc = 0 ] && sinfo -h -n node-03 -o %T | grep -q '^drain'"
check "sinfo -R gives node-03 the reason of job $jh" \
	test "$(reason_of node-03)" = "attrib: GPU has fallen off the bus (Xid 79) PCI:0000:3b:00 (job $jh)"

# ---- resume: a clean cluster for later tests --------------------------------------------------
scontrol update nodename=node-02,node-03 state=resume
check "node-02 and node-03 resumed: sinfo -R is empty" wait_for 60 sh -c '[ -z "$(sinfo -h -R)" ]'
check "no node is left drained" sh -c "! sinfo -h -o %T | grep -q drain"
check "SIGTERM stops attrib serve (exit 0)" stop_service
finish
