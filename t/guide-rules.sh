#!/bin/bash
# doc/admin-guide.md section 10 ("Write and test a rule") run against the
# tree's catalog, without a cluster: the guide's site rule (block
# 80-site.yaml) added to a copy of the catalog, and `attrib rules check`
# must print exactly the guide's sample output (block rules check: its
# counts too, so a rule added to the catalog without the guide's sample
# fails here), and the guide's broken-prefilter example exactly its
# sample (block rules check broken).  t/live-guide.sh runs the same
# blocks with the installed packages.
set -u
A=$(cd "$(dirname "${ATTRIB:-./attrib}")" && pwd)/$(basename "${ATTRIB:-./attrib}")
SRC=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
GUIDE=${ATTRIB_GUIDE:-$SRC/doc/admin-guide.md}
. "$SRC/t/lib/check.sh"
. "$SRC/t/lib/guide.sh"
T=$(mktemp -d /tmp/attrib-guide-rules-XXXXXX)
trap 'rm -rf "$T"' EXIT

for b in "rules copy" "80-site.yaml" "rules check" "rules check broken"; do
	guide_block "$GUIDE" "$b" >"$T/$(echo "$b" | tr ' ' -)" || bad "the guide has the block '$b'"
done
# the guide's paths: its copy of the installed catalog is the tree's here
check "the guide copies the installed catalog to /etc/attrib-rules" \
	grep -qx 'cp -r /usr/share/attrib/rules /etc/attrib-rules' "$T/rules-copy"
R=$T/etc/attrib-rules
mkdir -p "$T/etc"
cp -r "${ATTRIB_RULES:-$SRC/rules}" "$R"
cp "$T/80-site.yaml" "$R/80-site.yaml"
here() { sed "s|/etc/attrib-rules|$R|g"; }

cmd=$(grep -v '^#' "$T/rules-check" | here)
want=$(sed -n 's/^# //p' "$T/rules-check" | here)
check "the guide's rules check is 'attrib rules check /etc/attrib-rules'" test "$cmd" = "attrib rules check $R"
"$A" rules check "$R" >"$T/out" 2>&1
rc=$?
check "attrib rules check with the guide's site rule exits 0" test $rc = 0
check "and prints the guide's sample line, counts included ($(tail -n1 "$T/out"))" \
	test "$(tail -n1 "$T/out")" = "$want"

# the guide's broken rule: its prefilter made 'nhc['
sed "s|^    prefilter: .*|    prefilter: 'nhc['|" "$T/80-site.yaml" >"$R/80-site.yaml"
check "the broken rule differs from the guide's by its prefilter" \
	sh -c "diff '$T/80-site.yaml' '$R/80-site.yaml' | grep -c '^[<>]' | grep -qx 2"
"$A" rules check "$R" >"$T/out" 2>&1
rc=$?
check "attrib rules check with the broken rule exits 3" test $rc = 3
check "and prints the guide's sample lines" diff <(here <"$T/rules-check-broken") "$T/out"
finish
