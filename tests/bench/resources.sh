#!/usr/bin/env bash
# resources.sh — resource API benchmark: cubed on SQLite and on PostgreSQL,
# side by side, against raw PostgreSQL INSERTs (pgbench) and nginx, on the
# same machine, in the same run.
#
# Prints figures; it is not a pass/fail test. Exit status is 0 whenever the
# benchmark ran (whatever the figures), non-zero only when something needed
# could not be installed, built or started.
#
# For each store (SQLite, then PostgreSQL; one cubed at a time, fresh data,
# the testkinds plugin: kind Note (BENCH_PLURAL=notes), project scope, no
# controller, so creates measure the API's own write path; BENCH_PLURAL=widgets
# adds the Widget controller's status write to every create). Every request
# carries an API token of the admin, minted with the break-glass admin token
# (CUBE_ADMIN_TOKEN; audited per request), which creates project "bench"
# first (objects need their project):
#   - creates BENCH_OBJECTS objects in project "bench" (POST, keep-alive,
#     small JSON bodies, unique names w0, w1, ...): the first S of them from
#     1 client, the rest from 16 clients at once (loadgen.c); creates/s
#     counts 201s. S is BENCH_SERIAL_OBJECTS, at most a fifth of the total;
#   - waits for the Widget controller to catch up (resourceVersion steady);
#   - GET by name: wrk -t2 -c64, a random existing name per request
#     (get_by_name.lua): req/s and p99;
#   - a list page of 500 (GET ...?limit=500, first page) BENCH_LIST_REQUESTS
#     times over one keep-alive connection (curl): median and p99;
#   - watch delivery: BENCH_WATCHERS SSE watches on the project's widgets,
#     then BENCH_WATCH_UPDATES PATCHes of random objects, each carrying its
#     send time in spec.note; latency from send to receipt at each watcher
#     (watch_latency.py): p50 and p99.
# Peers, against the same throwaway PostgreSQL and with the same settings:
#   - pgbench -M prepared, INSERTs of the same document into a table of the
#     objects table's shape, -c1 for S rows and -c16 for the rest;
#   - then BENCH_CREATE_ROUNDS - 1 more rounds on PostgreSQL, a fresh cubed
#     creating the 16-client share into a new project, then pgbench -c16
#     again; the create bar's verdict is on the median of the rounds' ratios
#     (one round of each is at the mercy of a noisy machine); every round
#     but cubed's first starts on vacuumed tables, right after a checkpoint;
#   - nginx serving the bytes of a GET by name as a static file, for any
#     name, loaded by the same wrk script.
#
# Environment:
#   CUBED=path              cubed binary (default: build it in ./build)
#   BENCH_PLUGIN_DIR=dir    where cube-testkinds.so is (default: build/tests/resources)
#   BENCH_OBJECTS=100000    objects to create per store
#   BENCH_SERIAL_OBJECTS=5000  of those, created from 1 client (capped at 1/5)
#   BENCH_DURATION=10s      wrk duration of GET by name (bare number: seconds)
#   BENCH_WARMUP=1s         wrk warm-up before it (0: none)
#   BENCH_LIST_REQUESTS=200 list pages fetched per store
#   BENCH_WATCHERS=100      concurrent watches
#   BENCH_WATCH_UPDATES=200 PATCHes while they watch
#   BENCH_WATCH_INTERVAL_MS=10  time between PATCHes
#   BENCH_SETTLE_MAX=300    seconds to wait at most for the controller
#   BENCH_THREADS=n         cubed limits.threads (default: cubed's own choice),
#                           nginx worker_processes
#                           (default: nproc, at least 2)
#   BENCH_ONLY=pg-create    only the creates on PostgreSQL and their pgbench
#                           peer (no SQLite, GETs, lists, watches or nginx):
#                           a quick check of the create bar (default: all)
#   BENCH_CREATE_ROUNDS=3   rounds of the 16-client creates on PostgreSQL, each
#                           followed by a pgbench round; the bar is judged on
#                           the median ratio (1: the first round alone)
#
# Usage: bash tests/bench/resources.sh
#        BENCH_OBJECTS=5000 BENCH_DURATION=5 bash tests/bench/resources.sh
set -uo pipefail
export LC_ALL=C

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/tests/bench
BENCH_NAME=resources.sh
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$HERE/lib.sh"

# Bars.
BAR_CREATE_RATIO=0.5   # cubed on PostgreSQL / pgbench, same concurrency
BAR_GET_RATIO=0.5      # cubed / nginx, GET by name req/s
BAR_WATCH_P99_MS=20    # watch delivery p99

