#!/bin/bash
# attrib-collect on the nodes as they are (issue 13, collector side), with
# a journald of the test's own (a private mount namespace: tmpfs over /run
# and over /var/log, so the node has the journal and no log file, as a
# stock Debian 12 node), a private munged and the real `attrib serve`:
#   801  LogSources unset (auto): node-01's kernel Xid 79, which only the
#        journal holds, reaches the diagnosis (InfraHW, node-01); the absent
#        default files are no gap; node-02 names a file it lacks and has no
#        kernel log: "missing" in the bundle's coverage, in the stored
#        result and in /metrics by source (log_file, kernel_log)
#   802  one NodeSpoolDir shared by three nodes: each node's Epilog sends
#        only its own task records (task-STEP-RANK@NODE.json), leaves the
#        others', and says the spool is shared (coverage, log)
#   803  the job's output only on the batch host (a mount the service's
#        namespace lacks): its collector reads the end as the job's user
#        (nobody), refuses a symlinked std_err, and sends it (origin
#        job-output); the service, which cannot see the path, stores app/
#        and the UserCode diagnosis
#        (what doc/admin-guide.md's troubleshooting shows: attrib show's
#        Missing lines, the app counter, the collector's journal lines)
#   all  the collector's lines are in the journal (identifier
#        attrib-collect) when no LogFile is set
# Needs root, unshare, systemd-journald, systemd-journal-remote, munged,
# munge, curl, python3: skipped (77) otherwise.
set -u

A=$(cd "$(dirname "${ATTRIB:-./attrib}")" && pwd)/$(basename "${ATTRIB:-./attrib}")
SRC=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
COLLECT=${ATTRIB_COLLECT:-$(dirname "$A")/epilog/attrib-collect}
JOURNALD=/lib/systemd/systemd-journald
JR=/lib/systemd/systemd-journal-remote
export PATH=$PATH:/usr/sbin:/sbin
. "$SRC/t/lib/check.sh"
. "$SRC/t/lib/service.sh"

[ "$(id -u)" = 0 ] || skip "needs root"
[ -x "$COLLECT" ] || skip "no $COLLECT"
[ -x "$JOURNALD" ] || skip "no $JOURNALD"
[ -x "$JR" ] || skip "no $JR"
[ -r /etc/machine-id ] || skip "no /etc/machine-id"
for c in unshare journalctl munged munge curl python3; do
	command -v "$c" >/dev/null || skip "no $c"
done
if [ -z "${ATTRIB_NODE_NS:-}" ]; then
	unshare -m --propagation private true 2>/dev/null || skip "no mount namespace here"
	ATTRIB_NODE_NS=1 exec unshare -m --propagation private "$0" "$@"
fi

T=$(mktemp -d /tmp/attrib-node-XXXXXX)
chmod 0711 "$T"
spid='' mpid='' jpid=''
cleanup() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
	[ -n "$jpid" ] && kill "$jpid" 2>/dev/null && wait "$jpid" 2>/dev/null
	[ -n "$mpid" ] && kill "$mpid" 2>/dev/null
	sleep 0.2
	rm -rf "$T"
}
trap cleanup EXIT

# ---- the node: a journald, no log files ----
mount -t tmpfs -o mode=0755 tmpfs /run || skip "cannot mount a tmpfs on /run"
mount -t tmpfs -o mode=0755 tmpfs /var/log || skip "cannot mount a tmpfs on /var/log"
mkdir -p /run/systemd/journal /run/log/journal
printf '[Journal]\nStorage=volatile\nReadKMsg=no\nForwardToSyslog=no\nForwardToKMsg=no\nForwardToConsole=no\nForwardToWall=no\nRateLimitBurst=0\n' \
	>"$T/journald.conf"
mount --bind "$T/journald.conf" /etc/systemd/journald.conf || skip "cannot replace journald.conf here"
SYSTEMD_LOG_TARGET=console "$JOURNALD" >"$T/journald.log" 2>&1 &
jpid=$!
wait_for 60 test -S /run/systemd/journal/socket
[ -S /run/systemd/journal/socket ] || { cat "$T/journald.log"; skip "systemd-journald does not start here"; }

