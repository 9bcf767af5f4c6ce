#!/usr/bin/env bash
# local_vs_slurm.sh — short jobs through cubed's local executor against a
# single-node Slurm on the same machine, in the same run: BENCH_JOBS (1,000)
# jobs running `true`, 1 replica each, submitted by BENCH_CONCURRENCY (16)
# concurrent clients (HTTP keep-alive connections to cubed; sbatch processes
# for Slurm). Measures end-to-end jobs/s (first submit to last completion)
# and the median submit-to-finish latency of each, and their ratios.
# Bars: Cube >= 5x Slurm's jobs/s and <= 0.2x its median latency.
#
# The Slurm is started here (munged, slurmctld, slurmd on loopback, a temp
# config, no accounting) with the tuned settings of the machine notes:
# SchedulerParameters=batch_sched_delay=0 and OverSubscribe=FORCE:16 on the
# partition. Cube requests 1000/16 millicores per job (62m), so both run as
# many jobs at once (16 per CPU). tests/bench/jobs_load.py submits and times.
#
# Prints figures; exits non-zero only when something could not be set up.
# Needs root (slurmd runs jobs as the submitter; the munge key and the local
# executor's OS accounts). Environment:
#   CUBED=path                 cubed binary (default: build ./build)
#   BENCH_PLUGIN_DIR=dir       where the executor plugin is (default: plugins/ of cubed's build)
#   BENCH_EXECUTOR=local|sim|slurm  local (default), or executor-sim with run_seconds 0
#                              (a stand-in that checks the harness, not a figure), or
#                              slurm: Cube's Jobs on a multi-node Slurm pool (executor-slurm)
#                              against the same sbatch calls by hand on that cluster
#                              (tests/bench/cube_on_slurm.sh, its own bars and settings)
#   BENCH_JOBS=1000            jobs per system
#   BENCH_CONCURRENCY=16       concurrent submitters
#   BENCH_CPU, BENCH_MEMORY    spec.resources of the Cube jobs (default 1000/N m, 16Mi)
#   BENCH_SLURM_SCHED=batch_sched_delay=0   SchedulerParameters
#   BENCH_SLURM_OVERSUBSCRIBE=FORCE:16      the partition's OverSubscribe
#   BENCH_TIMEOUT=900          seconds after the first submit to give up, per system
#   BENCH_STALL=60             give up when no job has ended for this long
#   BENCH_ONLY=cube|slurm      run one half only (no ratios)
#   BENCH_KEEP=1               keep the temp dir (logs, data, configs) as <dir>.kept
#
# Usage: bash tests/bench/local_vs_slurm.sh
set -uo pipefail
export LC_ALL=C

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/tests/bench
BENCH_NAME=local_vs_slurm.sh
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$HERE/lib.sh"
# shellcheck source-path=SCRIPTDIR source=slurm_lib.sh
. "$HERE/slurm_lib.sh"

# Cube on Slurm (executor-slurm) against bare Slurm: a script of its own.
[ "${BENCH_EXECUTOR:-}" = slurm ] && exec bash "$HERE/cube_on_slurm.sh"

BAR_TPUT=5      # Cube jobs/s >= 5x Slurm's
BAR_LAT=0.2     # Cube median latency <= 0.2x Slurm's

JOBS=${BENCH_JOBS:-1000}
CONC=${BENCH_CONCURRENCY:-16}
EXECUTOR=${BENCH_EXECUTOR:-local}
SLURM_SCHED=${BENCH_SLURM_SCHED:-batch_sched_delay=0}
SLURM_OVERSUB=${BENCH_SLURM_OVERSUBSCRIBE:-FORCE:16}
TIMEOUT=${BENCH_TIMEOUT:-900}
STALL=${BENCH_STALL:-60}
ONLY=${BENCH_ONLY:-}
posint BENCH_JOBS "$JOBS"
posint BENCH_CONCURRENCY "$CONC"
posint BENCH_TIMEOUT "$TIMEOUT"
posint BENCH_STALL "$STALL"
case $EXECUTOR in local | sim) ;; *) die "BENCH_EXECUTOR must be local or sim (got '$EXECUTOR')" ;; esac
case $ONLY in '' | cube | slurm) ;; *) die "BENCH_ONLY must be cube or slurm (got '$ONLY')" ;; esac
# Jobs per CPU Slurm runs at once (the N of FORCE:N / YES:N; 1 without).
PER_CPU=1
[[ $SLURM_OVERSUB =~ ^(FORCE|YES):([0-9]+)$ ]] && PER_CPU=${BASH_REMATCH[2]}
[[ $SLURM_OVERSUB =~ ^(FORCE|YES)$ ]] && PER_CPU=4   # Slurm's default count
CPU=${BENCH_CPU:-$(( 1000 / PER_CPU ))m}
MEMORY=${BENCH_MEMORY:-16Mi}

