#!/bin/sh
# make check's brief fuzzing run (CI): each libFuzzer target for
# FUZZ_SECONDS (default 10; 0 skips).  Skipped (77) when clang or its
# libFuzzer runtime is missing (Debian: clang libclang-rt-14-dev).
here=$(cd "$(dirname "$0")" && pwd)
secs=${FUZZ_SECONDS:-10}
[ "$secs" -gt 0 ] 2>/dev/null || { echo "fuzz: FUZZ_SECONDS=$secs, skipped"; exit 77; }
cc=${FUZZ_CC:-clang}
probe=$(mktemp -d) || exit 99
trap 'rm -rf "$probe"' EXIT
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' \
	>"$probe/p.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" >/dev/null 2>&1; then
	echo "fuzz: $cc cannot build libFuzzer targets; skipped"
	exit 77
fi
FUZZ_OUT=${FUZZ_OUT:-$PWD/fuzz/build} exec "$here/run.sh" "$secs"
