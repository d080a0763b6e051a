#!/bin/bash
# Cutting a 15-minute window out of a large syslog file: attrib-collect's
# binary search against full scans with grep and awk (and journalctl when
# a journal is there).  Reproducible: the file is generated (bench/window/
# gen.c, deterministic), every tool's output is compared with the others'.
#
#   bench/window/run.sh [SIZE_GB]        (default 10; scaled down when /tmp lacks room)
#   bench/window/run.sh 64M              (a size in MiB: bench/window/smoke.sh)
#
# Environment: ATTRIB_COLLECT (default ./epilog/attrib-collect),
# BENCH_DIR (default /tmp/attrib-bench-window, removed at the end unless
# KEEP=1), RUNS (default 5; awk: AWK_RUNS, default 3).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
COLLECT=${ATTRIB_COLLECT:-$here/../../epilog/attrib-collect}
DIR=${BENCH_DIR:-/tmp/attrib-bench-window}
RUNS=${RUNS:-5}
AWK_RUNS=${AWK_RUNS:-3}
GB=${1:-10}
MB=
case $GB in *M) MB=${GB%M} GB=1 ;; esac
case $GB$MB in *[!0-9]* | '') echo "usage: $0 [SIZE_GB | SIZE_MBM]" >&2; exit 2 ;; esac
[ -x "$COLLECT" ] || { echo "build attrib-collect first (make)" >&2; exit 1; }

mkdir -p "$DIR"
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$DIR"' EXIT
avail_gb=$(df -BG --output=avail "$DIR" | tail -1 | tr -dc 0-9)
echo "df: $(df -h --output=target,size,avail "$DIR" | tail -1)"
if [ "$avail_gb" -lt $((GB + 5)) ]; then
	GB=$((avail_gb - 5))
	[ "$GB" -ge 1 ] || { echo "not enough room in $DIR" >&2; exit 1; }
	echo "scaled down to $GB GB"
fi
SIZE=$((GB * 1024 * 1024 * 1024))
[ -n "$MB" ] && SIZE=$((MB * 1024 * 1024))

# 30 days of log, 2026-11-01 .. 2026-12-01 UTC; the window is 15 minutes
# in the middle, from 2026-11-16 12:00:00 to 12:14:59.
START=1793491200 SPAN=$((30 * 86400))
W_START=2026-11-16T12:00:00Z W_END=2026-11-16T12:14:59Z
F=$DIR/syslog
cc -O2 -o "$DIR/gen" "$here/gen.c"
if [ ! -s "$F" ] || [ "$(stat -c %s "$F")" -lt "$SIZE" ]; then
	t0=$(date +%s.%N)
	"$DIR/gen" "$F" "$SIZE" "$START" "$SPAN"
	echo "generated $(stat -c %s "$F") bytes ($(wc -l <"$F") lines) in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }') s"
fi

# one run: prints seconds; $1 = name, rest = command (stdout to $DIR/out.NAME)
timeit() {
	local name=$1 t0 t1
	shift
	t0=$(date +%s.%N)
	"$@" >"$DIR/out.$name"
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# drop this file's pages from the page cache (not the machine's)
evict() { python3 -c "import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)" "$F"; }

cut_cmd() { "$COLLECT" --cut "$F" --start "$W_START" --end "$W_END" --tz UTC; }
grep_cmd() { LC_ALL=C grep -E '^Nov 16 12:(0[0-9]|1[0-4]):' "$F"; }
awk_cmd() { LC_ALL=C awk '$1 == "Nov" && $2 == "16" && $3 >= "12:00:00" && $3 <= "12:14:59"' "$F"; }

AWK=$(readlink -f "$(command -v awk)")
echo "file: $(stat -c %s "$F") bytes, $(df -h --output=source "$DIR" | tail -1) ($(stat -f -c %T "$DIR")); window $W_START .. $W_END"
echo "tools: attrib-collect --cut, $(grep --version | head -1), awk = $AWK"
declare -A res
for tool in cut grep awk; do
	n=$RUNS
	[ "$tool" = awk ] && n=$AWK_RUNS
	times=()
	"${tool}_cmd" >/dev/null	# warm the cache once
	for _ in $(seq "$n"); do times+=("$(timeit "$tool" "${tool}_cmd")"); done
	res[$tool]=$(printf '%s\n' "${times[@]}" | median)
	echo "$tool warm: runs ${times[*]} -> median ${res[$tool]} s"
done
for tool in cut grep; do
	evict
	echo "$tool cold (file evicted from the page cache): $(timeit "$tool" "${tool}_cmd") s"
done
"$COLLECT" --cut "$F" --start "$W_START" --end "$W_END" --tz UTC --stats 2>&1 >/dev/null | sed 's/^/cut stats: /'
if cmp -s "$DIR/out.cut" "$DIR/out.grep" && cmp -s "$DIR/out.cut" "$DIR/out.awk"; then
	echo "outputs identical: $(wc -l <"$DIR/out.cut") lines, $(wc -c <"$DIR/out.cut") bytes"
else
	echo "OUTPUTS DIFFER: cut $(wc -l <"$DIR/out.cut"), grep $(wc -l <"$DIR/out.grep"), awk $(wc -l <"$DIR/out.awk") lines"
	exit 1
fi
if journalctl --no-pager -q -n 1 >/dev/null 2>&1 && [ -n "$(journalctl --no-pager -q -n 1 2>/dev/null)" ]; then
	t=$(timeit journal journalctl --no-pager -q --utc -o short-iso-precise --since "@$(date -d "$W_START" +%s)" --until "@$(date -d "$W_END" +%s)")
	echo "journalctl --since/--until on this machine's journal ($(journalctl --disk-usage 2>/dev/null | grep -o '[0-9.]*[KMGT]')): $t s"
else
	echo "journalctl: no journal on this machine, not measured"
fi
