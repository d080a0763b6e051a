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
# (attrib-node-NN) and UTS namespace (hostname node-NN) and mount namespace
# (only to bind the cluster's own /etc/hosts), joined by veth pairs to a
# bridge attrib-br0 in the root namespace that holds ${SUBNET}.1/24.  Nodes
# are ${SUBNET}.11, .12, ...  slurmctld runs in the root network namespace
# (own UTS namespace, hostname attrib-ctl) and listens on ${SUBNET}.1;
# slurmdbd, MariaDB and munged run in the root namespace.  Nothing routes
# out of the nodes' namespaces: they have no default route.
#
# Environment (all optional):
#   ATTRIB_CLUSTER_DIR      state directory             [/tmp/attrib-cluster]
#   ATTRIB_CLUSTER_NODES    number of nodes (1..9)      [3]
#   ATTRIB_CLUSTER_SUBNET   first three octets          [10.251.0]
#   ATTRIB_CLUSTER_TIMEOUT  seconds to wait for idle    [60]
#   ATTRIB_CLUSTER_GPUS     fake gres/gpu per node (plain files as File=; 0 = none) [2]
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
SUBNET=${ATTRIB_CLUSTER_SUBNET:-10.251.0}
TIMEOUT=${ATTRIB_CLUSTER_TIMEOUT:-60}
GPUS=${ATTRIB_CLUSTER_GPUS:-2}
CLUSTER=attribtest
PARTITION=gpu
BRIDGE=attrib-br0
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
netns_of() { echo "attrib-$1"; }          # attrib-node-01
veth_of() { echo "attrib-v$(node_index "$1")"; }
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
# A pid file is only trusted if the process still runs the expected program.
pid_alive() { # pidfile comm
    local pid comm
    [ -s "$1" ] || return 1
    pid=$(head -n1 "$1" 2>/dev/null || true)
    case $pid in '' | *[!0-9]*) return 1 ;; esac
    [ -r "/proc/$pid/comm" ] || return 1
    comm=$(cat "/proc/$pid/comm" 2>/dev/null || true)
    [ "$comm" = "$2" ] || return 1
    # a zombie (dead, not yet reaped by its parent) is not running
    case $(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null || echo X) in Z | X) return 1 ;; esac
    echo "$pid"
}

stop_pidfile() { # pidfile comm
    local pid i
    pid=$(pid_alive "$1" "$2") || { rm -f "$1"; return 0; }
    kill -TERM "$pid" 2>/dev/null || true
    for i in $(seq 1 100); do
        pid_alive "$1" "$2" >/dev/null || break
        sleep 0.1
    done
    if pid_alive "$1" "$2" >/dev/null; then
        log "$2 ($pid) did not stop on TERM; KILL"
        kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$1"
}

# every process in a network namespace we created is ours
kill_netns_procs() { # netns
    local ns=$1 pids i
    [ -e "/run/netns/$ns" ] || return 0
    pids=$(ip netns pids "$ns" 2>/dev/null || true)
    [ -n "$pids" ] || return 0
    kill -TERM $pids 2>/dev/null || true
    for i in $(seq 1 30); do
        pids=$(ip netns pids "$ns" 2>/dev/null || true)
        [ -n "$pids" ] || return 0
        sleep 0.1
    done
    kill -KILL $pids 2>/dev/null || true
    sleep 0.2
}

free_port() { # start
    local p=$1 used
    used=" $(ss -Htan 2>/dev/null | awk '{print $4}' | sed 's/.*://' | sort -u | tr '\n' ' ') "
    while case $used in *" $p "*) true ;; *) false ;; esac; do p=$((p + 1)); done
    echo "$p"
}

wait_for() { # seconds description command...
    local secs=$1 what=$2 t0
    shift 2
    t0=$(date +%s)
    until "$@" >/dev/null 2>&1; do
        [ $(($(date +%s) - t0)) -lt "$secs" ] || return 1
        sleep 0.1
    done
}

