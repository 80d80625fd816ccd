#!/bin/sh
# `make demo`: probe this machine, then start a sample workload through xpuinit inside a real
# runc container three times: against this machine, a bundled NVIDIA example host
# (tests/fixtures/hosts/nvidia-rtx2080ti-x8, with fake libcuda/libnvidia-ml in its driver root)
# and a bundled AMD example host (tests/fixtures/hosts/amd-mi210x8). Prints the chosen profile,
# what was injected and what the workload saw. Leaves nothing mounted or running.
#   examples/demo.sh BUILD_DIR
set -u
BUILD=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
case $BUILD in
/*) XPU_BUILD=$BUILD ;;
*) XPU_BUILD="$top/$BUILD" ;;
esac
XPU_SRCDIR=$top
export XPU_BUILD XPU_SRCDIR

# The end-to-end harness builds rootfs, bundles and driver roots; its TAP lines are not shown.
# shellcheck source=../tests/e2e/lib.sh
. "$top/tests/e2e/lib.sh" >/dev/null
e2e_init

section() {
        printf '\n==== %s\n' "$*"
}

# show_run TITLE: what xpuinit said (its -v lines) and what the workload reported.
show_run() {
        printf -- '-- xpuinit (stderr):\n'
        sed 's/^/   /' "$E2E_ERR"
        printf -- '-- workload (stdout), exit status %s:\n' "$E2E_RC"
        grep -E '^(pid|ppid|groups|env\.(CUDA_VISIBLE_DEVICES|CUDA_DEVICE_ORDER|ROCR_VISIBLE_DEVICES|LD_LIBRARY_PATH)|cuda\.(path|count|driver_version)|nvml\.(count|driver_version)|node\.[^=]*|dir\./run/xpuinit/lib)=' \
                "$E2E_OUT" | sed 's/^/   /'
        if [ "$E2E_RC" -ne 0 ]; then
                printf 'demo: the container exited with %s\n' "$E2E_RC" >&2
                demo_failed=1
        fi
}

demo_failed=0

section "1. xpuinit probe on this machine"
"$XPU_BUILD/xpuinit" probe

section "2. this machine, in a runc container: xpuinit -v -- /workload"
e2e_bundle local
e2e_args "$E2E_BUNDLE" /usr/bin/xpuinit -v -- /workload --list-dir /run/xpuinit/lib
e2e_run "$E2E_BUNDLE"
show_run

section "3. bundled NVIDIA host (8 x GeForce RTX 2080 Ti, driver 465.19.01), fake driver libraries"
e2e_fixture nvidia-rtx2080ti-x8
nv=$E2E_FIXTURE
e2e_driver_root "$nv" "$E2E_TMP/driver"
e2e_bundle nvidia
e2e_mount_ro "$E2E_BUNDLE" "$nv" /xpu/host
e2e_mount_ro "$E2E_BUNDLE" "$E2E_TMP/driver" /xpu/driver
e2e_env "$E2E_BUNDLE" XPU_FAKE_STATE=/xpu/driver/xpu-fake-state
e2e_args "$E2E_BUNDLE" /usr/bin/xpuinit -v --sys-root /xpu/host --driver-root /xpu/driver -- \
        /workload --list-dir /run/xpuinit/lib --expect-cuda-count 8 --expect-nvml-count 8 \
        --expect-node /dev/nvidia0=195:0 --expect-node /dev/nvidia7=195:7 --expect-node /dev/nvidiactl=195:255
e2e_devices "$E2E_BUNDLE" "$nv"
e2e_run "$E2E_BUNDLE"
show_run

section "4. bundled AMD host (8 x Instinct MI210, KFD topology): /dev/kfd and render nodes owned by groups 105 and 44"
e2e_fixture amd-mi210x8
amd=$E2E_FIXTURE
e2e_bundle amd
e2e_mount_ro "$E2E_BUNDLE" "$amd" /xpu/host
e2e_args "$E2E_BUNDLE" /usr/bin/xpuinit -v --sys-root /xpu/host -- /workload --list-dir /run/xpuinit/lib \
        --expect-node /dev/kfd --expect-node /dev/dri/renderD128=226:128 --expect-group 105 --expect-group 44
e2e_devices "$E2E_BUNDLE" "$amd" "/dev/kfd=105 /dev/dri/*=44"
e2e_run "$E2E_BUNDLE"
show_run

section "done"
if [ "$demo_failed" -ne 0 ]; then
        echo "demo: a container failed (see above)"
        exit 1
fi
echo "demo: all three containers ran; nothing is left mounted or running (runc containers deleted, temp files removed)"
exit 0
