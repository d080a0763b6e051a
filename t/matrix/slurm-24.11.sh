#!/bin/bash
# The Slurm 24.11 leg of CI: this tree built and tested in a Debian 13 root
# (contrib/trixie-root.sh: Slurm 24.11 packages and its configured source),
# as the Debian 12 leg is on the host: configure (with the flags the Debian
# packages are built with, Debian's hardening=+all), make, the whole suite
# with the live tests (ATTRIB_LIVE_TESTS=1, `make -j2 check`; the cluster
# runs in the root, in the machine's network namespaces, as test cluster
# instance 1, beside the host's instance 0: t/cluster/README.md), then the
# Debian packages, whose Depends must name 24.11.  The packages are the ones
# t/live-guide.sh built in this run (make deb, without the package build's
# own test run: the suite above ran on the same sources with the same
# flags), else make deb.  No sanitizer rerun and no short fuzzing (the host
# leg's make check and make check-hardening fuzz).
#
# Usage (root): t/matrix/slurm-24.11.sh [ROOT]    (default build/trixie-root)
# Logs: ci-2411.log (and the root's /work/attrib/test-suite.log).
# Prints each step's seconds; last line: "slurm-24.11: N passed, N failed, S s".
set -uo pipefail
cd "$(dirname "$0")/../.."
t0=$SECONDS
root=$(contrib/trixie-root.sh "${1:-build/trixie-root}") || { echo "slurm-24.11: 0 passed, 1 failed, $((SECONDS - t0)) s (no root)"; exit 1; }
echo "=== slurm-24.11: the Debian 13 root ($((SECONDS - t0)) s)"

# this tree's files (tracked, and new ones not ignored), not its build
rm -rf "$root/work/attrib"
mkdir -p "$root/work/attrib/build"
git ls-files -z -co --exclude-standard | grep -zv '^build/' |
	tar --null -T - -cf - | tar -C "$root/work/attrib" -xf -
ln -s /opt/build/slurm-src "$root/work/attrib/build/slurm-src"

contrib/trixie-root.sh --run "$root" /bin/bash -c '
	cd /work/attrib || exit 1
	export ATTRIB_CLUSTER_INSTANCE=1 FUZZ_SECONDS=0
	t=$SECONDS
	# (logs indented: their own "# PASS:" lines are not counted for this leg)
	if ! (eval "$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --export=sh)" &&
		autoreconf -fi && ./configure && make -j2) >build.log 2>&1; then
		tail -40 build.log | sed "s/^/  | /"
		echo "# FAIL: the build"
		exit 1
	fi
	echo "=== slurm-24.11: build ($((SECONDS - t)) s)"
	t=$SECONDS
	ATTRIB_LIVE_TESTS=1 make -j2 check 2>&1
	rc=$?
	[ $rc -eq 0 ] || tail -80 test-suite.log | sed "s/^/  | /"
	echo "=== slurm-24.11: make -j2 check ($((SECONDS - t)) s)"
	t=$SECONDS
	if ls deb/attrib_*.deb >/dev/null 2>&1; then
		echo "# the packages t/live-guide.sh built (make deb)"
	elif ! DEB_BUILD_OPTIONS="nocheck parallel=2" make deb >deb.log 2>&1; then
		tail -40 deb.log | sed "s/^/  | /"; echo "# FAIL: make deb"; exit 1
	fi
	for p in deb/attrib_*.deb deb/attrib-slurm-plugins_*.deb; do
		echo "# $(dpkg-deb -f "$p" Package) Depends: $(dpkg-deb -f "$p" Depends)"
	done
	dpkg-deb -f deb/attrib-slurm-plugins_*.deb Depends | grep -q "slurm-wlm-basic-plugins (>= 24.11" &&
		echo "# PASS: make deb (Depends on Slurm 24.11)" ||
		{ echo "# FAIL: make deb: Depends do not name Slurm 24.11"; rc=1; }
	echo "=== slurm-24.11: the packages ($((SECONDS - t)) s)"
	exit $rc' 2>&1 | tee ci-2411.log | grep --line-buffered '^=== '
rc=${PIPESTATUS[0]}
read -r p f < <(awk '/^# PASS:/ {p += ($3 ~ /^[0-9]+$/) ? $3 : 1} /^# (FAIL|ERROR|XPASS):/ {f += ($3 ~ /^[0-9]+$/) ? $3 : 1} END {print p + 0, f + 0}' ci-2411.log)
[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
echo "slurm-24.11: $p passed, $f failed, $((SECONDS - t0)) s"
exit "$rc"
