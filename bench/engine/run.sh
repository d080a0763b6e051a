#!/bin/bash
# Engine throughput: attrib's whole diagnosis against grep -E and ripgrep
# merely finding the lines the same catalog looks for, over the same files.
#
#   bench/engine/run.sh [SIZE...]       SIZE = NODESxLINES[:DAYS]
#   default: 64x200000 64x200000:0.25 1024x1000 2048x1000:0.25 256x200000 64x1000000 1024x200000
#   (2048x1000:0.25: a 2,048-node, 16,384-GPU job: six hours of kernel log
#   per node and the batch host's output of 16,384 ranks)
#
# For each size: generate the case (gencase.py, deterministic), then per tool
# one cold run (the case's pages evicted from the page cache first), one
# untimed warm-up, RUNS timed warm runs.  attrib runs twice over: with its
# compiled prefilter database cache (the normal case) and with ATTRIB_CACHE=
# (the catalog compiled on every run).  Wall time, CPU time and peak RSS come
# from /usr/bin/time -v; the figures are the median and min-max of the runs.
# attrib's verdict on every case is checked against the planted cause.
#
# Environment: ATTRIB (default ./attrib), RULES (default the source's
# rules/), RUNS (5), CASES (where cases are generated, /var/tmp/attrib-bench),
# OUT (results directory, ./bench-results), KEEP=1 keeps the cases,
# QUICK=1 (smoke test: no cold runs, no ATTRIB_CACHE= runs), TOOLS (which
# of "attrib grep rg" to run; default all).
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
ATTRIB=${ATTRIB:-./attrib}
RULES=${RULES:-$src/rules}
RUNS=${RUNS:-5}
CASES=${CASES:-/var/tmp/attrib-bench}
OUT=${OUT:-./bench-results}
KEEP=${KEEP:-0}
QUICK=${QUICK:-0}
TOOLS=" ${TOOLS:-attrib grep rg} "
export LC_ALL=C
[ $# -gt 0 ] || set -- 64x200000 64x200000:0.25 1024x1000 2048x1000:0.25 256x200000 64x1000000 1024x200000

die() { echo "run.sh: $*" >&2; exit 1; }
[ -x "$ATTRIB" ] || die "no attrib at $ATTRIB (set ATTRIB=)"
command -v grep >/dev/null || die "no grep"
[ -x /usr/bin/time ] || die "no /usr/bin/time (apt-get install time)"
have_rg=1; command -v rg >/dev/null || { have_rg=0; echo "run.sh: ripgrep not installed (apt-get install -y ripgrep); its rows are skipped" >&2; }
mkdir -p "$OUT" "$CASES" || die "cannot create $OUT or $CASES"
OUT=$(cd "$OUT" && pwd)
ATTRIB=$(cd "$(dirname "$ATTRIB")" && pwd)/$(basename "$ATTRIB")
raw=$OUT/raw.tsv
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# ---- the machine ----
{
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "nproc: $(nproc)"
	echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
	echo "ram: $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo)"
	echo "debian: $(cat /etc/debian_version 2>/dev/null || echo ?)"
	echo "kernel: $(uname -r)"
	echo "attrib: $("$ATTRIB" --version 2>&1 | head -1)"
	echo "vectorscan: $(dpkg-query -W -f '${Version}' libvectorscan5 2>/dev/null || echo ?)"
	echo "pcre2: $(dpkg-query -W -f '${Version}' libpcre2-8-0 2>/dev/null || echo ?)"
	echo "grep: $(grep --version | head -1)"
	[ $have_rg = 1 ] && echo "rg: $(rg --version | head -1)"
	echo "python: $(python3 --version 2>&1)"
	echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$OUT/machine.txt"
cat "$OUT/machine.txt"

# ---- the catalog's patterns for grep and rg ----
python3 "$here/patterns.py" "$RULES" "$OUT" | tee "$OUT/patterns.txt" || echo "run.sh: some conversions miss a positive case (see $OUT/patterns.tsv)" >&2
PAT=$OUT/patterns.ere
# the compiled prefilter database is cached (root: /var/cache/attrib,
# others: ~/.cache/attrib); make sure it exists before any timed run
ATTRIB_RULES=$RULES "$ATTRIB" rules check >/dev/null 2>&1
ATTRIB_RULES=$RULES "$ATTRIB" analyze "$src/examples/xid149-nvlink" --json >/dev/null 2>&1

printf 'size\tnodes\tlines\tdays\tbytes\ttool\tmode\trun\twall_s\tuser_s\tsys_s\tmaxrss_kb\tout_lines\n' >"$raw"

evict() {	# drop the case's pages from the page cache (only these files)
	find "$1" -type f -print0 | python3 -c '
import os, sys
for p in sys.stdin.buffer.read().split(b"\0"):
    if p:
        fd = os.open(p, os.O_RDONLY)
        os.fdatasync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)'
}

# one run: measure TOOL MODE RUN -- CMD...   (output into $tmp/out)
measure() {
	local tool=$1 mode=$2 run=$3; shift 4
	local t0 t1
	t0=$(date +%s%N)
	/usr/bin/time -v -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	t1=$(date +%s%N)
	if [ $rc -ne 0 ] && ! { [ $rc -eq 1 ] && [ "$tool" != attrib ]; }; then
		echo "run.sh: $tool exited $rc: $(head -3 "$tmp/err")" >&2
	fi
	local user sys rss lines
	user=$(sed -n 's/^[[:space:]]*User time (seconds): //p' "$tmp/time")
	sys=$(sed -n 's/^[[:space:]]*System time (seconds): //p' "$tmp/time")
	rss=$(sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$tmp/time")
	lines=$(wc -l <"$tmp/out")
	[ "$tool" = attrib ] && lines=''	# one JSON object
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$size" "$nodes" "$lines_per" "$days" "$bytes" \
		"$tool" "$mode" "$run" "$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", (b - a) / 1e9}')" \
		"$user" "$sys" "$rss" "$lines" >>"$raw"
}

# RUNS warm runs of one tool (after a cold run and an untimed one)
series() {
	local tool=$1 mode=$2; shift 2
	if [ "$QUICK" != 1 ]; then
		evict "$case"
		measure "$tool" cold 0 -- "$@"
	fi
	"$@" >/dev/null 2>&1	# untimed warm-up
	for r in $(seq 1 "$RUNS"); do
		measure "$tool" "$mode" "$r" -- "$@"
	done
}

status=0
for spec in "$@"; do
	size=${spec%%:*}
	days=3
	case $spec in *:*) days=${spec#*:} ;; esac
	nodes=${size%%x*}
	lines_per=${size#*x}
	case $nodes$lines_per in *[!0-9]*|'') die "bad size $spec (NODESxLINES[:DAYS])" ;; esac
	label=$size
	[ "$days" != 3 ] && label="$size:$days"
	case=$CASES/case-$nodes-$lines_per-$days
	est=$(( nodes * lines_per * 135 ))
	free=$(df -P -B1 "$CASES" | awk 'NR == 2 {print $4}')
	mem=$(awk '/MemAvailable/ {printf "%.0f\n", $2 * 1024}' /proc/meminfo)	# whole bytes, not 2.4e+10
	have=0; [ -f "$case/expected.json" ] && have=1
	if [ $have = 0 ] && [ $(( est + est / 10 + (5 << 30) )) -gt "$free" ]; then
		echo "== $label: SKIPPED, needs ~$(( est >> 30 )) GiB, $(( free >> 30 )) GiB free in $CASES"
		printf '%s\t%s\t%s\t%s\t%s\tskipped\tdisk\t0\t\t\t\t\t\n' "$label" "$nodes" "$lines_per" "$days" "$est" >>"$raw"
		continue
	fi
	if [ $have = 0 ]; then
		g0=$(date +%s)
		python3 "$here/gencase.py" --nodes "$nodes" --lines "$lines_per" --days "$days" --out "$case" || die "gencase failed"
		echo "   generated in $(( $(date +%s) - g0 )) s"
	fi
	bytes=$(find "$case/app" "$case/nodes" -type f -printf '%s\n' | awk '{s += $1} END {printf "%.0f\n", s}')
	size=$label
	echo "== $label: $nodes nodes x $lines_per lines over $days days, $(( bytes >> 20 )) MiB (load $(cut -d' ' -f1-3 /proc/loadavg))"
	python3 - "$case/expected.json" "$RULES" "$(( (bytes >> 20) / nodes ))" <<'EOF'
import glob, json, re, sys
e = json.load(open(sys.argv[1]))
if int(sys.argv[3]) < 8:
    print("   node logs under 8 MiB: attrib scans them whole (engine/scan_parts.h WINDOW_SEEK_MIN)")
    sys.exit(0)
before, after = 600, 300
for f in sorted(glob.glob(sys.argv[2] + '/*.yaml')):
    t = open(f).read()
    m = re.search(r'^\s+window_before:\s*(\d+)', t, re.M)
    before = int(m.group(1)) if m else before
    m = re.search(r'^\s+window_after:\s*(\d+)', t, re.M)
    after = int(m.group(1)) if m else after
slack = 3600   # engine/scan_parts.h WINDOW_SLACK, for node logs over 8 MiB
lo = max(e['log_start'], e['job_start'] - before - slack)
hi = min(e['log_end'], e['job_end'] + after + slack)
print(f"   attrib's window (job -{before}/+{after} s, +-{slack} s slack) holds ~{100 * (hi - lo) / (e['log_end'] - e['log_start']):.0f}% of each node log")
EOF
	[ "$bytes" -gt "$mem" ] && echo "   (larger than available RAM, $(( mem >> 30 )) GiB: warm runs of whole-file tools read from disk)"

	case $TOOLS in *" attrib "*)
	series attrib cache env ATTRIB_RULES="$RULES" "$ATTRIB" analyze "$case" --json
	cp "$tmp/out" "$OUT/verdict-$label.json"
	if ! python3 - "$case/expected.json" "$OUT/verdict-$label.json" <<'EOF'
import json, sys
e = json.load(open(sys.argv[1]))
r = json.load(open(sys.argv[2]))
rc = r.get('root_cause') or {}
got = (r.get('sub_domain'), rc.get('code'), r.get('culprit_nodes'))
want = (e['sub_domain'], e['root_code'], e['culprit_nodes'])
print(f"   verdict: {got[0]} {got[1]} on {','.join(got[2] or ['-'])} "
      f"(planted: {want[0]} {want[1]} on {','.join(want[2])}) {'OK' if got == want else 'WRONG'}")
sys.exit(0 if got == want else 1)
EOF
	then status=1; fi
	if [ "$QUICK" != 1 ]; then
		for r in $(seq 1 "$RUNS"); do
			measure attrib nocache "$r" -- env ATTRIB_CACHE= ATTRIB_RULES="$RULES" "$ATTRIB" analyze "$case" --json
		done
	fi ;;
	esac
	case $TOOLS in *" grep "*) series grep warm grep -E -n -r -f "$PAT" "$case/app" "$case/nodes" ;; esac
	case $TOOLS in *" rg "*) [ $have_rg = 1 ] && series rg warm rg -n -uu --no-heading -f "$PAT" "$case/app" "$case/nodes" ;; esac
	echo "   done (load $(cut -d' ' -f1-3 /proc/loadavg))"
	[ "$KEEP" = 1 ] || rm -rf "$case"
