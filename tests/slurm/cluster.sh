#!/usr/bin/env bash
# cluster.sh — a throwaway multi-node Slurm 22.05 cluster on this machine,
# for tests and benchmarks (as tests/pg/pg.sh is for PostgreSQL).
#
#   cluster.sh start DIR [NODES]   starts munged, slurmctld and NODES (2..3,
#                                  default 3) slurmd; prints "ok" when every
#                                  node is idle. DIR must be empty or absent.
#   cluster.sh stop DIR            stops everything and removes the network
#   cluster.sh node-stop DIR NODE  kills one slurmd (SIGKILL: a lost node)
#   cluster.sh ctld-stop DIR       stops slurmctld only (Slurm "down")
#   cluster.sh ctld-start DIR [clean]  starts it again from its saved state
#                                  (clean: without it; Slurm forgets its jobs)
#   cluster.sh check               exit 0 when this machine can run it; else
#                                  prints why and exits 77
#
# Layout. Each slurmd runs in its own network namespace (NAME-nK) with its
# own address on a private bridge the script makes (10.RR.SS.0/24, picked
# free): node nK is 10.RR.SS.(10+K), slurmctld listens on the bridge's
# 10.RR.SS.1 in the machine's own namespace, so cubed's sbatch/squeue reach
# it as a login node would. Each slurmd sees its own /etc/hosts (the node
# names and the controller, bound in a mount namespace) and its node name
# as hostname (a UTS namespace), so srun's I/O
# connections and torch's MASTER_ADDR cross the bridge for real. munged
# runs as user munge on DIR/munge/munge.socket (never the system one).
#
# Accounting: none in a database (AccountingStorageType=none; no slurmdbd,
# no MariaDB). Job ends are recorded by jobcomp/filetxt (DIR/jobcomp.txt),
# and finished jobs stay in slurmctld for MinJobAge (600 s), long enough
# for `scontrol show job` to give their state (COMPLETED, FAILED,
# TIMEOUT, OUT_OF_MEMORY, CANCELLED) and exit code. That is all an
# executor needs; sacct with slurmdbd would add seconds of start-up and a
# database server to every test run for nothing the tests look at.
#
# Memory limits are enforced by cgroup v1 (task/cgroup, ConstrainRAMSpace),
# so a job past --mem ends OUT_OF_MEMORY as on a real cluster. Node CPUs
# and memory are the configured ones (SlurmdParameters=config_overrides:
# three 2-CPU nodes on a 2-core machine).
#
# DIR/env, written by start, is sourceable: SLURM_CONF, CLUSTER_NODES
# ("n1 n2 n3"), CLUSTER_ADDRS, CLUSTER_PARTITION (cube), CLUSTER_BRIDGE,
# CLUSTER_NETNS_PREFIX, CLUSTER_CTLD_ADDR, CLUSTER_MUNGE_SOCKET. Needs root.
# Environment: CLUSTER_SCHED (SchedulerParameters, default
# batch_sched_delay=0,sched_min_interval=0), CLUSTER_OVERSUBSCRIBE (the
# partition's OverSubscribe, default NO), CLUSTER_NODE_CPUS (2),
# CLUSTER_NODE_MEMORY (MiB, 2048).
set -uo pipefail
export LC_ALL=C

die() { echo "cluster.sh: $*" >&2; exit 1; }

check() {
    local t
    [ "$(id -u)" -eq 0 ] || { echo "needs root (slurmd, network namespaces, the munge key)"; return 77; }
    for t in slurmctld slurmd sbatch squeue scontrol munged setpriv ip; do
        command -v "$t" >/dev/null 2>&1 ||
            { echo "$t not found (install slurm-wlm: scripts/install-deps.sh test)"; return 77; }
    done
    id munge >/dev/null 2>&1 || { echo "no munge user (package munge)"; return 77; }
    local ns=cubechk$$
    ip netns add "$ns" 2>/dev/null || { echo "cannot make network namespaces (ip netns add)"; return 77; }
    ip netns del "$ns"
    return 0
}