CREATE_CONNS=16
WRK_THREADS=2
WRK_CONNS=64
ADMIN_TOKEN=bench-admin-token   # CUBE_ADMIN_TOKEN: mints TOKEN (start_cubed)
TOKEN=
AUTH=
PROJECT=bench
PLURAL=${BENCH_PLURAL:-notes}
API=/api/v1/projects/$PROJECT/$PLURAL
PREFIX=w

N=${BENCH_OBJECTS:-100000}
SERIAL=${BENCH_SERIAL_OBJECTS:-5000}
LIST_REQS=${BENCH_LIST_REQUESTS:-200}
WATCHERS=${BENCH_WATCHERS:-100}
UPDATES=${BENCH_WATCH_UPDATES:-200}
INTERVAL_MS=${BENCH_WATCH_INTERVAL_MS:-10}
SETTLE_MAX=${BENCH_SETTLE_MAX:-300}
DURATION=$(dur "${BENCH_DURATION:-10s}")
WARMUP=$(dur "${BENCH_WARMUP:-1s}")
ONLY=${BENCH_ONLY:-all}
ROUNDS=${BENCH_CREATE_ROUNDS:-3}
case $ONLY in all|pg-create) ;; *) die "BENCH_ONLY must be all or pg-create, not $ONLY" ;; esac
for v in N SERIAL LIST_REQS WATCHERS UPDATES INTERVAL_MS SETTLE_MAX ROUNDS; do
    posint "$v" "${!v}"
done
(( N >= 10 )) || die "BENCH_OBJECTS must be at least 10"
(( SERIAL > N / 5 )) && SERIAL=$(( N / 5 ))
PARALLEL=$(( N - SERIAL ))

# Our own settings must win over whatever the caller's shell exports.
unset CUBE_LISTEN CUBE_DATA_DIR CUBE_DATABASE_URL CUBE_PLUGIN_DIR \
      CUBE_LOG_LEVEL CUBE_ADMIN_TOKEN PGHOST PGPORT PGUSER PGDATABASE \
      PGPASSWORD PGSERVICE

# --- tools ---------------------------------------------------------------

find_pg_tool() { # name: the newest server's copy, else PATH
    local d
    d=$(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
    if [ -x "$d/$1" ]; then printf '%s\n' "$d/$1"; return 0; fi
    command -v "$1" 2>/dev/null
}

need_http_tools
command -v cc >/dev/null 2>&1 || apt_install gcc || die "cannot install a C compiler"
if [ -x /usr/bin/python3 ]; then PY=/usr/bin/python3
else PY=$(command -v python3) || { apt_install python3 || die "cannot install python3"; PY=$(command -v python3); }
fi
# pg.sh installs the server (initdb, pgbench) when it is missing.

# --- cubed ---------------------------------------------------------------

find_cubed

if [ -n "${BENCH_PLUGIN_DIR:-}" ]; then
    PLUGIN_DIR=$(cd "$BENCH_PLUGIN_DIR" && pwd) || die "BENCH_PLUGIN_DIR=$BENCH_PLUGIN_DIR is not a directory"
elif [ -d "$(dirname "$CUBED")/../tests/resources" ]; then
    PLUGIN_DIR=$(cd "$(dirname "$CUBED")/../tests/resources" && pwd)
else
    PLUGIN_DIR=$ROOT/build/tests/resources
fi
[ -e "$PLUGIN_DIR/cube-testkinds.so" ] ||
    die "cube-testkinds.so not found in $PLUGIN_DIR (set BENCH_PLUGIN_DIR)"

bench_threads
posint BENCH_THREADS "$THREADS"

# --- temp dirs and clean-up ------------------------------------------------

TMP=$(mktemp -d -t cube-bench-res.XXXXXX) || die "mktemp failed"
PGDIR=''
STOP_POLLS=200

# shellcheck disable=SC2317  # called from cleanup, the EXIT trap
cleanup_hook() { # the EXIT trap's extra: the PostgreSQL cluster
    if [ -n "$PGDIR" ]; then
        "$ROOT/tests/pg/pg.sh" stop "$PGDIR" >/dev/null 2>&1
        rm -rf "$PGDIR"
    fi
}
bench_tmp_setup

# --- helpers ---------------------------------------------------------------

ok_bar() { # value op bar -> 0 when it meets the bar, 1 below, 2 unknown
    awk -v v="$1" -v op="$2" -v b="$3" 'BEGIN {
        if (v !~ /^[0-9.]+$/) exit 2
        ok = (op == ">=") ? (v + 0 >= b + 0) : (v + 0 <= b + 0)
        exit ok ? 0 : 1 }'
}

