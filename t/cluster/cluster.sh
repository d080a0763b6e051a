#!/bin/bash
# Test Slurm cluster on one machine, for attrib's integration tests.
#
#   t/cluster/cluster.sh start|stop|status|env
#   t/cluster/cluster.sh killnode NODE     # SIGKILL that node's slurmd (-> NODE_FAIL)
#   t/cluster/cluster.sh startnode NODE    # start that node's slurmd again
#   t/cluster/cluster.sh exec NODE CMD...  # run CMD inside NODE's namespaces
#
# Everything lives under one state directory, ${ATTRIB_CLUSTER_DIR:-/tmp/attrib-cluster}:
#   munge/   munged with its own key, socket, pid, log and seed file
#   db/      MariaDB datadir, socket, pid and log (TCP on 127.0.0.1, free port)
#   etc/     slurm.conf, slurmdbd.conf, per-node /etc/hosts
#   log/     slurmctld.log, slurmdbd.log, slurmd-node-NN.log, *.out (stdout/err)
#   run/     pid files
#   spool/   StateSaveLocation (ctld) and SlurmdSpoolDir (per node)
#
# Topology (needs root): each slurmd runs in its own network namespace
# (attrib-node-NN; instance N: attribN-node-NN) and UTS namespace (hostname
# node-NN) and mount namespace (only to bind the cluster's own /etc/hosts),
# joined by veth pairs to a bridge attrib-brN (instance N) in the root
# namespace that holds ${SUBNET}.1/24.  Nodes
# are ${SUBNET}.11, .12, ...  slurmctld runs in the root network namespace
# (own UTS namespace, hostname attrib-ctl) and listens on ${SUBNET}.1;
# slurmdbd, MariaDB and munged run in the root namespace.  Nothing routes
# out of the nodes' namespaces: they have no default route.
#
# Environment (all optional):
#   ATTRIB_CLUSTER_DIR      state directory             [/tmp/attrib-cluster]
#   ATTRIB_CLUSTER_INSTANCE 0..9: the names (namespaces, bridge, subnet,
#                           claim: t/cluster/lib.sh) of a cluster that may
#                           run beside the other instances' [0]
#   ATTRIB_CLUSTER_NODES    number of nodes (1..9)      [3]
#   ATTRIB_CLUSTER_SUBNET   first three octets          [10.251.INSTANCE]
#   ATTRIB_CLUSTER_TIMEOUT  seconds to wait for idle    [60]
#   ATTRIB_CLUSTER_GPUS     fake gres/gpu per node (see write_conf; 0 = none) [2]
#   ATTRIB_JOBCOMP          JobCompType                 [jobcomp/none]
#   ATTRIB_JOBCOMP_LOC      JobCompLoc                  [unset]
#   ATTRIB_PLUGIN_DIR       prepended to PluginDir      [unset]
#   ATTRIB_EPILOG           Epilog=                     [unset]
#   ATTRIB_PROLOG           Prolog=                     [unset]
#   ATTRIB_PLUGSTACK_CONFIG PlugStackConfig=            [unset]
#   ATTRIB_SLURM_DEBUG      SlurmctldDebug/SlurmdDebug  [info]
#   ATTRIB_SLURM_CONF_EXTRA lines appended verbatim to slurm.conf [unset]
set -euo pipefail

D=${ATTRIB_CLUSTER_DIR:-/tmp/attrib-cluster}
NNODES=${ATTRIB_CLUSTER_NODES:-3}
# the instance's names: CLUSTER_PREFIX, CLUSTER_BRIDGE, CLUSTER_SUBNET
. "$(dirname "$0")/lib.sh"
export ATTRIB_CLUSTER_INSTANCE	# (in the daemons' environment: lib.sh's ctld_of_instance)
SUBNET=$CLUSTER_SUBNET
TIMEOUT=${ATTRIB_CLUSTER_TIMEOUT:-60}
GPUS=${ATTRIB_CLUSTER_GPUS:-2}
CLUSTER=attribtest
PARTITION=gpu
BRIDGE=$CLUSTER_BRIDGE
CTL_NAME=attrib-ctl
CTL_ADDR=$SUBNET.1
MARKER=.attrib-cluster