mkdir -p "$T/munge" && chmod 0711 "$T/munge"
dd if=/dev/urandom of="$T/munge/key" bs=1024 count=1 2>/dev/null
chmod 0600 "$T/munge/key"
SOCK=$T/munge/sock
munged --socket="$SOCK" --key-file="$T/munge/key" --pid-file="$T/munge/pid" \
	--log-file="$T/munge/log" --seed-file="$T/munge/seed" || skip "munged does not start"
wait_for 60 test -S "$SOCK"
mpid=$(cat "$T/munge/pid")
export ATTRIB_MUNGE_SOCKET=$SOCK
export SLURM_CONF=$T/no-slurm.conf
port=$(free_port $((23000 + $$ % 20000)))
[ -n "$port" ] || skip "no free port"
mkdir -p "$T/spool/jobs" "$T/out"
cat >"$T/attrib.conf" <<EOF
SpoolDir = $T/spool
StateDir = $T/state
RulesDir = $SRC/rules
Listen = 127.0.0.1:$port
BundleDeadline = 60
ReconcileInterval = 0
LogFile = $T/attrib.log
NodeAddresses = node-01=127.0.0.1, node-02=127.0.0.1, node-03=127.0.0.1
EOF
URL=http://127.0.0.1:$port
if ! start; then
	bad "attrib serve starts"
	cat "$T/serve.err" "$T/attrib.log" 2>/dev/null | sed 's/^/#   /'
	finish
fi