# Verdict over several (label value) pairs against one bar.
verdict() { # op bar label value [label value...]
    local op=$1 bar=$2 below=() unknown=0
    shift 2
    while [ $# -ge 2 ]; do
        ok_bar "$2" "$op" "$bar"
        case $? in
            1) below+=("$1") ;;
            2) unknown=1 ;;
        esac
        shift 2
    done
    if [ ${#below[@]} -gt 0 ]; then printf 'below bar (%s)' "${below[*]}"
    elif [ $unknown -eq 1 ]; then printf 'not measured'
    else printf 'meets bar'
    fi
}

pctl() { # p file -> the p-th percentile (0..1) of the numbers in file, in ms from s
    sort -n "$2" | awk -v p="$1" '/^[0-9.]+$/ { v[n++] = $1 }
        END { if (n == 0) { print "?"; exit }
              i = int(p * (n - 1)); printf "%.2f", v[i] * 1000 }'
}

kv() { # key line -> value of key=value in line
    sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" <<<"$2"
}

# --- load generator --------------------------------------------------------

cc -O2 -pthread -o "$TMP/loadgen" "$HERE/loadgen.c" 2>"$TMP/cc.err" ||
    { cat "$TMP/cc.err" >&2; die "cannot build loadgen.c"; }

# --- throwaway PostgreSQL ------------------------------------------------------

say "starting a throwaway PostgreSQL (tests/pg/pg.sh)"
PGDIR=$(mktemp -d "${TMPDIR:-/tmp}/cube-bench-pg.XXXXXX") || die "mktemp failed"
PG_URL=$("$ROOT/tests/pg/pg.sh" start "$PGDIR") || die "cannot start PostgreSQL (tests/pg/pg.sh)"
PG_PORT=$(sed -n 's#^postgres://[^@]*@127.0.0.1:\([0-9]*\)/.*#\1#p' <<<"$PG_URL")
[ -n "$PG_PORT" ] || die "unexpected PostgreSQL URL: $PG_URL"
PSQL=$(find_pg_tool psql) || die "psql not found"
PGBENCH=$(find_pg_tool pgbench) ||
    { apt_install postgresql-contrib || die "cannot install pgbench"; PGBENCH=$(find_pg_tool pgbench) || die "pgbench not found"; }
PG_VERSION=$("$PSQL" -h 127.0.0.1 -p "$PG_PORT" -U postgres -d cube -Atc 'SHOW server_version' 2>/dev/null)
PG_FSYNC=$("$PSQL" -h 127.0.0.1 -p "$PG_PORT" -U postgres -d cube -Atc 'SHOW fsync' 2>/dev/null)

# --- one store -------------------------------------------------------------------

declare -A R  # results: R[store:metric]

write_cube_yaml() { # store database
    mkdir -p "$TMP/$1/data" "$TMP/$1/conf.d"
    printf 'plugin: testkinds\n' >"$TMP/$1/conf.d/10-testkinds.yaml"
    cat >"$TMP/$1/cube.yaml" <<EOF
listen: "127.0.0.1:$CPORT"
data_dir: "$TMP/$1/data"
database: "$2"
plugin_dir: "$PLUGIN_DIR"
conf_dir: "$TMP/$1/conf.d"
web_root: ""
log:
  level: info
  format: text
  access: "off"
EOF
    # cubed picks its own thread count (more with PostgreSQL) unless told.
    if [ -n "${BENCH_THREADS:-}" ]; then
        printf 'limits:\n  threads: %s\n' "$THREADS" >> "$TMP/$1/cube.yaml"
    fi
}

start_cubed() { # store database; returns 2 when the port was taken
    local t0=$SECONDS
    write_cube_yaml "$1" "$2"
    (cd "$TMP/$1" && CUBE_ADMIN_TOKEN=$ADMIN_TOKEN exec "$CUBED" -c "$TMP/$1/cube.yaml") \
        >"$TMP/$1/cubed.out" 2>"$TMP/$1/cubed.err" &
    CPID=$!
    while :; do
        cubed_running "$TMP/$1/cubed.err" "cubed ($1)" || return
        http_status "$CPORT" /readyz 2>/dev/null
        if [ "$HTTP_STATUS" = 200 ]; then
            mint_token "$CPORT" "$ADMIN_TOKEN"
            AUTH="Authorization: Bearer $TOKEN"
            return 0
        fi
        (( SECONDS - t0 > 30 )) && { cat "$TMP/$1/cubed.err" >&2; die "cubed ($1) not ready after 30 s"; }
        msleep 0.01
    done
}

wrk_get() { # base out: GET by name of random objects under base, into out
    export BENCH_GET_N=$N BENCH_GET_PATH="$API/$PREFIX"
    wrk_warmup -H "$AUTH" -s "$HERE/get_by_name.lua" "$1/"
    say "wrk -t$WRK_THREADS -c$WRK_CONNS -d$DURATION --latency -s get_by_name.lua (random names)"
    wrk_measure "$2" -H "$AUTH" -s "$HERE/get_by_name.lua" "$1/" || { cat "$2" >&2; die "wrk failed"; }
}

current_rv() { # the list's resourceVersion (the last one in the answer)
    curl -sS -H "$AUTH" "http://127.0.0.1:$CPORT$API?limit=1" 2>/dev/null |
        grep -o '"resourceVersion":"[0-9]*"' | tail -n 1 | tr -dc 0-9
}

make_project() { # store [project]: creates the project (default $PROJECT) as the admin
    local code p=${2:-$PROJECT}
    code=$(curl -sS -o "$TMP/$1/project.out" -w '%{http_code}' -X POST -H "$AUTH" \
               -H 'Content-Type: application/json' --data "{\"metadata\":{\"name\":\"$p\"}}" \
               "http://127.0.0.1:$CPORT/api/v1/projects") || code=000
    [ "$code" = 201 ] || { cat "$TMP/$1/project.out" >&2; die "cannot create project $p on cubed ($1): $code"; }
}

save_object() { # base: one object's bytes, for nginx and pgbench (once)
    if [ ! -s "$TMP/object.json" ]; then
        curl -sS -H "$AUTH" -o "$TMP/object.json" -w '%{content_type}' "$1/${PREFIX}0" >"$TMP/object.ct" ||
            die "cannot GET an object from cubed"
    fi
}

start_cubed_on_free_port() { # store database; another port when one was taken
    local attempt
    for attempt in 1 2 3 4 5; do
        CPORT=$(free_port) || die "no free loopback port"
        start_cubed "$1" "$2" && return 0
    done
    die "cubed could not bind a port after 5 tries"
}

bench_store() { # store database
    local s=$1 db=$2 out
    say ""
    say "== cubed on $s =="
    start_cubed_on_free_port "$s" "$db"
    local base="http://127.0.0.1:$CPORT$API"
    make_project "$s"

    # Creates: S from one client, then the rest from 16.
    say "create $SERIAL from 1 client"
    out=$(bg_wait "$TMP/loadgen" "$CPORT" "$API" "$TOKEN" "$PREFIX" 0 "$SERIAL" 1) ||
        die "loadgen failed against cubed ($s): $out"
    say "  $out"
    R[$s:c1]=$(kv rate "$out" | awk '{ printf "%.0f", $1 }')
    R[$s:c1_fail]=$(kv failed "$out")
    say "create $PARALLEL from $CREATE_CONNS clients"
    out=$(bg_wait "$TMP/loadgen" "$CPORT" "$API" "$TOKEN" "$PREFIX" "$SERIAL" "$PARALLEL" "$CREATE_CONNS") ||
        die "loadgen failed against cubed ($s): $out"
    say "  $out"
    R[$s:c16]=$(kv rate "$out" | awk '{ printf "%.0f", $1 }')
    R[$s:c16_p99]=$(kv p99_ms "$out" | awk '{ printf "%.2f", $1 }')
    R[$s:c16_fail]=$(kv failed "$out")
    R[$s:create_s]=$(kv seconds "$out")
    if [ "$ONLY" = pg-create ]; then
        save_object "$base"
        R[$s:rss]=$(kib_to_mib "$(proc_field "$CPID" VmHWM)")
        stop_pid "$CPID" TERM
        CPID=''
        return 0
    fi

    # The Widget controller writes status after each create: let it finish
    # before measuring reads.
    local t0=$SECONDS last='' now stable=0
    while (( SECONDS - t0 < SETTLE_MAX )); do
        now=$(current_rv)
        if [ -n "$now" ] && [ "$now" = "$last" ]; then
            stable=$(( stable + 1 ))
            (( stable >= 2 )) && break
        else
            stable=0
        fi
        last=$now
        msleep 0.5
    done
    R[$s:settle]=$(( SECONDS - t0 ))
    R[$s:rv]=${last:-?}
    (( stable >= 2 )) || say "  note: still writing after ${SETTLE_MAX}s (resourceVersion $last)"
    say "controller settled ~${R[$s:settle]} s after the last create (resourceVersion ${last:-?})"

    save_object "$base"

    # GET by name.
    local wout=$TMP/$s/wrk-get.txt
    wrk_get "$base" "$wout"
    R[$s:get]=$(wrk_rps "$wout")
    R[$s:get_p99]=$(wrk_p99 "$wout" 2)
    R[$s:get_note]=$(wrk_notes "$wout")
    say "  ${R[$s:get]} req/s, p99 ${R[$s:get_p99]} ms${R[$s:get_note]:+ (${R[$s:get_note]})}"

    # A 500-item list page, over one keep-alive connection.
    local i cfg=$TMP/$s/list.curl
    printf 'header = "%s"\n' "$AUTH" >"$cfg"
    for ((i = 0; i < LIST_REQS + 5; i++)); do
        printf 'url = "%s?limit=500"\noutput = "/dev/null"\n' "$base" >>"$cfg"
    done
    say "GET $API?limit=500 x $LIST_REQS (curl, keep-alive)"
    bg_wait curl -sS -K "$cfg" -w '%{http_code} %{time_total} %{size_download}\n' \
        >"$TMP/$s/list.txt" || die "curl failed on the list"
    tail -n +6 "$TMP/$s/list.txt" | awk '{ print $2 }' >"$TMP/$s/list.times"
    R[$s:list_p50]=$(pctl 0.5 "$TMP/$s/list.times")
    R[$s:list_p99]=$(pctl 0.99 "$TMP/$s/list.times")
    R[$s:list_bytes]=$(tail -n 1 "$TMP/$s/list.txt" | awk '{ print $3 }')
    local bad
    bad=$(awk '$1 != 200' "$TMP/$s/list.txt" | wc -l)
    [ "$bad" -gt 0 ] && R[$s:list_note]="$bad answers not 200"
    say "  median ${R[$s:list_p50]} ms, p99 ${R[$s:list_p99]} ms, ${R[$s:list_bytes]} bytes a page"

    # Watch delivery.
    say "watch: $WATCHERS watchers, $UPDATES PATCHes every $INTERVAL_MS ms"
    out=$(bg_wait "$PY" "$HERE/watch_latency.py" "$CPORT" "$API" "$TOKEN" "$PREFIX" "$N" \
              "$WATCHERS" "$UPDATES" "$INTERVAL_MS" 2>"$TMP/$s/watch.err") ||
        { cat "$TMP/$s/watch.err" >&2; die "watch_latency.py failed against cubed ($s)"; }
    say "  $out"
    read -r "R[$s:w_p50]" "R[$s:w_p99]" "R[$s:w_max]" "R[$s:w_events]" "R[$s:w_expected]" "R[$s:w_note]" < <(
        "$PY" -c 'import json, sys
d = json.loads(sys.stdin.read())
f = lambda v: "?" if v is None else "%.2f" % v
note = []
if d["failed"]: note.append("%d PATCHes failed (first %s)" % (d["failed"], d["first_bad"]))
if d["errors"]: note.append("%d watches got ERROR" % d["errors"])
if d["ended_early"]: note.append("%d watches ended early" % d["ended_early"])
print(f(d["p50_ms"]), f(d["p99_ms"]), f(d["max_ms"]), d["events"], d["expected"],
      "; ".join(note).replace(" ", "_") or "-")' <<<"$out")

    R[$s:rss]=$(kib_to_mib "$(proc_field "$CPID" VmHWM)")
    kill -0 "$CPID" 2>/dev/null || die "cubed ($s) died during the benchmark"
    stop_pid "$CPID" TERM
    CPID=''
}

T_START=$SECONDS
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)
[ "$ONLY" = all ] && bench_store sqlite sqlite
bench_store postgres "$PG_URL"

# --- peer: pgbench -----------------------------------------------------------------

say ""
say "== pgbench: INSERTs of the same document into a table of the objects table's shape =="
psql_run() { "$PSQL" -h 127.0.0.1 -p "$PG_PORT" -U postgres -d cube -v ON_ERROR_STOP=1 -qAt "$@"; }
# Before each measured round after the first: the tables are vacuumed, as
# pgbench does before its runs unless told not to, and a checkpoint taken,
# so that the server's clean-up and a checkpoint due to an earlier round's
# writes do not land in the next one: every round starts alike.
vacuum_all() { psql_run -c 'VACUUM ANALYZE' -c 'CHECKPOINT' >/dev/null || die "VACUUM failed"; }
psql_run >/dev/null <<'SQL' || die "cannot create the pgbench table"
SET client_min_messages = warning;
DROP TABLE IF EXISTS bench_objects;
CREATE TABLE bench_objects (
  kind TEXT COLLATE "C" NOT NULL, project TEXT COLLATE "C" NOT NULL,
  name TEXT COLLATE "C" NOT NULL, uid TEXT NOT NULL UNIQUE,
  rv BIGINT NOT NULL, doc TEXT NOT NULL,
  PRIMARY KEY (kind, project, name));
SQL
# The kind column as cubed wrote it (the document's last "kind").
KIND=$(grep -o '"kind":"[A-Za-z0-9]*"' "$TMP/object.json" | tail -n 1 | cut -d'"' -f4)
# The document as an E'' literal with no colon in it (pgbench would read
# ":name" as a variable).
DOC_LIT=$(sed -e 's/\\/\\\\/g' -e "s/'/''/g" -e 's/:/\\x3a/g' "$TMP/object.json" | tr -d '\n')
{
    printf '%s\n' '\set id random(1, 9000000000000000)'
    printf '%s\n' "INSERT INTO bench_objects (kind, project, name, uid, rv, doc) VALUES ('$KIND', '$PROJECT', 'w' || :client_id || '-' || :id, gen_random_uuid()::text, :id, E'$DOC_LIT');"
} >"$TMP/insert.sql"
run_pgbench() { # key clients transactions-per-client; sets R[pgbench:key]
    vacuum_all
    local out=$TMP/pgbench-c$2.txt j=$(( $2 < WRK_THREADS ? $2 : WRK_THREADS ))
    say "pgbench -n -M prepared -f insert.sql -c $2 -j $j -t $3"
    bg_wait "$PGBENCH" -n -M prepared -f "$TMP/insert.sql" -c "$2" -j "$j" -t "$3" \
        -h 127.0.0.1 -p "$PG_PORT" -U postgres cube >"$out" 2>&1 || { cat "$out" >&2; die "pgbench failed"; }
    R[pgbench:$1]=$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time).*/\1/p' "$out" |
                    awk '{ printf "%.0f", $1 }')
    say "  ${R[pgbench:$1]:-?} inserts/s"
}
run_pgbench c1 1 "$SERIAL"
PGBENCH_PER_CLIENT=$(( (PARALLEL + CREATE_CONNS - 1) / CREATE_CONNS )) # the 16-client share
run_pgbench c16 "$CREATE_CONNS" "$PGBENCH_PER_CLIENT"

