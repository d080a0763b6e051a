#!/bin/bash
# jobcomp/attrib and spank attrib on the real test cluster (t/cluster).
#
# Uses the plugins built in the build tree (plugin/.libs/jobcomp_attrib.so,
# plugin/.libs/spank_attrib.so; it builds nothing), starts the cluster with
# JobCompType=jobcomp/attrib, JobCompLoc=<tmp>/spool and a plugstack.conf
# that loads spank_attrib.so with spool=<tmp>/node, runs a 3-node job whose
# rank 4 of 6 exits 3, a job that completes, a running job that is cancelled,
# a held job that is cancelled before it starts, a 2-task job array and a job
# that is requeued once (two attempts), and checks the job records (against
# sacct too, and std_out/std_err against the files Slurm wrote), the task
# records of every rank, the file modes, and the daemons' logs. Stops the
# cluster.
#
# The nodes share this machine's file system (each slurmd has its own mount
# namespace, but nothing is mounted over /tmp), so the three nodes' task
# records land in the same <tmp>/node/JOBID/ directory.
#
# Needs root. Last line: "N passed, N failed"; exit 0 iff none failed,
# 77 (skip) when not root or the plugins are not built.
#
#   ATTRIB_BUILDDIR      build tree holding plugin/.libs  [the source tree]
#   ATTRIB_CLUSTER_DIR   cluster state dir [/tmp/attrib-cluster-plugin]
#   ATTRIB_PLUGIN_KEEP=1 keep the temporary directory (records, outputs)
#   ATTRIB_CLUSTER_WAIT  seconds to wait for another test cluster to stop [900]
set -uo pipefail

[ "${ATTRIB_LIVE_TESTS:-0}" = 1 ] || { echo "SKIP: set ATTRIB_LIVE_TESTS=1 to run on the test cluster"; exit 77; }

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cluster=$here/cluster/cluster.sh
builddir=${ATTRIB_BUILDDIR:-$top}
libs=$(cd "$builddir/plugin/.libs" 2>/dev/null && pwd) || libs=
export ATTRIB_CLUSTER_DIR=${ATTRIB_CLUSTER_DIR:-/tmp/attrib-cluster-plugin}
D=$ATTRIB_CLUSTER_DIR
. "$top/t/lib/check.sh"
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

if [ "$(id -u)" != 0 ]; then
    echo "# plugin-jobcomp: needs root; skipped"
    exit 77
fi
if [ -z "$libs" ] || [ ! -f "$libs/jobcomp_attrib.so" ] || [ ! -f "$libs/spank_attrib.so" ]; then
    echo "# plugin-jobcomp: $builddir/plugin/.libs/{jobcomp,spank}_attrib.so not built; skipped"
    exit 77
fi
if ! command -v python3 >/dev/null; then
    bad "python3 (reads the JSON records) is installed"
    finish
fi

tmp=$(mktemp -d /tmp/attrib-plugin-test.XXXXXX)
chmod 0755 "$tmp"
spool=$tmp/spool    # JobCompLoc (created by the plugin)
nodespool=$tmp/node # spank spool (created by the plugin)
wd=$tmp/wd          # the jobs' working directory
mkdir -p "$wd/logs"
cat >"$tmp/plugstack.conf" <<EOF
required $libs/spank_attrib.so spool=$nodespool
EOF

