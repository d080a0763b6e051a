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
#   wait_for SECONDS COMMAND...  polls COMMAND every WAIT_FOR_POLL [0.2] s
#                            until it succeeds (0), or SECONDS have passed
#                            (1).  A test waits for the event it checks with
#                            a bound sized for a loaded machine (60-120 s),
#                            never a fixed sleep: the bound costs nothing
#                            when the event comes
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
bad() { fail=$((fail + 1)); echo "not ok - $*"; }
check() { # description command...
	local d=$1
	shift
	if "$@"; then ok "$d"; else bad "$d"; fi
}
skip() { echo "SKIP: $*"; exit 77; }
wait_for() {
	local limit=$1 t0
	shift
	t0=$(date +%s)
	until "$@"; do
		[ $(($(date +%s) - t0)) -ge "$limit" ] && return 1
		sleep "${WAIT_FOR_POLL:-0.2}"
	done
}
finish_hook() { :; }
finish() {
	finish_hook
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
}
