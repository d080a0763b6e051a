#!/bin/bash
# A leaf switch failing, on the real test cluster (t/cluster, 3 nodes), with
# the pipeline of t/live-pipeline.sh and `attrib serve` given Slurm's
# topology (TopologyFile = a topology.conf of two leaf switches: leaf1 =
# node-[01-02], leaf2 = node-03, under a spine) and a drain policy that
# would drain a lost link at once (DrainPolicy = auto, DrainClasses =
# network-link:auto).  Runs only with ATTRIB_LIVE_TESTS=1 (else skipped,
# exit 77); needs root.
#
#   linkdown   node-01 and node-02 (every node of leaf1) log the mlx5
#              driver's "Link down" of their IB port in the same second;
#              node-03 loses its peers  -> attrib show: InfraNet, culprit_switch
#              leaf1, switch_nodes node-01 and node-02, no culprit node, an
#              inspect action on the switch; the case directory holds the
#              topology; no node is drained (sinfo), the drains table refuses
#              node-01 and node-02 with "switch leaf1 blamed", and a fleet
#              finding of kind switch about leaf1 cites the job.
#
# Last line: "N passed, N failed".  About a minute.
#
#   ATTRIB, SRCDIR                 the attrib program, the source tree
#   ATTRIB_BUILDDIR                build tree (plugin/.libs, epilog/) [dir of $ATTRIB]
#   ATTRIB_TOPOLOGY_CLUSTER_DIR    cluster state [/tmp/attrib-cluster-topology]
#   ATTRIB_CLUSTER_WAIT            seconds to wait for another test cluster [900]
#   ATTRIB_LIVE_KEEP=1             keep the temporary directory
set -u

[ "${ATTRIB_LIVE_TESTS:-0}" = 1 ] || { echo "SKIP: set ATTRIB_LIVE_TESTS=1 to run on the test cluster"; exit 77; }

A=${ATTRIB:-./attrib}
case $A in /*) ;; *) A=$(pwd)/$A ;; esac
SRC=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
export ATTRIB_CLUSTER_DIR=${ATTRIB_TOPOLOGY_CLUSTER_DIR:-/tmp/attrib-cluster-topology}
. "$SRC/t/cluster/pipeline.sh"
require_built

pipeline_workdir attrib-live-topology
cleanup_more() { # a clean cluster for whoever comes next, even if a node was drained
	[ -n "$started_cluster" ] && scontrol update nodename=node-01,node-02,node-03 state=resume >/dev/null 2>&1
}
finish_hook() { cleanup; }

require_root_and slurmctld slurmd slurmdbd sbatch sacct sinfo scontrol nsenter curl python3

# the drains and findings tables themselves (not through attrib)
db() {
	python3 - "$W/state/attrib.db" "$1" "$2" <<'PY'
import sqlite3, sys
db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
for row in db.execute(sys.argv[2], (sys.argv[3],)):
    print("|".join(str(c) for c in row))
PY
}

pipeline_dirs
for n in $NODES; do boot_log "$n" >"$W/nodes/$n/kmsg"; done
cat >"$W/topology.conf" <<'TOPO'
# two leaf switches under one spine (Slurm's topology/tree syntax)
SwitchName=leaf1 Nodes=node-[01-02]
SwitchName=leaf2 Nodes=node-03
SwitchName=spine Switches=leaf[1-2]
TOPO
write_epilog
start_cluster
ok "the test cluster starts with jobcomp/attrib, spank attrib and the Epilog"
allbound=1
for n in $NODES; do bind_spool "$n" || allbound=; done
check "each node's spank spool is its own (bind mount in its namespace)" test -n "$allbound"
check "no node is drained at the start (sinfo -R is empty)" test -z "$(sinfo -h -R)"

pick_port 27571 27620
service_conf "$W/attrib.conf" "$W/state" <<CONF
BundleDeadline = 20
ReconcileInterval = 3600
DrainPolicy = auto
DrainClasses = network-link:auto
DrainMaxPerHour = 10
DrainMaxFraction = 1
TopologyFile = $W/topology.conf
CONF
for n in $NODES; do node_conf "$n" "$URL"; done
service_up "attrib serve starts on $URL (TopologyFile, network-link:auto)"

j=$(ATTRIB_LINK_NODES="node-01 node-02" submit linkdown -N3 -n6 -O --gres=gpu:2 \
	--wrap "srun --label $RANK link-down $W")
echo "# job $j: node-01 and node-02 (leaf1) lose their IB links"
check "link down: job $j ends FAILED" test "$(sacct_final "$j" 120)" = FAILED

if show_json "$j" 120; then
	S=$W/show-$j.json
	echo "#   attrib show $j: $(jv "$S" '[r["sub_domain"], r.get("culprit_switch"), r.get("switch_nodes"), r["culprit_nodes"], r["actions"]]')"
	check "link down: InfraNet, the root a lost link" test \
		"$(jv "$S" '[r["sub_domain"], r["root_cause"]["code"], r["root_cause"].get("lost_link")]')" \
		= '["InfraNet","net.link_down",true]'
	check "link down: culprit_switch leaf1 over node-01 and node-02" test \
		"$(jv "$S" '[r.get("culprit_switch"), r.get("switch_nodes")]')" = '["leaf1",["node-01","node-02"]]'
	check "link down: no culprit node" test "$(jv "$S" 'r["culprit_nodes"]')" = '[]'
	check "link down: one action, inspect the switch leaf1; no drain" test \
		"$(jv "$S" '[(a.get("switch"), a.get("node"), a["action"]) for a in r["actions"]]')" \
		= '[["leaf1",null,"inspect"]]'
	check "link down: the explanation blames the switch" grep -q "leaf switch leaf1" \
		<<<"$(jv "$S" 'r["explanation"]')"
else
	bad "link down: job $j has a stored diagnosis"
fi
check "the case directory holds the site's topology" cmp -s "$W/topology.conf" "$W/state/cases/$j.0/topology.conf"
# (the decisions follow the stored result by a moment)
wait_for 60 grep -q "job $j attempt 0: node-02 not drained" "$W/attrib.log"
rows=$(db "SELECT node, decision, reason FROM drains WHERE job_id = ? ORDER BY node" "$j")
echo "# drains table, job $j: $(echo $rows)"
check "the drains table refuses node-01 and node-02: switch leaf1 blamed" test "$(echo $rows)" \
	= "node-01|refused|switch leaf1 blamed node-02|refused|switch leaf1 blamed"
f=$(db "SELECT kind, subject, jobs FROM findings WHERE subject = ?" leaf1)
echo "# findings: $f"
check "a fleet finding about switch leaf1 cites job $j" grep -q "^switch|leaf1|.*\"$j\"" <<<"$f"
check "no node is drained (sinfo)" sh -c "! sinfo -h -o %T | grep -q drain"
check "sinfo -R is empty" test -z "$(sinfo -h -R)"

check "SIGTERM stops attrib serve (exit 0)" stop_service
finish