# ---- network -----------------------------------------------------------------
net_up() {
    local n ns veth
    if ! ip link show "$BRIDGE" >/dev/null 2>&1; then
        ip link add "$BRIDGE" type bridge
    fi
    ip addr replace "$CTL_ADDR/24" dev "$BRIDGE"
    ip link set "$BRIDGE" up
    echo "$BRIDGE" >"$D/run/bridge"
    for n in $(nodes); do
        ns=$(netns_of "$n")
        veth=$(veth_of "$n")
        if [ -e "/run/netns/$ns" ]; then
            ip netns del "$ns"
        fi
        ip link del "$veth" >/dev/null 2>&1 || true
        ip netns add "$ns"
        echo "$ns" >>"$D/run/netns"
        ip link add "$veth" type veth peer name eth0 netns "$ns"
        ip link set "$veth" master "$BRIDGE" up
        ip -n "$ns" link set lo up
        ip -n "$ns" addr add "$(addr_of "$n")/24" dev eth0
        ip -n "$ns" link set eth0 up
    done
}

net_down() {
    local ns n
    if [ -f "$D/run/netns" ]; then
        for ns in $(sort -u "$D/run/netns"); do
            case $ns in attrib-node-*) ;; *) continue ;; esac
            kill_netns_procs "$ns"
            [ -e "/run/netns/$ns" ] && ip netns del "$ns" 2>/dev/null || true
        done
        rm -f "$D/run/netns"
    fi
    if [ -f "$D/run/bridge" ]; then
        for n in $(seq 1 9); do
            ip link del "attrib-v$n" >/dev/null 2>&1 || true
        done
        ip link del "$BRIDGE" >/dev/null 2>&1 || true
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
}

# ---- MariaDB -----------------------------------------------------------------
DBPASS=attrib-test-only
db_up() {
    local db=$D/db port
    mkdir -p "$db"
    port=$(free_port 33306)
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
    echo $! >"$db/mariadbd.pid"
    wait_for 30 mariadb mariadb --no-defaults -S "$db/mysqld.sock" -uroot -e 'select 1' ||
        { tail -n 20 "$db/error.log" >&2; die "MariaDB did not start"; }
    mariadb --no-defaults -S "$db/mysqld.sock" -uroot -e "
        CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$DBPASS';
        GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';
        FLUSH PRIVILEGES;"
}

# ---- configuration -----------------------------------------------------------
write_conf() {
    local plugindir ctldport dbdport n gres_line= hosts
    plugindir=$(plugin_dir_default)
    [ -n "${ATTRIB_PLUGIN_DIR:-}" ] && plugindir="$ATTRIB_PLUGIN_DIR:$plugindir"
    ctldport=$(free_port 16817)
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
UnkillableStepTimeout=10
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
        # fake GPUs: gres/gpu drops entries without File=, so point File= at
        # plain files (not devices; nothing is bound or constrained).  Jobs
        # with --gres=gpu:N get CUDA_VISIBLE_DEVICES / SLURM_JOB_GPUS set.
        mkdir -p "$D/dev"
        for n in $(seq 0 $((GPUS - 1))); do : >"$D/dev/nvidia$n"; done
        echo "Name=gpu Type=fake File=$D/dev/nvidia[0-$((GPUS - 1))]" >"$D/etc/gres.conf"
    else
        : >"$D/etc/gres.conf"
    fi
    echo "# attrib test cluster" >"$D/etc/cgroup.conf"
    echo "CgroupPlugin=cgroup/v1" >>"$D/etc/cgroup.conf"

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
    echo $! >"$D/run/slurmdbd.pid"
    wait_for 30 slurmdbd sacctmgr -n show cluster ||
        { tail -n 20 "$D/log/slurmdbd.log" "$D/log/slurmdbd.out" >&2; die "slurmdbd did not answer"; }
}

start_slurmctld() {
    # own UTS namespace so that its hostname matches SlurmctldHost
    SLURM_CONF=$D/etc/slurm.conf setsid unshare --uts sh -c "hostname $CTL_NAME && exec slurmctld -D -i -f '$D/etc/slurm.conf'" \
        </dev/null >"$D/log/slurmctld.out" 2>&1 &
    echo $! >"$D/run/slurmctld.pid"
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
    echo $! >"$D/run/slurmd-$n.pid"
}

