#!/usr/bin/env bash
# fuzz.sh BUILD_DIR SECONDS — builds the libFuzzer targets with clang (ASan +
# UBSan) and runs each for SECONDS over a copy of its committed seed corpus.
# Exit status non-zero when a target finds a crash; the reproducer is kept
# in BUILD_DIR/fuzz-artifacts/.
#
# Everything is compiled with -fsanitize=fuzzer-no-link, so that the core
# library gives libFuzzer its coverage feedback; only the fuzz executables
# link with -fsanitize=fuzzer (tests/fuzz/meson.build), which brings main.
set -euo pipefail
builddir=${1:-build-fuzz}
seconds=${2:-20}
coverage=-fsanitize=fuzzer-no-link
if [ ! -f "$builddir/build.ninja" ]; then
  CC=clang meson setup "$builddir" -Dfuzz=true -Dtests=false \
    -Db_sanitize=address,undefined -Db_lundef=false -Dc_args="$coverage"
elif ! grep -q -- "$coverage" \
       "$builddir/meson-info/intro-buildoptions.json"; then
  meson configure "$builddir" -Dc_args="$coverage" # set up without it
fi
ninja -C "$builddir"
mkdir -p "$builddir/fuzz-artifacts"
status=0
for target in "$builddir"/tests/fuzz/fuzz_*; do
  [ -f "$target" ] && [ -x "$target" ] || continue
  name=${target##*/fuzz_}
  work=$(mktemp -d)
  cp -r "tests/fuzz/corpus/$name/." "$work/" 2>/dev/null || true
  echo "fuzz: $name for ${seconds}s"
  if ! "$target" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
       -artifact_prefix="$builddir/fuzz-artifacts/$name-" "$work" 2>"$builddir/fuzz-$name.log"; then
    echo "fuzz: $name FAILED; see $builddir/fuzz-$name.log"
    tail -30 "$builddir/fuzz-$name.log"
    status=1
  fi
  grep -E "^(Done|#[0-9]+ *DONE)" "$builddir/fuzz-$name.log" | tail -1 || true
  rm -rf "$work"
done
exit $status
