#!/usr/bin/env bash
# proxy.sh — what cubed's reverse proxy (register_proxy) adds to a request:
# the same small GET sent straight to a fast upstream (nginx serving a small
# file on loopback) and through cubed's proxied prefix, same run, same
# client (wrk --latency), one keep-alive connection at a time and then 16.
#
# A third target, "serving", is the same GET through the servingprobe
# plugin's prefix (tests/proxy), whose resolve sets a key and whose done
# callback records every request (ABI 1.5): its figures against "proxied"
# are what the per-key counters and the done callback cost (abclient,
# interleaved, and wrk).
#
# Prints figures; not a pass/fail test. Exit status 0 whenever it ran.
#
# The prefix comes from the test plugin proxyprobe (tests/proxy), built with
# the tests; the caller is the platform admin token, so the figures are the
# proxy's own cost plus a bearer token check.
#
# Environment:
#   CUBED=path           cubed binary (default: build it in ./build)
#   BENCH_PLUGIN_DIR=dir where cube-proxyprobe.so is (default: build/tests/proxy)
#   BENCH_DURATION=5s    wrk duration per target (a bare number means seconds)
#   BENCH_WARMUP=1s      warm-up per target (0: none)
#   BENCH_THREADS=n      cubed limits.threads and nginx workers (default nproc, >= 2)
#   BENCH_REQUESTS=20000 abclient requests per target
#
# Usage: bash tests/bench/proxy.sh
set -uo pipefail
export LC_ALL=C

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/tests/bench
BENCH_NAME=proxy.sh
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$HERE/lib.sh"

BAR_P99_OVERHEAD_MS=1
ADMIN_TOKEN=bench-admin-token   # CUBE_ADMIN_TOKEN: mints TOKEN once cubed is ready
FILE=/probe/bench/app/small.txt
DURATION=$(dur "${BENCH_DURATION:-5s}")
WARMUP=$(dur "${BENCH_WARMUP:-1s}")
WRK_THREADS=1

unset CUBE_LISTEN CUBE_DATA_DIR CUBE_DATABASE_URL CUBE_PLUGIN_DIR \
      CUBE_LOG_LEVEL CUBE_ADMIN_TOKEN

need_http_tools
find_cubed
PLUGIN_DIR=${BENCH_PLUGIN_DIR:-$(cd "$(dirname "$CUBED")/../tests/proxy" 2>/dev/null && pwd)}
for so in cube-proxyprobe.so cube-servingprobe.so; do
    [ -e "$PLUGIN_DIR/$so" ] ||
        die "$so not found in '$PLUGIN_DIR' (build the tests, or set BENCH_PLUGIN_DIR)"
done
bench_threads

TMP=$(mktemp -d -t cube-bench.XXXXXX) || die "mktemp failed"
bench_tmp_setup

# --- nginx: the upstream ----------------------------------------------------------

SFILE=/serve/bench/app/small.txt
mkdir -p "$TMP/www/probe/bench/app" "$TMP/www/serve/bench/app"
printf 'hello from the upstream, a small file of about a hundred bytes....................\n' \
    >"$TMP/www$FILE"
cp "$TMP/www$FILE" "$TMP/www$SFILE"
chmod -R a+rX "$TMP"
NPORT=$(free_port) || die "no free loopback port"
start_nginx "$FILE" <<EOF
        location /probe/ { default_type "text/plain"; }
        location /serve/ { default_type "text/plain"; }
EOF

# --- cubed with the probe prefix -------------------------------------------------------

CPORT=$(free_port "$NPORT") || die "no free loopback port"
APORT=$(free_port "$CPORT") || die "no free loopback port"   # the apps listener
mkdir -p "$TMP/data" "$TMP/conf.d"
cat >"$TMP/cube.yaml" <<EOF
listen: "127.0.0.1:$CPORT"
apps_listen: "127.0.0.1:$APORT"
data_dir: "$TMP/data"
database: sqlite
plugin_dir: "$PLUGIN_DIR"
conf_dir: "$TMP/conf.d"
web_root: ""
log:
  level: warn
  access: "off"
limits:
  threads: $THREADS
EOF
cat >"$TMP/conf.d/10-proxyprobe.yaml" <<EOF
plugin: proxyprobe
config:
  port: $NPORT
  down_port: 1
EOF
cat >"$TMP/conf.d/11-servingprobe.yaml" <<EOF
plugin: servingprobe
config:
  port: $NPORT
EOF
CUBE_ADMIN_TOKEN=$ADMIN_TOKEN "$CUBED" -c "$TMP/cube.yaml" >"$TMP/cubed.out" 2>"$TMP/cubed.err" &
CPID=$!
for i in $(seq 1 3000); do
    cubed_running "$TMP/cubed.err" cubed || die "cubed could not bind port $CPORT"
    http_status "$CPORT" /readyz 2>/dev/null
    [ "$HTTP_STATUS" = 200 ] && break
    [ "$i" = 3000 ] && die "cubed not ready after 15 s"
    msleep 0.005
