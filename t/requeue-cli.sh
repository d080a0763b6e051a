#!/bin/bash
# attrib requeue and attrib show --requeues on a store, without a cluster:
# a diagnosis that is not confident is refused before Slurm is asked (exit
# 5, recorded with who asked and why), a confident one is refused when Slurm
# cannot tell the job's state (no slurm.conf), a job without a stored result
# is exit 4, --dry-run records a dry run only when it would requeue, and the
# decisions are shown (a hostile text in the store reaches the terminal as
# printable ASCII only).  The confident result is the engine's own
# (examples/xid149-nvlink, InfraNet node-02).  Requeueing itself needs Slurm:
# t/live-requeue.sh.
set -u
A=${ATTRIB:-./attrib}
SRC=${SRCDIR:-.}
. "$SRC/t/lib/check.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 is needed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'StateDir = %s\n' "$tmp" >"$tmp/attrib.conf"
C=(--config "$tmp/attrib.conf")
export SLURM_CONF=$tmp/no-slurm.conf

"$A" requeue 4242 "${C[@]}" >/dev/null 2>"$tmp/err"	# creates the store
check "requeue: no stored result: exit 4" test $? = 4
"$A" analyze "$SRC/examples/xid149-nvlink" --json >"$tmp/result.json"
sql() { # statements on the store (:result the engine's result, :user a UserCode one)
	python3 - "$tmp/attrib.db" "$tmp/result.json" "$@" <<'PY'
import json, sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
result = open(sys.argv[2]).read()
user = json.loads(result)
user.update(sub_domain="UserCode", domain="user", culprit_nodes=[])
args = {"result": result, "user": json.dumps(user), "now": int(time.time())}
for stmt in sys.argv[3:]:
    for row in db.execute(stmt, {k: v for k, v in args.items() if ":" + k in stmt}):
        print("|".join(str(c) for c in row))
db.commit()
PY
}
sql "INSERT INTO results(job_id, attempt, sub_domain, culprits, created, result_json) VALUES ('4242', 0, 'InfraNet', 'node-02', :now, :result)" \
	"INSERT INTO results(job_id, attempt, sub_domain, culprits, created, result_json) VALUES ('5', 0, 'UserCode', '', :now, :user)"

"$A" requeue 5 "${C[@]}" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "requeue of a UserCode diagnosis: refused (exit 5), before asking Slurm" \
	sh -c "[ $rc = 5 ] && grep -qx 'attrib: job 5: refusing to requeue: the diagnosis is UserCode, not an infrastructure fault' '$tmp/err'"
check "requeue: nothing on stdout when refused" test ! -s "$tmp/out"
rows=$(sql "SELECT nodes, excluded, decision, decided_by, reason FROM requeues WHERE job_id = '5'")
check "requeue: the refusal is recorded with who asked and why" \
	grep -q "^||refused|attrib requeue (uid $(id -u)[,)].*|the diagnosis is UserCode, not an infrastructure fault$" <<<"$rows"

"$A" requeue 4242 --dry-run "${C[@]}" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "requeue --dry-run of a confident diagnosis without Slurm: refused (exit 5), says why" \
	sh -c "[ $rc = 5 ] && grep -q '^attrib: job 4242: refusing to requeue: Slurm cannot tell the job.s state: ' '$tmp/err'"
rows=$(sql "SELECT nodes, decision FROM requeues WHERE job_id = '4242'")
check "requeue --dry-run: the refusal names the culprit, recorded as refused (not dry-run)" \
	test "$rows" = "node-02|refused"

# a hostile text in the store (as a store written by anything else may hold)
sql "INSERT INTO requeues VALUES ('4242', 0, 'node-02', 'node-02', 'bad $(printf '\033[31m')red', 'requeued', 'x', :now)"
"$A" show 4242 --requeues "${C[@]}" >"$tmp/out"
check "show --requeues: one line a decision" test "$(wc -l <"$tmp/out")" = 2
check "show --requeues: who, culprits, the ExcNodeList set, why" \
	grep -q " 0 requeued x: node-02 ExcNodeList=node-02: bad ?\[31mred$" "$tmp/out"
check "show --requeues: printable ASCII only" sh -c "! LC_ALL=C grep -q '[^ -~]' '$tmp/out'"
"$A" show 4242 --requeues --json "${C[@]}" >"$tmp/out.json"
check "show --requeues --json: an array of {time, attempt, nodes, excluded, decision, by, reason}" \
	python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert [d['decision'] for d in r] == ['refused', 'requeued'] and sorted(r[0]) == ['attempt', 'by', 'decision', 'excluded', 'nodes', 'reason', 'time']" "$tmp/out.json"
"$A" show 4242 "${C[@]}" >"$tmp/show.txt"
check "show: the diagnosis, then its requeue decisions" \
	sh -c "grep -q '^Requeue decisions:' '$tmp/show.txt' && grep -q 'refused attrib requeue' '$tmp/show.txt'"
"$A" show 77 --requeues "${C[@]}" >/dev/null 2>&1
check "show --requeues: no result and no decision: exit 4" test $? = 4
finish
