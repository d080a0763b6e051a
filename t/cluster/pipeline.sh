# The test cluster running the whole attrib pipeline (sourced by
# t/live-pipeline.sh, t/live-drain.sh, t/live-faults.sh and
# bench/live/latency.sh): Slurm with jobcomp/attrib (slurmctld), spank attrib
# (every slurmstepd), an Epilog running epilog/attrib-collect with the node's
# own attrib.conf (every slurmd; each node's spank spool bind-mounted in its
# slurmd's mount namespace) and `attribd --foreground`; with the helpers
# to submit jobs and wait for their diagnoses and AdminComments.
#
# The caller sets A (the attrib program, an absolute path) and SRC (the
# source tree), exports ATTRIB_CLUSTER_DIR, then sources this file, which
# sources t/lib/check.sh and t/cluster/lib.sh first (a caller may redefine
# any function after it).  W, the caller's temporary directory, holds:
#   W/out                the jobs' output files
#   W/spool              JobCompLoc = SpoolDir (jobs/ made by jobcomp/attrib)
#   W/state              StateDir of attribd
#   W/nodes/NODE/        kmsg (the node's fake kernel ring: /dev/kmsg records,
#                        which its collector reads as ATTRIB_COLLECT_KMSG), attrib.conf,
#                        collect.log (the collector's LogFile), epilog.out
#   W/nodespool/NODE     that node's spank spool and collector outbox
#   W/nodespool/here     the spank spool path, bound per node to the above
#   W/started            files the ranks of t/live/rank.sh touch
#   W/watch, W/seen      the job ids the watcher polls; "JOBID EPOCH" when
#                        sacct first showed attrib: in the job's AdminComment
#   W/epilog.sh, W/plugstack.conf, W/attrib.conf, W/attrib.log, W/serve.err
#
#   ATTRIB_BUILDDIR      build tree (plugin/.libs, epilog/) [dir of $A]
#   ATTRIB_LIVE_JOBRECORD  how slurmctld writes the job records into
#                        W/spool: jobcomp (JobCompType=jobcomp/attrib) or
#                        epilogslurmctld (EpilogSlurmctld = W/epilogctld.sh,
#                        which runs plugin/attrib-jobrecord and appends
#                        "JOBID MILLISECONDS" to W/jobrecord.times) or
#                        jobcompscript (JobCompType=jobcomp/script,
#                        JobCompLoc = the same W/epilogctld.sh) [jobcomp]
. "$SRC/t/lib/check.sh"
. "$SRC/t/cluster/lib.sh"

B=${ATTRIB_BUILDDIR:-$(dirname "$A")}
CLUSTER=$SRC/t/cluster/cluster.sh
RANK=$SRC/t/live/rank.sh
COLLECT=$B/epilog/attrib-collect
LIBS=$B/plugin/.libs
NODES="node-01 node-02 node-03"
JOBRECORD=${ATTRIB_LIVE_JOBRECORD:-jobcomp}
case $JOBRECORD in jobcomp | epilogslurmctld | jobcompscript) ;; *) echo "ATTRIB_LIVE_JOBRECORD=$JOBRECORD: jobcomp, epilogslurmctld or jobcompscript" >&2; exit 99 ;; esac
export PATH=$PATH:/usr/sbin:/sbin
unset ATTRIB_CLUSTER_NODES	# three nodes
spid='' started_cluster=''

# ---- before anything starts --------------------------------------------------
require_built() { # [file...]: skipped (77) unless the plugins, the collector (and these) are built
	local f
	local rec=$LIBS/jobcomp_attrib.so
	[ "$JOBRECORD" = jobcomp ] || rec=$B/plugin/attrib-jobrecord
	for f in "$@" "$rec" "$LIBS/spank_attrib.so" "$COLLECT"; do
		[ -f "$f" ] || { echo "SKIP: $f is not built"; exit 77; }
	done
}
require_root_and() { # command...: a failed check (and finish) unless root with these installed
	local c
	[ "$(id -u)" = 0 ] || { bad "running as root"; finish; }
	for c in "$@"; do
		command -v "$c" >/dev/null || { bad "$c is installed (t/cluster/deps.sh)"; finish; }
	done
}

# ---- time and waiting ----------------------------------------------------------
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
note() { echo "# [$(since "$T0") s] $*"; }	# T0: the test's start