export PATH=$PATH:/usr/sbin:/sbin

die() { printf 'cluster: error: %s\n' "$*" >&2; exit 1; }
log() { printf 'cluster: %s\n' "$*" >&2; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

case $NNODES in [1-9]) ;; *) die "ATTRIB_CLUSTER_NODES must be 1..9" ;; esac

nodes() { local i; for i in $(seq 1 "$NNODES"); do printf 'node-%02d\n' "$i"; done; }
node_index() { local n=${1#node-}; echo $((10#$n)); }
netns_of() { echo "$CLUSTER_PREFIX-$1"; }          # attrib-node-01 (instance 0)
veth_of() { echo "$CLUSTER_PREFIX-v$(node_index "$1")"; }
addr_of() { echo "$SUBNET.$((10 + $(node_index "$1")))"; }

# D must be absolute: it is written into configs and used from other namespaces
case $D in /*) ;; *) D=$(pwd)/$D ;; esac

plugin_dir_default() {
    local d
    for d in /usr/lib/x86_64-linux-gnu/slurm-wlm /usr/lib/*/slurm-wlm /usr/lib64/slurm /usr/lib/slurm; do
        [ -e "$d/auth_munge.so" ] && { echo "$d"; return; }
    done
    die "cannot find Slurm's plugin directory (is slurm-wlm-basic-plugins installed?)"
}

need() {
    local c missing=
    for c in "$@"; do command -v "$c" >/dev/null 2>&1 || missing="$missing $c"; done
    [ -z "$missing" ] || die "missing commands:$missing (see t/cluster/README.md for the packages)"
}

# ---- process bookkeeping ----------------------------------------------------
# Every daemon we start is recorded in $D/run/NAME.ours as "PID STARTTIME"
# (STARTTIME: field 22 of /proc/PID/stat, fixed for a process's life, even
# across exec).  A record is trusted only while that very process lives: a
# reused pid has another start time, so stop never signals a stranger.  (The
# daemons' own pid files are not used for this: between fork and exec a pid
# still runs the wrapper -- setsid, unshare, nsenter, sh.)
proc_stat() { # pid -> "STATE STARTTIME"
    local st
    st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    st=${st##*) }      # drop "pid (comm) "; comm may hold blanks
    # shellcheck disable=SC2086
    set -- $st
    echo "$1 ${20}"
}

record() { # name pid
    local st
    st=$(proc_stat "$2") || st="X 0"
    echo "$2 ${st#* }" >"$D/run/$1.ours"
}

ours_alive() { # name -> prints the pid if that recorded process still runs
    local f=$D/run/$1.ours pid start st
    [ -s "$f" ] || return 1
    read -r pid start <"$f" || return 1
    case $pid in '' | *[!0-9]*) return 1 ;; esac
    st=$(proc_stat "$pid") || return 1
    [ "${st#* }" = "$start" ] || return 1     # pid reused by someone else
    [ "${st%% *}" != Z ] || return 1          # dead, not yet reaped
    echo "$pid"
}

stop_ours() { # name
    local pid i
    pid=$(ours_alive "$1") || { rm -f "$D/run/$1.ours"; return 0; }
    kill -TERM "$pid" 2>/dev/null || true
    # 30 s: slurmctld's plugins may take 10 s to finish (jobcomp/attrib
    # drains its queue for 5 s and waits 5 s more for a write), longer on a
    # loaded machine; a KILL loses what they would still have logged
    for i in $(seq 1 300); do
        ours_alive "$1" >/dev/null || break
        sleep 0.1
    done
    if ours_alive "$1" >/dev/null; then
        log "$1 ($pid) did not stop on TERM within 30 s; KILL"
        kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$D/run/$1.ours"
}

# every process in a network namespace we created is ours
kill_netns_procs() { # netns
    local ns=$1 pids i
    [ -e "/run/netns/$ns" ] || return 0
    pids=$(ip netns pids "$ns" 2>/dev/null || true)
    [ -n "$pids" ] || return 0
    # shellcheck disable=SC2086 # a list of pids
    kill -TERM $pids 2>/dev/null || true
    for i in $(seq 1 30); do
        pids=$(ip netns pids "$ns" 2>/dev/null || true)
        [ -n "$pids" ] || return 0
        sleep 0.1
    done
    # shellcheck disable=SC2086
    kill -KILL $pids 2>/dev/null || true
    sleep 0.2
}

free_port() { # start
    local p=$1 used
    used=" $(ss -Htan 2>/dev/null | awk '{print $4}' | sed 's/.*://' | sort -u | tr '\n' ' ') "
    while case $used in *" $p "*) true ;; *) false ;; esac; do p=$((p + 1)); done
    echo "$p"
}

