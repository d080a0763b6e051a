#!/bin/bash
# The job's own output reaches the case, on the real test cluster (t/cluster)
# with the pipeline of t/live-pipeline.sh: batch jobs written as a new
# administrator's users write them, each failing with a Python traceback,
# each case checked in the stored diagnosis (attrib show --json) and in the
# case directory (W/state/cases/JOB.0/app).  Runs only with
# ATTRIB_LIVE_TESTS=1 (else skipped, exit 77); needs root.
#
#   apart     -o so-%j.out -e se-%j.err: the traceback only on stdout,
#             a warning on stderr -> UserCode from app/so-JOB.out, both
#             files in app/, no app coverage gap
#   onefile   -o one-%j.out alone (stderr goes there too), the traceback
#             on stderr            -> the one file in app/, UserCode
#   pattern   -J patjob -o out-%j-%x.txt, relative to --chdir
#                                  -> app/out-JOB-patjob.txt, UserCode
#   array     --array=3 -o arr-%A_%a.out: an array task
#                                  -> app/arr-MASTER_3.out, UserCode
#   devnull   -o /dev/null -e dn-%j.err, the traceback on stderr
#                                  -> app/std_out "info: nothing to
#             collect" (not missing), UserCode from app/dn-JOB.err
#
# (A heterogeneous job's batch script runs in its first component, whose
# job id is the job's: the same rules; the test cluster's scheduler does not
# run heterogeneous jobs.)
#
# Last line: "N passed, N failed".  About a minute.
#
#   ATTRIB, SRCDIR                 the attrib program, the source tree
#   ATTRIB_BUILDDIR                build tree (plugin/.libs, epilog/) [dir of $ATTRIB]
#   ATTRIB_OUTPUT_CLUSTER_DIR      cluster state [/tmp/attrib-cluster-output]
#   ATTRIB_CLUSTER_WAIT            seconds to wait for another test cluster [900]
#   ATTRIB_LIVE_KEEP=1             keep the temporary directory
set -u

[ "${ATTRIB_LIVE_TESTS:-0}" = 1 ] || { echo "SKIP: set ATTRIB_LIVE_TESTS=1 to run on the test cluster"; exit 77; }

