# lib.sh — shell helpers shared by the benchmarks (http.sh, resources.sh).
#
# Sourced, not run: `. "$HERE/lib.sh"`. The script sets BENCH_NAME (the
# prefix of its error messages) before sourcing, and, once it has TMP, calls
# bench_tmp_setup. Globals it reads: TMP, THREADS, WARMUP, DURATION,
# WRK_THREADS, WRK_CONNS, NGINX, NPORT, and the pids in CPID, NPID, WPID.
# shellcheck shell=bash

# --- messages and arguments -----------------------------------------------

# Prints its arguments as one line on stdout.
say() { printf '%s\n' "$*"; }

# Prints "BENCH_NAME: message" on stderr and exits 1.
die() { printf '%s: %s\n' "${BENCH_NAME:-bench}" "$*" >&2; exit 1; }

# Dies unless value is a positive integer: posint name value.
posint() {
    [[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1 must be a positive integer (got '$2')"
}

# Prints a wrk duration: a bare number gets an "s" ("10" -> "10s").
dur() {
    if [[ $1 =~ ^[0-9]+$ ]]; then printf '%ss' "$1"; else printf '%s' "$1"; fi
}

# --- tools ---------------------------------------------------------------

APT_UPDATED=0
# Installs the first of pkg... that apt-get can install (update once if none).
apt_install() {
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 || die "need root (or sudo) to install $*"
        sudo=(sudo -n)
    fi
    command -v apt-get >/dev/null 2>&1 || die "apt-get not found; install $* by hand"
    local pkg
    for pkg in "$@"; do
        say "installing $pkg (apt-get install -y $pkg)"
        if DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y "$pkg" >/dev/null 2>&1; then
            return 0
        fi
        if [ "$APT_UPDATED" -eq 0 ]; then
            APT_UPDATED=1
            say "running apt-get update"
            "${sudo[@]}" apt-get update >/dev/null 2>&1 || true
            DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y "$pkg" >/dev/null 2>&1 && return 0
        fi
        say "  $pkg did not install"
    done
    return 1
}

# Prints the path of nginx, from PATH or the usual sbin dirs.
find_nginx() {
    command -v nginx 2>/dev/null && return 0
    local p
    for p in /usr/sbin/nginx /usr/local/sbin/nginx /usr/local/nginx/sbin/nginx; do
        [ -x "$p" ] && { printf '%s\n' "$p"; return 0; }
    done
    return 1
}

# Installs curl, wrk and nginx when missing; sets NGINX.
need_http_tools() {
    command -v curl >/dev/null 2>&1 || apt_install curl || die "cannot install curl"
    command -v wrk >/dev/null 2>&1 || apt_install wrk || die "cannot install wrk"
    NGINX=$(find_nginx) || { apt_install nginx-light nginx || die "cannot install nginx"; NGINX=$(find_nginx) || die "nginx installed but not found"; }
}

# Sets CUBED: $CUBED made absolute, else built with meson/ninja under ROOT.
find_cubed() {
    if [ -n "${CUBED:-}" ]; then
        [ -x "$CUBED" ] || die "CUBED=$CUBED is not an executable"
        CUBED=$(cd "$(dirname "$CUBED")" && pwd)/$(basename "$CUBED")
    else
        if [ ! -d "$ROOT/build" ]; then
            say "meson setup build"
            (cd "$ROOT" && meson setup build) >/dev/null || die "meson setup build failed"
        fi
        say "ninja -C build"
        (cd "$ROOT" && ninja -C build) >/dev/null || die "ninja -C build failed (run it to see why)"
        CUBED=$ROOT/build/core/cubed
        [ -x "$CUBED" ] || die "$CUBED was not built"
    fi
}

# Sets NPROC and THREADS (BENCH_THREADS, else nproc but at least 2).
bench_threads() {
    NPROC=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)
    local default=$(( NPROC < 2 ? 2 : NPROC ))
    THREADS=${BENCH_THREADS:-$default}
}

# --- processes, clean-up, sleeping -------------------------------------------

CPID='' NPID='' WPID='' SLEEP_FD=''
STOP_POLLS=100  # 50 ms polls that stop_pid waits before SIGKILL

# Sends pid a signal and waits for it (SIGKILL after STOP_POLLS polls).
# shellcheck disable=SC2317  # called from the EXIT trap
stop_pid() { # pid signal
    local pid=$1 i
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
    kill "-$2" "$pid" 2>/dev/null
    for i in $(seq 1 "$STOP_POLLS"); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    return 0
}

# EXIT trap: stops wrk, cubed, nginx, runs cleanup_hook if defined, removes TMP.
# shellcheck disable=SC2317
cleanup() {
    trap - EXIT INT TERM HUP
    stop_pid "$WPID" TERM
    stop_pid "$CPID" TERM
    stop_pid "$NPID" QUIT
    declare -F cleanup_hook >/dev/null && cleanup_hook
    [ -n "$SLEEP_FD" ] && exec {SLEEP_FD}>&-
    rm -rf "$TMP"
}

# Installs the clean-up traps and the FIFO msleep reads (call once TMP exists).
bench_tmp_setup() {
    trap cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM HUP
    mkfifo "$TMP/sleep.fifo" || die "mkfifo failed"
    exec {SLEEP_FD}<>"$TMP/sleep.fifo"
}

# Sleeps seconds (sub-millisecond too) without forking: a read that times out
# on a FIFO that never gets data.
msleep() { read -r -t "$1" -u "$SLEEP_FD" _ 2>/dev/null; return 0; }

# Runs a command in the background (so that a signal to the script is handled
# at once), with its pid in WPID, and waits for it; its status.
bg_wait() {
    "$@" &
    WPID=$!
    wait "$WPID"
    local rc=$?
    WPID=''
    return $rc
}

# Checks cubed (CPID) while it starts: 0 while it runs; once it has exited,
# 2 when errfile says its port was taken, else errfile is shown and the
# script dies: cubed_running errfile name.
cubed_running() {
    kill -0 "$CPID" 2>/dev/null && return 0
    wait "$CPID" 2>/dev/null
    CPID=''
    grep -q 'Address already in use' "$1" && return 2
    cat "$1" >&2
    die "$2 exited during start-up"
}

# --- ports and HTTP ---------------------------------------------------------

# Succeeds when anything connects to the port or any socket (listening,
# connected or in TIME_WAIT) uses it locally.
port_in_use() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    if command -v ss >/dev/null 2>&1; then
        [ -n "$(ss -Htan "sport = :$1" 2>/dev/null)" ] && return 0
    fi
    return 1
}

