#!/bin/bash
# Undrain on the real test cluster (t/cluster): Slurm 22.05 with
# jobcomp/attrib, spank attrib and the Epilog attrib-collect as in
# t/live-drain.sh, and slurmd's HealthCheckProgram a wrapper running
# `attrib-collect --health` (HealthCheck = /bin/true) every 5 s on every
# node, drained ones included, as a site would beside NHC.
# Runs only with ATTRIB_LIVE_TESTS=1 (else skipped, exit 77); needs root.
#
#   admin      an administrator drains node-01 with the reason "attrib:
#              something" (no drain of attrib's in the store): attrib
#              undrain node-01 refuses (exit 5, --force too) and records
#              why; attribd, Undrain = suggest then auto, never returns it
#              nor records anything for it, though its checks pass
#   gpufault   node-02 logs Xid 79: the policy drains it (DrainClasses
#              gpu-hardware:auto); with Undrain = suggest (UndrainQuiet = 0)
#              its next passing check records "undrain suggested" and it
#              stays drained; attribd restarted with Undrain = auto, the
#              next check returns it to service (sinfo: idle) and records
#              "undrained" by "attribd (undrain auto)"
# The metrics count the decisions.  At the end node-01 is resumed and
# everything started is stopped.  Last line: "N passed, N failed".  About
# a minute of cluster time.
#
#   ATTRIB, SRCDIR                 the attrib program, the source tree
#   ATTRIB_BUILDDIR                build tree (plugin/.libs, epilog/) [dir of $ATTRIB]
#   ATTRIB_UNDRAIN_CLUSTER_DIR     cluster state [/tmp/attrib-cluster-undrain]
#   ATTRIB_CLUSTER_WAIT            seconds to wait for another test cluster [900]
#   ATTRIB_LIVE_KEEP=1             keep the temporary directory
set -u

[ "${ATTRIB_LIVE_TESTS:-0}" = 1 ] || { echo "SKIP: set ATTRIB_LIVE_TESTS=1 to run on the test cluster"; exit 77; }

