# The shell tests' checks and their last line (sourced, first, by t/*.sh).
#
#   ok TEXT / bad TEXT       count a passed / failed check, print "ok - TEXT" /
#                            "not ok - TEXT"
#   check TEXT COMMAND...    ok TEXT if COMMAND succeeds, else bad TEXT
#   skip TEXT                "SKIP: TEXT", exit 77 (automake's skipped test)
#   finish                   finish_hook, then "N passed, N failed"; exits
#                            0 only if nothing failed
#   finish_hook              no-op here; a test that must stop things (and
#                            print their logs) before the last line redefines
#                            it after sourcing this file
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
bad() { fail=$((fail + 1)); echo "not ok - $*"; }
check() { # description command...
	local d=$1
	shift
	if "$@"; then ok "$d"; else bad "$d"; fi
}
skip() { echo "SKIP: $*"; exit 77; }
finish_hook() { :; }
finish() {
	finish_hook
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
}
