#!/bin/bash
# attrib serve end to end on one machine, without Slurm: a private munged,
# the real `attrib serve --foreground`, a job record dropped into SpoolDir
# and one bundle per node POSTed with curl (credentials from the munge
# command).  Checks the diagnosis through `attrib show` and `attrib list`,
# that inputs are consumed, modes, that a restart after a "crash" (the
# record back in the spool) attributes nothing twice, that COMPLETED jobs
# get no diagnosis, that bad bundles are refused while the service answers
# on, the comment queue without slurmdbd, and start in the background.
# Needs root, munged, munge, curl: skipped (77) otherwise.
set -u

A=${ATTRIB:-./attrib}
AD=${ATTRIBD:-$(dirname "$A")/attribd}
SRC=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
EX=$SRC/examples/xid149-nvlink
export PATH=$PATH:/usr/sbin:/sbin
. "$SRC/t/lib/check.sh"
. "$SRC/t/lib/service.sh"

[ "$(id -u)" = 0 ] || skip "needs root"
for c in munged munge curl sha256sum; do
	command -v "$c" >/dev/null || skip "no $c"
done

T=$(mktemp -d /tmp/attrib-serve-XXXXXX)
chmod 0711 "$T"
spid='' mpid='' bgpid=''
cleanup() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
	[ -n "$bgpid" ] && kill "$bgpid" 2>/dev/null
	[ -n "$mpid" ] && kill "$mpid" 2>/dev/null
	sleep 0.2
	rm -rf "$T"
}
trap cleanup EXIT

# ---- a private munged ----
mkdir -p "$T/munge" && chmod 0711 "$T/munge"
dd if=/dev/urandom of="$T/munge/key" bs=1024 count=1 2>/dev/null
chmod 0600 "$T/munge/key"
SOCK=$T/munge/sock
# --origin: the address credentials carry, the nodes' own below (NodeAddresses)
munged --socket="$SOCK" --key-file="$T/munge/key" --pid-file="$T/munge/pid" \
	--log-file="$T/munge/log" --seed-file="$T/munge/seed" --origin=127.0.0.1 || skip "munged does not start"
wait_for 60 test -S "$SOCK"
mpid=$(cat "$T/munge/pid")
export ATTRIB_MUNGE_SOCKET=$SOCK
export SLURM_CONF=$T/no-slurm.conf	# no Slurm: summaries stay queued

# ---- configuration ----
port=$(free_port $((20000 + $$ % 20000)))
[ -n "$port" ] || skip "no free port"
mkdir -p "$T/spool/jobs" "$T/out"
cat >"$T/attrib.conf" <<EOF
SpoolDir = $T/spool
StateDir = $T/state
RulesDir = $SRC/rules
# the output files are on this host: the service reads them itself
ReadJobOutput = yes
Listen = 127.0.0.1:$port
BundleDeadline = 30
ReconcileInterval = 0
LogFile = $T/attrib.log
NodeAddresses = node-01=127.0.0.1, node-02=127.0.0.1, node-03=127.0.0.1, node-04=127.0.0.1
EOF
URL=http://127.0.0.1:$port


