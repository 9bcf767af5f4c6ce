#!/usr/bin/env bash
# install-code-server.sh — installs npm's code-server for the notebook
# plugin's `ide: vscode`, only when conf.d enables it (vscode.enabled: true
# in the notebook plugin's file) and it is not installed yet. The version is
# the one conf.d pins (vscode.version, default 4.96.4: runs on Node.js 20).
# code-server's own install fetches further dependencies from github.com.
# Usage: bash plugins/notebook/install-code-server.sh [conf.d dir]
set -euo pipefail
CONF_DIR=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/conf.d}
file=$(grep -l '^plugin: *notebook' "$CONF_DIR"/*.yaml 2>/dev/null | head -1 || true)
[ -n "$file" ] || { echo "no notebook plugin in $CONF_DIR: nothing to do"; exit 0; }
# The vscode block's keys: "enabled:" and "version:" indented under "vscode:".
block=$(awk '/^ *vscode:/ {on=1; next} on && /^ {0,2}[a-z_]+:/ {on=0} on' "$file")
enabled=$(printf '%s\n' "$block" | sed -n 's/^ *enabled: *\([a-z]*\).*/\1/p' | head -1)
version=$(printf '%s\n' "$block" | sed -n 's/^ *version: *"\{0,1\}\([0-9.]*\)"\{0,1\}.*/\1/p' | head -1)
if [ "$enabled" != true ]; then
    echo "$file: vscode is not enabled: code-server is not needed"
    exit 0
fi
version=${version:-4.96.4}
if command -v code-server >/dev/null 2>&1; then
    echo "code-server is installed: $(code-server --version 2>/dev/null | head -1)"
    exit 0
fi
command -v npm >/dev/null 2>&1 || { echo "npm is missing (scripts/install-deps.sh installs Node.js)" >&2; exit 1; }
echo "npm install -g code-server@$version"
npm install -g "code-server@$version"
