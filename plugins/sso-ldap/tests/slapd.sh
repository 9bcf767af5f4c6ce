#!/usr/bin/env bash
# slapd.sh start|stop|restart DIR — a throwaway OpenLDAP server for tests.
#
#   start DIR    on first use: a throwaway CA and server certificate (openssl
#                CLI), a slapd.conf (mdb, base dc=example,dc=org, TLS) and a
#                small directory loaded with slapadd; then starts slapd on two
#                free loopback ports (ldap:// with StartTLS, and ldaps://) and
#                prints: LDAP_URL LDAPS_URL
#   stop DIR     stops it; DIR stays, `start` reuses it (same ports)
#   restart DIR  stop, then start
#
# The directory (passwords are {SSHA} from slappasswd):
#   cn=reader,dc=example,dc=org        service account, password reader-pw
#   uid=alice,ou=people,...            "Alice Liddell", alice@example.org, alice-pw
#   uid=bob,ou=people,...              "Bob Builder", bob@example.org, bob-pw
#   uid=carol,ou=people,...            no mail, in no group, carol-pw
#   cn=admins,ou=groups,...            alice
#   cn=ml,ou=groups,...                alice, bob
#   cn=ml-leads,ou=groups,...          alice
# ACL: anonymous may only bind; bound users read everything but passwords.
# Runs as the calling user (root too); needs no privileged port. Installs
# Debian's slapd and ldap-utils with apt-get when slapd is missing (not with
# SLAPD_NO_INSTALL=1). Removing DIR is the caller's job.
set -euo pipefail

