#!/usr/bin/env bash
# serving.sh — the serving plugin (InferenceServices) against its peers, in
# the same run, on one cubed (SQLite, executor-local, serving, models):
#   proxy    cubed's /serving/{project}/{service}/ route to a tiny upstream
#            (nginx answering `return 200`, 1 worker, run as a custom
#            predictor's command, so a real replica Job of the service) vs
#            nginx proxy_pass (keep-alive upstream pool) to the same
#            upstream vs the upstream straight; wrk -c64, GET; the caller
#            sends an API token of the admin (Authorization: Bearer);
#            and cubed's own GET /healthz (no upstream, a public
#            route): the ceiling of anything cubed's front end answers;
#            then direct, nginx and Cube again at wrk -c4, where no
#            request queues for a CPU: the latency each hop itself adds
#   sklearn  the built-in runtime (cube-serving-runtime.py, the zero-code
#            path: a Model registered from a pickled scikit-learn model and
#            an InferenceService on it) answering 1-row v2 infer POSTs
#            through cubed, vs serving_baseline.py (a stdlib
#            ThreadingHTTPServer doing the same predict on the same pickle)
#            at 16 connections; then the runtime with batching (the
#            predictor's `batching`) vs without at 64 connections
# Bars (from the serving issue): Cube-proxied req/s >= 0.8x nginx-proxied;
# Cube-proxied p99 <= direct p99 + 0.5 ms; batching >= 2x the unbatched
# req/s at 64 connections.
#
# Prints figures; not a pass/fail test. Exit status 0 whenever it ran.
# Needs root (executor-local's per-user OS accounts, cbench-..., made and
# removed by the script) and /usr/bin/python3 with scikit-learn and joblib.
#
# Environment:
#   CUBED=path             cubed binary (default: build it in ./build)
#   BENCH_DURATION=5s      wrk duration per target (a bare number means seconds)
#   BENCH_WARMUP=1s        warm-up per target (0: none)
#   BENCH_ROUNDS=3         rounds over the targets; medians are shown
#   BENCH_THREADS=n        cubed limits.threads and the nginx proxy's workers
#                          (default nproc, >= 2)
#   BENCH_CUBE_THREADS=n   cubed's limits.threads alone (default BENCH_THREADS)
#   BENCH_MODELS="logistic forest"  the sklearn models measured (below)
#   BENCH_BATCH_MAX=32     batching.maxBatchSize
#   BENCH_BATCH_WAIT_MS=2  batching.maxLatencyMs
#   BENCH_ONLY=proxy|sklearn  one part only
#   BENCH_KEEP=1           keep the temporary dir (logs, configs)
#
# Usage: bash tests/bench/serving.sh
set -uo pipefail
export LC_ALL=C

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/tests/bench
BENCH_NAME=serving.sh
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$HERE/lib.sh"
# shellcheck source-path=SCRIPTDIR source=slurm_lib.sh
. "$HERE/slurm_lib.sh"

BAR_PROXY_RPS=0.8
BAR_PROXY_P99_MS=0.5
BAR_BATCH=2
DURATION=$(dur "${BENCH_DURATION:-5s}")
WARMUP=$(dur "${BENCH_WARMUP:-1s}")
ROUNDS=${BENCH_ROUNDS:-3}
MODELS=${BENCH_MODELS:-logistic forest}
BATCH_MAX=${BENCH_BATCH_MAX:-32}
BATCH_WAIT=${BENCH_BATCH_WAIT_MS:-2}
ONLY=${BENCH_ONLY:-}
posint BENCH_ROUNDS "$ROUNDS"
posint BENCH_BATCH_MAX "$BATCH_MAX"
[[ $BATCH_WAIT =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "BENCH_BATCH_WAIT_MS must be a number (got '$BATCH_WAIT')"
case $ONLY in '' | proxy | sklearn) ;; *) die "BENCH_ONLY must be proxy or sklearn" ;; esac
for m in $MODELS; do
    case $m in logistic | forest) ;; *) die "BENCH_MODELS: '$m' is not logistic or forest" ;; esac
done
want() { [ -z "$ONLY" ] || [ "$ONLY" = "$1" ]; }
WRK_THREADS=2

