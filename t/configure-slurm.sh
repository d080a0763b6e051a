#!/bin/bash
# configure and the Slurm source tree of jobcomp/attrib: a tree of a release
# plugin/slurm_compat.h does not know (21.08, 26.05) stops configure with
# its version and what to do instead; a tree of a known release (22.05,
# 24.11) is taken; a directory that is no configured source tree is
# refused.  The trees are fakes: only the files configure looks at (the
# plugin is not built here).  The configure runs share a cache, so that
# the checks before the Slurm source's run once.
set -u
SRC=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$SRC/t/lib/check.sh"
[ -x "$SRC/configure" ] || skip "$SRC/configure is not generated"
W=$(mktemp -d /tmp/attrib-configure-slurm-XXXXXX)
trap 'rm -rf "$W"' EXIT

fake_tree() { # DIR VERSION_NUMBER (hex, 0xMMmmpp)
	mkdir -p "$1/slurm" "$1/src/slurmctld"
	: >"$1/config.h"
	: >"$1/slurm/slurm.h"
	: >"$1/src/slurmctld/slurmctld.h"
	printf '#define SLURM_VERSION_NUMBER %s\n' "$2" >"$1/slurm/slurm_version.h"
}
# configure runs in a copy of what it reads (a build beside a configured
# source tree is refused by automake's check, and the tree is left alone)
mkdir -p "$W/src/engine"
cp -R "$SRC/configure" "$SRC/build-aux" "$SRC/Makefile.in" "$SRC/config.h.in" "$SRC/attrib.spec.in" "$W/src/" &&
	cp "$SRC/engine/attrib.h" "$W/src/engine/" || { bad "copy what configure reads"; finish; }
conf() { # SLURM-SOURCE-DIR: configure; its output in W/out
	(cd "$W/src" && ./configure -C --cache-file="$W/config.cache" \
		--with-slurm-source="$1" >"$W/out" 2>&1)
}

for v in 21.08.8:0x150808 26.05.0:0x1a0500; do
	rel=${v%%:*}
	fake_tree "$W/slurm-$rel" "${v#*:}"
	conf "$W/slurm-$rel"
	rc=$?
	check "Slurm $rel source: configure stops (exit $rc)" test "$rc" -ne 0
	check "Slurm $rel source: the message names the release and the supported ones" \
		grep -qF "configure: error: Slurm source $W/slurm-$rel is Slurm $rel: jobcomp/attrib supports Slurm 22.05 and 24.11" "$W/out"
	check "Slurm $rel source: and says how to build without jobcomp/attrib" \
		grep -qF -- "--without-slurm-source" "$W/out"
done

for v in 22.05.8:0x160508 24.11.5:0x180b05; do
	rel=${v%%:*}
	fake_tree "$W/slurm-$rel" "${v#*:}"
	conf "$W/slurm-$rel"
	check "Slurm $rel source: configure takes it (jobcomp/attrib: Slurm $rel)" \
		grep -qF "configure: jobcomp/attrib: Slurm $rel" "$W/out"
	check "Slurm $rel source: no error" sh -c "! grep -q 'configure: error' '$W/out'"
done

mkdir -p "$W/not-a-tree"
conf "$W/not-a-tree"
rc=$?
check "a directory without config.h: configure stops (exit $rc)" test "$rc" -ne 0
check "a directory without config.h: it says it is not a configured Slurm source tree" \
	grep -qF "not a configured Slurm source tree" "$W/out"
[ "$fail" = 0 ] || tail -5 "$W/out" | sed 's/^/#   /'
finish