# Poll COMMAND until it succeeds; give up after SECONDS, or at once when it
# returns 2 (= will never succeed).  DESCRIPTION is for the reader only.
wait_for() { # seconds description command...
    local secs=$1 t0 rc
    shift 2
    t0=$(date +%s)
    while :; do
        rc=0
        "$@" >/dev/null 2>&1 || rc=$?
        [ "$rc" -ne 0 ] || return 0
        [ "$rc" -ne 2 ] || return 1
        [ $(($(date +%s) - t0)) -lt "$secs" ] || return 1
        sleep 0.1
    done
}

# ---- network -----------------------------------------------------------------
# What we create is recorded with its identity -- "NAME INODE" for a
# namespace (the nsfs inode of /run/netns/NAME), "NAME IFINDEX" for the
# bridge -- and torn down only if the object of that name is still the one we
# made, so stopping one state dir never touches another cluster's network.
ns_id() { stat -L -c %i "/run/netns/$1" 2>/dev/null; }
link_id() { cat "/sys/class/net/$1/ifindex" 2>/dev/null; }

net_up() {
    local n ns veth
    ip link add "$BRIDGE" type bridge
    echo "$BRIDGE $(link_id "$BRIDGE")" >"$D/run/bridge"
    ip addr add "$CTL_ADDR/24" dev "$BRIDGE"
    ip link set "$BRIDGE" up
    for n in $(nodes); do
        ns=$(netns_of "$n")
        veth=$(veth_of "$n")
        ip netns add "$ns"
        echo "$ns $(ns_id "$ns")" >>"$D/run/netns"
        # the veth pair goes away with the namespace
        ip link add "$veth" type veth peer name eth0 netns "$ns"
        ip link set "$veth" master "$BRIDGE" up
        ip -n "$ns" link set lo up
        ip -n "$ns" addr add "$(addr_of "$n")/24" dev eth0
        ip -n "$ns" link set eth0 up
    done
}

net_down() {
    local ns id
    if [ -f "$D/run/netns" ]; then
        while read -r ns id; do
            case $ns in "$CLUSTER_PREFIX"-node-*) ;; *) continue ;; esac
            if [ -z "$id" ] || [ "$(ns_id "$ns")" != "$id" ]; then continue; fi
            kill_netns_procs "$ns"
            ip netns del "$ns" 2>/dev/null || true
        done <"$D/run/netns"
        rm -f "$D/run/netns"
    fi
    if [ -f "$D/run/bridge" ]; then
        read -r ns id <"$D/run/bridge" || true
        if [ "$ns" = "$BRIDGE" ] && [ -n "$id" ] && [ "$(link_id "$BRIDGE")" = "$id" ]; then
            ip link del "$BRIDGE" 2>/dev/null || true
        fi
        rm -f "$D/run/bridge"
    fi
}

