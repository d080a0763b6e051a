#!/bin/sh
# attrib scored on t/real, the corpus of publicly posted failures: `attrib
# eval t/real` must work and drain no node outside a case's drain_ok.  The
# accuracy is printed, not required: it is what it is (t/real/README.md,
# "Scoring"); the whole report is in this test's log.
set -u
A=${ATTRIB:-./attrib}
SRC=${SRCDIR:-.}
. "$SRC/t/lib/check.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$A" eval "$SRC/t/real" >"$tmp/out" 2>"$tmp/err"
rc=$?
sed 's/^/# /' "$tmp/out" "$tmp/err"
last=$(tail -n 1 "$tmp/out")
says() { printf '%s\n' "$last" | grep -qE "$1"; }
check "attrib eval t/real: exit 0" test $rc = 0
check "its last line: eval: C/N correct (P%), F false drains, U unattributed" \
	says '^eval: [0-9]+/[0-9]+ correct \([0-9.]+%\), [0-9]+ false drains, [0-9]+ unattributed$'
check "no false drain" says ', 0 false drains, '
echo "t/real: $last"
finish
