#!/bin/bash
# doc/admin-guide.md, executed on the test cluster (t/cluster): the guide's
# own configuration lines and commands, taken from the guide, so a wrong
# line in the guide fails this test.  Runs only with ATTRIB_LIVE_TESTS=1
# (else skipped, exit 77); needs root.
#
#   1. the Debian packages: deb/*.deb of the build tree when they are newer
#      than every source they are built from, else `make deb` (without the
#      package build's own test run); installed with dpkg -i (the test
#      cluster's hosts share this machine's file system: one install
#      installs them on every host).  Packages already installed: the test
#      fails and touches nothing.  A trap purges what it installed;
#   2. the guide's marked blocks (a `<!-- guide-test: NAME -->` line right
#      before a fenced block) are extracted and adapted with the
#      substitution list below, then checked against each other and the
#      installed files as the guide says they must agree (JobCompLoc =
#      SpoolDir, spool= = NodeSpoolDir, ServiceURL = Listen, the plugins and
#      the Epilog program installed, attrib.conf accepted by the installed
#      attrib);
#   3. the same check on copies of the guide with one configuration line
#      changed (JobCompLoc, spool=, CommentField, the Epilog path): each must
#      fail -- the proof, without a second cluster run, that the guide's
#      lines are what the test runs;
#   4. the cluster starts with the guide's slurm.conf lines and its
#      plugstack.conf.d file (Debian's plugstack.conf include); the service
#      starts as its installed systemd unit's ExecStart would; the guide's
#      health check runs from a node; five jobs: a Python traceback, a
#      3-node job with an Xid 79 on node-02, a time limit, a cancelled and a
#      successful job, checked in sacct (the guide's sacct line), `attrib
#      show` (text and JSON: the installed catalog named) and the service's
#      log; the guide's drain, `sinfo -R -o '%N %E'` and the undo of the
#      drain; the guide's site rule and `attrib rules check` with its
#      printed sample output;
#   5. stops the service (SIGTERM, exit 0) and the cluster, purges the
#      packages and checks that nothing of them is left.
#
# The substitution list (the only differences between the guide and this
# run; every one is applied to every extracted block, in this order):
#   10.0.0.1:7411            -> the cluster's bridge address, a free port
#                               (the service host's management address)
#   /var/spool/attrib/node   -> W/nodespool/here, bound per node to
#                               W/nodespool/NODE in each slurmd's mount
#                               namespace (NodeSpoolDir is per node)
#   /var/spool/attrib        -> W/spool (JobCompLoc = SpoolDir)
#   /var/lib/attrib          -> W/state (what systemd's StateDirectory= makes)
#   /var/log/slurm/slurmctld.log -> the cluster's slurmctld log
#   /etc/slurm/plugstack.conf.d  -> W/plugstack.conf.d
#   /etc/attrib-rules        -> W/attrib-rules
#   (the file the guide's plugstack.conf.d command copies is adapted too)
#   LogSources = ...         -> LogSources = kmsg: each node's kernel ring is
#                               a test file of /dev/kmsg records
#                               (ATTRIB_COLLECT_KMSG), where the GPU job's
#                               rank writes its Xid
#   4242, JOBID              -> the job the command is about
#   attrib show|drain|list|nodes -> with --config W/attrib.conf (the guide's
#                               commands read /etc/slurm/attrib.conf)
# and two additions: the service's attrib.conf gets NodeAddresses (the test
# cluster has one munged for every node, t/cluster/pipeline.sh), and
# slurmd runs Epilog=PROGRAM through W/epilog.sh, which sets the node's
# fake kernel ring and ATTRIB_CONF=W/attrib.conf (the guide's service and
# node halves in one file, as the guide allows) and execs PROGRAM.
#
# Last line: "N passed, N failed".  Takes about 2.5 minutes with fresh
# packages (the time-limit job sets the pace), 1.5 more to build them.
#
#   ATTRIB, SRCDIR, ATTRIB_BUILDDIR  as for the other live tests
#   ATTRIB_GUIDE                    the guide [SRCDIR/doc/admin-guide.md]
#   ATTRIB_GUIDE_CLUSTER_DIR        cluster state [/tmp/attrib-cluster-guide]
#   ATTRIB_CLUSTER_WAIT             seconds to wait for another test cluster [900]
#   ATTRIB_LIVE_KEEP=1              keep the temporary directory
set -u

