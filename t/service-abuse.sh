#!/bin/bash
# attrib serve under abuse, and evidence that comes late; loopback only
# (127.0.X.Y source addresses play the many hosts), no Slurm.
#
#   slow   160 connections from 20 addresses send request heads a byte
#          every 500 ms (opened again when closed) for 14 s, while 3 jobs'
#          12 genuine bundles are sent;
#   burst  1,000 half-sent requests from 100 addresses opened at once and
#          held 14 s, while 3 more jobs' 12 bundles are sent;
#   late   a job diagnosed at BundleDeadline without node-02's bundle;
#          node-02's bundle arrives then (as from a collector's outbox).
#
# Throughout, /v1/health is asked every 0.2 s with a 1 s limit: every
# answer must be 200 within 1 s.  Every genuine bundle must be taken (202)
# and used in its job's diagnosis (no node "missing"); the late bundle must
# revise the stored diagnosis ("revised": 1, the culprit found, the comment
# queued again, attrib show saying so).  Before the fix, 64 connections
# took the whole service.  Needs root, munged, munge, curl: skipped (77)
# otherwise.
set -u

A=${ATTRIB:-./attrib}
ATTACK=${ATTACK:-./t/http-attack}
SRC=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
EX=$SRC/examples/xid149-nvlink
export PATH=$PATH:/usr/sbin:/sbin
. "$SRC/t/lib/check.sh"
. "$SRC/t/lib/service.sh"

[ "$(id -u)" = 0 ] || skip "needs root"
for c in munged munge curl sha256sum python3; do
	command -v "$c" >/dev/null || skip "no $c"
done
[ -x "$ATTACK" ] || skip "no $ATTACK"