[ "$(id -u)" -eq 0 ] || die "run as root (executor-local makes an OS account per Cube user)"
unset CUBE_LISTEN CUBE_DATA_DIR CUBE_DATABASE_URL CUBE_PLUGIN_DIR CUBE_LOG_LEVEL CUBE_ADMIN_TOKEN
export CUBE_ADMIN_PASSWORD=bench-admin-password
PY=/usr/bin/python3
[ -x "$PY" ] || die "/usr/bin/python3 is missing"
if want sklearn; then
    "$PY" -c 'import sklearn, joblib' 2>/dev/null || apt_install python3-sklearn ||
        die "cannot install python3-sklearn"
fi
need_http_tools
find_cubed
PLUGIN_DIR=$(cd "$(dirname "$CUBED")/../plugins" && pwd) || die "no plugins dir beside cubed"
for p in executor-local serving models; do
    [ -e "$PLUGIN_DIR/$p/cube-$p.so" ] || die "cube-$p.so is not built under $PLUGIN_DIR"
done
bench_threads
CUBE_THREADS=${BENCH_CUBE_THREADS:-$THREADS}

TMP=$(mktemp -d -t cube-bench-serving.XXXXXX) || die "mktemp failed"
chmod 755 "$TMP"
bench_tmp_setup
USER_PREFIX=cbench- GROUP_PREFIX=cbench-p-
ACCOUNTS_BEFORE=$TMP/accounts.before
BPID=''

