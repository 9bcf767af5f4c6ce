#!/usr/bin/env bash
# http.sh — HTTP benchmark: cubed against nginx, on the same machine, in the
# same run, with the same load generator settings.
#
# Prints figures; it is not a pass/fail test. Exit status is 0 whenever the
# benchmark ran (whatever the figures), non-zero only when something needed
# could not be installed, built or started.
#
# Measures:
#   - cubed start-up to ready: the "ready in X ms" figure cubed logs, and the
#     time from exec to the first 200 on /readyz seen from outside;
#   - cubed idle RSS (VmRSS after ready, before any load);
#   - wrk -t2 -c64 --latency against cubed /healthz, nginx serving the same
#     /healthz bytes as a static file, cubed /api/v1/hello (hello plugin) and
#     nginx serving the same /api/v1/hello bytes: req/s and p99 latency.
#
# Environment:
#   CUBED=path           cubed binary to use (default: build it in ./build)
#   BENCH_PLUGIN_DIR=dir where cube-<name>.so are (default: next to cubed)
#   BENCH_DURATION=10s   wrk duration per target (a bare number means seconds)
#   BENCH_WARMUP=1s      wrk warm-up per target before measuring (0: none)
#   BENCH_ROUNDS=1       rounds over the four targets; the medians are shown
#   BENCH_THREADS=n      cubed limits.threads and nginx worker_processes
#                        (default: cubed's own default, nproc but at least 2)
#
# Usage: bash tests/bench/http.sh
set -uo pipefail
export LC_ALL=C

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/tests/bench
BENCH_NAME=http.sh
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$HERE/lib.sh"

# Bars (cubed relative to nginx, and absolute).
BAR_HEALTHZ_RATIO=0.8
BAR_PLUGIN_RATIO=0.6
BAR_RSS_MIB=15
BAR_READY_MS=100

WRK_THREADS=2
WRK_CONNS=64

DURATION=$(dur "${BENCH_DURATION:-10s}")
WARMUP=$(dur "${BENCH_WARMUP:-1s}")
ROUNDS=${BENCH_ROUNDS:-1}
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "BENCH_ROUNDS must be a positive integer"

# Our own settings must win over whatever the caller's shell exports.
unset CUBE_LISTEN CUBE_DATA_DIR CUBE_DATABASE_URL CUBE_PLUGIN_DIR \
      CUBE_LOG_LEVEL CUBE_ADMIN_TOKEN

# --- tools ---------------------------------------------------------------

need_http_tools

# --- cubed ---------------------------------------------------------------

find_cubed

if [ -n "${BENCH_PLUGIN_DIR:-}" ]; then
    PLUGIN_DIR=$BENCH_PLUGIN_DIR
elif [ -d "$(dirname "$CUBED")/../plugins" ]; then
    PLUGIN_DIR=$(cd "$(dirname "$CUBED")/../plugins" && pwd)
else
    PLUGIN_DIR=$ROOT/build/plugins
fi
[ -e "$PLUGIN_DIR/hello/cube-hello.so" ] || [ -e "$PLUGIN_DIR/cube-hello.so" ] ||
    die "cube-hello.so not found under $PLUGIN_DIR (set BENCH_PLUGIN_DIR)"

bench_threads
[[ $THREADS =~ ^[1-9][0-9]*$ ]] || die "BENCH_THREADS must be a positive integer"

# --- temp dir and clean-up -------------------------------------------------

TMP=$(mktemp -d -t cube-bench.XXXXXX) || die "mktemp failed"
bench_tmp_setup

# --- helpers ---------------------------------------------------------------

# Sets NOW_US to the wall clock in microseconds (no fork).
now_us() { local t=$EPOCHREALTIME; NOW_US=${t/./}; }

verdict() { # value op bar -> "meets bar" / "below bar" / "not measured"
    awk -v v="$1" -v op="$2" -v b="$3" 'BEGIN {
        if (v !~ /^[0-9.]+$/) { print "not measured"; exit }
        ok = (op == ">=") ? (v + 0 >= b + 0) : (v + 0 <= b + 0)
        print ok ? "meets bar" : "below bar" }'
}

