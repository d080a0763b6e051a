#!/bin/bash
# The dashboard at scale: a store of BENCH_DASH_RESULTS results (default
# 100,000: the project's cases copied under new job ids, one second apart,
# and a 1,024-node job), then
#   - GET /api/v1/jobs (first page, a deep page by cursor, a sub_domain
#     filter, a node filter): the median of 21 requests each, curl's
#     time_total, goal < 50 ms;
#   - the 1,024-node job's page in headless Chromium until its script has
#     drawn it (--dump-dom with a virtual-time budget), wall time, the
#     median of 5, beside the same Chromium on the page's 404 (its start-up),
#     goal < 1 s for the page's own part.
# Prints one line per figure.  Needs python3, curl, chromium.
set -u
A=${ATTRIB:-./attrib}
SRC=$(cd "${SRCDIR:-.}" && pwd)
AD=${ATTRIBD:-$(dirname "$A")/attribd}
N=${BENCH_DASH_RESULTS:-100000}
. "$SRC/t/lib/check.sh"
. "$SRC/t/lib/service.sh"
CHROMIUM=$(command -v chromium) || skip "no chromium"
T=$(mktemp -d /var/tmp/attrib-dbench-XXXXXX)
. "$SRC/t/lib/dashboard.sh"
trap 'dash_stop; rm -rf "$T"' EXIT
export SLURM_CONF=$T/none
mkdir -p "$T/state" "$T/cases"
base=$(date +%s)
dash_case256 "$T/cases/big1024" 1024 91024
"$A" --rules "$SRC/rules" analyze "$T/cases/big1024" --json >"$T/big.json"
"$FILL" "$T/state/attrib.db" "$base" "$T/cases/big1024" "$T/big.json"
cases=("$SRC"/t/cases/*/ "$SRC"/examples/*/)
per=$(( (N - 1) / ${#cases[@]} + 1 ))
i=0
for d in "${cases[@]}"; do
	"$A" --rules "$SRC/rules" analyze "$d" --json >"$T/r.json" 2>/dev/null || continue
	"$FILL" "$T/state/attrib.db" $((base - 1 - i * per)) "$d" "$T/r.json" "$per" || exit 1
	i=$((i + 1))
done
total=$(sqlite3 "$T/state/attrib.db" "SELECT count(*) FROM results")
echo "store: $total results ($(du -m "$T/state/attrib.db" | cut -f1) MB)"
dash_up 23000 || { cat "$T/attribd.out"; exit 1; }
median() { sort -n | awk '{ v[NR] = $1 } END { printf "%.1f", v[int((NR + 1) / 2)] * 1000 }'; }
deep=$(curl -s "$D/api/v1/jobs?limit=500&since=0" | python3 -c 'import json,sys; print(json.load(sys.stdin)["next_cursor"])')
for q in "" "?cursor=$deep" "?sub_domain=InfraNet" "?node=gpu-137" "?limit=500"; do
	for _ in $(seq 21); do curl -s -o /dev/null -w '%{time_total}\n' "$D/api/v1/jobs$q"; done >"$T/times"
	echo "GET /api/v1/jobs${q:0:30}: median $(median <"$T/times") ms (21 requests)"
done
chrome() {
	rm -rf "$T/prof"
	/usr/bin/time -f %e -o "$T/t" timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$T/prof" --window-size=1366,768 --virtual-time-budget=15000 --dump-dom "$1" >"$T/dom" 2>/dev/null
	cat "$T/t"
}
for _ in 1 2 3 4 5; do chrome "$D/nope"; done >"$T/base"
for _ in 1 2 3 4 5; do chrome "$D/#/job/91024"; done >"$T/page"
grep -q 'data-ready="1"' "$T/dom" && grep -q 'data-node="gpu-137"' "$T/dom" || { echo "the 1,024-node page did not render"; exit 1; }
echo "chromium on a 404 (its own start): median $(median <"$T/base") ms of 5"
echo "chromium on the 1,024-node job's page, drawn: median $(median <"$T/page") ms of 5 ($(grep -o 'data-count="[0-9]*"' "$T/dom") lanes collapsed)"