done
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/machine.txt"

# ---- the table ----
python3 - "$raw" "$OUT" <<'EOF' | tee "$OUT/results.md"
import collections, statistics, sys
raw, out = sys.argv[1], sys.argv[2]
rows = [l.rstrip('\n').split('\t') for l in open(raw)][1:]
by = collections.OrderedDict()
for r in rows:
    by.setdefault(r[0], []).append(r)
print('| case | MiB | tool | cold s | warm s median (min-max) | CPU s | MB/s | peak RSS MiB | lines out | attrib / min(grep, rg) |')
print('|---|---:|---|---:|---|---:|---:|---:|---:|---:|')
for size, rs in by.items():
    if rs[0][5] == 'skipped':
        print(f'| {size} | ~{int(rs[0][4]) >> 20} | skipped: not enough disk | | | | | | | |')
        continue
    nbytes = int(rs[0][4])
    med = {}
    cells = []
    for tool, mode, name in [('attrib', 'cache', 'attrib'), ('attrib', 'nocache', 'attrib, ATTRIB_CACHE='),
                             ('grep', 'warm', 'grep -E'), ('rg', 'warm', 'rg')]:
        w = [float(r[8]) for r in rs if r[5] == tool and r[6] == mode]
        if not w:
            continue
        cold = [float(r[8]) for r in rs if r[5] == tool and r[6] == 'cold' and mode != 'nocache']
        cpu = [float(r[9]) + float(r[10]) for r in rs if r[5] == tool and r[6] == mode]
        rss = max(int(r[11]) for r in rs if r[5] == tool and r[6] == mode)
        nout = [r[12] for r in rs if r[5] == tool and r[6] == mode][-1]
        m = statistics.median(w)
        med[name] = m
        cells.append([name, f'{cold[0]:.2f}' if cold else '', f'{m:.2f} ({min(w):.2f}-{max(w):.2f})',
                      f'{statistics.median(cpu):.2f}', f'{nbytes / m / 1e6:.0f}', f'{rss / 1024:.0f}', nout])
    base = min([med[k] for k in ('grep -E', 'rg') if k in med], default=None)
    for c in cells:
        ratio = f'{med[c[0]] / base:.2f}' if base and c[0].startswith('attrib') else ''
        print(f'| {size} | {nbytes / 2**20:.0f} | ' + ' | '.join(c) + f' | {ratio} |')
EOF
echo "results: $OUT/results.md (raw runs: $raw)"
exit $status