# --- start cubed ------------------------------------------------------------

write_cube_yaml() {
    cat >"$TMP/cube.yaml" <<EOF
listen: "127.0.0.1:$CPORT"
data_dir: "$TMP/data"
database: sqlite
plugin_dir: "$PLUGIN_DIR"
conf_dir: "$ROOT/conf.d"
web_root: ""
log:
  level: info
  format: text
  access: "off"
limits:
  threads: $THREADS
EOF
}

mkdir -p "$TMP/data"
CPORT=$(free_port) || die "no free loopback port"
write_cube_yaml
"$CUBED" --check-config -c "$TMP/cube.yaml" >"$TMP/check.out" 2>&1 ||
    { cat "$TMP/check.out" >&2; die "cubed --check-config rejected the bench config"; }

# Starts cubed; sets READY_EXT_US. Returns 2 when the port was taken.
start_cubed() {
    local t0
    now_us; t0=$NOW_US
    "$CUBED" -c "$TMP/cube.yaml" >"$TMP/cubed.out" 2>"$TMP/cubed.err" &
    CPID=$!
    while :; do
        cubed_running "$TMP/cubed.err" cubed || return
        http_status "$CPORT" /readyz 2>/dev/null
        now_us
        if [ "$HTTP_STATUS" = 200 ]; then
            READY_EXT_US=$(( NOW_US - t0 ))
            return 0
        fi
        (( NOW_US - t0 > 15000000 )) && { cat "$TMP/cubed.err" >&2; die "cubed not ready after 15 s"; }
        msleep 0.001
    done
}

READY_EXT_US=''
for attempt in 1 2 3 4 5; do
    start_cubed && break
    [ "$attempt" = 5 ] && die "cubed could not bind a port after 5 tries"
    CPORT=$(free_port) || die "no free loopback port"
    write_cube_yaml
done
READY_EXT_MS=$(awk -v u="$READY_EXT_US" 'BEGIN { printf "%.1f", u / 1000 }')

# The log line is written right after the ready flag is set; give it a moment.
READY_LOG_MS=
for _ in $(seq 1 200); do
    READY_LOG_MS=$(sed -n 's/.*ready in \([0-9.]*\) ms.*/\1/p' "$TMP/cubed.err" "$TMP/cubed.out" | head -n 1)
    [ -n "$READY_LOG_MS" ] && break
    msleep 0.005
done
[ -n "$READY_LOG_MS" ] || READY_LOG_MS="?"

# Idle RSS: after ready, before any load (let start-up settle briefly).
msleep 0.2
IDLE_RSS_KIB=$(proc_field "$CPID" VmRSS)
IDLE_THREADS=$(proc_field "$CPID" Threads)
IDLE_RSS_MIB=$(kib_to_mib "${IDLE_RSS_KIB:-0}")
[ -n "$IDLE_RSS_KIB" ] || IDLE_RSS_MIB="?"

# --- the bytes nginx will serve ------------------------------------------------

