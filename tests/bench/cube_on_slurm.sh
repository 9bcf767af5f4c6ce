#!/usr/bin/env bash
# cube_on_slurm.sh — Cube's Jobs on a Slurm pool (executor-slurm, cube
# mode, or slurm mode with BENCH_MODE=slurm) against the same sbatch calls
# made by hand, on one tuned multi-node test cluster (tests/slurm/cluster.sh:
# slurmctld and BENCH_NODES slurmd in network namespaces), in the same run.
# `BENCH_EXECUTOR=slurm bash tests/bench/local_vs_slurm.sh` runs this script.
#
# Both halves send BENCH_JOBS (1,000) one-replica jobs running `true`
# from BENCH_CONCURRENCY (16) concurrent clients (tests/bench/jobs_load.py):
#   cube:  POST /api/v1/projects/bench/jobs {command [true], resources {cpu 1,
#          memory 16Mi}} over keep-alive connections; cubed's executor-slurm
#          turns each into one sbatch (a batch script running the replica
#          as one srun step) and watches it with squeue; done = a watch
#          event with a terminal phase.
#   slurm: sbatch --parsable -p cube --nodes=1 --ntasks=1 --cpus-per-task=1
#          --mem=16M --wrap 'srun true' (the same allocation and one job
#          step, as Cube's), from 16 processes at once; done = its line in
#          the jobcomp/filetxt file (read every 5 ms).
# Before each burst, BENCH_LONE (5) lone jobs one after the other give the
# latency without queueing. Bars: Cube's jobs/s >= 0.9x bare Slurm's, and
# Cube's added latency p50 (median lone-job latency, Cube minus Slurm)
# <= 50 ms. Prints Slurm's settings used.
#
# Prints figures; exits non-zero only when something could not be set up.
# Needs root (the cluster; jobs run as OS account BENCH_ACCOUNT, made here
# when missing and removed after). Environment:
#   CUBED=path               cubed binary (default: build ./build)
#   BENCH_PLUGIN_DIR=dir     where cube-executor-slurm.so is (default: plugins/ of cubed's build)
#   BENCH_JOBS=1000  BENCH_CONCURRENCY=16  BENCH_LONE=5
#   BENCH_NODES=3            slurmd nodes (2..3)
#   BENCH_NODE_CPUS=16       CPUs each node is configured with (config_overrides)
#   BENCH_SLURM_SCHED=batch_sched_delay=0,sched_min_interval=0,default_queue_depth=1000
#   BENCH_POLL_MS=50         executor-slurm's poll_ms
#   BENCH_MODE=cube          executor-slurm's mode: cube (Cube places each
#                            replica) or slurm (Slurm's queue orders them;
#                            BENCH_OVERCOMMIT=4 its overcommit)
#   BENCH_BACKLOG=0.25       cube mode's backlog (capacity x (1 + it))
#   BENCH_ACCOUNT=cbench-slurm   the OS/Slurm account Cube's admin runs as
#   BENCH_TIMEOUT=900  BENCH_STALL=60  BENCH_KEEP=1 (keep the temp dir)
#
# Usage: bash tests/bench/cube_on_slurm.sh
set -uo pipefail
export LC_ALL=C

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/tests/bench
CLUSTER=$ROOT/tests/slurm/cluster.sh
BENCH_NAME=cube_on_slurm.sh
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$HERE/lib.sh"
# shellcheck source-path=SCRIPTDIR source=slurm_lib.sh
. "$HERE/slurm_lib.sh"

BAR_TPUT=0.9    # Cube jobs/s >= 0.9x bare Slurm's
BAR_ADDED=50    # Cube's added latency p50 <= 50 ms

JOBS=${BENCH_JOBS:-1000}
CONC=${BENCH_CONCURRENCY:-16}
LONE=${BENCH_LONE:-5}
NODES=${BENCH_NODES:-3}
NODE_CPUS=${BENCH_NODE_CPUS:-16}
SCHED=${BENCH_SLURM_SCHED:-batch_sched_delay=0,sched_min_interval=0,default_queue_depth=1000}
POLL_MS=${BENCH_POLL_MS:-50}
MODE=${BENCH_MODE:-cube}
OVERCOMMIT=${BENCH_OVERCOMMIT:-4}
BACKLOG=${BENCH_BACKLOG:-0.25}
case $MODE in cube | slurm) ;; *) die "BENCH_MODE: cube or slurm, not $MODE" ;; esac
ACCOUNT=${BENCH_ACCOUNT:-cbench-slurm}
TIMEOUT=${BENCH_TIMEOUT:-900}
STALL=${BENCH_STALL:-60}
for v in JOBS CONC LONE NODE_CPUS POLL_MS TIMEOUT STALL; do posint "BENCH_$v" "${!v}"; done
case $NODES in 2 | 3) ;; *) die "BENCH_NODES must be 2 or 3 (got '$NODES')" ;; esac