# Our own settings must win over whatever the caller's shell exports.
unset CUBE_LISTEN CUBE_DATA_DIR CUBE_DATABASE_URL CUBE_PLUGIN_DIR CUBE_LOG_LEVEL \
      CUBE_ADMIN_TOKEN SLURM_CONF
export CUBE_ADMIN_PASSWORD=bench-admin-password

[ "$(id -u)" -eq 0 ] || die "run as root (Slurm's daemons, the munge key, the local executor's accounts)"

# --- tools -----------------------------------------------------------------------

PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3) || { apt_install python3 && PY=/usr/bin/python3; } ||
    die "cannot install python3"
command -v curl >/dev/null 2>&1 || apt_install curl || die "cannot install curl"
if [ "$ONLY" != cube ]; then
    for t in slurmctld slurmd sbatch sinfo munged; do
        command -v "$t" >/dev/null 2>&1 && continue
        apt_install slurm-wlm || die "cannot install slurm-wlm"
        break
    done
    for t in slurmctld slurmd sbatch sinfo munged setpriv; do
        command -v "$t" >/dev/null 2>&1 || die "$t not found after installing slurm-wlm"
    done
    id munge >/dev/null 2>&1 || die "no munge user (it comes with the munge package)"
fi
NPROC=$(nproc)

# --- cubed -------------------------------------------------------------------------

if [ "$ONLY" != slurm ]; then
    find_cubed
    if [ -n "${BENCH_PLUGIN_DIR:-}" ]; then
        PLUGIN_DIR=$BENCH_PLUGIN_DIR
    else
        PLUGIN_DIR=$(cd "$(dirname "$CUBED")/../plugins" 2>/dev/null && pwd) ||
            PLUGIN_DIR=$ROOT/build/plugins
    fi
    PLUGIN=executor-$EXECUTOR
    [ -e "$PLUGIN_DIR/$PLUGIN/cube-$PLUGIN.so" ] || [ -e "$PLUGIN_DIR/cube-$PLUGIN.so" ] ||
        die "cube-$PLUGIN.so not found under $PLUGIN_DIR (not built yet? BENCH_EXECUTOR=sim runs the stand-in)"
fi

# --- temp dir and clean-up -------------------------------------------------------------

TMP=$(mktemp -d -t cube-bench-lvs.XXXXXX) || die "mktemp failed"
chmod 755 "$TMP"   # munged (user munge) must reach its socket dir
bench_tmp_setup

LONE=3                      # lone jobs per system, one after the other (no bar)
CUBE_LONE=() SLURM_LONE=()  # their latencies (ms)
USER_PREFIX=cbench- GROUP_PREFIX=cbench-p-
ACCOUNTS_BEFORE=$TMP/accounts.before

# --- Cube ------------------------------------------------------------------------------

