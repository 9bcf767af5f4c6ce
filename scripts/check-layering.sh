#!/bin/sh
# check-layering.sh — fails when a file of core/ includes a header of a
# subsystem above its own (see ARCHITECTURE.md, "Layering").
#
#   scripts/check-layering.sh [SOURCE_ROOT]
#
# Each folder under core/ has a rank; a file may include headers of its own
# folder (by bare name) and of folders of a lower rank (by "folder/x.h").
# Folders of the same rank do not include each other. The exceptions are the
# contracts below: headers that declare a record or an interface the layers
# under their folder are handed, and that themselves include nothing of a
# rank above the lowest that may include them.
# Run by meson (tests/meson.build, suite "lint") and by .ci/run.
set -eu
ROOT=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$ROOT/core"

rank() {
    case "$1" in
    base|schema) echo 0 ;;
    config|metrics) echo 1 ;;
    store|logstore) echo 2 ;;
    objects) echo 3 ;;
    auth) echo 4 ;;
    files|openapi) echo 5 ;;
    sched) echo 6 ;;
    api|proxy) echo 7 ;;
    http) echo 8 ;;
    plugins) echo 9 ;;
    ctx) echo 10 ;;
    *) echo "" ;;
    esac
}

# Contract headers: "header lowest-rank-that-may-include-it".
#   ctx/ctx.h        the process record: subsystems reach each other's
#                    state through it, by opaque pointer
#   http/http_req.h  the request record handlers answer through (as a
#                    plugin answers through the host table)
#   http/router.h    the route match http_req.h carries
CONTRACTS="ctx/ctx.h:3 http/http_req.h:2 http/router.h:2"

contract_floor() {
    for c in $CONTRACTS; do
        [ "${c%%:*}" = "$1" ] && { echo "${c##*:}"; return; }
    done
    echo ""
}

fail=0
for dir in */; do
    dir=${dir%/}
    own=$(rank "$dir")
    if [ -z "$own" ]; then
        echo "core/$dir: a folder with no rank in scripts/check-layering.sh" >&2
        fail=1
        continue
    fi
    for f in "$dir"/*.c "$dir"/*.h; do
        [ -e "$f" ] || continue
        grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
        sed 's/^\([0-9]*\):.*"\(.*\)".*/\1 \2/' |
        while read -r line inc; do
            case "$inc" in
            */*) ;;
            cube_build.h) continue ;;
            *)
                [ -e "$dir/$inc" ] ||
                    echo "core/$f:$line: \"$inc\" is no header of core/$dir (name its folder)"
                continue ;;
            esac
            to=${inc%%/*}
            if [ "$to" = "$dir" ]; then
                # generated headers (embedded schemas) live in the build
                # tree and are reached through core/'s include path
                [ -e "$inc" ] &&
                    echo "core/$f:$line: \"$inc\": a header of its own folder is included by its bare name"
                continue
            fi
            theirs=$(rank "$to")
            [ -n "$theirs" ] || continue      # not a core folder (e.g. cjson/)
            floor=$(contract_floor "$inc")
            if [ -n "$floor" ]; then
                [ "$own" -ge "$floor" ] ||
                    echo "core/$f:$line: \"$inc\" is a contract for rank $floor and up; core/$dir is $own"
                continue
            fi
            [ "$theirs" -lt "$own" ] ||
                echo "core/$f:$line: core/$dir (rank $own) includes \"$inc\" of core/$to (rank $theirs)"
        done
    done
done >"${TMPDIR:-/tmp}/check-layering.$$"

# A contract for rank F and up includes only headers of rank F or lower
# (by folder, or by bare name another contract of its folder).
for c in $CONTRACTS; do
    h=${c%%:*}
    floor=${c##*:}
    grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$h" |
    sed 's/^\([0-9]*\):.*"\(.*\)".*/\1 \2/' |
    while read -r line inc; do
        case "$inc" in
        */*) r=$(rank "${inc%%/*}")
             [ -z "$r" ] || [ "$r" -le "$floor" ] || [ -n "$(contract_floor "$inc")" ] && continue ;;
        *) [ -n "$(contract_floor "$(dirname "$h")/$inc")" ] && continue ;;
        esac
        echo "core/$h:$line: a contract for rank $floor and up includes \"$inc\""
    done
done >>"${TMPDIR:-/tmp}/check-layering.$$"

if [ -s "${TMPDIR:-/tmp}/check-layering.$$" ]; then
    cat "${TMPDIR:-/tmp}/check-layering.$$" >&2
    echo "check-layering: $(wc -l <"${TMPDIR:-/tmp}/check-layering.$$") include(s) against the layering (ARCHITECTURE.md)" >&2
    fail=1
fi
rm -f "${TMPDIR:-/tmp}/check-layering.$$"
[ "$fail" -eq 0 ] && echo "check-layering: core/ includes point down only"
exit "$fail"
