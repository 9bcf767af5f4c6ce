#!/usr/bin/env bash
# hpsearch.sh — the hpsearch plugin's tuners and experiments against their
# peers, in the same run:
#   quality   Branin and Hartmann6 (both minimized), BENCH_TRIALS (100)
#             sequential trials, BENCH_SEEDS (10) seeds each: Cube's TPE and
#             random (plugins/hpsearch/lib driven in-process by
#             hpsearch_tuners.c, no Jobs) vs Optuna's TPESampler (its
#             defaults) and RandomSampler (hpsearch_optuna.py, Debian's
#             python3-optuna); the median over seeds of each run's best value
#   speed     time of one suggestion with 100 and 1,000 trials of history,
#             Cube's TPE vs Optuna's TPESampler (ask + suggest_float)
#   overhead  BENCH_JOBS (500) trials of `true`, BENCH_CONCURRENCY (8) at a
#             time, as one Experiment vs the same Jobs submitted directly to
#             the same cubed (executor-local; each Job asks the node's cpu /
#             concurrency, so the scheduler too runs that many at a time),
#             BENCH_ROUNDS (3) rounds of each alternating, the medians
# Bars: Cube TPE's median best <= Optuna TPE's on both functions; a
# suggestion <= 0.1x Optuna's at 100 and 1,000 trials; the experiment's wall
# time <= 1.2x the direct Jobs'.
#
# Needs root for the overhead part (executor-local's accounts); installs
# python3-optuna when missing. Environment: CUBED (default: build ./build),
# BENCH_TRIALS=100, BENCH_SEEDS=10, BENCH_JOBS=500, BENCH_CONCURRENCY=8, BENCH_ROUNDS=3,
# BENCH_ONLY=quality|speed|overhead, BENCH_KEEP=1 (keep the temp dir).
#
# Usage: bash tests/bench/hpsearch.sh
set -uo pipefail
export LC_ALL=C

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/tests/bench
BENCH_NAME=hpsearch.sh
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$HERE/lib.sh"
# shellcheck source-path=SCRIPTDIR source=slurm_lib.sh
. "$HERE/slurm_lib.sh"

TRIALS=${BENCH_TRIALS:-100}
SEEDS=${BENCH_SEEDS:-10}
JOBS=${BENCH_JOBS:-500}
CONC=${BENCH_CONCURRENCY:-8}
ROUNDS=${BENCH_ROUNDS:-3}
ONLY=${BENCH_ONLY:-}
for v in TRIALS SEEDS JOBS CONC ROUNDS; do posint "BENCH_$v" "${!v}"; done
case $ONLY in '' | quality | speed | overhead) ;;
    *) die "BENCH_ONLY must be quality, speed or overhead" ;; esac
want() { [ -z "$ONLY" ] || [ "$ONLY" = "$1" ]; }

unset CUBE_LISTEN CUBE_DATA_DIR CUBE_DATABASE_URL CUBE_PLUGIN_DIR CUBE_LOG_LEVEL CUBE_ADMIN_TOKEN
export CUBE_ADMIN_PASSWORD=bench-admin-password
PY=/usr/bin/python3
[ -x "$PY" ] || die "/usr/bin/python3 is missing"
if want quality || want speed; then
    "$PY" -c 'import optuna' 2>/dev/null || apt_install python3-optuna || die "cannot install python3-optuna"
    OPTUNA_VERSION=$("$PY" -c 'import optuna; print(optuna.__version__)')
fi
command -v curl >/dev/null 2>&1 || apt_install curl || die "cannot install curl"
CC=${CC:-cc}
command -v "$CC" >/dev/null 2>&1 || apt_install gcc || die "no C compiler"

TMP=$(mktemp -d -t cube-bench-hpsearch.XXXXXX) || die "mktemp failed"
chmod 755 "$TMP"
bench_tmp_setup
USER_PREFIX=cbench- GROUP_PREFIX=cbench-p-
ACCOUNTS_BEFORE=$TMP/accounts.before