A=${ATTRIB:-./attrib}
case $A in /*) ;; *) A=$(pwd)/$A ;; esac
SRC=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
export ATTRIB_CLUSTER_DIR=${ATTRIB_UNDRAIN_CLUSTER_DIR:-/tmp/attrib-cluster-undrain}
. "$SRC/t/cluster/pipeline.sh"
require_built

pipeline_workdir attrib-live-undrain
cleanup_more() { # a clean cluster for whoever comes next
	[ -n "$started_cluster" ] && scontrol update nodename=node-01,node-02,node-03 state=resume >/dev/null 2>&1
}
finish_hook() { cleanup; echo "# total: $(since "$T0") s"; }

require_root_and slurmctld slurmd slurmdbd sbatch sacct sinfo scontrol nsenter curl python3

drained() { sinfo -h -n "$1" -o %T 2>/dev/null | grep -q '^drain'; }
idle() { [ "$(sinfo -h -n "$1" -o %T 2>/dev/null)" = idle ]; }
reason_of() { sinfo -h -R -n "$1" -o %E 2>/dev/null | head -n1; }
metric() { curl -sf "$URL/metrics" | sed -n "s/^attrib_undrains_total{decision=\"$1\"} //p"; }
# the drains table: "job|node|decision|decided_by|reason" of NODE, oldest first
db_rows() {
	python3 - "$W/state/attrib.db" "$1" <<'EOF'
import sqlite3, sys
db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
for row in db.execute("SELECT job_id, node, decision, decided_by, reason FROM drains WHERE node = ? ORDER BY rowid", (sys.argv[2],)):
    print("|".join(str(x) for x in row))
EOF
}
has_row() { db_rows "$1" | grep -q "$2"; } # NODE REGEX
checks_of() { # passing health checks of NODE recorded
	python3 - "$W/state/attrib.db" "$1" <<'EOF'
import sqlite3, sys
db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
print(db.execute("SELECT count(*) FROM health_checks WHERE node = ? AND passed", (sys.argv[2],)).fetchone()[0])
EOF
}

# ---- the cluster, with the health check --------------------------------------------
pipeline_dirs
for n in $NODES; do boot_log "$n" >"$W/nodes/$n/kmsg"; done
write_epilog
# what a site with NHC would write: NHC first (it drains a failing node
# itself), then attrib's check and report; here attrib's alone
cat >"$W/health.sh" <<SH
#!/bin/sh
n=\${SLURMD_NODENAME:-\$(hostname)}
ATTRIB_MUNGE_SOCKET=\${ATTRIB_MUNGE_SOCKET_OF_TEST:-}
SLURMD_NODENAME=\$n
export ATTRIB_MUNGE_SOCKET SLURMD_NODENAME
exec "$COLLECT" --health -c "$W/nodes/\$n/attrib.conf" >>"$W/nodes/\$n/health.out" 2>&1
SH
chmod 0755 "$W/health.sh"
export ATTRIB_SLURM_CONF_EXTRA="HealthCheckProgram=$W/health.sh
HealthCheckInterval=5
HealthCheckNodeState=ANY"
start_cluster
ok "the test cluster starts with the Epilog and HealthCheckProgram attrib-collect --health"
# (the cluster's one munged: its socket, known only now, for the wrapper)
sed -i "s|\${ATTRIB_MUNGE_SOCKET_OF_TEST:-}|$ATTRIB_MUNGE_SOCKET|" "$W/health.sh"
for n in $NODES; do bind_spool "$n"; done
check "no node is drained at the start" test -z "$(sinfo -h -R)"

pick_port 27571 27620
conf() { # undrain mode
	service_conf "$W/attrib.conf" "$W/state" <<EOF
BundleDeadline = 20
ReconcileInterval = 3600
DrainPolicy = suggest
DrainClasses = gpu-hardware:auto
# node-01, drained by the administrator, would fill the default 0.05 of 3 nodes
DrainMaxFraction = 1
Undrain = $1
UndrainQuiet = 0
EOF
}
conf suggest
for n in $NODES; do
	node_conf "$n" "$URL"
	echo "HealthCheck = /bin/true" >>"$W/nodes/$n/attrib.conf"
	echo "HealthCheckTimeout = 10" >>"$W/nodes/$n/attrib.conf"
done
service_up "attribd starts on $URL (Undrain suggest, UndrainQuiet 0)"
more_checks() { [ "$(checks_of "$1" 2>/dev/null)" -gt "$2" ]; } # NODE N: more than N passing
check "slurmd's health checks of node-03 reach the store" wait_for 60 more_checks node-03 0

# ---- an administrator's drain whose reason looks like attrib's ---------------------------
scontrol update nodename=node-01 state=drain reason="attrib: something"
check "node-01 drained by an administrator with the reason 'attrib: something'" wait_for 60 drained node-01
"$A" undrain node-01 --config "$W/attrib.conf" >"$W/u1.out" 2>"$W/u1.err"
rc=$?
echo "# attrib undrain node-01: exit $rc: $(cat "$W/u1.err")"
check "attrib undrain node-01 refuses (exit 5): attrib never drained it" \
	sh -c "[ $rc = 5 ] && grep -q 'not drained by attrib: the store holds no drain of the node in force (attrib never drained it)' '$W/u1.err'"
"$A" undrain node-01 --force --config "$W/attrib.conf" >/dev/null 2>"$W/u2.err"
rc=$?
check "attrib undrain --force node-01 refuses too (exit $rc)" test "$rc" = 5
check "node-01 is still drained, with its reason" test "$(drained node-01 && reason_of node-01)" = "attrib: something"
rows=$(db_rows node-01)
echo "# drains table, node-01: $rows"
check "both refusals recorded with who asked" \
	test "$(grep -c '^-|node-01|undrain refused|attrib undrain (uid 0' <<<"$rows")" = 2

# ---- attrib's drain of node-02 ----------------------------------------------------------
jg=$(submit gpufault -N2 -n4 -O -w node-02,node-03 --gres=gpu:2 --wrap "srun --label $RANK gpu-fault $W")
echo "# job $jg: GPU fault on node-02"
check "GPU fault: job $jg ends FAILED" test "$(sacct_final "$jg" 120)" = FAILED
check "GPU fault: node-02 drained by the policy" wait_for 60 drained node-02
want="attrib: GPU has fallen off the bus (Xid 79) PCI:0000:3b:00 (job $jg)"
check "sinfo -R: node-02's reason is attrib's ($(reason_of node-02))" test "$(reason_of node-02)" = "$want"
n0=$(checks_of node-02)
check "a passing check of node-02 after the drain (slurmd runs it on drained nodes)" \
	wait_for 60 more_checks node-02 "$n0"
check "Undrain = suggest: 'undrain suggested' recorded for node-02 under job $jg" \
	wait_for 60 has_row node-02 "^$jg|node-02|undrain suggested|attribd (undrain suggest)|"
# two more checks of node-02 (one every 5 s): still only suggested, and once
n1=$(checks_of node-02)
wait_for 60 more_checks node-02 $((n1 + 1))
check "... node-02 stays drained" drained node-02
check "... the suggestion recorded once ($(db_rows node-02 | grep -c 'undrain suggested'))" \
	test "$(db_rows node-02 | grep -c 'undrain suggested')" = 1
check "metrics: 1 suggested, 0 undrained" test "$(metric suggested) $(metric undrained)" = "1 0"

# ---- Undrain = auto -----------------------------------------------------------------------
stop_service
conf auto
service_up "attribd restarted with Undrain = auto"
check "node-02 returns to service after its next check: sinfo shows it idle" wait_for 60 idle node-02
rows=$(db_rows node-02)
echo "# drains table, node-02: $rows"
check "the drains table: node-02 drained, suggested, then undrained by attribd (undrain auto) under job $jg" \
	test "$(cut -d'|' -f1-4 <<<"$rows" | tr '\n' ';')" = \
	"$jg|node-02|drained|attribd (policy auto);$jg|node-02|undrain suggested|attribd (undrain suggest);$jg|node-02|undrained|attribd (undrain auto);"
"$A" show "$jg" --drains --config "$W/attrib.conf" >"$W/show-drains.txt" 2>&1
check "attrib show $jg --drains lists the undrain" grep -q "node-02 undrained attribd (undrain auto)" "$W/show-drains.txt"
check "metrics: 1 undrained" test "$(metric undrained)" = 1
check "node-01 (the administrator's) is still drained" drained node-01
none_by_attribd() { ! db_rows "$1" | grep -q attribd; }
check "... and attribd recorded nothing for it" none_by_attribd node-01

scontrol update nodename=node-01 state=resume
check "no node is left drained" wait_for 60 sh -c "! sinfo -h -o %T | grep -q drain"
check "SIGTERM stops attribd (exit 0)" stop_service
finish