# More rounds of the 16-client creates, a cubed round next to a pgbench
# round each time: one round of each is at the mercy of this shared machine
# (a burst elsewhere costs cubed's request path, a few context switches per
# create, more than pgbench's), so the bar is judged on the median ratio of
# CREATE_ROUNDS rounds, the first being the one above. A fresh cubed on the
# same database, warmed up as the first was, creates into a project of its
# own each round; both tables grow alike.
create_rounds() {
    local s=postgres-rounds i out
    say ""
    say "== $(( ROUNDS - 1 )) more rounds of the $CREATE_CONNS-client creates: cubed, then pgbench =="
    start_cubed_on_free_port "$s" "$PG_URL"
    # Warmed up as the first round was by its 1-client creates: a fresh
    # cubed's first thousands of writes (new connections, statements to
    # prepare, a cold cache) are slower and are not what is measured.
    make_project "$s" "$PROJECT-warm"
    out=$(bg_wait "$TMP/loadgen" "$CPORT" "/api/v1/projects/$PROJECT-warm/$PLURAL" "$TOKEN" \
              "$PREFIX" 0 "$SERIAL" 1) || die "loadgen failed against cubed (warm-up): $out"
    for ((i = 2; i <= ROUNDS; i++)); do
        make_project "$s" "$PROJECT-r$i"
        vacuum_all
        out=$(bg_wait "$TMP/loadgen" "$CPORT" "/api/v1/projects/$PROJECT-r$i/$PLURAL" "$TOKEN" \
                  "$PREFIX" 0 "$PARALLEL" "$CREATE_CONNS") ||
            die "loadgen failed against cubed (round $i): $out"
        say "cubed round $i: $out"
        R[postgres:c16_r$i]=$(kv rate "$out" | awk '{ printf "%.0f", $1 }')
        run_pgbench "c16_r$i" "$CREATE_CONNS" "$PGBENCH_PER_CLIENT"
    done
    stop_pid "$CPID" TERM
    CPID=''
}
median() { tr ' ' '\n' | grep -E '^[0-9.]+$' | sort -g | awk '{ v[NR] = $1 }
    END { if (NR == 0) print "?"; else if (NR % 2) print v[(NR + 1) / 2];
          else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
(( ROUNDS > 1 )) && create_rounds
R[pg:c16_ratios]=$(ratio "${R[postgres:c16]:-?}" "${R[pgbench:c16]:-?}")
for ((i = 2; i <= ROUNDS; i++)); do
    R[pg:c16_ratios]+=" $(ratio "${R[postgres:c16_r$i]:-?}" "${R[pgbench:c16_r$i]:-?}")"
done
R[pg:c16_median]=$(median <<<"${R[pg:c16_ratios]}")
PG_ROWS=$(psql_run -c 'SELECT COUNT(*) FROM bench_objects')
"$ROOT/tests/pg/pg.sh" stop "$PGDIR" >/dev/null 2>&1

# --- peer: nginx ---------------------------------------------------------------------

if [ "$ONLY" = all ]; then
    say ""
    say "== nginx: the bytes of one object as a static file, for any name =="
    CT_OBJ=$(cat "$TMP/object.ct")
    mkdir -p "$TMP/www"
    cp "$TMP/object.json" "$TMP/www/object.json"
    chmod 755 "$TMP" "$TMP/www"
    chmod 644 "$TMP/www/object.json"
    NPORT=$(free_port) || die "no free loopback port"
    start_nginx "$API/${PREFIX}0" <<EOF
        location ~ ^$API/[a-z0-9-]+\$ {
            default_type "$CT_OBJ";
            try_files /object.json =404;
        }
EOF
    curl -sS -H "$AUTH" -o "$TMP/nginx.body" "http://127.0.0.1:$NPORT$API/${PREFIX}1" || die "cannot GET from nginx"
    cmp -s "$TMP/object.json" "$TMP/nginx.body" || die "nginx serves other bytes than cubed's"
    wrk_get "http://127.0.0.1:$NPORT$API" "$TMP/wrk-nginx.txt"
    R[nginx:get]=$(wrk_rps "$TMP/wrk-nginx.txt")
    R[nginx:get_p99]=$(wrk_p99 "$TMP/wrk-nginx.txt" 2)
    say "  ${R[nginx:get]} req/s, p99 ${R[nginx:get_p99]} ms"
    stop_pid "$NPID" QUIT
    NPID=''
fi
T_TOTAL=$(( SECONDS - T_START ))
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)

# --- report ------------------------------------------------------------------------------

g() { printf '%s' "${R[$1]:-?}"; }
pair() { printf '%s/%s' "$(ratio "$1" "$3")" "$(ratio "$2" "$3")"; }

say ""
say "== Cube resource API benchmark =="
say "machine: nproc $NPROC, $(uname -srm); load average ${LOAD_BEFORE:-?} before, ${LOAD_AFTER:-?} after"
say "cubed: $("$CUBED" -V 2>&1 | head -n 1), limits.threads ${BENCH_THREADS:-auto (CPUs; with PostgreSQL 4x, >= 16)}, access log off, testkinds plugin, kind $PLURAL"
say "PostgreSQL: ${PG_VERSION:-?} on 127.0.0.1 (tests/pg/pg.sh: fsync=${PG_FSYNC:-?}); nginx: $("$NGINX" -v 2>&1 | sed 's/^nginx version: //'), worker_processes $THREADS"
say "one server was under load at a time; the load generators share the CPUs with it"
say "objects: $N $PLURAL per store in project $PROJECT: the first $SERIAL created from 1 client,"
say "         the other $PARALLEL from $CREATE_CONNS; pgbench inserted as many (-c$CREATE_CONNS: rounded up to a multiple of $CREATE_CONNS)"
say "GET by name: wrk -t$WRK_THREADS -c$WRK_CONNS -d$DURATION, random names; list: first page of ?limit=500 x $LIST_REQS"
say "watch: $WATCHERS SSE watchers, $UPDATES PATCHes $INTERVAL_MS ms apart, latency = send stamp to receipt at each watcher"
say "ratio: sqlite/peer and postgres/peer (on the p99 row lower is better)"
say ""
row() { printf '%-30s %10s %10s %18s %11s %16s  %s\n' "$@"; }
row metric sqlite postgres peer ratio bar verdict
row "create/s, 1 client" "$(g sqlite:c1)" "$(g postgres:c1)" "pgbench $(g pgbench:c1)" \
    "$(pair "$(g sqlite:c1)" "$(g postgres:c1)" "$(g pgbench:c1)")" "pg >= ${BAR_CREATE_RATIO}x" \
    "$(verdict ">=" "$BAR_CREATE_RATIO" postgres "$(ratio "$(g postgres:c1)" "$(g pgbench:c1)")")"
row "create/s, $CREATE_CONNS clients" "$(g sqlite:c16)" "$(g postgres:c16)" "pgbench $(g pgbench:c16)" \
    "$(pair "$(g sqlite:c16)" "$(g postgres:c16)" "$(g pgbench:c16)")" "pg >= ${BAR_CREATE_RATIO}x" \
    "$( ((ROUNDS > 1)) && printf 'round 1 of %s, see the median' "$ROUNDS" ||
        verdict ">=" "$BAR_CREATE_RATIO" postgres "$(ratio "$(g postgres:c16)" "$(g pgbench:c16)")")"