T=$(mktemp -d /tmp/attrib-abuse-XXXXXX)
chmod 0711 "$T"
spid='' mpid='' probe='' attack=''
cleanup() {
	[ -n "$attack" ] && kill "$attack" 2>/dev/null
	[ -n "$probe" ] && kill "$probe" 2>/dev/null
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
# --origin: the address the credentials carry, the nodes' own (NodeAddresses)
munged --socket="$SOCK" --key-file="$T/munge/key" --pid-file="$T/munge/pid" \
	--log-file="$T/munge/log" --seed-file="$T/munge/seed" --origin=127.0.0.1 ||
	skip "munged does not start"
wait_for 60 test -S "$SOCK"
mpid=$(cat "$T/munge/pid")
export ATTRIB_MUNGE_SOCKET=$SOCK
export SLURM_CONF=$T/no-slurm.conf

port=$(free_port $((21000 + $$ % 20000)))
[ -n "$port" ] || skip "no free port"
mkdir -p "$T/spool/jobs" "$T/out"
# the Http* keys at their defaults: what is tested is what ships
cat >"$T/attrib.conf" <<EOF
SpoolDir = $T/spool
StateDir = $T/state
RulesDir = $SRC/rules
Listen = 127.0.0.1:$port
BundleDeadline = 4
ReconcileInterval = 0
LogFile = $T/attrib.log
NodeAddresses = node-01=127.0.0.1, node-02=127.0.0.1, node-03=127.0.0.1, node-04=127.0.0.1
EOF
URL=http://127.0.0.1:$port

json_text() {
	awk 'BEGIN { ORS = ""; print "\"" }
	     { gsub(/\\/, "\\\\"); gsub(/"/, "\\\""); gsub(/\t/, "\\t"); gsub(/\r/, "\\r"); print $0 "\\n" }
	     END { print "\"" }' "$1"
}
make_bundle() { # JOB NODE > file
	local job=$1 node=$2 f files=
	for f in "$EX/nodes/$node"/*; do
		files="${files:+$files,}{\"name\":\"$(basename "$f")\",\"source\":\"/var/log/$(basename "$f")\",\"origin\":\"kernel\",\"text\":$(json_text "$f")}"
	done
	printf '{"schema":"attrib.bundle/v1","job_id":"%s","node":"%s","collected_at":"2026-11-29T08:15:00Z","files":[%s],"ranks":[{"rank":0,"node":"%s","local_rank":0,"gpu":"0","step":"0"}],"coverage":[]}' \
		"$job" "$node" "$files" "$node"
}
make_record() { # JOB > file
	sed -e "s/\"job_id\": \"4242\"/\"job_id\": \"$1\"/" \
		-e "s|^{|{\"uid\": 0, \"gid\": 0, \"attempt\": 0, \"std_out\": \"$T/out/slurm-$1.out\",|" "$EX/job.json"
}
# post_bundle JOB NODE: the HTTP status (a collector's budget: 8 s)
post_bundle() {
	local f=$T/b-$1-$2.json cred
	make_bundle "$1" "$2" >"$f"
	cred=$(munge -S "$SOCK" -s "attrib-bundle:v1:$1:$2:$(sha256sum <"$f" | cut -d' ' -f1)")
	curl -s -o /dev/null -m 8 -w '%{http_code}' -H 'Content-Type: application/json' \
		-H "X-Attrib-Credential: $cred" --data-binary @"$f" "$URL/v1/bundle"
}
# a job whose 4 bundles are sent, then its record: prints how many got 202
genuine_job() {
	local j=$1 n ok=0
	cp "$EX/app/slurm-4242.out" "$T/out/slurm-$j.out"
	for n in node-01 node-02 node-03 node-04; do
		[ "$(post_bundle "$j" $n)" = 202 ] && ok=$((ok + 1))
	done
	make_record "$j" >"$T/spool/jobs/.$j.0.json.tmp"
	mv "$T/spool/jobs/.$j.0.json.tmp" "$T/spool/jobs/$j.0.json"
	echo "$ok"
}
stored() { "$A" show "$1" --json --config "$T/attrib.conf" >"$T/show-$1.json" 2>/dev/null; }
show_json() { wait_for 120 stored "$1"; } # JOB: waits (120 s) for the stored result
# missing NODE-coverage entries of a stored result
missing_nodes() {
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))
print(",".join(c["source"] for c in r.get("coverage",[]) if c.get("status")=="missing" and c["source"].startswith("nodes/")))' "$1"
}
# health probes: one every 0.2 s, 1 s limit; "SECONDS CODE" per line
start_probe() {
	: >"$T/probe-$1"
	(while :; do
		curl -s -o /dev/null -m 1 -w '%{time_total} %{http_code}\n' "$URL/v1/health" >>"$T/probe-$1" 2>/dev/null ||
			echo "1.000 000" >>"$T/probe-$1"
		sleep 0.2
	done) &
	probe=$!
}
stop_probe() { kill "$probe" 2>/dev/null; wait "$probe" 2>/dev/null; probe=; }
probe_report() { # NAME: "N probes, max S s, bad B"
	awk '{ n++; if ($1 > m) m = $1; if ($2 != 200 || $1 >= 1) b++ }
	     END { printf "%d probes, max %.3f s, bad %d\n", n, m, b }' "$T/probe-$1"
}

if ! start; then
	bad "attrib serve starts"
	cat "$T/serve.err" "$T/attrib.log" 2>/dev/null | sed 's/^/#   /'
	finish
fi
ok "attrib serve starts"

# ---- slow heads --------------------------------------------------------------
start_probe slow
t0=$(date +%s.%N)
"$ATTACK" slow "$port" 127.0.2.1 20 8 14 >"$T/attack-slow" 2>&1 &
attack=$!
sleep 2
got=0
for j in 601 602 603; do got=$((got + $(genuine_job $j))); done
t1=$(date +%s.%N)
wait "$attack"; attack=
stop_probe
echo "# $(cat "$T/attack-slow")"
echo "# slow: 12 genuine bundles sent in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a - 2 }') s; health: $(probe_report slow)"
check "slow heads: all 12 genuine bundles taken (202)" test "$got" = 12
check "slow heads: /v1/health answered 200 within 1 s throughout" \
	sh -c "[ \"\$(awk '\$2 != 200 || \$1 >= 1' '$T/probe-slow' | wc -l)\" = 0 ] && [ \"\$(wc -l <'$T/probe-slow')\" -ge 20 ]"
curl -s "$URL/metrics" >"$T/metrics"
check "slow heads: cut at HttpHeaderTimeout (counted)" grep -Eq '^attrib_http_header_timeouts_total [1-9]' "$T/metrics"
for j in 601 602 603; do
	if show_json $j; then
		check "job $j: every bundle used (no node missing)" test -z "$(missing_nodes "$T/show-$j.json")"
	else
		bad "job $j: diagnosed"
	fi
done

# ---- a burst of half-sent requests -------------------------------------------
start_probe burst
"$ATTACK" burst "$port" 127.0.3.1 100 10 14 >"$T/attack-burst" 2>&1 &
attack=$!
sleep 3
got=0
for j in 611 612 613; do got=$((got + $(genuine_job $j))); done
wait "$attack"; attack=
stop_probe
echo "# $(cat "$T/attack-burst")"
echo "# burst: health: $(probe_report burst)"
check "burst: all 12 genuine bundles taken (202)" test "$got" = 12
check "burst: /v1/health answered 200 within 1 s throughout" \
	sh -c "[ \"\$(awk '\$2 != 200 || \$1 >= 1' '$T/probe-burst' | wc -l)\" = 0 ] && [ \"\$(wc -l <'$T/probe-burst')\" -ge 20 ]"
for j in 611 612 613; do
	if show_json $j; then
		check "job $j: every bundle used (no node missing)" test -z "$(missing_nodes "$T/show-$j.json")"
	else
		bad "job $j: diagnosed"
	fi
done
check "the service still runs" kill -0 "$spid"

# ---- late evidence -----------------------------------------------------------
j=620
cp "$EX/app/slurm-4242.out" "$T/out/slurm-$j.out"
for n in node-01 node-03 node-04; do post_bundle $j $n >/dev/null; done
# written as jobcomp/attrib writes a record, whole or not at all: attribd
# may see the file between its creation and its last byte (on a loaded
# machine it did, and put the half record in quarantine)
make_record $j >"$T/spool/jobs/.$j.0.json.tmp"
mv "$T/spool/jobs/.$j.0.json.tmp" "$T/spool/jobs/$j.0.json"
if show_json $j; then
	ok "job $j diagnosed at BundleDeadline without node-02"
else
	bad "job $j diagnosed at BundleDeadline without node-02"
	finish
fi
check "the first diagnosis lists nodes/node-02 as missing" test "$(missing_nodes "$T/show-$j.json")" = nodes/node-02
cp "$T/show-$j.json" "$T/first.json"
tl=$(date +%s.%N)
check "node-02's late bundle: 202" test "$(post_bundle $j node-02)" = 202
revised=
is_revised() {
	"$A" show $j --json --config "$T/attrib.conf" >"$T/show-$j.json" 2>/dev/null
	revised=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("revised",""))' "$T/show-$j.json" 2>/dev/null)
	[ -n "$revised" ]
}
wait_for 120 is_revised
echo "# late: first $(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["sub_domain"], r.get("culprit_nodes"), (r.get("root_cause") or {}).get("code"))' "$T/first.json"), revised to $(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["sub_domain"], r.get("culprit_nodes"), (r.get("root_cause") or {}).get("code"))' "$T/show-$j.json" 2>/dev/null) $(awk -v a="$tl" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s after the late bundle"
check "the stored diagnosis is revised (\"revised\": 1)" test "$revised" = 1
check "node-02 is no longer missing" test -z "$(missing_nodes "$T/show-$j.json")"
check "the revision names the late node and what was said before" python3 -c '
import json,sys; r=json.load(open(sys.argv[1])); f=json.load(open(sys.argv[2]))
v=r["revisions"][0]
assert "node-02" in v["reason"], v
assert v["before"]["sub_domain"] == f["sub_domain"], (v, f["sub_domain"])' "$T/show-$j.json" "$T/first.json"
# without node-02's kernel log the root was the application's NVLink error;
# with it, the Xid 149 on node-02 itself
check "revised: the root is node-02's Xid 149 (it was not before)" python3 -c '
import json,sys; r=json.load(open(sys.argv[1])); f=json.load(open(sys.argv[2]))
assert r["sub_domain"] == "InfraHW" and r["culprit_nodes"] == ["node-02"], r["sub_domain"]
assert r["root_cause"]["code"].startswith("xid."), r["root_cause"]["code"]
assert (f.get("root_cause") or {}).get("code") != r["root_cause"]["code"]
assert r["revisions"][0]["before"]["root_code"] == (f.get("root_cause") or {}).get("code")' "$T/show-$j.json" "$T/first.json"
"$A" show $j --config "$T/attrib.conf" >"$T/show.txt" 2>&1
check "attrib show says it was revised" grep -q '^Revised .*late bundles from node-02' "$T/show.txt"
check "still one result for the job" test "$("$A" list --json --config "$T/attrib.conf" | grep -Ec "\"job_id\": ?\"$j\"")" = 1
curl -s "$URL/metrics" >"$T/metrics"
check "metrics: 1 job revised" grep -qx 'attrib_jobs_revised_total 1' "$T/metrics"
check "the revised summary is queued for AdminComment" python3 -c '
import sqlite3,sys; db=sqlite3.connect("file:"+sys.argv[1]+"?mode=ro", uri=True)
t=db.execute("select text, done from comment_queue where job_id=?", (sys.argv[2],)).fetchall()
assert len(t) == 1 and t[0][1] == 0 and "InfraHW node-02" in t[0][0] and "(revised)" in t[0][0], t' \
	"$T/state/attrib.db" $j
check "the log says why" grep -q "job $j attempt 0: bundles after the diagnosis (node-02): revising" "$T/attrib.log"
# the collector sending it once more (its answer was lost): dropped, no second revision
check "node-02's bundle sent again: 202" test "$(post_bundle $j node-02)" = 202
check "sent again: dropped, said in the log" \
	wait_for 120 grep -q "job $j: node-02.json's bundle came again after the diagnosis; dropped" "$T/attrib.log"
"$A" show $j --json --config "$T/attrib.conf" >"$T/show-$j.json" 2>/dev/null
check "sent again: still \"revised\": 1" python3 -c '
import json,sys; assert json.load(open(sys.argv[1]))["revised"] == 1' "$T/show-$j.json"
check "SIGTERM stops the service" stop
finish
