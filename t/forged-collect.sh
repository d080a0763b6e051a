#!/bin/bash
# The finding "any user can fake a GPU fault on a node of their job", end to
# end with the real tools: a journald of the test's own (in a private mount
# namespace: its sockets and journal on a tmpfs over /run), a user (nobody)
# who writes "NVRM: Xid ... 79" with logger -t kernel, logger -t nobody,
# systemd-cat -t kernel and logger --journald (claiming _TRANSPORT=kernel
# and _UID=0 too) and lines a log file shows as rsyslog would; the real
# attrib-collect as each node's Epilog (journal, kmsg, the file), a private
# munged and the real `attrib serve`.  Checks what `attrib show` stores:
#   700  a user's KeyError, before the forgeries: UserCode, no culprit
#   701  the same after them (sd-journal), 703 (journalctl): still UserCode,
#        no culprit, no drain, no Xid symptom; the forged lines are in the
#        case, as journal-user / file evidence
#   702  a real Xid 79 in node-02's kernel ring (a test file of /dev/kmsg
#        records stands in) besides the forgeries on node-01: node-02 is the
#        culprit and the only drain
#   704  the kernel itself printing what nobody chose, read from the
#        machine's real /dev/kmsg: a tmpfs mount in nobody's user namespace
#        with the option 'Xid (PCI:0000:3b:00): 79' (tmpfs: Unknown
#        parameter '...'), and programs named "EDAC MC0: 1 UE" and "GPU is
#        lost" that segfault ("EDAC MC0: 1 UE[PID]: segfault at 0 ..."):
#        still UserCode, no culprit, no drain
#   705  a root daemon printing what anyone chose: the test's own sshd on a
#        loopback port logs "Invalid user GPU is lost from 127.0.0.1" into
#        the test's journald (uid 0, origin journal) when ssh -l 'GPU is
#        lost' tries it: still UserCode, no culprit, no drain
# Needs root, unshare, setpriv, logger, systemd-cat, systemd-journald,
# munged, munge, curl: skipped (77) otherwise (704 needs a C compiler and
# user namespaces too, 705 sshd and ssh: else each says why and is left out).
set -u

A=$(cd "$(dirname "${ATTRIB:-./attrib}")" && pwd)/$(basename "${ATTRIB:-./attrib}")
SRC=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
COLLECT=${ATTRIB_COLLECT:-$(dirname "$A")/epilog/attrib-collect}
JOURNALD=/lib/systemd/systemd-journald
export PATH=$PATH:/usr/sbin:/sbin
. "$SRC/t/lib/check.sh"
. "$SRC/t/lib/service.sh"

[ "$(id -u)" = 0 ] || skip "needs root"
[ -x "$COLLECT" ] || skip "no $COLLECT"
[ -x "$JOURNALD" ] || skip "no $JOURNALD"
for c in unshare setpriv logger systemd-cat journalctl munged munge curl python3; do
	command -v "$c" >/dev/null || skip "no $c"
done
# everything below in a mount namespace of its own: the test's journald
# must not be the machine's (nor its sockets, nor its journal)
if [ -z "${ATTRIB_FORGED_NS:-}" ]; then
	unshare -m --propagation private true 2>/dev/null || skip "no mount namespace here"
	ATTRIB_FORGED_NS=1 exec unshare -m --propagation private "$0" "$@"
fi

T=$(mktemp -d /tmp/attrib-forged-XXXXXX)
chmod 0711 "$T"
spid='' mpid='' jpid=''
cleanup() {
	[ -n "$spid" ] && kill "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
	[ -n "$jpid" ] && kill "$jpid" 2>/dev/null && wait "$jpid" 2>/dev/null
	[ -n "$mpid" ] && kill "$mpid" 2>/dev/null
	sleep 0.2
	# (705 binds the machine's /dev under T: never delete through it)
	mountpoint -q "$T/realdev" 2>/dev/null && umount -l "$T/realdev"
	rm -rf --one-file-system "$T"
}
trap cleanup EXIT

