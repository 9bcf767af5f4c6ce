#!/usr/bin/env bash
# test-web.sh — the console's component tests (vitest + jsdom). Skipped
# (exit 77) on a machine without npm.
set -euo pipefail
. "$(dirname "$0")/web-common.sh"
if ! web_have_npm; then
  echo "test-web: npm not found: skipped"
  exit 77
fi
web_install
cd "$web"
exec npx --no-install vitest run --reporter=verbose "$@"