# ---- munge -------------------------------------------------------------------
munge_up() {
    local m=$D/munge
    mkdir -p "$m"
    chmod 0755 "$m"    # munged wants the socket dir world-executable, not writable
    [ -s "$m/munge.key" ] || mungekey -c -k "$m/munge.key"
    chmod 0600 "$m/munge.key"
    munged --socket="$m/munge.sock" --key-file="$m/munge.key" \
        --pid-file="$m/munged.pid" --log-file="$m/munged.log" \
        --seed-file="$m/munged.seed" --num-threads=4 ||
        { cat "$m/munged.log" >&2 || true; die "munged failed to start"; }
    wait_for 10 munge sh -c "munge -n -S '$m/munge.sock' | unmunge -S '$m/munge.sock'" ||
        die "munged does not answer on $m/munge.sock"
    # munged forks into the background itself: take its pid from its pid file
    record munged "$(cat "$m/munged.pid")"
}

# ---- MariaDB -----------------------------------------------------------------
DBPASS=attrib-test-only
db_up() {
    local db=$D/db port
    mkdir -p "$db"
    # (ports apart per instance: two clusters starting at once do not
    # both take the first free one)
    port=$(free_port $((33306 + 100 * ATTRIB_CLUSTER_INSTANCE)))
    echo "$port" >"$db/port"
    mariadb-install-db --no-defaults --datadir="$db/data" --user=root \
        --auth-root-authentication-method=socket --skip-test-db \
        --skip-name-resolve >"$db/install.log" 2>&1 ||
        { tail -n 20 "$db/install.log" >&2; die "mariadb-install-db failed"; }
    setsid mariadbd --no-defaults --user=root --datadir="$db/data" \
        --socket="$db/mysqld.sock" --pid-file="$db/mariadbd.pid" \
        --port="$port" --bind-address=127.0.0.1 --skip-name-resolve \
        --log-error="$db/error.log" --skip-log-bin \
        --innodb-flush-log-at-trx-commit=0 --innodb-doublewrite=0 \
        --innodb-lock-wait-timeout=900 --innodb-buffer-pool-size=128M \
        --max-connections=100 </dev/null >"$db/mariadbd.out" 2>&1 &
    record mariadbd $!
    wait_for 30 mariadb mariadb --no-defaults -S "$db/mysqld.sock" -uroot -e 'select 1' ||
        { tail -n 20 "$db/error.log" >&2; die "MariaDB did not start"; }
    # the database made here, not by slurmdbd: Debian 13's client library
    # (MariaDB Connector/C of 11.8) cannot reuse a connection handle whose
    # first connect failed ("Unknown database"), which is how slurmdbd
    # 24.11 creates it -- every query then fails with error 5027
    mariadb --no-defaults -S "$db/mysqld.sock" -uroot -e "
        CREATE DATABASE slurm_acct_db;
        CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$DBPASS';
        GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';
        FLUSH PRIVILEGES;"
}

