#!/bin/bash
# POST /api/v1/jobs/ID/label on attribd's dashboard (service/labelapi.c):
# LabelTokenFile's token only (401 without a token or with a wrong one,
# 403 with the dashboard's read-only token), the body checked as attrib
# label checks it (400), 404 for a job without a result, 201 and the
# label, which GET /api/v1/jobs/ID and attrib show then show; without
# LabelTokenFile the dashboard stays read only (405).
set -u
A=${ATTRIB:-./attrib}
SRC=$(cd "${SRCDIR:-.}" && pwd)
AD=${ATTRIBD:-$(dirname "$A")/attribd}
. "$SRC/t/lib/check.sh"
. "$SRC/t/lib/service.sh"
for c in curl python3 sqlite3; do command -v $c >/dev/null || skip "no $c"; done
T=$(mktemp -d /tmp/attrib-label-XXXXXX)
. "$SRC/t/lib/dashboard.sh"
trap 'dash_stop; rm -rf "$T"' EXIT
export SLURM_CONF=$T/no-slurm.conf

mkdir -p "$T/state"
now=$(date +%s)
for c in examples/xid149-nvlink t/cases/segfault-user-ext; do
	"$A" --rules "$SRC/rules" analyze "$SRC/$c" --json >"$T/r.json"
	"$FILL" "$T/state/attrib.db" "$now" "$SRC/$c" "$T/r.json" >/dev/null || bad "fill $c"
done
dash_up $((22000 + $$ % 20000)); up=$?
[ $up = 2 ] && skip "no free port"
[ $up = 0 ] || { cat "$T/attribd.out" "$T/attrib.log"; bad "attribd with Dashboard = on starts"; finish; }
post() { # PATH BODY [curl args]: the body to $T/b, prints the status
	curl -s -o "$T/b" -w '%{http_code}' -X POST -H 'Content-Type: application/json' --data "$2" "${@:3}" "$D$1"
}
check "without LabelTokenFile: POST .../label is 405 (read only)" \
	test "$(post /api/v1/jobs/4242/label '{"confirm":true}')" = 405
dash_stop

read_tok=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
label_tok=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf '%s\n' "$read_tok" >"$T/token"
printf '%s\n' "$label_tok" >"$T/label-token"
chmod 0600 "$T/token" "$T/label-token"
{ cat "$T/attrib.conf"; echo "DashboardTokenFile = $T/token"; echo "LabelTokenFile = $T/token"; } >"$T/same.conf"
rm -f "$T/attrib.log"
dash_start "$T/same.conf"
check "LabelTokenFile = DashboardTokenFile: attribd refuses to start, saying so" \
	grep -q "LabelTokenFile holds DashboardTokenFile's token" "$T/attribd.out" "$T/attrib.log"
dash_stop
{ cat "$T/attrib.conf"; echo "DashboardTokenFile = $T/token"; echo "LabelTokenFile = $T/label-token"; } >"$T/tok.conf"
rm -f "$T/attrib.log"
dash_start "$T/tok.conf" || { cat "$T/attribd.out"; bad "attribd with LabelTokenFile starts"; finish; }
R=(-H "Authorization: Bearer $read_tok")
L=(-H "Authorization: Bearer $label_tok")
check "label: 401 without a token" test "$(post /api/v1/jobs/4242/label '{"confirm":true}')" = 401
check "label: 401 with a wrong token" test "$(post /api/v1/jobs/4242/label '{"confirm":true}' -H "Authorization: Bearer ${label_tok}x")" = 401
check "label: 403 with the dashboard's read-only token" test "$(post /api/v1/jobs/4242/label '{"confirm":true}' "${R[@]}")" = 403
check "label: the label token reads nothing else (401 on GET)" \
	test "$(curl -s -o /dev/null -w '%{http_code}' "${L[@]}" "$D/api/v1/jobs")" = 401
check "label: 400 for a sub-domain that is not one" \
	test "$(post /api/v1/jobs/4242/label '{"sub_domain":"Bogus"}' "${L[@]}")" = 400
check "label: 400 for confirm with a sub-domain" \
	test "$(post /api/v1/jobs/4242/label '{"confirm":true,"sub_domain":"InfraHW"}' "${L[@]}")" = 400
check "label: 400 for a culprit that is not a node name" \
	test "$(post /api/v1/jobs/4242/label '{"sub_domain":"InfraHW","culprit_nodes":["a/b"]}' "${L[@]}")" = 400
check "label: 400 for a cause that is no code of the catalog" \
	test "$(post /api/v1/jobs/4242/label '{"sub_domain":"InfraHW","cause":"xid.nonesuch"}' "${L[@]}")" = 400
