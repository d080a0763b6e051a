#!/bin/bash
# The dashboard's page in headless Chromium (Debian's chromium) on a store
# of the project's own cases (t/lib/dashboard.sh): each page's DOM once
# its script ran (--dump-dom), no console message, and screenshots at
# 1366x768 kept in $DASH_ARTIFACTS (default t/dashboard-artifacts/).
# Checks: the 256-node job's root-cause lane is its culprit node, its
# healthy lanes are one count and the nodes that sent nothing are marked;
# the Jobs page counts what the store holds; the hostile job's name and
# log line are text, never markup; an admin's label on the job page (its
# note as text), the accuracy table and weekly trend on the Fleet page,
# with attrib report --accuracy's figures.
set -u
A=${ATTRIB:-./attrib}
SRC=$(cd "${SRCDIR:-.}" && pwd)
AD=${ATTRIBD:-$(dirname "$A")/attribd}
. "$SRC/t/lib/check.sh"
. "$SRC/t/lib/service.sh"
CHROMIUM=$(command -v chromium || command -v chromium-browser) || skip "no chromium (apt-get install chromium; contrib/install-deps.sh does)"
for c in curl python3 sqlite3; do command -v $c >/dev/null || skip "no $c"; done
T=$(mktemp -d /tmp/attrib-dpage-XXXXXX)
OUT=${DASH_ARTIFACTS:-$(dirname "$A")/t/dashboard-artifacts}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
. "$SRC/t/lib/dashboard.sh"
trap 'dash_stop; rm -rf "$T"' EXIT
export SLURM_CONF=$T/no-slurm.conf

mkdir -p "$T/state"
n=$(dash_store "$T/state/attrib.db")
printf 'StateDir = %s\n' "$T/state" >"$T/cli.conf"
"$A" label 4242 --sub-domain InfraNet --culprit node-02 --note 'RT#5 <b>x</b>' --config "$T/cli.conf" >/dev/null || bad "label 4242"
"$A" label 9256 --confirm --config "$T/cli.conf" >/dev/null || bad "label 9256"
dash_up $((22000 + $$ % 20000)); up=$?
[ $up = 2 ] && skip "no free port"
[ $up = 0 ] || { cat "$T/attribd.out"; bad "attribd starts"; finish; }

# chromium as root, offline: without the networking flags it waits on
# this closed network; a fresh profile each time
chrome() { # NAME URL-FRAGMENT [extra flags]: DOM to $T/NAME.html, log to $T/NAME.log
	local name=$1 frag=$2
	shift 2
	rm -rf "$T/prof"
	timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$T/prof" --enable-logging=stderr --v=0 --window-size=1366,768 \
		--virtual-time-budget=15000 "$@" "$D/#$frag" >"$T/$name.html" 2>"$T/$name.log"
}
page() { # NAME FRAGMENT: the DOM, no console message, and a screenshot
	chrome "$1" "$2" --dump-dom
	check "$1: the page ran (data-ready)" grep -q '<body data-ready="1"' "$T/$1.html"
	check "$1: no console message, no uncaught error" sh -c "! grep -E 'CONSOLE|Uncaught' '$T/$1.log'"
	grep -E 'CONSOLE|Uncaught' "$T/$1.log" | head -5
	(cd "$T" && chrome "$1-shot" "$2" --screenshot="$OUT/$1.png" >/dev/null)
	check "$1: screenshot kept ($OUT/$1.png)" test -s "$OUT/$1.png"
}

page jobs /jobs
rows=$(grep -o '<tr data-job="' "$T/jobs.html" | wc -l)
check "jobs: '$n of $n diagnoses', $n rows (100 a page)" sh -c "grep -q 'data-total=\"$n\"' '$T/jobs.html' && [ $rows = $(( n < 100 ? n : 100 )) ]"
check "jobs: the hostile name as text" grep -qF '<div class="muted job-name">&lt;script&gt;alert("x")&lt;/script&gt;' "$T/jobs.html"

page job256 /job/9256
check "job 9256: the root-cause lane is the culprit gpu-137" \
	test "$(grep -o '<g class="lane root-lane[^"]*" data-node="[^"]*"' "$T/job256.html")" = '<g class="lane root-lane" data-node="gpu-137"'
check "job 9256: the root-cause mark on that lane" \
	python3 -c "import re,sys; h=open('$T/job256.html').read(); g=h[h.index('data-node=\"gpu-137\"'):]; g=g[:g.index('</g>')]; sys.exit(not re.search(r'class=\"mark root\"[^>]*data-code=\"xid.149\"', g))"
