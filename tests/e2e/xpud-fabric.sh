#!/bin/sh
# xpud's fabric facts end to end, with the fake NVML on the nvidia-fabric-imex-rdma fixture host
# (2 H100, IMEX channels 0 and 1 under the dev root): GPU 0 registered with its NVLink fabric
# (nvmlDeviceGetGpuFabricInfoV: clique 4026, a cluster UUID, the health mask), GPU 1 still
# registering through the older nvmlDeviceGetGpuFabricInfo. /v1/devices carries readings.fabric
# and host.fabric.imex_channels, /metrics xpu_fabric_state, xpu_fabric_info,
# xpu_fabric_health_mask and xpu_fabric_channels, which promtool accepts; a channel made while
# xpud runs is counted at the next sample, entries that are not channel nodes never are. Needs root (the NVML helper switches to nobody), curl,
# jq and promtool. Prints TAP.

# shellcheck source=tests/e2e/lib.sh
. "${XPU_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/e2e/lib.sh"

SRC=${XPU_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
XPUD="${XPU_BUILD:-$SRC/build}/xpud"
FIXTURE="$SRC/tests/fixtures/hosts/nvidia-fabric-imex-rdma"
T=
XPID=

# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
        [ -n "$XPID" ] && kill -KILL "$XPID" 2>/dev/null
        [ -n "$T" ] && rm -rf "$T"
}

[ "$(id -u)" -eq 0 ] || bail "xpud fabric tests must run as root (the NVML helper switches to nobody)"
need_tools curl jq promtool timeout
[ -x "$XPUD" ] || bail "$XPUD is missing (make build-tests)"
T=$(mktemp -d /tmp/xpud-fabric.XXXXXX) || bail "mktemp failed"
trap cleanup EXIT
trap 'exit 130' INT TERM
chmod 0755 "$T"

HOST="$T/host"
sh "$SRC/tests/fixtures/mkdriverroot.sh" "$FIXTURE" "$HOST" "${XPU_BUILD:-$SRC/build}" >/dev/null ||
        bail "mkdriverroot.sh failed"
printf '%s\n' "device.0.fabric 3 0 4026 9c6f5af353bf49b5a436b66766c413c3 0" \
        "device.1.fabric 2 0 0 00000000000000000000000000000000" >>"$HOST/xpu-fake-state"
e2e_dev_root "$FIXTURE" "$T/devroot"

SOCK="$T/xpud.sock"
"$XPUD" --socket "$SOCK" --sys-root "$HOST" --dev-root "$T/devroot" --driver-root "$HOST" --interval 1 \
        2>"$T/xpud.log" &
XPID=$!
i=0
until [ "$(curl -s -o /dev/null -w '%{http_code}' --unix-socket "$SOCK" http://xpud/readyz)" = 200 ] || [ $i -ge 150 ]; do
        i=$((i + 1))
        sleep 0.1
done
curl -s --unix-socket "$SOCK" http://xpud/v1/devices >"$T/devices.json"
curl -s --unix-socket "$SOCK" http://xpud/metrics >"$T/metrics.prom"

is "$(jq -c '[.devices[] | .readings.fabric]' "$T/devices.json")" \
        '[{"state":"completed","status":0,"clique_id":4026,"cluster_uuid":"9c6f5af3-53bf-49b5-a436-b66766c413c3","health_mask":0},{"state":"in_progress"}]' \
        "/v1/devices: GPU 0 registered (clique, cluster, health mask), GPU 1 in progress"
is "$(jq -c '.host.fabric' "$T/devices.json")" '{"imex_channels":2,"imex_channels_truncated":false}' \
        "/v1/devices: the node's 2 IMEX channels, counted in full"
L0='vendor="nvidia",gpu="0",uuid="GPU-7163c4e1-5d86-4a8f-392e-fe8ab35c2ab2",pci_bus_id="0000:18:00.0"'
L1='vendor="nvidia",gpu="1",uuid="GPU-aa6e5b3d-2b6d-a5a4-4851-5046cf6c36fb",pci_bus_id="0000:2a:00.0"'
is "$(grep -F "xpu_fabric_state{$L0,state=\"completed\"}" "$T/metrics.prom")" \
        "xpu_fabric_state{$L0,state=\"completed\"} 1" "/metrics: GPU 0's fabric state is completed"
is "$(grep -F "xpu_fabric_state{$L1,state=\"in_progress\"}" "$T/metrics.prom")" \
        "xpu_fabric_state{$L1,state=\"in_progress\"} 1" "/metrics: GPU 1's is in_progress"
is "$(grep -c '^xpu_fabric_info{' "$T/metrics.prom")" 1 "/metrics: xpu_fabric_info for the registered GPU only"
like "$T/metrics.prom" "^xpu_fabric_info\\{$L0,clique_id=\"4026\",cluster_uuid=\"9c6f5af3-53bf-49b5-a436-b66766c413c3\",status=\"0\"\\} 1\$" \
        "/metrics: its clique, cluster and status"
is "$(grep -c '^xpu_fabric_health_mask{' "$T/metrics.prom")" 1 "/metrics: the health mask only where the V call answered"
is "$(grep '^xpu_fabric_channels' "$T/metrics.prom")" 'xpu_fabric_channels{set="imex"} 2' "/metrics: 2 IMEX channels"
promtool check metrics <"$T/metrics.prom" >"$T/promtool.out" 2>&1
is "$?:$(cat "$T/promtool.out")" "0:" "promtool check metrics accepts the body, with no lint line"

# A third channel: counted at a later sample; what is no channel node beside it never is (a FIFO, a
# directory, a symlink, a node of another major or whose minor is not its id, a name with no id).
C="$T/devroot/dev/nvidia-caps-imex-channels"
{ mkfifo "$C/channel7" && mkdir "$C/channel8" && ln -s channel0 "$C/channel9" && mknod "$C/channel10" c 1 10 &&
        mknod "$C/channel11" c 234 12 && mknod "$C/channel012" c 234 12 && mknod "$C/channelx" c 234 0; } ||
        bail "making the odd entries failed"
mknod -m 0666 "$C/channel2" c 234 2 || bail "mknod failed"
i=0
until [ "$(curl -s --unix-socket "$SOCK" http://xpud/v1/devices | jq -c '.host.fabric.imex_channels')" = 3 ] ||
        [ $i -ge 50 ]; do
        i=$((i + 1))
        sleep 0.1
done
is "$(curl -s --unix-socket "$SOCK" http://xpud/v1/devices | jq -c '.host.fabric.imex_channels')" 3 \
        "a channel made while xpud runs is counted at a later sample, and no entry that is not a channel node"
sleep 1.2 # one more sample: the odd entries are still not counted
is "$(curl -s --unix-socket "$SOCK" http://xpud/metrics | grep '^xpu_fabric_channels')" 'xpu_fabric_channels{set="imex"} 3' \
        "/metrics: 3 IMEX channels"
kill -TERM "$XPID"
wait "$XPID"
is "$?" 0 "xpud exits 0 on SIGTERM"
XPID=
e2e_done
