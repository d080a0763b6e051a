#!/bin/sh
# The command line's contract: exit codes, one-line errors, help texts.
set -u
A=${ATTRIB:-./attrib}
SRC=${SRCDIR:-.}
pass=0 fail=0
ok()   { pass=$((pass+1)); echo "ok - $1"; }
bad()  { fail=$((fail+1)); echo "not ok - $1"; }
check() { if eval "$2"; then ok "$1"; else bad "$1"; fi; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# a diagnosis is printed: exit 0, one JSON object
"$A" analyze "$SRC/examples/xid149-nvlink" --json >"$tmp/out" 2>"$tmp/err"; rc=$?
check "analyze --json exits 0" "[ $rc -eq 0 ]"
check "analyze --json prints the result schema" "grep -q '\"schema\":\"attrib.result/v1\"' \"$tmp/out\" || grep -q '\"schema\": \"attrib.result/v1\"' \"$tmp/out\""
check "analyze --json prints node-02 as culprit" "tr -d ' \n' <\"$tmp/out\" | grep -q '\"culprit_nodes\":\[\"node-02\"\]'"
"$A" analyze "$SRC/examples/xid149-nvlink" >"$tmp/text"; rc=$?
check "analyze (text) exits 0" "[ $rc -eq 0 ]"
check "text names the root cause line" "grep -q 'NVRM: Xid (PCI:0000:43:00): 149' \"$tmp/text\""
check "text has a timeline" "grep -q '^Timeline' \"$tmp/text\""
# the catalog a diagnosis used is named, in the text and the JSON
cp -r "${ATTRIB_RULES:-$SRC/rules}" "$tmp/rules-copy"
check "text names the catalog it used (\$ATTRIB_RULES)" "grep -qx 'Rules        $(cd "${ATTRIB_RULES:-$SRC/rules}" && pwd -P)' \"$tmp/text\""
"$A" --rules "$tmp/rules-copy" analyze "$SRC/examples/xid149-nvlink" --json >"$tmp/out"
check "JSON names the catalog --rules gave" "tr -d ' \n' <\"$tmp/out\" | grep -qF '\"catalog\":\"$(cd "$tmp/rules-copy" && pwd -P)\"'"
# a build tree's attrib, with no --rules nor $ATTRIB_RULES, takes the
# tree's rules/ (beside the program), never an installed catalog
bdir=$(cd "$(dirname "$A")" && pwd -P)
if [ -f "$bdir/rules/00-base.yaml" ]; then
	ex=$(cd "$SRC/examples/xid149-nvlink" && pwd)
	(unset ATTRIB_RULES; cd "$tmp" && "$bdir/$(basename "$A")" analyze "$ex") >"$tmp/text" 2>&1
	check "a build tree's attrib without --rules uses the tree's rules/" "grep -qx 'Rules        $bdir/rules' \"$tmp/text\""
fi

# unusable cases: exit 2, one line on stderr
mkdir -p "$tmp/empty"
"$A" analyze "$tmp/empty" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "no job.json exits 2" "[ $rc -eq 2 ]"
check "no job.json: one line on stderr" "[ \$(wc -l <\"$tmp/err\") -eq 1 ]"
check "no job.json: nothing on stdout" "[ ! -s \"$tmp/out\" ]"
mkdir -p "$tmp/badjson"; printf '{"schema": ' >"$tmp/badjson/job.json"
"$A" analyze "$tmp/badjson" >/dev/null 2>"$tmp/err"; rc=$?
check "invalid JSON exits 2" "[ $rc -eq 2 ] && grep -q 'invalid JSON' \"$tmp/err\""
mkdir -p "$tmp/nostate"
printf '{"schema":"attrib.job/v1","job_id":"1","nodes":["a"],"start_time":"2026-01-01T00:00:00Z","end_time":"2026-01-01T01:00:00Z"}' >"$tmp/nostate/job.json"
"$A" analyze "$tmp/nostate" >/dev/null 2>"$tmp/err"; rc=$?
check "missing state exits 2 naming the field" "[ $rc -eq 2 ] && grep -q '\"state\"' \"$tmp/err\""

# rules check: the shipped catalog passes, a broken one fails precisely
"$A" rules check >"$tmp/out" 2>&1; rc=$?
check "rules check passes on the shipped catalog" "[ $rc -eq 0 ] && grep -q ': ok:' \"$tmp/out\""
mkdir -p "$tmp/rules"; cp "$SRC"/rules/*.yaml "$tmp/rules/"
cat >"$tmp/rules/99-broken.yaml" <<'YAML'
extractors:
  - id: broken-case
    regex: 'GPU melted'
    code: xid.79
    tests:
      - line: 'GPU frozen'
      - line: 'fine'
        none: true
    source: app
YAML
"$A" rules check "$tmp/rules" >"$tmp/out" 2>&1; rc=$?
check "rules check fails on a failing case (exit 3)" "[ $rc -eq 3 ]"
check "the failure names file and line" "grep -q '99-broken.yaml:6: extractor \"broken-case\": case does not match' \"$tmp/out\""
"$A" --rules "$tmp/rules" analyze "$SRC/examples/xid149-nvlink" >/dev/null 2>"$tmp/err"; rc=$?
check "analyze refuses to run with a broken catalog (exit 3)" "[ $rc -eq 3 ] && grep -q 'refusing to run' \"$tmp/err\""

# attrib.conf refused as MUNGE refuses its key; numbers that are not plain
# decimals (the commands reading attrib.conf need the service built)
if "$A" list --help >/dev/null 2>&1; then
	conf_refused() { # DESCRIPTION PATH TEXT: exit 1 (usage), the reason on stderr
		"$A" list --config "$2" >"$tmp/out" 2>"$tmp/err"; rc=$?
		check "$1" "[ $rc -eq 1 ] && grep -q -- \"$3\" \"$tmp/err\""
	}
	printf 'StateDir = %s/state\n' "$tmp" >"$tmp/good.conf"
	chmod 0644 "$tmp/good.conf"
	"$A" list --config "$tmp/good.conf" >/dev/null 2>"$tmp/err"
	check "a safe attrib.conf is not refused" "! grep -q refused \"$tmp/err\""
	cp "$tmp/good.conf" "$tmp/world.conf" && chmod 0666 "$tmp/world.conf"
	conf_refused "attrib.conf writable by every user: refused" "$tmp/world.conf" "writable by every user; refused"
	ln -s "$tmp/good.conf" "$tmp/link.conf"
	conf_refused "attrib.conf through a symbolic link: refused" "$tmp/link.conf" "symbolic link; refused"
	mkdir -p "$tmp/confdir"
	conf_refused "a directory as --config: a clear error, not every default" "$tmp/confdir" "is a directory"
	if [ "$(id -u)" = 0 ]; then
		cp "$tmp/good.conf" "$tmp/nobody.conf" && chown 65534 "$tmp/nobody.conf"
		conf_refused "attrib.conf owned by another user: refused" "$tmp/nobody.conf" "owned by another user"
		cp "$tmp/good.conf" "$tmp/group.conf" && chown 0:65534 "$tmp/group.conf" && chmod 0664 "$tmp/group.conf"
		conf_refused "attrib.conf writable by a group not root's: refused" "$tmp/group.conf" "group other than root's"
	fi
	printf 'DrainMaxFraction = nan\n' >"$tmp/nan.conf"
	conf_refused "DrainMaxFraction = nan: refused with its line" "$tmp/nan.conf" "nan.conf:1: DrainMaxFraction must be a number from 0 to 1"
	printf 'WindowMargin = -5\n' >"$tmp/neg.conf"
	conf_refused "WindowMargin = -5: refused" "$tmp/neg.conf" "neg.conf:1: WindowMargin"
	printf 'AppMaxBytes = 64Mjunk\n' >"$tmp/junk.conf"
	conf_refused "AppMaxBytes with trailing junk: refused" "$tmp/junk.conf" "junk.conf:1: AppMaxBytes"
fi

# help
"$A" --help | grep -q 'analyze CASE' && ok "attrib --help" || bad "attrib --help"
"$A" analyze --help | grep -q -- '--json' && ok "attrib analyze --help" || bad "attrib analyze --help"
"$A" bogus >/dev/null 2>&1; check "unknown command exits 1" "[ $? -eq 1 ]"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