cleanup() {
    "$cluster" stop >/dev/null 2>&1 || true
    if [ "${ATTRIB_PLUGIN_KEEP:-0}" = 1 ]; then echo "# kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

. "$top/t/cluster/lib.sh"	# (its sacct_final is replaced below by a fuller one)

# ---- helpers --------------------------------------------------------------------
# jget FILE EXPR: print a field of a JSON file (python expression on "r");
# lists and objects as compact JSON, strings bare, null as "null"
jget() {
    python3 - "$1" "$2" <<'EOF' 2>/dev/null
import json, os, sys
r = json.load(open(sys.argv[1]))
v = eval(sys.argv[2], {"r": r, "os": os})
print(v if isinstance(v, str) else json.dumps(v, separators=(",", ":")))
EOF
}
# jis FILE EXPR EXPECTED: check, with a diagnostic
jis() {
    local got
    got=$(jget "$1" "$2")
    [ "$got" = "$3" ] && return 0
    echo "#   $1: $2 is '$got', expected '$3'" >&2
    return 1
}
# jall FILE EXPR EXPECTED [EXPR EXPECTED ...]: every pair holds
jall() {
    local f=$1 rc=0
    shift
    while [ $# -ge 2 ]; do
        jis "$f" "$1" "$2" || rc=1
        shift 2
    done
    return $rc
}
wait_file() { # path [timeout]
    local t0 limit=${2:-120}
    t0=$(date +%s)
    until [ -f "$1" ]; do
        [ $(($(date +%s) - t0)) -ge "$limit" ] && return 1
        sleep 0.2
    done
}
sacct_final() { # jobid: "State|ExitCode|DerivedExitCode|Timelimit|NodeList" once final
    local j=$1 t0 line
    t0=$(date +%s)
    while :; do
        line=$(sacct -n -P -X -j "$j" -o State,ExitCode,DerivedExitCode,Timelimit,NodeList,JobName 2>/dev/null | head -n1 || true)
        case ${line%%|*} in
        COMPLETED | FAILED | CANCELLED* | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY)
            case $line in *'|allocation') ;; *) echo "${line%|*}"; return 0 ;; esac ;;
        esac
        if [ $(($(date +%s) - t0)) -ge 120 ]; then echo "${line:-<no sacct record>}"; return 1; fi
        sleep 0.5
    done
}
wait_state() { # jobid state
    local _
    for _ in $(seq 1 600); do # (>= 120 s)
        [ "$(squeue -h -j "$1" -o %T 2>/dev/null || true)" = "$2" ] && return 0
        sleep 0.2
    done
    return 1
}
mode_of() { stat -c %a "$1" 2>/dev/null; }
nfiles() { # existing files among the arguments
    local n=0 f
    for f in "$@"; do [ -e "$f" ] && n=$((n + 1)); done
    echo "$n"
}
# the record agrees with sacct on state, exit codes, time limit
agrees_with_sacct() { # jobid record
    local s st ec dec tl
    s=$(sacct_final "$1") || { echo "#   sacct: $s" >&2; return 1; }
    IFS='|' read -r st ec dec tl _ <<<"$s"
    jis "$2" 'r["state"]' "${st%% *}" && jis "$2" 'r["exit_code"]' "$ec" &&
        jis "$2" 'r["derived_exit_code"]' "$dec" && jis "$2" 'r["time_limit"]' "$tl"
}


# ---- start ----------------------------------------------------------------------
export ATTRIB_JOBCOMP=jobcomp/attrib
export ATTRIB_PLUGIN_DIR=$libs
export ATTRIB_JOBCOMP_LOC=$spool
export ATTRIB_PLUGSTACK_CONFIG=$tmp/plugstack.conf
wait_cluster_free
t_all=$(now)
t0=$(now)
if ! "$cluster" start; then
    bad "cluster starts with jobcomp/attrib and spank attrib"
    finish
fi
ok "cluster starts with jobcomp/attrib and spank attrib ($(since "$t0") s)"
eval "$("$cluster" env)"
ctld_log=$D/log/slurmctld.log

check "slurmctld logged that jobcomp/attrib loaded" grep -q 'jobcomp/attrib: loaded' "$ctld_log"
check "slurmctld logged where the records go" grep -qF "jobcomp/attrib: job records go to $spool/jobs" "$ctld_log"

# ---- the jobs ---------------------------------------------------------------------
t0=$(now)
# 3 nodes, 6 tasks (block: ranks 0,1 on node-01, 2,3 on node-02, 4,5 on node-03);
# rank 4 exits 3, srun and the script pass it on: FAILED 3:0
# shellcheck disable=SC2016 # expanded by the job
jf=$(sbatch --parsable -N3 -n6 --gres=gpu:2 --time=10 -J fail3 --chdir="$wd" \
    -o 'logs/%x-%j-%u-%N.out' -e 'logs/%x.%A.%a%%.err' \
    --wrap 'srun -N3 -n6 sh -c "echo rank \$SLURM_PROCID on \$(hostname) gpus \$CUDA_VISIBLE_DEVICES; sleep 1; [ \$SLURM_PROCID -ne 4 ] || exit 3"')
