#!/bin/bash
# attrib without Slurm: the command links neither libslurm nor the daemon's
# libraries (microhttpd, MUNGE, libcurl, libcrypto: attribd's), and on a
# host where Slurm is not there at all (its libraries hidden in a mount
# namespace of this test's own, LD_LIBRARY_PATH empty, the Slurm module of
# this build hidden too) attrib analyze still diagnoses the example, attrib
# list reads a store, attrib nodes says the state is unknown and why, and
# attrib drain refuses with a reason rather than dying.
set -u
A=${ATTRIB:-./attrib}
AD=${ATTRIBD:-$(dirname "$A")/attribd}
SRC=$(cd "${SRCDIR:-.}" && pwd)
. "$SRC/t/lib/check.sh"
A=$(cd "$(dirname "$A")" && pwd)/$(basename "$A")
command -v ldd >/dev/null || skip "no ldd"

# ---- what the programs link ----
deps=$(ldd "$A") || skip "ldd cannot read $A"
links() { grep -q "$1" <<<"$deps"; }
for lib in libslurm libslurmfull libmicrohttpd libmunge libcurl libcrypto; do
	check "ldd attrib: no $lib" eval "! links $lib"
done
check "ldd attrib: the engine's libraries and SQLite" eval "links libsqlite3 && links libpcre2 && links libjson-c"
if [ -x "$AD" ]; then
	check "ldd attribd: libslurm (it is the one that links Slurm)" sh -c "ldd '$AD' | grep -q libslurm"
fi

# ---- the same with no Slurm on the host ----
[ "$(id -u)" = 0 ] || { echo "# (not root: no mount namespace; the ldd checks only)"; finish; }
command -v unshare >/dev/null || { echo "# (no unshare: the ldd checks only)"; finish; }
T=$(mktemp -d /tmp/attrib-nodeps-XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
mkdir "$T/empty"
printf 'StateDir = %s/state\n' "$T" >"$T/attrib.conf"
mkdir "$T/state"
"$A" analyze "$SRC/examples/xid149-nvlink" --json >"$T/result.json" || bad "attrib analyze (with Slurm)"
python3 - "$T/state/attrib.db" "$T/result.json" <<'PY' || skip "python3's sqlite3 cannot write a store"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executescript("""CREATE TABLE results(job_id TEXT NOT NULL, attempt INTEGER NOT NULL, cluster TEXT,
 user TEXT, state TEXT, sub_domain TEXT, culprits TEXT, root_code TEXT, created INTEGER NOT NULL,
 result_json TEXT NOT NULL, ended INTEGER, PRIMARY KEY(job_id, attempt));
CREATE TABLE comment_queue(job_id TEXT, attempt INTEGER, text TEXT, tries INTEGER, next_try INTEGER, done INTEGER);
CREATE TABLE drains(job_id TEXT, attempt INTEGER, node TEXT, reason TEXT, decision TEXT, decided_by TEXT, created INTEGER);
CREATE TABLE webhook_queue(job_id TEXT, attempt INTEGER, tries INTEGER, next_try INTEGER, done INTEGER, delivered INTEGER, last_error TEXT);
PRAGMA user_version = 4;""")
db.execute("INSERT INTO results VALUES ('4242', 0, NULL, 'alice', 'FAILED', 'InfraHW', 'node-02', 'xid.149',"
           " strftime('%s','now'), ?, NULL)", (open(sys.argv[2]).read(),))
db.commit()
PY
# Every place a Slurm library could come from: Debian's and the usual
# prefixes' library and plugin directories, and this build's module.
hide=()
for d in /usr/lib/*/slurm-wlm /usr/lib/slurm /usr/lib64/slurm /usr/local/lib/slurm \
	"$(dirname "$A")/slurmapi/.libs" /usr/lib/*/attrib /usr/local/lib/attrib; do
	[ -d "$d" ] && hide+=("mount --bind $T/empty '$d'")
done
for f in /usr/lib/*/libslurm*.so* /usr/lib64/libslurm*.so* /usr/local/lib/libslurm*.so*; do
	[ -e "$f" ] && hide+=("mount --bind /dev/null '$f'")
done
cat >"$T/run.sh" <<SH
set -e
mount --make-rprivate /
$(printf '%s\n' "${hide[@]}")
# nothing of Slurm left: the test is only worth something if this holds
! ls /usr/lib/*/slurm-wlm/*.so /usr/lib/*/libslurm*.so* 2>/dev/null | xargs -r cat 2>/dev/null | grep -q .
cd "$T"
env -u LD_LIBRARY_PATH -u LD_PRELOAD "$A" analyze "$SRC/examples/xid149-nvlink" --json >"$T/nos-result.json"
env -u LD_LIBRARY_PATH "$A" list --config "$T/attrib.conf" >"$T/nos-list.txt"
env -u LD_LIBRARY_PATH "$A" nodes --config "$T/attrib.conf" >"$T/nos-nodes.txt" 2>"$T/nos-nodes.err"
rc=0; env -u LD_LIBRARY_PATH "$A" drain 4242 --config "$T/attrib.conf" >"$T/nos-drain.txt" 2>"$T/nos-drain.err" || rc=\$?
echo \$rc >"$T/nos-drain.rc"
SH
if ! unshare -m bash "$T/run.sh" 2>"$T/run.err"; then
	sed 's/^/#   /' "$T/run.err"
	if grep -q "unshare failed\|Operation not permitted" "$T/run.err"; then
		echo "# (no mount namespace here: the ldd checks only)"
		finish
	fi
	bad "attrib runs in a mount namespace without Slurm"
	finish
fi
ok "attrib analyze, list, nodes and drain ran with every Slurm library hidden"
check "no Slurm: analyze finds the example's root cause (Xid 149 on node-02)" \
	sh -c "tr -d ' \n' <'$T/nos-result.json' | grep -q '\"code\":\"xid.149\",\"class\":\"nvlink\",\"node\":\"node-02\"'"
check "no Slurm: the same result as with Slurm" \
	bash -c "diff <(grep -v '\"attributed_at\"' '$T/result.json') <(grep -v '\"attributed_at\"' '$T/nos-result.json') >/dev/null"
check "no Slurm: attrib list reads the store" grep -Eq ' 4242 +alice +InfraHW +node-02 +xid.149' "$T/nos-list.txt"
check "no Slurm: attrib nodes ranks node-02, its state unknown" grep -Eq '^node-02 .*unknown' "$T/nos-nodes.txt"
check "no Slurm: attrib nodes says why on stderr (no Slurm module)" grep -q 'attrib_slurm.so' "$T/nos-nodes.err"
check "no Slurm: attrib drain fails (exit 6) naming what is missing" \
	sh -c "[ \$(cat '$T/nos-drain.rc') = 6 ] && grep -q 'Slurm is not available to attrib' '$T/nos-drain.err'"
finish
