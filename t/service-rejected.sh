#!/bin/bash
# Refused bundles said in the diagnosis, and attribd --check: the real
# attribd and a private munged made to put 127.0.1.1 in its credentials
# (--origin), as a node's munged does when Debian's /etc/hosts maps its
# own name to 127.0.1.1.  NodeAddresses gives node-01 and node-03 that
# address and node-02 another, so node-02's bundle is refused (403, origin)
# as an administrator's whose munged resolves its host to the wrong
# address.  After BundleDeadline the stored diagnosis of the job carries
# node-02's coverage entry with the reason, not only "missing"; a
# credential out of time (munge -t 1) says so too; attribd --check names
# node-02's refusal, node-01's kernel messages and node-03's lack of them.
# Needs root, munged, munge, curl: skipped (77) otherwise.
set -u

A=${ATTRIB:-./attrib}
AD=${ATTRIBD:-$(dirname "$A")/attribd}
SRC=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
export PATH=$PATH:/usr/sbin:/sbin
. "$SRC/t/lib/check.sh"
. "$SRC/t/lib/service.sh"

[ "$(id -u)" = 0 ] || skip "needs root"
for c in munged munge curl sha256sum; do
	command -v "$c" >/dev/null || skip "no $c"
done

T=$(mktemp -d /tmp/attrib-rejected-XXXXXX)
chmod 0711 "$T"
spid='' mpid=''
cleanup() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
	[ -n "$mpid" ] && kill "$mpid" 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT

mkdir -p "$T/munge" && chmod 0711 "$T/munge"
dd if=/dev/urandom of="$T/munge/key" bs=1024 count=1 2>/dev/null
chmod 0600 "$T/munge/key"
SOCK=$T/munge/sock
munged --socket="$SOCK" --key-file="$T/munge/key" --pid-file="$T/munge/pid" \
	--log-file="$T/munge/log" --seed-file="$T/munge/seed" --origin=127.0.1.1 || skip "munged does not start"
for _ in $(seq 50); do [ -S "$SOCK" ] && break; sleep 0.1; done
mpid=$(cat "$T/munge/pid")
export ATTRIB_MUNGE_SOCKET=$SOCK
export SLURM_CONF=$T/no-slurm.conf

port=$(free_port $((20000 + ($$ + 7) % 20000)))
[ -n "$port" ] || skip "no free port"
mkdir -p "$T/spool/jobs"
cat >"$T/attrib.conf" <<EOF
SpoolDir = $T/spool
StateDir = $T/state
RulesDir = $SRC/rules
Listen = 127.0.0.1:$port
BundleDeadline = 2
ReconcileInterval = 0
LogFile = $T/attrib.log
NodeAddresses = node-01=127.0.1.1, node-02=127.0.0.2, node-03=127.0.1.1
EOF
URL=http://127.0.0.1:$port

# post JOB NODE FILE [TTL]: the HTTP status; the answer in $T/resp
post() {
	local cred
	cred=$(munge -S "$SOCK" ${4:+-t "$4"} -s "attrib-bundle:v1:$1:$2:$(sha256sum <"$3" | cut -d' ' -f1)")
	[ -n "${4:-}" ] && sleep $(($4 + 2))
	curl -s -o "$T/resp" -w '%{http_code}' -H 'Content-Type: application/json' \
		-H "X-Attrib-Credential: $cred" --data-binary @"$3" "$URL/v1/bundle"
}
bundle() { # JOB NODE ORIGIN > file: a quiet log of that origin
	printf '{"schema":"attrib.bundle/v1","job_id":"%s","node":"%s","collected_at":"%s","files":[{"name":"kern.log","source":"/dev/kmsg","origin":"%s","text":"%s %s kernel: eth0: link up\\n"}],"ranks":[],"coverage":[]}' \
		"$1" "$2" "$(date -u +%FT%TZ)" "$3" "$(date -u +%FT%TZ)" "$2"
}
record() { # JOB
	local t0 t1
	t0=$(date -u -d '-10 min' +%FT%TZ) t1=$(date -u -d '-1 min' +%FT%TZ)
	printf '{"schema":"attrib.job/v1","job_id":"%s","user":"ana","uid":0,"gid":0,"attempt":0,"nodes":["node-01","node-02","node-03"],"start_time":"%s","end_time":"%s","state":"FAILED","exit_code":"1:0"}' \
		"$1" "$t0" "$t1" >"$T/spool/jobs/.$1.0.json.tmp"
	mv "$T/spool/jobs/.$1.0.json.tmp" "$T/spool/jobs/$1.0.json"
}
stored() { # JOB: the stored result (compact) in $T/JOB.json, within 60 s
	for _ in $(seq 600); do
		"$A" show "$1" --json --config "$T/attrib.conf" 2>/dev/null | tr -d '\n' | sed 's/  */ /g; s/": /":/g' >"$T/$1.json" &&
			[ -s "$T/$1.json" ] && return 0
		sleep 0.1
	done
	return 1
}

