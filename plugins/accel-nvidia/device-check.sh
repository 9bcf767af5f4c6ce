#!/usr/bin/env bash
# device-check.sh — accel-nvidia on a machine WITH an NVIDIA GPU, in one go
# (well under 5 minutes). Run from anywhere inside the Cube tree:
#
#   bash plugins/accel-nvidia/device-check.sh
#
# 1. prints versions (nvidia-smi, driver, GPUs, compiler);
# 2. builds the plugin and nvidia_probe with plain cc (only libc needed) and
#    prints what the plugin discovers through the real NVML, the env that
#    pins GPU 0 (whole and a 0.5 share) and the usage document;
# 3. when meson and Cube's build deps are present (installed quietly when
#    missing and possible): builds cubed in a temp dir, starts it with
#    accel-nvidia and checks its NVML line; when executor-local is in the
#    tree too, runs a 1-GPU Job printing `nvidia-smi -L`, its
#    CUDA_VISIBLE_DEVICES and the NVIDIA nodes of its /dev (in bubblewrap
#    when installed: only those accel-nvidia pins), and prints the Job's log.
# Ends with a PASS/FAIL/SKIP line per step and DEVICE CHECK: PASS or FAIL.
set -euo pipefail

LIMIT=${DEVICE_CHECK_SECONDS:-240}          # whole-script budget
START=$SECONDS
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
T=$(mktemp -d /tmp/cube-device-check.XXXXXX)
CUBED_PID=""
declare -a RESULTS=()
FAILED=0

left() { local l=$((LIMIT - (SECONDS - START))); [ "$l" -gt 5 ] && echo "$l" || echo 5; }
within() { local cap=$1; shift; local l; l=$(left); timeout "$(( cap < l ? cap : l ))" "$@"; }
step() { printf '\n=== %s (%ss elapsed)\n' "$*" "$((SECONDS - START))"; }
result() { RESULTS+=("$1 $2${3:+: $3}"); [ "$1" = FAIL ] && FAILED=1; return 0; }

cleanup() {
  if [ -n "$CUBED_PID" ] && kill -0 "$CUBED_PID" 2>/dev/null; then
    kill "$CUBED_PID" 2>/dev/null || true
    for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$CUBED_PID" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$CUBED_PID" 2>/dev/null || true
  fi
  rm -rf "$T"
}
trap cleanup EXIT

summary() {
  printf '\n=== summary (%ss)\n' "$((SECONDS - START))"
  for r in "${RESULTS[@]}"; do echo "  $r"; done
  if [ "$FAILED" -eq 0 ]; then echo "DEVICE CHECK: PASS"; else echo "DEVICE CHECK: FAIL"; fi
}

step "versions"
uname -srm
if command -v nvidia-smi >/dev/null; then
  within 30 nvidia-smi --query-gpu=index,name,uuid,driver_version,memory.total,mig.mode.current \
    --format=csv || true
  within 30 nvidia-smi -L || true
  within 30 nvidia-smi topo -m 2>/dev/null | head -20 || true
else
  echo "nvidia-smi: not found"
fi
cc --version 2>/dev/null | head -1 || echo "cc: not found"
nvml=$(ldconfig -p 2>/dev/null | grep libnvidia-ml || true)
echo "${nvml:-libnvidia-ml: not in the ldconfig cache}"

step "build the plugin and the probe with cc"
A="$ROOT/plugins/accel-nvidia"
CFLAGS=(-std=c11 -O2 -g -D_GNU_SOURCE -Wall -Wextra -Wno-unused-parameter -I"$ROOT/abi" -I"$A")
if within 60 cc "${CFLAGS[@]}" -fPIC -shared -fvisibility=hidden -o "$T/cube-accel-nvidia.so" \
     "$A/accel_nvidia.c" "$A/nv_devices.c" "$A/nv_health.c" "$A/nv_json.c" "$A/nv_pin.c" \
     "$A/nvml_load.c" \
     -Wl,-z,defs -ldl -lpthread \
   && within 60 cc "${CFLAGS[@]}" -o "$T/nvidia_probe" "$A/tests/nvidia_probe.c" -ldl; then
  result PASS "cc build" "cube-accel-nvidia.so links only libc/libdl/libpthread"
  ldd "$T/cube-accel-nvidia.so" | sed 's/^/  /'