run_cube() {
    local dir=$TMP/cube port i token
    write_cube_yaml "$dir"
    port=$PORT
    if [ "$EXECUTOR" = local ]; then
        # conf.d/20-executor-local.yaml's settings; only the account and group
        # prefixes differ, so that the accounts made here can be removed.
        CUBE_SETTINGS="executor-local: pool default, sandbox none, cgroup auto, poll_ms 50 (the shipped conf.d settings), OS accounts ${USER_PREFIX}<user>"
        cat >"$dir/conf.d/20-executor-local.yaml" <<YAML
plugin: executor-local
enabled: true
config:
  pool: default
  reserved_cpus: 0
  reserved_memory: "0"
  uid_min: 20000
  uid_max: 29999
  user_prefix: $USER_PREFIX
  group_prefix: $GROUP_PREFIX
  sandbox: none
  cgroup: auto
  pids_max: 16384
  timeout_grace_seconds: 10
  poll_ms: 50
YAML
        bench_accounts >"$ACCOUNTS_BEFORE"
    else
        local mem_gi
        mem_gi=$(awk '$1 == "MemTotal:" { printf "%d", $2 / 1048576 }' /proc/meminfo)
        [ "${mem_gi:-0}" -ge 1 ] || mem_gi=1
        CUBE_SETTINGS="executor-sim STAND-IN (no process runs): 1 node, cpu $NPROC, memory ${mem_gi}Gi, run_seconds 0, tick_ms 50"
        cat >"$dir/conf.d/20-executor-sim.yaml" <<YAML
plugin: executor-sim
enabled: true
config:
  pool: default
  run_seconds: 0
  tick_ms: 50
  admin_routes: false
  node_groups:
    - prefix: sim-
      count: 1
      cpu: "$NPROC"
      memory: ${mem_gi}Gi
YAML
    fi
    start_cubed_with_project "$dir" "$port"
    token=$TOKEN
    CUBE_VERSION=$("$CUBED" --version 2>/dev/null | head -1)
    say "cube: warm-up job (not counted) ..."
    bg_wait "$PY" "$HERE/jobs_load.py" cube --port "$port" --token "$token" --jobs 1 \
        --prefix warm- --cpu "$CPU" --memory "$MEMORY" --timeout 60 --stall 60 \
        >"$dir/warm.json" 2>"$dir/warm.err" || { cat "$dir/warm.err" >&2; die "jobs_load.py failed"; }
    [ "$(jget "$dir/warm.json" completed)" = 1 ] ||
        { tail -20 "$dir/cubed.out" >&2; die "the warm-up job did not finish: $(cat "$dir/warm.json")"; }
    say "cube: $LONE lone jobs, one after the other ..."
    for i in $(seq 1 "$LONE"); do
        bg_wait "$PY" "$HERE/jobs_load.py" cube --port "$port" --token "$token" --jobs 1 \
            --prefix "lone$i-" --cpu "$CPU" --memory "$MEMORY" --timeout 60 --stall 60 \
            >"$dir/lone$i.json" 2>>"$dir/lone.err" || { cat "$dir/lone.err" >&2; die "jobs_load.py failed"; }
        CUBE_LONE+=("$(jget "$dir/lone$i.json" p50_ms)")
    done
    say "cube: $JOBS jobs, $CONC concurrent submitters ..."
    bg_wait "$PY" "$HERE/jobs_load.py" cube --port "$port" --token "$token" --jobs "$JOBS" \
        --threads "$CONC" --prefix job- --cpu "$CPU" --memory "$MEMORY" \
        --timeout "$TIMEOUT" --stall "$STALL" >"$TMP/cube.json" 2>"$dir/load.err" ||
        { cat "$dir/load.err" >&2; die "jobs_load.py failed"; }
    CUBE_RSS_KIB=$(proc_field "$CPID" VmHWM)
    CUBE_CPU=$(cpu_s "$CPID")
    stop_pid "$CPID" TERM
    CPID=''
    grep -E ' (ERROR|WARN) ' "$dir/cubed.out" | sed -E 's/^[0-9T:.Z-]+ +//' | tr -c '[:print:]\n' '?' | cut -c1-160 |
        sort | uniq -c | sort -rn | head -5 >"$TMP/cube.log-notes"
    remove_accounts
}

# --- Slurm -----------------------------------------------------------------------------

run_slurm() {
    local dir=$TMP/slurm i
    SLURM_LINES=(
        "SchedulerParameters=$SLURM_SCHED"
        "PartitionName=bench ... OverSubscribe=$SLURM_OVERSUB"
        "SelectType=select/cons_tres SelectTypeParameters=CR_Core"
        "ProctrackType=proctrack/linuxproc TaskPlugin=task/none"
        "AccountingStorageType=accounting_storage/none JobAcctGatherType=jobacct_gather/none"
        "JobCompType=jobcomp/filetxt SlurmctldDebug=error SlurmdDebug=error"
        "NodeName=$(hostname -s) NodeAddr=127.0.0.1 CPUs=$NPROC"
    )
    start_slurm "$dir" "$SLURM_SCHED" "$SLURM_OVERSUB"
    cd "$dir" || die "cd $dir"
    say "slurm: warm-up job (not counted) ..."
    bg_wait "$PY" "$HERE/jobs_load.py" slurm --jobcomp "$dir/jobcomp.txt" --jobs 1 \
        --prefix warm- --timeout 60 --stall 60 >"$dir/warm.json" 2>"$dir/warm.err" ||
        { cat "$dir/warm.err" >&2; die "jobs_load.py failed"; }
    [ "$(jget "$dir/warm.json" completed)" = 1 ] ||
        { tail -20 "$dir/log/"* >&2; die "the Slurm warm-up job did not finish: $(cat "$dir/warm.json")"; }
    say "slurm: $LONE lone jobs, one after the other ..."
    for i in $(seq 1 "$LONE"); do
        bg_wait "$PY" "$HERE/jobs_load.py" slurm --jobcomp "$dir/jobcomp.txt" --jobs 1 \
            --prefix "lone$i-" --timeout 60 --stall 60 >"$dir/lone$i.json" 2>>"$dir/lone.err" ||
            { cat "$dir/lone.err" >&2; die "jobs_load.py failed"; }
        SLURM_LONE+=("$(jget "$dir/lone$i.json" p50_ms)")
    done
    say "slurm: $JOBS jobs, $CONC concurrent sbatch ..."
    bg_wait "$PY" "$HERE/jobs_load.py" slurm --jobcomp "$dir/jobcomp.txt" --jobs "$JOBS" \
        --threads "$CONC" --prefix job- --timeout "$TIMEOUT" --stall "$STALL" \
        >"$TMP/slurm.json" 2>"$dir/load.err" || { cat "$dir/load.err" >&2; die "jobs_load.py failed"; }
    cd "$ROOT" || true
    stop_slurm
    unset SLURM_CONF
}

