#!/usr/bin/env bash
# upload.sh — streamed upload throughput (ABI 1.5 stream_body routes and
# file slots) against dd writing the same bytes to the same disk, in the
# same run.
#
# Ours: upload_client PUTs N MiB of zero bytes (Content-Length) over
# loopback to the streamprobe test plugin's route, which writes each chunk
# with file_write_at as it arrives; the answer comes after file_commit:
# the SHA-256 finished, the file fsync'd, renamed into place and its
# directory fsync'd. Timed from connect to the answer's last byte.
# Peer: `dd if=/dev/zero of=FILE bs=1M count=N conv=fsync`, FILE in the
# same directory tree of the same file system as cubed's data dir: the
# same bytes written and fsync'd before dd exits, timed the same way
# (start to exit). Rounds alternate ours and dd, each file removed after
# its round; the figures are the medians.
#
# Prints ours (MiB/s), dd's, their ratio per round, the medians and the
# bar (the median of the rounds' ratios >= 0.8x). Not a pass/fail test:
# exit 0 when it ran.
#
# Environment:
#   CUBED=path            cubed binary (default: build it in ./build)
#   BENCH_PLUGIN_DIR=dir  where cube-streamprobe.so is (default: build/tests/files)
#   BENCH_MIB=1024        MiB per upload
#   BENCH_ROUNDS=3        rounds
#   BENCH_DIR=dir         where the data dir goes (default: a new dir under TMPDIR)
#
# Usage: bash tests/bench/upload.sh
set -uo pipefail
export LC_ALL=C

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/tests/bench
BENCH_NAME=upload.sh
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$HERE/lib.sh"

BAR=0.8
MIBS=${BENCH_MIB:-1024}
ROUNDS=${BENCH_ROUNDS:-3}
posint BENCH_MIB "$MIBS"
posint BENCH_ROUNDS "$ROUNDS"
ADMIN=bench-upload-admin-token

unset CUBE_LISTEN CUBE_DATA_DIR CUBE_DATABASE_URL CUBE_PLUGIN_DIR CUBE_LOG_LEVEL CUBE_ADMIN_TOKEN

command -v curl >/dev/null 2>&1 || apt_install curl || die "curl is needed"
find_cubed
PLUGIN_DIR=${BENCH_PLUGIN_DIR:-$(cd "$(dirname "$CUBED")/../tests/files" 2>/dev/null && pwd)}
[ -e "$PLUGIN_DIR/cube-streamprobe.so" ] ||
    die "cube-streamprobe.so not found in '$PLUGIN_DIR' (build the tests, or set BENCH_PLUGIN_DIR)"
bench_threads

TMP=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/cube-bench.XXXXXX") || die "mktemp failed"
bench_tmp_setup

command -v cc >/dev/null 2>&1 || die "a C compiler (cc) is needed for upload_client"
cc -O2 -o "$TMP/upload_client" "$HERE/upload_client.c" || die "cannot build upload_client"

CPORT=$(free_port) || die "no free loopback port"
bench_cube_yaml streamprobe </dev/null
export CUBE_ADMIN_TOKEN=$ADMIN
start_bench_cubed
curl -sS -o /dev/null -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' \
    --data '{"metadata":{"name":"bench"},"spec":{}}' "http://127.0.0.1:$CPORT/api/v1/projects" ||
    die "cannot create project bench"
mint_token "$CPORT" "$ADMIN"

ROUTE=/api/v1/projects/bench/streamprobe/uploads/bench
PUBLISHED=$TMP/data/projects/bench/uploads/bench
DDFILE=$TMP/data/projects/bench/dd.bin
"$TMP/upload_client" "$CPORT" "$ROUTE" "$TOKEN" 8 >/dev/null || die "the upload route failed"
rm -f "$PUBLISHED"

fs=$(df -PT "$TMP/data" 2>/dev/null | awk 'NR == 2 { print $1 " (" $2 ")" }')
say "nproc $(nproc); load $(cut -d' ' -f1-3 /proc/loadavg); cubed threads $THREADS; data dir on $fs"
say "$ROUNDS rounds of $MIBS MiB each side; peer: dd if=/dev/zero bs=1M count=$MIBS conv=fsync"
printf '%-6s %12s %12s %8s %14s\n' round ours_MiB/s dd_MiB/s ratio cubed_VmHWM_MiB
: >"$TMP/rounds"
for r in $(seq 1 "$ROUNDS"); do
    sync
    o=$("$TMP/upload_client" "$CPORT" "$ROUTE" "$TOKEN" "$MIBS") || die "the upload failed: $o"
    ours=$(printf '%s' "$o" | sed -n 's/.*mib_s=\([0-9.]*\).*/\1/p')
    rm -f "$PUBLISHED"
    sync
    t0=$(date +%s.%N)
    dd if=/dev/zero of="$DDFILE" bs=1M count="$MIBS" conv=fsync status=none || die "dd failed"
    t1=$(date +%s.%N)
    rm -f "$DDFILE"
    peer=$(awk -v m="$MIBS" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", m / (b - a) }')
    hwm=$(kib_to_mib "$(proc_field "$CPID" VmHWM)")
    printf '%-6s %12s %12s %8s %14s\n' "$r" "$ours" "$peer" "$(ratio "$ours" "$peer")" "$hwm"
    printf '%s %s %s\n' "$ours" "$peer" "$(ratio "$ours" "$peer")" >>"$TMP/rounds"
done
med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
O=$(awk '{print $1}' "$TMP/rounds" | med)
P=$(awk '{print $2}' "$TMP/rounds" | med)
R=$(awk '{print $3}' "$TMP/rounds" | med)
say ""
# The bar is on the median of the rounds' ratios: each round's two runs
# are back to back, so a machine whose load drifts skews them alike.
awk -v o="$O" -v p="$P" -v r="$R" -v bar="$BAR" 'BEGIN {
    printf "median   ours %.1f MiB/s, dd %.1f MiB/s (ratio of the medians %.2fx)\n", o, p, o / p
    printf "median of the per-round ratios %.2fx\n", r
    printf "bar: streamed upload >= %.1fx of dd: %s\n", bar, (r >= bar) ? "meets bar" : "below bar"
}'
exit 0