else
  result FAIL "cc build"
  summary
  exit 1
fi

step "discover / pin_env / usage through the real NVML"
probe_rc=0
within 30 "$T/nvidia_probe" "$T/cube-accel-nvidia.so" | tee "$T/probe.out" || probe_rc=$?
if [ "$probe_rc" -eq 0 ] && grep -q '"healthy":true' "$T/probe.out" \
   && grep -q '"CUDA_VISIBLE_DEVICES":"GPU-' "$T/probe.out" \
   && grep -q 'CUDA_MPS_ACTIVE_THREAD_PERCENTAGE":"50"' "$T/probe.out" \
   && grep '^pin ' "$T/probe.out" | grep -q '"path":"/dev/nvidiactl"'; then
  result PASS "probe" "$(grep '^discover:' "$T/probe.out" | grep -o '"id":"' | wc -l) GPU(s) found; GPU 0 pinned (env and device nodes)"
elif [ "$probe_rc" -eq 2 ]; then
  result FAIL "probe" "no GPU discovered (see the log line above)"
else
  result FAIL "probe" "exit $probe_rc or missing fields"
fi

step "Cube's build deps"
run_pkgs=(libmicrohttpd libcjson yaml-0.1 openssl zlib sqlite3 libpq ldap libcurl)
have_deps() {
  command -v meson >/dev/null && command -v ninja >/dev/null && command -v pkg-config >/dev/null \
    && command -v curl >/dev/null \
    && for p in "${run_pkgs[@]}"; do pkg-config --exists "$p" || return 1; done
}
if ! have_deps && [ -x "$ROOT/scripts/install-deps.sh" ] && command -v apt-get >/dev/null; then
  echo "installing missing packages quietly (at most 90 s)"
  within 90 "$ROOT/scripts/install-deps.sh" run >"$T/deps.log" 2>&1 || tail -3 "$T/deps.log"
fi
if have_deps; then
  result PASS "deps" "meson $(meson --version)"
else
  missing=()
  command -v meson >/dev/null || missing+=(meson)
  command -v ninja >/dev/null || missing+=(ninja)
  command -v curl >/dev/null || missing+=(curl)
  for p in "${run_pkgs[@]}"; do pkg-config --exists "$p" 2>/dev/null || missing+=("$p"); done
  result SKIP "cubed steps" "missing ${missing[*]} (no network to install?)"
  summary
  [ "$FAILED" -eq 0 ]
  exit
fi

step "build cubed with meson"
B="$T/build"
if within 60 meson setup "$B" "$ROOT" -Dtests=false --buildtype=debugoptimized >"$T/setup.log" 2>&1 \
   && within 150 ninja -C "$B" >"$T/ninja.log" 2>&1; then
  result PASS "meson build"
else
  tail -20 "$T/setup.log" "$T/ninja.log" 2>/dev/null || true
  result FAIL "meson build"
  summary
  exit 1
fi

