#!/bin/bash
# attrib-collect end to end: a private munged, a stand-in service
# (t/epilog-receiver.py), log files and task records in a scratch
# directory.  Checks the POST (path, header, JSON body, the credential's
# payload bound to the body's SHA-256), retries, the outbox when the
# service is down and its sending on the next run, and exit status 0 in
# every failure mode (no munged, unreachable URL, missing or unusable
# NodeSpoolDir, bad configuration, no SLURM_JOB_ID, hostile log sources).
set -u

builddir=$(cd "$(dirname "${ATTRIB:-./attrib}")" && pwd)
srcdir=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
COLLECT=${ATTRIB_COLLECT:-$builddir/epilog/attrib-collect}
RECEIVER=$srcdir/t/epilog-receiver.py
export PATH=$PATH:/usr/sbin:/sbin
. "$srcdir/t/lib/check.sh"
bad() { fail=$((fail + 1)); echo "not ok - $*"; return 1; }	# (here a failed check is also a failed command)
[ -x "$COLLECT" ] || skip "no $COLLECT"
# every option --help names is in attrib-collect(8), which the admin
# guide's troubleshooting sends the reader to (--print above all)
undoc=''
for o in $("$COLLECT" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
	grep -qF -- "\\fB$(echo "$o" | sed 's/-/\\-/g')\\fR" "$srcdir/doc/attrib-collect.8" || undoc="$undoc $o"
done
check "every option of attrib-collect --help is in attrib-collect(8)${undoc:+ (not:$undoc)}" test -z "$undoc"
for c in munged unmunge python3 sha256sum; do
	command -v "$c" >/dev/null || skip "no $c"
done
[ "$(id -u)" = 0 ] || skip "needs root (munged's credentials for uid 0, root-owned spool)"

W=$(mktemp -d /tmp/attrib-epilog-collect-XXXXXX)
chmod 0755 "$W"
rpid= mpid=
cleanup() {
	[ -n "$rpid" ] && kill "$rpid" 2>/dev/null
	[ -n "$mpid" ] && kill "$mpid" 2>/dev/null && sleep 0.2
	rm -rf "$W"
}
trap cleanup EXIT

# ---- a private munged ----
mkdir -p "$W/munge"
chmod 0755 "$W/munge"
dd if=/dev/urandom of="$W/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 0600 "$W/munge/munge.key"
SOCK=$W/munge/munge.sock
munged --socket="$SOCK" --key-file="$W/munge/munge.key" --pid-file="$W/munge/munged.pid" \
	--log-file="$W/munge/munged.log" --seed-file="$W/munge/munged.seed" ||
	{ cat "$W/munge/munged.log" 2>/dev/null; skip "munged does not start here"; }
wait_for 60 test -S "$SOCK"
mpid=$(cat "$W/munge/munged.pid" 2>/dev/null)

# ---- the stand-in service ----
start_receiver() {	# start_receiver DIR [FAIL_FIRST]
	mkdir -p "$1"
	python3 "$RECEIVER" "$1" "${2:-0}" &
	rpid=$!
	wait_for 60 test -s "$1/port"
	PORT=$(cat "$1/port")
}
stop_receiver() {
	kill "$rpid" 2>/dev/null
	wait "$rpid" 2>/dev/null
	rpid=
}

# ---- logs and task records around "now" ----
NOW=$(date +%s)
JSTART=$((NOW - 1800)) JEND=$((NOW - 120))
python3 - "$W" "$NOW" <<'EOF'
import sys, time
w, now = sys.argv[1], int(sys.argv[2])
def f3164(t): return time.strftime("%b %e %H:%M:%S", time.gmtime(t))
with open(w + "/kern.log", "w", encoding="latin-1") as f:
    for i in range(-3 * 3600, 0, 30):      # 3 hours, a line every 30 s
        t = now + i
        f.write("%s node-02 kernel: tick %d\n" % (f3164(t), i))
    f.write("%s node-02 kernel: NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus \xff\n" % f3164(now - 125))
with open(w + "/syslog.log", "w") as f:
    for i in range(-3 * 3600, 0, 60):
        f.write("%s node-02 slurmd[77]: beat %d\n" % (time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(now + i)), i))
