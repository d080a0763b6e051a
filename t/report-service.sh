#!/bin/bash
# Hours lost through attribd, without a cluster: a job record with its GPU
# count (the examples' job 4242, 4 GPUs, 08:00:00 to 08:14:07) is
# attributed and stored with its start, GPUs and partition, which attrib
# report sums: 847 s x 4 GPUs = 0.941 GPU-hours; a record without gpus is
# counted as unknown; and /metrics shows the GPU-hours lost of the store's
# results by domain (computed as attribd starts, then once a minute).
set -u
A=${ATTRIB:-./attrib}
SRC=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$SRC/t/lib/check.sh"
for c in curl python3; do
	command -v "$c" >/dev/null || skip "no $c"
done
T=$(mktemp -d /tmp/attrib-report-XXXXXX)
spid=''
cleanup() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
. "$SRC/t/lib/service.sh"
export SLURM_CONF=$T/no-slurm.conf
port=$(free_port $((23000 + $$ % 20000)))
[ -n "$port" ] || skip "no free port"
URL=http://127.0.0.1:$port
mkdir -p "$T/spool/jobs"
cat >"$T/attrib.conf" <<EOF
SpoolDir = $T/spool
StateDir = $T/state
RulesDir = $SRC/rules
Listen = 127.0.0.1:$port
BundleDeadline = 1
ReconcileInterval = 0
LogFile = $T/attrib.log
ReportWindow = 36500d
EOF
C=(--config "$T/attrib.conf")
mkdir -p "$T/state"

# a store with one result of each domain before attribd starts: UserCode
# 2 GPUs x 1.5 h = 3, InfraNet 8 x 0.25 h = 2, SchedTimeLimit 1 x 1 h = 1,
# Pass 8 x 1 h (not lost)
"$A" drain 1 "${C[@]}" >/dev/null 2>&1 # creates the store
python3 - "$T/state/attrib.db" <<'EOF'
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
now = int(time.time())
for job, sub, gpus, secs in (("1", "UserCode", 2, 5400), ("2", "InfraNet", 8, 900),
                             ("3", "SchedTimeLimit", 1, 3600), ("4", "Pass", 8, 3600)):
    db.execute("INSERT INTO results(job_id, attempt, sub_domain, created, result_json, ended, started, gpus,"
               " vouched) VALUES (?, 0, ?, ?, '{}', ?, ?, ?, 1)", (job, sub, now, now - 60, now - 60 - secs, gpus))
db.commit()
EOF
start || { cat "$T/serve.err"; skip "attribd does not start"; }
curl -s "$URL/metrics" >"$T/metrics"
gauge() { sed -n "s/^attrib_gpu_hours_lost{domain=\"$1\"} //p" "$T/metrics"; }
check "/metrics: the GPU-hours lost by domain, from the store" \
	test "$(gauge infra) $(gauge user) $(gauge scheduler) $(gauge unknown)" = "2.000 3.000 1.000 0.000"
check "/metrics: the failed jobs of the window" grep -qx 'attrib_gpu_hours_lost_jobs 3' "$T/metrics"

# the records: 4242 with its GPUs, 4243 without
record() { # JOB [GPUS]
	python3 - "$SRC/examples/xid149-nvlink/job.json" "$@" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
r["job_id"] = sys.argv[2]
r["attempt"] = 0
if len(sys.argv) > 3:
    r["gpus"] = int(sys.argv[3])
print(json.dumps(r))
EOF
}
record 4242 4 >"$T/spool/jobs/.4242.0.json.tmp" && mv "$T/spool/jobs/.4242.0.json.tmp" "$T/spool/jobs/4242.0.json"
record 4243 >"$T/spool/jobs/.4243.0.json.tmp" && mv "$T/spool/jobs/.4243.0.json.tmp" "$T/spool/jobs/4243.0.json"
both_stored() { "$A" show 4243 "${C[@]}" >/dev/null 2>&1 && "$A" show 4242 "${C[@]}" >/dev/null 2>&1; }
check "both jobs are stored" wait_for 120 both_stored
"$A" report --since 2026-11-29 --until 2026-11-30 --by partition --json "${C[@]}" >"$T/r.json"
check "report: 4242's 847 s x 4 GPUs, 4243 without a GPU count, in partition gpu" \
	test "$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
print(r["jobs"], r["gpu_hours"], r["unknown_gpus"], [(g["key"], g["jobs"], g["gpu_hours"]) for g in r["groups"]])' "$T/r.json")" \
	= "2 0.941 1 [('gpu', 2, 0.941)]"
finish