# ---- the test's journald ----
mount -t tmpfs -o mode=0755 tmpfs /run || skip "cannot mount a tmpfs on /run"
mkdir -p /run/systemd/journal /run/log/journal
chmod 0755 /run/systemd /run/systemd/journal
[ -d /var/log/journal ] && mount -t tmpfs tmpfs /var/log/journal
# (its own kernel entries would come from the machine's ring: the kernel's
# evidence here is the test's stand-in for /dev/kmsg)
printf '[Journal]\nStorage=volatile\nReadKMsg=no\nForwardToSyslog=no\nForwardToKMsg=no\nForwardToConsole=no\nForwardToWall=no\nRateLimitBurst=0\n' \
	>"$T/journald.conf"
mount --bind "$T/journald.conf" /etc/systemd/journald.conf || skip "cannot replace journald.conf here"
SYSTEMD_LOG_TARGET=console "$JOURNALD" >"$T/journald.log" 2>&1 &
jpid=$!
wait_for 60 test -S /run/systemd/journal/socket -a -S /run/systemd/journal/stdout
[ -S /run/systemd/journal/dev-log ] || { cat "$T/journald.log"; skip "systemd-journald does not start here"; }

# ---- a private munged and attrib serve ----
mkdir -p "$T/munge" && chmod 0711 "$T/munge"
dd if=/dev/urandom of="$T/munge/key" bs=1024 count=1 2>/dev/null
chmod 0600 "$T/munge/key"
SOCK=$T/munge/sock
munged --socket="$SOCK" --key-file="$T/munge/key" --pid-file="$T/munge/pid" \
	--log-file="$T/munge/log" --seed-file="$T/munge/seed" || skip "munged does not start"
wait_for 60 test -S "$SOCK"
mpid=$(cat "$T/munge/pid")
export ATTRIB_MUNGE_SOCKET=$SOCK
export SLURM_CONF=$T/no-slurm.conf	# no Slurm: summaries stay queued
port=$(free_port $((21000 + $$ % 20000)))
[ -n "$port" ] || skip "no free port"
mkdir -p "$T/spool/jobs" "$T/out"
cat >"$T/attrib.conf" <<EOF
SpoolDir = $T/spool
StateDir = $T/state
RulesDir = $SRC/rules
# the output files are on this host: the service reads them itself
ReadJobOutput = yes
Listen = 127.0.0.1:$port
BundleDeadline = 60
ReconcileInterval = 0
LogFile = $T/attrib.log
# the credentials are made here: each node's address is this host's
NodeAddresses = node-01=127.0.0.1, node-02=127.0.0.1
EOF
URL=http://127.0.0.1:$port
if ! start; then
	bad "attrib serve starts"
	cat "$T/serve.err" "$T/attrib.log" 2>/dev/null | sed 's/^/#   /'
	finish
fi

NOW=$(date +%s)
JS=$((NOW - 300)) JE=$((NOW + 30))
iso() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
X="NVRM: Xid (PCI:0000:61:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."

# kmsg FILE [XID]: the node's kernel ring: a boot-time line, and the Xid when asked
kmsg() {
	python3 - "$1" "$NOW" "${2:-}" <<'PY'
import sys, time
path, now, xid = sys.argv[1], int(sys.argv[2]), sys.argv[3]
boot = time.time() - time.monotonic()
with open(path, "w") as f:
    f.write("6,1,%d,-;usb 1-1: new high-speed USB device number 2 using xhci_hcd\n" % int((now - 200 - boot) * 1e6))
    if xid:
        f.write("3,2,%d,-;%s\n SUBSYSTEM=pci\n" % (int((now - 100 - boot) * 1e6), xid))
PY
}
for n in node-01 node-02; do
	mkdir -p "$T/$n"
	kmsg "$T/$n/kmsg"
	cat >"$T/$n/attrib.conf" <<EOF
ServiceURL = $URL
NodeSpoolDir = $T/$n/spool
CollectTimeout = 5
LogFile = $T/$n/collect.log
EOF
done
# node-01 is the one the user writes on: the machine's journal, its
# kernel ring, and a syslog file
echo "LogSources = journal, kmsg, $T/node-01/syslog" >>"$T/node-01/attrib.conf"
echo "LogSources = kmsg" >>"$T/node-02/attrib.conf"
: >"$T/node-01/syslog"

