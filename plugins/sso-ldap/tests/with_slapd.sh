#!/usr/bin/env bash
# with_slapd.sh CMD [ARGS...] — runs CMD with a throwaway OpenLDAP server
# (see slapd.sh for its directory) and exports:
#   CUBE_TEST_LDAP_URL       ldap://127.0.0.1:PORT (StartTLS offered)
#   CUBE_TEST_LDAPS_URL      ldaps://127.0.0.1:PORT
#   CUBE_TEST_LDAP_CA        the CA file that verifies the server
#   CUBE_TEST_LDAP_OTHER_CA  a CA file that does not
#   CUBE_TEST_LDAP_DIR       the server's dir (for slapd.sh stop/start DIR)
#   CUBE_TEST_LDAP_CTL       the path of slapd.sh
# then stops the server, removes it, and exits with CMD's status. When no
# server can be started, CMD runs without them (its LDAP cases then skip,
# saying why).
set -uo pipefail
[ $# -ge 1 ] || { echo "usage: $0 CMD [ARGS...]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)

dir=$(mktemp -d "${TMPDIR:-/tmp}/cube-ldap.XXXXXX") || exit 1
cleanup() {
  "$here/slapd.sh" stop "$dir" >/dev/null 2>&1
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if urls=$("$here/slapd.sh" start "$dir"); then
  read -r url surl <<<"$urls"
  export CUBE_TEST_LDAP_URL=$url CUBE_TEST_LDAPS_URL=$surl CUBE_TEST_LDAP_DIR=$dir \
         CUBE_TEST_LDAP_CA=$dir/ca.pem CUBE_TEST_LDAP_OTHER_CA=$dir/other-ca.pem \
         CUBE_TEST_LDAP_CTL=$here/slapd.sh
  echo "with_slapd: slapd at $url and $surl" >&2
else
  echo "with_slapd: could not start slapd; running without CUBE_TEST_LDAP_URL" >&2
fi
"$@"
exit $?
