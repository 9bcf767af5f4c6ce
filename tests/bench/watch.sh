#!/usr/bin/env bash
# watch.sh — plugin watch delivery (ABI 1.5 `watch`) to 100 subscribers at
# 1,000 writes/s, p99 from write acknowledged to callback, against the peer
# in the same run: the same number of REST watch streams (SSE). Prints
# ours, the peer's and the ratio (see watch_bench.py). Not a pass/fail test.
#
#   bash tests/bench/watch.sh [SUBS [RATE [SECONDS [WRITERS]]]]
#
# Builds cubed and the watchprobe test plugin in build/ unless CUBED and
# CUBE_TEST_PLUGIN_DIR are set.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
if [[ -z "${CUBED:-}" ]]; then
    [[ -d "$root/build" ]] || meson setup "$root/build" >/dev/null
    ninja -C "$root/build" core/cubed tests/resources/cube-watchprobe.so >/dev/null
    export CUBED="$root/build/core/cubed"
    export CUBE_TEST_PLUGIN_DIR="$root/build/tests/resources"
fi
exec python3 "$here/watch_bench.py" "$@"