EPH_LOW=$(awk '{ print $1 }' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null)
[[ ${EPH_LOW:-} =~ ^[0-9]+$ ]] && (( EPH_LOW > 12000 )) || EPH_LOW=32768
# Prints a free port below the kernel's ephemeral range (so that no client
# socket, wrk's included, can hold it), other than the one given.
# shellcheck disable=SC2120  # the argument is optional
free_port() { # [port to avoid]
    local p i
    for i in $(seq 1 500); do
        p=$(( 10000 + (RANDOM * 32768 + RANDOM) % (EPH_LOW - 10000) ))
        [ "$p" = "${1:-}" ] && continue
        port_in_use "$p" || { printf '%s' "$p"; return 0; }
    done
    return 1
}

# Sets HTTP_STATUS to the status of GET path on 127.0.0.1:port over a fresh
# connection, in bash without forking, so that it can poll every
# millisecond. HTTP_STATUS is empty when there was no answer.
http_status() { # port path
    local fd line
    HTTP_STATUS=''
    exec {fd}<>"/dev/tcp/127.0.0.1/$1" || return 1
    printf 'GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' "$2" >&"$fd"
    IFS= read -r -t 2 -u "$fd" line || line=''
    exec {fd}>&-
    line=${line%$'\r'}
    [[ $line =~ ^HTTP/[0-9.]+\ ([0-9]{3}) ]] && HTTP_STATUS=${BASH_REMATCH[1]}
    return 0
}

