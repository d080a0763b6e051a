#!/bin/bash
# Hostile strings and a hostile spool, end to end on one machine without
# Slurm: the real `attrib serve --foreground` with a Webhook receiver
# (t/webhook-receiver.py).
#
# Strings: a job record whose output path holds a newline (followed by a
# forged log line), ESC sequences, bidi controls and invalid UTF-8, whose
# user and cluster hold the same, and a node bundle whose coverage source
# and detail hold them too.  `attrib show` (text), `attrib show --json`,
# `attrib list` (text and --json), the webhook body and the service's log
# must be strict UTF-8 without a control or bidi character (a newline only
# ends a line), the JSON must parse, and the log must not gain a line the
# service did not write.  A result stored by something else (an older
# service) with such strings is cleaned by `attrib show` too.
#
# Spool: SpoolDir/jobs writable by others refuses the start (exit 1, a log
# line), and while running stops the records being read (a log line); a
# record owned by an ordinary user is refused (log line, moved aside); a
# symbolic link as SpoolDir/jobs is refused.  The attack this closes: a
# user who can write the spool drops a record claiming uid 0 whose std_out
# is a root-only file (here a stand-in for /etc/shadow): the file must
# never reach a case.
# Needs root (ownership, and the service reads job output as its user),
# python3, curl and runuser: skipped (77) otherwise.
set -u

A=${ATTRIB:-./attrib}
SRC=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
EX=$SRC/examples/xid149-nvlink
export PATH=$PATH:/usr/sbin:/sbin
. "$SRC/t/lib/check.sh"
. "$SRC/t/lib/service.sh"

[ "$(id -u)" = 0 ] || skip "needs root"
for c in python3 curl runuser; do
	command -v "$c" >/dev/null || skip "no $c"
done

T=$(mktemp -d /tmp/attrib-strings-XXXXXX)
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
chmod 0755 "$T/spool" "$T/spool/jobs"
cat >"$T/attrib.conf" <<EOF
SpoolDir = $T/spool
StateDir = $T/state
RulesDir = $SRC/rules
# the output files are on this host: the service reads them itself
ReadJobOutput = yes
Listen = 127.0.0.1:$port
BundleDeadline = 30
ReconcileInterval = 0
Webhook = http://127.0.0.1:$hport/attrib/results
WebhookTimeout = 3
LogFile = $T/attrib.log
# the credentials are made here: each node's address is this host's
NodeAddresses = node-01=127.0.0.1, node-02=127.0.0.1, node-03=127.0.0.1, node-04=127.0.0.1
EOF
URL=http://127.0.0.1:$port
export SLURM_CONF=$T/no-slurm.conf	# no Slurm: summaries stay queued

# clean FILE [json]: strict UTF-8, no C0 (but the newlines that end lines),
# DEL, C1 or bidi control; with json, the file parses and no string in it
# holds any control character at all
cat >"$T/clean.py" <<'EOF'
import json, sys
BAD = set(range(0x00, 0x20)) | {0x7f} | set(range(0x80, 0xa0)) | \
      {0x061c, 0x200e, 0x200f} | set(range(0x202a, 0x202f)) | set(range(0x2066, 0x206a))
data = open(sys.argv[1], "rb").read()
try:
    text = data.decode("utf-8")
except UnicodeDecodeError as e:
    sys.exit("%s: not UTF-8: %s" % (sys.argv[1], e))
for n, line in enumerate(text.split("\n"), 1):
    for ch in line:
        if ord(ch) in BAD:
            sys.exit("%s:%d: U+%04X in %r" % (sys.argv[1], n, ord(ch), line[:200]))
if len(sys.argv) > 2:
    def walk(o):
        if isinstance(o, str):
            bad = [c for c in o if ord(c) in BAD]
            if bad:
                sys.exit("%s: U+%04X in the string %r" % (sys.argv[1], ord(bad[0]), o[:200]))
        elif isinstance(o, dict):
            for k, v in o.items():
                walk(k); walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)
    walk(json.loads(text))
EOF
clean() { python3 "$T/clean.py" "$@" 2>&1 | sed 's/^/# /'; return "${PIPESTATUS[0]}"; }

# ---- a job with hostile strings: its bundles first, then its record ----
FORGED='2026-12-01T00:00:00Z attrib[1]: error: FORGED'
python3 - "$T" "$EX" "$FORGED" <<'EOF'
import json, os, sys
t, ex, forged = sys.argv[1:4]
# bytes json.dumps cannot write: invalid UTF-8 inside JSON strings, raw
BADBYTES = b"\xff\xfe\xc0\xaf"
def raw(s):  # a JSON string literal with BADBYTES where "@@" is
    return json.dumps(s).encode().replace(b"@@", BADBYTES)
