#!/usr/bin/env bash
# notebook.sh — how long until a Jupyter server answers: created through
# Cube (a Notebook, run as a Job by executor-local, reached through cubed's
# proxy), started by hand (`jupyter-notebook`), and spawned by Debian's
# JupyterHub 3 (LocalProcessSpawner, REST API, loopback, in a temp dir).
# Rounds interleave the three; prints each figure, the medians, the ratios
# against the bars (Cube <= 1.2x by hand, <= 0.7x JupyterHub) and the
# latency of one Jupyter request through cubed against straight to it.
# Not part of the test suite. Needs root (per-user OS accounts) and the
# Debian packages jupyter-notebook and jupyterhub (configurable-http-proxy).
#   CUBED=path          cubed binary (default: built under ./build)
#   BENCH_ROUNDS=5      rounds
#   BENCH_KEEP=1        keep the temp dir
# Usage: bash tests/bench/notebook.sh
set -uo pipefail
export LC_ALL=C

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/tests/bench
BENCH_NAME=notebook.sh
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$HERE/lib.sh"

posint BENCH_ROUNDS "${BENCH_ROUNDS:-5}"
[ "$(id -u)" = 0 ] || die "needs root (Cube runs notebooks as per-user OS accounts)"
for t in /usr/bin/jupyter-notebook /usr/bin/jupyterhub /usr/bin/jupyterhub-singleuser; do
    [ -x "$t" ] || apt_install jupyter-notebook jupyterhub || die "cannot install $t"
done
command -v configurable-http-proxy >/dev/null || die "configurable-http-proxy is missing (Debian: node-configurable-http-proxy, a dependency of jupyterhub)"
find_cubed
BUILD=$(dirname "$(dirname "$CUBED")")
PLUGINS=$(mktemp -d "${TMPDIR:-/tmp}/cube-nb-bench-XXXXXX")
for so in executor-local/cube-executor-local.so notebook/cube-notebook.so; do
    [ -f "$BUILD/plugins/$so" ] || die "$BUILD/plugins/$so is not built (ninja -C $BUILD)"
    ln -s "$BUILD/plugins/$so" "$PLUGINS/"
done
chmod 755 "$PLUGINS"
cleanup() {
    if [ "${BENCH_KEEP:-}" = 1 ]; then mv "$PLUGINS" "$PLUGINS.kept"; say "kept $PLUGINS.kept";
    else rm -rf "$PLUGINS"; fi
}
trap cleanup EXIT
CUBED=$CUBED BENCH_ROUNDS=${BENCH_ROUNDS:-5} PYTHONDONTWRITEBYTECODE=1 \
    /usr/bin/python3 "$HERE/notebook_bench.py" "$PLUGINS" "$PLUGINS"