# A /24 under 10.0.0.0/8 no interface uses: prints "RR.SS".
free_subnet() {
    local used i rr ss
    used=$(ip -4 -o addr show | awk '{ print $4 }')
    for i in $(seq 1 50); do
        rr=$(( 200 + RANDOM % 50 )) ss=$(( RANDOM % 250 + 1 ))
        grep -q "^10\.$rr\.$ss\." <<<"$used" || { echo "$rr.$ss"; return 0; }
    done
    return 1
}

free_port() {
    /usr/bin/python3 -c 'import socket
s = socket.socket(); s.bind(("0.0.0.0", 0)); print(s.getsockname()[1])'
}

wait_for() { # seconds command...: polls every 0.1 s
    local n=$(( $1 * 10 )) i
    shift
    for i in $(seq 1 "$n"); do "$@" && return 0; sleep 0.1; done
    return 1
}

start_munged() {
    local d=$1/munge
    mkdir -p "$d" && chown munge:munge "$d" && chmod 755 "$1" "$d" || die "cannot prepare $d"
    head -c 1024 /dev/urandom >"$d/munge.key"
    chown munge:munge "$d/munge.key" && chmod 400 "$d/munge.key" || die "cannot prepare the munge key"
    setpriv --reuid=munge --regid=munge --init-groups munged -F \
        --socket="$d/munge.socket" --key-file="$d/munge.key" --pid-file="$d/munged.pid" \
        --log-file="$d/munged.log" --seed-file="$d/munged.seed" --num-threads=4 \
        >"$1/log/munged.out" 2>&1 &
    echo $! >"$1/pids/munged"
    wait_for 5 test -S "$d/munge.socket" || die "munged made no socket: $(cat "$1/log/munged.out")"
}

write_conf() { # dir host ctld-addr port-ctld port-d nodes...
    local dir=$1 host=$2 addr=$3 cport=$4 dport=$5 cpus=${CLUSTER_NODE_CPUS:-2}
    local mem=${CLUSTER_NODE_MEMORY:-2048} n names=""
    shift 5
    touch "$dir/jobcomp.txt"
    cat >"$dir/slurm.conf" <<CONF
ClusterName=cubetest
SlurmctldHost=$host($addr)
SlurmctldPort=$cport
SlurmdPort=$dport
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/spool/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
MailProg=/bin/true
ProctrackType=proctrack/cgroup
TaskPlugin=task/cgroup
SlurmdParameters=config_overrides
MpiDefault=none
ReturnToService=2
SlurmdTimeout=30
MessageTimeout=5
KillWait=5
MinJobAge=600
InactiveLimit=0
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerParameters=${CLUSTER_SCHED:-batch_sched_delay=0,sched_min_interval=0}
GresTypes=gpu
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/jobcomp.txt
CONF
    for n in "$@"; do
        echo "NodeName=${n%%=*} NodeAddr=${n#*=} CPUs=$cpus RealMemory=$mem Feature=cube,rack${n:1:1} State=UNKNOWN" >>"$dir/slurm.conf"
        names=${names:+$names,}${n%%=*}
    done
    echo "PartitionName=cube Nodes=$names Default=YES MaxTime=INFINITE State=UP OverSubscribe=${CLUSTER_OVERSUBSCRIBE:-NO}" >>"$dir/slurm.conf"
    cat >"$dir/cgroup.conf" <<CONF
CgroupPlugin=cgroup/v1
CgroupMountpoint=/sys/fs/cgroup
ConstrainCores=no
ConstrainRAMSpace=yes
ConstrainSwapSpace=yes
AllowedSwapSpace=0
CONF
}

start_ctld() { # dir [clean]: clean clears the saved state (Slurm forgets every job)
    local dir=$1 clear=()
    # shellcheck disable=SC1091
    . "$dir/env"
    [ "${2:-}" = clean ] && clear=(-c)
    slurmctld -D "${clear[@]}" -f "$SLURM_CONF" >>"$dir/log/slurmctld.out" 2>&1 &
    echo $! >"$dir/pids/slurmctld"
    export SLURM_CONF
    wait_for 20 ctld_up || die "slurmctld does not answer: $(tail -5 "$dir/log/slurmctld.log" 2>/dev/null)"
}

