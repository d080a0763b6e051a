#!/bin/bash
# attrib report on a store, without a cluster: the table, --json and --csv
# (--by user, a hostile user name quoted and defused), --since, a bad --by,
# --json with --csv.  The store is made by attrib itself (attrib drain
# creates it), its rows written with python3's sqlite3 as attribd stores
# them (the report's columns: started, gpus, partition, culprit_switch,
# vouched; the culprit nodes in result_nodes).  The sums are worked out by hand
# below from these rows; store_report_json's own tests: t/report-unit.c.
set -u
A=${ATTRIB:-./attrib}
SRC=${SRCDIR:-.}
. "$SRC/t/lib/check.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 is needed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'StateDir = %s\n' "$tmp" >"$tmp/attrib.conf"
C=(--config "$tmp/attrib.conf")

"$A" report "${C[@]}" >/dev/null 2>&1
check "report: no store: exit 4" test $? = 4
"$A" drain 1 "${C[@]}" >/dev/null 2>&1 # creates the store
"$A" report --json "${C[@]}" >"$tmp/empty.json"
check "report --json on an empty store: 0 jobs, 0 GPU-hours" \
	test "$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["jobs"], r["gpu_hours"], r["groups"], r["weeks"])' "$tmp/empty.json")" = "0 0.0 [] []"

# job, sub_domain, user, partition, culprit, switch, gpus, hours, days ago
python3 - "$tmp/attrib.db" <<'EOF'
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
now = int(time.time())
rows = [
    ("101", "InfraHW", "alice", "gpu", "node-01", "leaf-1", 4, 2.0, 2),
    ("102", "UserCode", "bob", "gpu", None, None, 2, 1.5, 3),
    ("103", "SchedTimeLimit", "bob", "debug", None, None, 1, 0.5, 3),
    ("104", "Pass", "bob", "debug", None, None, 8, 5.0, 3),
    ("105", "InfraNet", None, None, None, None, None, 1.0, 4),
    ("106", "InfraHW", "alice", "gpu", "node-02", None, 1, 1.0, 40),
    ("107", "UserCode", '=x,"y"', "gpu", None, None, 1, 1.0, 1),
]
for job, sub, user, part, culprit, sw, gpus, hours, days in rows:
    ended = now - days * 86400
    db.execute("INSERT INTO results(job_id, attempt, user, sub_domain, culprits, created,"
               " result_json, ended, started, gpus, partition, culprit_switch, vouched)"
               " VALUES (?, 0, ?, ?, ?, ?, '{}', ?, ?, ?, ?, ?, 1)",
               (job, user, sub, culprit, ended + 60, ended, ended - int(hours * 3600), gpus, part, sw))
    if culprit:
        db.execute("INSERT INTO result_nodes VALUES (?, 0, ?, 1)", (job, culprit))
db.commit()
EOF

# in the last 30 days: 101 8 h, 102 3 h, 103 0.5 h, 105 not known, 107 1 h
"$A" report "${C[@]}" >"$tmp/out" 2>"$tmp/err"
check "report: exit 0, nothing on stderr" test $? = 0 -a ! -s "$tmp/err"
check "report: the total, the jobs and those without a GPU count" \
	grep -qx "  12.5 GPU-hours in 5 failed job attempts (1 without a GPU count: not costed)" "$tmp/out"
check "report: the domains' shares" \
	grep -qx "  infra 8.0 (64%) user 4.0 (32%) scheduler 0.5 (4%) unknown 0.0 (0%)" "$tmp/out"
check "report: by sub-domain, largest first" \
	sh -c "sed -n '/^BY SUB_DOMAIN/,/^\$/p' '$tmp/out' | sed -n 2p | grep -Eq '^InfraHW +1 +8.0 +64%$'"
check "report: the Pass job is not counted, the job of 40 days ago neither" \
	sh -c "! grep -Eq '^(Pass|node-02) ' '$tmp/out'"
check "report: the top culprit node and switch" \
	sh -c "grep -Eq '^node-01 +1 +8.0$' '$tmp/out' && grep -Eq '^leaf-1 +1 +8.0$' '$tmp/out'"
check "report: the weeks" grep -Eq '^20[0-9]{2}-W[0-9]{2} +[0-9.]+$' "$tmp/out"

