#!/bin/bash
# The Webhook of attrib serve, end to end on one machine without Slurm:
# the real `attrib serve --foreground` with Webhook pointing at a local
# receiver (t/webhook-receiver.py).  Job records are dropped into SpoolDir
# with BundleDeadline = 0, so each is attributed at once (its node bundles
# missing: coverage gaps).  Checks that the receiver gets exactly the stored
# result JSON, once; that a receiver that is down gets the delivery when it
# comes back (retry with backoff); that a receiver answering 500 is retried;
# that a restart of the service while a delivery is pending loses nothing;
# and the metrics.  Needs root (the service reads job output as its user),
# python3 and curl: skipped (77) otherwise.
set -u

A=${ATTRIB:-./attrib}
SRC=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
EX=$SRC/examples/xid149-nvlink
export PATH=$PATH:/usr/sbin:/sbin
. "$SRC/t/lib/check.sh"
. "$SRC/t/lib/service.sh"

[ "$(id -u)" = 0 ] || skip "needs root"
for c in python3 curl; do
	command -v "$c" >/dev/null || skip "no $c"
done

T=$(mktemp -d /tmp/attrib-webhook-XXXXXX)
chmod 0711 "$T"
spid='' rpid=''
cleanup() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
	[ -n "$rpid" ] && kill "$rpid" 2>/dev/null && wait "$rpid" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

port=$(free_port $((20000 + $$ % 20000)))
hport=$(free_port $((port + 60)))
[ -n "$port" ] && [ -n "$hport" ] || skip "no free port"
mkdir -p "$T/spool/jobs" "$T/out" "$T/hook"
cat >"$T/attrib.conf" <<EOF
SpoolDir = $T/spool
StateDir = $T/state
RulesDir = $SRC/rules
Listen = 127.0.0.1:$port
BundleDeadline = 0
ReconcileInterval = 0
Webhook = http://127.0.0.1:$hport/attrib/results
WebhookTimeout = 3
LogFile = $T/attrib.log
EOF
URL=http://127.0.0.1:$port
export SLURM_CONF=$T/no-slurm.conf	# no Slurm: summaries stay queued

receiver() { # [STATUS]: starts the receiver on hport
	rm -f "$T/hook/port"
	python3 "$SRC/t/webhook-receiver.py" "$T/hook" "$hport" "${1:-200}" 2>>"$T/receiver.err" &
	rpid=$!
	wait_for 60 test -e "$T/hook/port"
}
receiver_stop() {
	kill -TERM "$rpid" 2>/dev/null
	wait "$rpid" 2>/dev/null
	rpid=
}
job() { # JOB: drops the example's record for JOB into the spool
	cp "$EX/app/slurm-4242.out" "$T/out/slurm-$1.out"
	sed -e "s/\"job_id\": \"4242\"/\"job_id\": \"$1\"/" \
		-e "s|^{|{\"uid\": 0, \"gid\": 0, \"attempt\": 0, \"std_out\": \"$T/out/slurm-$1.out\",|" \
		"$EX/job.json" >"$T/spool/jobs/.$1.0.json.tmp"
	mv "$T/spool/jobs/.$1.0.json.tmp" "$T/spool/jobs/$1.0.json"
}
metric() { curl -s "$URL/metrics" | awk -v m="$1" '$1 == m { print $2 }'; }
# how many requests the receiver has had for JOB, and answered 200
requests_for() { grep -l " $1.0 " "$T/hook"/req-*.meta 2>/dev/null | wc -l; }
delivered_for() { grep -l " $1.0 200$" "$T/hook"/req-*.meta 2>/dev/null | wc -l; }
# the body of the receiver's request for JOB is byte for byte the stored result
same_as_stored() {
	local meta
	meta=$(grep -l " $1.0 200$" "$T/hook"/req-*.meta | head -1)
	python3 - "$T/state/attrib.db" "$1" "${meta%.meta}.body" <<'EOF'
import json, sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
stored = db.execute("SELECT result_json FROM results WHERE job_id=? AND attempt=0",
                    (sys.argv[2],)).fetchone()[0]
body = open(sys.argv[3], "rb").read().decode()
res = json.loads(body)
sys.exit(0 if body == stored and res["job_id"] == sys.argv[2] and
         res["schema"] == "attrib.result/v1" else 1)
EOF
}

