#!/usr/bin/env bash
# with_pg.sh CMD [ARGS...] — runs CMD with a throwaway PostgreSQL server:
# exports CUBE_TEST_PG_URL (its URL) and CUBE_TEST_PG_DIR (for pg.sh
# stop/start/restart), then stops the server and removes it, and exits with
# CMD's status. When no server can be started, CMD runs without them (the
# PostgreSQL test cases then skip, saying why).
set -uo pipefail
[ $# -ge 1 ] || { echo "usage: $0 CMD [ARGS...]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)

dir=$(mktemp -d "${TMPDIR:-/tmp}/cube-pg.XXXXXX") || exit 1
cleanup() {
  "$here/pg.sh" stop "$dir" >/dev/null 2>&1
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if url=$("$here/pg.sh" start "$dir"); then
  export CUBE_TEST_PG_URL=$url CUBE_TEST_PG_DIR=$dir
  echo "with_pg: PostgreSQL at $url" >&2
else
  echo "with_pg: could not start PostgreSQL; running without CUBE_TEST_PG_URL" >&2
fi
"$@"
exit $?