usage() { echo "usage: $0 start|stop|restart DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
cmd=$1
dir=$(mkdir -p "$2" && cd "$2" && pwd)

SLAPD=${SLAPD:-$(command -v slapd || echo /usr/sbin/slapd)}
SLAPADD=${SLAPADD:-$(command -v slapadd || echo /usr/sbin/slapadd)}
SLAPPASSWD=${SLAPPASSWD:-$(command -v slappasswd || echo /usr/sbin/slappasswd)}
SCHEMA_DIR=${SCHEMA_DIR:-/etc/ldap/schema}
MODULE_DIR=${MODULE_DIR:-/usr/lib/ldap}

have() { [ -x "$1" ] || command -v "$1" >/dev/null 2>&1; }

need() {
  have "$1" \
    || { echo "slapd.sh: $1 not found (Debian: apt-get install slapd ldap-utils openssl)" >&2; exit 1; }
}

# Installs Debian's slapd and ldap-utils when slapd is missing (as pg.sh
# does for PostgreSQL); without root or sudo, says so and fails.
install_slapd() {
  [ -z "${SLAPD_NO_INSTALL:-}" ] || return 0
  echo "slapd.sh: no slapd found; installing: slapd ldap-utils" >&2
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "slapd.sh: need root to install slapd" >&2; return 0; }
    sudo=(sudo -n)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get install -y --no-install-recommends slapd ldap-utils >&2 \
    || { "${sudo[@]}" apt-get update >&2 \
         && "${sudo[@]}" apt-get install -y --no-install-recommends slapd ldap-utils >&2; } \
    || true
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

make_certs() {
  cd "$dir"
  local ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
  openssl req -x509 "${ec[@]}" -keyout ca.key -out ca.pem -days 2 -subj "/CN=Cube test CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
  openssl req "${ec[@]}" -keyout server.key -out server.csr -subj "/CN=127.0.0.1" 2>/dev/null
  printf '%s\n' "basicConstraints=CA:FALSE" "keyUsage=critical,digitalSignature,keyEncipherment" \
    "extendedKeyUsage=serverAuth" "subjectAltName=IP:127.0.0.1,DNS:localhost" >server.ext
  openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
    -extfile server.ext -out server.pem 2>/dev/null
  # A CA that signed nothing here: a client trusting only it must refuse.
  openssl req -x509 "${ec[@]}" -keyout other-ca.key -out other-ca.pem -days 2 \
    -subj "/CN=Some other CA" -addext "basicConstraints=critical,CA:TRUE" 2>/dev/null
  chmod 600 ./*.key
}

write_conf() {
  local mods=""
  [ -e "$MODULE_DIR/back_mdb.la" ] || [ -e "$MODULE_DIR/back_mdb.so" ] \
    && mods="modulepath $MODULE_DIR
moduleload back_mdb"
  cat >"$dir/slapd.conf" <<CONF
include $SCHEMA_DIR/core.schema
include $SCHEMA_DIR/cosine.schema
include $SCHEMA_DIR/inetorgperson.schema
include $SCHEMA_DIR/nis.schema
$mods
pidfile $dir/slapd.pid
argsfile $dir/slapd.args
TLSCACertificateFile $dir/ca.pem
TLSCertificateFile $dir/server.pem
TLSCertificateKeyFile $dir/server.key

database mdb
maxsize 16777216
suffix "dc=example,dc=org"
rootdn "cn=admin,dc=example,dc=org"
rootpw $("$SLAPPASSWD" -s admin-pw)
directory $dir/db
access to attrs=userPassword by anonymous auth by self write by * none
access to * by users read by * none
CONF
}

person() { # uid cn sn mail|"" password
  printf 'dn: uid=%s,ou=people,dc=example,dc=org\nobjectClass: inetOrgPerson\n' "$1"
  printf 'uid: %s\ncn: %s\nsn: %s\n' "$1" "$2" "$3"
  [ -z "$4" ] || printf 'mail: %s\n' "$4"
  printf 'userPassword: %s\n\n' "$("$SLAPPASSWD" -s "$5")"
}

group() { # cn member-uid...
  local cn=$1; shift
  printf 'dn: cn=%s,ou=groups,dc=example,dc=org\nobjectClass: groupOfNames\ncn: %s\n' "$cn" "$cn"
  for m in "$@"; do printf 'member: uid=%s,ou=people,dc=example,dc=org\n' "$m"; done
  printf '\n'
}

write_ldif() {
  {
    printf 'dn: dc=example,dc=org\nobjectClass: dcObject\nobjectClass: organization\n'
    printf 'dc: example\no: Example\n\n'
    printf 'dn: cn=reader,dc=example,dc=org\nobjectClass: organizationalRole\n'
    printf 'objectClass: simpleSecurityObject\ncn: reader\nuserPassword: %s\n\n' \
      "$("$SLAPPASSWD" -s reader-pw)"
    printf 'dn: ou=people,dc=example,dc=org\nobjectClass: organizationalUnit\nou: people\n\n'
    printf 'dn: ou=groups,dc=example,dc=org\nobjectClass: organizationalUnit\nou: groups\n\n'
    person alice "Alice Liddell" Liddell alice@example.org alice-pw
    person bob "Bob Builder" Builder bob@example.org bob-pw
    person carol "Carol Danvers" Danvers "" carol-pw
    group admins alice
    group ml alice bob
    group ml-leads alice
  } >"$dir/data.ldif"
}

init_dir() {
  have "$SLAPD" || { install_slapd; SLAPD=$(command -v slapd || echo /usr/sbin/slapd); }
  need "$SLAPD"; need "$SLAPADD"; need "$SLAPPASSWD"; need openssl
  mkdir -p "$dir/db"
  make_certs
  write_conf
  write_ldif
  "$SLAPADD" -q -f "$dir/slapd.conf" -l "$dir/data.ldif" >"$dir/slapadd.log" 2>&1 \
    || { cat "$dir/slapadd.log" >&2; exit 1; }
  echo "$(free_port) $(free_port)" >"$dir/ports"
}

# 1 when something accepts TCP connections on 127.0.0.1:port.
port_open() {
  python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1",int(sys.argv[1])),1)' \
    "$1" 2>/dev/null
}

# Waits until slapd answers on the plain port (a root DSE read, or a bare
# connect without ldapsearch).
wait_ready() {
  local port=$1 pid
  pid=$(cat "$dir/slapd.pid.ours")
  for _ in $(seq 100); do
    if command -v ldapsearch >/dev/null; then
      ldapsearch -x -H "ldap://127.0.0.1:$port" -s base -b "" -LLL -o nettimeout=1 \
        namingContexts >/dev/null 2>&1 && return 0
    else
      port_open "$port" && return 0
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "slapd.sh: slapd did not answer on port $port; its log:" >&2
  tail -n 30 "$dir/slapd.log" >&2
  return 1
}

start() {
  [ -f "$dir/ports" ] || init_dir
  local p ps
  read -r p ps <"$dir/ports"
  rm -f "$dir/slapd.pid"
  # -d keeps it in the foreground (logging to slapd.log), in our process
  # group: a test runner that kills the group on timeout stops it too.
  "$SLAPD" -d 256 -f "$dir/slapd.conf" \
    -h "ldap://127.0.0.1:$p/ ldaps://127.0.0.1:$ps/" >"$dir/slapd.log" 2>&1 </dev/null &
  echo $! >"$dir/slapd.pid.ours"
  wait_ready "$p" || { stop; exit 1; }
  echo "ldap://127.0.0.1:$p ldaps://127.0.0.1:$ps"
}

stop() {
  [ -f "$dir/slapd.pid.ours" ] || return 0
  local pid
  pid=$(cat "$dir/slapd.pid.ours")
  rm -f "$dir/slapd.pid.ours"
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 100); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.05
  done
  kill -KILL "$pid" 2>/dev/null || true
}

case "$cmd" in
  start) start ;;
  stop) stop ;;
  restart) stop; start >/dev/null ;;
  *) usage ;;
esac