# job JOBID [env...]: the record, each node's Epilog, then the stored result in T/JOBID.json
stored() { "$A" show "$1" --json --config "$T/attrib.conf" >"$T/$1.json" 2>/dev/null; }
job() {
	local id=$1
	shift
	printf '[rank1]: Traceback (most recent call last):\n[rank1]:   File "/w/train.py", line 10, in <module>\n[rank1]: KeyError: '"'"'labels'"'"'\n' \
		>"$T/out/slurm-$id.out"
	printf '{"schema":"attrib.job/v1","job_id":"%s","cluster":"lab","user":"nobody","nodes":["node-01","node-02"],"start_time":"%s","end_time":"%s","state":"FAILED","exit_code":"1:0","uid":0,"gid":0,"attempt":0,"std_out":"%s"}\n' \
		"$id" "$(iso $JS)" "$(iso $JE)" "$T/out/slurm-$id.out" >"$T/spool/jobs/.$id.0.json.tmp"
	mv "$T/spool/jobs/.$id.0.json.tmp" "$T/spool/jobs/$id.0.json"
	for n in node-01 node-02; do
		env -i PATH=/usr/bin:/bin ATTRIB_CONF="$T/$n/attrib.conf" ATTRIB_MUNGE_SOCKET="$SOCK" TZ=UTC \
			SLURM_JOB_ID="$id" SLURMD_NODENAME=$n SLURM_JOB_START_TIME=$JS SLURM_JOB_END_TIME=$JE \
			ATTRIB_COLLECT_KMSG="$T/$n/kmsg" "$@" "$COLLECT" </dev/null >/dev/null 2>&1
	done
	wait_for 120 stored "$id" && return 0
	echo "# job $id: no stored result"
	tail -n 5 "$T/attrib.log" "$T"/node-0?/collect.log 2>/dev/null | sed 's/^/#   /'
	return 1
}
# verdict FILE: "sub_domain culprits actions"
verdict() {
	python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
acts = ",".join("%s:%s" % (a["node"], a["action"]) for a in r["actions"])
xids = [s["code"] for s in r["symptoms"] if s["code"].startswith("xid.")]
print(r["sub_domain"], ",".join(r["culprit_nodes"]) or "-", acts or "-", ",".join(xids) or "-")' "$1"
}

# ---- 700: before any forgery ----
job 700 || bad "job 700 diagnosed"
base=$(verdict "$T/700.json")
check "700 (a user's KeyError): UserCode, no culprit, no action, no Xid ($base)" test "$base" = "UserCode - - -"

# ---- the forgeries, by nobody, with the real tools ----
as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
as_user logger -u /run/systemd/journal/dev-log -t kernel "$X"
as_user logger -u /run/systemd/journal/dev-log -t nobody "kernel: $X"
echo "$X" | as_user systemd-cat -t kernel
as_user logger --journald <<EOF
MESSAGE=$X
SYSLOG_IDENTIFIER=kernel
SYSLOG_FACILITY=0
_TRANSPORT=kernel
_UID=0
_COMM=kernel
EOF
# what rsyslog would have made of the first two in /var/log/syslog
{
	echo "$(date '+%b %e %H:%M:%S') node-01 kernel: $X"
	echo "$(date '+%b %e %H:%M:%S') node-01 nobody: kernel: $X"
} >>"$T/node-01/syslog"
forged_in_journal() { [ "$(journalctl -D /run/log/journal -q -o cat --grep 'PCI:0000:61:00' | wc -l)" = 4 ]; }
check "the journal holds the four forged entries" wait_for 60 forged_in_journal

# ---- 701 (sd-journal) and 703 (journalctl): nothing blamed ----
for id in 701 703; do
	extra=
	[ "$id" = 703 ] && extra=ATTRIB_COLLECT_JOURNALCTL=1
	job $id $extra || bad "job $id diagnosed"
	got=$(verdict "$T/$id.json")
	check "$id: after the forgeries the same verdict as before ($got)" test "$got" = "$base"
	c=$T/state/cases/$id.0
	check "$id: the forged journal entries are in the case as the user's (_UID=65534), origin journal-user" \
		python3 - "$c" <<'PY'
