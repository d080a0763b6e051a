#!/bin/bash
# The dashboard's JSON API (service/api.c, dashboard.c) on a store of the
# project's own cases (t/lib/dashboard.sh: t/cases, examples, a 256-node
# job, a hostile one), through attribd: every endpoint, the filters, the
# keyset pages walked whole, bad parameters (400 naming them), read only
# (405), the security headers, the bearer token (401) and TLS.
set -u
A=${ATTRIB:-./attrib}
SRC=$(cd "${SRCDIR:-.}" && pwd)
AD=${ATTRIBD:-$(dirname "$A")/attribd}
. "$SRC/t/lib/check.sh"
. "$SRC/t/lib/service.sh"
for c in curl python3 sqlite3; do command -v $c >/dev/null || skip "no $c"; done
T=$(mktemp -d /tmp/attrib-dash-XXXXXX)
. "$SRC/t/lib/dashboard.sh"
trap 'dash_stop; rm -rf "$T"' EXIT
export SLURM_CONF=$T/no-slurm.conf

mkdir -p "$T/state"
n=$(dash_store "$T/state/attrib.db")
check "the store holds the cases (more than 60)" test "${n:-0}" -gt 60
dash_up $((21000 + $$ % 20000)); up=$?
[ $up = 2 ] && skip "no free port"
[ $up = 0 ] || { cat "$T/attribd.out" "$T/attrib.log"; bad "attribd with Dashboard = on starts"; finish; }
ok "attribd with Dashboard = on starts and says where"

get() { # PATH: the body to $T/b, prints the status
	curl -s -o "$T/b" -w '%{http_code}' "${@:2}" "$D$1"
}
py() { python3 -c "import json,sys; r=json.load(open('$T/b')); $1"; }
sqlc() { sqlite3 "$T/state/attrib.db" "$1"; }

check "jobs: 200" test "$(get /api/v1/jobs)" = 200
check "jobs: total is the store's count ($n)" test "$(py 'print(r["total"])')" = "$n"
check "jobs: 50 a page by default, with a next_cursor" test "$(py 'print(r["count"], len(r["jobs"]), r["next_cursor"] is not None)')" = "50 50 True"
check "jobs: the stable fields of a row" test "$(py 'print(sorted(r["jobs"][0]))')" = \
	"['actions', 'attempt', 'cluster', 'culprit_nodes', 'domain', 'drains', 'end_time', 'job_id', 'job_name', 'nodes', 'partition', 'root_code', 'root_title', 'start_time', 'state', 'stored', 'sub_domain', 'user']"

# every page, 7 at a time: each result once, newest first
cursor= ids=$T/ids; : >"$ids"; pages=0
while :; do
	st=$(get "/api/v1/jobs?limit=7${cursor:+&cursor=$cursor}")
	[ "$st" = 200 ] || { bad "page $pages: HTTP $st"; break; }
	py 'print("\n".join(j["job_id"]+" "+j["stored"] for j in r["jobs"]))' >>"$ids"
	pages=$((pages + 1))
	cursor=$(py 'print(r["next_cursor"] or "")')
	[ -n "$cursor" ] || break
	[ $pages -lt 100 ] || { bad "more than 100 pages"; break; }
done
check "pages: every result once ($n in $pages pages of 7)" \
	test "$(cut -d' ' -f1 "$ids" | sort -u | wc -l) $(wc -l <"$ids") $pages" = "$n $n $(((n + 6) / 7))"
check "pages: newest first" sh -c "cut -d' ' -f2 '$ids' | sort -c -r"

infra=$(sqlc "SELECT count(*) FROM results WHERE sub_domain = 'InfraHW'")
get "/api/v1/jobs?sub_domain=InfraHW&limit=500" >/dev/null
check "filter sub_domain=InfraHW: the store's $infra, each InfraHW" \
	test "$(py 'print(r["total"], len(r["jobs"]), set(j["sub_domain"] for j in r["jobs"]))')" = "$infra $infra {'InfraHW'}"
get "/api/v1/jobs?node=gpu-137" >/dev/null
check "filter node=gpu-137: the 256-node job" test "$(py 'print([(j["job_id"], j["nodes"], j["culprit_nodes"]) for j in r["jobs"]])')" = "[('9256', 256, ['gpu-137'])]"
get "/api/v1/jobs?user=mallory" >/dev/null
check "filter user=mallory: the hostile job, its name as given (JSON-escaped only)" \
	test "$(py 'print(r["total"], r["jobs"][0]["job_id"], r["jobs"][0]["job_name"].startswith("<script>alert(\"x\")</script>"))')" = "1 666 True"