all_idle() {
    local out
    out=$(sinfo -h -N -p "$PARTITION" -o '%N %T' 2>/dev/null) || return 1
    [ "$(printf '%s\n' "$out" | grep -c ' idle$' || true)" -eq "$NNODES" ]
}

# ---- commands ----------------------------------------------------------------
running_any() {
    pid_alive "$D/run/slurmctld.pid" slurmctld >/dev/null ||
        pid_alive "$D/run/slurmdbd.pid" slurmdbd >/dev/null ||
        pid_alive "$D/db/mariadbd.pid" mariadbd >/dev/null ||
        pid_alive "$D/munge/munged.pid" munged >/dev/null
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
    [ -d "$D" ] && cmd_stop >/dev/null 2>&1 || true
    mkdir -p "$D"
    chmod 0755 "$D"
    touch "$D/$MARKER"
    for sub in munge db etc log run spool dev; do rm -rf "${D:?}/$sub"; done
    mkdir -p "$D"/{etc,log,run,spool/ctld}
    for n in $(nodes); do
        if [ -e "/run/netns/$(netns_of "$n")" ]; then
            die "network namespace $(netns_of "$n") exists and is not ours (another cluster running? stop it with its ATTRIB_CLUSTER_DIR)"
        fi
    done
    if ip link show "$BRIDGE" >/dev/null 2>&1; then
        die "bridge $BRIDGE exists and is not ours (another cluster running?)"
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
    for n in $(nodes); do start_slurmd "$n"; done
    if ! wait_for "$TIMEOUT" nodes all_idle; then
        log "nodes not idle after ${TIMEOUT} s:"
        sinfo -N -p "$PARTITION" >&2 || true
        tail -n 15 "$D/log/slurmctld.log" "$D/log/slurmctld.out" >&2 || true
        for n in $(nodes); do tail -n 5 "$D/log/slurmd-$n.log" "$D/log/slurmd-$n.out" >&2 || true; done
        die "cluster did not become ready"
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
        stop_pidfile "$D/run/slurmd-$n.pid" slurmd
    done
    net_down
    stop_pidfile "$D/run/slurmctld.pid" slurmctld
    stop_pidfile "$D/run/slurmdbd.pid" slurmdbd
    stop_pidfile "$D/db/mariadbd.pid" mariadbd
    stop_pidfile "$D/munge/munged.pid" munged
    rm -f "$D/munge/munge.sock" "$D/munge/munge.sock.lock"
    log "stopped (state kept in $D)"
}

cmd_status() {
    local rc=0 n name pidf
    [ -e "$D/$MARKER" ] || { echo "no cluster in $D"; return 1; }
    export SLURM_CONF=$D/etc/slurm.conf
    for name in munged:munge/munged.pid mariadbd:db/mariadbd.pid slurmdbd:run/slurmdbd.pid slurmctld:run/slurmctld.pid; do
        pidf=$D/${name#*:}
        if p=$(pid_alive "$pidf" "${name%%:*}"); then
            printf '%-16s running (pid %s)\n' "${name%%:*}" "$p"
        else
            printf '%-16s NOT running\n' "${name%%:*}"
            rc=1
        fi
    done
    for n in $(nodes); do
        if p=$(pid_alive "$D/run/slurmd-$n.pid" slurmd); then
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
    [ -e "$D/$MARKER" ] && [ -f "$D/etc/slurm.conf" ] || die "no cluster configured in $D (run: $0 start)"
    cat <<EOF
export ATTRIB_CLUSTER_DIR='$D'
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
    p=$(pid_alive "$D/run/slurmd-$2.pid" slurmd) || die "slurmd on $2 is not running"
    kill -KILL "$p"
    log "killed slurmd on $2 (pid $p)"
    ;;
startnode)
    [ -n "${2:-}" ] || die "usage: $0 startnode NODE"
    pid_alive "$D/run/slurmd-$2.pid" slurmd >/dev/null && die "slurmd on $2 is already running"
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
