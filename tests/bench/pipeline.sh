#!/usr/bin/env bash
# pipeline.sh — one DAG of BENCH_LAYERS x BENCH_WIDTH (20 x 50 = 1,000)
# tasks running `true`, each depending on BENCH_DEPS (2) tasks of the layer
# before (BENCH_DEPS=50: every one, a barrier), three ways in the same run:
#   cube   one PipelineRun (executor-local, spec.parallelism BENCH_PARALLELISM,
#          50: a layer at once), timed from the run request to its end seen
#          through a watch
#   make   the same graph as a Makefile, `make -j2`
#   floor  (task_floor.sh) the same number of tasks run BENCH_PARALLELISM at
#          a time, each with what every Cube task must have (its own
#          account, the private mount view, cgroups, a supervisor that
#          records its exit) and none of Cube's control: the least any
#          isolated runner could take
#   slurm  a single-node Slurm started here (the tuned settings of
#          local_vs_slurm.sh), one sbatch per task with
#          --dependency=afterok:<upstreams>, from the first sbatch to the last
#          job's line in the jobcomp file
# Prints the three wall times, their ratios, and Cube's overhead per task
# ((cube - make) / tasks) with its split from the Jobs' own timestamps:
# dispatch (the last upstream ended -> the task's Job created: the pipeline
# controller), queue (created -> started: scheduler and executor), run
# (started -> ended: the process and collecting its end).
# Bars: Cube <= 2x make; overhead <= 2 ms per task.
#
# Needs root (Slurm's daemons and munge key; executor-local's accounts).
# Environment: CUBED (default: build ./build), BENCH_LAYERS=20, BENCH_WIDTH=50,
# BENCH_DEPS=2, BENCH_PARALLELISM=50, BENCH_ONLY=cube|make|floor|slurm,
# BENCH_TIMEOUT=900, BENCH_KEEP=1 (keep the temp dir), BENCH_THREADS (cubed's limits.threads),
# BENCH_PASS_GAP_MS (the pipeline's pass_gap_ms; default: the plugin's).
#
# Usage: bash tests/bench/pipeline.sh
set -uo pipefail
export LC_ALL=C

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/tests/bench
BENCH_NAME=pipeline.sh
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$HERE/lib.sh"
# shellcheck source-path=SCRIPTDIR source=slurm_lib.sh
. "$HERE/slurm_lib.sh"

BAR_RATIO=2     # Cube wall <= 2x make -j2
BAR_OVERHEAD=2  # ms per task

LAYERS=${BENCH_LAYERS:-20}
WIDTH=${BENCH_WIDTH:-50}
DEPS=${BENCH_DEPS:-2}
PAR=${BENCH_PARALLELISM:-50}
TIMEOUT=${BENCH_TIMEOUT:-900}
ONLY=${BENCH_ONLY:-}
for v in LAYERS WIDTH DEPS PAR TIMEOUT; do posint "BENCH_$v" "${!v}"; done
case $ONLY in '' | cube | make | floor | slurm) ;;
    *) die "BENCH_ONLY must be cube, make, floor or slurm" ;; esac
TASKS=$(( LAYERS * WIDTH ))
GRAPH=(--layers "$LAYERS" --width "$WIDTH" --deps "$DEPS")

unset CUBE_LISTEN CUBE_DATA_DIR CUBE_DATABASE_URL CUBE_PLUGIN_DIR CUBE_LOG_LEVEL \
      CUBE_ADMIN_TOKEN SLURM_CONF
export CUBE_ADMIN_PASSWORD=bench-admin-password
[ "$(id -u)" -eq 0 ] || die "run as root (Slurm's daemons, the munge key, executor-local's accounts)"

PY=/usr/bin/python3
[ -x "$PY" ] || die "/usr/bin/python3 is missing"
command -v make >/dev/null 2>&1 || apt_install make || die "cannot install make"
command -v curl >/dev/null 2>&1 || apt_install curl || die "cannot install curl"
if [ -z "$ONLY" ] || [ "$ONLY" = slurm ]; then
    command -v slurmctld >/dev/null 2>&1 || apt_install slurm-wlm || die "cannot install slurm-wlm"
    id munge >/dev/null 2>&1 || die "no munge user (it comes with the munge package)"
fi
NPROC=$(nproc)