mkdir -p "$TMP/www/api/v1"
fetch() { # path file -> prints content type; fails unless 200
    local out code ct
    out=$(curl -sS -o "$2" -w '%{http_code} %{content_type}' "http://127.0.0.1:$CPORT$1") || return 1
    code=${out%% *}; ct=${out#* }
    [ "$code" = 200 ] || { say "GET $1 on cubed: status $code" >&2; return 1; }
    printf '%s' "$ct"
}
CT_HEALTHZ=$(fetch /healthz "$TMP/www/healthz") || die "cannot fetch /healthz from cubed"
CT_HELLO=$(fetch /api/v1/hello "$TMP/www/api/v1/hello") || die "cannot fetch /api/v1/hello from cubed (hello plugin enabled in conf.d?)"
SIZE_HEALTHZ=$(wc -c <"$TMP/www/healthz")
SIZE_HELLO=$(wc -c <"$TMP/www/api/v1/hello")

# nginx workers may run as another user: make the docroot readable.
chmod 755 "$TMP" "$TMP/www" "$TMP/www/api" "$TMP/www/api/v1"
chmod 644 "$TMP/www/healthz" "$TMP/www/api/v1/hello"

# --- start nginx ----------------------------------------------------------------

NPORT=$(free_port "$CPORT") || die "no free loopback port"
start_nginx /healthz <<EOF
        location = /healthz { default_type "$CT_HEALTHZ"; }
        location = /api/v1/hello { default_type "$CT_HELLO"; }
EOF

# Both must serve the very same bytes with the same content type.
for p in /healthz /api/v1/hello; do
    f=$TMP/www${p}
    out=$(curl -sS -o "$TMP/check.body" -w '%{http_code} %{content_type}' "http://127.0.0.1:$NPORT$p") ||
        die "cannot fetch $p from nginx"
    [ "${out%% *}" = 200 ] || die "nginx $p: status ${out%% *}"
    cmp -s "$f" "$TMP/check.body" || die "nginx $p: body differs from cubed's"
    want=$CT_HEALTHZ; [ "$p" = /healthz ] || want=$CT_HELLO
    [ "${out#* }" = "$want" ] || say "note: content type differs on $p: cubed '$want', nginx '${out#* }'"
done

# --- load ------------------------------------------------------------------------

median() { # numbers... -> median ("?" when none is a number)
    printf '%s\n' "$@" | awk '/^[0-9.]+$/' | sort -n | awk '
        { v[NR] = $1 }
        END { if (NR == 0) print "?";
              else if (NR % 2) print v[(NR + 1) / 2];
              else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Per target: req/s and p99 of each round (space separated), wrk's notes.
declare -A RPS_ALL P99_ALL NOTE RPS P99
run_wrk() { # key url round
    local key=$1 url=$2 out=$TMP/wrk-$1-$3.txt rps p99 note
    wrk_warmup "$url"
    say "wrk -t$WRK_THREADS -c$WRK_CONNS -d$DURATION --latency $url"
    wrk_measure "$out" "$url" || { cat "$out" >&2; die "wrk failed on $url"; }
    rps=$(wrk_rps "$out")
    p99=$(wrk_p99 "$out")
    RPS_ALL[$key]="${RPS_ALL[$key]:-} ${rps:-?}"
    P99_ALL[$key]="${P99_ALL[$key]:-} $p99"
    note=$(wrk_notes "$out")
    [ -n "$note" ] && NOTE[$key]="${NOTE[$key]:-}${NOTE[$key]:+; }round $3: $note"
    return 0
}

TARGETS=(cubed_healthz nginx_healthz cubed_hello nginx_hello)
declare -A URL=(
    [cubed_healthz]="http://127.0.0.1:$CPORT/healthz"
    [nginx_healthz]="http://127.0.0.1:$NPORT/healthz"
    [cubed_hello]="http://127.0.0.1:$CPORT/api/v1/hello"
    [nginx_hello]="http://127.0.0.1:$NPORT/api/v1/hello"
)
say ""
for ((round = 1; round <= ROUNDS; round++)); do
    (( ROUNDS > 1 )) && say "round $round of $ROUNDS"
    for k in "${TARGETS[@]}"; do
        run_wrk "$k" "${URL[$k]}" "$round"
    done
done
for k in "${TARGETS[@]}"; do
    # shellcheck disable=SC2086  # word splitting wanted
    RPS[$k]=$(median ${RPS_ALL[$k]})
    # shellcheck disable=SC2086
    P99[$k]=$(median ${P99_ALL[$k]})
done

LOAD_RSS_KIB=$(proc_field "$CPID" VmRSS)
PEAK_RSS_KIB=$(proc_field "$CPID" VmHWM)
kill -0 "$CPID" 2>/dev/null || die "cubed died during the load"

# --- report ----------------------------------------------------------------------

CUBED_VERSION=$("$CUBED" -V 2>&1 | head -n 1)
NGINX_VERSION=$("$NGINX" -v 2>&1 | head -n 1)
WRK_VERSION=$(wrk -v 2>&1 | head -n 1 | awk '{ print $1, $2 }')

say ""
say "== Cube HTTP benchmark =="
say "machine: nproc $NPROC, $(uname -srm)"
say "cubed and nginx ran on this same machine, in this same run, one after the"
say "other, loaded by the same wrk over 127.0.0.1 (the load shares the CPUs)."
say "cubed: $CUBED_VERSION, limits.threads $THREADS, access log off"
say "nginx: ${NGINX_VERSION#nginx version: }, worker_processes $THREADS, access_log off, static files"
say "load:  $WRK_VERSION -t$WRK_THREADS -c$WRK_CONNS -d$DURATION --latency (warm-up $WARMUP), $ROUNDS round(s)"
say "bodies: /healthz $SIZE_HEALTHZ bytes ($CT_HEALTHZ), /api/v1/hello $SIZE_HELLO bytes ($CT_HELLO), same bytes on both"
say ""
declare -A LABEL=(
    [cubed_healthz]="cubed /healthz" [nginx_healthz]="nginx /healthz"
    [cubed_hello]="cubed /api/v1/hello" [nginx_hello]="nginx /api/v1/hello"
)
if (( ROUNDS > 1 )); then
    printf '%-22s %12s %10s   %s\n' target "req/s (med)" "p99 ms" "req/s per round"
else
    printf '%-22s %12s %10s\n' target req/s "p99 ms"
fi
for k in "${TARGETS[@]}"; do
    if (( ROUNDS > 1 )); then
        printf '%-22s %12s %10s  %s\n' "${LABEL[$k]}" "${RPS[$k]}" "${P99[$k]}" "${RPS_ALL[$k]}"
    else
        printf '%-22s %12s %10s\n' "${LABEL[$k]}" "${RPS[$k]}" "${P99[$k]}"
    fi
done
for k in "${TARGETS[@]}"; do
    [ -n "${NOTE[$k]:-}" ] && say "  note (${LABEL[$k]}): ${NOTE[$k]}"
done

R_H=$(ratio "${RPS[cubed_healthz]}" "${RPS[nginx_healthz]}")
R_P=$(ratio "${RPS[cubed_hello]}" "${RPS[nginx_hello]}")
L_H=$(ratio "${P99[cubed_healthz]}" "${P99[nginx_healthz]}")
L_P=$(ratio "${P99[cubed_hello]}" "${P99[nginx_hello]}")

say ""
printf '%-30s %14s %14s   %s\n' measure value bar verdict
printf '%-30s %14s %14s   %s\n' "req/s cubed/nginx /healthz" "${R_H}x" ">= ${BAR_HEALTHZ_RATIO}x" "$(verdict "$R_H" ">=" "$BAR_HEALTHZ_RATIO")"
printf '%-30s %14s %14s   %s\n' "req/s cubed/nginx plugin route" "${R_P}x" ">= ${BAR_PLUGIN_RATIO}x" "$(verdict "$R_P" ">=" "$BAR_PLUGIN_RATIO")"
printf '%-30s %14s %14s   %s\n' "idle RSS" "$IDLE_RSS_MIB MiB" "<= $BAR_RSS_MIB MiB" "$(verdict "$IDLE_RSS_MIB" "<=" "$BAR_RSS_MIB")"
printf '%-30s %14s %14s   %s\n' "ready (cubed's log)" "$READY_LOG_MS ms" "<= $BAR_READY_MS ms" "$(verdict "$READY_LOG_MS" "<=" "$BAR_READY_MS")"
printf '%-30s %14s %14s   %s\n' "ready (exec to 200 /readyz)" "$READY_EXT_MS ms" "<= $BAR_READY_MS ms" "$(verdict "$READY_EXT_MS" "<=" "$BAR_READY_MS")"
say ""
say "p99 cubed/nginx (lower is better, no bar): /healthz ${L_H}x, plugin route ${L_P}x"
say "cubed threads at idle: ${IDLE_THREADS:-?}; RSS after load: $(kib_to_mib "${LOAD_RSS_KIB:-0}") MiB, peak (VmHWM): $(kib_to_mib "${PEAK_RSS_KIB:-0}") MiB"
exit 0
