#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Compares the release tarball with the git checkout it was made from, so
# that a file added to git but not to EXTRA_DIST/_SOURCES (or build junk
# that leaked into the tarball) is caught before a release or a package
# build is.
#
# Usage: contrib/check-dist.sh TARBALL|DISTDIR
#   TARBALL  attrib-X.Y.Z.tar.gz from `make dist`
#   DISTDIR  a directory made by `make distdir` (what t/dist.sh uses)
#
# Prints one line per problem:
#   missing: PATH     tracked by git, not in the tarball
#   untracked: PATH   in the tarball, neither tracked nor made by autoreconf
# Exits 0 when there is none, 1 when there is one, 77 when the source tree
# is not the top of a git checkout (a tarball build: nothing to compare with), 2 on a
# usage error.
set -u

[ $# -eq 1 ] || { echo "usage: $0 TARBALL|DISTDIR" >&2; exit 2; }
src=$(cd "$(dirname "$0")/.." && pwd -P)
# (the top of a work tree: an unpacked tarball inside a checkout, as in
# make distcheck, is not one)
if ! command -v git >/dev/null 2>&1 ||
	[ "$(git -C "$src" rev-parse --show-toplevel 2>/dev/null)" != "$src" ]; then
	echo "check-dist: $src is not a git checkout; nothing to compare with"
	exit 77
fi

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

# the files the release holds, relative to its top directory
if [ -d "$1" ]; then
	(cd "$1" && find . -type f -o -type l) | sed 's|^\./||'
elif [ -f "$1" ]; then
	tar -taf "$1" | sed -n 's|^[^/]*/||; /[^/]$/p'
else
	echo "check-dist: $1: no such tarball or directory" >&2
	exit 2
fi | LC_ALL=C sort -u >"$tmp/dist"

# what git tracks, less what only makes sense in a git checkout: the
# ignore lists and the CI script (it bootstraps with autoreconf)
git -C "$src" ls-files | grep -v -e '\(^\|/\)\.gitignore$' -e '^\.ci/' |
	LC_ALL=C sort -u >"$tmp/git"

# what autoreconf, automake and configure (attrib.spec) add to a release
generated='^\(attrib\.spec\|configure\|aclocal\.m4\|config\.h\.in\|Makefile\.in\|build-aux/.*\|m4/.*\)$'

LC_ALL=C comm -23 "$tmp/git" "$tmp/dist" | sed 's/^/missing: /' >"$tmp/problems"
LC_ALL=C comm -13 "$tmp/git" "$tmp/dist" | grep -v "$generated" | sed 's/^/untracked: /' >>"$tmp/problems"
cat "$tmp/problems"
problems=$(wc -l <"$tmp/problems")
echo "check-dist: $(wc -l <"$tmp/dist") files in the release, $(wc -l <"$tmp/git") tracked, $problems problems"
[ "$problems" -eq 0 ]