# Writes $TMP/cube.yaml for a bench cubed on 127.0.0.1:$CPORT (data in
# $TMP/data, SQLite, plugins from $PLUGIN_DIR, no console, quiet logs,
# $THREADS threads) with one probe plugin enabled; YAML lines on stdin are
# added to cube.yaml: bench_cube_yaml plugin <<EOF ... EOF.
bench_cube_yaml() { # plugin
    mkdir -p "$TMP/data" "$TMP/conf.d"
    { cat <<EOF
listen: "127.0.0.1:$CPORT"
data_dir: "$TMP/data"
database: sqlite
plugin_dir: "$PLUGIN_DIR"
conf_dir: "$TMP/conf.d"
web_root: ""
log: {level: warn, access: "off"}
limits: {threads: $THREADS}
EOF
      cat; } >"$TMP/cube.yaml"
    printf 'plugin: %s\n' "$1" >"$TMP/conf.d/10-$1.yaml"
}

# Starts $CUBED on $TMP/cube.yaml (pid in CPID; output in $TMP/cubed.out
# and .err) and waits until /readyz answers 200 (15 s at most).
start_bench_cubed() {
    local i
    "$CUBED" -c "$TMP/cube.yaml" >"$TMP/cubed.out" 2>"$TMP/cubed.err" &
    CPID=$!
    for i in $(seq 1 3000); do
        cubed_running "$TMP/cubed.err" cubed || die "cubed could not start (see its log)"
        http_status "$CPORT" /readyz 2>/dev/null
        [ "$HTTP_STATUS" = 200 ] && return 0
        msleep 0.005
    done
    die "cubed not ready after 15 s"
}

# Sets TOKEN to an API token of the administrator, minted with the break-glass
# admin token (every request of which cubed audits: load carries this one).
mint_token() { # port admin-token
    local out
    out=$(curl -sS -X POST -H "Authorization: Bearer $2" -H 'Content-Type: application/json' \
              --data '{"name":"bench","expires_in":86400}' \
              "http://127.0.0.1:$1/api/v1/auth/tokens" 2>&1) || out="curl: $out"
    TOKEN=$(printf '%s' "$out" | sed -n 's/.*"token":"\(cube_[0-9a-f]*\)".*/\1/p')
    [ -n "$TOKEN" ] || die "cubed minted no API token: $out"
}

# --- figures -------------------------------------------------------------------

# Prints the value column of a field of /proc/pid/status: proc_field pid field.
proc_field() { awk -v f="$2:" '$1 == f { print $2; exit }' "/proc/$1/status" 2>/dev/null; }

# Prints KiB as MiB with one decimal ("?" when not a number).
kib_to_mib() { awk -v k="$1" 'BEGIN { if (k !~ /^[0-9]+$/) print "?"; else printf "%.1f", k / 1024 }'; }

# Prints a wrk latency (812.00us, 1.23ms, 1.01s, 2.00m) in ms: to_ms value [decimals, 3].
to_ms() {
    awk -v v="$1" -v d="${2:-3}" 'BEGIN {
        n = v + 0; u = v; sub(/^[0-9.]+/, "", u); f = -1
        if (u == "us") f = 0.001
        else if (u == "ms") f = 1
        else if (u == "s") f = 1000
        else if (u == "m") f = 60000
        else if (u == "h") f = 3600000
        if (f < 0 || v == "") print "?"; else printf "%." d "f", n * f }'
}

# Prints a/b with 2 decimals, "?" when not computable: ratio a b.
ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN {
        if (a !~ /^[0-9.]+$/ || b !~ /^[0-9.]+$/ || b + 0 == 0) print "?";
        else printf "%.2f", a / b }'
}

# --- wrk -----------------------------------------------------------------------