# ---- the test's directory, and stopping everything at the end ----------------------
# pipeline_workdir NAME: T0 = now, W = a new /tmp/NAME-XXXXXX; cleanup
# trapped on exit
pipeline_workdir() {
	T0=$(date +%s.%N)
	W=$(mktemp -d "/tmp/$1-XXXXXX")
	chmod 0755 "$W"
	trap cleanup EXIT
	trap 'exit 1' INT TERM
}
wpid='' cleaned=''
cleanup_more() { :; }	# the test's own, after attribd stops, before the cluster does
# cleanup: stops everything the test started (the watcher, attribd,
# cleanup_more, the cluster); on failure prints the logs; removes W unless
# ATTRIB_LIVE_KEEP=1.  Once, and never from a subshell.
cleanup() {
	local n
	[ -n "$cleaned" ] && return
	[ "$BASHPID" = "$$" ] || return
	cleaned=1
	[ -n "$wpid" ] && kill "$wpid" 2>/dev/null && wait "$wpid" 2>/dev/null
	if [ -n "$spid" ]; then kill -TERM "$spid" 2>/dev/null; wait "$spid" 2>/dev/null; fi
	# (a test that checked it already, before its programs went: truth_checked)
	[ -n "${truth_checked:-}" ] || stored_is_analyzed "$W/state" "$W/attrib.conf" "$A"
	cleanup_more
	[ -n "$started_cluster" ] && "$CLUSTER" stop >/dev/null 2>&1
	if [ "$fail" -gt 0 ]; then
		echo "# service log (last 40 lines):"
		sed 's/^/#   /' "$W/attrib.log" 2>/dev/null | tail -40
		for n in $NODES; do
			[ -s "$W/nodes/$n/collect.log" ] || continue
			echo "# $n collector log (last 10 lines):"
			sed 's/^/#   /' "$W/nodes/$n/collect.log" | tail -10
		done
	fi
	if [ "${ATTRIB_LIVE_KEEP:-0}" = 1 ]; then echo "# kept $W"; else rm -rf "$W"; fi
}
# the last line: everything the test started stopped first (cleanup prints
# the logs on failure), then the time taken
finish_hook() {
	cleanup
	echo "# total: $(since "$T0") s"
}