# ---- configuration ----
printf 'WebhookTimeout = soon\n' >"$T/bad.conf"
"$A" serve --config "$T/bad.conf" --foreground >/dev/null 2>"$T/err"
check "WebhookTimeout must be seconds" grep -q 'bad.conf:1:' "$T/err"
printf 'Webhook = ftp://x/\n' >"$T/bad.conf"
"$A" serve --config "$T/bad.conf" --foreground >/dev/null 2>"$T/err"
check "Webhook must be http(s)" grep -q 'bad.conf:1:.*http' "$T/err"

# ---- a receiver that is up ----
receiver || skip "the receiver does not start: $(cat "$T/receiver.err")"
if ! start; then
	bad "attrib serve starts"
	cat "$T/serve.err" "$T/attrib.log" 2>/dev/null | sed 's/^/#   /'
	finish
fi
ok "attrib serve starts with a Webhook"
job 700
check "job 700 is delivered" wait_for 120 eval '[ "$(requests_for 700)" -ge 1 ]'
check "the body is the stored result, byte for byte" same_as_stored 700
"$A" show 700 --json --config "$T/attrib.conf" >"$T/show.json"
check "the same as attrib show --json" python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' \
	"$T/show.json" "$T/hook/req-1.body"
check "POSTed to the URL's path as application/json" \
	grep -q '^/attrib/results application/json 700.0 200$' "$T/hook/req-1.meta"
check "the stored result has the job's end time" \
	sh -c "'$A' show 700 --json --config '$T/attrib.conf' | grep -q '\"end_time\": *\"2026-11-29T08:14:07Z\"'"
check "metrics: 1 delivered" wait_for 60 eval '[ "$(metric attrib_webhook_delivered_total)" = 1 ]'
check "metrics: nothing waiting" test "$(metric attrib_webhook_queue)" = 0
check "metrics: the job counted under its sub-domain" \
	test "$(curl -s "$URL/metrics" | grep -c '^attrib_jobs_attributed_by_sub_domain_total{sub_domain="[A-Za-z]*"} 1$')" = 1
check "metrics: the missing bundles counted as coverage gaps" \
	sh -c "curl -s '$URL/metrics' | grep -Eq '^attrib_coverage_gaps_total\{source=\"nodes\",status=\"missing\"\} [1-9]'"
check "metrics: the attribution latency observed once" test "$(metric attrib_attribution_latency_seconds_count)" = 1
check "metrics: the analysis duration observed once" test "$(metric attrib_analysis_duration_seconds_count)" = 1
curl -s "$URL/metrics" >"$T/metrics"
check "metrics: Prometheus text format, histograms cumulative" python3 - "$T/metrics" <<'EOF'
import re, sys
sample = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[a-z_]+="[^"\\\n]*"(,[a-z_]+="[^"\\\n]*")*\})? (\S+)$')
typed, buckets, counts = {}, {}, {}
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if line.startswith("# TYPE "):
        _, _, name, kind = line.split(" ")
        typed[name] = kind
        continue
    if line.startswith("# HELP "):
        continue
    m = sample.match(line)
    if not m:
        sys.exit("bad line: " + line)
    name, value = m.group(1), float(m.group(4))
    base = re.sub(r"_(bucket|sum|count)$", "", name)
    if name not in typed and not (base in typed and typed[base] == "histogram"):
        sys.exit("no TYPE for " + name)
    if name.endswith("_bucket"):
        buckets.setdefault(base, []).append(value)
    if name.endswith("_count") and base in typed:
        counts[base] = value