jc=$(sbatch --parsable -N1 -J okjob --chdir="$wd" --wrap 'srun true')
jx=$(sbatch --parsable -N1 -J cancelme --chdir="$wd" -o "$wd/logs/cancel-%j.out" --wrap 'sleep 300')
# a name with a quote, a backslash, a tab and a byte that is not UTF-8
jh=$(sbatch --parsable -H -N1 -J $'held"\\\t\xff' --chdir="$wd" --wrap 'true')
ja=$(sbatch --parsable -a 1-2 -N1 -J arr --chdir="$wd" --wrap 'true')
jr=$(sbatch --parsable --requeue -N1 -J rq --chdir="$wd" --wrap 'sleep 300')
echo "# jobs: failing $jf, completing $jc, cancelled while running $jx," \
    "cancelled while held $jh, array $ja, requeued $jr"
wait_state "$jx" RUNNING && scancel "$jx"
scancel "$jh"

rec() { echo "$spool/jobs/$1.${2:-0}.json"; }
# requeue: attempt 0 ends REQUEUED; Slurm holds the job back (BeginTime +20 min:
# credential lifetime), so start it at once, then cancel attempt 1
# (only once it is PENDING: the requeue sets BeginTime when it completes)
if wait_state "$jr" RUNNING && scontrol requeue "$jr" && wait_file "$(rec "$jr" 0)" 120 &&
    wait_state "$jr" PENDING; then
    scontrol update jobid="$jr" StartTime=now
    wait_state "$jr" RUNNING && scancel "$jr"
else
    echo "# requeue of job $jr did not happen" >&2
fi
for j in "$jf" "$jc" "$jx" "$jh" "$jr"; do
    wait_file "$(rec "$j")" 120 || echo "# no record for job $j after 120 s" >&2
done
wait_file "$(rec "$jr" 1)" 120 || echo "# no record for job $jr attempt 1 after 120 s" >&2
ok "jobs ran and ended ($(since "$t0") s)"

# ---- job records --------------------------------------------------------------------
r=$(rec "$jf")
check "failing job: record $jf.0.json written" test -f "$r"
check "failing job: record is valid JSON, schema attrib.job/v1" jis "$r" 'r["schema"]' attrib.job/v1
check "failing job: job_id, name, partition, cluster" \
    jall "$r" 'r["job_id"]' "$jf" 'r["name"]' fail3 'r["partition"]' gpu 'r["cluster"]' attribtest
check "failing job: state FAILED, exit code 3:0, reason NonZeroExitCode" \
    jall "$r" 'r["state"]' FAILED 'r["exit_code"]' 3:0 'r["reason"]' NonZeroExitCode
check "failing job: nodes expanded" jis "$r" 'r["nodes"]' '["node-01","node-02","node-03"]'
check "failing job: attempt 0, restart_count 0" \
    jall "$r" 'r["attempt"]' 0 'r["restart_count"]' 0
check "failing job: user root, uid 0, gid 0" \
    jall "$r" 'r["user"]' root 'r["uid"]' 0 'r["gid"]' 0
check "failing job: work_dir, batch_host" \
    jall "$r" 'r["work_dir"]' "$wd" 'r["batch_host"]' node-01
check "failing job: std_out %x-%j-%u-%N expanded, absolute" \
    jis "$r" 'r["std_out"]' "$wd/logs/fail3-$jf-root-node-01.out"
check "failing job: std_err %A.%a%% expanded as slurmstepd does" \
    jis "$r" 'r["std_err"]' "$wd/logs/fail3.$jf.4294967294%.err"
check "failing job: std_out names the file Slurm wrote" \
    grep -q "^rank 4 on node-03" "$(jget "$r" 'r["std_out"]')"
check "failing job: std_err names the file Slurm wrote" test -f "$(jget "$r" 'r["std_err"]')"
check "failing job: times are RFC 3339 UTC, submit <= start <= end" \
    python3 -c "
