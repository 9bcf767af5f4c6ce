#!/usr/bin/env bash
# pg.sh start|stop|restart DIR — a throwaway PostgreSQL server for tests.
#
#   start DIR    initialises a cluster in DIR on first use (trust auth, owned
#                by the `postgres` OS user when run as root, since initdb
#                refuses root), starts it on a free loopback port with its
#                socket in DIR, creates the database `cube` and prints its
#                URL: postgres://postgres@127.0.0.1:PORT/cube
#   stop DIR     stops it (fast shutdown); DIR stays, `start` reuses it
#   restart DIR  stops and starts it again on the same port
#
# Installs the `postgresql` package with apt-get when no
# /usr/lib/postgresql/*/bin/initdb exists. Removing DIR is the caller's job.
set -euo pipefail

usage() { echo "usage: $0 start|stop|restart DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
cmd=$1
dir=$2

find_bindir() {
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  [ -n "$d" ] && [ -x "$d/initdb" ] && echo "$d"
}

install_server() {
  echo "pg.sh: no initdb found; installing: postgresql" >&2
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "pg.sh: need root to install postgresql" >&2; exit 1; }
    sudo=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get install -y --no-install-recommends postgresql >&2 \
    || { "${sudo[@]}" apt-get update >&2 \
         && "${sudo[@]}" apt-get install -y --no-install-recommends postgresql >&2; }
}

bindir=$(find_bindir || true)
if [ -z "$bindir" ]; then
  install_server
  bindir=$(find_bindir) || { echo "pg.sh: initdb still missing" >&2; exit 1; }
fi

# Runs a server binary as the cluster's owner (postgres when we are root).
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    if command -v runuser >/dev/null; then
      runuser -u postgres -- "$@"
    else
      su postgres -s /bin/sh -c "$(printf '%q ' "$@")"
    fi
  else
    "$@"
  fi
}

free_port() {
  if command -v python3 >/dev/null; then
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
  else
    local p
    for _ in $(seq 50); do
      p=$((20000 + RANDOM % 40000))
      (echo >"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
    done
    return 1
  fi
}

init_cluster() {
  mkdir -p "$dir"
  if [ "$(id -u)" -eq 0 ]; then
    chown postgres: "$dir"
  fi
  chmod 700 "$dir"
  as_owner "$bindir/initdb" -D "$dir/data" -U postgres --auth=trust \
    --encoding=UTF8 --locale=C >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
  free_port >"$dir/port"
}

start() {
  local fresh=0 port
  if [ ! -f "$dir/data/PG_VERSION" ]; then
    init_cluster
    fresh=1
  fi
  port=$(cat "$dir/port")
  as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off" start >/dev/null \
    || { tail -n 20 "$dir/server.log" >&2; exit 1; }
  if [ "$fresh" -eq 1 ]; then
    "$bindir/createdb" -h 127.0.0.1 -p "$port" -U postgres cube
  fi
  echo "postgres://postgres@127.0.0.1:$port/cube"
}

stop() {
  [ -f "$dir/data/postmaster.pid" ] || return 0
  as_owner "$bindir/pg_ctl" -D "$dir/data" -w -t 30 -m fast stop >/dev/null
}

case "$cmd" in
  start) start ;;
  stop) stop ;;
  restart) stop; start >/dev/null ;;
  *) usage ;;
esac