hostile = "\x1b[31mred\x1b[0m \x1b]0;title\x07 \u202egnp.exe\u202c \u2066x\u2069 \u200f \u061c \u009b2J @@"
os.makedirs(t + "/state/incoming/700", exist_ok=True)
for node in sorted(os.listdir(ex + "/nodes")):
    files = [{"name": f, "source": "/var/log/" + f, "origin": "kernel",
              "text": open(os.path.join(ex, "nodes", node, f)).read()}
             for f in sorted(os.listdir(os.path.join(ex, "nodes", node)))]
    b = {"schema": "attrib.bundle/v1", "job_id": "700", "node": node,
         "collected_at": "2026-11-29T08:15:00Z", "files": files,
         "ranks": [{"rank": 0, "node": node, "local_rank": 0, "gpu": "0", "step": "0"}],
         "coverage": []}
    body = json.dumps(b).encode()
    if node == "node-01":
        cov = b'[{"source": ' + raw("journal\n" + forged + " " + hostile) + b', "status": "error", "detail": ' + \
              raw("detail\r\n" + forged + " " + hostile) + b'}]'
        body = body.replace(b'"coverage": []', b'"coverage": ' + cov)
    open("%s/state/incoming/700/%s.json" % (t, node), "wb").write(body)
rec = json.load(open(ex + "/job.json"))
rec.update({"job_id": "700", "uid": 0, "gid": 0, "attempt": 0,
            "std_out": t + "/out/slurm-700\n" + forged + " @@.out",
            "std_err": t + "/out/err-" + hostile + ".err",
            "user": "@@", "cluster": "lab"})
body = json.dumps(rec).encode()
body = body.replace(b'"user": "@@"', b'"user": ' + raw("ev\x1b[7mil\u202e @@"))
body = body.replace(b"@@", BADBYTES)
open(t + "/rec-700.json", "wb").write(body)
EOF
mkdir -p "$T/state" && chmod 0700 "$T/state"

receiver() {
	rm -f "$T/hook/port"
	python3 "$SRC/t/webhook-receiver.py" "$T/hook" "$hport" 200 2>>"$T/receiver.err" &
	rpid=$!
	wait_for 60 test -e "$T/hook/port"
}
receiver || skip "the receiver does not start: $(cat "$T/receiver.err")"
if ! start; then
	bad "attrib serve starts"
	cat "$T/serve.err" "$T/attrib.log" 2>/dev/null | sed 's/^/#   /'
	finish
fi
ok "attrib serve starts"
cp "$T/rec-700.json" "$T/spool/jobs/.700.0.json.tmp"
mv "$T/spool/jobs/.700.0.json.tmp" "$T/spool/jobs/700.0.json"
wait_for 120 eval '"$A" show 700 --json --config "$T/attrib.conf" >"$T/show.json" 2>/dev/null'
check "the hostile job is diagnosed" grep -Eq '"sub_domain": ?"InfraHW"' "$T/show.json"
check "attrib show --json: strict UTF-8, parses, no control or bidi character" clean "$T/show.json" json
check "the bundle's coverage source is in the result (cleaned)" grep -Eq '"source": ?"nodes/node-01:journal\?' "$T/show.json"
check "the output path is in the result (cleaned)" grep -q 'slurm-700?2026-12-01T00:00:00Z attrib\[1\]: error: FORGED' "$T/show.json"
"$A" show 700 --config "$T/attrib.conf" >"$T/show.txt" 2>&1
check "attrib show: strict UTF-8, no control or bidi character" clean "$T/show.txt"
check "attrib show: no line begins with the forged text" sh -c "! grep -q '^$FORGED' '$T/show.txt'"
"$A" list --config "$T/attrib.conf" >"$T/list.txt" 2>&1
check "attrib list: strict UTF-8, no control or bidi character" clean "$T/list.txt"
check "attrib list: the line of job 700 is there" grep -q ' 700 ' "$T/list.txt"
"$A" list --json --config "$T/attrib.conf" >"$T/list.json" 2>&1
check "attrib list --json: parses, clean" clean "$T/list.json" json
wait_for 120 eval 'ls "$T/hook"/req-*.body >/dev/null 2>&1'
body=$(ls "$T/hook"/req-*.body 2>/dev/null | head -1)
if [ -n "$body" ]; then
	check "webhook body: strict UTF-8, parses, no control or bidi character" clean "$body" json
else
	bad "the webhook got the result"
fi
check "the log names the unread output path (the test reached it)" grep -q 'std_out .*/out/slurm-700.*FORGED' "$T/attrib.log"
check "the log: strict UTF-8, no control or bidi character" clean "$T/attrib.log"
check "the log: no line forged by a path or a bundle" sh -c "! grep -q '^2026-12-01T00:00:00Z attrib\[1\]' '$T/attrib.log'"