EOF
mkfifo "$W/fifo.log"
ln -s "$W/kern.log" "$W/link.log"

records() {	# records JOBID: two task records
	mkdir -p "$W/spool/$1"
	chmod 0700 "$W/spool" "$W/spool/$1"
	local e
	e=$(date -u -d "@$JEND" +%Y-%m-%dT%H:%M:%SZ)
	printf '{"rank":0,"node":"node-02","local_rank":0,"step":"0","gpu":"0","pid":100,"exit_code":1,"signal":0,"exit_time":"%s"}\n' "$e" >"$W/spool/$1/task-0-0.json"
	printf '{"rank":1,"node":"node-02","local_rank":1,"step":"0","gpu":"1","pid":101,"exit_code":0,"signal":9,"exit_time":"%s"}\n' "$e" >"$W/spool/$1/task-0-1.json"
}

conf() {	# conf URL [extra lines]
	cat >"$W/attrib.conf" <<EOF
NodeSpoolDir = $W/spool
LogSources = $W/kern.log, $W/syslog.log, $W/missing.log, $W/link.log, $W/fifo.log, journal
ServiceURL = $1
WindowMargin = 300
CollectTimeout = 30
MaxBundleBytes = 4M
LogFile = $W/collect.log
${2:-}
EOF
}

run() {	# run JOBID [env...]: runs the collector, checks exit 0 and time
	local job=$1 t0 t1 rc
	shift
	t0=$(date +%s.%N)
	env -i PATH=/usr/bin:/bin ATTRIB_CONF="$W/attrib.conf" ATTRIB_MUNGE_SOCKET="$SOCK" TZ=UTC \
		SLURM_JOB_ID="$job" SLURMD_NODENAME=node-02 SLURM_SCRIPT_CONTEXT=epilog_slurmd "$@" \
		"$COLLECT" >"$W/stdout" 2>"$W/stderr" </dev/null
	rc=$?
	t1=$(date +%s.%N)
	ELAPSED=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	check "job $job: exit 0 (took $ELAPSED s)" [ "$rc" = 0 ] || sed 's/^/# stderr: /' "$W/stderr" | head -n 20
}

# the credential decodes with our munged, uid 0, payload bound to the body
cred_ok() {	# cred_ok REQBASE JOBID
	local payload want
	unmunge -S "$SOCK" -i "$1.cred" -o "$W/payload" -m "$W/meta" 2>/dev/null || return 1
	grep -q '^UID: *root (0)' "$W/meta" || return 1
	payload=$(cat "$W/payload")
	want="attrib-bundle:v1:$2:node-02:$(sha256sum <"$1.body" | cut -d' ' -f1)"
	[ "$payload" = "$want" ] || { echo "# payload $payload, want $want"; return 1; }
}

body_check() {	# body_check REQBASE JOBID: the bundle's JSON
	python3 - "$1.body" "$2" "$JSTART" "$JEND" "$W" "$NOW" <<'EOF'
import json, sys, time, calendar
body, job, js, je, w, now = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], int(sys.argv[6])
b = json.load(open(body, encoding="utf-8"))          # valid UTF-8 JSON
def fail(m): print("# " + m); sys.exit(1)
if b.get("schema") != "attrib.bundle/v1": fail("schema")
if b.get("job_id") != job or b.get("node") != "node-02": fail("job/node")
for k in ("collected_at", "window", "files", "ranks", "coverage"):
    if k not in b: fail("no " + k)
