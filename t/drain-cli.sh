#!/bin/bash
# attrib drain and attrib show --drains on a store, without a cluster: the
# DrainMaxPerHour limit of drains by hand (refused, exit 5, recorded with who
# asked and why; drains of the policy count; older than an hour do not),
# --dry-run, and how the decisions are shown (a hostile text in the store
# reaches the terminal as printable ASCII only).  The store's result is the
# engine's own (examples/xid149-nvlink), written with python3's sqlite3 as
# attrib serve would have stored it.  Draining itself needs Slurm:
# t/live-drain.sh.
set -u
A=${ATTRIB:-./attrib}
SRC=${SRCDIR:-.}
. "$SRC/t/lib/check.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 is needed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'StateDir = %s\nDrainMaxPerHour = 1\n' "$tmp" >"$tmp/attrib.conf"
C=(--config "$tmp/attrib.conf")

"$A" show 4242 "${C[@]}" >/dev/null 2>&1
check "show: no store yet: exit 4" test $? = 4
"$A" drain 4242 "${C[@]}" >/dev/null 2>"$tmp/err"	# creates the store
check "drain: no stored result: exit 4" test $? = 4
"$A" analyze "$SRC/examples/xid149-nvlink" --json >"$tmp/result.json"
# sql FILE-OR-STATEMENT...: runs statements on the store (the result as ?)
sql() {
	python3 - "$tmp/attrib.db" "$tmp/result.json" "$@" <<'EOF'
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
result = open(sys.argv[2]).read()
now = int(time.time())
for stmt in sys.argv[3:]:
    args = {"result": result, "now": now}
    for row in db.execute(stmt, {k: v for k, v in args.items() if ":" + k in stmt}):
        print("|".join(str(c) for c in row))
db.commit()
EOF
}
sql "INSERT INTO results(job_id, attempt, sub_domain, culprits, created, result_json) VALUES ('4242', 0, 'InfraHW', 'node-02', :now, :result)"
# an hour and more ago: not counted
sql "INSERT INTO drains(job_id, attempt, node, reason, decision, decided_by, created) VALUES ('1', 0, 'node-07', 'old', 'drained', 'attrib serve (policy auto)', :now - 3700)"

"$A" drain 4242 --dry-run "${C[@]}" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "drain --dry-run: exit 0, would drain node-02 with the reason of the diagnosis" \
	grep -qx "would drain node-02: attrib: NVLink link down: signal integrity (Xid 149 NETIR_LINK_EVT) PCI:0000:43:00 (job 4242)" "$tmp/out"
[ $rc = 0 ] || bad "drain --dry-run exit $rc"

# a drain of the policy 10 minutes ago: the limit (1) is reached
sql "INSERT INTO drains(job_id, attempt, node, reason, decision, decided_by, created) VALUES ('9', 0, 'node-05', 'r', 'drained', 'attrib serve (policy auto)', :now - 600)"
"$A" drain 4242 "${C[@]}" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "drain: refused by DrainMaxPerHour (exit 5)" test $rc = 5
check "drain: the refusal says why on stderr" \
	grep -q "^attrib: job 4242: node-02: refusing: DrainMaxPerHour (1) reached: 1 drain in the last hour (attrib drain --force NODE drains anyway)$" "$tmp/err"
check "drain: nothing on stdout" test ! -s "$tmp/out"
rows=$(sql "SELECT node, decision, decided_by, reason FROM drains WHERE job_id = '4242' AND decision = 'refused'")
check "drain: the refusal is recorded with who asked and why" \
	grep -q "^node-02|refused|attrib drain (uid $(id -u)[,)].*|refusing: DrainMaxPerHour (1) reached" <<<"$rows"
"$A" drain 4242 --dry-run "${C[@]}" >"$tmp/out" 2>"$tmp/err"
check "drain --dry-run: the limit holds too (exit 5)" test $? = 5

# how the decisions are shown
sql "INSERT INTO drains(job_id, attempt, node, reason, decision, decided_by, created) VALUES ('4242', 0, 'node-02', 'evil '||char(27)||'[31m'||char(10)||'line', 'refused', 'attrib serve (policy auto)', :now)"
"$A" show 4242 --drains "${C[@]}" >"$tmp/drains"
check "show --drains: exit 0, one line per decision (4)" test $? = 0 -a "$(wc -l <"$tmp/drains")" = 4
check "show --drains: TIME ATTEMPT NODE DECISION BY: REASON" \
	grep -Eq '^  [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z 0 node-02 dry-run attrib drain \(uid [0-9]+.*\): attrib: NVLink' "$tmp/drains"
check "show --drains: control characters reach the terminal as ?" \
	grep -q 'refused attrib serve (policy auto): evil ?\[31m?line$' "$tmp/drains"
check "show --drains: printable ASCII only" sh -c "! LC_ALL=C grep -q '[^ -~]' '$tmp/drains'"
"$A" show 4242 --drains --json "${C[@]}" >"$tmp/drains.json"
check "show --drains --json: the decisions as an array, the text cleaned as attrib show cleans every string" \
	test "$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(len(r), r[-1]["reason"] == "evil ?[31m?line", sorted(r[0]))' "$tmp/drains.json")" \
	= "4 True ['attempt', 'by', 'decision', 'node', 'reason', 'time']"
"$A" show 4242 "${C[@]}" >"$tmp/show"
check "show: the diagnosis, then its drain decisions" \
	sh -c "grep -q '^Drain decisions:' '$tmp/show' && [ \$(sed -n '/^Drain decisions:/,\$p' '$tmp/show' | wc -l) = 5 ]"
"$A" show 4242 --json "${C[@]}" >"$tmp/show.json"
check "show --json: the stored result object, root_cause.class nvlink" \
	test "$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["root_cause"]["class"], "drains" in r)' "$tmp/show.json")" = "nvlink False"
"$A" show 5 --drains "${C[@]}" >/dev/null 2>&1
check "show --drains of a job with neither result nor decision: exit 4" test $? = 4

finish