get "/api/v1/jobs?since=$(($(date +%s) + 3600))" >/dev/null
check "filter since (in an hour): none" test "$(py 'print(r["total"], r["jobs"], r["next_cursor"])')" = "0 [] None"
get "/api/v1/jobs?since=1d&sub_domain=InfraHW&user=bob" >/dev/null
check "filters together (since=1d, sub_domain, user)" test "$(py 'print([j["job_id"] for j in r["jobs"]])')" = "['9256']"

for q in "limit=0" "limit=501" "limit=abc" "sub_domain=Bogus" "cursor=zzz" "cursor=1.0.../x" "since=yesterday" \
	"node=../etc" "bogus=1" "limit=5&limit=6"; do
	st=$(get "/api/v1/jobs?$q")
	check "jobs?$q: 400 with a message" sh -c "[ $st = 400 ] && python3 -c 'import json; m = json.load(open(\"$T/b\"))[\"error\"]; assert len(m) > 8, m'"
done
get "/api/v1/jobs?limit=abc" >/dev/null
check "the 400 names the parameter" test "$(py 'print(r["error"])')" = "limit: an integer from 1 to 500"

check "job 9256: 200" test "$(get /api/v1/jobs/9256)" = 200
check "job 9256: result, drains, findings; culprit gpu-137, 256 nodes" \
	test "$(py 'x=r["result"]; print(sorted(r), x["culprit_nodes"], len(x["job_nodes"]), x["root_cause"]["node"])')" = \
	"['attempt', 'drains', 'findings', 'job_id', 'label', 'result'] ['gpu-137'] 256 gpu-137"
sqlc "INSERT INTO drains(job_id, attempt, node, reason, decision, decided_by, created) VALUES ('9256', 0, 'gpu-137', 'attrib: NVLink', 'suggested', 'attrib serve (policy suggest)', strftime('%s','now'))"
sqlc "INSERT INTO findings(kind, subject, summary, jobs, created) VALUES ('repeat-offender', 'gpu-137', 'gpu-137 failed 3 jobs in 7 days', '[{\"job_id\":\"9256\",\"attempt\":0}]', strftime('%s','now'))"
get /api/v1/jobs/9256 >/dev/null
check "job 9256: its drain decision and the finding citing it" \
	test "$(py 'print(r["drains"][0]["decision"], r["drains"][0]["node"], r["findings"][0]["kind"], r["findings"][0]["subject"])')" = "suggested gpu-137 repeat-offender gpu-137"
# one drain decision, one shape: the API's and attrib show --drains --json's
"$A" show 9256 --drains --json --config "$T/attrib.conf" >"$T/show-drains.json" 2>/dev/null
check "job 9256: its drain decision as attrib show --drains --json prints it" \
	python3 -c "import json,sys; a=json.load(open('$T/b'))['drains']; s=json.load(open('$T/show-drains.json')); sys.exit(not a or a != s)"
get "/api/v1/jobs?node=gpu-137" >/dev/null
check "jobs: the drain decision among the row's actions taken" test "$(py 'print(r["jobs"][0]["drains"][0]["decision"])')" = suggested
check "job of no result: 404" test "$(get /api/v1/jobs/31415926)" = 404
check "job ..: 400" test "$(get '/api/v1/jobs/..%2fx')" = 400
check "job 9256?attempt=x: 400" test "$(get '/api/v1/jobs/9256?attempt=x')" = 400
check "job 9256?attempt=3: 404" test "$(get '/api/v1/jobs/9256?attempt=3')" = 404

check "nodes: 200" test "$(get /api/v1/nodes)" = 200
culprits=$(sqlc "SELECT count(DISTINCT node) FROM result_nodes WHERE culprit = 1")
check "nodes: every culprit node of the store ($culprits), most faults first" \
	test "$(py 'f=[x["faults"] for x in r["nodes"] if x["faults"]]; print(len(f), f == sorted(f, reverse=True))')" = "$culprits True"
check "nodes: gpu-137 once to blame, for xid.149, 30 days of counts" \
	test "$(py 'x=[x for x in r["nodes"] if x["node"]=="gpu-137"][0]; print(x["faults"], x["causes"], len(x["per_day"]))')" = "1 [{'cause': 'xid.149', 'count': 1}] 30"
check "nodes?since=x: 400" test "$(get '/api/v1/nodes?since=x')" = 400
check "nodes?node=x: 400 (unknown parameter)" test "$(get '/api/v1/nodes?node=x')" = 400

# the report: attrib report's figures over every failed job the store holds
# (some cases end in the future: until 2100)
check "report?since=0: 200" test "$(get '/api/v1/report?since=0&until=4102444800&by=user')" = 200
check "report: its jobs are the store's failed ones, grouped by user" \
	test "$(py 'print(r["jobs"], r["by"], sum(g["jobs"] for g in r["groups"]))')" = \
	"$(sqlc "SELECT COUNT(*) FROM results WHERE sub_domain IS NOT 'Pass'") user $(sqlc "SELECT COUNT(*) FROM results WHERE sub_domain IS NOT 'Pass'")"
