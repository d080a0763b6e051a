#!/bin/sh
# The window benchmark at 64 MiB, so that it cannot rot: gen.c compiles and
# writes the file, attrib-collect --cut, grep and awk give byte-identical
# windows, and run.sh prints its figures (bench/window/README.md has the
# real ones, at 10 GiB).
set -u
SRC=${SRCDIR:-.}
A=${ATTRIB:-./attrib}
B=$(cd "$(dirname "$A")" && pwd)
pass=0 fail=0
ok()  { pass=$((pass+1)); echo "ok - $1"; }
bad() { fail=$((fail+1)); echo "not ok - $1"; }
[ -x "$B/epilog/attrib-collect" ] || { echo "SKIP: $B/epilog/attrib-collect is not built"; exit 77; }
command -v cc >/dev/null || { echo "SKIP: no C compiler for bench/window/gen.c"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ATTRIB_COLLECT=$B/epilog/attrib-collect BENCH_DIR=$tmp/w RUNS=1 AWK_RUNS=1 \
	bash "$SRC/bench/window/run.sh" 64M >"$tmp/out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/out"
if [ $rc -eq 0 ]; then ok "run.sh 64M runs"; else bad "run.sh 64M runs (exit $rc)"; fi
if grep -q '^outputs identical: [1-9][0-9]* lines' "$tmp/out"; then ok "cut, grep and awk give the same, non-empty window"; else bad "cut, grep and awk give the same, non-empty window"; fi
if grep -q '^cut warm: runs .* -> median [0-9.]* s' "$tmp/out" && grep -q '^grep cold' "$tmp/out"; then ok "run.sh prints the timings"; else bad "run.sh prints the timings"; fi
if grep -q '^cut stats: ' "$tmp/out"; then ok "attrib-collect --cut --stats reports what it read"; else bad "attrib-collect --cut --stats reports what it read"; fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