# ---- configuration -----------------------------------------------------------
write_conf() {
    local plugindir ctldport dbdport n gres_line='' hosts
    plugindir=$(plugin_dir_default)
    [ -n "${ATTRIB_PLUGIN_DIR:-}" ] && plugindir="$ATTRIB_PLUGIN_DIR:$plugindir"
    ctldport=$(free_port $((16817 + 100 * ATTRIB_CLUSTER_INSTANCE)))
    dbdport=$(free_port $((ctldport + 2)))
    echo "$ctldport" >"$D/run/ctldport"
    echo "$dbdport" >"$D/run/dbdport"
    local ncpu
    ncpu=$(nproc)
    [ "$GPUS" -gt 0 ] && gres_line="Gres=gpu:fake:$GPUS"

    cat >"$D/etc/slurmdbd.conf" <<EOF
# generated by t/cluster/cluster.sh
AuthType=auth/munge
AuthInfo=socket=$D/munge/munge.sock
DbdHost=localhost
DbdPort=$dbdport
SlurmUser=root
DebugLevel=${ATTRIB_SLURM_DEBUG:-info}
LogFile=$D/log/slurmdbd.log
PidFile=$D/run/slurmdbd.pid
PluginDir=$plugindir
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$(cat "$D/db/port")
StorageUser=slurm
StoragePass=$DBPASS
StorageLoc=slurm_acct_db
EOF
    chmod 0600 "$D/etc/slurmdbd.conf"

    cat >"$D/etc/slurm.conf" <<EOF
# generated by t/cluster/cluster.sh
ClusterName=$CLUSTER
SlurmctldHost=$CTL_NAME($CTL_ADDR)
SlurmctldPort=$ctldport
SlurmdPort=6818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$D/munge/munge.sock
CredType=cred/munge
PluginDir=$plugindir

StateSaveLocation=$D/spool/ctld
SlurmdSpoolDir=$D/spool/slurmd-%n
SlurmctldPidFile=$D/run/slurmctld.pid
SlurmdPidFile=$D/run/slurmd-%n.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd-%n.log
SlurmctldDebug=${ATTRIB_SLURM_DEBUG:-info}
SlurmdDebug=${ATTRIB_SLURM_DEBUG:-info}

AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=$CTL_ADDR
AccountingStoragePort=$dbdport
AccountingStoragePass=socket=$D/munge/munge.sock
AccountingStoreFlags=job_comment
JobCompType=${ATTRIB_JOBCOMP:-jobcomp/none}
${ATTRIB_JOBCOMP_LOC:+JobCompLoc=$ATTRIB_JOBCOMP_LOC}
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=30

ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
PriorityType=priority/basic
GresTypes=gpu
SlurmdParameters=config_overrides
ReturnToService=2
# a job whose node fails ends NODE_FAIL instead of being requeued
JobRequeue=0

# short timeouts: a killed slurmd becomes DOWN / NODE_FAIL within ~10-20 s
SlurmdTimeout=10
SlurmctldTimeout=10
MessageTimeout=5
KillWait=2
MinJobAge=30
InactiveLimit=0
Waittime=0
TCPTimeout=2
BatchStartTimeout=10
# at least 5 x MessageTimeout (Slurm 24.11 says so at start): slurmstepd's
# teardown, its job-complete RPC and that RPC's retry included, counts
# against it; with 10, a slurmctld slow to answer (24.11 at times takes
# MessageTimeout to answer an RPC on the loaded test machine) drained a
# node "Kill task failed"
UnkillableStepTimeout=25
${ATTRIB_EPILOG:+Epilog=$ATTRIB_EPILOG}
${ATTRIB_PROLOG:+Prolog=$ATTRIB_PROLOG}
${ATTRIB_PLUGSTACK_CONFIG:+PlugStackConfig=$ATTRIB_PLUGSTACK_CONFIG}

EOF
    for n in $(nodes); do
        echo "NodeName=$n NodeHostname=$n NodeAddr=$(addr_of "$n") CPUs=$ncpu RealMemory=1024 $gres_line State=UNKNOWN" >>"$D/etc/slurm.conf"
    done
    cat >>"$D/etc/slurm.conf" <<EOF
PartitionName=$PARTITION Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
${ATTRIB_SLURM_CONF_EXTRA:-}
EOF
    if [ "$GPUS" -gt 0 ]; then
        # fake GPUs: gres/gpu drops entries without File= and wants device
        # nodes, so File= points at character devices made here with the
        # NVIDIA major (195) -- no driver behind them, nothing opens them.
        # Jobs with --gres=gpu:N get CUDA_VISIBLE_DEVICES / SLURM_JOB_GPUS.
        # (If mknod is not allowed, plain files: gres still schedules, but
        # slurmd logs an error and sets no CUDA_VISIBLE_DEVICES.)
        mkdir -p "$D/dev"
        for n in $(seq 0 $((GPUS - 1))); do
            mknod "$D/dev/nvidia$n" c 195 "$n" 2>/dev/null || : >"$D/dev/nvidia$n"
        done
        echo "Name=gpu Type=fake File=$D/dev/nvidia[0-$((GPUS - 1))]" >"$D/etc/gres.conf"
    else
        : >"$D/etc/gres.conf"
    fi
    echo "# attrib test cluster" >"$D/etc/cgroup.conf"
    # CgroupPlugin left to autodetect; proctrack/linuxproc + task/none constrain nothing

    hosts="127.0.0.1 localhost
$CTL_ADDR $CTL_NAME"
    for n in $(nodes); do hosts="$hosts
$(addr_of "$n") $n"; done
    printf '%s\n' "$hosts" >"$D/etc/hosts"
}