check "report: the four domains" test "$(py 'print(sorted(r["domains"]))')" = "['infra', 'scheduler', 'unknown', 'user']"
check "report?by=bogus: 400" test "$(get '/api/v1/report?by=bogus')" = 400
check "report?by=bogus: the message names by" grep -q '"by: ' "$T/b"
check "report?by=nod (a prefix of a name): 400" test "$(get '/api/v1/report?by=nod')" = 400
check "report?until=x: 400" test "$(get '/api/v1/report?until=x')" = 400
check "report?by= (empty): 400" test "$(get '/api/v1/report?by=')" = 400
check "unknown API path: 404" test "$(get /api/v1/nope)" = 404

# read only, and its headers
check "POST: 405" test "$(get /api/v1/jobs -X POST -d x)" = 405
check "DELETE: 405" test "$(get /api/v1/jobs/9256 -X DELETE)" = 405
curl -s -D "$T/h" -o /dev/null -X POST -d x "$D/"
check "405 says Allow: GET, HEAD" grep -qi '^Allow: GET, HEAD' "$T/h"
check "HEAD: 200" test "$(curl -s -o /dev/null -w '%{http_code}' -I "$D/")" = 200
for p in / /app.js /style.css /api/v1/jobs; do
	curl -s -D "$T/h" -o "$T/page" "$D$p"
	check "$p: strict Content-Security-Policy, nosniff, frames denied" sh -c \
		"grep -qi \"^Content-Security-Policy: default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;.*frame-ancestors 'none'\" '$T/h' && grep -qi '^X-Content-Type-Options: nosniff' '$T/h'"
done
curl -s -D "$T/h" -o "$T/page" "$D/"
check "/: the page, its script from a file (no inline script)" sh -c \
	"grep -qi '^Content-Type: text/html' '$T/h' && grep -q '<script src=\"app.js\"' '$T/page' && ! grep -q '<script>' '$T/page'"
check "/app.js: JavaScript" sh -c "curl -sI '$D/app.js' | grep -qi '^Content-Type: text/javascript'"
check "a page not there: 404" test "$(get /etc/passwd)" = 404
dash_stop

# the bearer token
tok=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf '%s\n' "$tok" >"$T/token"
chmod 0644 "$T/token"
{ cat "$T/attrib.conf"; echo "DashboardTokenFile = $T/token"; } >"$T/tok.conf"
: >"$T/attrib.log"
"$AD" --config "$T/tok.conf" --foreground >"$T/out" 2>&1 &
p=$!
wait_for 60 sh -c "! kill -0 $p 2>/dev/null"
kill -0 $p 2>/dev/null && { kill $p; wait $p; }
check "a token file others may read: attribd refuses to start, saying so" grep -q "mode 644: its group or other users have access to it" "$T/out"
chmod 0600 "$T/token"
: >"$T/attrib.log"
dash_start "$T/tok.conf" || bad "attribd with DashboardTokenFile starts"
check "token: 401 without it" test "$(get /api/v1/jobs)" = 401
check "token: 401 says Bearer" sh -c "curl -s -D - -o /dev/null '$D/api/v1/jobs' | grep -qi '^WWW-Authenticate: Bearer'"
check "token: 401 with a wrong one" test "$(get /api/v1/jobs -H "Authorization: Bearer ${tok}x")" = 401
check "token: 401 with its prefix" test "$(get /api/v1/jobs -H "Authorization: Bearer ${tok%?}")" = 401
check "token: 200 with it" test "$(get /api/v1/jobs -H "Authorization: Bearer $tok")" = 200
check "token: the page itself needs it too" test "$(get /)" = 401
dash_stop

# TLS (libmicrohttpd with GnuTLS), a self-signed certificate made here
if command -v openssl >/dev/null; then
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/key.pem" -out "$T/cert.pem" -days 1 \
		-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 2>/dev/null
	chmod 0600 "$T/key.pem"
	{ cat "$T/attrib.conf"; echo "DashboardTLSCert = $T/cert.pem"; echo "DashboardTLSKey = $T/key.pem"; } >"$T/tls.conf"
	: >"$T/attrib.log"
	dash_start "$T/tls.conf" || { cat "$T/attribd.out"; bad "attribd with DashboardTLSCert starts"; }
	check "TLS: the API over https (the certificate checked)" \
		test "$(curl -s -o "$T/b" -w '%{http_code}' --cacert "$T/cert.pem" "https://127.0.0.1:$dport/api/v1/jobs?limit=1")" = 200
	check "TLS: plain http gets no answer" sh -c "! curl -s -m 5 -o /dev/null 'http://127.0.0.1:$dport/api/v1/jobs'"
	dash_stop
else
	echo "# no openssl: TLS not tested"
fi
finish
