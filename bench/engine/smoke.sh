#!/bin/sh
# The engine benchmark, at a tiny size, so that it cannot rot: the case
# generator is deterministic and plants a cause attrib finds, the catalog
# converts to grep/rg patterns that find the cause line, and run.sh runs
# end to end (bench/README.md has the real figures).
set -u
A=${ATTRIB:-./attrib}
SRC=${SRCDIR:-.}
B=$SRC/bench/engine
RULES=${ATTRIB_RULES:-$SRC/rules}
pass=0 fail=0
ok()   { pass=$((pass+1)); echo "ok - $1"; }
bad()  { fail=$((fail+1)); echo "not ok - $1"; }
check() { if eval "$2"; then ok "$1"; else bad "$1"; fi; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

verdict() {	# case -> "sub_domain code culprits" of attrib's result, or of the plan
	python3 - "$@" <<'EOF'
import json, sys
if sys.argv[2] == 'planted':
    e = json.load(open(sys.argv[1] + '/expected.json'))
    print(e['sub_domain'], e['root_code'], ','.join(e['culprit_nodes']))
else:
    r = json.load(open(sys.argv[2]))
    print(r['sub_domain'], (r['root_cause'] or {}).get('code'), ','.join(r['culprit_nodes']))
EOF
}

# the generator: runs, is deterministic, writes a contract case
python3 "$B/gencase.py" --nodes 6 --lines 3000 --out "$tmp/c1" >/dev/null 2>"$tmp/err"
check "gencase.py writes a case" "[ -f '$tmp/c1/job.json' ] && [ -f '$tmp/c1/expected.json' ] && [ \$(ls '$tmp/c1/nodes' | wc -l) -eq 6 ]"
python3 "$B/gencase.py" --nodes 6 --lines 3000 --out "$tmp/c2" >/dev/null 2>&1
sum() { (cd "$1" && find . -type f | sort | xargs cksum); }
check "gencase.py is deterministic" "[ \"\$(sum '$tmp/c1')\" = \"\$(sum '$tmp/c2')\" ]"
check "node logs have the lines asked for (the culprit's, a few more)" \
	"[ \$(for f in '$tmp'/c1/nodes/*/*; do wc -l <\"\$f\"; done | grep -cx 3000) -eq 5 ]"
check "node logs come in three formats" \
	"[ -f '$tmp/c1/nodes/gpu-0001/syslog' ] && [ -f '$tmp/c1/nodes/gpu-0002/messages' ] && [ -f '$tmp/c1/nodes/gpu-0003/journal.log' ]"
check "the app log has NCCL init lines of all 48 ranks" \
	"[ \$(grep -c 'NCCL INFO Bootstrap : Using' '$tmp'/c1/app/*) -eq 48 ]"

# attrib finds the planted cause, for both causes
for cause in xid79 ib-link-down; do
	python3 "$B/gencase.py" --nodes 5 --lines 2000 --cause $cause --out "$tmp/$cause" >/dev/null 2>&1
	ATTRIB_RULES=$RULES "$A" analyze "$tmp/$cause" --json >"$tmp/$cause.json" 2>"$tmp/err"
	check "attrib analyze exits 0 ($cause)" "[ $? -eq 0 ]"
	got=$(verdict "$tmp/$cause" "$tmp/$cause.json" 2>&1)
	want=$(verdict "$tmp/$cause" planted)
	check "attrib's verdict is the planted cause ($cause: $got)" "[ \"\$got\" = \"\$want\" ]"
done

# the catalog converts to patterns grep and rg accept, which find the cause
python3 "$B/patterns.py" "$RULES" "$tmp/pat" >"$tmp/pat.txt" 2>&1
check "patterns.py converts the catalog (every positive case still matches)" "[ $? -eq 0 ]"
check "most patterns are usable by grep" \
	"[ \$(wc -l <'$tmp/pat/patterns.ere') -gt \$(( \$(tail -n +2 '$tmp/pat/patterns.tsv' | wc -l) * 9 / 10 )) ]"
LC_ALL=C grep -E -n -r -f "$tmp/pat/patterns.ere" "$tmp/xid79" >"$tmp/grep.out" 2>"$tmp/err"
check "grep -E runs the patterns without error" "[ $? -eq 0 ] && [ ! -s '$tmp/err' ]"
check "grep finds the Xid 79 line" "grep -q 'NVRM: Xid (PCI:0000:[0-9a-f]*:00): 79' '$tmp/grep.out'"
if command -v rg >/dev/null; then
	rg -n -uu --no-heading -f "$tmp/pat/patterns.ere" "$tmp/xid79" >"$tmp/rg.out" 2>"$tmp/err"
	check "rg runs the patterns and finds the lines grep finds" \
		"[ ! -s '$tmp/err' ] && [ \$(wc -l <'$tmp/rg.out') -eq \$(wc -l <'$tmp/grep.out') ]"
else
	echo "# ripgrep not installed: its check skipped"
fi

# run.sh end to end at a tiny size
QUICK=1 RUNS=1 ATTRIB=$A RULES=$RULES CASES=$tmp/cases OUT=$tmp/res sh -c "bash '$B/run.sh' 4x2000" >"$tmp/run.out" 2>&1
check "run.sh runs and checks the verdict" "[ $? -eq 0 ] && grep -q 'verdict: .* OK' '$tmp/run.out'"
check "run.sh writes the table with attrib and grep rows" \
	"grep -q '^| 4x2000 | .* | attrib |' '$tmp/res/results.md' && grep -q '^| 4x2000 | .* | grep -E |' '$tmp/res/results.md'"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