unset CUBE_LISTEN CUBE_DATA_DIR CUBE_DATABASE_URL CUBE_PLUGIN_DIR CUBE_LOG_LEVEL \
      CUBE_ADMIN_TOKEN SLURM_CONF
export CUBE_ADMIN_PASSWORD=bench-admin-password

[ "$(id -u)" -eq 0 ] || die "run as root (the Slurm cluster, network namespaces, the job account)"
PY=/usr/bin/python3
[ -x "$PY" ] || die "needs /usr/bin/python3"
command -v curl >/dev/null 2>&1 || die "needs curl"
out=$("$CLUSTER" check) || die "this machine cannot run the test cluster: $out"
NPROC=$(nproc)

find_cubed
PLUGIN_DIR=${BENCH_PLUGIN_DIR:-$(cd "$(dirname "$CUBED")/../plugins" 2>/dev/null && pwd)}
[ -e "$PLUGIN_DIR/executor-slurm/cube-executor-slurm.so" ] ||
    [ -e "$PLUGIN_DIR/cube-executor-slurm.so" ] ||
    die "cube-executor-slurm.so not found under $PLUGIN_DIR (not built yet?)"

TMP=$(mktemp -d -t cube-bench-cos.XXXXXX) || die "mktemp failed"
chmod 755 "$TMP"
bench_tmp_setup
CL=$TMP/cluster MADE_ACCOUNT=0

# shellcheck disable=SC2317  # lib.sh's EXIT trap calls it
cleanup_hook() {
    "$CLUSTER" stop "$CL" >/dev/null 2>&1
    [ "$MADE_ACCOUNT" = 1 ] && userdel "$ACCOUNT" >/dev/null 2>&1
    if [ "${BENCH_KEEP:-0}" = 1 ] && [ -d "$TMP" ]; then
        [ -n "$SLEEP_FD" ] && exec {SLEEP_FD}>&-
        SLEEP_FD=''
        mv "$TMP" "$TMP.kept" && mkdir "$TMP" && say "kept $TMP.kept"
    fi
}

if ! id "$ACCOUNT" >/dev/null 2>&1; then
    useradd -M -d /nonexistent -s /bin/bash "$ACCOUNT" || die "useradd $ACCOUNT failed"
    MADE_ACCOUNT=1
fi

# --- the cluster ------------------------------------------------------------------

say "starting a $NODES-node Slurm cluster ($NODE_CPUS CPUs a node) ..."
CLUSTER_SCHED=$SCHED CLUSTER_NODE_CPUS=$NODE_CPUS "$CLUSTER" start "$CL" "$NODES" \
    >"$TMP/cluster.out" 2>&1 || { cat "$TMP/cluster.out" >&2; die "cluster.sh start failed"; }
# shellcheck disable=SC1091
. "$CL/env"
export SLURM_CONF
SLURM_VERSION=$(sinfo -V 2>/dev/null)

load() { # name jobs_load.py-arguments...: runs it, output in TMP/name.json
    local name=$1
    shift
    bg_wait "$PY" "$HERE/jobs_load.py" "$@" --timeout "$TIMEOUT" --stall "$STALL" \
        >"$TMP/$name.json" 2>"$TMP/$name.err" || { cat "$TMP/$name.err" >&2; die "jobs_load.py $name failed"; }
}

# --- Cube ------------------------------------------------------------------------------

