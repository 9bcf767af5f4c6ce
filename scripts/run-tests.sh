#!/usr/bin/env bash
# run-tests.sh BUILD_DIR [meson setup options...] — configures (warnings are
# errors, the suite on: also in a dir that `make run` set up), builds and
# runs the whole suite in BUILD_DIR, then prints the closing line
# "N passed, N failed[, N skipped]". Exit status 0 only when nothing failed.
# TEST_NO_SUITES="a b" leaves those meson suites out (`make test-asan`
# leaves out js-only: tests in which no C code runs).
set -uo pipefail
builddir=${1:?usage: run-tests.sh BUILD_DIR [meson options]}
shift
if [ ! -f "$builddir/build.ninja" ]; then
  meson setup "$builddir" -Dwerror=true "$@" || exit 1
else
  # A dir `make run` set up has the suite off (-Dtests=false) and warnings
  # allowed: turn both on (the run's targets stay built; the first build
  # after turning on werror recompiles them with -Werror).
  want=$(/usr/bin/python3 - "$builddir" <<'PY'
import json, subprocess, sys
opts = json.loads(subprocess.run(["meson", "introspect", sys.argv[1], "--buildoptions"],
                                 check=True, capture_output=True, text=True).stdout)
have = {o["name"]: o["value"] for o in opts}
print(" ".join(f"-D{k}=true" for k in ("tests", "werror") if have.get(k) is not True))
PY
) || exit 1
  if [ -n "$want" ]; then
    echo "run-tests: $builddir: meson configure $want"
    # shellcheck disable=SC2086
    meson configure "$builddir" $want || exit 1
  fi
fi
ninja -C "$builddir" || { echo "0 passed, 1 failed"; exit 1; }
# The store's PostgreSQL cases run against a throwaway server (see
# tests/pg/with_pg.sh); without one they skip.
root=$(cd "$(dirname "$0")/.." && pwd)
skip=()
for suite in ${TEST_NO_SUITES:-}; do skip+=(--no-suite "$suite"); done
"$root/tests/pg/with_pg.sh" meson test -C "$builddir" --print-errorlogs --num-processes 2 "${skip[@]}"
status=$?
log="$builddir/meson-logs/testlog.json"
if [ ! -f "$log" ]; then
  echo "0 passed, 1 failed"
  exit 1
fi
read -r passed failed skipped < <(/usr/bin/python3 - "$log" <<'PY'
import json, sys
counts = {"OK": 0, "FAIL": 0, "SKIP": 0}
for line in open(sys.argv[1]):
    r = json.loads(line)["result"]
    key = {"OK": "OK", "SKIP": "SKIP", "EXPECTEDFAIL": "OK"}.get(r, "FAIL")
    counts[key] += 1
print(counts["OK"], counts["FAIL"], counts["SKIP"])
PY
)
line="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && line="$line, $skipped skipped"
echo "$line"
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ]