if ! start; then
	bad "attribd starts"
	cat "$T/serve.err" "$T/attrib.log" 2>/dev/null | sed 's/^/#   /'
	finish
fi
ok "attribd starts (munged puts 127.0.1.1 in its credentials)"

# ---- a job: node-02's bundle refused for its origin ----
record 700
bundle 700 node-01 kernel >"$T/b1.json"
bundle 700 node-02 kernel >"$T/b2.json"
bundle 700 node-03 file >"$T/b3.json"
check "node-01's bundle (made on 127.0.1.1, its address): 202" test "$(post 700 node-01 "$T/b1.json")" = 202
check "node-02's bundle (made on 127.0.1.1, not its address): 403" test "$(post 700 node-02 "$T/b2.json")" = 403
check "the answer says why" grep -q 'credential made on 127.0.1.1, not an address of node-02; see munged --origin' "$T/resp"
check "node-03's bundle: 202" test "$(post 700 node-03 "$T/b3.json")" = 202
check "the refusal is kept for the job" test -s "$T/state/rejected/700/node-02.json"
if stored 700; then ok "diagnosed after BundleDeadline"; else bad "diagnosed after BundleDeadline"; fi
want='{ "source":"nodes/node-02", "status":"error", "detail":"rejected: credential made on 127.0.1.1, not an address of node-02; see munged --origin" }'
check "the diagnosis: node-02's coverage entry says the bundle was refused and why" grep -qF "$want" "$T/700.json"
check "... beside the engine's: missing" grep -qF '{ "source":"nodes/node-02", "status":"missing", "detail":"no evidence collected from this node" }' "$T/700.json"
check "no such entry for node-01 or node-03 (their bundles came)" sh -c "! grep -q 'nodes/node-0[13]\", \"status\":\"error\", \"detail\":\"rejected' '$T/700.json'"
"$A" show 700 --config "$T/attrib.conf" >"$T/700.txt" 2>&1
check "attrib show says it" grep -q 'nodes/node-02 (error): rejected: credential made on 127.0.1.1, not an address of node-02' "$T/700.txt"

# ---- a credential out of time (TTL 1 s, sent 3 s later), before the record ----
bundle 701 node-01 kernel >"$T/b4.json"
bundle 701 node-03 file >"$T/b6.json"
check "node-01's bundle of job 701 with an expired credential: 403" test "$(post 701 node-01 "$T/b4.json" 1)" = 403
record 701
check "node-03's bundle of job 701: 202" test "$(post 701 node-03 "$T/b6.json")" = 202
if stored 701; then ok "job 701 diagnosed"; else bad "job 701 diagnosed"; fi
check "its coverage: node-01's bundle refused, expired" grep -qF '{ "source":"nodes/node-01", "status":"error", "detail":"rejected: Expired credential' "$T/701.json"
check "a refusal of job 700 is not job 701's (node-02 only missing there)" sh -c "! grep -q 'node-02\", \"status\":\"error\"' '$T/701.json'"

# ---- attribd --check ----
"$AD" --check --config "$T/attrib.conf" >"$T/check.out" 2>"$T/check.err"
rc=$?
sed 's/^/#   /' "$T/check.out"
check "attribd --check: exit 2 (a node with a problem)" test "$rc" = 2
check "it tells this host's munged's origin" grep -q 'its munged makes credentials from 127.0.1.1' "$T/check.out"
check "node-02: the addresses taken, the refusal and why" sh -c "
	awk '/^node-02\$/,/^    (ok|PROBLEM)\$/' '$T/check.out' >'$T/n2' &&
	grep -q 'credentials taken from: 127.0.0.2 (NodeAddresses)' '$T/n2' &&
	grep -q 'refused in the last day: 1 bundle; the latest, job 700 at .*: credential made on 127.0.1.1, not an address of node-02; see munged --origin' '$T/n2' &&
	grep -q PROBLEM '$T/n2'"
check "node-01: kernel messages in its latest bundle (job 700's; 701's was refused)" sh -c "
	awk '/^node-01\$/,/^    (ok|PROBLEM)\$/' '$T/check.out' >'$T/n1' &&
	grep -q 'kernel messages: yes in its latest bundle (case 700.0: kern.log: kernel)' '$T/n1' &&
	grep -q 'refused in the last day: 1 bundle; the latest, job 701 at .*: Expired credential' '$T/n1'"
check "node-03: no kernel messages in its latest bundle, said" sh -c "
	awk '/^node-03\$/,/^    (ok|PROBLEM)\$/' '$T/check.out' >'$T/n3' &&
	grep -q 'kernel messages: NONE in its latest bundle (case 701.0: kern.log: file)' '$T/n3' &&
	grep -q PROBLEM '$T/n3'"
check "3 nodes, each listed once" test "$(grep -c '^node-0[123]$' "$T/check.out")" = 3
check "attribd --help documents --check" sh -c "'$AD' --help | grep -q -- '--check'"

stop
check "attribd stops cleanly" test $? -eq 0
finish