# ---- daemons -----------------------------------------------------------------
start_slurmdbd() {
    # slurmdbd has no -f: it reads slurmdbd.conf next to $SLURM_CONF
    SLURM_CONF=$D/etc/slurm.conf setsid slurmdbd -D </dev/null >"$D/log/slurmdbd.out" 2>&1 &
    record slurmdbd $!
    wait_for 30 slurmdbd sacctmgr -n show cluster ||
        { tail -n 20 "$D/log/slurmdbd.log" "$D/log/slurmdbd.out" >&2; die "slurmdbd did not answer"; }
}

start_slurmctld() {
    # own UTS namespace so that its hostname matches SlurmctldHost
    SLURM_CONF=$D/etc/slurm.conf setsid unshare --uts sh -c "hostname $CTL_NAME && exec slurmctld -D -i -f '$D/etc/slurm.conf'" \
        </dev/null >"$D/log/slurmctld.out" 2>&1 &
    record slurmctld $!
}

start_slurmd() { # node
    local n=$1 ns
    ns=$(netns_of "$n")
    [ -e "/run/netns/$ns" ] || die "no network namespace $ns (cluster not started?)"
    mkdir -p "$D/spool/slurmd-$n"
    # not `ip netns exec`: it remounts /sys.  nsenter joins the netns only;
    # unshare gives the node its own hostname and a mount namespace in which
    # the cluster's hosts file hides /etc/hosts.
    SLURM_CONF=$D/etc/slurm.conf setsid nsenter --net="/run/netns/$ns" \
        unshare --uts --mount --propagation private \
        sh -c "hostname $n && mount --bind '$D/etc/hosts' /etc/hosts && exec slurmd -D -f '$D/etc/slurm.conf'" \
        </dev/null >"$D/log/slurmd-$n.out" 2>&1 &
    record "slurmd-$n" $!
}

ctld_up() {
    ours_alive slurmctld >/dev/null || return 2
    scontrol ping 2>/dev/null | grep -q 'is UP'
}

all_idle() { # 0: all idle, 1: not yet, 2: never (slurmctld gone, node invalid)
    local out
    ours_alive slurmctld >/dev/null || return 2
    out=$(sinfo -h -N -p "$PARTITION" -o '%N %T' 2>/dev/null) || return 1
    case $out in *' inval'* | *' drain'*) return 2 ;; esac
    [ "$(printf '%s\n' "$out" | grep -c ' idle$' || true)" -eq "$NNODES" ]
}

# ---- commands ----------------------------------------------------------------
running_any() {
    local f
    for f in "$D"/run/*.ours; do
        [ -e "$f" ] || continue
        f=${f##*/}
        ours_alive "${f%.ours}" >/dev/null && return 0
    done
    return 1
}

