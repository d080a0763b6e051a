#!/bin/bash
# Job throughput of the test cluster with JobCompType=jobcomp/none and with
# jobcomp/attrib (plus the spank attrib plugin): N trivial jobs (default 200)
# submitted one sbatch at a time; reports the time from the first submit to
# the last job's end and checks that jobcomp/attrib wrote one record per job.
# A coarse end-to-end figure (Slurm's own scheduling dominates); the cost of
# jobcomp_p_log_record itself is measured by plugin/jobcomp-bench.
#
# Runs may be interleaved (MODES="none attrib none attrib") to control for
# drift; the end prints every run, the median per mode and the ratio of
# each run to the median of jobcomp/none (bench/live/throughput.sh wraps it).
#
# Needs root and the built plugins (plugin/.libs). Takes about 3 minutes.
# Last line: "N passed, N failed"; 77 (skip) when not root or not built.
#
#   ATTRIB_THROUGHPUT_JOBS  number of jobs [200]
#   ATTRIB_THROUGHPUT_MODES the runs, in order [none attrib]: none = jobcomp/none,
#                           attrib = jobcomp/attrib + spank attrib,
#                           jobcomp = jobcomp/attrib only, spank = spank attrib only
#   ATTRIB_BUILDDIR         build tree holding plugin/.libs [the source tree]
#   ATTRIB_CLUSTER_WAIT     seconds to wait for another test cluster to stop [900]
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cluster=$here/cluster/cluster.sh
libs=$(cd "${ATTRIB_BUILDDIR:-$top}/plugin/.libs" 2>/dev/null && pwd) || libs=
njobs=${ATTRIB_THROUGHPUT_JOBS:-200}
export ATTRIB_CLUSTER_DIR=${ATTRIB_CLUSTER_DIR:-/tmp/attrib-cluster-plugin}
. "$top/t/lib/check.sh"

[ "$(id -u)" = 0 ] || { echo "# needs root; skipped"; exit 77; }
if [ -z "$libs" ] || [ ! -f "$libs/jobcomp_attrib.so" ] || [ ! -f "$libs/spank_attrib.so" ]; then
    echo "# plugins not built; skipped"
    exit 77
fi
tmp=$(mktemp -d /tmp/attrib-plugin-tp.XXXXXX)
chmod 0755 "$tmp"
trap '"$cluster" stop >/dev/null 2>&1; rm -rf "$tmp"' EXIT

. "$top/t/cluster/lib.sh"

# run MODE: start the cluster, submit the jobs, wait for all to end; prints seconds
run() {
    local mode=$1 t0 t1 left try
    export ATTRIB_JOBCOMP=jobcomp/none
    unset ATTRIB_PLUGIN_DIR ATTRIB_JOBCOMP_LOC ATTRIB_PLUGSTACK_CONFIG
    case $mode in attrib | jobcomp)
        rm -rf "$tmp/spool"
        export ATTRIB_JOBCOMP=jobcomp/attrib ATTRIB_PLUGIN_DIR=$libs ATTRIB_JOBCOMP_LOC=$tmp/spool ;;
    esac
    case $mode in attrib | spank)
        echo "required $libs/spank_attrib.so spool=$tmp/node" >"$tmp/plugstack.conf"
        export ATTRIB_PLUGSTACK_CONFIG=$tmp/plugstack.conf ;;
    esac
    # a start right after the previous run's stop (or another test's
    # cluster starting in the gap) can find a node's port still bound: retry
    for try in 1 2 3; do
        wait_no_ctld && wait_cluster_free || return 1
        "$cluster" start >"$tmp/cluster-$mode.log" 2>&1 && break
        echo "# cluster start $try failed: $(grep -m1 'error' "$tmp/cluster-$mode.log")" >&2
        [ "$try" = 3 ] && { tail -5 "$tmp/cluster-$mode.log" | sed 's/^/#   /' >&2; return 1; }
        sleep $((10 + RANDOM % 20))
    done
    eval "$("$cluster" env)"
    mkdir -p "$tmp/out-$mode"
    t0=$(date +%s.%N)
    for _ in $(seq 1 "$njobs"); do
        sbatch --parsable -N1 -n1 -o /dev/null --wrap true >/dev/null || return 1
    done
    # every job has ended when none is left in the queue (MinJobAge keeps
    # ended jobs visible in squeue only as COMPLETED/COMPLETING: filter those)
    while :; do
        left=$(squeue -h -t PENDING,RUNNING,CONFIGURING,COMPLETING -o %i 2>/dev/null | wc -l)
        [ "$left" = 0 ] && break
        sleep 0.2
    done
    t1=$(date +%s.%N)
    "$cluster" stop >/dev/null 2>&1
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }'
}

declare -A secs_of	# mode -> "s s ..."
for mode in ${ATTRIB_THROUGHPUT_MODES:-none attrib}; do
    case $mode in
    none) what="jobcomp/none" ;;
    attrib) what="jobcomp/attrib + spank attrib" ;;
    jobcomp) what="jobcomp/attrib" ;;
    spank) what="jobcomp/none + spank attrib" ;;
    *) bad "unknown mode $mode"; continue ;;
    esac
    if secs=$(run "$mode"); then
        ok "$njobs jobs with $what: $secs s ($(uptime | sed 's/.*load/load/'))"
        secs_of[$mode]="${secs_of[$mode]:-} $secs"
    else
        bad "$what run"
        continue
    fi
    case $mode in attrib | jobcomp)
        n=$(find "$tmp/spool/jobs" -name '*.json' 2>/dev/null | wc -l)
        if [ "$n" = "$njobs" ]; then ok "jobcomp/attrib wrote $n records"; else bad "jobcomp/attrib wrote $n records, expected $njobs"; fi ;;
    esac
done
# the summary: per mode every run and the median; each run against jobcomp/none's median
median() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
base=$(echo "${secs_of[none]:-}" | median)
for mode in $(printf '%s\n' ${ATTRIB_THROUGHPUT_MODES:-none attrib} | awk '!seen[$0]++'); do
    [ -n "${secs_of[$mode]:-}" ] || continue
    m=$(echo "${secs_of[$mode]}" | median)
    line="# $mode: runs${secs_of[$mode]} s, median $m s ($(awk -v n="$njobs" -v m="$m" 'BEGIN { printf "%.2f", n / m }') jobs/s)"
    if [ -n "$base" ]; then
        line="$line; median / none's median $(awk -v a="$m" -v b="$base" 'BEGIN { printf "%.3f", a / b }'), runs / none's median$(for s in ${secs_of[$mode]}; do awk -v a="$s" -v b="$base" 'BEGIN { printf " %.3f", a / b }'; done)"
    fi
    echo "$line"
done
finish