T0=$SECONDS
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
[ "$ONLY" = slurm ] || run_cube
[ "$ONLY" = cube ] || run_slurm

# --- figures ---------------------------------------------------------------------------

# A system's figure; "?" when it did not run, with a "*" when not every job
# was submitted and seen to end (then it counts those that were).
fig() { # system key
    local f=$TMP/$1.json v
    [ -f "$f" ] || { echo "?"; return; }
    v=$(jget "$f" "$2")
    if [ "$(jget "$f" completed)" != "$JOBS" ] && [ "$v" != "?" ]; then v="$v*"; fi
    printf '%s\n' "$v"
}
note() { # system: says what went wrong, if anything
    local f=$TMP/$1.json
    [ -f "$f" ] || return 0
    local c s e fl
    c=$(jget "$f" completed) s=$(jget "$f" submitted) e=$(jget "$f" errors) fl=$(jget "$f" failed)
    [ "$s" != "$JOBS" ] && say "* $1: $e of $JOBS submits failed, e.g. $(jget "$f" error_samples)"
    [ "$c" != "$s" ] && say "* $1: $(jget "$f" missing) of $s submitted jobs were not seen to end (timeout ${TIMEOUT}s, stall ${STALL}s; their phases: $(jget "$f" missing_phases)); figures marked * count the $c that did and are no measurement"
    [ "$fl" != 0 ] && [ "$fl" != "?" ] && say "* $1: $fl jobs ended unsuccessfully (counted as ended)"
    return 0
}
median_of() { # values: their median, "-" when none is a number
    printf '%s\n' "$@" | grep -E '^[0-9.]+$' | sort -n | awk '{ v[++n] = $1 } END {
        if (!n) { print "-"; exit }
        print (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }'
}
verdict() { # value op bar (a value with a "*" is partial: no verdict)
    awk -v v="$1" -v op="$2" -v b="$3" 'BEGIN {
        p = sub(/\*$/, "", v)
        if (v !~ /^[0-9.]+$/) { print "not measured"; exit }
        ok = (op == ">=") ? (v + 0 >= b + 0) : (v + 0 <= b + 0)
        if (p) print "not measured (partial run; would be " (ok ? "met" : "below bar") ")"
        else print ok ? "meets bar" : "below bar" }'
}
pratio() { # a b: ratio, with a "*" when either is partial
    local r
    r=$(ratio "${1%\*}" "${2%\*}")
    [[ $1 == *'*' || $2 == *'*' ]] && [ "$r" != "?" ] && r="$r*"
    printf '%s\n' "$r"
}
row() { # label cube slurm ratio bar verdict
    printf '%-40s %12s %12s %10s %9s   %s\n' "$1" "$2" "$3" "$4" "$5" "$6"
}
raw() { # system key: the value even when incomplete
    [ -f "$TMP/$1.json" ] && jget "$TMP/$1.json" "$2" || echo "-"
}

C_TPUT=$(fig cube jobs_per_s)   S_TPUT=$(fig slurm jobs_per_s)
C_P50=$(fig cube p50_ms)        S_P50=$(fig slurm p50_ms)
R_TPUT=$(pratio "$C_TPUT" "$S_TPUT")
R_P50=$(pratio "$C_P50" "$S_P50")
if [ "$EXECUTOR" = local ]; then CLABEL="Cube local"; else CLABEL="Cube SIM"; fi

say ""
say "== Cube $EXECUTOR executor vs Slurm: $JOBS jobs of \`true\` each (nproc $NPROC, same run) =="
say "load:    $JOBS jobs, 1 replica, $CONC concurrent submitters (HTTP keep-alive connections to"
say "         cubed; sbatch processes for Slurm); before it, per system, one warm-up job (not"
say "         counted) and $LONE lone jobs one after the other (their latency, no bar)"
if [ "$ONLY" != slurm ]; then
    say "cube:    ${CUBE_VERSION:-cubed} ($CUBED), store ${BENCH_DATABASE:-sqlite}, POST /api/v1/projects/bench/jobs"
    say "         spec {command: [true], resources: {cpu: $CPU, memory: $MEMORY}}"
    say "         $CUBE_SETTINGS"
    say "         completion: a watch event (?watch=1) with phase Succeeded/Failed"