cmd_start() {
    local t0 n sub
    t0=$(now)
    [ "$(id -u)" = 0 ] || die "must run as root (network namespaces, bridge, daemons)"
    need munged mungekey munge unmunge mariadb-install-db mariadbd mariadb \
        slurmctld slurmd slurmdbd sacctmgr sinfo ip nsenter unshare ss setsid
    if [ -d "$D" ] && [ -n "$(ls -A "$D" 2>/dev/null)" ] && [ ! -e "$D/$MARKER" ]; then
        die "$D exists, is not empty and is not a cluster state directory; refusing to use it"
    fi
    if [ -d "$D" ] && running_any; then
        die "a cluster is already running in $D (run: $0 stop)"
    fi
    if [ -d "$D" ]; then cmd_stop >/dev/null 2>&1 || true; fi
    mkdir -p "$D"
    chmod 0755 "$D"
    touch "$D/$MARKER"
    for sub in munge db etc log run spool dev; do rm -rf "${D:?}/$sub"; done
    mkdir -p "$D"/{etc,log,run,spool/ctld}
    # Namespaces and the bridge outlive their processes (e.g. a session that
    # ended with a cluster running): reclaim them when no process is left in
    # them; a namespace with processes belongs to a running cluster.
    local ns
    for ns in /run/netns/"$CLUSTER_PREFIX"-node-*; do
        [ -e "$ns" ] || continue
        ns=${ns##*/}
        if [ -n "$(ip netns pids "$ns" 2>/dev/null || true)" ]; then
            die "network namespace $ns is in use: another test cluster runs (stop it with its ATTRIB_CLUSTER_DIR)"
        fi
        log "removing stale network namespace $ns"
        ip netns del "$ns"
    done
    if ip link show "$BRIDGE" >/dev/null 2>&1; then
        log "removing stale bridge $BRIDGE"
        ip link del "$BRIDGE"
    fi

    # stop whatever we started if anything below fails
    trap 'log "start failed; stopping what was started"; cmd_stop >/dev/null 2>&1 || true; exit 1' EXIT

    net_up
    log "network up ($(elapsed "$t0") s)"
    munge_up
    log "munged up ($(elapsed "$t0") s)"
    db_up
    log "mariadb up on 127.0.0.1:$(cat "$D/db/port") ($(elapsed "$t0") s)"
    write_conf
    export SLURM_CONF=$D/etc/slurm.conf
    start_slurmdbd
    sacctmgr -i -Q add cluster "$CLUSTER" >/dev/null
    sacctmgr -i -Q add account attrib Cluster="$CLUSTER" Description=attrib Organization=attrib >/dev/null
    sacctmgr -i -Q add user root Account=attrib Cluster="$CLUSTER" >/dev/null
    log "slurmdbd up on port $(cat "$D/run/dbdport"), accounts added ($(elapsed "$t0") s)"
    start_slurmctld
    # slurmds that register before slurmctld listens retry only seconds later
    wait_for 30 slurmctld ctld_up ||
        { tail -n 20 "$D/log/slurmctld.log" "$D/log/slurmctld.out" >&2 || true; die "slurmctld did not answer"; }
    log "slurmctld up on $CTL_ADDR:$(cat "$D/run/ctldport") ($(elapsed "$t0") s)"
    for n in $(nodes); do start_slurmd "$n"; done
    if ! wait_for "$TIMEOUT" nodes all_idle; then
        log "nodes not idle after ${TIMEOUT} s:"
        sinfo -N -p "$PARTITION" >&2 || true
        tail -n 15 "$D/log/slurmctld.log" "$D/log/slurmctld.out" >&2 || true
        for n in $(nodes); do tail -n 5 "$D/log/slurmd-$n.log" "$D/log/slurmd-$n.out" >&2 || true; done
        die "cluster did not become ready"
    fi
    # slurmctld only logs an error when JobCompType cannot be loaded (missing
    # file, wrong plugin_version, failed init) and runs on without it
    if [ -n "${ATTRIB_JOBCOMP:-}" ] &&
        grep -E 'cannot create jobcomp context|Incompatible Slurm plugin .*jobcomp|jobcomp.*(init\(\) callback failed|undefined symbol)' \
            "$D/log/slurmctld.log" >&2; then
        die "slurmctld could not load JobCompType=$ATTRIB_JOBCOMP (PluginDir: $(grep '^PluginDir=' "$D/etc/slurm.conf" | cut -d= -f2))"
    fi
    trap - EXIT
    log "cluster $CLUSTER ready: $NNODES nodes idle in partition $PARTITION; startup took $(elapsed "$t0") s"
    log "use it with: eval \"\$($0 env)\""
}

cmd_stop() {
    local n
    [ -d "$D" ] || return 0
    if [ -n "$(ls -A "$D" 2>/dev/null)" ] && [ ! -e "$D/$MARKER" ]; then
        die "$D is not a cluster state directory; not touching it"
    fi
    # node daemons, job steps and jobs: everything in our namespaces
    for n in $(seq -f 'node-%02g' 1 9); do
        stop_ours "slurmd-$n"
    done
    # slurmctld before the network: it listens on the bridge's address,
    # and on TERM it wakes its own RPC thread by connecting to it
    stop_ours slurmctld
    net_down
    stop_ours slurmdbd
    stop_ours mariadbd
    stop_ours munged
    rm -f "$D/munge/munge.sock" "$D/munge/munge.sock.lock"
    log "stopped (state kept in $D)"
}

cmd_status() {
    local rc=0 n name p
    [ -e "$D/$MARKER" ] || { echo "no cluster in $D"; return 1; }
    export SLURM_CONF=$D/etc/slurm.conf
    for name in munged mariadbd slurmdbd slurmctld; do
        if p=$(ours_alive "$name"); then
            printf '%-16s running (pid %s)\n' "$name" "$p"
        else
            printf '%-16s NOT running\n' "$name"
            rc=1
        fi
    done
    for n in $(nodes); do
        if p=$(ours_alive "slurmd-$n"); then
            printf '%-16s running (pid %s, netns %s, %s)\n' "slurmd $n" "$p" "$(netns_of "$n")" "$(addr_of "$n")"
        else
            printf '%-16s NOT running\n' "slurmd $n"
            rc=1
        fi
    done
    echo
    sinfo -N -o '%N %P %T %c %G' 2>&1 || rc=1
    if all_idle; then echo "health: ok (all $NNODES nodes idle)"; else echo "health: degraded"; rc=1; fi
    return $rc
}

cmd_env() {
    if [ ! -e "$D/$MARKER" ] || [ ! -f "$D/etc/slurm.conf" ]; then
        die "no cluster configured in $D (run: $0 start)"
    fi
    cat <<EOF
export ATTRIB_CLUSTER_DIR='$D'
export ATTRIB_CLUSTER_INSTANCE='$ATTRIB_CLUSTER_INSTANCE'
export SLURM_CONF='$D/etc/slurm.conf'
export ATTRIB_CLUSTER_NAME='$CLUSTER'
export ATTRIB_CLUSTER_PARTITION='$PARTITION'
export ATTRIB_CLUSTER_NODELIST='$(nodes | paste -sd, -)'
export ATTRIB_CLUSTER_CTLD_ADDR='$CTL_ADDR'
export ATTRIB_CLUSTER_DBD_PORT='$(cat "$D/run/dbdport" 2>/dev/null)'
export ATTRIB_MUNGE_SOCKET='$D/munge/munge.sock'
export ATTRIB_DB_SOCKET='$D/db/mysqld.sock'
export ATTRIB_DB_PORT='$(cat "$D/db/port" 2>/dev/null)'
export ATTRIB_CLUSTER_LOGDIR='$D/log'
EOF
}

cmd_exec() { # node cmd...
    local n=$1 ns
    shift
    ns=$(netns_of "$n")
    [ -e "/run/netns/$ns" ] || die "no such node namespace: $ns"
    # shellcheck disable=SC2016 # $0/$1/$@ are the inner shell's
    SLURM_CONF=$D/etc/slurm.conf exec nsenter --net="/run/netns/$ns" \
        unshare --uts --mount --propagation private \
        sh -c 'hostname "$0" && mount --bind "$1" /etc/hosts && shift && exec "$@"' "$n" "$D/etc/hosts" "$@"
}

case ${1:-} in
start) cmd_start ;;
stop) cmd_stop ;;
status) cmd_status ;;
env) cmd_env ;;
killnode)
    [ -n "${2:-}" ] || die "usage: $0 killnode NODE"
    p=$(ours_alive "slurmd-$2") || die "slurmd on $2 is not running"
    kill -KILL "$p"
    log "killed slurmd on $2 (pid $p)"
    ;;
startnode)
    [ -n "${2:-}" ] || die "usage: $0 startnode NODE"
    if ours_alive "slurmd-$2" >/dev/null; then die "slurmd on $2 is already running"; fi
    start_slurmd "$2"
    ;;
exec)
    [ $# -ge 3 ] || die "usage: $0 exec NODE CMD..."
    shift
    cmd_exec "$@"
    ;;
*)
    echo "usage: $0 start|stop|status|env|killnode NODE|startnode NODE|exec NODE CMD..." >&2
    exit 2
    ;;
esac