step "start cubed with accel-nvidia"
mkdir -p "$T/run/conf.d"
PORT=$((20000 + RANDOM % 20000))
TOKEN="devcheck-$RANDOM$RANDOM"
cat >"$T/run/cube.yaml" <<EOF
listen: "127.0.0.1:$PORT"
data_dir: $T/run/var
database: sqlite
plugin_dir: $B/plugins
conf_dir: $T/run/conf.d
web_root: $ROOT/web/dist
EOF
cp "$ROOT/conf.d/15-accel-nvidia.yaml" "$T/run/conf.d/"
LOCAL=0
SANDBOX=0
if [ -f "$B/plugins/executor-local/cube-executor-local.so" ]; then
  LOCAL=1
  conf=""
  for c in "$ROOT"/conf.d/*-executor-local.yaml "$ROOT/plugins/executor-local/executor-local.yaml.example"; do
    if [ -f "$c" ]; then conf=$c; break; fi
  done
  if [ -n "$conf" ]; then
    cp "$conf" "$T/run/conf.d/20-executor-local.yaml"
  else
    printf 'plugin: executor-local\nenabled: true\n' >"$T/run/conf.d/20-executor-local.yaml"
  fi
  # With bubblewrap the Job's /dev holds only the nodes accel-nvidia pins
  if command -v bwrap >/dev/null && grep -q '^  sandbox: none' "$T/run/conf.d/20-executor-local.yaml"; then
    sed -i 's/^  sandbox: none/  sandbox: bubblewrap/' "$T/run/conf.d/20-executor-local.yaml"
    SANDBOX=1
  fi
fi
CUBE_ADMIN_TOKEN=$TOKEN "$B/core/cubed" -c "$T/run/cube.yaml" >"$T/cubed.log" 2>&1 &
CUBED_PID=$!
API="http://127.0.0.1:$PORT"
ready=0
for _ in $(seq 1 40); do
  if curl -fsS -m 2 "$API/healthz" >/dev/null 2>&1; then ready=1; break; fi
  kill -0 "$CUBED_PID" 2>/dev/null || break
  sleep 0.5
done
grep -v '\[access\]' "$T/cubed.log" | grep -iE 'plugin|error|nvml|nvidia|ready' | head -20 || true
if [ "$ready" -eq 1 ] && grep -q 'accel-nvidia\] NVML (.*): [1-9][0-9]* NVIDIA GPU' "$T/cubed.log"; then
  result PASS "cubed" "accel-nvidia loaded and found GPUs"
else
  result FAIL "cubed" "not ready in 20 s, or no NVML line from accel-nvidia"
  summary
  exit 1
fi

step "a 1-GPU Job"
curl -fsS -m 5 "$API/api/v1/openapi.json" -o "$T/openapi.json" || true
if [ "$LOCAL" -eq 0 ] || ! grep -q '/jobs' "$T/openapi.json" 2>/dev/null; then
  result SKIP "job" "executor-local or the Job kind is not in this tree"
  summary
  [ "$FAILED" -eq 0 ]
  exit
fi
auth=(-H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json")
curl -sS -m 5 "${auth[@]}" -X POST "$API/api/v1/projects" \
  -d '{"kind":"Project","metadata":{"name":"gpucheck"},"spec":{}}' >/dev/null || true
# shellcheck disable=SC2016  # $CUDA_VISIBLE_DEVICES expands in the Job's shell
job='{"kind":"Job","metadata":{"name":"nvsmi","project":"gpucheck"},"spec":{"replicas":1,
  "resources":{"cpu":"1","memory":"1Gi","nvidia.com/gpu":1},
  "command":["sh","-c","nvidia-smi -L; echo CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES; echo DEV $(ls /dev | grep nvidia | tr \"\\n\" \" \")"]}}'
curl -sS -m 5 "${auth[@]}" -X POST "$API/api/v1/projects/gpucheck/jobs" -d "$job" | head -c 400
echo
phase=""
for _ in $(seq 1 120); do
  phase=$(curl -sS -m 5 "${auth[@]}" "$API/api/v1/projects/gpucheck/jobs/nvsmi" \
    | grep -o '"phase":"[A-Za-z]*"' | head -1 | cut -d'"' -f4) || true
  case "$phase" in Succeeded|Failed|Cancelled) break ;; esac
  sleep 0.5
done
curl -sS -m 5 "${auth[@]}" "$API/api/v1/projects/gpucheck/jobs/nvsmi" | grep -o '"status":.*' | head -c 800
echo
echo "--- job log"
curl -sS -m 5 "${auth[@]}" "$API/api/v1/projects/gpucheck/jobs/nvsmi/logs?replica=0" \
  | tee "$T/job.log" || true
echo "---"
if [ "$phase" = Succeeded ] && grep -q '^GPU 0:' "$T/job.log" \
   && grep -q '^CUDA_VISIBLE_DEVICES=GPU-' "$T/job.log" \
   && { [ "$SANDBOX" -eq 0 ] || grep -q '^DEV .*nvidiactl' "$T/job.log"; }; then
  result PASS "job" "phase Succeeded; nvidia-smi saw its GPU; pinned by UUID$([ "$SANDBOX" -eq 1 ] && echo "; sandboxed, its /dev: $(grep '^DEV' "$T/job.log" | cut -c5-)")"
else
  result FAIL "job" "phase '${phase:-none}' or the log lacks 'GPU 0:' / CUDA_VISIBLE_DEVICES=GPU-"
fi
summary
[ "$FAILED" -eq 0 ]