# ---- the test directory and the cluster ------------------------------------------
pipeline_dirs() { # the directories of W (see above) and empty W/watch, W/seen
	local n
	mkdir -p "$W/out" "$W/spool" "$W/state" "$W/started" "$W/nodespool/here"
	chmod 0700 "$W/nodespool/here"
	: >"$W/watch"
	: >"$W/seen"
	for n in $NODES; do
		mkdir -p "$W/nodes/$n" "$W/nodespool/$n"
		chmod 0700 "$W/nodespool/$n"
	done
}
boot_log() { # node: the kernel ring's records of its boot with the NVIDIA driver
	# (kernel lines count only from where the kernel alone writes: the
	# collector's kmsg source, a test file of /dev/kmsg records here)
	cat <<LOG
6,0,1000000,-;Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org) #1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1
6,1,1500000,-;NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.161.08  Tue Mar  5 22:42:15 UTC 2024
LOG
}
kmsg_record() { # message [seconds-ago]: a /dev/kmsg record (kernel facility) of now
	# (/proc/uptime is the boot clock: the monotonic one, on a machine that never slept)
	awk -v m="$1" -v ago="${2:-0}" '{ t = $1 - ago; if (t < 0) t = 0; printf "6,2,%.0f,-;%s\n", t * 1000000, m }' /proc/uptime
}
write_epilog() { # W/epilog.sh, slurmd's Epilog: the collector with this node's attrib.conf
	cat >"$W/epilog.sh" <<SH
#!/bin/sh
n=\${SLURMD_NODENAME:-\$(hostname)}
ATTRIB_COLLECT_KMSG=$W/nodes/\$n/kmsg
export ATTRIB_COLLECT_KMSG
exec "$COLLECT" -c "$W/nodes/\$n/attrib.conf" >>"$W/nodes/\$n/epilog.out" 2>&1
SH
	chmod 0755 "$W/epilog.sh"
}
# start_cluster [TRIES]: waits for the machine's one test cluster to be free,
# starts it with jobcomp/attrib (JobCompLoc W/spool), spank attrib
# (W/plugstack.conf, written here) and the Epilog W/epilog.sh, then takes its
# environment (ATTRIB_CLUSTER_*, ATTRIB_MUNGE_SOCKET exported: the service
# decodes with the cluster's munged); a failed check and finish if it does
# not start.  With TRIES > 1 it also waits for any slurmctld to go and tries
# again (another test's cluster starting in the same moment makes ours fail:
# a node's port is taken).  cluster_t0: when the last start began.
start_cluster() {
	local tries=${1:-1} try
	echo "optional $LIBS/spank_attrib.so spool=$W/nodespool/here" >"$W/plugstack.conf"
	export ATTRIB_PLUGIN_DIR=$LIBS
	if [ "$JOBRECORD" = jobcomp ]; then
		export ATTRIB_JOBCOMP=jobcomp/attrib ATTRIB_JOBCOMP_LOC=$W/spool
	else
		# the job record from a hook of slurmctld's (EpilogSlurmctld, or
		# jobcomp/script, whose environment names the job JOBID), timed
		# per job (slurmctld does not pass SLURM_CONF to its hooks: a
		# slurm.conf elsewhere than the default path is named here, as a
		# site would)
		cat >"$W/epilogctld.sh" <<SH
#!/bin/sh
SLURM_CONF=$ATTRIB_CLUSTER_DIR/etc/slurm.conf
export SLURM_CONF
t0=\$(date +%s%N)
"$B/plugin/attrib-jobrecord" -d "$W/spool" 2>>"$W/jobrecord.err"
rc=\$?
echo "\${SLURM_JOB_ID:-\$JOBID} \$(( (\$(date +%s%N) - t0) / 1000000 ))" >>"$W/jobrecord.times"
exit \$rc
SH
		chmod 0755 "$W/epilogctld.sh"
		if [ "$JOBRECORD" = jobcompscript ]; then
			export ATTRIB_JOBCOMP=jobcomp/script ATTRIB_JOBCOMP_LOC=$W/epilogctld.sh
		else
			unset ATTRIB_JOBCOMP ATTRIB_JOBCOMP_LOC
			# (after the caller's own lines, when it has some)
			export ATTRIB_SLURM_CONF_EXTRA="${ATTRIB_SLURM_CONF_EXTRA:+$ATTRIB_SLURM_CONF_EXTRA
}EpilogSlurmctld=$W/epilogctld.sh"
		fi
	fi
	export ATTRIB_PLUGSTACK_CONFIG=$W/plugstack.conf ATTRIB_EPILOG=$W/epilog.sh
	for try in $(seq "$tries"); do
		{ [ "$tries" = 1 ] || wait_no_ctld; } && wait_cluster_free ||
			{ bad "no other test cluster runs (waited ${ATTRIB_CLUSTER_WAIT:-900} s)"; finish; }
		started_cluster=1
		cluster_t0=$(date +%s.%N)
		"$CLUSTER" start >"$W/cluster.log" 2>&1 && break
		[ "$tries" = 1 ] || echo "# cluster start $try failed: $(grep -m1 'error: [EU][rn]' "$W/cluster.log")"
		if [ "$try" = "$tries" ]; then
			bad "the test cluster starts with jobcomp/attrib, spank attrib and the Epilog"
			sed 's/^/#   /' "$W/cluster.log" | tail -20
			finish
		fi
		sleep $((10 + RANDOM % 20))
	done
	eval "$("$CLUSTER" env)"
	export ATTRIB_MUNGE_SOCKET
}
# the spank spool W/nodespool/here is bound, in each slurmd's mount namespace,
# to W/nodespool/NODE: every node has its own spool, as on a real cluster
bind_spool() { # node
	local n=$1 pid start
	read -r pid start <"$ATTRIB_CLUSTER_DIR/run/slurmd-$n.ours" 2>/dev/null || return 1
	[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = slurmd ] || return 1	# not yet
	# -r: in slurmd's own root (the cluster may run in a chroot: joining a
	# mount namespace alone would put us at the namespace's real root)
	nsenter -t "$pid" -m -r mount --bind "$W/nodespool/$n" "$W/nodespool/here" || return 1
	[ "$(nsenter -t "$pid" -m -r stat -c %i "$W/nodespool/here")" = "$(stat -c %i "$W/nodespool/$n")" ]
}

