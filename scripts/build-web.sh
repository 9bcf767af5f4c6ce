#!/usr/bin/env bash
# build-web.sh — builds the web console into web/dist (served by cubed as
# web_root), unless web/dist is newer than every source of it. The build
# prints each chunk's size (raw and gzip) and fails when the first page's
# JavaScript is over its gzip budget (web/scripts/bundle-report.mjs).
set -euo pipefail
. "$(dirname "$0")/web-common.sh"
if ! web_have_npm; then
  echo "build-web: npm not found (scripts/install-deps.sh run installs Node.js)" >&2
  exit 1
fi
stamp=$web/dist/index.html
if [ -f "$stamp" ] && [ -z "$(cd "$web" && find src sdk public index.html package.json package-lock.json \
     vite.config.ts tsconfig.json scripts -newer dist/index.html -print -quit)" ]; then
  echo "build-web: web/dist is up to date"
  exit 0
fi
web_install
# a failed build (type error, over budget) must not leave a dist that
# looks up to date
(cd "$web" && npm run --silent build) || { rm -f "$stamp"; echo "build-web: failed" >&2; exit 1; }