check "job 9256: 252 healthy lanes collapsed into a count" grep -q 'data-count="252"' "$T/job256.html"
check "job 9256: the 3 nodes that sent nothing, on their lanes" \
	test "$(grep -o '<g class="lane silent" data-node="gpu-20[0-2]"' "$T/job256.html" | wc -l)" = 3
check "job 9256: the verdict line" grep -q 'id="verdict"><strong>InfraHW</strong>: NVLink link down' "$T/job256.html"
check "job 9256: its root evidence with file:line" grep -q 'nodes/gpu-137/journal.txt:2' "$T/job256.html"
check "job 9256: the label, confirmed" grep -q 'id="label"><strong>Confirmed</strong>' "$T/job256.html"

page job4242 /job/4242
check "job 4242: downstream symptoms in order, offsets from the root" \
	python3 -c "import re,sys; h=open('$T/job4242.html').read(); t=h[h.index('id=\"downstream\"'):]; o=re.findall(r'<td class=\"num\">\+([0-9.]+) s</td>', t); sys.exit(not (len(o) >= 5 and [float(x) for x in o] == sorted(float(x) for x in o)))"

check "job 4242: the label beside the verdict, its note as text" sh -c \
	"grep -q 'id=\"label\"><strong>Labelled InfraNet</strong> — culprit node-02 by attrib label (uid ' '$T/job4242.html' && grep -qF ': RT#5 &lt;b&gt;x&lt;/b&gt;</p>' '$T/job4242.html'"

page hostile /job/666
check "hostile: no label, none shown" sh -c "! grep -q 'id=\"label\"' '$T/hostile.html'"
check "hostile: the name is text (no element made of it)" sh -c \
	"grep -qF '&lt;script&gt;alert(\"x\")&lt;/script&gt;' '$T/hostile.html' && ! grep -q '<img src=\"x\"' '$T/hostile.html' && [ \$(grep -c '<script' '$T/hostile.html') = 1 ]"
check "hostile: the log line is text" grep -qF '&lt;img src=x onerror=alert(2)&gt;' "$T/hostile.html"

page nodes /nodes
check "nodes: gpu-137 ranked, with its sparkline" \
	python3 -c "import sys; h=open('$T/nodes.html').read(); i=h.index('data-node=\"gpu-137\"'); sys.exit('faults per day' not in h[i:i+3000])"
# the fleet since the store's first job (its cases' dates are fixed; the
# 256-node job: 2,048 GPUs for 30 minutes)
page fleet '/fleet?since=0'
check "fleet: the weeks chart, the causes and the nodes" \
	sh -c "grep -q 'id=\"weeks\"' '$T/fleet.html' && grep -q 'id=\"top-causes\"' '$T/fleet.html' && grep -q 'id=\"top-nodes\"' '$T/fleet.html'"
lost=$(sqlite3 "$T/state/attrib.db" "SELECT printf('%.1f GPU-hours lost by %d failed jobs', coalesce(SUM(CASE WHEN gpus IS NOT NULL AND started IS NOT NULL AND ended IS NOT NULL THEN max(ended - started, 0) * gpus / 3600.0 END), 0), COUNT(*)) FROM results WHERE sub_domain IS NOT 'Pass' AND coalesce(ended, created) <= CAST(strftime('%s','now') AS INTEGER)")
check "fleet: '$lost', as the store sums it" grep -qF "$lost" "$T/fleet.html"
"$A" report --accuracy --since 1970-01-01 --json --config "$T/cli.conf" >"$T/acc.json"
want=$(python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))
r = lambda x: "\u2014" if x is None else "%.0f%%" % (100 * x)
print("%d of %d diagnoses labelled; sub-domain agrees %s, culprits %s, %d false drains" % (a["labelled"], a["results"], r(a["sub_domain_agreement"]), r(a["culprit_agreement"]), a["false_drains"]))' "$T/acc.json")
check "fleet: the labels' figures as attrib report --accuracy's ('$want')" grep -qF "id=\"accuracy-total\">$want<" "$T/fleet.html"
check "fleet: the accuracy table, InfraHW's 2 labelled, 1 agreeing" \
	python3 -c "import re,sys; h=open('$T/fleet.html').read(); t=h[h.index('id=\"accuracy\"'):]; t=t[t.index('data-group=\"InfraHW\"'):]; t=t[:t.index('</tr>')]; c=re.findall(r'<td[^>]*>([^<]*)</td>', t); sys.exit(not (c[2] == '2' and c[3] == '50%'))"
check "fleet: the weekly agreement trend" grep -q 'id="accuracy-weeks"' "$T/fleet.html"
check "fleet: the 256-node job's 1,024 GPU-hours are in" grep -q "pretrain\|1024.0 GPU-h\|10[0-9][0-9]\.[0-9] GPU-hours" "$T/fleet.html"
finish
