#!/usr/bin/env bash
# fetch.sh — what the host's outbound fetch (ABI 1.5 `fetch`) adds to a
# request: sequential GETs of a small file from a fast local upstream
# (nginx on loopback), through cubed's fetch slot (the fetchprobe test
# plugin times fetch call -> done callback) and with libcurl's easy
# interface in a loop (one handle, one kept-alive connection: the peer),
# alternating in rounds, same run.
#
# Prints p50 and p99 of ours and the peer's, the ratio and the added time;
# the bar is <= 1 ms added at p50. Not a pass/fail test: exit 0 when it ran.
#
# Environment:
#   CUBED=path            cubed binary (default: build it in ./build)
#   BENCH_PLUGIN_DIR=dir  where cube-fetchprobe.so is (default: build/tests/net)
#   BENCH_REQUESTS=5000   fetches per round and side
#   BENCH_ROUNDS=3        rounds (the figures are the medians of the rounds)
#
# Usage: bash tests/bench/fetch.sh
set -uo pipefail
export LC_ALL=C

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/tests/bench
BENCH_NAME=fetch.sh
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$HERE/lib.sh"

BAR_P50_ADDED_MS=1
FILE=/small.txt
REQUESTS=${BENCH_REQUESTS:-5000}
ROUNDS=${BENCH_ROUNDS:-3}
posint BENCH_REQUESTS "$REQUESTS"
posint BENCH_ROUNDS "$ROUNDS"

unset CUBE_LISTEN CUBE_DATA_DIR CUBE_DATABASE_URL CUBE_PLUGIN_DIR CUBE_LOG_LEVEL CUBE_ADMIN_TOKEN

need_http_tools
find_cubed
PLUGIN_DIR=${BENCH_PLUGIN_DIR:-$(cd "$(dirname "$CUBED")/../tests/net" 2>/dev/null && pwd)}
[ -e "$PLUGIN_DIR/cube-fetchprobe.so" ] ||
    die "cube-fetchprobe.so not found in '$PLUGIN_DIR' (build the tests, or set BENCH_PLUGIN_DIR)"
bench_threads

TMP=$(mktemp -d -t cube-bench.XXXXXX) || die "mktemp failed"
bench_tmp_setup

mkdir -p "$TMP/www"
printf 'hello from the upstream, a small file of about a hundred bytes....................\n' \
    >"$TMP/www$FILE"
chmod -R a+rX "$TMP"
NPORT=$(free_port) || die "no free loopback port"
start_nginx "$FILE" <<EOF
        location = $FILE { default_type "text/plain"; }
EOF

CPORT=$(free_port "$NPORT") || die "no free loopback port"
bench_cube_yaml fetchprobe <<EOF
egress: {allow: ["127.0.0.1:$NPORT"]}
EOF
start_bench_cubed

command -v cc >/dev/null 2>&1 || die "a C compiler (cc) is needed for fetch_peer"
cc -O2 -o "$TMP/fetch_peer" "$HERE/fetch_peer.c" -lcurl || die "cannot build fetch_peer (libcurl headers?)"

URL=http://127.0.0.1:$NPORT$FILE
ENC=$(printf '%s' "$URL" | sed 's/:/%3A/g; s#/#%2F#g')
ours() { curl -sS --max-time 600 "http://127.0.0.1:$CPORT/api/v1/fetchprobe/bench?n=$1&url=$ENC"; }
ours 200 >/dev/null || die "the bench route failed"
"$TMP/fetch_peer" "$URL" 200 >/dev/null || die "fetch_peer failed"

say "nproc $(nproc); load $(cut -d' ' -f1-3 /proc/loadavg); cubed threads $THREADS; $(curl --version | head -1 | cut -d' ' -f1-2)"
say "$ROUNDS rounds of $REQUESTS sequential GETs of a $(wc -c <"$TMP/www$FILE")-byte file each side (us)"
printf '%-6s %12s %12s %12s %12s %8s\n' round ours_p50 ours_p99 peer_p50 peer_p99 errors
: >"$TMP/rounds"
for r in $(seq 1 "$ROUNDS"); do
    o=$(ours "$REQUESTS") || die "the bench route failed"
    p=$("$TMP/fetch_peer" "$URL" "$REQUESTS") || die "fetch_peer failed"
    op50=$(printf '%s' "$o" | sed -n 's/.*"p50_us":\([0-9.]*\).*/\1/p')
    op99=$(printf '%s' "$o" | sed -n 's/.*"p99_us":\([0-9.]*\).*/\1/p')
    oerr=$(printf '%s' "$o" | sed -n 's/.*"errors":\([0-9]*\).*/\1/p')
    pp50=$(printf '%s' "$p" | sed -n 's/.*p50_us=\([0-9.]*\).*/\1/p')
    pp99=$(printf '%s' "$p" | sed -n 's/.*p99_us=\([0-9.]*\).*/\1/p')
    perr=$(printf '%s' "$p" | sed -n 's/.*errors=\([0-9]*\).*/\1/p')
    printf '%-6s %12s %12s %12s %12s %8s\n' "$r" "$op50" "$op99" "$pp50" "$pp99" "$oerr/$perr"
    printf '%s %s %s %s\n' "$op50" "$op99" "$pp50" "$pp99" >>"$TMP/rounds"
done
med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
O50=$(awk '{print $1}' "$TMP/rounds" | med); O99=$(awk '{print $2}' "$TMP/rounds" | med)
P50=$(awk '{print $3}' "$TMP/rounds" | med); P99=$(awk '{print $4}' "$TMP/rounds" | med)
say ""
awk -v o50="$O50" -v o99="$O99" -v p50="$P50" -v p99="$P99" -v bar="$BAR_P50_ADDED_MS" 'BEGIN {
    printf "median   ours p50 %.1f us, p99 %.1f us; peer p50 %.1f us, p99 %.1f us\n", o50, o99, p50, p99
    printf "ratio    p50 %.2fx, p99 %.2fx; added p50 %.3f ms, p99 %.3f ms\n", o50 / p50, o99 / p99, (o50 - p50) / 1000, (o99 - p99) / 1000
    printf "bar: the fetch adds <= %d ms at p50: %s\n", bar, ((o50 - p50) / 1000 <= bar) ? "meets bar" : "below bar"
}'
exit 0
