#!/bin/bash
# attrib eval's arithmetic on t/eval/, four tiny labelled cases worked out
# by hand: hw-xid79 (right), hw-mislabelled (labelled UserCode with no
# culprit where the evidence is an Xid 79 on n1, which attrib drains: wrong,
# one false drain), user-oom-also (first label UserCode, right through its
# `also` answer UserResource), none-silent (unattributed, right).  So:
# 3/4 correct, 1 false drain, 1 unattributed, the confusion cell UserCode x
# InfraHW at 1; --min-accuracy's exit statuses; each case's answer is the
# one `attrib analyze` gives the case without its expected.json; bad input.
set -u
A=${ATTRIB:-./attrib}
SRC=${SRCDIR:-.}
. "$SRC/t/lib/check.sh"
command -v python3 >/dev/null || skip "python3 is needed"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
E=$SRC/t/eval

# jq-like: py FILE EXPR, EXPR over s (the JSON of FILE), printed
py() { python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
is() { # description file expr expected
	local got
	got=$(py "$2" "$3" 2>&1)
	if [ "$got" = "$4" ]; then ok "$1"; else bad "$1 (got: $got, expected: $4)"; fi
}

"$A" eval "$E" >"$tmp/text" 2>"$tmp/err"
check "eval t/eval: exit 0" test $? = 0
check "eval t/eval: nothing on stderr" test ! -s "$tmp/err"
check "the last line: 3/4 correct, 1 false drain, 1 unattributed" \
	test "$(tail -n 1 "$tmp/text")" = "eval: 3/4 correct (75.0%), 1 false drains, 1 unattributed"
check "the false drain is listed" grep -qx '  hw-mislabelled: drain n1' "$tmp/text"
check "the wrong case is listed with its label and answer" \
	grep -A2 -x '  hw-mislabelled' "$tmp/text" >"$tmp/wrong"
check "  expected UserCode, no culprit" grep -qx '    expected UserCode \[\]' "$tmp/wrong"
check "  got InfraHW on n1 by xid.79" grep -qx '    got      InfraHW \[n1\] by xid.79' "$tmp/wrong"
check "only one wrong case" grep -qx 'Wrong cases (1)' "$tmp/text"
check "the confusion row of UserCode: InfraHW 1, UserResource 1" \
	grep -qE '^  UserCode +1 +1 +\.$' "$tmp/text"

"$A" eval --json "$E" >"$tmp/json"
check "eval --json: exit 0" test $? = 0
is "cases, correct, accuracy" "$tmp/json" '(s["cases"], s["correct"], s["accuracy"])' "(4, 3, 0.75)"
is "unattributed and its share" "$tmp/json" '(s["unattributed"], s["unattributed_share"])' "(1, 0.25)"
is "false drains" "$tmp/json" 's["false_drains"]' "[{'case': 'hw-mislabelled', 'node': 'n1'}]"
is "confusion: expected UserCode, answered InfraHW" "$tmp/json" 's["confusion"]["UserCode"]["InfraHW"]' 1
is "confusion: the whole matrix" "$tmp/json" 'sorted((w, g, n) for w, r in s["confusion"].items() for g, n in r.items())' \
	"[('InfraHW', 'InfraHW', 1), ('UserCode', 'InfraHW', 1), ('UserCode', 'UserResource', 1), ('unattributed', 'unattributed', 1)]"
is "InfraHW: precision 1/2, recall 1/1" "$tmp/json" \
	'[(d["answered_correct"], d["answered"], d["precision"], d["expected_correct"], d["expected"], d["recall"]) for d in s["sub_domains"] if d["sub_domain"] == "InfraHW"]' \
	"[(1, 2, 0.5, 1, 1, 1.0)]"
is "UserCode: never answered (precision null), recall 1/2" "$tmp/json" \
	'[(d["answered"], d["precision"], d["expected"], d["recall"]) for d in s["sub_domains"] if d["sub_domain"] == "UserCode"]' \
	"[(0, None, 2, 0.5)]"
is "per rule: xid.79 1/2, the OOM state 1/1, no root cause 1/1" "$tmp/json" \
	'sorted((r["rule"], r["correct"], r["cases"]) for r in s["rules"])' \
	"[('(no root cause)', 1, 1), ('slurm.state.oom', 1, 1), ('xid.79', 1, 2)]"
is "per family: the name's prefix, or expected.json's family" "$tmp/json" \
	'sorted((f["family"], f["correct"], f["cases"], f["accuracy"]) for f in s["families"])' \
	"[('hw', 1, 1, 1.0), ('mislabel', 0, 1, 0.0), ('none', 1, 1, 1.0), ('user', 1, 1, 1.0)]"
is "user-oom-also is right through its also answer" "$tmp/json" \
	'[(c["correct"], c["got"]["sub_domain"]) for c in s["results"] if c["case"] == "user-oom-also"]' \
	"[(True, 'UserResource')]"

# the label is never an input: each case's answer in eval is the answer of
# `attrib analyze` on a copy of the case without its expected.json
for d in "$E"/*/; do
	n=$(basename "$d")
	mkdir -p "$tmp/bare"
	cp -r "$d" "$tmp/bare/$n"
	rm "$tmp/bare/$n/expected.json"
	"$A" analyze --json "$tmp/bare/$n" >"$tmp/bare/$n.json"
	is "$n: eval's answer is analyze's without the label" "$tmp/json" \
		'[(c["got"]["sub_domain"], c["got"]["culprit_nodes"], c["got"]["rule"]) for c in s["results"] if c["case"] == "'"$n"'"] == [(r["sub_domain"], r["culprit_nodes"], (r["root_cause"] or {}).get("code")) for r in [json.load(open("'"$tmp/bare/$n.json"'"))]]' \
		True
done

# --min-accuracy: a false drain fails whatever the accuracy
"$A" eval --min-accuracy 0.5 "$E" >"$tmp/out" 2>&1
check "--min-accuracy 0.5 with a false drain: exit 1" test $? = 1
check "  the figures are still printed" grep -q '^eval: 3/4 correct' "$tmp/out"
"$A" eval "$E" >/dev/null 2>&1
check "without --min-accuracy a false drain is no failure (exit 0)" test $? = 0
# the same cases, n1 a node the mislabelled case may drain: accuracy alone
cp -r "$E" "$tmp/fixed"
python3 - "$tmp/fixed/hw-mislabelled/expected.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))
e["drain_ok"] = ["n1"]
json.dump(e, open(sys.argv[1], "w"))
PY
"$A" eval --min-accuracy 0.75 "$tmp/fixed" >"$tmp/out" 2>&1
check "no false drain, 3/4 and --min-accuracy 0.75: exit 0" test $? = 0
check "  0 false drains" test "$(tail -n 1 "$tmp/out")" = "eval: 3/4 correct (75.0%), 0 false drains, 1 unattributed"
"$A" eval --min-accuracy 0.76 "$tmp/fixed" >/dev/null 2>&1
check "3/4 and --min-accuracy 0.76: exit 1" test $? = 1
# without its also answer the OOM case is wrong; an unlabelled directory
# and a file are no cases
python3 - "$tmp/fixed/user-oom-also/expected.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))
del e["also"]
json.dump(e, open(sys.argv[1], "w"))
PY
mkdir "$tmp/fixed/unlabelled" && cp "$E/none-silent/job.json" "$tmp/fixed/unlabelled/"
echo notes >"$tmp/fixed/NOTES.md"
"$A" eval "$tmp/fixed" >"$tmp/out" 2>&1
check "without also: 2/4; the unlabelled directory is not counted" \
	test "$(tail -n 1 "$tmp/out")" = "eval: 2/4 correct (50.0%), 0 false drains, 1 unattributed"

# --rules, after the command or before it; a broken catalog: exit 3
cp -r "${ATTRIB_RULES:-$SRC/rules}" "$tmp/rules"
"$A" eval --json --rules "$tmp/rules" "$E" >"$tmp/out"
is "--rules after the command: the catalog named" "$tmp/out" 's["catalog"]' "$(cd "$tmp/rules" && pwd -P)"
printf 'extractors:\n  - id: broken\n' >"$tmp/rules/99-broken.yaml"
"$A" eval --rules "$tmp/rules" "$E" >/dev/null 2>&1
check "eval --rules BROKEN: exit 3" test $? = 3
"$A" --rules "$tmp/rules" eval "$E" >/dev/null 2>&1
check "--rules BROKEN eval: exit 3" test $? = 3

# bad input: one line on stderr and its exit status
"$A" eval "$tmp/nonexistent" >"$tmp/out" 2>"$tmp/err"
check "a missing DIR: exit 2, one line on stderr, nothing on stdout" \
	test $? = 2 -a "$(wc -l <"$tmp/err")" = 1 -a ! -s "$tmp/out"
mkdir "$tmp/empty"
"$A" eval "$tmp/empty" >/dev/null 2>"$tmp/err"
check "a DIR without cases: exit 2" test $? = 2
check "  said" grep -q 'no case' "$tmp/err"
bad_label() { # description expected.json-text stderr-text
	rm -rf "$tmp/badl" && mkdir -p "$tmp/badl" && cp -r "$E/none-silent" "$tmp/badl/"
	printf '%s' "$2" >"$tmp/badl/none-silent/expected.json"
	"$A" eval "$tmp/badl" >"$tmp/out" 2>"$tmp/err"
	check "$1: exit 2, one line naming the file" \
		test $? = 2 -a "$(wc -l <"$tmp/err")" = 1 -a ! -s "$tmp/out"
	check "  says: $3" grep -q "none-silent/expected.json: .*$3" "$tmp/err"
}
bad_label "expected.json not JSON" '{"sub_domain": ' "invalid JSON"
bad_label "a sub-domain misspelt" '{"sub_domain": ["InfraHw"], "culprit_nodes": []}' "not a sub-domain"
bad_label "sub_domain a string" '{"sub_domain": "InfraHW"}' "not a non-empty array"
bad_label "culprit_nodes not names" '{"sub_domain": ["InfraHW"], "culprit_nodes": [1]}' "culprit_nodes"
bad_label "a bad also answer" '{"sub_domain": ["InfraHW"], "also": [{"sub_domain": []}]}' "not a non-empty array"
# a case the engine cannot read is scored as what the service stores for
# it (unattributed), said on stderr
rm -rf "$tmp/badl" && mkdir -p "$tmp/badl" && cp -r "$E/none-silent" "$tmp/badl/"
printf '{"schema": ' >"$tmp/badl/none-silent/job.json"
"$A" eval "$tmp/badl" >"$tmp/out" 2>"$tmp/err"
check "an unusable job.json: exit 0, one line on stderr" test $? = 0 -a "$(wc -l <"$tmp/err")" = 1
check "  scored unattributed" test "$(tail -n 1 "$tmp/out")" = "eval: 1/1 correct (100.0%), 0 false drains, 1 unattributed"
"$A" eval >/dev/null 2>&1
check "no DIR: exit 1" test $? = 1
for x in 2 -0.1 abc ''; do
	"$A" eval --min-accuracy "$x" "$E" >/dev/null 2>&1
	check "--min-accuracy '$x': exit 1" test $? = 1
done

"$A" eval --help >"$tmp/out"
check "eval --help: exit 0" test $? = 0
check "  documents --min-accuracy" grep -q -- '--min-accuracy X' "$tmp/out"
check "  and the exit statuses" grep -q '^Exit status: 0 scored' "$tmp/out"
"$A" --help | grep -q '^  eval DIR'
check "attrib --help lists eval" test $? = 0
finish