check "label: the cause a code of the catalog is taken" \
	test "$(post /api/v1/jobs/4242/label '{"sub_domain":"InfraHW","cause":"xid.79"}' "${L[@]}")" = 201
check "label: 400 for a body that is not JSON" test "$(post /api/v1/jobs/4242/label 'nope' "${L[@]}")" = 400
check "label: 404 for a job without a result" test "$(post /api/v1/jobs/999/label '{"confirm":true}' "${L[@]}")" = 404
check "label: 413 for a body over 16 KiB" \
	test "$(post /api/v1/jobs/4242/label "{\"note\":\"$(head -c 20000 /dev/zero | tr '\0' x)\"}" "${L[@]}")" = 413
st=$(post /api/v1/jobs/4242/label '{"sub_domain":"InfraNet","culprit_nodes":["node-03","node-02"],"note":"RT#5","by":"rt"}' "${L[@]}")
check "label: 201 with the label token" test "$st" = 201
check "label: the answer is the label (culprits sorted, by api (rt))" python3 -c '
import json, sys
l = json.load(open(sys.argv[1]))
assert (l["sub_domain"], l["culprit_nodes"], l["by"], l["note"], l["confirm"]) == ("InfraNet", ["node-02", "node-03"], "api (rt)", "RT#5", False), l' "$T/b"
curl -s -o "$T/b" "${R[@]}" "$D/api/v1/jobs/4242"
check "GET /api/v1/jobs/4242: the label beside the result" \
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["label"]["sub_domain"] == "InfraNet", r.get("label")' "$T/b"
curl -s -o "$T/b" "${R[@]}" "$D/api/v1/jobs/66001"
check "GET /api/v1/jobs/66001: no label: null" python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["label"] is None' "$T/b"
printf 'StateDir = %s\n' "$T/state" >"$T/cli.conf"
"$A" show 4242 --json --config "$T/cli.conf" >"$T/show.json"
check "attrib show: the API's label" \
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["label"]["by"] == "api (rt)"' "$T/show.json"

# the Fleet page's figures: attrib report --accuracy's, and 12 weeks
check "GET /api/v1/accuracy?by=user: 400" \
	test "$(curl -s -o "$T/b" -w '%{http_code}' "${R[@]}" "$D/api/v1/accuracy?by=user")" = 400
curl -s -o "$T/b" "${R[@]}" "$D/api/v1/accuracy"
"$A" report --accuracy --json --config "$T/cli.conf" >"$T/acc.json"
check "GET /api/v1/accuracy: attrib report --accuracy's figures, by sub-domain, 12 weeks" python3 -c '
import json, sys
a, c = (json.load(open(p)) for p in sys.argv[1:3])
assert [a[k] for k in ("results", "labelled", "sub_domain_agree")] == [c[k] for k in ("results", "labelled", "sub_domain_agree")] == [2, 1, 0], (a, c)
assert a["by"] == "sub_domain" and len(a["weeks"]) == 12 and a["weeks"][-1]["labelled"] == 1, a' "$T/b" "$T/acc.json"

# /metrics: the labels' gauges, computed when attribd starts (then once a
# minute): 4242 (InfraHW) labelled InfraNet, 66001 (UserCode) confirmed;
# of 4242's drains, node-01 is cleared by its label, node-02 is not
check "label: 66001 confirmed (201)" test "$(post /api/v1/jobs/66001/label '{"confirm":true}' "${L[@]}")" = 201
sqlite3 "$T/state/attrib.db" "INSERT INTO drains(job_id, attempt, node, reason, decision, decided_by, created)
	VALUES ('4242', 0, 'node-01', 'r', 'drained', 'attribd', $now), ('4242', 0, 'node-02', 'r', 'drained', 'attribd', $now)"
dash_stop
rm -f "$T/attrib.log"
dash_start "$T/tok.conf" || bad "attribd starts again"
metrics_ready() { curl -s "http://127.0.0.1:$port/metrics" >"$T/metrics" && grep -q '^attrib_false_drains_total' "$T/metrics"; }
wait_for 120 metrics_ready
check "/metrics: the sub-domain agreement of the labels, by the result's sub-domain" \
	sh -c "grep -qx 'attrib_label_agreement_ratio{sub_domain=\"InfraHW\"} 0.0000' '$T/metrics' &&
		grep -qx 'attrib_label_agreement_ratio{sub_domain=\"UserCode\"} 1.0000' '$T/metrics'"
check "/metrics: no ratio for a sub-domain without labels" sh -c "! grep -q 'ratio{sub_domain=\"InfraNet\"}' '$T/metrics'"
check "/metrics: the false drain the label shows" grep -qx 'attrib_false_drains_total 1' "$T/metrics"
finish