ws = calendar.timegm(time.strptime(b["window"]["start"], "%Y-%m-%dT%H:%M:%SZ"))
we = calendar.timegm(time.strptime(b["window"]["end"], "%Y-%m-%dT%H:%M:%SZ"))
if (ws, we) != (js - 300, je + 300): fail("window %s..%s want %d..%d" % (ws, we, js - 300, je + 300))
files = {f["name"]: f for f in b["files"]}
k = files.get("kern.log")
if not k or k["source"] != w + "/kern.log": fail("kern.log missing: %s" % list(files))
# a log file is anyone's to write (logger): never the kernel's word
if k.get("origin") != "file": fail("kern.log origin %s, want file" % k.get("origin"))
lines = k["text"].splitlines()
want = sum(1 for i in range(-3 * 3600, 0, 30) if js - 300 <= now + i <= je + 300) + 1   # + the Xid line
if len(lines) != want: fail("kern.log %d lines, want %d" % (len(lines), want))
if "GPU has fallen off the bus \ufffd" not in k["text"]: fail("Xid line (invalid UTF-8 replaced)")
if "syslog.log" not in files or not files["syslog.log"]["text"]: fail("syslog.log")
if len(b["ranks"]) != 2 or b["ranks"][1]["signal"] != 9: fail("ranks %s" % b["ranks"])
cov = {(c["source"], c["status"]) for c in b["coverage"]}
for want_c in ((w + "/missing.log", "missing"), (w + "/link.log", "error"), (w + "/fifo.log", "error")):
    if want_c not in cov: fail("coverage lacks %s: %s" % (want_c, cov))
if not any(s == "journal" for s, _ in cov): fail("no journal coverage: %s" % cov)
EOF
}

count_reqs() { ls "$1"/req-*.body 2>/dev/null | wc -l; }

# ---- 1. the service answers: one POST, right header, body, credential ----
R=$W/r1
start_receiver "$R"
conf "http://127.0.0.1:$PORT"
records 4242
run 4242 SLURM_JOB_START_TIME=$JSTART SLURM_JOB_END_TIME=$JEND
check "one request" [ "$(count_reqs "$R")" = 1 ]
check "POST /v1/bundle, application/json" grep -q '^/v1/bundle application/json 202 ' "$R/req-1.meta"
check "credential: MUNGE, uid 0, payload bound to the body" cred_ok "$R/req-1" 4242
check "bundle JSON: schema, window, files, ranks, coverage" body_check "$R/req-1" 4242
check "task records removed after the send" [ ! -e "$W/spool/4242" ]
check "no outbox left" [ -z "$(ls "$W/spool/outbox" 2>/dev/null)" ]
check "fast (< 2 s)" awk -v e="$ELAPSED" 'BEGIN { exit !(e < 2) }'

# ---- 2. the window from the task records alone (Slurm 22.05) ----
records 4250
run 4250
check "window from task records: a request" [ "$(count_reqs "$R")" = 2 ]
check "window end from the task records' exit_time" python3 -c "
import json, sys; b = json.load(open('$R/req-2.body'))
sys.exit(0 if b['window']['end'] == '$(date -u -d "@$((JEND + 300))" +%Y-%m-%dT%H:%M:%SZ)' else 1)"

# ---- 2b. task records the SPANK plugin did not make (root's, 0700) ----
ranks_of() { python3 -c "import json, sys; print(len(json.load(open(sys.argv[1]))['ranks']))" "$1"; }
records 4251
chown 65534 "$W/spool/4251/task-0-1.json"
run 4251 SLURM_JOB_START_TIME=$JSTART SLURM_JOB_END_TIME=$JEND
check "a task record owned by another user: not read" [ "$(ranks_of "$R/req-3.body")" = 1 ]
check "and said in coverage" grep -q '4251/task-0-1.json: not a task record' "$R/req-3.body"
records 4252
chmod 0777 "$W/spool/4252"
run 4252 SLURM_JOB_START_TIME=$JSTART SLURM_JOB_END_TIME=$JEND
check "a job directory writable by others: no task record read" [ "$(ranks_of "$R/req-4.body")" = 0 ]
check "and said in coverage" grep -q '4252: not owned by uid 0 or writable by others; not read' "$R/req-4.body"
rm -rf "$W/spool/4251" "$W/spool/4252"
stop_receiver