# ---- attribd and the collectors' configuration ---------------------------------
pick_port() { # first last: port = the first nothing listens on at the cluster's address; URL
	local p
	port=
	for p in $(seq "$1" "$2"); do
		if ! (exec 3<>"/dev/tcp/$ATTRIB_CLUSTER_CTLD_ADDR/$p") 2>/dev/null; then port=$p; break; fi
	done
	URL=http://$ATTRIB_CLUSTER_CTLD_ADDR:$port
}
# munge_origin_conf: the test cluster's one munged encodes every node's
# credentials with this host's address (a real cluster runs a munged on
# each node): that address is each node's too for the service's check
munge_origin_conf() {
	local o n line=
	o=$(munge -n -S "$ATTRIB_MUNGE_SOCKET" | unmunge -S "$ATTRIB_MUNGE_SOCKET" |
		sed -n 's/^ENCODE_HOST:.*(\([0-9.]*\)).*/\1/p')
	[ -n "$o" ] || return 0
	for n in ${1:-$NODES}; do line="${line:+$line,}$n=$o"; done
	echo "NodeAddresses = $line"
}
service_conf() { # file state-dir <more lines: the service's attrib.conf, listening on port
	{
		cat <<CONF
SpoolDir = $W/spool
StateDir = $2
RulesDir = $SRC/rules
Listen = $ATTRIB_CLUSTER_CTLD_ADDR:$port
LogFile = $W/attrib.log
$(munge_origin_conf)
CONF
		cat
	} >"$1"
}
node_conf() { # node service-url: the node's collector's attrib.conf
	cat >"$W/nodes/$1/attrib.conf" <<CONF
LogSources = kmsg
ServiceURL = $2
NodeSpoolDir = $W/nodespool/$1
CollectTimeout = 3
LogFile = $W/nodes/$1/collect.log
CONF
}
start_service() { # [config]: attribd in the background (spid); 0 once it answers on URL
	"${ATTRIBD:-$(dirname "$A")/attribd}" --config "${1:-$W/attrib.conf}" --foreground 2>>"$W/serve.err" &
	spid=$!
	wait_for 60 curl -sf "$URL/v1/health" -o /dev/null
}
stop_service() { # exit status of attribd (SIGTERM)
	[ -n "$spid" ] || return 0
	kill -TERM "$spid"
	wait "$spid"
	local rc=$?
	spid=
	return $rc
}
service_up() { # ok-text: start_service, else a failed check with its stderr and finish
	if ! start_service; then
		bad "attribd starts on $URL"
		sed 's/^/#   /' "$W/serve.err" | tail -20
		finish
	fi
	ok "$1"
}

# ---- jobs and their diagnoses ---------------------------------------------------------
submit() { # name sbatch-args...: prints the job id
	local name=$1
	shift
	sbatch --parsable -J "$name" -o "$W/out/%x-%j.out" --chdir "$W/out" "$@"
}
# jv FILE EXPR: a value of a JSON file (python expression on r); strings
# bare, everything else as compact JSON
jv() {
	python3 - "$1" "$2" <<'PY' 2>/dev/null
import json, sys
r = json.load(open(sys.argv[1]))
v = eval(sys.argv[2], {"r": r})
print(v if isinstance(v, str) else json.dumps(v, separators=(",", ":")))
PY
}
show_json() { # jobid timeout: waits for the stored diagnosis, into W/show-JOBID.json
	local j=$1 limit=$2 t0
	t0=$(date +%s)
	until "$A" show "$j" --json --config "$W/attrib.conf" >"$W/show-$j.json" 2>/dev/null; do
		[ $(($(date +%s) - t0)) -ge "$limit" ] && return 1
		sleep 0.3
	done
}
comment_of() { sacct -n -P -X -j "$1" -o AdminComment 2>/dev/null | head -n1; }
watch() { echo "$1" >>"$W/watch"; }
seen() { grep -q "^$1 " "$W/seen" 2>/dev/null; }
# watcher (in the background): W/seen gets "JOBID EPOCH" when sacct first
# showed attrib: in the AdminComment of a job of W/watch; polls every
# WATCH_POLL [0.5] s
watcher() {
	local ids id c
	while :; do
		ids=$(paste -sd, "$W/watch" 2>/dev/null)
		if [ -n "$ids" ]; then
			sacct -n -P -X -j "$ids" -o JobID,AdminComment 2>/dev/null |
				while IFS='|' read -r id c; do
					case $c in *attrib:*) seen "$id" || echo "$id $(date +%s.%N)" >>"$W/seen" ;; esac
				done
		fi
		sleep "${WATCH_POLL:-0.5}"
	done
}
start_watcher() { watcher & wpid=$!; }
# the AdminComment as sacct shows it, once the watcher has seen attrib: in it
wait_comment() { # jobid timeout
	wait_for "$2" seen "$1" || return 1
	comment_of "$1"
}