# The tuner driver, built from the library's sources as they are.
build_driver() {
    "$CC" -O2 -std=c11 -D_GNU_SOURCE -I"$ROOT/plugins/hpsearch/lib" -I/usr/include/cjson \
        "$HERE/hpsearch_tuners.c" "$ROOT"/plugins/hpsearch/lib/*.c -lcjson -lm \
        -o "$TMP/hpsearch_tuners" || die "cannot build hpsearch_tuners.c (libcjson-dev?)"
}

# --- quality and speed -------------------------------------------------------------

run_quality() {
    local f
    for f in branin hartmann6; do
        say "quality: $f, $TRIALS trials x $SEEDS seeds (Cube TPE, Cube random, Optuna TPE, Optuna random) ..."
        "$TMP/hpsearch_tuners" quality "$f" tpe "$TRIALS" "$SEEDS" >"$TMP/q-$f-cube-tpe.json" || die "driver failed"
        "$TMP/hpsearch_tuners" quality "$f" random "$TRIALS" "$SEEDS" >"$TMP/q-$f-cube-random.json" || die "driver failed"
        "$PY" "$HERE/hpsearch_optuna.py" quality "$f" tpe "$TRIALS" "$SEEDS" >"$TMP/q-$f-optuna-tpe.json" || die "optuna failed"
        "$PY" "$HERE/hpsearch_optuna.py" quality "$f" random "$TRIALS" "$SEEDS" >"$TMP/q-$f-optuna-random.json" || die "optuna failed"
    done
}

run_speed() {
    local f n reps
    for f in branin hartmann6; do
        for n in 100 1000; do
            say "speed: $f, a suggestion after $n trials ..."
            reps=$(( n == 100 ? 200 : 50 ))
            "$TMP/hpsearch_tuners" speed "$f" tpe "$n" "$reps" >"$TMP/s-$f-$n-cube.json" || die "driver failed"
            "$PY" "$HERE/hpsearch_optuna.py" speed "$f" tpe "$n" $(( reps / 5 )) >"$TMP/s-$f-$n-optuna.json" || die "optuna failed"
        done
    done
}

# --- overhead ----------------------------------------------------------------------

# cpu per Job: the node's cpu (nproc, executor-local's capacity) / concurrency.
job_cpu() { awk -v n="$(nproc)" -v c="$CONC" 'BEGIN { printf "%dm", n * 1000 / c }'; }

run_overhead() {
    local dir=$TMP/cube port mode r
    [ "$(id -u)" -eq 0 ] || die "the overhead part needs root (executor-local's accounts)"
    find_cubed
    PLUGIN_DIR=$(cd "$(dirname "$CUBED")/../plugins" && pwd) || die "no plugins dir beside cubed"
    for p in executor-local hpsearch; do
        [ -e "$PLUGIN_DIR/$p/cube-$p.so" ] || die "cube-$p.so is not built under $PLUGIN_DIR"
    done
    CPU=$(job_cpu)
    bench_accounts >"$ACCOUNTS_BEFORE"
    write_cube_yaml "$dir"
    port=$PORT
    cat >"$dir/conf.d/20-executor-local.yaml" <<YAML
plugin: executor-local
enabled: true
config: {user_prefix: $USER_PREFIX, group_prefix: $GROUP_PREFIX, sandbox: none, cgroup: auto, poll_ms: 10}
YAML
    printf 'plugin: hpsearch\nenabled: true\n' >"$dir/conf.d/50-hpsearch.yaml"
    start_cubed_with_project "$dir" "$port"
    # rounds of both, alternating (jobs first, then the experiment first), on one cubed
    for r in $(seq 1 "$ROUNDS"); do
        for mode in $( [ $((r % 2)) = 1 ] && echo "jobs experiment" || echo "experiment jobs"); do
            say "overhead: round $r, $JOBS Jobs of \`true\`, $CONC at a time (cpu $CPU each): $mode ..."
            bg_wait "$PY" "$HERE/hpsearch_load.py" "$mode" --port "$port" --token "$TOKEN" \
                --trials "$JOBS" --concurrency "$CONC" --cpu "$CPU" --round "$r" \
                >"$TMP/o-$mode-$r.json" 2>"$dir/load.err" ||
                { cat "$dir/load.err" >&2; tail -20 "$dir/cubed.out" >&2; die "the $mode run failed"; }
        done
    done
    stop_pid "$CPID" TERM
    CPID=''
    remove_accounts
}

# The median wall_s of a mode's rounds.
median_wall() {
    "$PY" -c 'import json, statistics, sys
print(statistics.median(json.load(open(f))["wall_s"] for f in sys.argv[1:]))' "$TMP"/o-"$1"-*.json 2>/dev/null || echo '?'
}

LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
if want quality || want speed; then build_driver; fi
want quality && run_quality
want speed && run_speed
want overhead && run_overhead

verdict() { awk -v v="$1" -v b="$2" 'BEGIN { if (v !~ /^-?[0-9.]+$/) print "not measured";
    else print (v + 0 <= b + 0) ? "meets bar" : "below bar" }'; }
# "meets bar" when Cube's median best <= Optuna's (smaller is better)
no_worse() { awk -v c="$1" -v o="$2" 'BEGIN { if (c !~ /^-?[0-9.]+$/ || o !~ /^-?[0-9.]+$/) print "not measured";
    else print (c + 0 <= o + 0) ? "meets bar" : "below bar" }'; }
val() { [ -f "$1" ] && jget "$1" "$2" || echo '?'; }

say ""
say "== hpsearch: Cube's tuners vs Optuna ${OPTUNA_VERSION:-?}; experiments vs direct Jobs =="
say "machine: nproc $(nproc), load before $LOAD0"
if want quality; then
    say ""
    say "quality: median over $SEEDS seeds of the best value after $TRIALS trials (minimized; Branin's optimum 0.397887, Hartmann6's -3.32237)"
    printf '%-12s %12s %12s %12s %12s   %s\n' function "Cube TPE" "Optuna TPE" "Cube random" "Optuna rand" "bar: Cube TPE <= Optuna TPE"
    for f in branin hartmann6; do
        c=$(val "$TMP/q-$f-cube-tpe.json" median) o=$(val "$TMP/q-$f-optuna-tpe.json" median)
        printf '%-12s %12.6f %12.6f %12.6f %12.6f   %s\n' "$f" "$c" "$o" \
            "$(val "$TMP/q-$f-cube-random.json" median)" "$(val "$TMP/q-$f-optuna-random.json" median)" \
            "$(no_worse "$c" "$o")"
    done
fi
if want speed; then
    say ""
    say "speed: ms per TPE suggestion (Cube: hp_tuner_suggest; Optuna: ask + suggest_float per parameter)"
    printf '%-12s %8s %12s %12s %10s   %s\n' function history "Cube (ms)" "Optuna (ms)" ratio "bar <= 0.1x"
    for f in branin hartmann6; do
        for n in 100 1000; do
            c=$(val "$TMP/s-$f-$n-cube.json" ms) o=$(val "$TMP/s-$f-$n-optuna.json" ms)
            r=$(ratio "$c" "$o")
            printf '%-12s %8s %12.4f %12.3f %10s   %s\n' "$f" "$n" "$c" "$o" "$r" "$(verdict "$r" 0.1)"
        done
    done
fi
if want overhead; then
    E=$(median_wall experiment) D=$(median_wall jobs)
    R=$(ratio "$E" "$D")
    say ""
    say "overhead: $JOBS trials of \`true\`, $CONC at a time, executor-local (poll_ms 10), cpu ${CPU:-?} per Job;"
    say "          median of $ROUNDS rounds of each, alternating on one cubed"
    printf '%-44s %10s\n' "wall time, one Experiment (s)" "$E"
    printf '%-44s %10s\n' "wall time, the Jobs submitted directly (s)" "$D"
    printf '%-44s %10s   bar <= 1.2x: %s\n' "Experiment / direct" "$R" "$(verdict "$R" 1.2)"
    for r in $(seq 1 "$ROUNDS"); do
        printf '%-44s %10s\n' "  round $r: experiment / direct (s)" \
            "$(val "$TMP/o-experiment-$r.json" wall_s)/$(val "$TMP/o-jobs-$r.json" wall_s)"
    done
fi
exit 0
