#!/usr/bin/env bash
# task_floor.sh — the floor under pipeline.sh's Cube figure: TASKS (1,000)
# tasks of `true`, 2 at a time as make -j2 runs them, first as make does
# (fork, exec, wait), then adding step by step what every Cube task must
# have: its own unprivileged account, the private mount view, a cgroup,
# a supervisor process that records its exit (tests/bench/task_floor.c).
# Each task's latency (fork to reaped) at the median and 99th percentile
# shows the kernel's stalls (a cgroup join can wait tens of ms under
# concurrency). No scheduler, no Job object, no DAG: what is left under a bar of
# "2x make" for all of Cube's control is the gap between the last step
# and twice the first. Also the store's share: a Job's four writes in
# SQLite, batched.
#
# Needs root (setuid, mounts, cgroups). Environment: BENCH_TASKS=1000,
# BENCH_JOBS=2. With --raw, prints only task_floor's lines (pipeline.sh).
#
# Usage: bash tests/bench/task_floor.sh [--raw]
set -uo pipefail
export LC_ALL=C

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/tests/bench
BENCH_NAME=task_floor.sh
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$HERE/lib.sh"

RAW=0
[ "${1:-}" = --raw ] && RAW=1
TASKS=${BENCH_TASKS:-1000}
JOBS=${BENCH_JOBS:-2}
posint BENCH_TASKS "$TASKS"
posint BENCH_JOBS "$JOBS"
[ "$(id -u)" -eq 0 ] || die "run as root (setuid, mounts, cgroups)"
CC=${CC:-cc}
command -v "$CC" >/dev/null 2>&1 || apt_install gcc || die "no C compiler"
[ -f /usr/include/sqlite3.h ] || apt_install libsqlite3-dev || die "cannot install libsqlite3-dev"
id nobody >/dev/null 2>&1 || die "no user nobody"

TMP=$(mktemp -d -t cube-bench-floor.XXXXXX) || die "mktemp failed"
CGS=()
# shellcheck disable=SC2317  # run by the EXIT trap
floor_cleanup() {
    local d
    for d in "${CGS[@]}"; do rmdir "$d" 2>/dev/null; done
    rm -rf "$TMP"
}
trap floor_cleanup EXIT

"$CC" -O2 -Wall -o "$TMP/task_floor" "$HERE/task_floor.c" -lsqlite3 ||
    die "cannot build task_floor.c"
# The closed directory (as cubed's 0700 data dir) with a home and a
# project dir below it, the account's.
if ! mkdir -m 0700 "$TMP/closed" "$TMP/closed/home" "$TMP/closed/project"; then
    die "cannot make the directories"
fi
chown nobody: "$TMP/closed/home" "$TMP/closed/project" 2>/dev/null ||
    chown nobody:nogroup "$TMP/closed/home" "$TMP/closed/project" || die "chown failed"

# A cgroup per controller the executor uses (v1: cpu and memory; v2: one).
cg_make() { mkdir "$1" 2>/dev/null && CGS+=("$1"); }
CG=-
if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
    cg_make "/sys/fs/cgroup/cube-floor-$$" && CG=/sys/fs/cgroup/cube-floor-$$
elif [ -d /sys/fs/cgroup/cpu ] && [ -d /sys/fs/cgroup/memory ]; then
    cg_make "/sys/fs/cgroup/cpu/cube-floor-$$" && cg_make "/sys/fs/cgroup/memory/cube-floor-$$" &&
        CG=/sys/fs/cgroup/cpu/cube-floor-$$:/sys/fs/cgroup/memory/cube-floor-$$
fi

"$TMP/task_floor" "$TASKS" "$JOBS" "$(id -u nobody)" "$(id -g nobody)" "$TMP/closed" \
    "$TMP/closed/home" "$TMP/closed/project" "$CG" "$TMP/store.db" >"$TMP/out.txt" ||
    die "task_floor failed"
if [ "$RAW" = 1 ]; then
    cat "$TMP/out.txt"
    exit 0
fi

field() { awk -v s="$1" -v f="$2" '$1 == s { print $f }' "$TMP/out.txt"; }
MAKE=$(field make 2)
say ""
say "== the floor: $TASKS tasks of \`true\`, $JOBS at a time, nothing of Cube's control =="
say "machine: nproc $(nproc); cgroup step: ${CG//:/ and }"
printf '%-48s %8s %12s %8s %16s\n' "step (each adds to the one before)" "wall s" "CPU ms/task" "/ make" \
    "task ms p50/p99"
for s in make account view cgroup supervisor; do
    case $s in
        make) what="make: fork, exec true, wait" ;;
        account) what="+ its own unprivileged uid, gid, groups" ;;
        view) what="+ private mount view (tmpfs, 2 binds)" ;;
        cgroup) what="+ joins its cgroup(s)" ;;
        supervisor) what="+ a supervisor that records the exit" ;;
    esac
    printf '%-48s %8s %12s %8s %16s\n' "$what" "$(field $s 2)" "$(field $s 3)" \
        "$(ratio "$(field $s 2)" "$MAKE")" "$(field $s 4)/$(field $s 5)"
done
printf '%-48s %8s %12s\n' "store: a Job's 4 writes (SQLite, batched)" "$(field store 2)" \
    "$(field store 3)"
SUP=$(field supervisor 2)
awk -v m="$MAKE" -v s="$SUP" -v n="$TASKS" -v c="$(nproc)" 'BEGIN {
    left = 2 * m - s
    printf "room under 2x make for all control (s)         %8.3f   (%.3f ms of CPU per task on %d cores)\n",
        left, left * c * 1000 / n, c }'
exit 0
