#!/bin/bash
# Hours lost on the real test cluster (t/cluster): Slurm 22.05 with
# AccountingStorageTRES=gres/gpu, jobcomp/attrib (or, with
# ATTRIB_LIVE_JOBRECORD=epilogslurmctld, attrib-jobrecord), spank attrib
# and the Epilog attrib-collect as in t/live-pipeline.sh, and attribd
# storing the diagnoses.  Jobs with --gres=gpu:N of different lengths
# fail (one fails without a GPU, and one completes: with COMPLETED in
# AttributeStates it is stored, as Pass, and must not count); then
#     attrib report --json
# must give the GPU-hours that sacct gives for the same failed jobs:
#     sacct -X -n -P -o JobID,ElapsedRaw,AllocTRES,State
# summed here as ElapsedRaw x gres/gpu / 3600 over the jobs that did not
# complete (rounding only: the report's three decimals).  Also the records' gpus, the jobs and
# unknown counts, and the groups by partition.
# Runs only with ATTRIB_LIVE_TESTS=1 (else skipped, exit 77); needs root.
# Last line: "N passed, N failed".  About a minute.
#
#   ATTRIB, SRCDIR                 the attrib program, the source tree
#   ATTRIB_BUILDDIR                build tree (plugin/.libs, epilog/) [dir of $ATTRIB]
#   ATTRIB_REPORT_CLUSTER_DIR      cluster state [/tmp/attrib-cluster-report]
#   ATTRIB_CLUSTER_WAIT            seconds to wait for another test cluster [900]
#   ATTRIB_LIVE_KEEP=1             keep the temporary directory
set -u

[ "${ATTRIB_LIVE_TESTS:-0}" = 1 ] || { echo "SKIP: set ATTRIB_LIVE_TESTS=1 to run on the test cluster"; exit 77; }

A=${ATTRIB:-./attrib}
case $A in /*) ;; *) A=$(pwd)/$A ;; esac
SRC=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
export ATTRIB_CLUSTER_DIR=${ATTRIB_REPORT_CLUSTER_DIR:-/tmp/attrib-cluster-report}
. "$SRC/t/cluster/pipeline.sh"
require_built

pipeline_workdir attrib-live-report
require_root_and slurmctld slurmd slurmdbd sbatch sacct scontrol nsenter curl python3

# ---- the cluster, accounting GPUs -------------------------------------------------------
pipeline_dirs
for n in $NODES; do boot_log "$n" >"$W/nodes/$n/kmsg"; done
write_epilog
export ATTRIB_SLURM_CONF_EXTRA=AccountingStorageTRES=gres/gpu
start_cluster
ok "the test cluster starts with AccountingStorageTRES=gres/gpu and the job record by $JOBRECORD"
for n in $NODES; do bind_spool "$n"; done

pick_port 27621 27670
service_conf "$W/attrib.conf" "$W/state" <<EOF
BundleDeadline = 15
ReconcileInterval = 3600
AttributeStates = FAILED,COMPLETED
EOF
for n in $NODES; do node_conf "$n" "$URL"; done
service_up "attribd starts on $URL"

# ---- the jobs: GPUs x seconds, failing; one completes; one has no GPU --------------------
t_since=$(date +%s)
j1=$(submit fail2gpu -N1 -n1 -O --gres=gpu:2 --wrap 'sleep 9; exit 3')
j2=$(submit fail2nodes -N2 -n2 -O --gres=gpu:1 --wrap 'sleep 5; exit 1')
j3=$(submit fail1gpu -N1 -n1 -O --gres=gpu:1 --wrap 'sleep 2; exit 2')
j4=$(submit completes -N1 -n1 -O --gres=gpu:2 --wrap 'sleep 4')
j5=$(submit nogpu -N1 -n1 -O --wrap 'sleep 1; exit 4')
jobs="$j1 $j2 $j3 $j4 $j5"
echo "# jobs: $jobs"
for j in $jobs; do sacct_final "$j" 120 >/dev/null; done
check "the jobs ended: FAILED x4, COMPLETED" \
	test "$(for j in $jobs; do sacct_final "$j" 5; done | sort | uniq -c | tr -s ' ' | paste -sd, -)" \
	= " 1 COMPLETED, 4 FAILED"
for j in $jobs; do
	show_json "$j" 120 || bad "job $j has a stored diagnosis"
done

# what sacct says: one line a job
sacct -X -n -P -o JobID,ElapsedRaw,AllocTRES,State -j "$(echo $jobs | tr ' ' ,)" >"$W/sacct.txt"
sed 's/^/#   sacct: /' "$W/sacct.txt"
want=$(awk -F'|' '
	$4 != "COMPLETED" {
		g = 0
		n = split($3, t, ",")
		for (i = 1; i <= n; i++) if (t[i] ~ /^gres\/gpu=/) { sub(/^gres\/gpu=/, "", t[i]); g = t[i] }
		h += $2 * g / 3600; jobs++
	}
	END { printf "%.6f %d", h, jobs }' "$W/sacct.txt")
echo "# from sacct: GPU-hours and failed jobs: $want"

# the records' gpus (kept by attribd beside the job's inputs), as sacct's AllocTRES
rec_gpus() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("gpus"))' "$W/state/done/$1/.record.json" 2>/dev/null; }
sacct_gpus() { awk -F'|' -v j="$1" '$1 == j { g = 0; n = split($3, t, ","); for (i = 1; i <= n; i++) if (t[i] ~ /^gres\/gpu=/) { sub(/^gres\/gpu=/, "", t[i]); g = t[i] } print g }' "$W/sacct.txt"; }
rec=; acct=
for j in $jobs; do rec="$rec $(rec_gpus "$j")"; acct="$acct $(sacct_gpus "$j")"; done
echo "# job records' gpus:$rec; sacct's:$acct"
check "each job record's gpus is sacct's gres/gpu ($acct)" test "$rec" = "$acct"

"$A" report --since $(($(date +%s) - t_since + 60))s --json --by partition --config "$W/attrib.conf" >"$W/report.json"
sed 's/^/#   /' "$W/report.json" | head -40
have=$(jv "$W/report.json" '"%.3f %d" % (r["gpu_hours"], r["jobs"])')
echo "# attrib report: GPU-hours and failed jobs: $have"
check "attrib report's GPU-hours and failed jobs are sacct's ($want)" python3 -c '
import sys
a, b = sys.argv[1].split(), sys.argv[2].split()
sys.exit(not (abs(float(a[0]) - float(b[0])) <= 0.0005 and a[1] == b[1] and float(a[0]) > 0))' "$want" "$have"
check "every failed job had a GPU count (gres/gpu accounted: the GPU-less job counts 0)" \
	test "$(jv "$W/report.json" 'r["unknown_gpus"]')" = 0
check "one group, the partition of every job" \
	test "$(jv "$W/report.json" '[(g["key"], g["jobs"]) for g in r["groups"]]')" = "[[\"$ATTRIB_CLUSTER_PARTITION\",4]]"
"$A" report --since 1d --csv --config "$W/attrib.conf" >"$W/report.csv"
check "the completed job is stored as Pass (and not counted above)" \
	test "$(jv "$W/show-$j4.json" 'r["sub_domain"]')" = Pass
check "attrib report --csv: a header and a line a sub-domain" \
	sh -c "head -n1 '$W/report.csv' | grep -qx 'sub_domain,jobs,gpu_hours,share' && [ \$(wc -l <'$W/report.csv') -ge 2 ]"
check "SIGTERM stops attribd (exit 0)" stop_service
finish