# Runs wrk for WARMUP (unless it is 0), output discarded: wrk_warmup args... url.
wrk_warmup() {
    if [ "$WARMUP" != 0 ] && [ "$WARMUP" != 0s ]; then
        bg_wait wrk -t"$WRK_THREADS" -c"$WRK_CONNS" -d"$WARMUP" "$@" >/dev/null 2>&1
    fi
    return 0
}

# Runs wrk --latency for DURATION into out; wrk's status: wrk_measure out args... url.
wrk_measure() {
    local out=$1
    shift
    bg_wait wrk -t"$WRK_THREADS" -c"$WRK_CONNS" -d"$DURATION" --latency "$@" >"$out" 2>&1
}

# Prints the req/s of a wrk output file, rounded.
wrk_rps() { awk '$1 == "Requests/sec:" { printf "%.0f", $2 }' "$1"; }

# Prints the p99 in ms of a wrk --latency output file: wrk_p99 file [decimals].
wrk_p99() { to_ms "$(awk '$1 == "99%" { print $2; exit }' "$1")" "${2:-3}"; }

# Prints wrk's non-2xx and socket error lines, joined by ";".
wrk_notes() { grep -E 'Non-2xx|Socket errors' "$1" | sed 's/^ *//' | paste -sd ';' -; }

# --- nginx ---------------------------------------------------------------------

# Writes TMP/nginx/nginx.conf: no daemon, everything under TMP/nginx,
# THREADS workers, root TMP/www on 127.0.0.1:NPORT; the server's locations
# are read from stdin (a catch-all 404 follows them). NGINX_HTTP_EXTRA, when
# set, is put in the http block before the server (an upstream block).
NGINX_HTTP_EXTRA=''
write_nginx_conf() {
    local ndir=$TMP/nginx nv temp_paths m locations
    locations=$(cat)
    mkdir -p "$ndir"
    nv=$("$NGINX" -V 2>&1)
    temp_paths="    client_body_temp_path $ndir/client_body;"
    for m in proxy fastcgi uwsgi scgi; do
        [[ $nv == *"--without-http_${m}_module"* ]] || temp_paths+=$'\n'"    ${m}_temp_path $ndir/$m;"
    done
    cat >"$ndir/nginx.conf" <<EOF
daemon off;
master_process on;
worker_processes $THREADS;
pid $ndir/nginx.pid;
error_log $ndir/error.log warn;
events {
    worker_connections 4096;
}
http {
    access_log off;
$temp_paths
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_timeout 65;
    keepalive_requests 100000;
    open_file_cache max=16 inactive=60s;
    server_tokens off;
    types { }
$NGINX_HTTP_EXTRA
    server {
        listen 127.0.0.1:$NPORT;
        root $TMP/www;
$locations
        location / { return 404; }
    }
}
EOF
}

# Writes the config (locations on stdin), starts nginx (pid in NPID) and
# waits until GET path answers 200: start_nginx path.
start_nginx() {
    local ndir=$TMP/nginx args i
    write_nginx_conf
    args=(-p "$ndir/" -c "$ndir/nginx.conf")
    "$NGINX" -h 2>&1 | grep -q -- '-e filename' && args+=(-e "$ndir/error.log")
    "$NGINX" "${args[@]}" -t >"$ndir/test.out" 2>&1 ||
        { cat "$ndir/test.out" >&2; die "nginx rejected the bench config"; }
    "$NGINX" "${args[@]}" >"$ndir/stdout" 2>&1 &
    NPID=$!
    for i in $(seq 1 5000); do
        kill -0 "$NPID" 2>/dev/null || { cat "$ndir/stdout" "$ndir/error.log" >&2 2>/dev/null; NPID=''; die "nginx exited during start-up"; }
        http_status "$NPORT" "$1" 2>/dev/null
        [ "$HTTP_STATUS" = 200 ] && break
        [ "$i" = 5000 ] && die "nginx not answering after 5 s"
        msleep 0.001
    done
    return 0
}
