#!/bin/bash
# attrib-collect --health (slurmd's HealthCheckProgram) against the real
# attribd with a private munged (no Slurm): a check that passes, fails,
# times out or cannot run reaches the store's health_checks table with its
# status and the end of its output, and the collector exits with the
# check's status (0, 1, 124, 127) within HealthCheckTimeout and a few
# seconds; with the service down it still exits with the check's status,
# soon; a report for a node whose address is not the sender's, and a
# bundle's credential on a health report, are refused (403) and not
# recorded.  With Undrain = auto and no Slurm nothing is undrained or
# recorded as a drain decision; attrib undrain refuses (exit 5) and records
# why.  Needs root, munged, munge, curl, python3: skipped (77) otherwise.
set -u

A=$(cd "$(dirname "${ATTRIB:-./attrib}")" && pwd)/$(basename "${ATTRIB:-./attrib}")
SRC=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
COLLECT=${ATTRIB_COLLECT:-$(dirname "$A")/epilog/attrib-collect}
export PATH=$PATH:/usr/sbin:/sbin
. "$SRC/t/lib/check.sh"
. "$SRC/t/lib/service.sh"

[ "$(id -u)" = 0 ] || skip "needs root"
[ -x "$COLLECT" ] || skip "no $COLLECT"
[ -x "$(dirname "$A")/attribd" ] || skip "no attribd"
for c in munged munge curl python3; do command -v "$c" >/dev/null || skip "no $c"; done

T=$(mktemp -d /tmp/attrib-health-XXXXXX)
chmod 0711 "$T"
spid='' mpid=''
cleanup() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
	[ -n "$mpid" ] && kill "$mpid" 2>/dev/null
	sleep 0.2
	rm -rf "$T"
}
trap cleanup EXIT

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
mkdir -p "$T/spool/jobs"
cat >"$T/attrib.conf" <<EOF
SpoolDir = $T/spool
StateDir = $T/state
RulesDir = $SRC/rules
Listen = 127.0.0.1:$port
ReconcileInterval = 0
LogFile = $T/attrib.log
Undrain = auto
UndrainQuiet = 0
NodeAddresses = node-02=127.0.0.1, node-03=192.0.2.7
EOF
URL=http://127.0.0.1:$port
if ! start; then
	bad "attrib serve starts"
	cat "$T/serve.err" "$T/attrib.log" 2>/dev/null | sed 's/^/#   /'
	finish
fi

# health NODE COMMAND [TIMEOUT]: attrib-collect --health as slurmd runs it;
# sets rc and secs
health() {
	printf 'ServiceURL = %s\nHealthCheck = %s\nHealthCheckTimeout = %s\nLogFile = %s\n' \
		"$URL" "$2" "${3:-10}" "$T/collect.log" >"$T/node.conf"
	local t0
	t0=$(date +%s%N)
	env -i PATH=/usr/bin:/bin ATTRIB_CONF="$T/node.conf" ATTRIB_MUNGE_SOCKET="$SOCK" SLURMD_NODENAME="$1" \
		"$COLLECT" --health </dev/null >/dev/null 2>&1
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
}
# rows NODE: "status|timed_out|passed|output" of its checks, oldest first
rows() {
	python3 - "$T/state/attrib.db" "$1" <<'PY'
import sqlite3, sys
db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
for r in db.execute("SELECT status, timed_out, passed, output FROM health_checks WHERE node = ? ORDER BY rowid", (sys.argv[2],)):
    print("|".join(str(x) for x in r))
PY
}
# wait_rows NODE N: until NODE has N checks recorded (60 s)
rows_ge() { [ "$(rows "$1" | wc -l)" -ge "$2" ]; }
wait_rows() { wait_for 60 rows_ge "$@"; }
metric() { curl -sf "$URL/metrics" | sed -n "s/^attrib_$1 //p"; }
drain_rows() {
	python3 - "$T/state/attrib.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
for r in db.execute("SELECT job_id, node, decision, decided_by FROM drains ORDER BY rowid"):
    print("|".join(str(x) for x in r))
PY
}

printf '#!/bin/sh\necho "GPU 0: pass"\necho "GPU 1: pass"\nexit 0\n' >"$T/check-ok"
printf '#!/bin/sh\necho "GPU 1: FAIL (Xid 79)" >&2\nexit 3\n' >"$T/check-bad"
printf '#!/bin/sh\necho started\nsleep 31 &\nsleep 32\n' >"$T/check-hang"
chmod 0755 "$T"/check-*

health node-02 "$T/check-ok"
check "a passing check: attrib-collect --health exits 0 (got $rc)" test "$rc" = 0
check "its report is recorded" wait_rows node-02 1
check "... status 0, passed, the end of its output ($(rows node-02 | tail -n1))" \
	test "$(rows node-02 | tail -n1)" = "0|0|1|GPU 0: pass?GPU 1: pass"