# a JSON string of a file's text
json_text() {
	awk 'BEGIN { ORS = ""; print "\"" }
	     { gsub(/\\/, "\\\\"); gsub(/"/, "\\\""); gsub(/\t/, "\\t"); gsub(/\r/, "\\r"); print $0 "\\n" }
	     END { print "\"" }' "$1"
}
# post_bundle JOB NODE FILE [CRED]: prints the HTTP status
post_bundle() {
	local job=$1 node=$2 body=$3 cred=${4:-}
	if [ -z "$cred" ]; then
		cred=$(munge -S "$SOCK" -s "attrib-bundle:v1:$job:$node:$(sha256sum <"$body" | cut -d' ' -f1)")
	fi
	curl -s -o "$T/resp" -w '%{http_code}' -H 'Content-Type: application/json' \
		-H "X-Attrib-Credential: $cred" --data-binary @"$body" "$URL/v1/bundle"
}
make_bundle() { # JOB NODE > file (the example's node logs, as read from the kernel)
	local job=$1 node=$2 f files=
	for f in "$EX/nodes/$node"/*; do
		files="${files:+$files,}{\"name\":\"$(basename "$f")\",\"source\":\"/var/log/$(basename "$f")\",\"origin\":\"kernel\",\"text\":$(json_text "$f")}"
	done
	printf '{"schema":"attrib.bundle/v1","job_id":"%s","node":"%s","collected_at":"2026-11-29T08:15:00Z","files":[%s],"ranks":[{"rank":0,"node":"%s","local_rank":0,"gpu":"0","step":"0"}],"coverage":[]}' \
		"$job" "$node" "$files" "$node"
}
make_record() { # JOB STATE > file (the example job, output read as root, a long user name)
	sed -e 's/"user": "[^"]*"/"user": "maximiliana"/' -e "s/\"job_id\": \"4242\"/\"job_id\": \"$1\"/" -e "s/\"state\": \"FAILED\"/\"state\": \"$2\"/" \
		-e "s|^{|{\"uid\": 0, \"gid\": 0, \"attempt\": 0, \"std_out\": \"$T/out/slurm-$1.out\",|" "$EX/job.json"
}

# ---- bad configuration and catalog ----
printf 'Listen = nowhere\n' >"$T/bad.conf"
"$A" serve --config "$T/bad.conf" --foreground >/dev/null 2>"$T/err"
check "bad attrib.conf, through attrib serve (it runs attribd): exit 1 naming the line" sh -c "[ $? -eq 1 ] && grep -q 'bad.conf:1:' '$T/err'"
mkdir -p "$T/badrules" && printf 'codes: [\n' >"$T/badrules/x.yaml"
sed "s|^RulesDir = .*|RulesDir = $T/badrules|" "$T/attrib.conf" >"$T/badrules.conf"
"$AD" --config "$T/badrules.conf" --foreground >/dev/null 2>&1
check "invalid rule catalog: exit 3" test $? -eq 3

# ---- start ----
if ! start; then
	bad "attrib serve starts"
	cat "$T/serve.err" "$T/attrib.log" 2>/dev/null | sed 's/^/#   /'
	finish
fi
ok "attrib serve starts and answers /v1/health"
check "StateDir is 0700" test "$(stat -c %a "$T/state")" = 700
check "the store is 0600" test "$(stat -c %a "$T/state/attrib.db")" = 600

# ---- a failed job: record first, then the four bundles ----
cp "$EX/app/slurm-4242.out" "$T/out/slurm-500.out"
make_record 500 FAILED >"$T/spool/jobs/.500.0.json.tmp"
mv "$T/spool/jobs/.500.0.json.tmp" "$T/spool/jobs/500.0.json"
for n in node-01 node-02 node-03; do
	make_bundle 500 $n >"$T/b-$n.json"
	check "bundle of $n: 202" test "$(post_bundle 500 $n "$T/b-$n.json")" = 202
done
sleep 1.5
check "not attributed while node-04's bundle is missing" sh -c "! '$A' show 500 --config '$T/attrib.conf' >/dev/null 2>&1"
make_bundle 500 node-04 >"$T/b-node-04.json"
cred4=$(munge -S "$SOCK" -s "attrib-bundle:v1:500:node-04:$(sha256sum <"$T/b-node-04.json" | cut -d' ' -f1)")
check "bundle of node-04: 202" test "$(post_bundle 500 node-04 "$T/b-node-04.json" "$cred4")" = 202
check "the same credential again: 403" test "$(post_bundle 500 node-04 "$T/b-node-04.json" "$cred4")" = 403
check "no credential: 401" test "$(curl -s -o /dev/null -w '%{http_code}' --data-binary @"$T/b-node-04.json" "$URL/v1/bundle")" = 401

stored() { "$A" show 500 --json --config "$T/attrib.conf" >"$T/show.json" 2>/dev/null; }
wait_for 120 stored
check "attrib show --json: the stored result" grep -Eq '"schema": ?"attrib.result/v1"' "$T/show.json"
check "diagnosis: InfraHW" grep -Eq '"sub_domain": ?"InfraHW"' "$T/show.json"
check "diagnosis: node-02 is the culprit" sh -c "tr -d ' \n' <'$T/show.json' | grep -q '\"culprit_nodes\":\[\"node-02\"\]'"
root_of() { tr -d ' \n' | grep -o '"root_cause":{"symptom":"[^"]*","code":"[^"]*"'; }
r1=$(root_of <"$T/show.json") r2=$("$A" analyze "$EX" --json | root_of)
check "the same root cause as attrib analyze on the example" test -n "$r1" -a "$r1" = "$r2"
"$A" show 500 --config "$T/attrib.conf" >"$T/show.txt" 2>&1
check "attrib show: the text diagnosis" grep -q 'NVRM: Xid' "$T/show.txt"
check "the record was consumed" test ! -e "$T/spool/jobs/500.0.json"
check "the bundles were consumed" test ! -e "$T/state/incoming/500"
check "the case is kept (0700)" test "$(stat -c %a "$T/state/cases/500.0")" = 700
check "the job's output is in the case" test -s "$T/state/cases/500.0/app/slurm-500.out"
check "case files are 0600" test "$(stat -c %a "$T/state/cases/500.0/job.json")" = 600
# one job, one truth: attrib analyze --json of the stored case prints the
# stored result (attrib show --json, without the fleet findings it adds)
"$A" analyze --json "$T/state/cases/500.0" >"$T/analyze.json" 2>/dev/null
canon() { # file: the JSON with the keys in their order, "findings" left out
	python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); r.pop("findings", None); print(json.dumps(r, indent=2))' "$1"
}
canon "$T/show.json" >"$T/stored.json" 2>/dev/null
canon "$T/analyze.json" >"$T/analyzed.json" 2>/dev/null
check "attrib analyze --json of the stored case is the stored result" cmp "$T/stored.json" "$T/analyzed.json"
check "the stored result has the record's fields from the case" grep -q '"job_name"' "$T/analyzed.json"
"$A" list --config "$T/attrib.conf" >"$T/list.txt"
check "attrib list shows the job" grep -Eq '^[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}  500 +[^ ]+ +InfraHW +node-02 +xid\.' "$T/list.txt"
check "attrib list: a user name cut to its column ends in +" grep -q ' maximil+ ' "$T/list.txt"
check "attrib list --json: the whole user name" sh -c "'$A' list --json --config '$T/attrib.conf' | grep -Eq '\"user\": ?\"maximiliana\"'"
check "attrib list: header and lines within 80 columns" awk 'length > 80 { exit 1 }' "$T/list.txt"
check "attrib list --node node-02" sh -c "'$A' list --json --node node-02 --config '$T/attrib.conf' | grep -Eq '\"job_id\": ?\"500\"'"
check "attrib list --node node-01: none" sh -c "! '$A' list --json --node node-01 --config '$T/attrib.conf' | grep -q job_id"
check "attrib list --sub-domain UserCode: none" sh -c "! '$A' list --json --sub-domain UserCode --config '$T/attrib.conf' | grep -q job_id"
check "attrib show of an unknown job: exit 4" sh -c "'$A' show 501 --config '$T/attrib.conf' 2>/dev/null; [ \$? -eq 4 ]"
check "attrib show ../x: usage error" sh -c "'$A' show ../x --config '$T/attrib.conf' 2>/dev/null; [ \$? -eq 1 ]"
curl -s "$URL/metrics" >"$T/metrics"
check "metrics: 1 job attributed" grep -qx 'attrib_jobs_attributed_total 1' "$T/metrics"
check "metrics: the comment is queued (no slurmdbd)" grep -qx 'attrib_comment_queue 1' "$T/metrics"
check "metrics: the replay was counted" grep -qx 'attrib_bundles_rejected_total{reason="replayed"} 1' "$T/metrics"
check "the log names the rejection" grep -q 'rejected (replayed' "$T/attrib.log"

# ---- COMPLETED: no diagnosis ----
make_record 502 COMPLETED >"$T/spool/jobs/.502.0.json.tmp"	# whole, as jobcomp/attrib writes
mv "$T/spool/jobs/.502.0.json.tmp" "$T/spool/jobs/502.0.json"
wait_for 60 test ! -e "$T/spool/jobs/502.0.json"
check "a COMPLETED job's record is consumed" test ! -e "$T/spool/jobs/502.0.json"
check "a COMPLETED job gets no diagnosis" sh -c "! '$A' show 502 --config '$T/attrib.conf' >/dev/null 2>&1"

# ---- a crash after the store, before the clean-up: nothing twice ----
check "SIGTERM stops the service (exit 0)" stop
make_record 500 FAILED >"$T/spool/jobs/500.0.json"
make_bundle 500 node-01 >"$T/b2.json"
mkdir -p "$T/state/incoming/500" && cp "$T/b2.json" "$T/state/incoming/500/node-01.json"
if start; then ok "attrib serve starts again"; else bad "attrib serve starts again"; fi
wait_for 60 test ! -e "$T/spool/jobs/500.0.json"
check "the record came again and was consumed" test ! -e "$T/spool/jobs/500.0.json"
check "still one diagnosis" test "$("$A" list --json --config "$T/attrib.conf" | grep -c '"job_id"')" = 1
curl -s "$URL/metrics" >"$T/metrics"
check "still one comment queued" grep -qx 'attrib_comment_queue 1' "$T/metrics"
check "and nothing attributed in this run" grep -qx 'attrib_jobs_attributed_total 0' "$T/metrics"
check "SIGTERM stops it again" stop

# ---- in the background, stopped through its PidFile ----
{ cat "$T/attrib.conf"; echo "PidFile = $T/serve.pid"; } >"$T/bg.conf"
"$AD" --config "$T/bg.conf" 2>"$T/bg.err"
check "attribd (background) exits 0 once it is ready" test $? -eq 0
bgpid=$(cat "$T/serve.pid" 2>/dev/null)
check "PidFile names the running service" \
	sh -c "[ -n '$bgpid' ] && tr '\\0' ' ' </proc/$bgpid/cmdline | grep -qF -- '--config $T/bg.conf'"
check "the background service answers" curl -sf "$URL/v1/health" -o /dev/null
if [ -n "$bgpid" ]; then
	kill -TERM "$(cat "$T/serve.pid")"
	wait_for 60 sh -c "! kill -0 $bgpid 2>/dev/null"
	check "kill -TERM \$(cat PidFile) stops it" sh -c "! kill -0 $bgpid 2>/dev/null"
	check "and it removed its PidFile" test ! -e "$T/serve.pid"
	bgpid=
fi
ln -s "$T/elsewhere" "$T/link.pid"
{ cat "$T/attrib.conf"; echo "PidFile = $T/link.pid"; } >"$T/bglink.conf"
"$AD" --config "$T/bglink.conf" --foreground 2>"$T/bglink.err"
check "a PidFile that is a symbolic link is refused (exit 1)" test $? -eq 1
check "and not followed" test ! -e "$T/elsewhere"

finish
