#!/bin/sh
# WSL2's GPUs counted through NVML, end to end: build/xpuinit and build/xpud on a copy of the
# wsl-nvidia fixture host (/dev/dxg 10:124 made by the test) whose /usr/lib/wsl/lib/libnvidia-ml.so.1
# is the fake NVML (tests/shims), answering two GPUs from the state file beside it (as in the
# isolated helper, whose environment holds only PATH):
#   - `probe --source nvml` loads the unversioned library from /usr/lib/wsl/lib (no kernel module to
#     check it against), before an unloadable libnvidia-ml.so.1 in the standard /usr/lib, and
#     `probe --source procfs,nvml --json` lists two GPUs in place of the driver store's one entry:
#     bus ids, UUIDs, names, memory, compute capability, /dev/dxg each, count_known true, source
#     nvml, the driver version NVML's;
#   - requirements: cuda>=12 passes, cuda>=99 exits 125 naming both versions;
#   - selection: NVIDIA_VISIBLE_DEVICES=<uuid of GPU 1> selects GPU 1 alone (no --source: the start
#     reads NVML because the selection names a GPU), and an index beyond the two is refused (125);
#   - xpud: /v1/devices shows both GPUs with readings and health "healthy", /metrics their
#     temperature and power, labelled with their UUIDs;
#   - NVML failing (the fixture's empty placeholder library): the driver store's entry stays
#     (count_known false) and a warning names the library and why it did not load; a cuda>=12
#     requirement then exits 125 saying why the version is unknown;
#   - the CUDA driver API instead (the fake libcuda as /usr/lib/wsl/lib/libcuda.so.1, NVML still not
#     loadable): the GPUs in place of the entry in PCI bus order, though CUDA lists them fastest
#     first, and cuda>=12 passes.
# Needs root (the helper switches to nobody; mknod), curl and jq. Prints TAP.

# SC2317: the helpers below are called through the EXIT trap.
# shellcheck disable=SC2317
# shellcheck source=tests/e2e/lib.sh
. "${XPU_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/e2e/lib.sh"