health node-02 "$T/check-bad --all"
check "a failing check: exit status 3, the check's (got $rc)" test "$rc" = 3
wait_rows node-02 2
check "recorded as failed with its message ($(rows node-02 | tail -n1))" \
	test "$(rows node-02 | tail -n1)" = "3|0|0|GPU 1: FAIL (Xid 79)"

health node-02 "$T/check-hang" 1
check "a check past HealthCheckTimeout (1 s): exit 124 (got $rc)" test "$rc" = 124
# (not the check's 32 s: 20 s leaves room for a loaded machine)
check "... within 20 s, not the check's 32 (took $ms ms)" test "$ms" -lt 20000
wait_rows node-02 3
check "recorded as timed out ($(rows node-02 | tail -n1))" test "$(rows node-02 | tail -n1)" = "124|1|0|started"
check "no process of the hung check is left (its process group killed)" \
	sh -c "! pgrep -fx 'sleep 3[12]' >/dev/null"

health node-02 "/nonexistent/dcgmi diag -r 1"
check "a check that cannot run: exit 127 (got $rc)" test "$rc" = 127
wait_rows node-02 4
check "recorded with why ($(rows node-02 | tail -n1))" \
	test "$(rows node-02 | tail -n1)" = "127|0|0|cannot run /nonexistent/dcgmi: No such file or directory"
health node-02 "dcgmi diag -r 1"
check "a relative program is refused: exit 127 (got $rc)" test "$rc" = 127
wait_rows node-02 5
check "metrics: 5 reports accepted, 4 failed ($(metric health_reports_total) $(metric health_failed_total))" \
	test "$(metric health_reports_total) $(metric health_failed_total)" = "5 4"

# ---- refusals --------------------------------------------------------------
health node-03 "$T/check-ok"
check "a report of node-03 made on this host (not node-03's address): the log says it is rejected" \
	wait_for 60 grep -q "health report from .* rejected (origin" "$T/attrib.log"
check "... nothing recorded" test -z "$(rows node-03)"
body='{"schema":"attrib.health/v1","node":"node-02","status":0}'
hash=$(printf %s "$body" | sha256sum | cut -d' ' -f1)
cred=$(munge -S "$SOCK" -n -s "attrib-bundle:v1:77:node-02:$hash")
code=$(curl -s -o /dev/null -w '%{http_code}' -H "X-Attrib-Credential: $cred" --data-binary "$body" "$URL/v1/healthcheck")
check "a bundle's credential on a health report: 403 (got $code)" test "$code" = 403
cred=$(munge -S "$SOCK" -n -s "attrib-health:v1:node-02:$hash")
code=$(curl -s -o /dev/null -w '%{http_code}' -H "X-Attrib-Credential: $cred" --data-binary "$body" "$URL/v1/bundle")
check "a health report's credential on a bundle: 403 (got $code)" test "$code" = 403
cred=$(munge -S "$SOCK" -n -s "attrib-health:v1:node-02:$hash")
head -c 20000 /dev/zero | tr '\0' x >"$T/big"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "X-Attrib-Credential: $cred" --data-binary @"$T/big" "$URL/v1/healthcheck")
check "a report over 16 KiB: 413 (got $code)" test "$code" = 413
cred=$(munge -S "$SOCK" -n -s "attrib-health:v1:node-02:$hash")
code=$(curl -s -o /dev/null -w '%{http_code}' -H "X-Attrib-Credential: $cred" --data-binary "$body" "$URL/v1/healthcheck")
check "a well-formed report by hand: 202 (got $code)" test "$code" = 202
other=${body/node-02/node-05}
cred=$(munge -S "$SOCK" -n -s "attrib-health:v1:node-02:$(printf %s "$other" | sha256sum | cut -d' ' -f1)")
code=$(curl -s -o /dev/null -w '%{http_code}' -H "X-Attrib-Credential: $cred" --data-binary "$other" "$URL/v1/healthcheck")
check "a body naming another node than the credential: 400 (got $code)" test "$code" = 400
wait_rows node-02 6
check "only the well-formed one recorded: node-02 has 6 checks ($(rows node-02 | wc -l))" test "$(rows node-02 | wc -l)" = 6

# ---- no Slurm: never attrib's node -------------------------------------------
check "Undrain = auto, passing checks of a node attrib did not drain: no decision recorded" test -z "$(drain_rows)"
"$A" undrain node-02 --config "$T/attrib.conf" 2>"$T/undrain.err"
rc=$?
check "attrib undrain node-02 without Slurm: refused, exit 5 (got $rc: $(cat "$T/undrain.err"))" test "$rc" = 5
check "... and recorded with who asked ($(drain_rows))" sh -c "echo '$(drain_rows)' | grep -q '^-|node-02|undrain refused|attrib undrain (uid 0'"

# ---- the service down: the check's status, soon ---------------------------------
stop
health node-02 "$T/check-bad"
check "service down: still the check's exit status 3 (got $rc)" test "$rc" = 3
check "... within 7 s (took $ms ms)" test "$ms" -lt 7000

finish
