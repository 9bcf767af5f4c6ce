#!/usr/bin/env bash
# sdk.sh — the Python SDK (sdk/python) against curl in a loop and cubectl
# on the same cubed in the same run: listing BENCH_LIST objects (5,000) and
# creating BENCH_CREATE (1,000); the peers' whole commands, the SDK's
# operation inside python3 (and its whole command beside it), and the
# import time of `cube` (sdk_bench.py says how each is timed). Prints ours,
# the peers', the ratios and the bars (the SDK within 1.5x of the faster
# peer per operation; import <= 50 ms).
# Prints figures; it is not a pass/fail test (tests/bench/README.md).
#   CUBED=path            cubed binary (default: built under ./build)
#   BENCH_ROUNDS=5        rounds, interleaved; medians are reported
#   BENCH_LIST=5000       objects listed
#   BENCH_CREATE=1000     objects created per tool and round
#   BENCH_PYTHON=/usr/bin/python3   the interpreter the SDK runs in
# Usage: bash tests/bench/sdk.sh
set -uo pipefail
export LC_ALL=C

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/tests/bench
BENCH_NAME=sdk.sh
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$HERE/lib.sh"

posint BENCH_ROUNDS "${BENCH_ROUNDS:-5}"
posint BENCH_LIST "${BENCH_LIST:-5000}"
posint BENCH_CREATE "${BENCH_CREATE:-1000}"
command -v curl >/dev/null 2>&1 || apt_install curl || die "cannot install curl"
find_cubed
BUILD=$(dirname "$(dirname "$CUBED")")
CUBECTL=$BUILD/sdk/cli/cubectl
[ -x "$CUBECTL" ] || die "$CUBECTL is not built (ninja -C $BUILD)"
[ -f "$BUILD/tests/resources/cube-testkinds.so" ] ||
    die "$BUILD/tests/resources/cube-testkinds.so is not built (ninja -C $BUILD)"
say "cubed: $CUBED ($("$CUBED" --version 2>/dev/null | head -n 1))"
say "curl: $(curl --version | head -n 1)"
CUBED=$CUBED CUBECTL=$CUBECTL BENCH_PLUGIN_DIR=$BUILD/tests/resources \
    "${BENCH_PYTHON:-/usr/bin/python3}" "$HERE/sdk_bench.py"