for base, b in buckets.items():
    if b != sorted(b) or b[-1] != counts[base]:
        sys.exit("histogram %s: %s, count %s" % (base, b, counts[base]))
if len(buckets) != 2:
    sys.exit("histograms: %s" % list(buckets))
EOF

# ---- a receiver that is down, then comes back: retried ----
receiver_stop
job 701
check "a failed delivery is counted" wait_for 120 eval '[ "$(metric attrib_webhook_failures_total)" = 1 ]'
check "and waits in the queue" test "$(metric attrib_webhook_queue)" = 1
check "the log says it will try again" grep -q 'job 701 attempt 0: webhook delivery failed (try 1, again in 5 s)' "$T/attrib.log"
receiver
check "the receiver back: job 701 is delivered by the retry" wait_for 120 eval '[ "$(requests_for 701)" = 1 ]'
check "its body is the stored result" same_as_stored 701
check "metrics: 2 delivered, nothing waiting" \
	sh -c "[ \"\$(curl -s '$URL/metrics' | awk '\$1==\"attrib_webhook_delivered_total\"||\$1==\"attrib_webhook_queue\"{printf \"%s \", \$2}')\" = '2 0 ' ]"

# ---- a receiver that answers 500: not delivered, retried ----
receiver_stop
receiver 500
job 702
check "an HTTP 500 is a failure" wait_for 120 grep -q 'job 702 attempt 0: webhook delivery failed (try 1.*HTTP 500' "$T/attrib.log"
check "and not a delivery" test "$(delivered_for 702)" = 0

# ---- the service restarts while the delivery is pending: nothing lost ----
receiver_stop
check "SIGTERM stops the service (exit 0)" stop
check "the stopped service's store holds job 702's delivery, not done" \
	python3 -c "import sqlite3,sys; d=sqlite3.connect('file:$T/state/attrib.db?mode=ro', uri=True); sys.exit(d.execute(\"SELECT count(*) FROM webhook_queue WHERE job_id='702' AND done=0 AND tries>=1\").fetchone()[0] != 1)"
# its next try an hour away: "at once" below is the start's, not the
# retry's (however long the restart takes)
python3 -c "import sqlite3; d=sqlite3.connect('$T/state/attrib.db'); d.execute(\"UPDATE webhook_queue SET next_try=strftime('%s','now')+3600 WHERE job_id='702'\"); d.commit()"
receiver
if start; then ok "attrib serve starts again"; else bad "attrib serve starts again"; fi
check "after the restart job 702 is delivered at once (its retry was due in an hour)" wait_for 120 eval '[ "$(delivered_for 702)" = 1 ]'
check "its body is the stored result" same_as_stored 702
# (once the store has every delivery done, none is sent again)
check "the store records every delivery done" wait_for 60 \
	python3 -c "import sqlite3,sys; d=sqlite3.connect('file:$T/state/attrib.db?mode=ro', uri=True); sys.exit(d.execute('SELECT count(*) FROM webhook_queue WHERE done=1 AND delivered IS NOT NULL').fetchone()[0] != 3)"
check "each job delivered exactly once" test "$(delivered_for 700)$(delivered_for 701)$(delivered_for 702)" = 111
check "job 700 was posted once in all" test "$(requests_for 700)" = 1
check "SIGTERM stops it again" stop

# ---- without a Webhook nothing is queued ----
sed -i '/^Webhook/d' "$T/attrib.conf"
start || bad "attrib serve starts without a Webhook"
job 703
check "job 703 is attributed" wait_for 120 eval '"$A" show 703 --config "$T/attrib.conf" >/dev/null 2>&1'
check "and not queued for a webhook" \
	python3 -c "import sqlite3,sys; d=sqlite3.connect('file:$T/state/attrib.db?mode=ro', uri=True); sys.exit(d.execute(\"SELECT count(*) FROM webhook_queue WHERE job_id='703'\").fetchone()[0] != 0)"
stop

finish
