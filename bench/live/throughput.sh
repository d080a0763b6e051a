#!/bin/bash
# Controller overhead of jobcomp/attrib, end to end: job throughput of the
# test cluster with JobCompType=jobcomp/none against jobcomp/attrib (with the
# spank attrib plugin), N trivial jobs a run, the runs interleaved
# (none attrib none attrib) so that a drift of the shared machine hits both.
# The work is t/plugin-throughput.sh's; this sets the benchmark's defaults.
# (The per-call cost of jobcomp_p_log_record is `make bench-jobcomp`.)
#
#   bench/live/throughput.sh [N]        N jobs a run (default 500)
#   bench/live/throughput.sh --smoke    10 jobs, one run of each (make check)
#
#   ATTRIB_THROUGHPUT_MODES   the runs [none attrib none attrib]
#   ATTRIB_BUILDDIR           build tree holding plugin/.libs [the source tree]
#
# Runs only with ATTRIB_LIVE_TESTS=1 (else skipped, exit 77); needs root and
# the built plugins.  About 4 minutes a run of 500 jobs on this machine.
set -u
[ "${ATTRIB_LIVE_TESTS:-0}" = 1 ] || { echo "SKIP: set ATTRIB_LIVE_TESTS=1 to run on the test cluster"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
case ${1:-} in
--smoke) export ATTRIB_THROUGHPUT_JOBS=10 ATTRIB_THROUGHPUT_MODES="none attrib" ;;
'') export ATTRIB_THROUGHPUT_JOBS=500 ATTRIB_THROUGHPUT_MODES=${ATTRIB_THROUGHPUT_MODES:-none attrib none attrib} ;;
*[!0-9]* | 0) echo "usage: $0 [N | --smoke]" >&2; exit 2 ;;
*) export ATTRIB_THROUGHPUT_JOBS=$1 ATTRIB_THROUGHPUT_MODES=${ATTRIB_THROUGHPUT_MODES:-none attrib none attrib} ;;
esac
# the build tree: where make check's ATTRIB points, else the source tree
[ -n "${ATTRIB_BUILDDIR:-}" ] || { [ -n "${ATTRIB:-}" ] && export ATTRIB_BUILDDIR=$(cd "$(dirname "$ATTRIB")" && pwd); }
export ATTRIB_CLUSTER_DIR=${ATTRIB_CLUSTER_DIR:-/tmp/attrib-cluster-throughput}
echo "# $ATTRIB_THROUGHPUT_JOBS trivial jobs a run; runs: $ATTRIB_THROUGHPUT_MODES"
exec bash "$here/../../t/plugin-throughput.sh"
