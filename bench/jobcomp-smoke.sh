#!/bin/bash
# Smoke run of plugin/jobcomp-bench (make bench-jobcomp) so that it cannot
# rot: one round of 5,000 calls of jobcomp_p_log_record, every record
# written as valid JSON.  No timing is asserted (figures: bench/README.md).
set -uo pipefail
bin=${ATTRIB_BUILDDIR:-.}/plugin/jobcomp-bench
[ -x "$bin" ] || { echo "SKIP: $bin not built (configure without a Slurm source)"; exit 77; }
d=$(mktemp -d /tmp/attrib-jobcomp-smoke.XXXXXX) || exit 1
trap 'rm -rf "$d"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
nok() { fail=$((fail + 1)); echo "not ok - $*"; }

out=$("$bin" "$d" 1 2>&1); rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
[ "$rc" = 0 ] && ok "jobcomp-bench runs one round" || nok "jobcomp-bench runs one round (exit $rc)"
case $out in *"5000 calls, mean"*) ok "it reports the per-call cost of 5000 calls" ;;
*) nok "it reports the per-call cost of 5000 calls" ;; esac
n=$(find "$d/jobs" -name '*.json' | wc -l)
[ "$n" = 5000 ] && ok "5000 job records written" || nok "5000 job records written (found $n)"
if python3 -c '
import glob, json, sys
bad = [f for f in glob.glob(sys.argv[1] + "/jobs/*.json")
       if json.load(open(f))["schema"] != "attrib.job/v1"]
sys.exit(1 if bad else 0)' "$d"; then ok "every record is attrib.job/v1 JSON"; else nok "every record is attrib.job/v1 JSON"; fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