# Stops the baseline, ends what the run's accounts still run (replicas
# outlive cubed), removes the accounts; BENCH_KEEP=1 keeps TMP as TMP.kept.
# shellcheck disable=SC2317  # called from lib.sh's EXIT trap
cleanup_hook() {
    local kind name pid
    stop_pid "$BPID" TERM
    if [ -f "$ACCOUNTS_BEFORE" ]; then
        while read -r kind name; do
            [ "$kind" = u ] || continue
            for pid in $(ps -o pid= -u "$name" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
        done < <(bench_accounts | comm -13 "$ACCOUNTS_BEFORE" -)
        sleep 0.2
    fi
    remove_accounts
    if [ "${BENCH_KEEP:-0}" = 1 ] && [ -d "$TMP" ]; then
        [ -n "$SLEEP_FD" ] && exec {SLEEP_FD}>&-
        SLEEP_FD=''
        mv "$TMP" "$TMP.kept" && mkdir "$TMP" && say "kept $TMP.kept"
    fi
}

# --- cubed and its API ------------------------------------------------------------

DIR=$TMP/cube
bench_accounts >"$ACCOUNTS_BEFORE"
write_cube_yaml "$DIR"
APORT=$(free_port "$PORT") || die "no free loopback port"
printf 'apps_listen: "127.0.0.1:%s"\nlimits: {threads: %s}\n' "$APORT" "$CUBE_THREADS" >>"$DIR/cube.yaml"
cat >"$DIR/conf.d/20-executor-local.yaml" <<YAML
plugin: executor-local
enabled: true
config: {user_prefix: $USER_PREFIX, group_prefix: $GROUP_PREFIX, poll_ms: 10}
YAML
printf 'plugin: serving\nenabled: true\n' >"$DIR/conf.d/30-serving.yaml"
printf 'plugin: models\nenabled: true\n' >"$DIR/conf.d/31-models.yaml"
start_cubed_with_project "$DIR" "$PORT"
API=http://127.0.0.1:$PORT/api/v1/projects/bench
AUTH="Authorization: Bearer $TOKEN"
PROJDIR=$DIR/data/projects/bench

# Sends method path [JSON body] to the project's API; the answer in
# $TMP/api.json, the status in API_STATUS.
api() {
    local body=()
    [ $# -ge 3 ] && body=(--data "$3")
    API_STATUS=$(curl -sS -o "$TMP/api.json" -w '%{http_code}' -X "$1" -H "$AUTH" \
        -H 'Content-Type: application/json' "${body[@]}" "$API$2" 2>>"$TMP/curl.err") || API_STATUS=000
}

# Prints a value of a JSON file by a dotted path (numbers index lists), "" when absent.
jpath() {
    "$PY" -c 'import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    try:
        v = v[int(k)] if isinstance(v, list) else v[k]
    except (KeyError, IndexError, ValueError, TypeError):
        v = None
        break
print("" if v is None else (json.dumps(v) if isinstance(v, (dict, list)) else v))' "$1" "$2" 2>/dev/null
}

# Creates InferenceService name from its spec (JSON) and waits until it is Ready.
create_service() { # name spec
    local i phase
    api POST /inferenceservices "{\"metadata\":{\"name\":\"$1\"},\"spec\":$2}"
    [ "$API_STATUS" = 201 ] || die "creating InferenceService $1: $API_STATUS $(cat "$TMP/api.json")"
    for i in $(seq 1 900); do
        api GET "/inferenceservices/$1"
        phase=$(jpath "$TMP/api.json" status.phase)
        [ "$phase" = Ready ] && return 0
        [ "$phase" = Failed ] && break
        msleep 0.2
    done
    api GET "/events?limit=200"
    die "InferenceService $1 is not Ready ($phase): $(grep -o '"message":"[^"]*"' "$TMP/api.json" | tail -5)"
}

# Deletes InferenceService name and waits until its replica Jobs are gone.
delete_service() { # name
    local i
    api DELETE "/inferenceservices/$1"
    for i in $(seq 1 600); do
        api GET "/jobs?labelSelector=cube.dev/inferenceservice=$1"
        [ "$(jpath "$TMP/api.json" items.0.metadata.name)" = "" ] && return 0
        msleep 0.1
    done
    die "the replica Jobs of $1 are still there 60 s after deleting it"
}

# --- figures ------------------------------------------------------------------------

# Prints the median of its numeric arguments ("?" when none).
median() {
    printf '%s\n' "$@" | awk '/^-?[0-9.]+$/ { v[n++] = $1 } END {
        if (!n) { print "?"; exit }
        for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
        if (n % 2) print v[int(n / 2)]; else printf "%g\n", (v[n / 2 - 1] + v[n / 2]) / 2 }'
}

# "meets bar" / "below bar": verdict value op bar (op: ge or le).
verdict() {
    awk -v v="$1" -v op="$2" -v b="$3" 'BEGIN { if (v !~ /^-?[0-9.]+$/) print "not measured";
        else if (op == "ge") print (v + 0 >= b + 0) ? "meets bar" : "below bar";
        else print (v + 0 <= b + 0) ? "meets bar" : "below bar" }'
}

diff_ms() { awk -v a="$1" -v b="$2" 'BEGIN { if (a !~ /^[0-9.]+$/ || b !~ /^[0-9.]+$/) print "?"; else printf "%.3f", a - b }'; }

# Runs one wrk target (warm-up, then measured) into $TMP/NAME.txt, notes
# its failed requests, and writes the CPU ticks the pids in CPU_PIDS used
# while it was measured to $TMP/NAME.cpu: bench_target name conns url args...
CPU_PIDS=''
bench_target() {
    local name=$1 notes t0
    WRK_CONNS=$2
    shift 2
    local url=$1
    shift
    wrk_warmup "$@" "$url"
    # shellcheck disable=SC2086  # a list of pids
    t0=$(cpu_ticks $CPU_PIDS)
    wrk_measure "$TMP/$name.txt" "$@" "$url" || die "wrk failed against $url: $(cat "$TMP/$name.txt")"
    # shellcheck disable=SC2086
    echo $(( $(cpu_ticks $CPU_PIDS) - t0 )) >"$TMP/$name.cpu"
    notes=$(wrk_notes "$TMP/$name.txt")
    [ -n "$notes" ] && say "note ($name): $notes"
    return 0
}

# Prints the CPU ticks (user + system) used so far by the pids given and
# their children's threads: every thread of each process counts.
cpu_ticks() {
    local pid t=0 v
    for pid in "$@"; do
        v=$(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat" 2>/dev/null) && t=$(( t + v ))
    done
    printf '%s' "$t"
}

# Prints the microseconds of CPU per request of a target: cpu_per_req ticks wrkfile.
cpu_per_req() {
    awk -v t="$1" -v hz="$(getconf CLK_TCK)" '$2 == "requests" && $3 == "in" { n = $1 }
        END { if (n > 0) printf "%.1f", t * 1000000 / hz / n; else print "?" }' "$2"
}

# The median over rounds of the CPU per request (us) of target name.
med_cpu() {
    local r vals=()
    for r in $(seq 1 "$ROUNDS"); do
        vals+=("$(cpu_per_req "$(cat "$TMP/$1-$r.cpu" 2>/dev/null)" "$TMP/$1-$r.txt")")
    done
    median "${vals[@]}"
}

# The median over rounds of req/s (rps) or p99 (p99) of target name.
med_of() { # rps|p99 name
    local r vals=()
    for r in $(seq 1 "$ROUNDS"); do
        if [ "$1" = rps ]; then vals+=("$(wrk_rps "$TMP/$2-$r.txt")"); else vals+=("$(wrk_p99 "$TMP/$2-$r.txt")"); fi
    done
    median "${vals[@]}"
}

# Each round's req/s of target name, joined by "/".
rounds_of() {
    local r out=''
    for r in $(seq 1 "$ROUNDS"); do out+="${out:+/}$(wrk_rps "$TMP/$1-$r.txt")"; done
    printf '%s' "$out"
}

# The median over rounds of a per-round ratio (rps a / rps b) or p99 difference.
med_ratio() { # a b
    local r vals=()
    for r in $(seq 1 "$ROUNDS"); do vals+=("$(ratio "$(wrk_rps "$TMP/$1-$r.txt")" "$(wrk_rps "$TMP/$2-$r.txt")")"); done
    median "${vals[@]}"
}
med_p99_added() { # a b
    local r vals=()
    for r in $(seq 1 "$ROUNDS"); do vals+=("$(diff_ms "$(wrk_p99 "$TMP/$1-$r.txt")" "$(wrk_p99 "$TMP/$2-$r.txt")")"); done
    median "${vals[@]}"
}

LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
START_S=$SECONDS

# --- part 1: the proxy path -----------------------------------------------------------

UP_BODY='hello from the upstream, a small fixed body of about a hundred bytes.............'
run_proxy() {
    local updir=$TMP/upstream nv temp_paths m spec up_port r t body
    mkdir -p "$updir"
    nv=$("$NGINX" -V 2>&1)
    temp_paths="    client_body_temp_path @DIR@/client_body;"
    for m in proxy fastcgi uwsgi scgi; do
        [[ $nv == *"--without-http_${m}_module"* ]] || temp_paths+=$'\n'"    ${m}_temp_path @DIR@/$m;"
    done
    # the predictor's program: this config with its port and a dir of its own
    cat >"$updir/nginx.conf.in" <<EOF
daemon off;
master_process on;
worker_processes 1;
pid @DIR@/nginx.pid;
error_log @DIR@/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
$temp_paths
    tcp_nodelay on;
    keepalive_timeout 65;
    keepalive_requests 100000;
    server_tokens off;
    server {
        listen 127.0.0.1:@PORT@;
        location / { default_type text/plain; return 200 "$UP_BODY\n"; }
    }
}
EOF
    chmod -R a+rX "$updir"
    # shellcheck disable=SC2016  # $CUBE_PORT_HTTP and $d are the replica shell's
    spec=$("$PY" -c 'import json, sys
nginx, conf = sys.argv[1], sys.argv[2]
sh = ("d=$(mktemp -d) && sed -e \"s|@PORT@|$CUBE_PORT_HTTP|\" -e \"s|@DIR@|$d|g\" %s >\"$d/nginx.conf\" "
      "&& exec %s -p \"$d/\" -c \"$d/nginx.conf\" -e \"$d/error.log\"" % (conf, nginx))
print(json.dumps({"predictors": [{"name": "main", "runtime": "custom", "command": ["/bin/sh", "-c", sh],
                                  "resources": {"cpu": "1", "memory": "256Mi"}}]}))' \
        "$NGINX" "$updir/nginx.conf.in")
    say "proxy: creating InferenceService echo (custom predictor: nginx return 200) ..."
    create_service echo "$spec"
    api GET "/jobs?labelSelector=cube.dev/inferenceservice=echo"
    up_port=$(jpath "$TMP/api.json" items.0.status.replicas.0.endpoints.http)
    up_port=${up_port##*:}
    [[ $up_port =~ ^[0-9]+$ ]] || die "the echo replica reports no http endpoint: $(cat "$TMP/api.json")"

    NGINX_HTTP_EXTRA="    upstream up { server 127.0.0.1:$up_port; keepalive 128; }"
    NPORT=$(free_port "$PORT") || die "no free loopback port"
    mkdir -p "$TMP/www"
    start_nginx /serving/bench/echo/hello <<EOF
        location /serving/bench/echo/ {
            proxy_pass http://up/;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }
EOF
    DIRECT=http://127.0.0.1:$up_port/hello
    NGINXED=http://127.0.0.1:$NPORT/serving/bench/echo/hello
    CUBED_URL=http://127.0.0.1:$APORT/serving/bench/echo/hello
    # the ceiling of any answer of cubed's HTTP front end: its smallest
    # route, no upstream, public (the proxy path does more)
    OWN_URL=http://127.0.0.1:$PORT/healthz
    for t in "$DIRECT" "$NGINXED" "$CUBED_URL"; do
        body=$(curl -sS -H "$AUTH" "$t") || die "GET $t failed"
        [ "$body" = "$UP_BODY" ] || die "GET $t did not answer the upstream's body: $body"
    done
    UP_PORT=$up_port
    # the upstream's processes: its master (listening on the port) and worker
    UP_PIDS=$(ps -o pid= -u "${USER_PREFIX}admin" | tr '\n' ' ')
    for r in $(seq 1 "$ROUNDS"); do
        say "proxy: round $r of $ROUNDS (direct, nginx, cube, own at wrk -c64; direct, nginx, cube at -c4; -d$DURATION each) ..."
        CPU_PIDS=$UP_PIDS bench_target "p-direct-$r" 64 "$DIRECT"
        CPU_PIDS="$NPID $(pgrep -P "$NPID" | tr '\n' ' ')" bench_target "p-nginx-$r" 64 "$NGINXED"
        CPU_PIDS=$CPID bench_target "p-cube-$r" 64 "$CUBED_URL" -H "$AUTH"
        CPU_PIDS=$CPID bench_target "p-own-$r" 64 "$OWN_URL" -H "$AUTH"
        # light load: what each hop adds when nothing queues for a CPU
        bench_target "l-direct-$r" 4 "$DIRECT"
        bench_target "l-nginx-$r" 4 "$NGINXED"
        bench_target "l-cube-$r" 4 "$CUBED_URL" -H "$AUTH"
    done
    stop_pid "$NPID" QUIT
    NPID=''
    delete_service echo
}

# --- part 2: the built-in sklearn runtime ---------------------------------------------

ROW='[5.1, 3.5, 1.4, 0.2]'
export BENCH_BODY="{\"inputs\":[{\"name\":\"x\",\"shape\":[1,4],\"datatype\":\"FP64\",\"data\":$ROW}]}"

# Trains model m on iris and pickles it into the project's models/m.joblib;
# prints what sklearn predicts for ROW.
train() { # logistic|forest
    mkdir -p "$PROJDIR/models"
    OMP_NUM_THREADS=1 "$PY" -c 'import json, sys, joblib
from sklearn.datasets import load_iris
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
kind, path, row = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
X, y = load_iris(return_X_y=True)
m = (LogisticRegression(max_iter=500) if kind == "logistic"
     else RandomForestClassifier(n_estimators=100, random_state=0)).fit(X, y)
joblib.dump(m, path)
print(json.dumps(m.predict([row]).tolist()))' "$1" "$PROJDIR/models/$1.joblib" "$ROW" ||
        die "training the $1 model failed"
    chmod -R a+rX "$PROJDIR/models"
}

# Registers Model NAME-1 from models/NAME.joblib and waits until it is Ready.
register_model() { # name
    local i phase
    api POST /models "{\"metadata\":{\"name\":\"$1-1\"},\"spec\":{\"name\":\"$1\",\"framework\":\"sklearn\",\"path\":\"models/$1.joblib\"}}"
    [ "$API_STATUS" = 201 ] || die "registering Model $1-1: $API_STATUS $(cat "$TMP/api.json")"
    for i in $(seq 1 300); do
        api GET "/models/$1-1"
        phase=$(jpath "$TMP/api.json" status.phase)
        [ "$phase" = Ready ] && return 0
        [ "$phase" = Failed ] && die "Model $1-1 Failed: $(cat "$TMP/api.json")"
        msleep 0.2
    done
    die "Model $1-1 not Ready after 60 s"
}

# Checks that url answers ROW's v2 infer with the expected data: check_infer url expect [header].
check_infer() {
    local out got
    out=$(curl -sS -X POST -H 'Content-Type: application/json' ${3:+-H "$3"} --data "$BENCH_BODY" "$1") ||
        die "POST $1 failed"
    got=$(printf '%s' "$out" | "$PY" -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["outputs"][0]["data"]))' 2>/dev/null)
    [ "$got" = "$2" ] || die "POST $1 answered $out, sklearn predicts $2"
}

run_sklearn() { # model
    local m=$1 expect pred bport r url spec i
    say "sklearn ($m): training, registering Model $m-1 ..."
    expect=$(train "$m")
    register_model "$m"
    pred="{\"name\":\"main\",\"model\":\"$m-1\",\"resources\":{\"cpu\":\"$NPROC\",\"memory\":\"1Gi\"}"
    say "sklearn ($m): InferenceService $m (no batching) ..."
    create_service "$m" "{\"predictors\":[$pred}]}"
    url=http://127.0.0.1:$APORT/serving/bench/$m/v2/models/$m/infer
    check_infer "$url" "$expect" "$AUTH"
    bport=$(free_port "$PORT") || die "no free loopback port"
    OMP_NUM_THREADS=1 "$PY" "$HERE/serving_baseline.py" --path "$PROJDIR/models/$m.joblib" \
        --port "$bport" --name "$m" >"$TMP/baseline-$m.out" 2>&1 &
    BPID=$!
    for i in $(seq 1 300); do
        http_status "$bport" /ready 2>/dev/null
        [ "$HTTP_STATUS" = 200 ] && break
        kill -0 "$BPID" 2>/dev/null || die "the baseline exited: $(cat "$TMP/baseline-$m.out")"
        [ "$i" = 300 ] && die "the baseline is not answering after 30 s"
        msleep 0.1
    done
    local base=http://127.0.0.1:$bport/v2/models/$m/infer lua=(-s "$HERE/serving_infer.lua" --timeout 10s)
    check_infer "$base" "$expect"
    for r in $(seq 1 "$ROUNDS"); do
        say "sklearn ($m): round $r of $ROUNDS (runtime and baseline at 16 and 64 connections) ..."
        bench_target "s-$m-cube16-$r" 16 "$url" "${lua[@]}" -H "$AUTH"
        bench_target "s-$m-base16-$r" 16 "$base" "${lua[@]}"
        bench_target "s-$m-cube64-$r" 64 "$url" "${lua[@]}" -H "$AUTH"
        bench_target "s-$m-base64-$r" 64 "$base" "${lua[@]}"
    done
    stop_pid "$BPID" TERM
    BPID=''
    delete_service "$m"
    say "sklearn ($m): InferenceService $m-b (batching maxBatchSize $BATCH_MAX, maxLatencyMs $BATCH_WAIT) ..."
    create_service "$m-b" "{\"predictors\":[$pred,\"batching\":{\"maxBatchSize\":$BATCH_MAX,\"maxLatencyMs\":$BATCH_WAIT}}]}"
    url=http://127.0.0.1:$APORT/serving/bench/$m-b/v2/models/$m-b/infer
    check_infer "$url" "$expect" "$AUTH"
    for r in $(seq 1 "$ROUNDS"); do
        say "sklearn ($m): round $r of $ROUNDS (batched runtime at 64 connections) ..."
        bench_target "s-$m-batch64-$r" 64 "$url" "${lua[@]}" -H "$AUTH"
    done
    delete_service "$m-b"
}

want proxy && run_proxy
if want sklearn; then
    for m in $MODELS; do run_sklearn "$m"; done
fi
CUBED_RSS=$(kib_to_mib "$(proc_field "$CPID" VmHWM)")
stop_pid "$CPID" TERM
CPID=''

# --- report ---------------------------------------------------------------------------

row() { printf '%-40s %12s %12s %8s   %s\n' "$@"; }
say ""
say "== serving: the proxy path and the built-in sklearn runtime =="
say "machine: nproc $NPROC, load before $LOAD0, after $(cut -d' ' -f1-3 /proc/loadavg); $(( SECONDS - START_S )) s"
say "versions: cubed $("$CUBED" --version 2>/dev/null | head -1), $("$NGINX" -v 2>&1 | sed 's/^nginx version: //'), $(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2), python $("$PY" -c 'import platform, sklearn; print(platform.python_version(), "scikit-learn", sklearn.__version__)' 2>/dev/null)"
say "settings: cubed limits.threads $CUBE_THREADS, SQLite, access log off, executor-local (cgroup auto); wrk -t$WRK_THREADS -d$DURATION --latency after a $WARMUP warm-up, $ROUNDS rounds, medians (each round's req/s in brackets)"
if want proxy; then
    say ""
    say "proxy path: GET of a ${#UP_BODY}-byte body, wrk -c64; upstream nginx return 200 (1 worker) as the predictor's"
    say "command (replica Job, port $UP_PORT, cpu 1); nginx proxy: $THREADS workers, proxy_pass to a keepalive-128 upstream;"
    say "Cube: apps origin /serving/bench/echo/, the caller's API token as Authorization: Bearer"
    printf '%-10s %10s %10s   %s\n' target req/s p99_ms rounds
    for t in direct nginx cube own; do
        printf '%-10s %10s %10s   [%s]\n' "$t" "$(med_of rps "p-$t")" "$(med_of p99 "p-$t")" "$(rounds_of "p-$t")"
    done
    for t in direct nginx cube; do
        printf '%-10s %10s %10s   [%s]\n' "$t -c4" "$(med_of rps "l-$t")" "$(med_of p99 "l-$t")" "$(rounds_of "l-$t")"
    done
    say ""
    row measure ours peer ratio verdict
    R=$(med_ratio p-cube p-nginx)
    row "req/s Cube-proxied / nginx-proxied" "$(med_of rps p-cube)" "$(med_of rps p-nginx)" "$R" \
        "bar >= ${BAR_PROXY_RPS}x: $(verdict "$R" ge "$BAR_PROXY_RPS")"
    A=$(med_p99_added p-cube p-direct)
    row "p99 added over direct, ms (Cube; nginx)" "$A" "$(med_p99_added p-nginx p-direct)" "" \
        "bar <= ${BAR_PROXY_P99_MS} ms: $(verdict "$A" le "$BAR_PROXY_P99_MS")"
    row "  the same at wrk -c4 (no queueing), ms" "$(med_p99_added l-cube l-direct)" \
        "$(med_p99_added l-nginx l-direct)" "" "what the hop itself adds (no bar)"
    R=$(med_ratio p-own p-nginx)
    row "req/s cubed's own route / nginx-proxied" "$(med_of rps p-own)" "$(med_of rps p-nginx)" "$R" \
        "the front end's ceiling (no bar)"
    say "CPU per request, us (user+system, while measured): upstream nginx $(med_cpu p-direct) (direct);"
    say "  nginx proxy workers $(med_cpu p-nginx); cubed $(med_cpu p-cube) (whole process);"
    say "  cubed's own route $(med_cpu p-own) (GET /healthz, a public route: a small JSON answer)"
fi
if want sklearn; then
    say ""
    say "built-in sklearn runtime: 1-row v2 infer POSTs (wrk -s serving_infer.lua), through Cube with the caller's"
    say "API token; baseline: serving_baseline.py (ThreadingHTTPServer, same pickle, same predict), straight;"
    say "replicas cpu $NPROC; batching: maxBatchSize $BATCH_MAX, maxLatencyMs $BATCH_WAIT"
    say "models: logistic = LogisticRegression on iris; forest = RandomForestClassifier(n_estimators=100) on iris"
    printf '%-10s %-28s %10s %10s   %s\n' model target req/s p99_ms rounds
    for m in $MODELS; do
        for t in cube16 base16 cube64 base64 batch64; do
            case $t in cube16) d="runtime via Cube, 16 conns" ;; base16) d="baseline, 16 conns" ;;
                cube64) d="runtime via Cube, 64 conns" ;; base64) d="baseline, 64 conns" ;;
                batch64) d="runtime batching, 64 conns" ;; esac
            printf '%-10s %-28s %10s %10s   [%s]\n' "$m" "$d" "$(med_of rps "s-$m-$t")" \
                "$(med_of p99 "s-$m-$t")" "$(rounds_of "s-$m-$t")"
        done
    done
    say ""
    row measure ours peer ratio verdict
    for m in $MODELS; do
        row "$m: req/s runtime / baseline, 16 conns" "$(med_of rps "s-$m-cube16")" "$(med_of rps "s-$m-base16")" \
            "$(med_ratio "s-$m-cube16" "s-$m-base16")" "(no bar)"
        row "$m: p99 ms runtime / baseline, 16 conns" "$(med_of p99 "s-$m-cube16")" "$(med_of p99 "s-$m-base16")" \
            "$(ratio "$(med_of p99 "s-$m-cube16")" "$(med_of p99 "s-$m-base16")")" "(no bar)"
        R=$(med_ratio "s-$m-batch64" "s-$m-cube64")
        row "$m: req/s batching on / off, 64 conns" "$(med_of rps "s-$m-batch64")" "$(med_of rps "s-$m-cube64")" \
            "$R" "bar >= ${BAR_BATCH}x: $(verdict "$R" ge "$BAR_BATCH")"
    done
fi
say ""
say "cubed peak RSS ${CUBED_RSS} MiB"
exit 0