[ "${ATTRIB_LIVE_TESTS:-0}" = 1 ] || { echo "SKIP: set ATTRIB_LIVE_TESTS=1 to run on the test cluster"; exit 77; }

A=${ATTRIB:-./attrib}
case $A in /*) ;; *) A=$(pwd)/$A ;; esac
SRC=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
export ATTRIB_CLUSTER_DIR=${ATTRIB_GUIDE_CLUSTER_DIR:-/tmp/attrib-cluster-guide}
. "$SRC/t/cluster/pipeline.sh"
. "$SRC/t/lib/guide.sh"	# guide_block
GUIDE=${ATTRIB_GUIDE:-$SRC/doc/admin-guide.md}
PLUGINDIR=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)/slurm-wlm

pipeline_workdir attrib-live-guide
require_root_and slurmctld slurmd slurmdbd sbatch sacct scontrol sinfo scancel nsenter curl python3 dpkg dpkg-deb
# the installed programs, with the installed catalog and a cache of their own
unset ATTRIB_RULES
export ATTRIB_CACHE=$W/cache

# ---- packages ------------------------------------------------------------------
PKGS=''
purge_packages() {
	[ -n "$PKGS" ] || return 0
	# shellcheck disable=SC2086
	dpkg --purge $PKGS >"$W/purge.log" 2>&1
	PKGS=''
}
trap 'cleanup; purge_packages' EXIT

debs_fresh() { # the build tree's deb/*.deb, newer than every source they are built from
	local oldest newer
	ls "$B"/deb/*.deb >/dev/null 2>&1 || return 1
	oldest=$(ls -tr "$B"/deb/*.deb | head -n1)
	newer=$(cd "$SRC" && git ls-files 2>/dev/null | grep -Ev '^(t|bench|fuzz|hardening)/|\.md$' |
		while read -r f; do [ "$f" -nt "$oldest" ] && echo "$f"; done | head -n3)
	[ -z "$newer" ] && [ -n "$(cd "$SRC" && git ls-files 2>/dev/null | head -n1)" ] && return 0
	echo "# deb/ is older than: $newer" | paste -sd' '
	return 1
}
t=$(date +%s.%N)
if debs_fresh; then
	note "reusing $(ls "$B"/deb/*.deb | wc -l) packages of $B/deb"
else
	note "building the packages (make deb, without the package build's test run)"
	if ! (unset MAKEFLAGS MFLAGS MAKELEVEL; DEB_BUILD_OPTIONS="nocheck parallel=2" ${MAKE:-make} -C "$B" deb) >"$W/deb.log" 2>&1; then
		bad "make deb builds the packages"
		tail -20 "$W/deb.log" | sed 's/^/#   /'
		finish
	fi
	ok "make deb builds the packages ($(since "$t") s)"
fi
DEBS=$(ls "$B"/deb/*.deb | grep -v -- '-dbgsym_')
names=''
for d in $DEBS; do names="$names $(dpkg-deb -f "$d" Package)"; done
# the machine's one test cluster is ours before anything is installed, until
# everything is purged: no other live test runs beside the packages
wait_cluster_free || { bad "no other test cluster runs (waited ${ATTRIB_CLUSTER_WAIT:-900} s)"; finish; }
note "the test cluster is ours"
claimed=$(date +%s.%N)
pre=''
for p in $names; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q ' installed$' && pre="$pre $p"
done
if [ -n "$pre" ]; then
	bad "none of the packages is installed before the test (installed:$pre; left alone)"
	finish
fi
# shellcheck disable=SC2086
PKGS=$names
if dpkg -i $DEBS >"$W/dpkg.log" 2>&1; then
	ok "dpkg -i installs$names"
else
	bad "dpkg -i installs$names"
	tail -20 "$W/dpkg.log" | sed 's/^/#   /'
	finish
fi
ATTRIB_BIN=$(command -v attrib)
check "attrib is installed as /usr/bin/attrib" test "$ATTRIB_BIN" = /usr/bin/attrib
UNIT=$(dpkg -L $names 2>/dev/null | grep -m1 '/systemd/system/.*\.service$')
check "a package installs the service's systemd unit ($UNIT)" test -f "$UNIT"

# ---- the guide's blocks --------------------------------------------------------
subst() { # the substitution list (above); JOB: the job of "4242"
	sed -e "s|10\.0\.0\.1:7411|$ADDR:$port|g" \
		-e "s|/var/spool/attrib/node|$W/nodespool/here|g" \
		-e "s|/var/spool/attrib|$W/spool|g" \
		-e "s|/var/lib/attrib|$W/state|g" \
		-e "s|/var/log/slurm/slurmctld\.log|$ATTRIB_CLUSTER_DIR/log/slurmctld.log|g" \
		-e "s|/etc/slurm/plugstack\.conf\.d|$W/plugstack.conf.d|g" \
		-e "s|/etc/attrib-rules|$W/attrib-rules|g" \
		-e "s|^LogSources *=.*|LogSources = kmsg|" \
		-e "s#^attrib \(show\|drain\|list\|nodes\) #attrib \1 --config $W/attrib.conf #" | job_subst
}
job_subst() { # the job of "4242" (a block subst adapted already: this alone)
	sed -e "s|\b4242\b|${JOB:-4242}|g" -e "s|\bJOBID\b|${JOB:-JOBID}|g"
}
conf_value() { # FILE KEY: the value of "KEY = value" / "KEY=value" (comment cut)
	sed -n "s/^$2 *= *//p" "$1" | sed 's/ *#.*//' | tail -n1
}
BLOCKS="slurm.conf|plugstack.conf|plugstack.conf.d|attrib.conf service|attrib.conf nodes|health|sacct|drain|undrain|rules copy|80-site.yaml|rules check|collect print"
# guide_config GUIDE DIR: extracts and adapts every block into DIR (one file a
# block, the name's blanks as -), DIR/attrib.conf the two halves and
# NodeAddresses; then checks them as the guide says they must agree.
# Prints why it fails.
guide_config() {
	local g=$1 d=$2 name f v loc spool nspool plug prog url listen
	rm -rf "$d" && mkdir -p "$d"
	while IFS= read -r name; do
		f=$d/$(echo "$name" | tr ' ' -)
		guide_block "$g" "$name" | subst >"$f"
		[ -s "$f" ] || { echo "no block '$name' in the guide"; return 1; }
	done < <(echo "$BLOCKS" | tr '|' '\n')
	{
		cat "$d/attrib.conf-service" "$d/attrib.conf-nodes"
		[ -S "$ATTRIB_MUNGE_SOCKET" ] && munge_origin_conf
	} >"$d/attrib.conf"
	# slurm.conf
	v=$(conf_value "$d/slurm.conf" JobCompType)
	[ "$v" = jobcomp/attrib ] || { echo "slurm.conf: JobCompType=$v, not jobcomp/attrib"; return 1; }
	[ -f "$PLUGINDIR/jobcomp_attrib.so" ] || { echo "no $PLUGINDIR/jobcomp_attrib.so installed"; return 1; }
	loc=$(conf_value "$d/slurm.conf" JobCompLoc)
	spool=$(conf_value "$d/attrib.conf" SpoolDir)
	[ -n "$loc" ] && [ "$loc" = "$spool" ] || { echo "JobCompLoc ($loc) is not SpoolDir ($spool)"; return 1; }
	prog=$(conf_value "$d/slurm.conf" Epilog)
	[ -x "$prog" ] && dpkg -S "$prog" >/dev/null 2>&1 ||
		{ echo "Epilog=$prog is not an installed program"; return 1; }
	# plugstack.conf
	read -r v plug nspool <"$d/plugstack.conf"
	[ "$v" = optional ] || { echo "plugstack.conf: '$v', not optional"; return 1; }
	case $plug in /*) ;; *) plug=$PLUGINDIR/$plug ;; esac
	[ -f "$plug" ] || { echo "plugstack.conf: no $plug installed"; return 1; }
	[ "${nspool#spool=}" = "$(conf_value "$d/attrib.conf" NodeSpoolDir)" ] ||
		{ echo "plugstack.conf: $nspool is not NodeSpoolDir ($(conf_value "$d/attrib.conf" NodeSpoolDir))"; return 1; }
	# the packaged example is the guide's line
	v=$(grep -v '^#' "$(awk '/^cp /{ print $2 }' "$d/plugstack.conf.d")" 2>/dev/null | subst)
	[ "$v" = "$(cat "$d/plugstack.conf")" ] ||
		{ echo "the packaged plugstack example is not the guide's line: $v"; return 1; }
	# attrib.conf: the installed attrib accepts it (1: invalid; 4: no store yet)
	"$ATTRIB_BIN" list --config "$d/attrib.conf" >/dev/null 2>"$d/conf.err"
	[ $? = 1 ] && { echo "attrib.conf refused: $(head -n2 "$d/conf.err" | paste -sd' ')"; return 1; }
	url=$(conf_value "$d/attrib.conf" ServiceURL)
	listen=$(conf_value "$d/attrib.conf" Listen)
	[ "$url" = "http://$listen" ] || { echo "ServiceURL ($url) is not Listen ($listen)"; return 1; }
	return 0
}

# ---- the cluster's address first (the blocks name it), then the checks ---------------
ADDR=$CLUSTER_SUBNET.1	# the cluster's bridge (t/cluster/lib.sh)
port=27480	# (chosen again once the cluster runs)
ATTRIB_MUNGE_SOCKET=$ATTRIB_CLUSTER_DIR/munge/munge.sock	# (NodeAddresses: once its munged runs)
pipeline_dirs
if why=$(guide_config "$GUIDE" "$W/g" 2>&1); then
	ok "the guide's blocks agree with each other and the installed packages"
else
	bad "the guide's blocks agree with each other and the installed packages: $why"
fi

# ---- the mutation check: one line changed in a copy, and the check must fail -----------
mutate() { # what sed-expression
	sed -e "$2" "$GUIDE" >"$W/mutant.md"
	if cmp -s "$GUIDE" "$W/mutant.md"; then
		bad "mutation '$1' changes the guide"
		return
	fi
	local why
	if why=$(guide_config "$W/mutant.md" "$W/m" 2>&1); then
		bad "a guide with $1 fails the check"
	else
		ok "a guide with $1 fails the check ($why)"
	fi
}
mutate "JobCompLoc changed" 's|^JobCompLoc=/var/spool/attrib$|JobCompLoc=/var/spool/attrib-jobs|'
mutate "spool= changed" 's|^optional spank_attrib.so spool=/var/spool/attrib/node|optional spank_attrib.so spool=/var/spool/attrib/nodes|'
mutate "a bad CommentField" 's|^CommentField = AdminComment |CommentField = AdminComments |'
mutate "another Epilog path" 's|^Epilog=/usr/sbin/attrib-collect$|Epilog=/usr/bin/attrib-collect|'
mutate "ServiceURL on another port" 's|^ServiceURL = http://10.0.0.1:7411|ServiceURL = http://10.0.0.1:7412|'

# ---- the cluster, with the guide's slurm.conf and plugstack.conf.d -----------------------
G=$W/g
for n in $NODES; do
	{
		boot_log "$n"
		kmsg_record "usb 1-1: new high-speed USB device number 2 using xhci_hcd" 20
	} >"$W/nodes/$n/kmsg"
done
EPILOG_PROG=$(conf_value "$G/slurm.conf" Epilog)
cat >"$W/epilog.sh" <<EOF
#!/bin/sh
# slurmd's Epilog: the guide's Epilog program with the node's fake kernel
# ring and the test's attrib.conf
n=\${SLURMD_NODENAME:-\$(hostname)}
ATTRIB_COLLECT_KMSG=$W/nodes/\$n/kmsg ATTRIB_CONF=$W/attrib.conf
export ATTRIB_COLLECT_KMSG ATTRIB_CONF
exec "$EPILOG_PROG" >>"$W/nodes/\$n/epilog.out" 2>&1
EOF
chmod 0755 "$W/epilog.sh"
# Debian's plugstack.conf (slurmd's package) and the guide's cp into its directory
mkdir -p "$W/plugstack.conf.d"
subst </etc/slurm/plugstack.conf >"$W/plugstack.conf" 2>/dev/null
check "Debian's plugstack.conf includes plugstack.conf.d (adapted: $(cat "$W/plugstack.conf"))" \
	grep -qx "include $W/plugstack.conf.d/\*.conf" "$W/plugstack.conf"
check "the guide's plugstack.conf.d command runs" sh -e "$G/plugstack.conf.d"
for f in "$W"/plugstack.conf.d/*.conf; do	# the copy, adapted as every block is
	subst <"$f" >"$f.new" && mv "$f.new" "$f"
done
export ATTRIB_JOBCOMP ATTRIB_JOBCOMP_LOC ATTRIB_EPILOG=$W/epilog.sh ATTRIB_PLUGSTACK_CONFIG=$W/plugstack.conf
ATTRIB_JOBCOMP=$(conf_value "$G/slurm.conf" JobCompType)
ATTRIB_JOBCOMP_LOC=$(conf_value "$G/slurm.conf" JobCompLoc)
ATTRIB_SLURM_CONF_EXTRA=$(grep -Ev '^(JobCompType|JobCompLoc|Epilog)=|^#|^$' "$G/slurm.conf")
export ATTRIB_SLURM_CONF_EXTRA
unset ATTRIB_PLUGIN_DIR	# Slurm's own PluginDir: the installed plugins
started_cluster=1
cluster_t0=$(date +%s.%N)
if ! "$CLUSTER" start >"$W/cluster.log" 2>&1; then
	bad "the test cluster starts with the guide's slurm.conf and plugstack.conf"
	sed 's/^/#   /' "$W/cluster.log" | tail -20
	finish
fi
eval "$("$CLUSTER" env)"
export ATTRIB_MUNGE_SOCKET
ok "the test cluster starts with the guide's slurm.conf and plugstack.conf ($(since "$cluster_t0") s)"
check "slurmctld loaded the installed jobcomp/attrib" \
	grep -qF "jobcomp/attrib: job records go to $W/spool/jobs" "$ATTRIB_CLUSTER_LOGDIR/slurmctld.log"
allbound=1
for n in $NODES; do bind_spool "$n" || allbound=; done
check "each node's NodeSpoolDir is its own (bind mount in its namespace)" test -n "$allbound"

# ---- the service, as its unit starts it ------------------------------------------------------
[ "$ADDR" = "$ATTRIB_CLUSTER_CTLD_ADDR" ] || bad "the cluster's address is $ADDR (is $ATTRIB_CLUSTER_CTLD_ADDR)"
pick_port 27480 27520
# again, with the port and the cluster's munged (NodeAddresses)
check "the guide's blocks, adapted to the running cluster, agree" guide_config "$GUIDE" "$G"
cp "$G/attrib.conf" "$W/attrib.conf"
chmod 0644 "$W/attrib.conf"
check "the service's attrib.conf has the cluster's NodeAddresses" grep -q '^NodeAddresses = node-01=' "$W/attrib.conf"
chmod 0700 "$W/state"
EXEC=$(sed -n 's/^ExecStart=//p' "$UNIT" | sed "s|/etc/slurm/attrib.conf|$W/attrib.conf|")
note "ExecStart: $EXEC"
# shellcheck disable=SC2086
$EXEC 2>>"$W/attrib.log" &
spid=$!
URL=http://$ADDR:$port
if wait_for 60 curl -sf "$URL/v1/health" -o /dev/null; then
	ok "the service starts as its unit's ExecStart ($UNIT)"
else
	bad "the service starts as its unit's ExecStart ($UNIT)"
	sed 's/^/#   /' "$W/attrib.log" | tail -20
	finish
fi
hc=$(grep -v '^#' "$G/health" | head -n1)
"$CLUSTER" exec node-01 sh -c "$hc" >"$W/health.out" 2>&1
check "the guide's health check answers from node-01 ($hc: $(head -c 80 "$W/health.out"))" \
	sh -c "[ -s '$W/health.out' ] && ! grep -qi 'error\|refused' '$W/health.out'"
start_watcher

# ---- five jobs ---------------------------------------------------------------------------------
started() { [ "$(find "$W/started" -name "$1.*" 2>/dev/null | wc -l)" -ge "$2" ]; }	# t/live/rank.sh's marks
jt=$(submit timeout -N1 -n1 -w node-01 --time=1 --wrap "srun $RANK sleep $W")
watch "$jt"
cat >"$W/out/train.py" <<'PY'
# a training script whose data lacks a field: a Python traceback
import json
examples = [json.loads('{"text": "hello"}')]
labels = [ex["labels"] for ex in examples]
PY
jp=$(submit traceback -N1 -n1 -w node-03 --wrap "srun python3 $W/out/train.py")
jg=$(submit gpufault -N3 -n6 -O --gres=gpu:2 --wrap "srun --label $RANK gpu-fault $W")
jc=$(submit completed -N3 -n3 -O --wrap "srun --label $RANK ok $W")
jx=$(submit cancelled -N2 -n2 -O -w node-01,node-03 --wrap "srun --label $RANK sleep $W")
for j in "$jp" "$jg" "$jc" "$jx"; do watch "$j"; done
note "jobs: time limit $jt, traceback $jp, GPU fault $jg, completed $jc, cancelled $jx"
if wait_for 90 started "$jx" 2; then scancel "$jx"; else bad "job $jx starts its ranks"; scancel "$jx"; fi
check "traceback: job $jp ends FAILED" test "$(sacct_final "$jp")" = FAILED
check "GPU fault: job $jg ends FAILED" test "$(sacct_final "$jg")" = FAILED
check "completed: job $jc ends COMPLETED" test "$(sacct_final "$jc")" = COMPLETED
check "cancelled: job $jx ends CANCELLED" sh -c "case '$(sacct_final "$jx")' in CANCELLED*) ;; *) exit 1 ;; esac"

# ---- the diagnoses, through the installed attrib --------------------------------------------------
A=$ATTRIB_BIN	# show_json's attrib
sub() { jv "$W/show-$1.json" 'r["sub_domain"]'; }
if show_json "$jg" 120; then
	check "GPU fault: attrib show --json: InfraHW, culprit node-02, root cause xid.79" \
		test "$(sub "$jg") $(jv "$W/show-$jg.json" 'r["culprit_nodes"]') $(jv "$W/show-$jg.json" 'r["root_cause"]["code"]')" \
		= 'InfraHW ["node-02"] xid.79'
	check "GPU fault: the diagnosis names the installed catalog" \
		test "$(jv "$W/show-$jg.json" 'r["catalog"]')" = /usr/share/attrib/rules
	"$ATTRIB_BIN" show --config "$W/attrib.conf" "$jg" >"$W/show-$jg.txt" 2>&1
	check "GPU fault: attrib show (text) has the Xid line and the catalog" \
		sh -c "grep -q 'NVRM: Xid (PCI:0000:3b:00): 79' '$W/show-$jg.txt' && grep -q '^Rules  *$(printf %s /usr/share/attrib/rules)$' '$W/show-$jg.txt'"
else
	bad "GPU fault: job $jg has a stored diagnosis"
fi
wait_comment "$jg" 120 >/dev/null
JOB=$jg
sed 's/#.*//' "$G/sacct" | job_subst | grep . | while IFS= read -r line; do bash -c "$line"; done >"$W/sacct.out" 2>&1
JOB=''
echo "# the guide's sacct line: $(tail -n1 "$W/sacct.out")"
check "GPU fault: the guide's sacct line shows 'attrib: InfraHW node-02 xid.79'" \
	grep -q "^ *$jg .*FAILED .*attrib: InfraHW node-02 xid\.79 " "$W/sacct.out"

# the guide's troubleshooting command for "GPU faults not seen", on node-02
# as its Epilog runs (the node's kernel ring, the test's attrib.conf)
JOB=$jg
pc=$(grep -v '^#' "$G/collect-print" | job_subst | head -n1)
JOB=''
"$CLUSTER" exec node-02 sh -c "ATTRIB_CONF=$W/attrib.conf ATTRIB_COLLECT_KMSG=$W/nodes/node-02/kmsg; export ATTRIB_CONF ATTRIB_COLLECT_KMSG; $pc" >"$W/collect-print.out" 2>&1
check "the guide's '$pc' on node-02 shows a file of origin kernel" grep -q '"origin": "kernel"' "$W/collect-print.out"
if show_json "$jp" 120; then
	check "traceback: UserCode, no culprit ($(sub "$jp") $(jv "$W/show-$jp.json" 'r["culprit_nodes"]'))" \
		test "$(sub "$jp") $(jv "$W/show-$jp.json" 'r["culprit_nodes"]')" = 'UserCode []'
	check "traceback: the diagnosis cites KeyError: 'labels'" grep -q "KeyError: 'labels'" "$W/show-$jp.json"
else
	bad "traceback: job $jp has a stored diagnosis"
fi
check "traceback: AdminComment 'attrib: UserCode ...'" grep -q '^attrib: UserCode' <<<"$(wait_comment "$jp" 120)"
if show_json "$jx" 120; then
	check "cancelled: SchedCancelled" test "$(sub "$jx")" = SchedCancelled
else
	bad "cancelled: job $jx has a stored diagnosis"
fi
check "cancelled: AdminComment 'attrib: SchedCancelled ...'" grep -q '^attrib: SchedCancelled' <<<"$(wait_comment "$jx" 120)"
check "completed: the service saw job $jc and made no diagnosis" \
	wait_for 60 grep -q "job $jc attempt 0 ended COMPLETED: not in AttributeStates" "$W/attrib.log"
"$ATTRIB_BIN" show --config "$W/attrib.conf" "$jc" >/dev/null 2>&1
check "completed: attrib show $jc exits 4" test $? = 4

# ---- the guide's drain, and its undo ------------------------------------------------------------
JOB=$jg
i=0
while IFS= read -r line; do
	i=$((i + 1))
	bash -c "$line" >"$W/drain.$i.out" 2>&1
	check "the guide's drain command $i exits 0 ($line)" test $? = 0
done < <(grep -v '^#' "$G/drain" | job_subst | grep .)
JOB=''
r=$(sinfo -h -R -n node-02 -o '%E' 2>/dev/null)
echo "# sinfo -R: node-02: $r"
check "node-02 is drained with attrib's reason naming the device and job $jg" \
	sh -c "case '$r' in 'attrib: '*PCI:0000:3b:00*'(job $jg)') ;; *) exit 1 ;; esac"
sinfo_line=$(grep -v '^#' "$G/undrain" | sed -n 1p)
bash -c "$sinfo_line" >"$W/sinfo-R.out" 2>&1
check "the guide's '$sinfo_line' shows node-02 with the whole reason" \
	grep -qxF "node-02 $r" "$W/sinfo-R.out"
check "...longer than sinfo -R's 20 characters" test "${#r}" -gt 20
resume=$(grep -v '^#' "$G/undrain" | sed -n 2p)
bash -c "$resume" >"$W/resume.out" 2>&1
check "the guide's undo ($resume) exits 0" test $? = 0
check "node-02 is no longer drained" wait_for 60 sh -c "[ -z \"\$(sinfo -h -R -n node-02 -o %N)\" ]"

# ---- the time limit ---------------------------------------------------------------------------
check "time limit: job $jt ends TIMEOUT" test "$(sacct_final "$jt" 120)" = TIMEOUT
if show_json "$jt" 120; then
	check "time limit: SchedTimeLimit" test "$(sub "$jt")" = SchedTimeLimit
else
	bad "time limit: job $jt has a stored diagnosis"
fi
check "time limit: AdminComment 'attrib: SchedTimeLimit ...'" grep -q '^attrib: SchedTimeLimit' <<<"$(wait_comment "$jt" 120)"

# ---- the guide's site rule and its check ---------------------------------------------------------------
bash -e "$G/rules-copy" >"$W/rules-copy.out" 2>&1
check "the guide's copy of the installed catalog" test -f "$W/attrib-rules/00-base.yaml"
cp "$G/80-site.yaml" "$W/attrib-rules/80-site.yaml"
cmd=$(grep -v '^#' "$G/rules-check" | head -n1)
want=$(sed -n 's/^# //p' "$G/rules-check" | head -n1)
bash -c "$cmd" >"$W/rules-check.out" 2>&1
# (counts included: the packages hold the tree's catalog, which
# t/guide-rules.sh holds to the guide's sample without a cluster)
check "the guide's '$cmd' prints what the guide shows ($(tail -n1 "$W/rules-check.out"))" \
	test "$(tail -n1 "$W/rules-check.out")" = "$want"

# ---- stop, purge, nothing left -------------------------------------------------------------------------
check "SIGTERM stops the service (exit 0)" stop_service
kill "$wpid" 2>/dev/null && wait "$wpid" 2>/dev/null
wpid=''
# one job, one truth, with the installed attrib (before the purge)
stored_is_analyzed "$W/state" "$W/attrib.conf" "$ATTRIB_BIN"
truth_checked=1
"$CLUSTER" stop >/dev/null 2>&1
started_cluster=''
purge_packages
left=''
for p in $names; do dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'installed' && left="$left $p"; done
check "dpkg --purge removed every package it installed" test -z "$left"
check "no installed catalog is left (/usr/share/attrib)" test ! -e /usr/share/attrib
check "no installed plugin is left" test ! -e "$PLUGINDIR/jobcomp_attrib.so" -a ! -e "$PLUGINDIR/spank_attrib.so"
note "$(since "$claimed") s from the cluster's claim to the purge"

finish
