# web-common.sh — sourced by build-web.sh and test-web.sh: finds web/ and
# installs its node_modules (npm ci) when missing or older than the lockfile.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
web=$root/web

web_have_npm() {
  command -v npm >/dev/null 2>&1
}

# npm ci only when package-lock.json changed since the last install: a full
# reinstall takes ~30 s, and `make test` calls this every time.
web_install() {
  local marker=$web/node_modules/.package-lock.json
  if [ -f "$marker" ] && [ ! "$web/package-lock.json" -nt "$marker" ] \
     && [ ! "$web/package.json" -nt "$marker" ]; then
    return 0
  fi
  echo "web: npm ci"
  (cd "$web" && npm ci --no-audit --no-fund --loglevel=error)
}