TMP=$(mktemp -d -t cube-bench-pipeline.XXXXXX) || die "mktemp failed"
chmod 755 "$TMP"
bench_tmp_setup

USER_PREFIX=cbench- GROUP_PREFIX=cbench-p-
ACCOUNTS_BEFORE=$TMP/accounts.before

now_s() { date +%s.%N; }
sub_s() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a - b }'; }

# --- Cube ------------------------------------------------------------------------

run_cube() {
    local dir=$TMP/cube port token
    find_cubed
    PLUGIN_DIR=$(cd "$(dirname "$CUBED")/../plugins" && pwd) || die "no plugins dir beside cubed"
    for p in executor-local pipeline; do
        [ -e "$PLUGIN_DIR/$p/cube-$p.so" ] || die "cube-$p.so is not built under $PLUGIN_DIR"
    done
    write_cube_yaml "$dir"
    port=$PORT
    [ -n "${BENCH_THREADS:-}" ] && echo "limits: {threads: $BENCH_THREADS}" >>"$dir/cube.yaml"
    cat >"$dir/conf.d/20-executor-local.yaml" <<YAML
plugin: executor-local
enabled: true
config: {user_prefix: $USER_PREFIX, group_prefix: $GROUP_PREFIX, sandbox: none, cgroup: auto, poll_ms: 10}
YAML
    cat >"$dir/conf.d/40-pipeline.yaml" <<YAML
plugin: pipeline
enabled: true
config: {templates_dir: none${BENCH_PASS_GAP_MS:+, pass_gap_ms: $BENCH_PASS_GAP_MS}}
YAML
    bench_accounts >"$ACCOUNTS_BEFORE"
    start_cubed_with_project "$dir" "$port"
    token=$TOKEN
    say "cube: $TASKS tasks, parallelism $PAR ..."
    bg_wait "$PY" "$HERE/pipeline_load.py" cube --port "$port" --token "$token" "${GRAPH[@]}" \
        --parallelism "$PAR" --timeout "$TIMEOUT" >"$TMP/cube.json" 2>"$dir/load.err" ||
        { cat "$dir/load.err" "$TMP/cube.json" >&2; tail -20 "$dir/cubed.out" >&2; die "the Cube run failed"; }
    CUBE_CPU=$(cpu_s "$CPID")
    stop_pid "$CPID" TERM
    CPID=''
    remove_accounts
}

# --- make ------------------------------------------------------------------------

run_make() {
    mkdir -p "$TMP/make"
    "$PY" "$HERE/pipeline_load.py" make --dir "$TMP/make" "${GRAPH[@]}" || die "no Makefile"
    say "make: $TASKS targets, make -j2 ..."
    local t0 t1
    t0=$(now_s)
    make -s -j2 -C "$TMP/make" >/dev/null 2>&1 || die "make failed"
    t1=$(now_s)
    MAKE_WALL=$(sub_s "$t1" "$t0")
}

# --- the floor (task_floor.sh) --------------------------------------------------

run_floor() {
    say "floor: $TASKS isolated, supervised tasks, $PAR at a time ..."
    BENCH_TASKS=$TASKS BENCH_JOBS=$PAR bash "$HERE/task_floor.sh" --raw >"$TMP/floor.txt" ||
        die "task_floor.sh failed"
    FLOOR_WALL=$(awk '$1 == "supervisor" { print $2 }' "$TMP/floor.txt")
}

# --- Slurm (slurm_lib.sh, the settings of local_vs_slurm.sh) -----------------------

run_slurm() {
    local dir=$TMP/slurm
    start_slurm "$dir" batch_sched_delay=0 FORCE:16
    say "slurm: $TASKS jobs with afterok dependencies ..."
    (cd "$dir" && bg_wait "$PY" "$HERE/pipeline_load.py" slurm --jobcomp "$dir/jobcomp.txt" \
        "${GRAPH[@]}" --timeout "$TIMEOUT") >"$TMP/slurm.json" 2>"$dir/load.err" ||
        { cat "$dir/load.err" "$TMP/slurm.json" >&2; die "the Slurm run failed"; }
    stop_slurm
    unset SLURM_CONF
}

LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
MAKE_WALL='?' CUBE_CPU='?' FLOOR_WALL='?'
{ [ -z "$ONLY" ] || [ "$ONLY" = make ]; } && run_make
{ [ -z "$ONLY" ] || [ "$ONLY" = floor ]; } && run_floor
{ [ -z "$ONLY" ] || [ "$ONLY" = cube ]; } && run_cube
{ [ -z "$ONLY" ] || [ "$ONLY" = slurm ]; } && run_slurm

C=$( [ -f "$TMP/cube.json" ] && jget "$TMP/cube.json" wall_s || echo '?')
S=$( [ -f "$TMP/slurm.json" ] && jget "$TMP/slurm.json" wall_s || echo '?')
OVER=$(awk -v c="$C" -v m="$MAKE_WALL" -v n="$TASKS" 'BEGIN {
    if (c !~ /^[0-9.]+$/ || m !~ /^[0-9.]+$/) print "?"; else printf "%.2f", (c - m) * 1000 / n }')
R_CM=$(ratio "$C" "$MAKE_WALL")
verdict() { awk -v v="$1" -v b="$2" 'BEGIN { if (v !~ /^-?[0-9.]+$/) print "not measured";
    else print (v + 0 <= b + 0) ? "meets bar" : "below bar" }'; }

say ""
say "== a $LAYERS x $WIDTH DAG ($TASKS tasks of \`true\`, $DEPS upstreams each): Cube vs make -j2 vs Slurm =="
say "machine: nproc $NPROC, load before $LOAD0"
say "cube:    one PipelineRun, spec.parallelism $PAR, executor-local (poll_ms 10), store ${BENCH_DATABASE:-sqlite}; CPU of cubed $CUBE_CPU"
say "make:    make -s -j2 on the same graph (phony targets, recipe \`true\`)"
say "floor:   task_floor.sh, $PAR at a time: own account, mount view, cgroups, a supervisor; no DAG"
say "slurm:   ${SLURM_VERSION:-slurm}, one node, sbatch --wrap true --dependency=afterok:<upstreams>"
say ""
printf '%-44s %10s\n' "wall time, Cube (s)" "$C"
printf '%-44s %10s\n' "wall time, make -j2 (s)" "$MAKE_WALL"
printf '%-44s %10s\n' "wall time, Slurm (s)" "$S"
printf '%-44s %10s\n' "wall time, floor (s)" "$FLOOR_WALL"
printf '%-44s %10s\n' "floor / make" "$(ratio "$FLOOR_WALL" "$MAKE_WALL")"
printf '%-44s %10s\n' "Cube / floor" "$(ratio "$C" "$FLOOR_WALL")"
printf '%-44s %10s   bar <= %sx: %s\n' "Cube / make" "$R_CM" "$BAR_RATIO" "$(verdict "$R_CM" "$BAR_RATIO")"
printf '%-44s %10s\n' "Slurm / Cube" "$(ratio "$S" "$C")"
printf '%-44s %10s   bar <= %s ms: %s\n' "Cube overhead per task ((cube-make)/n, ms)" "$OVER" \
    "$BAR_OVERHEAD" "$(verdict "$OVER" "$BAR_OVERHEAD")"
if [ -f "$TMP/cube.json" ]; then
    printf '%-44s %10s\n' "  dispatch: upstream ended -> Job created (ms)" "$(jget "$TMP/cube.json" dispatch_ms_mean)"
    printf '%-44s %10s\n' "  queue: Job created -> started (ms)" "$(jget "$TMP/cube.json" queue_ms_mean)"
    printf '%-44s %10s\n' "    created -> queued / admitted / started (ms)" \
        "$(jget "$TMP/cube.json" queue_split_ms_mean)"
    printf '%-44s %10s\n' "  run: started -> ended (ms)" "$(jget "$TMP/cube.json" run_ms_mean)"
    printf '%-44s %10s\n' "PipelineRun controller: passes" "$(jget "$TMP/cube.json" PipelineRun_passes)"
    printf '%-44s %10s\n' "PipelineRun controller: time in passes (s)" "$(jget "$TMP/cube.json" PipelineRun_s)"
    printf '%-44s %10s\n' "Pipeline controller: passes / time (s)" \
        "$(jget "$TMP/cube.json" Pipeline_passes)/$(jget "$TMP/cube.json" Pipeline_s)"
fi
[ -f "$TMP/slurm.json" ] && printf '%-44s %10s\n' "Slurm: all sbatch done after (s)" "$(jget "$TMP/slurm.json" submit_s)"
exit 0
