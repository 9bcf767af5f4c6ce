#!/usr/bin/env bash
# sched.sh — the scheduler's policy engine (core/sched/sched_policy.h) on a
# simulated cluster: 10,000 nodes x 8 GPUs, 100,000 queued jobs of mixed
# shapes from 50 projects with quotas (tests/bench/sched_bench.c). Prints
# placement decisions per second and the decision latency (p50/p99/max),
# the bar (>= 20,000 decisions/s), and, for context, published figures of
# kube-scheduler and Slurm (quoted, not measured here).
#
# Builds a release build of the core library (meson --buildtype=release in
# SCHED_BUILD, default build-release) and links sched_bench.c against it.
# Prints figures; exits non-zero only when something could not be built or
# run. Environment: SCHED_BUILD, BENCH_NODES (10000), BENCH_JOBS (100000),
# BENCH_PROJECTS (50), BENCH_CYCLES (30), BENCH_SEED (42).
set -uo pipefail
export LC_ALL=C

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/tests/bench
BENCH_NAME=sched.sh
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$HERE/lib.sh"

BAR=20000
PEER_K8S_LO=100 PEER_K8S_HI=300 PEER_SLURM=500
BUILD=${SCHED_BUILD:-$ROOT/build-release}
for v in BENCH_NODES BENCH_JOBS BENCH_PROJECTS BENCH_CYCLES; do
    [ -n "${!v:-}" ] && posint "$v" "${!v}"
done
CC=${CC:-cc}
command -v "$CC" >/dev/null 2>&1 || apt_install gcc || die "no C compiler"
TMP=$(mktemp -d -t cube-bench-sched.XXXXXX) || die "mktemp failed"
bench_tmp_setup

# The release core library, or (when the whole tree does not configure)
# the policy engine's own sources compiled with the same flags.
HOW="meson --buildtype=release ($BUILD), core/libcubecore.a"
CFLAGS=(-std=c11 -D_GNU_SOURCE -O3 -DNDEBUG -Wall -Wextra -Werror -Wno-unused-parameter
        -I"$ROOT/abi" -I"$ROOT/core")
if { [ -f "$BUILD/build.ninja" ] ||
     meson setup "$BUILD" --buildtype=release >"$TMP/setup.log" 2>&1; } &&
   ninja -C "$BUILD" core/libcubecore.a >"$TMP/ninja.log" 2>&1; then
    "$CC" "${CFLAGS[@]}" "$HERE/sched_bench.c" "$BUILD/core/libcubecore.a" -lm \
        -o "$TMP/sched_bench" || die "cannot link sched_bench.c"
else
    say "note: the release build of the tree failed (see below); compiling the policy"
    say "      engine's sources directly with -O3 -DNDEBUG instead"
    tail -5 "$TMP/setup.log" "$TMP/ninja.log" 2>/dev/null
    mapfile -t SRCS < <(grep -l '#include "sched_priv.h"' "$ROOT"/core/sched/sched_*.c)
    [ "${#SRCS[@]}" -gt 0 ] || die "no policy engine sources found"
    HOW="direct compile of ${#SRCS[@]} core/sched/sched_*.c files + core/base/strmap.c"
    "$CC" "${CFLAGS[@]}" "$HERE/sched_bench.c" "${SRCS[@]}" "$ROOT/core/base/strmap.c" -lm \
        -o "$TMP/sched_bench" || die "cannot build sched_bench.c"
fi

say "running sched_bench (a few seconds at the defaults) ..."
"$TMP/sched_bench" >"$TMP/out.txt" || die "sched_bench failed"
get() { awk -F= -v k="$1" '$1 == k { print $2; exit }' "$TMP/out.txt"; }
us() { awk -v n="$1" 'BEGIN { printf "%.2f", n / 1000 }'; }
x() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0fx", a / b }'; }

DPS=$(get decisions_per_s)
APS=$(get admissions_per_s)
VERDICT=$(awk -v d="$DPS" -v b="$BAR" 'BEGIN { print (d + 0 >= b + 0) ? "meets bar" : "below bar" }')
say ""
say "== Cube scheduler policy benchmark (nproc $(nproc); $HOW) =="
say "cluster:   $(get nodes) nodes x 8 GPUs (H200-like, 2 NVLink domains of 4) = $(get gpus) GPUs, 192 cores, 2Ti each"
say "queue:     $(get queued) jobs kept queued from $(get projects) projects with quotas; shapes 1/2/4/8 GPUs,"
say "           0.5 and 0.25 shares, cpu only; 1-4 replicas; 3 priorities; 5% with a node selector"
say "run:       $(get cycles) cycles, $(get jobs_made) jobs made; jobs run 1-15 cycles; victims stop after 1"
say "time:      $(get decide_s) s in cycles (first cycle: $(get first_cycle_s) s for $(get first_cycle_decisions) decisions;"
say "           slowest cycle $(get worst_cycle_s) s); setup $(get setup_s) s (not counted)"
say ""
say "A decision is one pending job considered by a cycle: admitted (every replica"
say "placed) or left waiting with a reason. Latency is timed per decision."
say ""
printf '%-28s %s\n' "decisions:" "$(get decisions) (admitted $(get admitted), left waiting $(get waiting); $(get preemptions) preemption orders)"
printf '%-28s %s\n' "decisions/s:" "$DPS (bar >= $BAR: $VERDICT)"
printf '%-28s %s\n' "admissions/s:" "$APS (jobs placed per second of cycle time)"
printf '%-28s %s\n' "decision latency:" "p50 $(us "$(get p50_ns)") us, p99 $(us "$(get p99_ns)") us, max $(us "$(get max_ns)") us"
printf '%-28s %s\n' "admission latency:" "p99 $(us "$(get admission_p99_ns)") us (decisions that placed a job)"
printf '%-28s %s\n' "GPUs in use at the end:" "$(awk -v u="$(get gpu_utilization)" 'BEGIN { printf "%.1f%%", u * 100 }') ($(get running) jobs running, $(get pending) pending)"
say ""
say "Published peer figures -- NOT measured in this run, quoted for context only:"
say "  kube-scheduler  ~${PEER_K8S_LO}-${PEER_K8S_HI} pods/s (Kubernetes scheduler throughput as published)"
say "  Slurm           ~${PEER_SLURM} jobs/s (Slurm high-throughput guide, as published)"
printf '%-28s %s\n' "ours/kube-scheduler:" "decisions/s $(x "$DPS" $PEER_K8S_HI)-$(x "$DPS" $PEER_K8S_LO), admissions/s $(x "$APS" $PEER_K8S_HI)-$(x "$APS" $PEER_K8S_LO)"
printf '%-28s %s\n' "ours/Slurm:" "decisions/s $(x "$DPS" $PEER_SLURM), admissions/s $(x "$APS" $PEER_SLURM)"
say "(The peers do more per placement -- API round trips, plugins, persistence -- than"
say " this in-memory policy engine; compare admissions/s, not decisions/s, if anything.)"
