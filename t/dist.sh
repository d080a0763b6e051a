#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The release cannot rot: `make distdir` holds every file git tracks (so
# `make distcheck`, the Debian and the RPM builds, which start from the
# tarball, have all the sources, tests and docs) and no build junk.
# contrib/check-dist.sh does the comparison; skipped (77) outside a git
# checkout, e.g. in `make distcheck` itself.
set -u
SRC=${SRCDIR:-.}
pass=0 fail=0
ok()   { pass=$((pass+1)); echo "ok - $1"; }
bad()  { fail=$((fail+1)); echo "not ok - $1"; }

[ -f Makefile ] || { echo "SKIP: run from the build tree (make check)"; exit 77; }
SRC=$(cd "$SRC" && pwd -P)
if [ "$(git -C "$SRC" rev-parse --show-toplevel 2>/dev/null)" != "$SRC" ]; then
	echo "SKIP: $SRC is not the top of a git checkout"
	exit 77
fi
tmp=$(mktemp -d); trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT

# (a make check's MAKEFLAGS must not reach this make)
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL ${MAKE:-make} -s distdir distdir="$tmp/attrib-dist" >"$tmp/make.log" 2>&1; then
	ok "make distdir"
else
	bad "make distdir"; sed 's/^/# /' "$tmp/make.log"
fi
"$SRC/contrib/check-dist.sh" "$tmp/attrib-dist" >"$tmp/check.log" 2>&1; rc=$?
sed 's/^/# /' "$tmp/check.log"
if [ $rc -eq 0 ]; then ok "the release holds every tracked file and nothing untracked"
else bad "the release holds every tracked file and nothing untracked (contrib/check-dist.sh)"; fi

# the checker itself catches a missing and a stray file
if [ -d "$tmp/attrib-dist" ]; then
	rm -f "$tmp/attrib-dist/engine/attrib.h"; : >"$tmp/attrib-dist/engine/stray.o"
	"$SRC/contrib/check-dist.sh" "$tmp/attrib-dist" >"$tmp/check2.log" 2>&1; rc=$?
	if [ $rc -eq 1 ] && grep -qx 'missing: engine/attrib.h' "$tmp/check2.log" &&
		grep -qx 'untracked: engine/stray.o' "$tmp/check2.log"; then
		ok "check-dist.sh reports a missing and an untracked file"
	else
		bad "check-dist.sh reports a missing and an untracked file (rc $rc)"; sed 's/^/# /' "$tmp/check2.log"
	fi
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
