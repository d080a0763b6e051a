#!/bin/bash
# Labels on the real test cluster (t/cluster, as t/live-report.sh): five
# jobs fail and attribd diagnoses them; three are labelled with attrib
# label (one confirmed, two corrected), one through attribd's POST
# /api/v1/jobs/ID/label with LabelTokenFile's token (401 without a token,
# 403 with the dashboard's); attrib report --accuracy must give the
# agreement worked out here from the stored verdicts and the labels, and
# attrib export + attrib eval on the four labelled jobs must agree with
# the labels (eval's correct cases are the report's).
# Runs only with ATTRIB_LIVE_TESTS=1 (else skipped, exit 77); needs root.
# Last line: "N passed, N failed".  About a minute.
#
#   ATTRIB, SRCDIR                 the attrib program, the source tree
#   ATTRIB_BUILDDIR                build tree (plugin/.libs, epilog/) [dir of $ATTRIB]
#   ATTRIB_LABELS_CLUSTER_DIR      cluster state [/tmp/attrib-cluster-labels]
#   ATTRIB_CLUSTER_WAIT            seconds to wait for another test cluster [900]
#   ATTRIB_LIVE_KEEP=1             keep the temporary directory
set -u

[ "${ATTRIB_LIVE_TESTS:-0}" = 1 ] || { echo "SKIP: set ATTRIB_LIVE_TESTS=1 to run on the test cluster"; exit 77; }

