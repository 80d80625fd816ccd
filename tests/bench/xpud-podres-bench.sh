#!/bin/sh
# xpud's footprint with the pod-resources client (design budget: RSS ≤ 10 MiB on an 8-GPU host with
# 100 pods), run by tests/bench/xpud-bench.sh (`make bench`) or by hand:
#
#   tests/bench/xpud-podres-bench.sh [BUILD_DIR]
#
# The 8-GPU AMD tree of tests/rocm/mkamdsys.sh; the fake kubelet (tests/e2e/fake-kubelet.py, a real
# gRPC server) answering 100 pods: 8 of them hold one GPU each by PCI bus id (amd.com/gpu), 92 hold
# other devices (example.com/nic, two containers each) as on a busy node; xpud --interval 1 asks it
# once per sample. After XPUD_PODRES_BENCH_SAMPLES samples (default 30): xpud's VmRSS and VmHWM,
# the same xpud with --pod-resources none for comparison, the List calls against the samples, and
# /metrics still holding the 8 xpu_workload_info series. The last line of the output is the
# verdict row of docs/performance.md ("| what | target | result | PASS |"), which xpud-bench.sh
# takes. Needs root (installs python3-grpcio python3-grpc-tools through packaging/install-deps.sh
# when missing). Exit status 0 (the verdict says PASS or FAIL), 2 when it could not run.
set -eu
BUILD=${1:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
SAMPLES=${XPUD_PODRES_BENCH_SAMPLES:-30}
RSS_TARGET_KIB=10240
XPUD=$top/$BUILD/xpud

die() {
        echo "xpud-podres-bench: $*" >&2
        exit 2
}

[ "$(id -u)" -eq 0 ] || die "needs root (package installation)"
[ -x "$XPUD" ] || die "$XPUD missing (make BUILD=$BUILD)"
XPU_EXTRA_PKGS="python3-grpcio python3-grpc-tools" sh packaging/install-deps.sh >/dev/null ||
        die "cannot install python3-grpcio python3-grpc-tools"
for tool in curl jq; do
        command -v "$tool" >/dev/null 2>&1 || die "$tool is not installed"
done

T=$(mktemp -d /tmp/xpud-podres-bench.XXXXXX) || die "mktemp failed"
XPID=
KPID=
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
        for p in $XPID $KPID; do
                kill -TERM "$p" 2>/dev/null || true
                wait "$p" 2>/dev/null || true
        done
        rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

status_kib() {
        awk -v k="$2:" '$1 == k { print $2 }' /proc/"$1"/status
}
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

# start_xpud ARGS...: xpud on the tree; XPID. Dies unless it is ready within 15 s.
start_xpud() {
        setsid "$XPUD" --socket "$T/xpud.sock" --sys-root "$T/amd" --dev-root "$T/amd" --driver-root "$T/amd" \
                --interval 1 --kmsg none "$@" 2>"$T/xpud.log" &
        XPID=$!
        i=0
        until [ "$(curl -s -o /dev/null -w '%{http_code}' --unix-socket "$T/xpud.sock" http://bench/readyz)" = 200 ]; do
                i=$((i + 1))
                [ $i -lt 150 ] || { cat "$T/xpud.log" >&2; die "xpud did not become ready"; }
                sleep 0.1
        done
}

# wait_samples N: until xpud's /v1/devices says N samples were taken.
wait_samples() {
        i=0
        while [ "$(curl -s --unix-socket "$T/xpud.sock" http://bench/v1/devices | jq .seq)" -lt "$1" ]; do
                i=$((i + 1))
                [ $i -lt $(($1 * 30)) ] || die "xpud took fewer than $1 samples"
                sleep 0.1
        done
}

stop_xpud() {
        kill -TERM "$XPID"
        wait "$XPID" || true
        XPID=
}

sh tests/rocm/mkamdsys.sh -o "$T/amd" -n 8 >/dev/null || die "mkamdsys.sh failed"

# The baseline: the same xpud without the client.
start_xpud --pod-resources none
wait_samples "$SAMPLES"
rss_none=$(status_kib "$XPID" VmRSS)
hwm_none=$(status_kib "$XPID" VmHWM)
curl -s --unix-socket "$T/xpud.sock" http://bench/v1/devices | jq -r '.devices[].pci_bus_id' >"$T/buses"
stop_xpud
[ "$(wc -l <"$T/buses")" -eq 8 ] || die "the tree does not have 8 GPUs"

# 100 pods: one GPU each for the first 8, NICs for the rest.
jq -R . "$T/buses" | jq -s '{pods: ([to_entries[] | {namespace: "ml", name: "gpu-\(.key)",
        containers: [{name: "main", devices: [{resource: "amd.com/gpu", ids: [.value]}]}]}] +
        [range(92) | {namespace: "web", name: "web-\(.)", containers: [
                {name: "app", devices: [{resource: "example.com/nic", ids: ["nic-\(.)-0", "nic-\(.)-1"]}], cpu_ids: [2, 3]},
                {name: "proxy", devices: [{resource: "example.com/nic", ids: ["nic-\(.)-2"]}]}]}])}' >"$T/state.json" ||
        die "cannot write the kubelet's state"
rm -f "$T/ready"
/usr/bin/python3 tests/e2e/fake-kubelet.py "$T/kubelet.sock" "$T/state.json" --calls "$T/calls" --ready "$T/ready" \
        >/dev/null 2>"$T/kubelet.err" &
KPID=$!
i=0
until [ -f "$T/ready" ]; do
        i=$((i + 1))
        [ $i -lt 300 ] || { cat "$T/kubelet.err" >&2; die "the fake kubelet did not start"; }
        sleep 0.1
done

start_xpud --pod-resources "$T/kubelet.sock"
wait_samples "$SAMPLES"
rss=$(status_kib "$XPID" VmRSS)
hwm=$(status_kib "$XPID" VmHWM)
curl -s --unix-socket "$T/xpud.sock" http://bench/metrics >"$T/metrics"
seq=$(curl -s --unix-socket "$T/xpud.sock" http://bench/v1/devices | jq .seq)
calls=$(grep -c '^List' "$T/calls" || true)
infos=$(grep -c '^xpu_workload_info{' "$T/metrics" || true)
up=$(sed -n 's/^xpud_pod_resources_up //p' "$T/metrics")
stop_xpud

v=PASS
[ "$rss" -le "$RSS_TARGET_KIB" ] || v=FAIL
[ "$infos" -eq 8 ] && [ "$up" = 1 ] && [ "$calls" -le "$seq" ] || v=FAIL
echo "xpud with the pod-resources client, 8 GPUs, 100 pods, $seq samples: VmRSS $(mib "$rss") MiB (peak $(mib "$hwm") MiB);"
echo "  without the client: VmRSS $(mib "$rss_none") MiB (peak $(mib "$hwm_none") MiB); $calls List calls for $seq samples;"
echo "  $infos xpu_workload_info series, xpud_pod_resources_up $up: $v"
echo "| xpud VmRSS with the pod-resources client, 8 GPUs, 100 pods | ≤ 10 MiB | $(mib "$rss") MiB (peak $(mib "$hwm") MiB; $(mib "$rss_none") MiB without the client; $calls List calls in $seq samples) | $v |"