ctld_up() { scontrol ping 2>/dev/null | grep -q UP; }

all_idle() {
    local s
    s=$(sinfo -h -N -p cube -o %T 2>/dev/null | sort -u | tr '\n' ' ')
    [ "$s" = "idle " ]
}

start() {
    local dir=$1 nodes=${2:-3} host sub name k addr list=() cport dport pfx
    check >/dev/null || die "$(check)"
    case $nodes in 2 | 3) ;; *) die "NODES must be 2 or 3 (got '$nodes')" ;; esac
    [ ! -e "$dir" ] || [ -z "$(ls -A "$dir")" ] || die "$dir is not empty"
    mkdir -p "$dir"/{state,spool,log,pids} || die "cannot make $dir"
    dir=$(cd "$dir" && pwd)
    host=$(hostname -s)
    sub=$(free_subnet) || die "no free 10.x.y.0/24 subnet"
    k=$(printf '%04x' $(( (RANDOM << 1) & 0xffff )))
    pfx=cs$k   # bridge csK, namespaces csK-n1 ...: IFNAMSIZ is 16
    ip link add "$pfx" type bridge || die "cannot make bridge $pfx"
    ip addr add "10.$sub.1/24" dev "$pfx" && ip link set "$pfx" up || die "cannot bring up $pfx"
    cport=$(free_port) dport=$(free_port)
    cat >"$dir/env" <<ENV
SLURM_CONF=$dir/slurm.conf
CLUSTER_BRIDGE=$pfx
CLUSTER_NETNS_PREFIX=$pfx
CLUSTER_CTLD_ADDR=10.$sub.1
CLUSTER_PARTITION=cube
CLUSTER_MUNGE_SOCKET=$dir/munge/munge.socket
ENV
    local names="" addrs="" i
    for i in $(seq 1 "$nodes"); do
        name=n$i addr=10.$sub.$(( 10 + i ))
        list+=("$name=$addr")
        names="$names $name" addrs="$addrs $addr"
        ip netns add "$pfx-$name" || die "cannot add namespace $pfx-$name"
        ip link add "$pfx-h$i" type veth peer name "$pfx-p$i" || die "cannot add veth"
        ip link set "$pfx-h$i" master "$pfx" up
        ip link set "$pfx-p$i" netns "$pfx-$name"
        ip -n "$pfx-$name" link set lo up
        ip -n "$pfx-$name" link set "$pfx-p$i" name eth0
        ip -n "$pfx-$name" addr add "$addr/24" dev eth0
        ip -n "$pfx-$name" link set eth0 up
    done
    { echo "CLUSTER_NODES=\"${names# }\""; echo "CLUSTER_ADDRS=\"${addrs# }\""; } >>"$dir/env"
    # Each namespace's /etc/hosts (ip netns exec binds /etc/netns/NS/hosts).
    for i in $(seq 1 "$nodes"); do
        mkdir -p "/etc/netns/$pfx-n$i"
        { echo "127.0.0.1 localhost"; echo "10.$sub.1 $host"
          for j in $(seq 1 "$nodes"); do echo "10.$sub.$(( 10 + j )) n$j"; done; } \
            >"/etc/netns/$pfx-n$i/hosts"
    done
    start_munged "$dir"
    write_conf "$dir" "$host" "10.$sub.1" "$cport" "$dport" "${list[@]}"
    export SLURM_CONF=$dir/slurm.conf
    start_ctld "$dir"
    for i in $(seq 1 "$nodes"); do node_start "$dir" "n$i"; done
    wait_for 40 all_idle || die "nodes not idle after 40 s: $(sinfo -N -h 2>&1 | tr '\n' ';')"
    echo ok
}