A=${ATTRIB:-./attrib}
case $A in /*) ;; *) A=$(pwd)/$A ;; esac
SRC=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
export ATTRIB_CLUSTER_DIR=${ATTRIB_LABELS_CLUSTER_DIR:-/tmp/attrib-cluster-labels}
. "$SRC/t/cluster/pipeline.sh"
require_built

pipeline_workdir attrib-live-labels
require_root_and slurmctld slurmd slurmdbd sbatch sacct scontrol nsenter curl python3

pipeline_dirs
for n in $NODES; do boot_log "$n" >"$W/nodes/$n/kmsg"; done
write_epilog
start_cluster
ok "the test cluster starts with the job record by $JOBRECORD"
for n in $NODES; do bind_spool "$n"; done

pick_port 27671 27720
dport=
for p in $(seq $((port + 100)) $((port + 150))); do
	(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { dport=$p; break; }
done
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$W/read.token"
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$W/label.token"
chmod 0600 "$W/read.token" "$W/label.token"
printf '%s\n' "BundleDeadline = 15" "ReconcileInterval = 3600" "Dashboard = on" \
	"DashboardListen = 127.0.0.1:$dport" "DashboardTokenFile = $W/read.token" \
	"LabelTokenFile = $W/label.token" | service_conf "$W/attrib.conf" "$W/state"
for n in $NODES; do node_conf "$n" "$URL"; done
service_up "attribd starts on $URL, its dashboard on 127.0.0.1:$dport"
D=http://127.0.0.1:$dport

# five failures: two the job's own Python errors, three plain exits
py_err='echo "Traceback (most recent call last):"; echo "  File \"train.py\", line 3, in <module>"; echo "ZeroDivisionError: division by zero"'
j1=$(submit zerodiv -N1 -n1 -O --wrap "sleep 2; $py_err; exit 1")
j2=$(submit exit3 -N1 -n1 -O --wrap 'sleep 3; exit 3')
j3=$(submit zerodiv2 -N2 -n2 -O --wrap "sleep 2; $py_err; exit 1")
j4=$(submit exit4 -N1 -n1 -O --wrap 'sleep 1; exit 4')
j5=$(submit exit5 -N1 -n1 -O --wrap 'sleep 1; exit 5')
jobs="$j1 $j2 $j3 $j4 $j5"
echo "# jobs: $jobs"
for j in $jobs; do sacct_final "$j" 120 >/dev/null; done
stored=0
for j in $jobs; do show_json "$j" 120 && stored=$((stored + 1)); done
check "the five failed jobs are diagnosed and stored" test "$stored" = 5
[ "$stored" = 5 ] || finish
for j in $jobs; do
	echo "#   $j: $(jv "$W/show-$j.json" '[r["sub_domain"], r.get("culprit_nodes"), (r.get("root_cause") or {}).get("code")]')"
done
first_node=$(jv "$W/show-$j2.json" '(r.get("job_nodes") or ["node-01"])[0]')

# three labels through the command line
C=(--config "$W/attrib.conf")
"$A" label "$j1" --confirm "${C[@]}" >/dev/null
check "attrib label $j1 --confirm" test $? = 0
"$A" label "$j2" --sub-domain InfraHW --culprit "$first_node" --note 'the GPU, not the job' "${C[@]}" >/dev/null
check "attrib label $j2 --sub-domain InfraHW --culprit $first_node" test $? = 0
sd3=$(jv "$W/show-$j3.json" 'r["sub_domain"]')
"$A" label "$j3" --sub-domain "$sd3" "${C[@]}" >/dev/null
check "attrib label $j3 --sub-domain $sd3 (no culprit)" test $? = 0

# one through the API, with its own token
post() {
	curl -s -o "$W/post.json" -w '%{http_code}' -X POST \
		--data '{"sub_domain":"UserConfig","note":"RT#9","by":"rt"}' "$@" "$D/api/v1/jobs/$j4/label"
}
check "API label: 401 without a token" test "$(post)" = 401
check "API label: 403 with the dashboard's token" test "$(post -H "Authorization: Bearer $(cat "$W/read.token")")" = 403
check "API label: 201 with LabelTokenFile's" test "$(post -H "Authorization: Bearer $(cat "$W/label.token")")" = 201
"$A" show "$j4" --json "${C[@]}" >"$W/show-label.json"
check "attrib show $j4: the API's label" \
	test "$(jv "$W/show-label.json" '[r["label"]["sub_domain"], r["label"]["by"]]')" = '["UserConfig","api (rt)"]'

# the agreement, worked out from the stored verdicts and the labels
want=$(python3 -c '
import json, sys
w, j1, j2, j3, j4, j5, node, sd3 = sys.argv[1:]
v = {j: json.load(open("%s/show-%s.json" % (w, j))) for j in (j1, j2, j3, j4, j5)}
labels = {j1: (v[j1]["sub_domain"], sorted(v[j1].get("culprit_nodes", []))),
          j2: ("InfraHW", [node]), j3: (sd3, []), j4: ("UserConfig", [])}
cul = lambda j: sorted(v[j].get("culprit_nodes", []))
sd = sum(v[j]["sub_domain"] == l[0] for j, l in labels.items())
cu = sum(cul(j) == l[1] for j, l in labels.items())
both = sum(v[j]["sub_domain"] == l[0] and cul(j) == l[1] for j, l in labels.items())
una = sum(v[j]["sub_domain"] == "unattributed" and l[0] != "unattributed" for j, l in labels.items())
print(5, 4, sd, cu, both, una)' "$W" $jobs "$first_node" "$sd3")
"$A" report --accuracy --since 1d --json "${C[@]}" >"$W/acc.json"
sed 's/^/#   /' "$W/acc.json" | head -16
have=$(jv "$W/acc.json" '" ".join(str(r[k]) for k in ("results", "labelled", "sub_domain_agree", "culprits_agree", "correct", "unattributed_labelled"))')
check "attrib report --accuracy: results, labelled, agreement as worked out ($want)" test "$have" = "$want"

# export and eval: eval's correct cases are the report's
"$A" export $j1 $j2 $j3 $j4 "$W/corpus" --anonymise "${C[@]}" >/dev/null
check "attrib export --anonymise of the four labelled jobs" test $? = 0
"$A" eval --json "$W/corpus" >"$W/eval.json"
check "attrib eval on the export: 4 cases, as many correct as the report says" \
	test "$(jv "$W/eval.json" '[r["cases"], r["correct"]]')" = "[4,$(jv "$W/acc.json" 'r["correct"]')]"
check "SIGTERM stops attribd (exit 0)" stop_service
finish
