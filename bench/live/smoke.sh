#!/bin/sh
# make check: the live benchmarks at their smallest, so that they cannot rot
# (2 failing jobs for the latency, 10 trivial jobs a mode for the throughput).
# Only with ATTRIB_LIVE_TESTS=1 (else skipped, 77); needs root and the cluster.
here=$(cd "$(dirname "$0")" && pwd)
[ "${ATTRIB_LIVE_TESTS:-0}" = 1 ] || { echo "SKIP: set ATTRIB_LIVE_TESTS=1 to run on the test cluster"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (the test cluster)"; exit 77; }
bash "$here/latency.sh" --smoke
a=$?
bash "$here/throughput.sh" --smoke
b=$?
echo "# latency.sh --smoke: exit $a; throughput.sh --smoke: exit $b"
for r in $a $b; do case $r in 0 | 77) ;; *) exit 1 ;; esac; done
[ $a = 77 ] && [ $b = 77 ] && exit 77
exit 0