((ROUNDS > 1)) &&
    row "  median of $ROUNDS rounds" - - - "-/$(g pg:c16_median)" "pg >= ${BAR_CREATE_RATIO}x" \
        "$(verdict ">=" "$BAR_CREATE_RATIO" postgres "$(g pg:c16_median)")"
row "create p99 ms, $CREATE_CONNS clients" "$(g sqlite:c16_p99)" "$(g postgres:c16_p99)" - - - -
row "GET by name req/s" "$(g sqlite:get)" "$(g postgres:get)" "nginx $(g nginx:get)" \
    "$(pair "$(g sqlite:get)" "$(g postgres:get)" "$(g nginx:get)")" ">= ${BAR_GET_RATIO}x" \
    "$(verdict ">=" "$BAR_GET_RATIO" sqlite "$(ratio "$(g sqlite:get)" "$(g nginx:get)")" \
        postgres "$(ratio "$(g postgres:get)" "$(g nginx:get)")")"
row "GET by name p99 ms" "$(g sqlite:get_p99)" "$(g postgres:get_p99)" "nginx $(g nginx:get_p99)" \
    "$(pair "$(g sqlite:get_p99)" "$(g postgres:get_p99)" "$(g nginx:get_p99)")" - -
row "list 500 median ms" "$(g sqlite:list_p50)" "$(g postgres:list_p50)" - - - -
row "list 500 p99 ms" "$(g sqlite:list_p99)" "$(g postgres:list_p99)" - - - -
row "watch delivery p50 ms" "$(g sqlite:w_p50)" "$(g postgres:w_p50)" - - - -
row "watch delivery p99 ms" "$(g sqlite:w_p99)" "$(g postgres:w_p99)" - - "<= ${BAR_WATCH_P99_MS} ms" \
    "$(verdict "<=" "$BAR_WATCH_P99_MS" sqlite "$(g sqlite:w_p99)" postgres "$(g postgres:w_p99)")"
