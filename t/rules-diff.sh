#!/bin/bash
# attrib rules diff: a catalog whose PCIe AER rule is moved from the
# host-hardware class (InfraHW) to driver-firmware (InfraSW).  Of three
# copies of one AER case, the one labelled InfraHW gets worse, the one
# labelled InfraSW better, the unlabelled one is unknown; an unchanged
# case is not listed.  Exit status 1 for the worse one, 0 without it.
# The same through the store (--store: STATE/cases and attrib label), and
# a catalog against itself changes nothing.
set -u
A=${ATTRIB:-./attrib}
SRC=${SRCDIR:-.}
. "$SRC/t/lib/check.sh"
command -v python3 >/dev/null || skip "python3 is needed"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
OLD=${ATTRIB_RULES:-$SRC/rules}
cp -r "$OLD" "$tmp/new"
python3 - "$tmp/new/50-host.yaml" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
old = "  - code: host.aer_fatal\n    class: host-hardware\n"
assert old in s
open(p, "w").write(s.replace(old, "  - code: host.aer_fatal\n    class: driver-firmware\n"))
PY
"$A" rules check "$tmp/new" >/dev/null
check "the changed catalog is valid" test $? = 0

mkdir "$tmp/dir"
for c in hw sw none; do cp -r "$SRC/t/cases/aer-fatal-cancelled" "$tmp/dir/aer-$c"; done
cp -r "$SRC/examples/xid149-nvlink" "$tmp/dir/xid149"
rm "$tmp/dir/aer-none/expected.json"
sed -i 's/"InfraHW"/"InfraSW"/' "$tmp/dir/aer-sw/expected.json"
grep -q InfraSW "$tmp/dir/aer-sw/expected.json" || bad "the InfraSW label is written"

"$A" rules diff --from "$OLD" --to "$tmp/new" "$tmp/dir" >"$tmp/out" 2>"$tmp/err"
check "rules diff: a labelled job got worse: exit 1" test $? = 1
check "rules diff: the InfraHW-labelled case worse" grep -qx 'aer-hw: InfraHW \[px-12\] host.aer_fatal -> InfraSW \[px-12\] host.aer_fatal worse' "$tmp/out"
check "rules diff: the InfraSW-labelled case better" grep -q '^aer-sw: .* better$' "$tmp/out"
check "rules diff: the unlabelled case unknown" grep -q '^aer-none: .* unknown$' "$tmp/out"
check "rules diff: the unchanged case not listed" sh -c "! grep -q '^xid149' '$tmp/out'"
check "rules diff: the summary" grep -qx '4 cases, 3 changed: 1 better, 1 worse by their labels' "$tmp/out"
rm -r "$tmp/dir/aer-hw"
"$A" rules diff --from "$OLD" --to "$tmp/new" "$tmp/dir" --json >"$tmp/out.json"
check "rules diff: nothing worse: exit 0, --json" sh -c "test $? = 0 && python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); assert sorted(c[\"label\"] for c in a) == [\"better\", \"unknown\"], a' '$tmp/out.json'"
"$A" rules diff --from "$OLD" --to "$tmp/new" >/dev/null 2>&1
check "rules diff without DIR or --store: exit 1" test $? = 1

# the store: its cases as attribd keeps them, labelled with attrib label
printf 'StateDir = %s\n' "$tmp/state" >"$tmp/attrib.conf"
mkdir -p "$tmp/state/cases"
C=(--config "$tmp/attrib.conf")
"$A" drain 1 "${C[@]}" >/dev/null 2>&1 # creates the store
for j in 401 402; do
	cp -r "$SRC/t/cases/aer-fatal-cancelled" "$tmp/state/cases/$j.0"
	"$A" analyze --json "$tmp/state/cases/$j.0" >"$tmp/$j.json"
	python3 - "$tmp/state/attrib.db" "$j" "$tmp/$j.json" <<'PY'
import json, sqlite3, sys, time
db, job, r = sqlite3.connect(sys.argv[1]), sys.argv[2], json.load(open(sys.argv[3]))
db.execute("INSERT INTO results(job_id, attempt, sub_domain, culprits, root_code, created, result_json)"
           " VALUES (?, 0, ?, ?, ?, ?, ?)", (job, r["sub_domain"], ",".join(r["culprit_nodes"]),
           r["root_cause"]["code"], int(time.time()), json.dumps(r)))
db.commit()
PY
done
"$A" label 401 --confirm "${C[@]}" >/dev/null
"$A" label 402 --sub-domain InfraSW --culprit px-12 "${C[@]}" >/dev/null
"$A" rules diff --from "$OLD" --to "$tmp/new" --store "${C[@]}" >"$tmp/out" 2>"$tmp/err"
check "rules diff --store: exit 1 (401 confirmed, now worse)" test $? = 1
check "rules diff --store: 401 worse, 402 better" \
	sh -c "grep -q '^401.0: .* worse\$' '$tmp/out' && grep -q '^402.0: .* better\$' '$tmp/out'"
"$A" rules diff --from "$OLD" --to "$OLD" --store "${C[@]}" >"$tmp/out"
check "rules diff --store, a catalog against itself: nothing changes, exit 0" \
	sh -c "test $? = 0 && grep -qx '2 cases, 0 changed: 0 better, 0 worse by their labels' '$tmp/out'"
finish