import json, sys, datetime
r = json.load(open('$r'))
f = lambda k: datetime.datetime.strptime(r[k], '%Y-%m-%dT%H:%M:%SZ')
sys.exit(not (f('submit_time') <= f('start_time') <= f('end_time')))"
check "failing job: time_limit 00:10:00" jis "$r" 'r["time_limit"]' 00:10:00
check "failing job: record agrees with sacct (state, exit codes, time limit)" agrees_with_sacct "$jf" "$r"

r=$(rec "$jc")
check "completed job: COMPLETED 0:0 on one node" \
    jall "$r" 'r["state"]' COMPLETED 'r["exit_code"]' 0:0 'len(r["nodes"])' 1
check "completed job: default output slurm-%j.out in the working directory" \
    jall "$r" 'r["std_out"]' "$wd/slurm-$jc.out" 'r["std_err"]' "$wd/slurm-$jc.out" 'os.path.isfile(r["std_out"])' true
check "completed job: time_limit UNLIMITED (partition MaxTime)" jis "$r" 'r["time_limit"]' UNLIMITED
check "completed job: record agrees with sacct" agrees_with_sacct "$jc" "$r"

r=$(rec "$jx")
# (the job's exit code stays 0:0: the signal shows in the batch step's, below)
check "cancelled job: state CANCELLED, exit code 0:0" \
    jall "$r" 'r["state"]' CANCELLED 'r["exit_code"]' 0:0
check "cancelled job: record agrees with sacct" agrees_with_sacct "$jx" "$r"

r=$(rec "$jh")
check "held job: a hostile name is strict UTF-8 JSON, invalid byte as U+FFFD" \
    python3 -c "
import json, sys
r = json.loads(open('$r', 'rb').read().decode('utf-8', 'strict'))
sys.exit(r['name'] != 'held\"\\\\\t\ufffd')"
check "held job cancelled before it started: CANCELLED, no nodes, start = end" \
    jall "$r" 'r["state"]' CANCELLED 'r["nodes"]' '[]' 'r["start_time"] == r["end_time"]' true 'r["batch_host"]' null

check "array job: one record per task, std_out slurm-%A_%a.out names the file Slurm wrote" \
    python3 - "$spool/jobs" "$ja" "$wd" <<'EOF'
import glob, json, os, sys
d, aj, wd = sys.argv[1], int(sys.argv[2]), sys.argv[3]
recs = [json.load(open(f)) for f in glob.glob(d + "/*.json")]
recs = [r for r in recs if r.get("array_job_id") == aj]
ok = sorted(r["array_task_id"] for r in recs) == [1, 2]
for r in recs:
    want = "%s/slurm-%d_%d.out" % (wd, aj, r["array_task_id"])
    if r["std_out"] != want or not os.path.isfile(want) or r["state"] != "COMPLETED":
        print("#   job %s: std_out %s (want %s), state %s" % (r["job_id"], r["std_out"], want, r["state"]),
              file=sys.stderr)
        ok = False
if not ok:
    print("#   array records: %r" % recs, file=sys.stderr)
sys.exit(not ok)
EOF
check "requeued job: attempt 0 record: REQUEUED, attempt 0" \
    jall "$(rec "$jr" 0)" 'r["state"]' REQUEUED 'r["attempt"]' 0 'len(r["nodes"])' 1
check "requeued job: attempt 1 record" \
    jall "$(rec "$jr" 1)" 'r["state"]' CANCELLED 'r["attempt"]' 1 'r["restart_count"]' 1
check "jobs/ is mode 700, records 600, no temporary file left" \
    sh -c "[ '$(mode_of "$spool/jobs")' = 700 ] && [ \"\$(stat -c %a '$spool/jobs/'*.json | sort -u)\" = 600 ] && ! ls -A '$spool/jobs' | grep -q '^\\.'"