done
mint_token "$CPORT" "$ADMIN_TOKEN"
AUTH="Authorization: Bearer $TOKEN"

DIRECT=http://127.0.0.1:$NPORT$FILE
PROXIED=http://127.0.0.1:$APORT$FILE   # proxied servers answer on the apps origin
SERVING=http://127.0.0.1:$APORT$SFILE
curl -sS -H "$AUTH" "$PROXIED" | cmp -s - "$TMP/www$FILE" ||
    die "the proxied GET did not return the upstream's file"
curl -sS -H "$AUTH" "$SERVING" | cmp -s - "$TMP/www$SFILE" ||
    die "the GET through the serving prefix did not return the upstream's file"

# --- interleaved sequential requests ----------------------------------------------

command -v cc >/dev/null 2>&1 || die "a C compiler (cc) is needed for abclient"
cc -O2 -o "$TMP/abclient" "$HERE/abclient.c" || die "cannot build abclient"
REQUESTS=${BENCH_REQUESTS:-20000}
posint BENCH_REQUESTS "$REQUESTS"
say "nproc $(nproc); load $(cut -d' ' -f1-3 /proc/loadavg); cubed threads $THREADS; nginx workers $THREADS; $("$NGINX" -v 2>&1)"
say ""
say "abclient: $REQUESTS GETs each, one keep-alive connection each, alternating (ms)"
bg_wait "$TMP/abclient" "$NPORT" "$FILE" "$APORT" "$FILE" "$AUTH" "$REQUESTS" >"$TMP/ab.txt" ||
    die "abclient failed"
sed -e 's/^A /direct  /' -e 's/^B /proxied /' -e 's/^delta /added   /' "$TMP/ab.txt"
AB_P99=$(sed -n 's/^delta.* p99=+*\(-*[0-9.]*\) .*/\1/p' "$TMP/ab.txt")
say ""
say "abclient: the same through the probe prefix (A) and the serving prefix (B: key counters, done)"
bg_wait "$TMP/abclient" "$APORT" "$FILE" "$APORT" "$SFILE" "$AUTH" "$REQUESTS" >"$TMP/ab2.txt" ||
    die "abclient failed"
sed -e 's/^A /proxied /' -e 's/^B /serving /' -e 's/^delta /added   /' "$TMP/ab2.txt"
SERVING_ADDED=$(sed -n 's/^delta //p' "$TMP/ab2.txt")
say ""

# --- load ----------------------------------------------------------------------------

say "wrk -t1 --latency -d$DURATION, keep-alive, GET of a $(wc -c <"$TMP/www$FILE")-byte file"
say ""
printf '%-8s %-8s %10s %10s %10s %10s\n' conns target req/s p50_ms p99_ms p99_delta
for conns in 1 16; do
    WRK_CONNS=$conns
    for target in direct proxied serving; do
        url=$DIRECT; [ "$target" = proxied ] && url=$PROXIED; [ "$target" = serving ] && url=$SERVING
        wrk_warmup -H "$AUTH" "$url"
        wrk_measure "$TMP/$target-$conns.txt" -H "$AUTH" "$url" ||
            die "wrk failed against $url"
        notes=$(wrk_notes "$TMP/$target-$conns.txt")
        [ -n "$notes" ] && say "note ($target, $conns): $notes"
    done
    dp99=$(wrk_p99 "$TMP/direct-$conns.txt")
    pp99=$(wrk_p99 "$TMP/proxied-$conns.txt")
    delta=$(awk -v a="$pp99" -v b="$dp99" 'BEGIN { printf "%.3f", a - b }')
    sp99=$(wrk_p99 "$TMP/serving-$conns.txt")
    sdelta=$(awk -v a="$sp99" -v b="$dp99" 'BEGIN { printf "%.3f", a - b }')
    for target in direct proxied serving; do
        f=$TMP/$target-$conns.txt
        p50=$(to_ms "$(awk '$1 == "50%" { print $2; exit }' "$f")")
        d=""; [ "$target" = proxied ] && d=$delta; [ "$target" = serving ] && d=$sdelta
        printf '%-8s %-8s %10s %10s %10s %10s\n' "$conns" "$target" "$(wrk_rps "$f")" \
            "$p50" "$(wrk_p99 "$f")" "$d"
    done
    [ "$conns" = 1 ] && P99_DELTA_1=$delta
done
say ""
verdict=$(awk -v d="$AB_P99" -v b="$BAR_P99_OVERHEAD_MS" 'BEGIN {
    if (d !~ /^-?[0-9.]+$/) print "not measured"; else print (d + 0 <= b + 0) ? "meets bar" : "below bar" }')
say "bar: the proxy adds <= ${BAR_P99_OVERHEAD_MS} ms p99 (abclient, interleaved): ${AB_P99:-?} ms ($verdict)"
say "(wrk, one connection, separate windows: p99 ${P99_DELTA_1} ms more through the proxy)"
say "done callback + per-key counters (serving vs proxied, abclient, interleaved; no bar): ${SERVING_ADDED:-?}"
exit 0