"$A" report --json "${C[@]}" >"$tmp/r.json"
check "report --json: the sums and the keys of doc/formats.md" \
	test "$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
w = sum(x["gpu_hours"] for x in r["weeks"])
print(r["jobs"], r["gpu_hours"], r["unknown_gpus"], r["domains"], r["by"], r["groups"][0]["key"],
      r["top_nodes"][0]["node"], r["top_switches"][0]["switch"], round(w, 3), sorted(r))' "$tmp/r.json")" \
	= "5 12.5 1 {'infra': 8.0, 'user': 4.0, 'scheduler': 0.5, 'unknown': 0.0} sub_domain InfraHW node-01 leaf-1 12.5 ['by', 'domains', 'gpu_hours', 'groups', 'jobs', 'since', 'top_nodes', 'top_switches', 'unknown_gpus', 'until', 'unvouched', 'weeks']"

"$A" report --csv --by user "${C[@]}" >"$tmp/r.csv"
check "report --csv --by user: the groups, a name with a comma and quotes quoted, a leading = defused" \
	test "$(cat "$tmp/r.csv")" = "$(printf '%s\n' 'user,jobs,gpu_hours,share' 'alice,1,8.000,0.640' 'bob,2,3.500,0.280' \
		"\"'=x,\"\"y\"\"\",1,1.000,0.080" '(unknown),1,0.000,0.000')"
check "report --csv: python's csv reads it back" \
	test "$(python3 -c 'import csv,sys; print(len(list(csv.reader(open(sys.argv[1])))))' "$tmp/r.csv")" = 5

"$A" report --since 60d --json "${C[@]}" >"$tmp/r60.json"
check "report --since 60d: the job of 40 days ago counts" \
	test "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["gpu_hours"])' "$tmp/r60.json")" = 13.5
"$A" report --since 60d --until 30d --by node --json "${C[@]}" >"$tmp/old.json"
check "report --until 30d --by node: only that job, its culprit node" \
	test "$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["jobs"], [(g["key"], g["gpu_hours"], g["share"]) for g in r["groups"]])' "$tmp/old.json")" \
	= "1 [('node-02', 1.0, 1.0)]"

"$A" report --by colour "${C[@]}" >"$tmp/out" 2>"$tmp/err"
check "report --by colour: exit 1, the dimensions said" \
	sh -c "test $? = 1 && grep -q 'cannot group by \"colour\": one of sub_domain' '$tmp/err'"
"$A" report --json --csv "${C[@]}" >/dev/null 2>&1
check "report --json --csv: exit 1" test $? = 1
"$A" report --since yesterday "${C[@]}" >/dev/null 2>&1
check "report --since yesterday: exit 1" test $? = 1
# an InfraHW verdict only the job's own output tells of (vouched 0): 2 GPUs
# x 1 h on node-03 under leaf-3, a day ago.  Unknown, not infra; under no
# culprit node or switch; said under the domains
python3 - "$tmp/attrib.db" <<'EOF'
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1])
ended = int(time.time()) - 86400
db.execute("INSERT INTO results(job_id, attempt, user, sub_domain, culprits, created, result_json, ended,"
           " started, gpus, partition, culprit_switch, vouched)"
           " VALUES ('108', 0, 'mal', 'InfraHW', 'node-03', ?, '{}', ?, ?, 2, 'gpu', 'leaf-3', 0)",
           (ended + 60, ended, ended - 3600))
db.execute("INSERT INTO result_nodes VALUES ('108', 0, 'node-03', 1)")
db.commit()
EOF
"$A" report "${C[@]}" >"$tmp/out2" 2>&1
check "report: an infra verdict on the job's own word counts as unknown" \
	grep -qx "  infra 8.0 (55%) user 4.0 (28%) scheduler 0.5 (3%) unknown 2.0 (14%)" "$tmp/out2"
check "report: ... and the report says so" \
	grep -q "unknown holds 2.0 GPU-hours of 1 infrastructure verdicts only the jobs'" "$tmp/out2"
check "report: ... blaming no culprit node or switch" sh -c "! grep -Eq '^(node-03|leaf-3) ' '$tmp/out2'"
finish