NOW=$(date +%s)
JS=$((NOW - 300)) JE=$((NOW + 30))
iso() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
# the kernel's Xid as journald records it (_TRANSPORT=kernel), in the machine's journal directory
python3 - "$NOW" >"$T/export.txt" <<'EOF'
import sys
us = (int(sys.argv[1]) - 100) * 1000000
print("__REALTIME_TIMESTAMP=%d\n__MONOTONIC_TIMESTAMP=%d\n_BOOT_ID=0123456789abcdef0123456789abcdef" % (us, us // 1000))
print("_HOSTNAME=node-01\nSYSLOG_IDENTIFIER=kernel\nSYSLOG_FACILITY=0\n_TRANSPORT=kernel\n"
      "MESSAGE=NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n")
EOF
MID=$(cat /etc/machine-id)
mkdir -p "/run/log/journal/$MID"
"$JR" -o "/run/log/journal/$MID/kernel-test.journal" "$T/export.txt" >/dev/null 2>&1
check "the journal holds the kernel's Xid" \
	sh -c "journalctl -D /run/log/journal -q -o cat _TRANSPORT=kernel | grep -q 'Xid (PCI:0000:3b:00): 79'"
: >"$T/empty-kmsg"

# node NODE [attrib.conf lines...]: the node's attrib.conf (no LogFile: the journal)
node() {
	local n=$1
	shift
	mkdir -p "$T/$n"
	printf 'ServiceURL = %s\nNodeSpoolDir = %s\nCollectTimeout = 5\n' "$URL" "${SPOOL:-$T/$n/spool}" >"$T/$n/attrib.conf"
	for l in "$@"; do echo "$l" >>"$T/$n/attrib.conf"; done
}
# epilog JOBID NODE [env...]
epilog() {
	local id=$1 n=$2
	shift 2
	env -i PATH=/usr/bin:/bin ATTRIB_CONF="$T/$n/attrib.conf" ATTRIB_MUNGE_SOCKET="$SOCK" TZ=UTC \
		SLURM_JOB_ID="$id" SLURMD_NODENAME=$n SLURM_JOB_START_TIME=$JS SLURM_JOB_END_TIME=$JE "$@" \
		"$COLLECT" </dev/null >/dev/null 2>"$T/$n/stderr"
}
# record JOBID NODES...: the job's record for jobcomp's spool
record() {
	local id=$1 nodes
	shift
	nodes=$(printf '"%s",' "$@")
	printf 'Traceback (most recent call last):\nKeyError: 1\n' >"$T/out/slurm-$id.out"
	printf '{"schema":"attrib.job/v1","job_id":"%s","cluster":"lab","user":"root","nodes":[%s],"start_time":"%s","end_time":"%s","state":"FAILED","exit_code":"1:0","uid":0,"gid":0,"attempt":0,"std_out":"%s"}\n' \
		"$id" "${nodes%,}" "$(iso $JS)" "$(iso $JE)" "$T/out/slurm-$id.out" >"$T/spool/jobs/.$id.0.json.tmp"
	mv "$T/spool/jobs/.$id.0.json.tmp" "$T/spool/jobs/$id.0.json"
}
stored() { "$A" show "$1" --json --config "$T/attrib.conf" >"$T/$1.json" 2>/dev/null; }
result() {
	wait_for 120 stored "$1" && return 0
	echo "# job $1: no stored result"
	tail -n 5 "$T/attrib.log" | sed 's/^/#   /'
	return 1
}

# ---- 801: the defaults on a journal-only node; a source a node lacks ----
node node-01
node node-02 "LogSources = /var/log/kern.log"
record 801 node-01 node-02
epilog 801 node-01 ATTRIB_COLLECT_KMSG="$T/empty-kmsg"
epilog 801 node-02 ATTRIB_COLLECT_KMSG="$T/no-such-kmsg"
result 801 || bad "job 801 diagnosed"
check "801: the journal's Xid reaches the diagnosis with the default LogSources: InfraHW, node-01, xid.79" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
xids = [s["code"] for s in r["symptoms"] if s["code"].startswith("xid.")]
got = (r["sub_domain"], r["culprit_nodes"], xids)
print("# %s" % (got,))
sys.exit(0 if got == ("InfraHW", ["node-01"], ["xid.79"]) else 1)' "$T/801.json"
check "801: node-01's absent default files are no gap (no missing or error entry of node-01)" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
bad = [c for c in r["coverage"] if c["source"].startswith("nodes/node-01") and c["status"] in ("missing", "error")]
print("# %s" % bad) if bad else None
sys.exit(1 if bad else 0)' "$T/801.json"
check "801: node-02's configured /var/log/kern.log and its kernel log: missing, in the stored result" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
c = {x["source"]: x for x in r["coverage"]}
k, f = c.get("nodes/node-02:kernel-log"), c.get("nodes/node-02:/var/log/kern.log")
ok = k and k["status"] == "missing" and "kernel log: not found on node-02" in k["detail"] and f and f["status"] == "missing" \
    and "not found on node-02" in f["detail"]
print("# %s" % r["coverage"]) if not ok else None
sys.exit(0 if ok else 1)' "$T/801.json"
"$A" show 801 --config "$T/attrib.conf" >"$T/801.txt" 2>&1
check "801: attrib show: nodes/node-02:kernel-log (missing): kernel log: not found on node-02 (as the guide's troubleshooting says)" \
	grep -Eq '^(Missing)? +nodes/node-02:kernel-log \(missing\): kernel log: not found on node-02 ' "$T/801.txt"
curl -s "$URL/metrics" >"$T/metrics"
check "801: /metrics counts the missing kernel log and log file by source" sh -c "
grep -Eq '^attrib_coverage_gaps_total\{source=\"kernel_log\",status=\"missing\"\} 1$' '$T/metrics' &&
grep -Eq '^attrib_coverage_gaps_total\{source=\"log_file\",status=\"missing\"\} 1$' '$T/metrics'"
check "801: the collector's lines are in the journal, identifier attrib-collect, not only on stderr" \
	sh -c "journalctl -D /run/log/journal -q -o cat --identifier attrib-collect | grep -q 'job 801: kernel-log: missing: kernel log: not found on node-02'"
check "801: with the job in a field of their own (SLURM_JOB_ID)" \
	sh -c "journalctl -D /run/log/journal -q -o cat SLURM_JOB_ID=801 | grep -q '/var/log/kern.log'"

# ---- 802: one spool for three nodes ----
SPOOL=$T/shared
mkdir -p "$SPOOL/802" && chmod 0700 "$SPOOL" "$SPOOL/802"
e=$(iso $((NOW - 20)))
for r in 0 1 2 3 4 5; do
	n=node-0$((r / 2 + 1))
	# as the SPANK plugin names them
	printf '{"rank":%d,"node":"%s","local_rank":%d,"step":"0","gpu":"0","pid":%d,"exit_code":%d,"signal":0,"exit_time":"%s"}\n' \
		$r $n $((r % 2)) $((100 + r)) $([ $r = 3 ] && echo 1 || echo 0) "$e" >"$SPOOL/802/task-0-$r@$n.json"
	chmod 0600 "$SPOOL/802/task-0-$r@$n.json"
done
record 802 node-01 node-02 node-03
for n in node-01 node-02 node-03; do node $n "LogSources = kmsg"; done
for n in node-01 node-02 node-03; do
	env -i PATH=/usr/bin:/bin ATTRIB_CONF="$T/$n/attrib.conf" TZ=UTC SLURM_JOB_START_TIME=$JS SLURM_JOB_END_TIME=$JE \
		ATTRIB_COLLECT_KMSG="$T/empty-kmsg" "$COLLECT" --job 802 --node $n --print >"$T/$n/802.json" 2>/dev/null
done
check "802: each node's bundle carries only its own task records" python3 - "$T" <<'EOF'
import json, sys
for k in (1, 2, 3):
    b = json.load(open("%s/node-0%d/802.json" % (sys.argv[1], k)))
    got = sorted((r["rank"], r["node"]) for r in b["ranks"])
    want = [(r, "node-0%d" % k) for r in (2 * k - 2, 2 * k - 1)]
    if got != want:
        print("# node-0%d: %s, want %s" % (k, got, want)); sys.exit(1)
    if not any(c["source"] == "node-spool" and "shared" in c["detail"] for c in b["coverage"]):
        print("# node-0%d: no node-spool entry: %s" % (k, b["coverage"])); sys.exit(1)
EOF
epilog 802 node-01 ATTRIB_COLLECT_KMSG="$T/empty-kmsg"
check "802: node-01's Epilog removed its own records and left the others'" \
	test "$(cd "$SPOOL/802" && ls | sort | paste -sd' ')" = "task-0-2@node-02.json task-0-3@node-02.json task-0-4@node-03.json task-0-5@node-03.json"
epilog 802 node-02 ATTRIB_COLLECT_KMSG="$T/empty-kmsg"
epilog 802 node-03 ATTRIB_COLLECT_KMSG="$T/empty-kmsg"
result 802 || bad "job 802 diagnosed"
check "802: the case has all six ranks, each on its node" python3 -c '
import json, sys
r = json.load(open(sys.argv[1] + "/state/cases/802.0/job.json"))["ranks"]
got = sorted((x["rank"], x["node"]) for x in r)
print("# %s" % got)
sys.exit(0 if got == [(i, "node-0%d" % (i // 2 + 1)) for i in range(6)] else 1)' "$T"
check "802: the shared spool is said in the collector's log (the journal)" \
	sh -c "journalctl -D /run/log/journal -q -o cat SLURM_JOB_ID=802 | grep -q 'NodeSpoolDir $SPOOL is shared with other nodes'"

# ---- 803: the output where the job wrote it, not on the service host ----
SPOOL=
node node-01 "LogSources = kmsg"
node node-02 "LogSources = kmsg"
mkdir -p "$T/home" "$T/nodehome/u" "$T/node-01/spool/803"
chmod 0700 "$T/node-01/spool" "$T/node-01/spool/803"
printf 'step 1 loss 2.3\n[rank0]: Traceback (most recent call last):\n[rank0]:   File "/w/train.py", line 10, in <module>\n[rank0]: KeyError: '"'"'labels'"'"'\n' \
	>"$T/nodehome/u/slurm-803.out"
ln -s /etc/shadow "$T/nodehome/u/err.log"
chown -R 65534:65534 "$T/nodehome/u"
chown -h 65534:65534 "$T/nodehome/u/err.log"
printf '{"rank":0,"node":"node-01","local_rank":0,"step":"batch","gpu":null,"pid":99,"exit_code":1,"signal":0,"exit_time":"%s"}\n' \
	"$(iso $((NOW - 20)))" >"$T/node-01/spool/803/task-batch-0@node-01.json"
# (what the SPANK plugin adds for the batch script: not an array task)
printf '{"job_id":"803","node":"node-01","job_name":"train","array_job_id":0,"array_task_id":4294967294,"slurm_version":%d}\n' \
	$((0x160508)) >"$T/node-01/spool/803/output@node-01.json"
printf '{"schema":"attrib.job/v1","job_id":"803","cluster":"lab","user":"nobody","nodes":["node-01","node-02"],"start_time":"%s","end_time":"%s","state":"FAILED","exit_code":"1:0","uid":65534,"gid":65534,"attempt":0,"work_dir":"%s","std_out":"%s","std_err":"%s","batch_host":"node-01"}\n' \
	"$(iso $JS)" "$(iso $JE)" "$T/home/u" "$T/home/u/slurm-803.out" "$T/home/u/err.log" >"$T/spool/jobs/.803.0.json.tmp"
check "803: the output path does not exist where the service runs" test ! -e "$T/home/u/slurm-803.out"
# node-01 sees the users' file system at $T/home (its own mount namespace)
for n in node-01 node-02; do
	unshare -m --propagation private sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' sh "$T/nodehome" "$T/home" \
		env -i PATH=/usr/bin:/bin ATTRIB_CONF="$T/$n/attrib.conf" TZ=UTC SLURM_JOB_START_TIME=$JS SLURM_JOB_END_TIME=$JE \
		ATTRIB_COLLECT_KMSG="$T/empty-kmsg" SLURM_JOB_UID=65534 SLURM_JOB_GID=65534 SLURM_JOB_USER=nobody \
		SLURM_JOB_WORK_DIR="$T/home/u" SLURM_JOB_STDERR=err.log "$COLLECT" --job 803 --node $n --print >"$T/$n/803.json" 2>/dev/null
done
check "803: node-01's bundle has the output's end (origin job-output, stream std_out), read as nobody; no std_err (a symlink, refused); node-02's has none" python3 - "$T" <<'EOF2'
import json, sys
b = json.load(open(sys.argv[1] + "/node-01/803.json"))
app = [f for f in b["files"] if f["origin"] == "job-output"]
ok = len(app) == 1 and app[0]["stream"] == "std_out" and "KeyError: 'labels'" in app[0]["text"] \
    and app[0]["source"] == sys.argv[1] + "/home/u/slurm-803.out"
err = [c for c in b["coverage"] if c["source"] == "app/std_err"]
ok = ok and len(err) == 1 and err[0]["status"] == "error" and "symbolic link" in err[0]["detail"]
ok = ok and "root:" not in json.dumps(b)
b2 = json.load(open(sys.argv[1] + "/node-02/803.json"))
ok = ok and not [f for f in b2["files"] if f["origin"] == "job-output"]
print("# %s %s" % (app, err)) if not ok else None
sys.exit(0 if ok else 1)
EOF2
mv "$T/spool/jobs/.803.0.json.tmp" "$T/spool/jobs/803.0.json"
for n in node-01 node-02; do
	unshare -m --propagation private sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' sh "$T/nodehome" "$T/home" \
		env -i PATH=/usr/bin:/bin ATTRIB_CONF="$T/$n/attrib.conf" ATTRIB_MUNGE_SOCKET="$SOCK" TZ=UTC SLURM_JOB_ID=803 \
		SLURMD_NODENAME=$n SLURM_JOB_START_TIME=$JS SLURM_JOB_END_TIME=$JE ATTRIB_COLLECT_KMSG="$T/empty-kmsg" \
		SLURM_JOB_UID=65534 SLURM_JOB_GID=65534 SLURM_JOB_USER=nobody SLURM_JOB_WORK_DIR="$T/home/u" \
		SLURM_JOB_STDERR=err.log "$COLLECT" </dev/null >/dev/null 2>&1
done
result 803 || bad "job 803 diagnosed"
check "803: the service, without the users' file system, diagnoses UserCode from the batch host's output" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
print("# %s %s" % (r["sub_domain"], r.get("root_cause")))
sys.exit(0 if r["sub_domain"] == "UserCode" else 1)' "$T/803.json"
check "803: the case's app/ holds the output's end, not in nodes/" \
	sh -c "grep -q \"KeyError: 'labels'\" '$T/state/cases/803.0/app/'* && ! grep -rq 'KeyError' '$T/state/cases/803.0/nodes'"
# the commands of doc/admin-guide.md's "UserCode jobs say unattributed" show
# why std_err was not read: attrib show's Missing lines, the app counter,
# the batch host's collector log
"$A" show 803 --config "$T/attrib.conf" >"$T/803.txt" 2>&1
sed -n '/^Missing/,/^Actions/p' "$T/803.txt" | sed 's/^/# /'
check "803: attrib show: Missing  app/err.log (missing): std_err PATH: not in the batch host's bundle" \
	grep -Eq "^(Missing)? +app/err\.log \(missing\): std_err $T/home/u/err\.log: not in the batch host's bundle" "$T/803.txt"
check "803: attrib show: the batch host's reason, nodes/node-01:app/std_err (error): ... symbolic link; not read" \
	grep -Eq "^(Missing)? +nodes/node-01:app/std_err \(error\): $T/home/u/err\.log: .*symbolic link.*; not read$" "$T/803.txt"
curl -s "$URL/metrics" >"$T/metrics"
check "803: /metrics counts the unread output as source app" \
	grep -Eq '^attrib_coverage_gaps_total\{source="app",status="missing"\} [1-9]' "$T/metrics"
check "803: the batch host's collector log says why (journalctl --identifier attrib-collect SLURM_JOB_ID=803)" \
	sh -c "journalctl -D /run/log/journal -q -o cat --identifier attrib-collect SLURM_JOB_ID=803 | grep -q 'app/std_err: error: .*symbolic link'"

# ---- 804: -o and -e apart, patterns the Epilog's environment cannot expand alone ----
# (sbatch -o '%x-%j.out' -e 'err-%A_%a.log', an array task: the decisive
# line only in std_out; the name and array ids from the plugin's output@NODE.json)
mkdir -p "$T/node-01/spool/804" && chmod 0700 "$T/node-01/spool/804"
printf 'Traceback (most recent call last):\n  File "/w/t.py", line 3, in <module>\nValueError: bad shape\n' >"$T/nodehome/u/train-804.out"
printf 'a warning on stderr\n' >"$T/nodehome/u/err-800_4.log"
chown 65534:65534 "$T/nodehome/u/train-804.out" "$T/nodehome/u/err-800_4.log"
printf '{"rank":0,"node":"node-01","local_rank":0,"step":"batch","gpu":null,"pid":98,"exit_code":1,"signal":0,"exit_time":"%s"}\n' \
	"$(iso $((NOW - 20)))" >"$T/node-01/spool/804/task-batch-0@node-01.json"
output_record() { # the plugin's record of job 804, array task 800_4
	printf '{"job_id":"804","node":"node-01","job_name":"train","array_job_id":800,"array_task_id":4,"slurm_version":%d}\n' \
		$((0x160508)) >"$T/node-01/spool/804/output@node-01.json"
}
collect804() { # OUTFILE env...: node-01's collector, --print
	local out=$1
	shift
	unshare -m --propagation private sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' sh "$T/nodehome" "$T/home" \
		env -i PATH=/usr/bin:/bin ATTRIB_CONF="$T/node-01/attrib.conf" TZ=UTC SLURM_JOB_START_TIME=$JS SLURM_JOB_END_TIME=$JE \
		ATTRIB_COLLECT_KMSG="$T/empty-kmsg" SLURM_JOB_UID=65534 SLURM_JOB_GID=65534 SLURM_JOB_USER=nobody \
		SLURM_JOB_WORK_DIR="$T/home/u" "$@" "$COLLECT" --job 804 --node node-01 --print >"$out" 2>/dev/null
}
app_of() { # bundle: its job-output files (stream, source, text) and app coverage, as Python reprs
	python3 -c '
import json, sys
b = json.load(open(sys.argv[1]))
print([(f["stream"], f["source"], f["text"]) for f in b["files"] if f["origin"] == "job-output"])
print([(c["source"], c["status"], c["detail"]) for c in b["coverage"] if c["source"].startswith("app")])' "$1"
}
output_record
collect804 "$T/node-01/804.json" SLURM_JOB_STDOUT='%x-%j.out' SLURM_JOB_STDERR='err-%A_%a.log'
app_of "$T/node-01/804.json" >"$T/804.app"
sed 's/^/# /' "$T/804.app"
check "804: both files are sent, each with its stream: std_out $T/home/u/train-804.out (the traceback), std_err err-800_4.log" \
	test "$(head -n1 "$T/804.app")" = "[('std_out', '$T/home/u/train-804.out', 'Traceback (most recent call last):\\n  File \"/w/t.py\", line 3, in <module>\\nValueError: bad shape\\n'), ('std_err', '$T/home/u/err-800_4.log', 'a warning on stderr\\n')]"
check "804: no app coverage entry" test "$(tail -n1 "$T/804.app")" = "[]"
# one file for both (no -e): sent once, as std_out
collect804 "$T/node-01/804-one.json" SLURM_JOB_STDOUT='%x-%j.out'
app_of "$T/node-01/804-one.json" >"$T/804-one.app"
check "804: -o alone: one file, sent once as std_out" \
	sh -c "head -n1 '$T/804-one.app' | grep -q \"^\[('std_out', '$T/home/u/train-804.out', 'Traceback\" && ! grep -q std_err '$T/804-one.app'"
# -o /dev/null: nothing to read, said as such (not missing); -e still read
collect804 "$T/node-01/804-null.json" SLURM_JOB_STDOUT=/dev/null SLURM_JOB_STDERR='err-%A_%a.log'
app_of "$T/node-01/804-null.json" >"$T/804-null.app"
sed 's/^/# /' "$T/804-null.app"
check "804: -o /dev/null: app/std_out info 'nothing to collect', std_err sent" \
	test "$(cat "$T/804-null.app")" = "[('std_err', '$T/home/u/err-800_4.log', 'a warning on stderr\\n')]
[('app/std_out', 'info', '/dev/null: the job discarded it; nothing to collect')]"
# an older plugin's record (the descriptors it saw, no name): its paths are
# not taken, and %x is not guessed
printf '{"job_id":"804","node":"node-01","std_err":"%s"}\n' "$T/home/u/err-800_4.log" >"$T/node-01/spool/804/output@node-01.json"
collect804 "$T/node-01/804-old.json" SLURM_JOB_STDOUT='%x-%j.out'
app_of "$T/node-01/804-old.json" >"$T/804-old.app"
sed 's/^/# /' "$T/804-old.app"
check "804: an older plugin's record: nothing sent, app error '%x: the job's name is not known'" \
	sh -c "head -n1 '$T/804-old.app' | grep -qx '\[\]' && tail -n1 '$T/804-old.app' | grep -q \"('app', 'error', \\\"the job's output not found: %x: the job's name is not known\""

# through the service: the record's std_out and std_err as jobcomp/attrib writes them
output_record
printf '{"schema":"attrib.job/v1","job_id":"804","cluster":"lab","user":"nobody","nodes":["node-01"],"start_time":"%s","end_time":"%s","state":"FAILED","exit_code":"1:0","uid":65534,"gid":65534,"attempt":0,"work_dir":"%s","std_out":"%s","std_err":"%s","batch_host":"node-01"}\n' \
	"$(iso $JS)" "$(iso $JE)" "$T/home/u" "$T/home/u/train-804.out" "$T/home/u/err-800_4.log" >"$T/spool/jobs/.804.0.json.tmp"
mv "$T/spool/jobs/.804.0.json.tmp" "$T/spool/jobs/804.0.json"
unshare -m --propagation private sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' sh "$T/nodehome" "$T/home" \
	env -i PATH=/usr/bin:/bin ATTRIB_CONF="$T/node-01/attrib.conf" ATTRIB_MUNGE_SOCKET="$SOCK" TZ=UTC SLURM_JOB_ID=804 \
	SLURMD_NODENAME=node-01 SLURM_JOB_START_TIME=$JS SLURM_JOB_END_TIME=$JE ATTRIB_COLLECT_KMSG="$T/empty-kmsg" \
	SLURM_JOB_UID=65534 SLURM_JOB_GID=65534 SLURM_JOB_USER=nobody SLURM_JOB_WORK_DIR="$T/home/u" \
	SLURM_JOB_STDOUT='%x-%j.out' SLURM_JOB_STDERR='err-%A_%a.log' "$COLLECT" </dev/null >/dev/null 2>&1
result 804 || bad "job 804 diagnosed"
check "804: the service stores both files in app/: UserCode from std_out's traceback, no app gap" python3 -c '
import json, sys, os
r = json.load(open(sys.argv[1] + "/804.json"))
gaps = [c for c in r["coverage"] if c["source"].startswith("app")]
app = sys.argv[1] + "/state/cases/804.0/app/"
print("# %s %s %s" % (r["sub_domain"], gaps, sorted(os.listdir(app)) if os.path.isdir(app) else None))
sys.exit(0 if r["sub_domain"] == "UserCode" and not gaps and "ValueError: bad shape" in open(app + "train-804.out").read()
         and os.path.exists(app + "err-800_4.log") else 1)' "$T"
check "804: the plugin's output record was removed with the task records once sent" test ! -e "$T/node-01/spool/804/output@node-01.json"

finish
