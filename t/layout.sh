#!/bin/bash
# The folders' include rules (doc/hacking.md, "Where things live"), read
# from the sources: the command's files include no header of the daemon's
# (service/), no file outside slurmapi/ and plugin/ includes a Slurm header
# (Slurm is reached through slurmapi/ only), the policy includes nothing of
# service/ or cli/, and service.h, the daemon's one header for everything,
# is not back.  Each check names the offending lines.
set -u
SRC=$(cd "${SRCDIR:-.}" && pwd)
. "$SRC/t/lib/check.sh"
cd "$SRC" || skip "no source tree at $SRC"
[ -d cli ] && [ -d service ] && [ -d policy ] || skip "not a source tree: $SRC"

# the headers a file includes ("x.h" or <x.h>), one "file:line: name" each
includes() {
	grep -HnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<][^">]+[">]' "$@" 2>/dev/null |
		sed -E 's/^([^:]+:[0-9]+):.*include[[:space:]]*["<]([^">]+)[">].*/\1: \2/'
}
none() { # description lines
	if [ -z "$2" ]; then ok "$1"; else bad "$1:"$'\n'"$2"; fi
}

daemon_headers=$(cd service && ls -- *.h | sed 's/[.]/[.]/g' | paste -sd'|')
found=$(includes cli/*.c cli/*.h | grep -E ": ([^ ]*/)?($daemon_headers)\$")
none "cli/ includes no header of service/" "$found"
found=$(includes policy/*.c policy/*.h | grep -E ": ([^ ]*/)?($daemon_headers)\$")
none "policy/ includes no header of service/" "$found"
found=$(includes policy/*.c policy/*.h | grep -E ": ([^ ]*/)?(command|render)[.]h\$")
none "policy/ includes no header of cli/" "$found"

# (t/fname-oracle.c compiles Slurm's own fname.c to test common/stdio_path.c
# against it: a test of the plugins' code, not a caller of Slurm)
files=$(find . -path ./build -prune -o -path ./plugin -prune -o -path ./slurmapi -prune -o \
	\( -name '*.c' -o -name '*.h' \) -print | grep -v '^./t/fname-oracle[.]c$')
# shellcheck disable=SC2086
found=$(includes $files | grep -E ': (slurm/|src/(common|slurmctld|slurmd|interfaces)/|([^ ]*/)?slurm_compat[.]h$)')
none "no file outside slurmapi/ and plugin/ includes a Slurm header" "$found"

check "service/service.h is gone (one header per file)" test ! -e service/service.h
check "the checks see the includes they look for (cli/slurm.c: slurmapi.h)" \
	sh -c "grep -q 'slurmapi[.]h' <<'E'
$(includes cli/slurm.c)
E"
finish
