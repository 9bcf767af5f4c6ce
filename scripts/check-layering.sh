#!/bin/sh
# check-layering.sh — fails when a file of core/ includes a header of a
# subsystem above its own (ARCHITECTURE.md, "Layering").
#
#   scripts/check-layering.sh [SOURCE_ROOT]
#
# Each folder under core/ has a rank (below). A file includes headers of
# its own folder by bare name and headers of folders of a lower rank by
# "folder/x.h"; folders of the same rank do not include each other. The
# exceptions are the contracts: headers that declare a record or an
# interface the layers under their folder are handed, and that include
# nothing of a rank above the lowest that may include them. Every refusal
# names file:line. It also checks that core/ holds no C file but main.c and
# that every folder has a README.md. Run by meson as the test `layering`.
set -eu
ROOT=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$ROOT/core"

RANKS="base:0 schema:0 config:1 metrics:1 store:2 logstore:2 objects:3 net:3 auth:4"
RANKS="$RANKS files:5 openapi:5 sched:6 api:7 proxy:7 http:8 plugins:9 ctx:10"

# Contract headers and the lowest rank that may include them:
#   ctx/ctx.h        the process record; subsystems reach each other's
#                    state through it, by opaque pointer
#   http/http_req.h  the request record handlers answer through (as a
#                    plugin answers through the host table)
#   http/router.h    the route match http_req.h carries
#   http/http_hold.h the HTTP threads' holds and wake-ups the reverse proxy
#                    waits on
CONTRACTS="ctx/ctx.h:3 http/http_req.h:2 http/router.h:2 http/http_hold.h:7"
fail=0

awk -v ranks="$RANKS" -v contracts="$CONTRACTS" '
BEGIN {
    n = split(ranks, r, " ")
    for (i = 1; i <= n; i++) { split(r[i], kv, ":"); rank[kv[1]] = kv[2] + 0 }
    n = split(contracts, c, " ")
    for (i = 1; i <= n; i++) { split(c[i], kv, ":"); floor[kv[1]] = kv[2] + 0 }
    bad = 0
}
FNR == 1 {
    dir = FILENAME; sub(/\/.*/, "", dir)
    own = rank[dir]
    is_contract = (FILENAME in floor)
}
/^[ \t]*#[ \t]*include[ \t]*"/ {
    inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
    where = "core/" FILENAME ":" FNR ": "
    if (inc !~ /\//) {
        if (inc == "cube_build.h") next
        if (system("test -e \"" dir "/" inc "\"") != 0) {
            print where "\"" inc "\" is no header of core/" dir " (name its folder)"; bad++
        } else if (is_contract && !((dir "/" inc) in floor)) {
            print where "a contract includes \"" inc "\", which is not one"; bad++
        }
        next
    }
    to = inc; sub(/\/.*/, "", to)
    if (!(to in rank)) next                   # not a core folder (cjson/, cube/ ...)
    if (to == dir) {
        # generated headers (embedded schemas) live in the build tree and
        # are reached through core/ on the include path
        if (system("test -e \"" inc "\"") == 0) {
            print where "\"" inc "\": a header of its own folder is included by its bare name"; bad++
        }
        next
    }
    if (is_contract) {
        if (rank[to] > floor[FILENAME] && !(inc in floor)) {
            print where "a contract for rank " floor[FILENAME] " and up includes \"" inc "\" (rank " rank[to] ")"; bad++
        }
        next
    }
    if (inc in floor) {
        if (own < floor[inc]) {
            print where "\"" inc "\" is a contract for rank " floor[inc] " and up; core/" dir " is " own; bad++
        }
        next
    }
    if (rank[to] >= own) {
        print where "core/" dir " (rank " own ") includes \"" inc "\" of core/" to " (rank " rank[to] ")"; bad++
    }
}
END {
    if (bad) { printf "check-layering: %d include(s) against the layering (ARCHITECTURE.md)\n", bad; exit 1 }
    print "check-layering: core/ includes point down only"
}' $(find . -mindepth 2 -maxdepth 2 -name '*.[ch]' | sed 's#^\./##' | sort) >&2 || fail=1

# A folder without C files still needs a rank (and a README.md).
for d in */; do
    d=${d%/}
    case " $RANKS " in
    *" $d:"*) ;;
    *) echo "core/$d: a folder with no rank in scripts/check-layering.sh" >&2; fail=1 ;;
    esac
    [ -e "$d/README.md" ] || { echo "core/$d: no README.md" >&2; fail=1; }
done
# Every C file of cubed but main.c is in a subsystem folder.
for f in *.c *.h; do
    [ -e "$f" ] && [ "$f" != main.c ] &&
        { echo "core/$f: put it in the subsystem folder it belongs to" >&2; fail=1; }
done
exit "$fail"
