#!/usr/bin/env bash
# build-plugin-ui.sh UI_DIR OUT_DIR [DEPFILE] — builds a plugin's console
# page (UI_DIR/src/page.tsx) into OUT_DIR/page.js against the console's
# runtime SDK (web/scripts/build-plugin-ui.mjs), installing web/node_modules
# first when needed. Run by meson for every plugins/<name>/ui; several may
# run at once, so the install is serialized.
set -euo pipefail
. "$(dirname "$0")/web-common.sh"
if ! web_have_npm; then
  echo "build-plugin-ui: npm not found (scripts/install-deps.sh run installs Node.js)" >&2
  exit 1
fi
mkdir -p "$2"
(
  flock 9
  web_install
) 9>"$web/.install.lock"
exec node "$web/scripts/build-plugin-ui.mjs" "$@"
