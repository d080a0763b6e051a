#!/bin/sh
# Builds the libFuzzer targets and runs each for SECONDS (default 30):
#   fuzz/run.sh [SECONDS] [TARGET...]   (default: every target)
# Prints the executions of each target; exits non-zero when a target
# crashes, leaks, hangs or fails to build, naming the input that did it
# (rerun it with: fuzz/build/fuzz_TARGET fuzz/build/crash-TARGET-...).
# Seeds come from fuzz/corpus/TARGET/; what the fuzzer learns goes to
# the build directory (FUZZ_OUT, default fuzz/build), never to the seeds.
set -u
secs=${1:-30}
[ $# -gt 0 ] && shift
targets=${*:-line job bundle rules conf topology}
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${FUZZ_OUT:-$here/build}
make=${MAKE:-make}
status=0

mkdir -p "$out" || exit 1
# (a make check's MAKEFLAGS must not reach this build)
if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $make -s -f "$here/Makefile" OUT="$out" all \
	>"$out/build.log" 2>&1; then
	cat "$out/build.log" >&2
	echo "fuzz: build failed (clang and libclang-rt-14-dev installed?)" >&2
	exit 2
fi
# known engine bugs not fixed yet (see the file)
LSAN_OPTIONS="suppressions=$here/known-bugs.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
for target in $targets; do
	# inputs up to the size of what each parser really sees: a rule file
	# (the shipped ones reach 90 KB), a bundle, a log window
	case $target in
	rules) max_len=131072 ;;
	bundle) max_len=65536 ;;
	conf | topology) max_len=4096 ;;
	*) max_len=16384 ;;
	esac
	bin="$out/fuzz_$target"
	mkdir -p "$out/corpus-$target"
	log="$out/fuzz_$target.log"
	t0=$(date +%s)
	# -timeout: one input's wall time before it counts as a hang; 60 s, as
	# a loaded machine (CI runs builds beside this) stretched a rule file
	# of 0.4 s past the 10 s it was
	"$bin" -max_total_time="$secs" -print_final_stats=1 -timeout=60 -rss_limit_mb=2560 \
		-max_len=$max_len -artifact_prefix="$out/crash-$target-" \
		"$out/corpus-$target" "$here/corpus/$target" >"$log" 2>&1
	rc=$?
	took=$(($(date +%s) - t0))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	echo "fuzz_$target: ${execs:-?} executions in $took s (exit $rc)"
	if [ "$rc" -ne 0 ]; then
		status=1
		grep -E "^fuzz_|runtime error|ERROR|SUMMARY|Test unit written" "$log" | head -n 20 >&2
		echo "fuzz_$target: FAILED; full log $log; reproduce with: $bin <the crash file above>" >&2
	fi
done
exit $status
