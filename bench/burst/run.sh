#!/bin/bash
# The end of a large job (bench/README.md, section 5): NODES nodes' bundles
# sent to `attribd` within SPREAD seconds, each from its own loopback
# address with a MUNGE credential made there, then the diagnosis.
#
#   bench/burst/run.sh [NODES [LINES [SPREAD]]]      default 2048 1000 2.0
#
# NODES x 8 ranks (gencase.py: 2,048 nodes = 16,384 GPUs); LINES lines of
# each node's log over the 26 minutes around a 15-minute job (its window);
# the batch host's output of every rank in app/.  Needs root (the service
# reads job output as the job's user, and MUNGE credentials must be
# root's), munged, munge, python3: exit 77 (skip) otherwise.  Environment:
# ATTRIB (./attrib), OUT (where summary.json and the logs stay; a temporary
# directory, removed, by default), KEEP=1 keeps the temporary one,
# STATE (StateDir: another file system, e.g. /dev/shm/x, to see what the
# disk costs), CONF_EXTRA (lines added to attrib.conf, e.g. "HttpThreads = 16").
set -u
NODES=${1:-2048}
LINES=${2:-1000}
SPREAD=${3:-2.0}
A=${ATTRIB:-./attrib}
SRC=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
export PATH=$PATH:/usr/sbin:/sbin

skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root"
for c in munged munge python3; do command -v "$c" >/dev/null || skip "no $c"; done
[ -x "$A" ] || skip "no $A (make first)"
A=$(cd "$(dirname "$A")" && pwd)/$(basename "$A")

T=$(mktemp -d /tmp/attrib-burst-XXXXXX)
chmod 0711 "$T"
spid='' mpid=''
cleanup() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
	[ -n "$mpid" ] && kill "$mpid" 2>/dev/null
	if [ -n "${OUT:-}" ]; then
		mkdir -p "$OUT" && cp "$T"/summary.json "$T"/attrib.log "$T"/show.txt "$OUT"/ 2>/dev/null
	fi
	[ "${KEEP:-0}" = 1 ] && echo "kept $T" || rm -rf "$T"
}
trap cleanup EXIT

echo "== case: $NODES nodes x 8 GPUs, $LINES log lines a node"
python3 "$SRC/bench/engine/gencase.py" --nodes "$NODES" --lines "$LINES" --job-hours 0.25 \
	--days 0.018 --out "$T/case" || exit 1

mkdir -p "$T/munge" && chmod 0711 "$T/munge"
dd if=/dev/urandom of="$T/munge/key" bs=1024 count=1 2>/dev/null
chmod 0600 "$T/munge/key"
SOCK=$T/munge/sock
munged --socket="$SOCK" --key-file="$T/munge/key" --pid-file="$T/munge/pid" \
	--log-file="$T/munge/log" --seed-file="$T/munge/seed" ||
	skip "munged does not start"
for _ in $(seq 600); do [ -S "$SOCK" ] && break; sleep 0.1; done	# (>= 60 s)
mpid=$(cat "$T/munge/pid")
export ATTRIB_MUNGE_SOCKET=$SOCK
export SLURM_CONF=$T/no-slurm.conf

port=
for p in $(seq $((22000 + $$ % 20000)) $((22050 + $$ % 20000))); do
	(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { port=$p; break; }
done
[ -n "$port" ] || skip "no free port"
mkdir -p "$T/spool/jobs"
# each node's own address (burst.py's node_addr); the Http* keys at their
# defaults: what is measured is what ships
addrs=$(python3 -c "
import json, sys
sys.dont_write_bytecode = True
sys.path.insert(0, '$SRC/bench/burst')
from burst import node_addr
nodes = json.load(open('$T/case/job.json'))['nodes']
print(', '.join(f'{n}={node_addr(i)}' for i, n in enumerate(nodes)))")
cat >"$T/attrib.conf" <<EOF
SpoolDir = $T/spool
StateDir = ${STATE:-$T/state}
RulesDir = $SRC/rules
Listen = 127.0.0.1:$port
BundleDeadline = 120
ReconcileInterval = 0
LogFile = $T/attrib.log
NodeAddresses = $addrs
${CONF_EXTRA:-}
EOF
URL=http://127.0.0.1:$port
"${ATTRIBD:-$(dirname "$A")/attribd}" --config "$T/attrib.conf" --foreground 2>>"$T/serve.err" &
spid=$!
up=
for _ in $(seq 600); do	# (>= 60 s)
	python3 -c "import urllib.request as u; u.urlopen('$URL/v1/health', timeout=1)" 2>/dev/null && { up=1; break; }
	kill -0 "$spid" 2>/dev/null || break
	sleep 0.1
done
[ -n "$up" ] || { cat "$T/serve.err"; echo "FAIL: attribd did not start"; exit 1; }

echo "== burst: $NODES bundles within $SPREAD s (service pid $spid, load $(cut -d' ' -f1-3 /proc/loadavg))"
python3 "$SRC/bench/burst/burst.py" --case "$T/case" --state "${STATE:-$T/state}" --spool "$T/spool" \
	--url "$URL" --service-pid "$spid" --munge-key "$T/munge/key" --out-dir "$T" --spread "$SPREAD"
rc=$?
"$A" show 4815162 --config "$T/attrib.conf" >"$T/show.txt" 2>&1 && head -5 "$T/show.txt"
# the forged credential's, and only it
grep "rejected" "$T/attrib.log" | sed 's/^[^ ]* [^ ]* /rejected: /'
[ $rc = 0 ] && echo "PASS: every bundle accepted, the planted culprit diagnosed" || echo "FAIL (see above)"
exit $rc
