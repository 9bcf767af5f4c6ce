# slurm_lib.sh — a throwaway single-node Slurm, the local executor's bench
# accounts and a cubed with project bench, shared by local_vs_slurm.sh and
# pipeline.sh.
#
# Sourced after lib.sh, not run: `. "$HERE/slurm_lib.sh"`. Globals it reads:
# TMP, PY, NPROC, USER_PREFIX, GROUP_PREFIX, ACCOUNTS_BEFORE, CUBED,
# PLUGIN_DIR, CUBE_ADMIN_PASSWORD; it sets MUNGE_PID, CTLD_PID, SLURMD_PID,
# SLURM_CONF, SLURM_VERSION, CPID, PORT and TOKEN. The script
# defines no cleanup_hook of its own: the one here stops Slurm and removes
# the accounts when lib.sh's EXIT trap runs.
# shellcheck shell=bash

MUNGE_PID='' CTLD_PID='' SLURMD_PID=''

# --- OS accounts -------------------------------------------------------------------

# OS accounts and groups the local executor made with our prefixes.
bench_accounts() {
    { getent passwd | awk -F: -v p="$USER_PREFIX" 'index($1, p) == 1 { print "u " $1 }'
      getent group | awk -F: -v p="$GROUP_PREFIX" -v q="$USER_PREFIX" \
          'index($1, p) == 1 || index($1, q) == 1 { print "g " $1 }'; } | sort
}

# Removes the accounts and groups this run's cubed made (none it found: the
# list in ACCOUNTS_BEFORE, written by `bench_accounts >"$ACCOUNTS_BEFORE"`
# before cubed starts).
remove_accounts() {
    [ -f "$ACCOUNTS_BEFORE" ] || return 0
    local kind name
    while read -r kind name; do
        if [ "$kind" = u ]; then userdel "$name" >/dev/null 2>&1; fi
    done < <(bench_accounts | comm -13 "$ACCOUNTS_BEFORE" -)
    while read -r kind name; do
        if [ "$kind" = g ]; then groupdel "$name" >/dev/null 2>&1; fi
    done < <(bench_accounts | comm -13 "$ACCOUNTS_BEFORE" -)
    rm -f "$ACCOUNTS_BEFORE"
}

# --- clean-up and figures ------------------------------------------------------------

# shellcheck disable=SC2317  # called from the EXIT trap and run_slurm
stop_slurm() {
    stop_pid "$SLURMD_PID" TERM
    stop_pid "$CTLD_PID" TERM
    stop_pid "$MUNGE_PID" TERM
    SLURMD_PID='' CTLD_PID='' MUNGE_PID=''
}

# Stops Slurm, removes the accounts, and with BENCH_KEEP=1 keeps TMP as
# TMP.kept (lib.sh's cleanup then removes the empty TMP it leaves).
# shellcheck disable=SC2317  # called from lib.sh's EXIT trap
cleanup_hook() {
    stop_slurm
    remove_accounts
    if [ "${BENCH_KEEP:-0}" = 1 ] && [ -d "$TMP" ]; then
        [ -n "$SLEEP_FD" ] && exec {SLEEP_FD}>&-
        SLEEP_FD=''
        mv "$TMP" "$TMP.kept" && mkdir "$TMP" && say "kept $TMP.kept (logs, data, slurm.conf)"
    fi
}

# Prints a field of a JSON object file ("?" when absent): jget file key.
jget() {
    "$PY" -c 'import json, sys
v = json.load(open(sys.argv[1])).get(sys.argv[2])
print("?" if v is None else v)' "$1" "$2" 2>/dev/null || echo "?"
}

# Prints a process's CPU time so far, "user+sys s": cpu_s pid.
cpu_s() {
    awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%.1f+%.1f s", $12 / hz, $13 / hz }' \
        "/proc/$1/stat" 2>/dev/null
}

# --- Slurm ---------------------------------------------------------------------------

# Starts munged as user munge with a fresh key under dir/munge and waits for
# its socket: start_munged dir.
start_munged() {
    local dir=$1 i
    mkdir -p "$dir/munge" "$dir/log"
    { chown munge:munge "$dir/munge" && chmod 755 "$dir" "$dir/munge"; } ||
        die "cannot prepare $dir/munge"
    head -c 1024 /dev/urandom >"$dir/munge/munge.key"
    { chown munge:munge "$dir/munge/munge.key" && chmod 400 "$dir/munge/munge.key"; } ||
        die "cannot prepare the munge key"
    setpriv --reuid=munge --regid=munge --init-groups munged -F \
        --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
        --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
        --seed-file="$dir/munge/munged.seed" >"$dir/log/munged.out" 2>&1 &
    MUNGE_PID=$!
    for i in $(seq 1 250); do
        [ -S "$dir/munge/munge.socket" ] && break
        kill -0 "$MUNGE_PID" 2>/dev/null || { cat "$dir/log/munged.out" >&2; MUNGE_PID=''; die "munged exited"; }
        [ "$i" = 250 ] && die "munged made no socket in 5 s"
        msleep 0.02
    done
    return 0
}

