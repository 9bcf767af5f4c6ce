#!/usr/bin/env bash
# check-run-build.sh [BUILD_DIR] — proves that `make run` builds with the
# run packages alone: `make build` (the recipe `make run` uses) sets up
# BUILD_DIR (default build) with pkg-config seeing none of the .pc files
# that the test-only packages bring (scripts/install-deps.sh's test and all
# profiles, and what they pull in that the run packages do not), and no
# cmake to find them by either. Then the default build of that dir must
# hold nothing beyond the `runtime` target. BUILD_DIR must not exist yet;
# it stays configured for `make test` to reuse (which turns the suite on).
set -euo pipefail
cd "$(dirname "$0")/.."
builddir=${1:-build}
if [ -e "$builddir/build.ninja" ]; then
  echo "check-run-build: $builddir is already set up; give a fresh dir" >&2
  exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Packages of a profile and everything they depend on (installed ones).
closure() {
  # shellcheck disable=SC2046
  apt-cache depends --recurse --installed --no-recommends --no-suggests --no-conflicts \
    --no-breaks --no-replaces --no-enhances $(scripts/install-deps.sh --list "$1") 2>/dev/null |
    grep -v '^[ <]' | sort -u
}
closure run >"$tmp/run"
closure all >"$tmp/all"
comm -23 "$tmp/all" "$tmp/run" >"$tmp/test-only"
# shellcheck disable=SC2046
dpkg-query -L $(cat "$tmp/test-only") 2>/dev/null | grep '\.pc$' | sort -u >"$tmp/hidden" || true

# A copy of every pkg-config dir without the hidden files, in the same order.
libdir=()
i=0
IFS=: read -ra dirs <<<"$(pkg-config --variable pc_path pkg-config)"
for d in "${dirs[@]}"; do
  i=$((i + 1))
  mkdir -p "$tmp/pc/$i"
  libdir+=("$tmp/pc/$i")
  for f in "$d"/*.pc; do
    [ -e "$f" ] || continue
    grep -qxF "$f" "$tmp/hidden" || ln -s "$f" "$tmp/pc/$i/"
  done
done
export PKG_CONFIG_LIBDIR
PKG_CONFIG_LIBDIR=$(IFS=:; echo "${libdir[*]}")
if pkg-config --exists cmocka; then
  echo "check-run-build: cmocka is still visible to pkg-config" >&2
  exit 1
fi
# meson would find packages through cmake too
mkdir "$tmp/bin"
printf '#!/bin/sh\nexit 1\n' >"$tmp/bin/cmake"
chmod +x "$tmp/bin/cmake"
echo "check-run-build: hiding $(wc -l <"$tmp/hidden") .pc file(s) of test-only packages:" \
  "$(xargs -n1 basename <"$tmp/hidden" | tr '\n' ' ')"

PATH="$tmp/bin:$PATH" make --no-print-directory build BUILD="$builddir" SETUP_ARGS=-Dwerror=true
# With the suite off, the default build must be the runtime target alone
# (a new plugin left out of runtime_targets in meson.build shows up here);
# the template pack's copy is always stale.
extra=$(ninja -C "$builddir" -n | grep '^\[' | grep -v 'pipeline-templates' || true)
if [ -n "$extra" ]; then
  echo "check-run-build: built by default but not by 'runtime':" >&2
  echo "$extra" >&2
  exit 1
fi
echo "check-run-build: the run build needs no test-only package"