SRC=${XPU_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${XPU_BUILD:-$SRC/build}
XPUINIT="$BUILD/xpuinit"
XPUD="$BUILD/xpud"
SHIM="$BUILD/tests/shims/libnvidia-ml.so.shim"
SHIM_CUDA="$BUILD/tests/shims/libcuda.so.shim"
FIXTURE="$SRC/tests/fixtures/hosts/wsl-nvidia"
NV_STORE=/usr/lib/wsl/drivers/nv_dispsi.inf_amd64_7cc7738d8e428783
UUID0=GPU-5a1e3c2b-0000-4000-8000-000000000001
UUID1=GPU-5a1e3c2b-0000-4000-8000-000000000002
T=
XPID=

cleanup() {
        [ -n "$XPID" ] && kill -KILL "$XPID" 2>/dev/null
        [ -n "$T" ] && rm -rf "$T"
}

[ "$(id -u)" -eq 0 ] || bail "WSL2 NVML tests must run as root (the NVML helper switches to nobody; mknod)"
need_tools curl jq timeout
for b in "$XPUINIT" "$XPUD"; do
        [ -x "$b" ] || bail "$b is missing (make build-tests)"
done
for f in "$SHIM" "$SHIM_CUDA"; do
        [ -f "$f" ] || bail "$f is missing (make build-tests)"
done
[ -d "$FIXTURE" ] || bail "fixture host $FIXTURE is missing"
T=$(mktemp -d /tmp/xpu-wsl-nvml.XXXXXX) || bail "mktemp failed"
trap cleanup EXIT
trap 'exit 130' INT TERM
chmod 0755 "$T"

# host NAME: a copy of the fixture in $T/NAME with its /dev/dxg made; its path in $HOST.
host() {
        HOST=$T/$1
        mkdir -p "$HOST" || bail "cannot create $HOST"
        cp -R "$FIXTURE/." "$HOST/" || bail "cannot copy $FIXTURE"
        e2e_dev_root "$FIXTURE" "$HOST"
        [ -c "$HOST/dev/dxg" ] || bail "no /dev/dxg made under $HOST"
}

# xi ARGS...: xpuinit on $HOST (sys, dev and driver root), stdout in $T/out, stderr in $T/err; RC.
xi() {
        timeout -k 5 30 "$XPUINIT" --sys-root "$HOST" --dev-root "$HOST" --driver-root "$HOST" "$@" \
                >"$T/out" 2>"$T/err"
        RC=$?
}

# ---- the host: two GPUs behind the driver store ---------------------------------------------------
host nv
cp "$SHIM" "$HOST/usr/lib/wsl/lib/libnvidia-ml.so.1" || bail "cannot place the fake NVML"
cat >"$HOST/usr/lib/wsl/lib/xpu-fake-state" <<EOF
driver_version 581.57
cuda_version 12080
device_count 2
device.0.uuid $UUID0
device.0.name NVIDIA GeForce RTX 4090
device.0.bus_id 0000:01:00.0
device.0.memory_total 25757220864
device.0.cc 8.9
device.0.temperature 47
device.0.power_usage_mw 71234
device.0.power_limit_mw 450000
device.1.uuid $UUID1
device.1.name NVIDIA RTX A2000 12GB
device.1.bus_id 0000:0a:00.0
device.1.memory_total 12884901888
device.1.cc 8.6
device.1.temperature 39
device.1.power_usage_mw 15000
device.1.power_limit_mw 70000
EOF
# An image's own libnvidia-ml.so.1 in a standard folder (here one that cannot load) is not the
# Windows driver's: on WSL2 /usr/lib/wsl/lib comes first.
: >"$HOST/usr/lib/libnvidia-ml.so.1"
chmod -R a+rX "$HOST"

# ---- probe ---------------------------------------------------------------------------------------
xi probe --source nvml --json
is "$RC" 0 "probe --source nvml: exit 0"
is "$(jq -r '.library' "$T/out")" /usr/lib/wsl/lib/libnvidia-ml.so.1 \
        "probe --source nvml: the library is WSL's /usr/lib/wsl/lib/libnvidia-ml.so.1 (first; no version to check)"
is "$(jq -r '[.devices[] | "\(.pci_bus_id) \(.uuid)"] | join(",")' "$T/out")" \
        "0000:01:00.0 $UUID0,0000:0a:00.0 $UUID1" "probe --source nvml: NVML's two GPUs, bus ids and UUIDs"

xi probe --source procfs,nvml --json
is "$RC" 0 "probe --source procfs,nvml: exit 0"
is "$(jq -r '.host.platform' "$T/out")" wsl "merged: platform wsl"
is "$(jq -r '[.devices[] | "\(.index) \(.vendor_index) \(.pci_bus_id) \(.uuid) \(.source) \(.count_known)"] | join(",")' "$T/out")" \
        "0 0 0000:01:00.0 $UUID0 nvml true,1 1 0000:0a:00.0 $UUID1 nvml true" \
        "merged: two GPUs in place of the driver store's entry, counted, in NVML's order"
is "$(jq -r '[.devices[] | "\(.name)|\(.memory_total_bytes)|\(.compute_capability)|\(.device_nodes | join(" "))"] | join(",")' "$T/out")" \
        "NVIDIA GeForce RTX 4090|25757220864|8.9|/dev/dxg,NVIDIA RTX A2000 12GB|12884901888|8.6|/dev/dxg" \
        "merged: names, memory and compute capability as NVML gives them; /dev/dxg each"
is "$(jq -r '.host.vendors.nvidia | "\(.driver_version) \(.cuda_driver_version) \(.wsl_driver_store)"' "$T/out")" \
        "581.57 12.8 $NV_STORE" "merged: the driver version and CUDA version are NVML's; the driver store kept"
is "$(jq -r '.warnings | length' "$T/out")" 0 "merged: no warning"

# ---- requirements --------------------------------------------------------------------------------
xi --require 'cuda>=12' plan -- true
is "$RC" 0 "cuda>=12: passes (NVML's CUDA 12.8)"
[ "$RC" -eq 0 ] || diag_file "$T/err"
xi --require 'cuda>=99' plan -- true
is "$RC" 125 "cuda>=99: exit 125"
like "$T/err" 'cuda>=99 but host has CUDA driver 12\.8 \(driver 581\.57\)' "cuda>=99: both versions named"

# ---- selection -----------------------------------------------------------------------------------
NVIDIA_VISIBLE_DEVICES=$UUID1 xi plan --json -- true
is "$RC" 0 "NVIDIA_VISIBLE_DEVICES=<uuid>: plan exits 0 (NVML read for the selection)"
is "$(jq -r '[.devices[] | "\(.index) \(.uuid)"] | join(",")' "$T/out")" "1 $UUID1" \
        "NVIDIA_VISIBLE_DEVICES=<uuid>: GPU 1 alone"
is "$(jq -r '.env.CUDA_VISIBLE_DEVICES' "$T/out")" "$UUID1" "NVIDIA_VISIBLE_DEVICES=<uuid>: CUDA_VISIBLE_DEVICES its UUID"
NVIDIA_VISIBLE_DEVICES=0,1 xi plan --json -- true
is "$(jq -r '[.devices[].index] | join(",")' "$T/out")" "0,1" "NVIDIA_VISIBLE_DEVICES=0,1: both GPUs"
NVIDIA_VISIBLE_DEVICES=2 xi plan -- true
is "$RC" 125 "NVIDIA_VISIBLE_DEVICES=2: no third GPU, exit 125"

# ---- xpud ----------------------------------------------------------------------------------------
SOCK="$T/xpud.sock"
"$XPUD" --socket "$SOCK" --sys-root "$HOST" --dev-root "$HOST" --driver-root "$HOST" --interval 1 \
        2>"$T/xpud.log" &
XPID=$!
i=0
until [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 --unix-socket "$SOCK" http://xpud/readyz 2>/dev/null)" = 200 ] ||
        [ "$i" -ge 150 ]; do
        sleep 0.1
        i=$((i + 1))
done
curl -s --max-time 10 --unix-socket "$SOCK" http://xpud/v1/devices >"$T/devices.json"
curl -s --max-time 10 --unix-socket "$SOCK" http://xpud/metrics >"$T/metrics"
is "$(jq -r '[.devices[] | "\(.uuid) \(.health.state)"] | join(",")' "$T/devices.json")" \
        "$UUID0 healthy,$UUID1 healthy" "xpud /v1/devices: both GPUs, health healthy (not unknown)"
is "$(jq -r '[.devices[] | .readings.temperature_celsius.gpu] | join(",")' "$T/devices.json")" "47,39" \
        "xpud /v1/devices: NVML's temperatures"
like "$T/metrics" "^xpu_temperature_celsius\\{[^}]*uuid=\"$UUID1\"[^}]*\\} 39\$" \
        "xpud /metrics: GPU 1's temperature under its UUID"
like "$T/metrics" "^xpu_power_watts\\{[^}]*uuid=\"$UUID0\"[^}]*\\} 71\\.234\$" \
        "xpud /metrics: GPU 0's power"
if ! jq -e '.devices | length == 2' "$T/devices.json" >/dev/null 2>&1; then
        diag_file "$T/xpud.log"
fi
# NVML fails while xpud runs: the backend is down, and the two GPUs stay with their last readings,
# stale, not lost, and no driver store entry comes back beside them.
printf 'error.nvmlDeviceGetCount_v2 999\n' >>"$HOST/usr/lib/wsl/lib/xpu-fake-state"
i=0
until grep -q '^xpud_backend_up{backend="nvml"} 0$' "$T/metrics" || [ "$i" -ge 100 ]; do
        sleep 0.1
        curl -s --max-time 10 --unix-socket "$SOCK" http://xpud/metrics >"$T/metrics"
        i=$((i + 1))
done
curl -s --max-time 10 --unix-socket "$SOCK" http://xpud/v1/devices >"$T/devices.json"
like "$T/metrics" '^xpud_backend_up\{backend="nvml"\} 0$' "xpud, NVML failing: backend nvml down"
is "$(jq -r '[.devices[] | "\(.uuid) \(.stale) \(.lost) \(.readings.temperature_celsius.gpu)"] | join(",")' "$T/devices.json")" \
        "$UUID0 true false 47,$UUID1 true false 39" \
        "xpud, NVML failing: the two GPUs kept with their last readings, stale, not lost"
kill -TERM "$XPID" 2>/dev/null
wait "$XPID" 2>/dev/null
XPID=

# ---- NVML failing --------------------------------------------------------------------------------
# The fixture as captured: /usr/lib/wsl/lib/libnvidia-ml.so.1 an empty placeholder.
host broken
chmod -R a+rX "$HOST"
xi probe --source procfs,nvml --json
is "$RC" 0 "NVML failing: probe exits 0"
is "$(jq -r '[.devices[] | "\(.source) \(.count_known)"] | join(",")' "$T/out")" "wsl false" \
        "NVML failing: the driver store's one entry stays, count unknown"
like "$T/err" 'nvml: cannot load /usr/lib/wsl/lib/libnvidia-ml\.so\.1: .*; keeping the fast-path inventory' \
        "NVML failing: the warning names the library and why"
xi --require 'cuda>=12' plan -- true
is "$RC" 125 "NVML failing: cuda>=12 exits 125"
like "$T/err" 'host CUDA driver version unknown \(nvml: cannot load /usr/lib/wsl/lib/libnvidia-ml\.so\.1' \
        "NVML failing: the requirement's error says why the version is unknown"

# ---- the CUDA driver API when NVML cannot answer ---------------------------------------------------
# NVML still the empty placeholder; /usr/lib/wsl/lib/libcuda.so.1 the fake libcuda, listing the
# two GPUs fastest first (GPU 1 first): the entry becomes them, in PCI bus order.
cp "$SHIM_CUDA" "$HOST/usr/lib/wsl/lib/libcuda.so.1" || bail "cannot place the fake libcuda"
{
        printf 'cuda_version 12080\ndevice_count 2\ncuda_order 1,0\n'
        printf 'device.0.uuid %s\ndevice.0.bus_id 0000:01:00.0\ndevice.0.name NVIDIA GeForce RTX 4090\n' "$UUID0"
        printf 'device.1.uuid %s\ndevice.1.bus_id 0000:0a:00.0\ndevice.1.name NVIDIA RTX A2000 12GB\n' "$UUID1"
} >"$HOST/usr/lib/wsl/lib/xpu-fake-state"
chmod -R a+rX "$HOST"
xi probe --source procfs,cuda --json
is "$RC" 0 "CUDA: probe --source procfs,cuda exits 0"
is "$(jq -r '[.devices[] | "\(.index) \(.pci_bus_id) \(.uuid) \(.source) \(.count_known)"] | join(",")' "$T/out")" \
        "0 0000:01:00.0 $UUID0 cuda true,1 0000:0a:00.0 $UUID1 cuda true" \
        "CUDA: the two GPUs in place of the entry, in PCI bus order (not CUDA's fastest-first order)"
xi --require 'cuda>=12' plan -- true
is "$RC" 0 "CUDA: cuda>=12 passes through libcuda when NVML cannot load"
e2e_done