fi
if [ "$ONLY" != cube ]; then
    say "slurm:   ${SLURM_VERSION:-slurm}, one node on loopback (munged, slurmctld, slurmd started here),"
    say "         sbatch --parsable -o /dev/null -e /dev/null -J NAME --wrap true; tuned settings used:"
    for l in "${SLURM_LINES[@]}"; do say "           $l"; done
    say "         completion: its line in the jobcomp/filetxt file (read every 5 ms)"
fi
say "latency: from just before the submit request to when its completion was seen (one clock)"
say "jobs/s:  jobs / (first submit to last completion)"
say ""
note cube
note slurm
row "" "$CLABEL" "Slurm" "ratio" "bar" "verdict"
row "jobs/s (first submit to last completion)" "$C_TPUT" "$S_TPUT" "${R_TPUT}x" ">= ${BAR_TPUT}x" \
    "$(verdict "$R_TPUT" ">=" "$BAR_TPUT")"
row "median submit-to-finish latency (ms)" "$C_P50" "$S_P50" "${R_P50}x" "<= ${BAR_LAT}x" \
    "$(verdict "$R_P50" "<=" "$BAR_LAT")"
row "p90 / p99 latency (ms)" "$(raw cube p90_ms)/$(raw cube p99_ms)" "$(raw slurm p90_ms)/$(raw slurm p99_ms)" "" "" ""
row "max latency (ms)" "$(raw cube max_ms)" "$(raw slurm max_ms)" "" "" ""
row "lone job latency, median of $LONE (ms)" "$(median_of "${CUBE_LONE[@]}")" "$(median_of "${SLURM_LONE[@]}")" \
    "$(ratio "$(median_of "${CUBE_LONE[@]}")" "$(median_of "${SLURM_LONE[@]}")")x" "" "(no bar)"
row "wall: first submit to last end (s)" "$(raw cube wall_s)" "$(raw slurm wall_s)" "" "" ""
row "all submits answered after (s)" "$(raw cube submit_s)" "$(raw slurm submit_s)" "" "" ""
row "submit round trip p50 / p99 (ms)" "$(raw cube submit_p50_ms)/$(raw cube submit_p99_ms)" "$(raw slurm submit_p50_ms)/$(raw slurm submit_p99_ms)" "" "" ""
row "server's own submit-to-end p50 (ms)" "$(raw cube server_p50_ms)" "$(raw slurm server_p50_ms)" "" "" ""
[ -f "$TMP/cube.json" ] && say "Cube's steps, p50 of its timestamps (ms): $("$PY" -c 'import json, sys
s = json.load(open(sys.argv[1])).get("steps_p50_ms") or {}
print("queued->admitted %s, admitted->started %s, started->finished %s"
      % (s.get("admit"), s.get("start"), s.get("end")))' "$TMP/cube.json")"
say ""
say "Cube: throughput ${R_TPUT}x Slurm's (bar >= ${BAR_TPUT}x): $(verdict "$R_TPUT" ">=" "$BAR_TPUT")"
say "Cube: median latency ${R_P50}x Slurm's (bar <= ${BAR_LAT}x): $(verdict "$R_P50" "<=" "$BAR_LAT")"
[ "$EXECUTOR" = sim ] &&
    say "NOTE: BENCH_EXECUTOR=sim runs no process; this checks the harness, it is not Cube's figure."
say "(server's own figure: Cube status.finished - status.queued in ms; Slurm EndTime - SubmitTime in"
say " whole seconds. Jobs queue behind the slots in a burst like this, so the median latency is"
say " mostly waiting time: compare it between the two, not with a lone job's.)"
if [ -s "$TMP/cube.log-notes" ]; then
    say "cubed's warnings and errors during the run (count, message):"
    sed 's/^/  /' "$TMP/cube.log-notes"
fi
[ -n "${CUBE_RSS_KIB:-}" ] && say "cubed: peak RSS $(kib_to_mib "$CUBE_RSS_KIB") MiB, CPU time (user+sys) ${CUBE_CPU:-?} from start to the last job"
say "machine load average at the start: $LOAD0, at the end: $(cut -d' ' -f1-3 /proc/loadavg) (nproc $NPROC);"
say "total run time $(( SECONDS - T0 )) s. Other work on the machine skews the figures: rerun on a quiet one."
exit 0