# ---- 3. the service is down: retries, then the outbox (which now carries
# the task records, so they leave the spool) ----
conf "http://127.0.0.1:$PORT"
records 4243
run 4243
# (the budget, CollectTimeout, is 30 s: "at once" is far below it even on
# a loaded machine)
check "down: connection refused twice, given up at once ($ELAPSED s < 10 s; budget 30 s)" \
    awk -v e="$ELAPSED" 'BEGIN { exit !(e < 10) }'
check "down: bundle left in the outbox" [ "$(ls "$W/spool/outbox"/*-4243.json 2>/dev/null | wc -l)" = 1 ]
check "down: the outbox bundle carries the task records" grep -q '"rank"' "$(ls "$W/spool/outbox"/*-4243.json | head -n1)"
check "down: task records not left behind" [ ! -e "$W/spool/4243/task-0-0.json" ]
check "down: one log line says why" grep -q 'job 4243: bundle not sent (.*Could.*connect.*); left in outbox/' "$W/collect.log"
check "down: tried again after the 0.25 s backoff (a restarting service)" \
    awk -v e="$ELAPSED" 'BEGIN { exit !(e >= 0.25) }'

# ---- 4. the service is back: the leftover goes first, then the new one ----
R=$W/r4
start_receiver "$R"
conf "http://127.0.0.1:$PORT"
records 4244
run 4244
check "back: two requests" [ "$(count_reqs "$R")" = 2 ]
check "back: the leftover (4243) first" grep -q '"job_id":"4243"' "$R/req-1.body"
check "back: then 4244" grep -q '"job_id":"4244"' "$R/req-2.body"
check "back: leftover credential fresh and bound" cred_ok "$R/req-1" 4243
check "back: outbox empty" [ -z "$(ls "$W/spool/outbox" 2>/dev/null)" ]
stop_receiver

# ---- 5. the service is busy (503 twice): retried with backoff ----
R=$W/r5
start_receiver "$R" 2
conf "http://127.0.0.1:$PORT"
records 4245
run 4245
check "busy: three tries, the third taken" [ "$(count_reqs "$R")" = 3 ] && grep -q ' 202 ' "$R/req-3.meta"
check "busy: each try with a new credential" [ "$(sha256sum "$R"/req-*.cred | cut -d' ' -f1 | sort -u | wc -l)" = 3 ]
check "busy: records removed" [ ! -e "$W/spool/4245" ]