import json, sys
c = sys.argv[1]
m = json.load(open(c + "/evidence.json"))["files"]
want = {"nodes/node-01/kernel.log": "kernel", "nodes/node-01/journal.log": "journal",
        "nodes/node-01/journal-user.log": "journal-user", "nodes/node-01/syslog": "file",
        "nodes/node-02/kmsg.log": "kernel"}
for f, o in want.items():
    if m.get(f, {}).get("origin") != o:
        print("# %s: %s, want %s (%s)" % (f, m.get(f), o, m)); sys.exit(1)
u = open(c + "/nodes/node-01/journal-user.log").read().splitlines()
forged = [l for l in u if "PCI:0000:61:00" in l]
if len(forged) != 4 or any("[_UID=65534 _COMM=" not in l for l in forged):
    print("# journal-user.log: %s" % u); sys.exit(1)
if "0000:61:00" in open(c + "/nodes/node-01/kernel.log").read():
    print("# a forged line in kernel.log"); sys.exit(1)
if open(c + "/nodes/node-01/syslog").read().count("0000:61:00") != 2:
    print("# syslog"); sys.exit(1)
PY
done

# ---- 702: a real Xid in node-02's kernel ring, the forgeries on node-01 ----
kmsg "$T/node-02/kmsg" "NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
job 702 || bad "job 702 diagnosed"
got=$(verdict "$T/702.json")
check "702: the real fault: InfraHW, node-02 the culprit and the only drain ($got)" \
	test "$got" = "InfraHW node-02 node-02:drain xid.79"
check "702: its root cause is the kernel's Xid on PCI:0000:3b:00" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["root_cause"]
sys.exit(0 if r["code"] == "xid.79" and r["device"] == "PCI:0000:3b:00" and "trust" not in r else 1)' "$T/702.json"


# ---- 704: users' strings printed by the kernel itself (the real ring) ----
# What each would have given before the kernel's messages were parsed:
# InfraHW n1 with a drain (the Xid rule matched the mount option, the EDAC
# rule the process name).
printf 'int main(void) { return *(volatile int *)0; }\n' >"$T/crash.c"
if ! cc -o "$T/crash" "$T/crash.c" 2>/dev/null || ! as_user unshare -Urm true 2>/dev/null; then
	echo "# 704 left out: no C compiler or no user namespaces for nobody"
else
	mkdir -p "$T/mnt" "$T/bin" && chmod 0755 "$T/bin"
	for name in "EDAC MC0: 1 UE" "GPU is lost"; do
		install -m 0755 "$T/crash" "$T/bin/$name"
	done
	JS=$(($(date +%s) - 5))
	as_user unshare -Urm mount -t tmpfs -o 'Xid (PCI:0000:3b:00): 79' none "$T/mnt" 2>/dev/null
	(cd "$T/bin" && as_user "./EDAC MC0: 1 UE"; as_user "./GPU is lost") 2>/dev/null
	# the kernel prints them at once; wait (bounded) until the ring shows all three
	for _ in $(seq 600); do
		[ "$(dmesg 2>/dev/null | grep -cE "Unknown parameter 'Xid \(PCI:0000:3b:00\): 79'|(EDAC MC0: 1 UE|GPU is lost)\[[0-9]+\]: segfault")" -ge 3 ] && break
		sleep 0.1
	done
	JE=$(($(date +%s) + 30))
	check "704: the kernel printed the mount option and both process names" \
		sh -c "dmesg | grep -q \"Unknown parameter 'Xid (PCI:0000:3b:00): 79'\" && dmesg | grep -q 'EDAC MC0: 1 UE\[[0-9]*\]: segfault' && dmesg | grep -q 'GPU is lost\[[0-9]*\]: segfault'"
	job 704 ATTRIB_COLLECT_KMSG= || bad "job 704 diagnosed"
	got=$(verdict "$T/704.json")
	check "704: the kernel's messages with nobody's strings blame nobody ($got)" test "$got" = "UserCode - - -"
	check "704: the lines are in the case, from the real ring (origin kernel)" python3 - "$T/state/cases/704.0" <<'PY'