run_cube() {
    local dir=$TMP/cube i
    write_cube_yaml "$dir"
    cat >"$dir/conf.d/20-executor-slurm.yaml" <<YAML
plugin: executor-slurm
enabled: true
config:
  mode: $MODE
  overcommit: $OVERCOMMIT
  backlog: $BACKLOG
  partitions: [{name: cube, pool: default}]
  slurm_conf: "$SLURM_CONF"
  spool_dir: "$TMP/spool"
  accounts: {admin: $ACCOUNT}
  poll_ms: $POLL_MS
  node_refresh_ms: 5000
YAML
    CUBE_SETTINGS="executor-slurm: mode $MODE$([ "$MODE" = slurm ] && echo " (overcommit $OVERCOMMIT)" || echo " (backlog $BACKLOG)"), partition cube as pool default, poll_ms $POLL_MS, node_refresh_ms 5000, jobs as account $ACCOUNT"
    start_cubed_with_project "$dir" "$PORT"
    CUBE_VERSION=$("$CUBED" --version 2>/dev/null | head -1)
    # the pool is Ready once the plugin has read the nodes
    for i in $(seq 1 100); do
        curl -sf -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/api/v1/slurm" |
            grep -q '"phase":"Ready"' && break
        [ "$i" = 100 ] && { tail -20 "$dir/cubed.out" >&2; die "the Slurm pool is not Ready after 10 s"; }
        msleep 0.1
    done
    local common=(cube --port "$PORT" --token "$TOKEN" --cpu 1 --memory 16Mi)
    say "cube: warm-up job, then $LONE lone jobs ..."
    load cube-warm "${common[@]}" --jobs 1 --prefix warm-
    [ "$(jget "$TMP/cube-warm.json" completed)" = 1 ] ||
        { tail -20 "$dir/cubed.out" >&2; die "the warm-up job did not finish: $(cat "$TMP/cube-warm.json")"; }
    for i in $(seq 1 "$LONE"); do
        load "cube-lone$i" "${common[@]}" --jobs 1 --prefix "lone$i-"
        CUBE_LONE+=("$(jget "$TMP/cube-lone$i.json" p50_ms)")
    done
    say "cube: $JOBS jobs, $CONC concurrent submitters ..."
    load cube "${common[@]}" --jobs "$JOBS" --threads "$CONC" --prefix job-
    CUBE_CPU=$(cpu_s "$CPID")
    CUBE_RSS_KIB=$(proc_field "$CPID" VmHWM)
    curl -sf -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/api/v1/slurm" >"$TMP/status.json"
    stop_pid "$CPID" TERM
    CPID=''
    grep -E ' (ERROR|WARN) ' "$dir/cubed.out" | sed -E 's/^[0-9T:.Z-]+ +//' | cut -c1-160 |
        sort | uniq -c | sort -rn | head -5 >"$TMP/cube.log-notes"
}

# --- bare Slurm ------------------------------------------------------------------------

BARE_ARGS=(-p cube --nodes=1 --ntasks=1 --cpus-per-task=1 --mem=16M)
BARE_WRAP="srun true"
run_slurm() {
    local i a=()
    for i in "${BARE_ARGS[@]}"; do a+=(--sbatch-arg="$i"); done
    a+=(--wrap "$BARE_WRAP")
    say "slurm: warm-up job, then $LONE lone jobs ..."
    load slurm-warm slurm --jobcomp "$CL/jobcomp.txt" "${a[@]}" --jobs 1 --prefix warm-
    [ "$(jget "$TMP/slurm-warm.json" completed)" = 1 ] ||
        die "the Slurm warm-up job did not finish: $(cat "$TMP/slurm-warm.json")"
    for i in $(seq 1 "$LONE"); do
        load "slurm-lone$i" slurm --jobcomp "$CL/jobcomp.txt" "${a[@]}" --jobs 1 --prefix "lone$i-"
        SLURM_LONE+=("$(jget "$TMP/slurm-lone$i.json" p50_ms)")
    done
    say "slurm: $JOBS jobs, $CONC concurrent sbatch ..."
    load slurm slurm --jobcomp "$CL/jobcomp.txt" "${a[@]}" --jobs "$JOBS" --threads "$CONC" --prefix job-
}

CUBE_LONE=() SLURM_LONE=()
T0=$SECONDS
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
run_cube
run_slurm

# --- figures ---------------------------------------------------------------------------

median_of() {
    printf '%s\n' "$@" | grep -E '^[0-9.]+$' | sort -n | awk '{ v[++n] = $1 } END {
        if (!n) { print "-"; exit }
        print (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }'
}
fig() { # system key: "?" absent, a "*" when not every job ended
    local v
    v=$(jget "$TMP/$1.json" "$2")
    [ "$(jget "$TMP/$1.json" completed)" != "$JOBS" ] && [ "$v" != "?" ] && v="$v*"
    printf '%s\n' "$v"
}
verdict() { # value op bar
    awk -v v="$1" -v op="$2" -v b="$3" 'BEGIN {
        p = sub(/\*$/, "", v)
        if (v !~ /^-?[0-9.]+$/) { print "not measured"; exit }
        ok = (op == ">=") ? (v + 0 >= b + 0) : (v + 0 <= b + 0)
        if (p) print "not measured (partial run; would be " (ok ? "met" : "below bar") ")"
        else print ok ? "meets bar" : "misses bar" }'
}
row() { printf '%-44s %12s %12s %10s %9s   %s\n' "$@"; }

C_TPUT=$(fig cube jobs_per_s) S_TPUT=$(fig slurm jobs_per_s)
R_TPUT=$(ratio "${C_TPUT%\*}" "${S_TPUT%\*}")
[[ $C_TPUT == *'*' || $S_TPUT == *'*' ]] && R_TPUT="$R_TPUT*"
C_LONE=$(median_of "${CUBE_LONE[@]}") S_LONE=$(median_of "${SLURM_LONE[@]}")
ADDED=$(awk -v a="$C_LONE" -v b="$S_LONE" 'BEGIN { if (a !~ /^[0-9.]+$/ || b !~ /^[0-9.]+$/) print "?"; else printf "%.1f", a - b }')
C_P50=$(fig cube p50_ms) S_P50=$(fig slurm p50_ms)

