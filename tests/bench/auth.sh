#!/usr/bin/env bash
# auth.sh — the cost of authentication: authenticated GET /api/v1/auth/me
# (an API token as a bearer) against unauthenticated GET /healthz, same
# cubed, same wrk settings, in the same run, alternating rounds. The bar:
# me >= 0.7x healthz (a token check is a SHA-256 and an in-memory lookup,
# not a database round trip per request).
#
# Prints figures; exits non-zero only when something could not be set up.
# Environment: CUBED, BENCH_DURATION (10s), BENCH_WARMUP (1s), BENCH_ROUNDS
# (3), BENCH_THREADS (cubed's limits.threads), as for http.sh.
set -uo pipefail
export LC_ALL=C

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/tests/bench
BENCH_NAME=auth.sh
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$HERE/lib.sh"

BAR_RATIO=0.7
WRK_THREADS=2
WRK_CONNS=64
DURATION=$(dur "${BENCH_DURATION:-10s}")
WARMUP=$(dur "${BENCH_WARMUP:-1s}")
ROUNDS=${BENCH_ROUNDS:-3}
posint BENCH_ROUNDS "$ROUNDS"
unset CUBE_LISTEN CUBE_DATA_DIR CUBE_DATABASE_URL CUBE_PLUGIN_DIR CUBE_LOG_LEVEL \
      CUBE_ADMIN_TOKEN
export CUBE_ADMIN_PASSWORD=bench-admin-password

command -v curl >/dev/null 2>&1 || apt_install curl || die "cannot install curl"
command -v wrk >/dev/null 2>&1 || apt_install wrk || die "cannot install wrk"
find_cubed
bench_threads
TMP=$(mktemp -d -t cube-bench-auth.XXXXXX) || die "mktemp failed"
bench_tmp_setup

CPORT=$(free_port) || die "no free loopback port"
mkdir -p "$TMP/data" "$TMP/conf.d"
cat >"$TMP/cube.yaml" <<YAML
listen: "127.0.0.1:$CPORT"
data_dir: "$TMP/data"
database: sqlite
conf_dir: "$TMP/conf.d"
web_root: ""
log: {level: warn, access: "off"}
limits: {threads: $THREADS}
YAML
"$CUBED" -c "$TMP/cube.yaml" >"$TMP/cubed.out" 2>&1 &
CPID=$!
for _ in $(seq 1 500); do
    http_status "$CPORT" /readyz 2>/dev/null
    [ "$HTTP_STATUS" = 200 ] && break
    kill -0 "$CPID" 2>/dev/null || { cat "$TMP/cubed.out" >&2; die "cubed exited"; }
    msleep 0.02
done
[ "$HTTP_STATUS" = 200 ] || die "cubed not ready"

# Sign in, then mint an API token with the session (cookie + CSRF token).
BASE=http://127.0.0.1:$CPORT
curl -sS -c "$TMP/jar" -o "$TMP/login.json" -X POST "$BASE/api/v1/auth/login" \
    -d "{\"username\":\"admin\",\"password\":\"$CUBE_ADMIN_PASSWORD\"}" || die "login failed"
CSRF=$(sed -n 's/.*"csrf":"\([0-9a-f]*\)".*/\1/p' "$TMP/login.json")
[ -n "$CSRF" ] || die "login answered no CSRF token: $(cat "$TMP/login.json")"
curl -sS -b "$TMP/jar" -H "X-CSRF-Token: $CSRF" -o "$TMP/token.json" \
    -X POST "$BASE/api/v1/auth/tokens" -d '{"name":"bench"}' || die "token request failed"
TOKEN=$(sed -n 's/.*"token":"\(cube_[0-9a-f]*\)".*/\1/p' "$TMP/token.json")
[ -n "$TOKEN" ] || die "no token: $(cat "$TMP/token.json")"
code=$(curl -sS -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "$BASE/api/v1/auth/me")
[ "$code" = 200 ] || die "GET /api/v1/auth/me with the token: $code"

median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END {
    if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

declare -a ME HZ
for ((round = 1; round <= ROUNDS; round++)); do
    wrk_warmup "$BASE/healthz"
    wrk_measure "$TMP/hz.txt" "$BASE/healthz" || die "wrk failed"
    HZ+=("$(wrk_rps "$TMP/hz.txt")")
    wrk_warmup -H "Authorization: Bearer $TOKEN" "$BASE/api/v1/auth/me"
    wrk_measure "$TMP/me.txt" -H "Authorization: Bearer $TOKEN" "$BASE/api/v1/auth/me" ||
        die "wrk failed"
    ME+=("$(wrk_rps "$TMP/me.txt")")
    note=$(wrk_notes "$TMP/me.txt")
    [ -n "$note" ] && say "round $round /api/v1/auth/me: $note"
    say "round $round: /healthz ${HZ[-1]} req/s, /api/v1/auth/me ${ME[-1]} req/s"
done
HZ_MED=$(median "${HZ[@]}")
ME_MED=$(median "${ME[@]}")
R=$(ratio "$ME_MED" "$HZ_MED")
say ""
say "== Cube auth benchmark (wrk -t$WRK_THREADS -c$WRK_CONNS -d$DURATION, $ROUNDS rounds, medians; nproc $(nproc)) =="
say "unauthenticated GET /healthz:           $HZ_MED req/s"
say "bearer-token GET /api/v1/auth/me:       $ME_MED req/s"
say "ratio me/healthz:                       ${R}x (bar >= ${BAR_RATIO}x: $(awk -v r="$R" -v b="$BAR_RATIO" 'BEGIN { print (r + 0 >= b + 0) ? "meets bar" : "below bar" }'))"