node_start() {
    local dir=$1 n=$2
    # shellcheck disable=SC1091
    . "$dir/env"
    mkdir -p "$dir/spool/$n"
    # nsenter, not `ip netns exec`: that remounts /sys, hiding the cgroup
    # hierarchies slurmd's cgroup plugins need. The namespace's own
    # /etc/hosts is bound in a mount namespace of slurmd's own, and a UTS
    # namespace gives it its node's hostname (as a real node has: torch's
    # gloo finds its interface by resolving it).
    nsenter --net="/run/netns/$CLUSTER_NETNS_PREFIX-$n" unshare -m -u --propagation private \
        sh -c 'mount --bind "$1" /etc/hosts && hostname "$2" && shift 2 && exec "$@"' sh \
        "/etc/netns/$CLUSTER_NETNS_PREFIX-$n/hosts" "$n" slurmd -D -f "$SLURM_CONF" -N "$n" \
        >>"$dir/log/slurmd-$n.out" 2>&1 &
    echo $! >"$dir/pids/slurmd-$n"
}

kill_pidfile() { # file signal
    local p
    [ -f "$1" ] || return 0
    p=$(cat "$1")
    [ -n "$p" ] && kill "-$2" "$p" 2>/dev/null
    for _ in $(seq 1 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.05; done
    kill -0 "$p" 2>/dev/null && kill -KILL "$p" 2>/dev/null
    rm -f "$1"
}

stop() {
    local dir=$1 f
    [ -f "$dir/env" ] || return 0
    # shellcheck disable=SC1091
    . "$dir/env"
    export SLURM_CONF
    scancel --quiet --full --signal=KILL --user=all 2>/dev/null || true
    for f in "$dir"/pids/slurmd-*; do [ -e "$f" ] && kill_pidfile "$f" TERM; done
    # Job steps left behind (slurmstepd) by a killed slurmd.
    pkill_steps "$dir"
    kill_pidfile "$dir/pids/slurmctld" TERM
    kill_pidfile "$dir/pids/munged" TERM
    for n in $CLUSTER_NODES; do
        ip netns del "$CLUSTER_NETNS_PREFIX-$n" 2>/dev/null
        rm -rf "/etc/netns/$CLUSTER_NETNS_PREFIX-$n"
    done
    ip link del "$CLUSTER_BRIDGE" 2>/dev/null
    return 0
}

# Kills the slurmstepd processes of this cluster (their command line
# names no config; they are children of our slurmd, or orphans whose
# spool dir is ours): found by their working directory under DIR.
pkill_steps() {
    local p
    for p in $(pgrep -x slurmstepd 2>/dev/null); do
        grep -qaF "$1/" "/proc/$p/environ" 2>/dev/null && kill -KILL "$p" 2>/dev/null
        [ "$(readlink "/proc/$p/cwd" 2>/dev/null)" = "$1/spool" ] && kill -KILL "$p" 2>/dev/null
    done
    return 0
}

cmd=${1:-}
case $cmd in
    check) out=$(check); rc=$?; [ -n "$out" ] && echo "$out"; exit $rc ;;
    start) [ $# -ge 2 ] || die "usage: cluster.sh start DIR [NODES]"; start "$2" "${3:-3}" ;;
    stop) [ $# -ge 2 ] || die "usage: cluster.sh stop DIR"; stop "$2" ;;
    node-stop)
        [ $# -ge 3 ] || die "usage: cluster.sh node-stop DIR NODE"
        kill_pidfile "$2/pids/slurmd-$3" KILL ;;
    node-start) [ $# -ge 3 ] || die "usage: cluster.sh node-start DIR NODE"; node_start "$2" "$3" ;;
    ctld-stop) [ $# -ge 2 ] || die "usage: cluster.sh ctld-stop DIR"; kill_pidfile "$2/pids/slurmctld" TERM ;;
    ctld-start) [ $# -ge 2 ] || die "usage: cluster.sh ctld-start DIR [clean]"; start_ctld "$2" "${3:-}" ;;
    *) die "usage: cluster.sh check | start DIR [NODES] | stop DIR | node-stop DIR NODE | node-start DIR NODE | ctld-stop DIR | ctld-start DIR" ;;
esac