say ""
say "== Cube on Slurm (executor-slurm) vs bare Slurm: $JOBS jobs each, same cluster, same run =="
say "cube:    ${CUBE_VERSION:-cubed}, store ${BENCH_DATABASE:-sqlite}; $CUBE_SETTINGS"
say "         POST /api/v1/projects/bench/jobs {command: [true], resources: {cpu: 1, memory: 16Mi}}"
say "bare:    sbatch --parsable -o /dev/null -e /dev/null -J NAME ${BARE_ARGS[*]} --wrap '$BARE_WRAP'"
say "load:    $CONC concurrent submitters; before each burst a warm-up job and $LONE lone jobs"
say "slurm:   $SLURM_VERSION, slurmctld + $NODES slurmd (network namespaces, tests/slurm/cluster.sh); settings used:"
grep -E '^(SchedulerType|SchedulerParameters|SelectType|SelectTypeParameters|ProctrackType|TaskPlugin|AccountingStorageType|JobAcctGatherType|JobCompType|MinJobAge|SlurmctldDebug|SlurmdDebug|NodeName|PartitionName)=' \
    "$SLURM_CONF" | sed 's/^/           /'
say ""
row "" "Cube" "bare Slurm" "ratio" "bar" "verdict"
row "jobs/s (first submit to last completion)" "$C_TPUT" "$S_TPUT" "${R_TPUT}x" ">= ${BAR_TPUT}x" \
    "$(verdict "$R_TPUT" ">=" "$BAR_TPUT")"
row "lone job latency, median of $LONE (ms)" "$C_LONE" "$S_LONE" "+$ADDED" "<= +$BAR_ADDED" \
    "$(verdict "$ADDED" "<=" "$BAR_ADDED")"
row "burst latency p50 (ms)" "$C_P50" "$S_P50" "" "" "(queueing; no bar)"
row "burst latency p90 / p99 (ms)" "$(jget "$TMP/cube.json" p90_ms)/$(jget "$TMP/cube.json" p99_ms)" \
    "$(jget "$TMP/slurm.json" p90_ms)/$(jget "$TMP/slurm.json" p99_ms)" "" "" ""
row "submit round trip p50 / p99 (ms)" "$(jget "$TMP/cube.json" submit_p50_ms)/$(jget "$TMP/cube.json" submit_p99_ms)" \
    "$(jget "$TMP/slurm.json" submit_p50_ms)/$(jget "$TMP/slurm.json" submit_p99_ms)" "" "" ""
row "wall: first submit to last end (s)" "$(jget "$TMP/cube.json" wall_s)" "$(jget "$TMP/slurm.json" wall_s)" "" "" ""
row "jobs failed / not seen to end" "$(jget "$TMP/cube.json" failed)/$(jget "$TMP/cube.json" missing)" \
    "$(jget "$TMP/slurm.json" failed)/$(jget "$TMP/slurm.json" missing)" "" "" ""
say "Cube's steps, p50 (ms): $("$PY" -c 'import json, sys
s = json.load(open(sys.argv[1])).get("steps_p50_ms") or {}
print("queued->admitted %s, admitted->started %s, started->finished %s"
      % (s.get("admit"), s.get("start"), s.get("end")))' "$TMP/cube.json")"
say "executor-slurm after the run: $("$PY" -c 'import json, sys
s = json.load(open(sys.argv[1]))
print("submits %s, failed submits %s" % (s.get("submitted"), s.get("submitFailures")))' "$TMP/status.json" 2>/dev/null)"
say ""
say "Cube: throughput ${R_TPUT}x bare Slurm's (bar >= ${BAR_TPUT}x): $(verdict "$R_TPUT" ">=" "$BAR_TPUT")"
say "Cube: added latency p50 ${ADDED} ms (bar <= ${BAR_ADDED} ms): $(verdict "$ADDED" "<=" "$BAR_ADDED")"
[ -s "$TMP/cube.log-notes" ] && { say "cubed's warnings and errors (count, message):"; sed 's/^/  /' "$TMP/cube.log-notes"; }
say "cubed: peak RSS $(kib_to_mib "${CUBE_RSS_KIB:-}") MiB, CPU time ${CUBE_CPU:-?}"
say "load average at the start: $LOAD0, at the end: $(cut -d' ' -f1-3 /proc/loadavg) (nproc $NPROC);"
say "total run time $(( SECONDS - T0 )) s. Other work on the machine skews the figures: rerun on a quiet one."
exit 0