# Writes dir/slurm.conf: one node (this host, NPROC CPUs) on loopback ports,
# partition bench, no accounting, job ends logged to dir/jobcomp.txt:
# write_slurm_conf dir host scheduler-parameters oversubscribe.
write_slurm_conf() {
    local dir=$1 host=$2 cport dport
    cport=$(free_port) || die "no free loopback port"
    dport=$(free_port "$cport") || die "no free loopback port"
    touch "$dir/jobcomp.txt"
    cat >"$dir/slurm.conf" <<CONF
ClusterName=cubebench
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$cport
SlurmdPort=$dport
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=error
SlurmdDebug=error
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerParameters=$3
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/jobcomp.txt
NodeName=$host NodeAddr=127.0.0.1 CPUs=$NPROC State=UNKNOWN
PartitionName=bench Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=$4
CONF
}

# Starts munged, slurmctld and slurmd with their state, logs and config under
# dir, exports SLURM_CONF, waits until partition bench is idle and sets
# SLURM_VERSION: start_slurm dir scheduler-parameters oversubscribe.
start_slurm() {
    local dir=$1 host i state
    host=$(hostname -s)
    mkdir -p "$dir/state" "$dir/spool" "$dir/log"
    start_munged "$dir"
    write_slurm_conf "$dir" "$host" "$2" "$3"
    export SLURM_CONF=$dir/slurm.conf
    slurmctld -D -f "$SLURM_CONF" >"$dir/log/slurmctld.out" 2>&1 &
    CTLD_PID=$!
    slurmd -D -f "$SLURM_CONF" -N "$host" >"$dir/log/slurmd.out" 2>&1 &
    SLURMD_PID=$!
    for i in $(seq 1 300); do
        state=$(sinfo -h -p bench -o %T 2>/dev/null)
        [ "$state" = idle ] && break
        kill -0 "$CTLD_PID" 2>/dev/null || { tail -20 "$dir/log/slurmctld.out" "$dir/log/slurmctld.log" >&2; CTLD_PID=''; die "slurmctld exited"; }
        kill -0 "$SLURMD_PID" 2>/dev/null || { tail -20 "$dir/log/slurmd.out" "$dir/log/slurmd.log" >&2; SLURMD_PID=''; die "slurmd exited"; }
        [ "$i" = 300 ] && { tail -20 "$dir/log/"* >&2; die "the Slurm node is not idle after 30 s (state '$state')"; }
        msleep 0.1
    done
    # shellcheck disable=SC2034  # read by the sourcing script
    SLURM_VERSION=$(sinfo -V 2>/dev/null)
}

# --- cubed -------------------------------------------------------------------------

# Makes dir/data and dir/conf.d, picks a free port (PORT) and writes
# dir/cube.yaml: SQLite under dir/data (BENCH_DATABASE: that database
# instead, e.g. a postgres:// URL of an empty database), plugins from
# PLUGIN_DIR, conf.d under dir, no console, warnings only, no access log:
# write_cube_yaml dir.
write_cube_yaml() {
    local dir=$1
    mkdir -p "$dir/data" "$dir/conf.d"
    PORT=$(free_port) || die "no free loopback port"
    cat >"$dir/cube.yaml" <<YAML
listen: "127.0.0.1:$PORT"
data_dir: "$dir/data"
database: "${BENCH_DATABASE:-sqlite}"
plugin_dir: "$PLUGIN_DIR"
conf_dir: "$dir/conf.d"
web_root: ""
log: {level: warn, access: "off"}
YAML
}

# Starts cubed -c dir/cube.yaml (pid in CPID; stdout and stderr in
# dir/cubed.out), waits until 127.0.0.1:port answers /readyz, logs in as
# admin and creates project bench; sets TOKEN: start_cubed_with_project dir port.
start_cubed_with_project() {
    local dir=$1 port=$2 base=http://127.0.0.1:$2 i code
    "$CUBED" -c "$dir/cube.yaml" >"$dir/cubed.out" 2>&1 &
    CPID=$!
    for i in $(seq 1 1000); do
        http_status "$port" /readyz 2>/dev/null
        [ "$HTTP_STATUS" = 200 ] && break
        kill -0 "$CPID" 2>/dev/null || { cat "$dir/cubed.out" >&2; die "cubed exited during start-up"; }
        [ "$i" = 1000 ] && { cat "$dir/cubed.out" >&2; die "cubed not ready after 20 s"; }
        msleep 0.02
    done
    curl -sS -o "$dir/login.json" -X POST "$base/api/v1/auth/login" \
        -d "{\"username\":\"admin\",\"password\":\"$CUBE_ADMIN_PASSWORD\",\"token\":{\"name\":\"bench\"}}" ||
        die "login failed"
    TOKEN=$(sed -n 's/.*"token":"\(cube_[0-9a-f]*\)".*/\1/p' "$dir/login.json")
    [ -n "$TOKEN" ] || die "login answered no token: $(cat "$dir/login.json")"
    code=$(curl -sS -o "$dir/project.json" -w '%{http_code}' -H "Authorization: Bearer $TOKEN" \
        -X POST "$base/api/v1/projects" -d '{"metadata":{"name":"bench"},"spec":{}}')
    [ "$code" = 201 ] || die "creating project bench: $code $(cat "$dir/project.json")"
}
