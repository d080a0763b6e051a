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

# the tarball holds what distdir holds: tar's old formats drop a path
# longer than 99 bytes (t/real's case files) with only a warning
# (a relative distdir: the members' names are then relative too)
t=attrib-dist-test-$$
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL ${MAKE:-make} -s dist-gzip distdir="$t" >"$tmp/tar.log" 2>&1 &&
	mv "$t.tar.gz" "$tmp/" && tar -tzf "$tmp/$t.tar.gz" | sed -n "s|^$t/||p" | grep -v -e '/$' -e '^$' | sort >"$tmp/in-tar" &&
	(cd "$tmp/attrib-dist" && find . -type f | sed 's|^\./||' | sort) >"$tmp/in-dist" &&
	cmp -s "$tmp/in-tar" "$tmp/in-dist"; then
	ok "the tarball holds every file of the release ($(wc -l <"$tmp/in-dist") files)"
else
	bad "the tarball holds every file of the release"
	sed 's/^/# /' "$tmp/tar.log" | tail -5
	diff "$tmp/in-dist" "$tmp/in-tar" 2>/dev/null | head -10 | sed 's/^/# /'
fi

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