# ---- 6. no munged: exit 0, bundle kept ----
conf "http://127.0.0.1:$PORT"
records 4246
run 4246 ATTRIB_MUNGE_SOCKET="$W/munge/nothing.sock"
check "no munged: bundle in the outbox" [ "$(ls "$W/spool/outbox"/*-4246.json 2>/dev/null | wc -l)" = 1 ]
check "no munged: said so" grep -q 'job 4246: bundle not sent (munge_encode' "$W/collect.log"
check "no munged: no request sent" [ "$(count_reqs "$R")" = 3 ]
stop_receiver
rm -f "$W/spool/outbox"/*.json

# ---- 7. other failure modes: always exit 0 ----
conf "http://127.0.0.1:1"
run 4247
conf "http://127.0.0.1:1" "NodeSpoolDir = $W/new/spool/dir"
run 4248
check "missing NodeSpoolDir: made, bundle kept there" [ "$(ls "$W/new/spool/dir/outbox"/*-4248.json 2>/dev/null | wc -l)" = 1 ]
touch "$W/afile"
conf "http://127.0.0.1:1" "NodeSpoolDir = $W/afile/spool"
run 4249
check "unusable NodeSpoolDir: logged" grep -q 'job 4249: NodeSpoolDir' "$W/collect.log"
conf "http://127.0.0.1:1" "NoSuchKey = 1"
run 4251
check "bad configuration: logged with its line" grep -q 'config: .*unknown key "NoSuchKey"' "$W/collect.log"
run ""
check "empty SLURM_JOB_ID: logged" grep -q 'SLURM_JOB_ID "": not a job id' "$W/collect.log"
env -i PATH=/usr/bin:/bin ATTRIB_CONF="$W/attrib.conf" "$COLLECT" >/dev/null 2>&1 </dev/null
check "no SLURM_JOB_ID: exit 0" [ $? = 0 ]
check "no SLURM_JOB_ID: logged" grep -q 'SLURM_JOB_ID unset: not a job id' "$W/collect.log"
run "../../etc"
check "hostile SLURM_JOB_ID refused" grep -q 'SLURM_JOB_ID "../../etc": not a job id' "$W/collect.log"
env -i ATTRIB_CONF=/nonexistent/attrib.conf SLURM_JOB_ID=1 "$COLLECT" >/dev/null 2>&1 </dev/null
check "missing configuration file: exit 0" [ $? = 0 ]

# ---- 8. the journal through journalctl (the fallback without sd-journal) ----
conf "http://127.0.0.1:1"
run 4252 ATTRIB_COLLECT_JOURNALCTL=1
env -i PATH=/usr/bin:/bin ATTRIB_CONF="$W/attrib.conf" ATTRIB_MUNGE_SOCKET="$SOCK" TZ=UTC \
	ATTRIB_COLLECT_JOURNALCTL=1 "$COLLECT" --job 4253 --node node-02 --print >"$W/print.json" 2>/dev/null
check "--print: the bundle on stdout, with a journal coverage entry" python3 -c "
import json, sys; b = json.load(open('$W/print.json'))
sys.exit(0 if any(c['source'] == 'journal' for c in b['coverage']) else 1)"

# ---- 9. a journal directory (journal:DIR), sd-journal and journalctl ----
JR=/lib/systemd/systemd-journal-remote
if [ -x "$JR" ]; then
	mkdir -p "$W/journal"
	python3 - "$NOW" >"$W/export.txt" <<'EOF'
import sys
now = int(sys.argv[1])
for i in range(-3600, 0, 10):
    us = (now + i) * 1000000
    print("__REALTIME_TIMESTAMP=%d\n__MONOTONIC_TIMESTAMP=%d\n_BOOT_ID=0123456789abcdef0123456789abcdef" % (us, us // 1000))
    print("_HOSTNAME=node-02\nSYSLOG_IDENTIFIER=kernel\n_TRANSPORT=kernel\nMESSAGE=jtick %d\n" % i)
EOF
	"$JR" -o "$W/journal/test.journal" "$W/export.txt" >/dev/null 2>&1
	conf "http://127.0.0.1:1" "LogSources = journal:$W/journal"
	for how in sd-journal journalctl; do
		extra=
		[ "$how" = journalctl ] && extra=ATTRIB_COLLECT_JOURNALCTL=1
		env -i PATH=/usr/bin:/bin ATTRIB_CONF="$W/attrib.conf" TZ=UTC SLURM_JOB_START_TIME=$JSTART \
			SLURM_JOB_END_TIME=$JEND $extra "$COLLECT" --job 4260 --node node-02 --print >"$W/j.json" 2>/dev/null
		check "journal:DIR through $how: exactly the kernel's entries in the window, in kernel.log" python3 - "$W/j.json" "$NOW" "$JSTART" "$JEND" <<'EOF'
import json, sys
b = json.load(open(sys.argv[1]))
now, js, je = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
want = ["jtick %d" % i for i in range(-3600, 0, 10) if js - 300 <= now + i <= je + 300]
f = [f for f in b["files"] if f["name"] == "kernel.log" and f["origin"] == "kernel"]
got = [l.split(": ", 1)[1] for l in f[0]["text"].splitlines()] if f else []
if got != want:
    print("# got %d entries (%s..%s), want %d; coverage %s" % (len(got), got[:1], got[-1:], len(want), b["coverage"]))
    sys.exit(1)
EOF
	done

	# ---- 10. who wrote an entry: journald's own fields, not the writer's ----
	# (as journald records logger -t kernel, logger -t alice, systemd-cat -t
	# kernel and logger --journald run by uid 1000, a root daemon, and a
	# record root wrote to /dev/kmsg, which the kernel gives the user facility)
	rm -rf "$W/journal" && mkdir -p "$W/journal"
	python3 - "$NOW" >"$W/export.txt" <<'PY'
import sys
now = int(sys.argv[1])
X = "NVRM: Xid (PCI:0000:61:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
entries = [
    (-600, "_TRANSPORT=kernel\nSYSLOG_IDENTIFIER=kernel\nSYSLOG_FACILITY=0\nMESSAGE=NVRM: Xid (PCI:0000:3b:00): 79, real"),
    (-590, "_TRANSPORT=syslog\nSYSLOG_IDENTIFIER=kernel\n_UID=1000\n_COMM=logger\n_PID=4242\nMESSAGE=" + X),
    (-580, "_TRANSPORT=syslog\nSYSLOG_IDENTIFIER=alice\n_UID=1000\n_COMM=logger\nMESSAGE=kernel: " + X),
    (-570, "_TRANSPORT=stdout\nSYSLOG_IDENTIFIER=kernel\n_UID=1000\n_COMM=cat\nMESSAGE=" + X),
    (-560, "_TRANSPORT=journal\nSYSLOG_IDENTIFIER=kernel\nSYSLOG_FACILITY=0\n_UID=1000\n_COMM=logger\nMESSAGE=" + X),
    (-550, "_TRANSPORT=journal\nSYSLOG_IDENTIFIER=slurmd\n_UID=0\n_COMM=slurmd\n_PID=77\nMESSAGE=launch task"),
    (-540, "_TRANSPORT=kernel\nSYSLOG_IDENTIFIER=evil\nSYSLOG_FACILITY=1\nMESSAGE=kernel: " + X),
]
for dt, fields in entries:
    us = (now + dt) * 1000000
    print("__REALTIME_TIMESTAMP=%d\n__MONOTONIC_TIMESTAMP=%d\n_BOOT_ID=0123456789abcdef0123456789abcdef" % (us, us // 1000))
    print("_HOSTNAME=node-02\n" + fields + "\n")
PY
	"$JR" -o "$W/journal/test.journal" "$W/export.txt" >/dev/null 2>&1
	conf "http://127.0.0.1:1" "LogSources = journal:$W/journal, kmsg"
	for how in sd-journal journalctl; do
		extra=
		[ "$how" = journalctl ] && extra=ATTRIB_COLLECT_JOURNALCTL=1
		env -i PATH=/usr/bin:/bin ATTRIB_CONF="$W/attrib.conf" TZ=UTC SLURM_JOB_START_TIME=$JSTART \
			SLURM_JOB_END_TIME=$JEND ATTRIB_COLLECT_KMSG="$W/kmsg-never-read" $extra "$COLLECT" \
			--job 4270 --node node-02 --print >"$W/j.json" 2>/dev/null
		check "journal through $how: forged kernel entries are users', not the kernel's" python3 - "$W/j.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
f = {f["name"]: f for f in b["files"]}
def fail(m): print("# " + m + ": " + json.dumps(b["files"])[:2000]); sys.exit(1)
k, r, u = f.get("kernel.log"), f.get("journal.log"), f.get("journal-user.log")
if not (k and r and u): fail("files")
if (k["origin"], r["origin"], u["origin"]) != ("kernel", "journal", "journal-user"): fail("origins")
kl, rl, ul = k["text"].splitlines(), r["text"].splitlines(), u["text"].splitlines()
if len(kl) != 1 or not kl[0].endswith(" node-02 kernel: NVRM: Xid (PCI:0000:3b:00): 79, real"): fail("kernel.log")
if len(ul) != 4 or any("0000:61:00" not in l or "[_UID=1000 _COMM=" not in l for l in ul): fail("journal-user.log")
if " node-02 [_UID=1000 _COMM=logger] kernel[4242]: NVRM: Xid" not in ul[0]: fail("the trusted writer first")
if len(rl) != 2 or "[_UID=0 _COMM=slurmd] slurmd[77]: launch task" not in rl[0] or "evil: kernel: NVRM" not in rl[1]: fail("journal.log")
cov = [c for c in b["coverage"] if c["source"] == "kmsg"]
if not cov or cov[0]["status"] != "info" or "journal holds" not in cov[0]["detail"]: fail("kmsg not skipped: %s" % cov)
if "kmsg.log" in f: fail("kmsg.log")
PY
	done
else
	echo "# no $JR (Debian: systemd-journal-remote): journal:DIR not checked"
fi

# ---- 11. the kernel's ring (/dev/kmsg records; a test file stands in) ----
# The records 600 s before now, or, on a machine booted less than 620 s
# ago (a fresh CI machine), 20 s after its boot: a record cannot be older
# than the boot
AGO=$(awk -v now="$NOW" '{ up = int($1) - 20; print (up < 600 ? up : 600) }' /proc/uptime)
python3 - "$W/kmsg" "$NOW" "$AGO" <<'PY'
import sys, time
path, now, ago = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
boot = time.time() - time.monotonic()
def us(t): return int((t - boot) * 1e6)
with open(path, "w") as f:
    f.write("6,1,%d,-;out of the window\n" % us(now + 1000))   # (after it: a fresh machine has no time before it)
    f.write("3,2,%d,-;NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n SUBSYSTEM=pci\n DEVICE=+pci:0000:3b:00.0\n" % us(now - ago))
    f.write("12,3,%d,-;kernel: NVRM: Xid (PCI:0000:61:00): 79, written by root to /dev/kmsg\n" % us(now - ago + 10))
    f.write("4,4,%d,c;mlx5_core 0000:1c:00.0 ens1f0np0: Link down\n" % us(now - ago + 20))
    f.write("garbage without a header\n6,x,1,-;bad seq\n")
PY
conf "http://127.0.0.1:1" "LogSources = kmsg"
env -i PATH=/usr/bin:/bin ATTRIB_CONF="$W/attrib.conf" TZ=UTC SLURM_JOB_START_TIME=$JSTART SLURM_JOB_END_TIME=$JEND \
	ATTRIB_COLLECT_KMSG="$W/kmsg" "$COLLECT" --job 4271 --node node-02 --print >"$W/k.json" 2>/dev/null
check "kmsg: the kernel facility's records in the window, origin kernel, times from the boot" python3 - "$W/k.json" "$NOW" "$AGO" <<'PY'
import json, sys, calendar, time
b, now, ago = json.load(open(sys.argv[1])), int(sys.argv[2]), int(sys.argv[3])
f = [f for f in b["files"] if f["name"] == "kmsg.log"]
def fail(m): print("# " + m + ": " + json.dumps(b)[:1500]); sys.exit(1)
if len(f) != 1 or f[0]["origin"] != "kernel": fail("kmsg.log")
lines = f[0]["text"].splitlines()
if len(lines) != 2: fail("%d lines" % len(lines))
if not lines[0].endswith(" kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."): fail(lines[0])
if not lines[1].endswith(" kernel: mlx5_core 0000:1c:00.0 ens1f0np0: Link down"): fail(lines[1])
t = calendar.timegm(time.strptime(lines[0][:19], "%Y-%m-%dT%H:%M:%S"))
if abs(t - (now - ago)) > 2: fail("time %s, want %d" % (lines[0][:32], now - ago))
PY
mkfifo "$W/kmsg-fifo"
env -i PATH=/usr/bin:/bin ATTRIB_CONF="$W/attrib.conf" TZ=UTC ATTRIB_COLLECT_KMSG="$W/kmsg-fifo" "$COLLECT" \
	--job 4272 --node node-02 --print >"$W/k.json" 2>/dev/null
check "kmsg: a FIFO in its place is refused (exit 0, coverage error)" python3 -c "
import json, sys; b = json.load(open('$W/k.json'))
sys.exit(0 if any(c['source'] == 'kmsg' and c['status'] == 'error' and 'refused' in c['detail'] for c in b['coverage']) else 1)"

echo "# log:"
sed 's/^/#   /' "$W/collect.log" | tail -n 30
finish