echo "# job records checked ($(since "$t0") s after the jobs were submitted)"
t0=$(now)
# ---- task records ------------------------------------------------------------------------
tdir=$nodespool/$jf
ranks_ok() { # one python for the six files (diagnostics on stderr)
    python3 - "$tdir" "$jf" <<'EOF'
import json, sys
tdir, job = sys.argv[1], sys.argv[2]
bad = 0
for rank in range(6):
    f = "%s/task-0-%d@node-0%d.json" % (tdir, rank, rank // 2 + 1)
    try:
        r = json.load(open(f))
    except Exception as e:
        print("#   %s: %s" % (f, e), file=sys.stderr)
        bad = 1
        continue
    want = {"rank": rank, "node": "node-0%d" % (rank // 2 + 1), "local_rank": rank % 2,
            "step": "0", "exit_code": 3 if rank == 4 else 0, "signal": 0, "gpu": "0,1",
            "job_id": job}
    for k, v in want.items():
        if r.get(k) != v:
            print("#   %s: %s is %r, expected %r" % (f, k, r.get(k), v), file=sys.stderr)
            bad = 1
    if not (isinstance(r.get("pid"), int) and r["pid"] > 1 and r.get("start_time") and
            r.get("exit_time", "") >= r["start_time"]):
        print("#   %s: pid/start_time/exit_time: %r" % (f, r), file=sys.stderr)
        bad = 1
sys.exit(bad)
EOF
}
check "task records: step 0 has one file per rank (6)" \
    test "$(nfiles "$tdir"/task-0-*@node-0?.json)" = 6
check "task records: rank -> node map, local rank, GPUs, pid, exit code 3 on rank 4 only" ranks_ok
check "task records: the batch script's record (step batch, node-01, exit 3)" \
    jall "$tdir/task-batch-0@node-01.json" 'r["node"]' node-01 'r["exit_code"]' 3 'r["step"]' batch
check "task records: rank 4's exit time within the job's run" \
    python3 -c "
import json, sys
t = json.load(open('$tdir/task-0-4@node-03.json')); j = json.load(open('$(rec "$jf")'))
sys.exit(not (j['start_time'] <= t['exit_time'] <= j['end_time']))"
check "task records: spool and job dir mode 700, files 600, no temporary file" \
    sh -c "[ '$(mode_of "$nodespool")' = 700 ] && [ '$(mode_of "$tdir")' = 700 ] && [ \"\$(stat -c %a '$tdir'/*.json | sort -u)\" = 600 ] && ! ls -A '$tdir' | grep -q '^\\.'"
check "task records: the completed job's srun step and batch script" \
    sh -c "ls '$nodespool/$jc'/task-0-0@node-0?.json && ls '$nodespool/$jc'/task-batch-0@node-0?.json" >/dev/null
check "task records: the cancelled job's batch script (killed: signal 9 or 15, or the shell's exit 137 or 143; no GPU: gpu null)" \
    jall "$(ls "$nodespool/$jx"/task-batch-0@node-0?.json | head -n 1)" 'r["signal"] in (9, 15) or r["exit_code"] in (137, 143)' true 'r["gpu"]' null
check "task records: none for the job that never started" test ! -e "$nodespool/$jh"

echo "# task records checked ($(since "$t0") s)"
# ---- logs ---------------------------------------------------------------------------------
check "no jobcomp/attrib error in slurmctld.log (so far)" sh -c "! grep -E 'error: .*jobcomp/attrib' '$ctld_log'"
check "no spank/attrib error in the slurmd logs" sh -c "! grep -hE 'spank/attrib|spank_attrib' '$D'/log/slurmd-node-*.log | grep -i error"
check "slurmd loaded spank_attrib.so (no plugstack error)" \
    sh -c "! grep -hiE 'spank.*(failed|error)' '$D'/log/slurmd-node-*.log"

# ---- the SPANK plugin never fails a job ---------------------------------------------
t0=$(now)
job_ends() { # jobid: its record appears, with state COMPLETED
    wait_file "$(rec "$1")" 120 && jis "$(rec "$1")" 'r["state"]' COMPLETED
}
# a symbolic link where the job's directory would be (the spool is root's
# 0700, so only root could do this; O_NOFOLLOW refuses it all the same)
js=$(sbatch --parsable -H -N1 -J symlink --chdir="$wd" --wrap 'srun true')
mkdir -p "$tmp/elsewhere"
ln -s "$tmp/elsewhere" "$nodespool/$js"
scontrol release "$js"
check "job $js with a symlink as its task directory: COMPLETED" job_ends "$js"
check "job $js: nothing written through the symlink" test -z "$(ls -A "$tmp/elsewhere")"
check "job $js: the refusal is logged by slurmstepd" \
    grep -qF "spank/attrib: $nodespool/$js is a symbolic link: refused" "$D"/log/slurmd-node-01.log
# an unusable spool (a path through a regular file): new steps read plugstack.conf anew
touch "$tmp/afile"
echo "required $libs/spank_attrib.so spool=$tmp/afile/node" >"$tmp/plugstack.conf"
jb=$(sbatch --parsable -N1 -J badspool --chdir="$wd" --wrap 'srun true')
check "job $jb with an unusable spool: COMPLETED" job_ends "$jb"
check "job $jb: the error is logged by slurmstepd" \
    grep -qF "spank/attrib: spool $tmp/afile/node: open afile (in $tmp/afile/node): Not a directory" \
        "$D"/log/slurmd-node-01.log
echo "required $libs/spank_attrib.so spool=$nodespool" >"$tmp/plugstack.conf"
echo "# spank failure cases ($(since "$t0") s)"

# ---- jobcomp/attrib: an unusable JobCompLoc, then a good one (scontrol reconfigure) ---------
t0=$(now)
nlines() { grep -cF "$1" "$ctld_log" 2>/dev/null; }
wait_log() { # fixed-string count: wait until the log holds more than count lines with it
    local _
    for _ in $(seq 1 600); do # (>= 120 s)
        [ "$(nlines "$1")" -gt "$2" ] && return 0
        sleep 0.2
    done
    return 1
}
job_gone() { # jobid: wait until it has ended
    local _ st
    for _ in $(seq 1 600); do # (>= 120 s)
        st=$(squeue -h -j "$1" -o %T 2>/dev/null || true)
        case $st in '' | COMPLETED | FAILED | CANCELLED) return 0 ;; esac
        sleep 0.2
    done
    return 1
}
set_loc() { # JobCompLoc: rewrite it in slurm.conf and reconfigure
    local n
    n=$(nlines "jobcomp/attrib: job records go to $1/jobs")
    sed -i "s|^JobCompLoc=.*|JobCompLoc=$1|" "$D/etc/slurm.conf"
    scontrol reconfigure && wait_log "jobcomp/attrib: job records go to $1/jobs" "$n"
}
check "reconfigure to JobCompLoc=$tmp/afile/spool (unusable) is logged" set_loc "$tmp/afile/spool"
n=$(nlines "job records are not written")
jq=$(sbatch --parsable -N1 -J noloc --chdir="$wd" --wrap true)
check "job $jq ends while JobCompLoc is unusable" job_gone "$jq"
check "the write error is logged by slurmctld" wait_log "job records are not written" "$n"
check "slurmctld still answers" sh -c 'scontrol ping >/dev/null'
check "reconfigure back to JobCompLoc=$spool is logged" set_loc "$spool"
jq2=$(sbatch --parsable -N1 -J backloc --chdir="$wd" --wrap true)
check "job $jq2: its record is written again" job_ends "$jq2"
check "job $jq's record was not written anywhere" test ! -e "$(rec "$jq")"
echo "# jobcomp failure case ($(since "$t0") s)"

# ---- stop ----------------------------------------------------------------------------------
t0=$(now)
"$cluster" stop >/dev/null 2>&1
check "cluster stops ($(since "$t0") s)" true
# written: 4 jobs, 2 array tasks, 2 attempts of the requeued one, 3 in the failure cases
# Slurm 24.11's reconfigure starts a new slurmctld (the plugin is loaded
# again, the old process's counts are not logged): then the last process's
if [ "$(grep -c 'jobcomp/attrib: loaded' "$ctld_log")" -le 1 ]; then
    fini_counts='11 job records written, 1 not written, 0 dropped'
else
    fini_counts='[0-9]* job records written, [0-9]* not written, 0 dropped'
fi
check "slurmctld ran fini: ${fini_counts//\[0-9\]\*/N} (11 written and 1 not, unusable JobCompLoc, over one process)" \
    grep -q "jobcomp/attrib: stopped: $fini_counts" "$ctld_log" ||
    { grep -E 'jobcomp/attrib: stopped|Terminate signal|did not stop' "$ctld_log" "$ATTRIB_CLUSTER_DIR"/log/*.log 2>/dev/null |
          tail -5 | sed 's/^/#   /'; }
echo "# total $(since "$t_all") s"
finish
