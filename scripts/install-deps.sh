#!/usr/bin/env bash
# install-deps.sh PROFILE — installs the Debian packages Cube needs that are
# missing, and says which. PROFILE: run (build and start cubed), test (also
# the test suite), all (also fuzzing and benchmarks). Needs root (or sudo)
# only when something is missing. `install-deps.sh --list PROFILE` prints
# the profile's packages, one a line, and installs nothing.
set -euo pipefail
list=0
if [ "${1:-}" = "--list" ]; then
  list=1
  shift
fi
profile=${1:-run}

run_pkgs=(meson ninja-build gcc pkg-config libmicrohttpd-dev libcjson-dev libcurl4-openssl-dev
          libyaml-dev libssl-dev zlib1g-dev libsqlite3-dev libpq-dev libldap-dev passwd)
test_pkgs=(libcmocka-dev python3 python3-mypy python3-pyflakes openssl curl prometheus json-schema-test-suite
           binutils postgresql slapd ldap-utils bubblewrap python3-torch
           chromium python3-sklearn python3-xgboost python3-matplotlib python3-pandas
           python3-croniter python3-websocket jupyter-notebook jupyterhub fonts-wqy-microhei)
all_pkgs=(clang libclang-rt-14-dev wrk nginx-light slurm-wlm python3-optuna)

case "$profile" in
  run) want=("${run_pkgs[@]}") ;;
  test) want=("${run_pkgs[@]}" "${test_pkgs[@]}") ;;
  all) want=("${run_pkgs[@]}" "${test_pkgs[@]}" "${all_pkgs[@]}") ;;
  *) echo "usage: $0 run|test|all" >&2; exit 2 ;;
esac

if [ "$list" -eq 1 ]; then
  printf '%s\n' "${want[@]}"
  exit 0
fi
missing=()
# The console is built with Node.js and npm; a Node.js installed outside
# Debian's packages counts.
command -v npm >/dev/null 2>&1 || want+=(nodejs npm)
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#want[@]} packages for '$profile' are present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root to install: ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
# An old package list may not know a package; refresh once and retry.
"${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}" \
  || { "${sudo[@]}" apt-get update && "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"; }