say ""
for s in sqlite postgres; do
    [ "$ONLY" = pg-create ] && [ "$s" = sqlite ] && continue
    notes=()
    [ "$(g $s:c1_fail)" != 0 ] && notes+=("$(g $s:c1_fail) failed creates (1 client)")
    [ "$(g $s:c16_fail)" != 0 ] && notes+=("$(g $s:c16_fail) failed creates ($CREATE_CONNS clients)")
    [ -n "${R[$s:get_note]:-}" ] && notes+=("GET: ${R[$s:get_note]}")
    [ -n "${R[$s:list_note]:-}" ] && notes+=("list: ${R[$s:list_note]}")
    [ "$(g $s:w_events)" != "$(g $s:w_expected)" ] &&
        notes+=("watch events received $(g $s:w_events) of $(g $s:w_expected)")
    [ "$(g $s:w_note)" != - ] && notes+=("watch: $(g $s:w_note | tr _ ' ')")
    say "$s: $(g $s:create_s) s for the $CREATE_CONNS-client creates; controller settled ~$(g $s:settle) s later at resourceVersion $(g $s:rv);"
    say "        list page $(g $s:list_bytes) bytes; watch max $(g $s:w_max) ms; cubed peak RSS $(g $s:rss) MiB"
    for n in "${notes[@]}"; do say "  note ($s): $n"; done
done
if ((ROUNDS > 1)); then
    rounds=''
    for ((i = 2; i <= ROUNDS; i++)); do rounds+=", $(g postgres:c16_r$i) vs $(g pgbench:c16_r$i)"; done
    say "postgres/pgbench at $CREATE_CONNS clients, rounds 1..$ROUNDS: $(g pg:c16_ratios | sed 's/ / \/ /g') (creates/s: $(g postgres:c16) vs $(g pgbench:c16)$rounds)"
fi
say "pgbench table rows: ${PG_ROWS:-?}; object document $(wc -c <"$TMP/object.json") bytes"
say "total run time: ${T_TOTAL} s"
exit 0