A=${ATTRIB:-./attrib}
case $A in /*) ;; *) A=$(pwd)/$A ;; esac
SRC=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
export ATTRIB_CLUSTER_DIR=${ATTRIB_OUTPUT_CLUSTER_DIR:-/tmp/attrib-cluster-output}
. "$SRC/t/cluster/pipeline.sh"
require_built

pipeline_workdir attrib-live-output
require_root_and slurmctld slurmd slurmdbd sbatch sacct nsenter curl python3

pipeline_dirs
for n in $NODES; do boot_log "$n" >"$W/nodes/$n/kmsg"; done
write_epilog
start_cluster
ok "the test cluster starts with jobcomp/attrib, spank attrib and the Epilog"
allbound=1
for n in $NODES; do bind_spool "$n" || allbound=; done
check "each node's spank spool is its own (bind mount in its namespace)" test -n "$allbound"

pick_port 27621 27670
service_conf "$W/attrib.conf" "$W/state" <<CONF
BundleDeadline = 20
ReconcileInterval = 3600
CONF
for n in $NODES; do node_conf "$n" "$URL"; done
service_up "attrib serve starts on $URL"

# the script of every job: a traceback on stream $1 (out or err), a line on the other
script() {
	local tb='echo "Traceback (most recent call last):"; echo "  File \"/w/train.py\", line 10, in <module>"; echo "KeyError: '"'"'labels'"'"'"'
	local other='echo "step 1 loss 2.3"'
	if [ "$1" = out ]; then echo "$tb; $other >&2; exit 1"; else echo "$other; { $tb; } >&2; exit 1"; fi
}
sb() { sbatch --parsable -N1 -n1 --chdir "$W/out" "$@"; }

ja=$(sb -J apart -o "$W/out/so-%j.out" -e "$W/out/se-%j.err" --wrap "$(script out)")
jo=$(sb -J onefile -o "$W/out/one-%j.out" --wrap "$(script err)")
jp=$(sb -J patjob -o 'out-%j-%x.txt' --wrap "$(script out)")
jm=$(sb -J array --array=3 -o 'arr-%A_%a.out' --wrap "$(script out)")
jd=$(sb -J devnull -o /dev/null -e "$W/out/dn-%j.err" --wrap "$(script err)")
jm=${jm%%;*}
# the array task's own job id (sacct's JobIDRaw of MASTER_3)
wait_for 60 sh -c "sacct -n -P -X -j $jm -o JobIDRaw | grep -q ." || true
jt=$(sacct -n -P -X -j "$jm" -o JobIDRaw | head -n1)
note "jobs: apart $ja, onefile $jo, pattern $jp, array ${jm}_3 ($jt), devnull $jd"

# case_of JOB NAME FILE [FILE...]: the job's stored diagnosis (into
# W/show-JOB.json) is UserCode from the traceback in app/FILE (the first),
# its case's app/ holds the FILEs, and no coverage entry says the output is
# missing
case_of() {
	local j=$1 name=$2 S app got
	shift 2
	[ -n "$j" ] || { bad "$name: sbatch submits the job"; return; }
	check "$name: job $j ends FAILED" test "$(sacct_final "$j" 90)" = FAILED
	if ! show_json "$j" 60; then
		bad "$name: job $j has a stored diagnosis"
		return
	fi
	S=$W/show-$j.json
	app=$W/state/cases/$j.0/app
	got=$(ls "$app" 2>/dev/null | tr '\n' ' ')
	echo "#   $name ($j): $(jv "$S" '[r["sub_domain"], r["root_cause"]["code"], [e["file"] for e in r["root_cause"].get("evidence", [])]]'); app/: $got"
	echo "#   coverage: $(jv "$S" '[(c["source"], c["status"], c["detail"]) for c in r["coverage"]]')"
	check "$name: UserCode, root cause py.exception" test \
		"$(jv "$S" '[r["sub_domain"], r["root_cause"]["code"]]')" = '["UserCode","py.exception"]'
	check "$name: the case's app/ holds $*" test "$got" = "$(printf '%s\n' "$@" | sort | tr '\n' ' ')"
	check "$name: the traceback's line is in app/$1's case file" grep -q "KeyError: 'labels'" "$app/$1"
	check "$name: the root cause's evidence is app/$1" test \
		"$(jv "$S" '[e["file"] for e in r["root_cause"].get("evidence", [])]')" = "[\"app/$1\"]"
	check "$name: no coverage entry of the output says missing or error (not in the batch host's bundle, not found)" test \
		"$(jv "$S" '[c for c in r["coverage"] if "app" in c["source"] and c["status"] in ("missing", "error")]')" = '[]'

}

case_of "$ja" apart "so-$ja.out" "se-$ja.err"
check "apart: the stdout file holds the traceback, the stderr file the other line" \
	sh -c "grep -q 'KeyError' '$W/state/cases/$ja.0/app/so-$ja.out' && grep -q 'step 1 loss' '$W/state/cases/$ja.0/app/se-$ja.err'"
case_of "$jo" onefile "one-$jo.out"
case_of "$jp" pattern "out-$jp-patjob.txt"
case_of "$jt" array "arr-${jm}_3.out"
case_of "$jd" devnull "dn-$jd.err"
check "devnull: app/std_out is info 'nothing to collect', not missing" test \
	"$(jv "$W/show-$jd.json" '[(c["source"], c["status"]) for c in r["coverage"] if c["source"].startswith("app")]')" \
	= '[["app/std_out","info"]]'
"$A" show "$jd" --config "$W/attrib.conf" >"$W/show-$jd.txt" 2>&1
sed -n '/^Missing/,/^Actions/p' "$W/show-$jd.txt" | sed 's/^/# /'
check "devnull: attrib show: app/std_out (info): std_out is /dev/null ... nothing to collect" \
	grep -Eq "^(Missing)? +app/std_out \(info\): std_out is /dev/null: the job discarded it; nothing to collect$" "$W/show-$jd.txt"
check "no node's collector said the job's output was not found" sh -c "! grep -h 'app' '$W'/nodes/*/collect.log | grep -E 'error|missing'"

check "SIGTERM stops attrib serve (exit 0)" stop_service
finish
