#!/bin/bash
# attrib export: two stored cases (from t/cases, stored as attribd keeps
# them: STATE/cases/JOB.ATTEMPT and a result row made by attrib analyze)
# labelled, exported with --anonymise: no user name or home path left in
# any file or file name, each still analyses to the same verdict, and
# attrib eval on the export agrees with the labels (one confirmed, one
# corrected).
set -u
A=${ATTRIB:-./attrib}
SRC=${SRCDIR:-.}
. "$SRC/t/lib/check.sh"
command -v python3 >/dev/null || skip "python3 is needed"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'StateDir = %s\n' "$tmp" >"$tmp/attrib.conf"
C=(--config "$tmp/attrib.conf")
"$A" drain 1 "${C[@]}" >/dev/null 2>&1 # creates the store
mkdir -p "$tmp/cases"

# job, case of t/cases, its user (a name the case's own lines hold)
store_case() {
	cp -r "$SRC/t/cases/$2" "$tmp/cases/$1.0"
	rm -f "$tmp/cases/$1.0/expected.json"
	python3 - "$tmp/cases/$1.0" "$3" <<'PY'
import json, sys
d, user = sys.argv[1], sys.argv[2]
j = json.load(open(d + "/job.json"))
j.update(user=user, uid=4711, gid=4711, work_dir="/home/%s/run" % user,
         std_out="/home/%s/run/slurm-%s.out" % (user, j["job_id"]))
json.dump(j, open(d + "/job.json", "w"), indent=1)
open(d + "/app/notes-%s.txt" % user, "w").write("checkpoint at /home/%s/ckpt by %s\n" % (user, user))
PY
	"$A" analyze --json "$tmp/cases/$1.0" >"$tmp/$1.result.json" || bad "analyze $2"
	python3 - "$tmp/attrib.db" "$1" "$tmp/$1.result.json" <<'PY'
import json, sqlite3, sys, time
db, job, path = sqlite3.connect(sys.argv[1]), sys.argv[2], sys.argv[3]
r = json.load(open(path))
code = (r.get("root_cause") or {}).get("code")
db.execute("INSERT INTO results(job_id, attempt, sub_domain, culprits, root_code, created, result_json)"
           " VALUES (?, 0, ?, ?, ?, ?, ?)", (job, r["sub_domain"], ",".join(r.get("culprit_nodes", [])),
           code, int(time.time()), json.dumps(r)))
db.commit()
PY
}
store_case 301 nccl-bad-ifname tim
store_case 302 shared-node-other-gpu-xid79 tim
store_case 303 segfault-user-ext dana
# a user named as a system directory: its own name goes, /dev/null stays
store_case 304 segfault-user-ext dev

"$A" label 301 --confirm "${C[@]}" >/dev/null
"$A" label 302 --sub-domain InfraSW --culprit node-99 --note 'not the GPU' "${C[@]}" >/dev/null
"$A" export 301 302 303 304 "$tmp/out" --anonymise "${C[@]}" >"$tmp/export.out" 2>"$tmp/err"
check "export: exit 0" test $? = 0
check "export: a line per case, the unlabelled one said" \
	sh -c "grep -q '/out/301.0\$' '$tmp/export.out' && grep -q '303.0 (no label' '$tmp/export.out'"
check "export: expected.json for the labelled jobs only" \
	sh -c "test -f '$tmp/out/301.0/expected.json' -a -f '$tmp/out/302.0/expected.json' -a ! -e '$tmp/out/303.0/expected.json'"
check "export --anonymise: no user name in any file" sh -c "! grep -rqwE 'tim|dana' '$tmp/out'"
check "export --anonymise: no home path in any file" sh -c "! grep -rqE '/home/(tim|dana)' '$tmp/out'"
check "export --anonymise: no user name in a file name" sh -c "! find '$tmp/out' | grep -qE 'tim|dana'"
check "export --anonymise: the same name everywhere (job.json, the renamed file)" \
	sh -c "grep -q '\"user\": *\"user1\"' '$tmp/out/301.0/job.json' && grep -qx 'checkpoint at /home/user1/ckpt by user1' '$tmp/out/301.0/app/notes-user1.txt'"
check "export --anonymise: user dev: no /home/dev, no \"dev\" user, /dev/null kept" sh -c \
	"! grep -rq '/home/dev' '$tmp/out/304.0' && grep -q '\"user\": *\"user1\"' '$tmp/out/304.0/job.json' &&
	grep -q 'nhc >/dev/null' '$tmp/out/304.0/nodes/cx-g08/journal.txt' && grep -q '/home/user1/dedup/train.py' '$tmp/out/304.0/app/slurm-66001.out'"
check "export --anonymise: the uid replaced" sh -c "grep -q '\"uid\": *10001' '$tmp/out/302.0/job.json' && ! grep -q 4711 '$tmp/out/302.0/job.json'"
for j in 301 302 303 304; do
	"$A" analyze --json "$tmp/out/$j.0" >"$tmp/$j.again.json"
	check "export --anonymise: job $j analyses to the same verdict" python3 -c '
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
key = lambda r: (r["sub_domain"], r.get("culprit_nodes"), (r.get("root_cause") or {}).get("code"))
assert key(a) == key(b), (key(a), key(b))' "$tmp/$j.result.json" "$tmp/$j.again.json"
done
"$A" eval --json "$tmp/out" >"$tmp/eval.json"
check "eval on the export: 2 cases, the confirmed one right, the corrected one not" python3 -c '
import json, sys
e = json.load(open(sys.argv[1]))
per = {c["case"]: c["correct"] for c in e["results"]}
assert e["cases"] == 2 and e["correct"] == 1 and per == {"301.0": True, "302.0": False}, (e["cases"], per)' "$tmp/eval.json"
"$A" export 301 "$tmp/out" "${C[@]}" >/dev/null 2>"$tmp/err"
check "export: an existing case directory is not overwritten: exit 1" sh -c "test $? = 1 && grep -q exists '$tmp/err'"
"$A" export 999 "$tmp/out2" "${C[@]}" >/dev/null 2>&1
check "export: a job without a result: exit 4" test $? = 4
"$A" export --help | grep -q '^Exit status'
check "export --help says the exit statuses" test $? = 0
finish