# a result stored by something else, with raw controls and invalid UTF-8
# (from the example's own diagnosis, so it does not hang on the checks above)
"$A" --rules "$SRC/rules" analyze "$EX" --json >"$T/base.json"
python3 - "$T/state/attrib.db" "$T/base.json" <<'EOF'
import json, sqlite3, sys
r = json.load(open(sys.argv[2]))
r["job_id"] = "701"
r["explanation"] = "\x1b[2J\x1b[Hcleared \u202eevil @@"
# (ESC as JSON's \u001b, the invalid bytes raw: as json-c would have written them)
text = json.dumps(r, ensure_ascii=False).encode().replace(b"@@", b"\xff\xfe")
db = sqlite3.connect(sys.argv[1])
db.execute("INSERT INTO results(job_id, attempt, cluster, user, state, sub_domain, culprits, root_code,"
           " created, result_json) VALUES('701', 0, 'lab', CAST(? AS TEXT), 'FAILED', 'InfraHW',"
           " 'node-02', 'x', strftime('%s','now'), CAST(? AS TEXT))", (b"\x1b[31mroot\xff", text))
db.commit()
EOF
"$A" show 701 --json --config "$T/attrib.conf" >"$T/show701.json" 2>&1
check "attrib show --json of a dirty stored result: clean" clean "$T/show701.json" json
"$A" show 701 --config "$T/attrib.conf" >"$T/show701.txt" 2>&1
check "attrib show of a dirty stored result: clean" clean "$T/show701.txt"
check "attrib show of a dirty stored result: printed" grep -q 'cleared' "$T/show701.txt"
"$A" list --config "$T/attrib.conf" >"$T/list2.txt" 2>&1
check "attrib list of a dirty stored row: clean" clean "$T/list2.txt"

# ---- the spool: records owned by an ordinary user ----
printf 'TOPSECRET root-only\n' >"$T/secret" && chmod 0600 "$T/secret"	# for /etc/shadow
attack() { # JOB > record: claims uid 0, its std_out the root-only file;
	# "reconciled" has it attributed at once, without waiting for bundles
	sed -e "s/\"job_id\": \"4242\"/\"job_id\": \"$1\"/" \
		-e "s|^{|{\"uid\": 0, \"gid\": 0, \"attempt\": 0, \"reconciled\": true, \"std_out\": \"$T/secret\",|" \
		"$EX/job.json"
}
# (owned by the user before attribd can see it: written aside, then moved)
attack 710 >"$T/spool/jobs/.710.0.json.tmp"
chown 65534 "$T/spool/jobs/.710.0.json.tmp"
mv "$T/spool/jobs/.710.0.json.tmp" "$T/spool/jobs/710.0.json"
wait_for 60 test ! -e "$T/spool/jobs/710.0.json"
check "a record owned by an ordinary user is moved aside" test -e "$T/spool/jobs/.invalid.710.0.json"
check "the log says why" grep -q "710.0.json: owned by uid 65534, which may not write here" "$T/attrib.log"
check "it is not diagnosed" sh -c "! '$A' show 710 --config '$T/attrib.conf' >/dev/null 2>&1"
check "the root-only file is in no case" sh -c "! grep -rq TOPSECRET '$T/state/cases'"

# the attack itself: SpoolDir/jobs writable by every user while running
chmod 0777 "$T/spool/jobs"
runuser -u nobody -- sh -c "cat >'$T/spool/jobs/711.0.json'" < <(attack 711)
check "a user-writable SpoolDir/jobs: the log says its records are not read" \
	wait_for 60 grep -q "SpoolDir: $T/spool/jobs is writable by group or others.*its records are not read" "$T/attrib.log"
check "... and the record is still there" test -e "$T/spool/jobs/711.0.json"
check "the root-only file is in no case (the attack fails)" sh -c "! grep -rq TOPSECRET '$T/state/cases'"
check "no diagnosis for the planted record" sh -c "! '$A' show 711 --config '$T/attrib.conf' >/dev/null 2>&1"
rm -f "$T/spool/jobs/711.0.json"
chmod 0755 "$T/spool/jobs"
check "SIGTERM stops the service" stop

# at start: refused, exit 1, a log line
chmod 0777 "$T/spool/jobs"
: >"$T/serve.err"
timeout 120 "$A" serve --config "$T/attrib.conf" --foreground 2>"$T/serve.err"
check "a user-writable SpoolDir/jobs refuses the start (exit 1)" test $? -eq 1
check "and says why" grep -q "SpoolDir: $T/spool/jobs is writable by group or others" "$T/serve.err"
chmod 0755 "$T/spool/jobs"
chown 65534 "$T/spool/jobs"
timeout 120 "$A" serve --config "$T/attrib.conf" --foreground 2>"$T/serve.err"
check "SpoolDir/jobs owned by an ordinary user refuses the start" test $? -eq 1
check "and says why" grep -q "is owned by uid 65534" "$T/serve.err"
chown 0 "$T/spool/jobs"
mv "$T/spool/jobs" "$T/jobs-elsewhere" && ln -s "$T/jobs-elsewhere" "$T/spool/jobs"
timeout 120 "$A" serve --config "$T/attrib.conf" --foreground 2>"$T/serve.err"
check "SpoolDir/jobs as a symbolic link refuses the start" test $? -eq 1
check "and says why" grep -q "jobs is a symbolic link; refused" "$T/serve.err"

finish