import json, sys
c = sys.argv[1]
m = json.load(open(c + "/evidence.json"))["files"]
k = open(c + "/nodes/node-01/kmsg.log").read()
ok = m.get("nodes/node-01/kmsg.log", {}).get("origin") == "kernel" and \
    "Unknown parameter 'Xid (PCI:0000:3b:00): 79'" in k and "EDAC MC0: 1 UE[" in k
sys.exit(0 if ok else 1)
PY
fi


# ---- 705: a root daemon's message carrying a user name (sshd) ----
# Before daemon rules named their writer: "GPU is lost" in sshd's line was
# nvidia-smi's GPU lost (InfraHW node-01 drain).
SSHD=$(command -v sshd || echo /usr/sbin/sshd)
if [ ! -x "$SSHD" ] || ! command -v ssh >/dev/null || ! command -v ssh-keygen >/dev/null; then
	echo "# 705 left out: no sshd, ssh or ssh-keygen"
else
	mkdir -p "$T/ssh" /run/sshd && chmod 0755 /run/sshd
	ssh-keygen -q -t ed25519 -N '' -f "$T/ssh/host_key"
	sport=$(free_port $((22000 + $$ % 20000)))
	JS=$(($(date +%s) - 5))
	# sshd logs through syslog(3), to /dev/log: here, the test's journald
	# (a /dev of this mount namespace's own, with what sshd and ssh use)
	mkdir -p "$T/realdev" && mount --bind /dev "$T/realdev" && mount -t tmpfs -o mode=0755 tmpfs /dev
	for d in null zero full random urandom tty; do
		touch "/dev/$d" && mount --bind "$T/realdev/$d" "/dev/$d"
	done
	mkdir -p /dev/pts /dev/shm && mount --bind "$T/realdev/pts" /dev/pts
	ln -s /run/systemd/journal/dev-log /dev/log
	"$SSHD" -D -f /dev/null -h "$T/ssh/host_key" -p "$sport" -o ListenAddress=127.0.0.1 \
		-o PidFile="$T/ssh/pid" -o SyslogFacility=AUTH -o LogLevel=INFO -o UsePAM=no 2>"$T/ssh/err" &
	sshpid=$!
	for _ in $(seq 600); do
		(exec 3<>"/dev/tcp/127.0.0.1/$sport") 2>/dev/null && break
		sleep 0.1
	done
	as_user ssh -n -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
		-o ConnectTimeout=10 -p "$sport" -l 'GPU is lost' 127.0.0.1 true >/dev/null 2>&1
	for _ in $(seq 600); do
		journalctl -D /run/log/journal -q -o cat --grep 'Invalid user GPU is lost' 2>/dev/null | grep -q . && break
		sleep 0.1
	done
	kill "$sshpid" 2>/dev/null; wait "$sshpid" 2>/dev/null
	umount -l /dev && umount -l "$T/realdev"
	JE=$(($(date +%s) + 30))
	kmsg "$T/node-02/kmsg"	# (702's Xid no longer in node-02's ring)
	check "705: sshd (uid 0) logged the user name into the journal" \
		sh -c "journalctl -D /run/log/journal -q -o verbose --grep 'Invalid user GPU is lost' | grep -q '_UID=0'"
	job 705 || bad "job 705 diagnosed"
	got=$(verdict "$T/705.json")
	check "705: sshd's line with the user name blames nobody ($got)" test "$got" = "UserCode - - -"
	check "705: the line is in the case, as root's journal entry (origin journal)" python3 - "$T/state/cases/705.0" <<'PY'
import json, sys
c = sys.argv[1]
m = json.load(open(c + "/evidence.json"))["files"]
j = open(c + "/nodes/node-01/journal.log").read()
sys.exit(0 if m.get("nodes/node-01/journal.log", {}).get("origin") == "journal" and
         "_COMM=sshd] sshd[" in j and "Invalid user GPU is lost" in j else 1)
PY
fi

finish
