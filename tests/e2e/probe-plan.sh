#!/bin/sh
# xpuinit's probe and plan on fixture hosts, run as a program outside any container: the
# end-to-end test of the probe and the planner that make check-arm64 runs under qemu-aarch64
# (XPU_TEST_EXEC), and the plain passes natively. `probe --json` counts the GPUs of an AMD, an
# Intel and an NVIDIA capture and names their first PCI address; `plan --json` on the NVIDIA one,
# with a driver root whose libraries lie in the multiarch directory of the programs' architecture
# (/usr/lib/x86_64-linux-gnu or /usr/lib/aarch64-linux-gnu, read from xpuinit's ELF header) and a
# decoy copy in the other one, picks nvidia-cuda for all 8 GPUs and binds the libraries from the
# right directory only. The Grace Hopper host (nvidia-gh200): its probe (memory NUMA node, PCI domain
# 9, the aarch64 version line) and its nvidia-cuda plan. Needs root (mknod for the dev root) and
# jq. Prints TAP.

# shellcheck source=tests/e2e/lib.sh
. "${XPU_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/e2e/lib.sh"

XPUINIT="${XPU_BUILD:-}/xpuinit"
HOSTS="$XPU_SRCDIR/tests/fixtures/hosts"
[ "$(id -u)" -eq 0 ] || bail "probe-plan needs root (device nodes for the dev root)"
need_tools jq od
[ -x "$XPUINIT" ] || bail "$XPUINIT is missing (make)"
for f in libcuda.so.shim libnvidia-ml.so.shim; do
        [ -f "$XPU_BUILD/tests/shims/$f" ] || bail "$XPU_BUILD/tests/shims/$f is missing (make build-tests)"
done
T=$(mktemp -d) || bail "mktemp failed"
trap 'rm -rf "$T"' EXIT
chmod 0755 "$T"

# The build's architecture: e_machine, the 16-bit field at offset 18 of the ELF header.
machine=$(od -An -tu2 -j18 -N2 "$XPUINIT" | tr -d ' ')
case $machine in
62) triplet=x86_64-linux-gnu other=aarch64-linux-gnu ;;
183) triplet=aarch64-linux-gnu other=x86_64-linux-gnu ;;
*) bail "$XPUINIT: ELF machine $machine is neither x86-64 (62) nor AArch64 (183)" ;;
esac

# xpuinit ARG...: the build's xpuinit through XPU_TEST_EXEC, bounded.
xpuinit() {
        # shellcheck disable=SC2086 # XPU_TEST_EXEC is a command with its arguments
        timeout -k 5 60 ${XPU_TEST_EXEC:-} "$XPUINIT" "$@"
}

# probe HOST COUNT VENDOR BUS_ID: the fast path on HOST's capture.
probe() {
        xpuinit probe --json --sys-root "$HOSTS/$1" --dev-root "$HOSTS/$1" >"$T/$1.json" 2>"$T/$1.err"
        is "$?" 0 "probe $1 exits 0"
        is "$(jq -c '[(.devices | length), ([.devices[].vendor] | unique), .devices[0].pci_bus_id]' "$T/$1.json" 2>&1)" \
                "[$2,[\"$3\"],\"$4\"]" "probe $1: $2 $3 GPUs, the first at $4"
}
probe amd-mi210x8 8 amd 0000:63:00.0
probe intel-max1550-x6-aurora 6 intel 0000:18:00.0
probe nvidia-rtx2080ti-x8 8 nvidia 0000:1a:00.0

# The plan on the NVIDIA host: its driver files under the build's triplet, a decoy set under the
# other (never to be taken: another architecture's libraries cannot load here).
nv=nvidia-rtx2080ti-x8
e2e_driver_root "$HOSTS/$nv" "$T/root"
for d in "$T/root/usr/lib/"*-linux-gnu; do
        [ "$d" = "$T/root/usr/lib/$triplet" ] || mv "$d" "$T/root/usr/lib/$triplet" || bail "cannot move $d"
done
cp -a "$T/root/usr/lib/$triplet" "$T/root/usr/lib/$other" || bail "cannot copy the decoy libraries"
sh "$XPU_SRCDIR/tests/fixtures/mkdevroot.sh" "$HOSTS/$nv" "$T/dev" >/dev/null || bail "mkdevroot.sh failed"
chmod -R a+rX "$T"
NVIDIA_VISIBLE_DEVICES=all xpuinit plan --json --sys-root "$T/root" --dev-root "$T/dev" --driver-root "$T/root" \
        -- /bin/true >"$T/plan.json" 2>"$T/plan.err"
rc=$?
is "$rc" 0 "plan on $nv exits 0"
[ "$rc" -eq 0 ] || diag_file "$T/plan.err"
is "$(jq -c '[.profile, (.devices | length)]' "$T/plan.json" 2>&1)" '["nvidia-cuda",8]' "plan: nvidia-cuda, 8 GPUs"
is "$(jq -r '[.operations[] | select(.op == "bind" and (.path | endswith("/libnvidia-ml.so.465.19.01")))
        | .source] | join(" ")' "$T/plan.json" 2>&1)" "/usr/lib/$triplet/libnvidia-ml.so.465.19.01" \
        "plan: NVML bound from /usr/lib/$triplet"
is "$(jq -r '[.operations[] | select(.op == "bind" and (.path | endswith("/libcuda.so.465.19.01"))) | .source]
        | join(" ")' "$T/plan.json" 2>&1)" "/usr/lib/$triplet/libcuda.so.465.19.01" "plan: libcuda bound from /usr/lib/$triplet"
is "$(jq -r --arg o "/usr/lib/$other/" '[.operations[] | .source // empty | select(startswith($o))] | length' \
        "$T/plan.json" 2>&1)" 0 "plan: nothing from the other architecture's /usr/lib/$other"
# Grace Hopper (nvidia-gh200): the aarch64 open-module version line, a GPU at PCI domain 9, its
# memory on NUMA node 1 (a node without CPUs), coherent.
gh=nvidia-gh200
probe "$gh" 1 nvidia 0009:01:00.0
is "$(jq -c '.devices[0] | [.memory_numa_node, .memory_numa_node_source, .memory_coherent, .numa_node, .minor]' \
        "$T/$gh.json" 2>&1)" '[1,"sysfs",true,0,0]' "probe $gh: memory on NUMA node 1 (sysfs), coherent; the PCI node 0"
is "$(jq -r '[.host.vendors.nvidia.driver_version, .host.vendors.nvidia.kernel_module] | join(" ")' "$T/$gh.json" 2>&1)" \
        "570.124.06 open" "probe $gh: driver 570.124.06 from the aarch64 open-module line"
is "$(jq -c '.warnings' "$T/$gh.json" 2>&1)" '[]' "probe $gh: no warnings"

# Its plan: the libraries are under /usr/lib/aarch64-linux-gnu as on a real GH200, which the arm64
# build finds where they are (make check-arm64); an x86-64 build searches its own triplet, so
# there they move (the rule is the same: the build's directory only).
e2e_driver_root "$HOSTS/$gh" "$T/ghroot"
if [ "$triplet" != aarch64-linux-gnu ]; then
        mv "$T/ghroot/usr/lib/aarch64-linux-gnu" "$T/ghroot/usr/lib/$triplet" || bail "cannot move the GH200 libraries"
fi
sh "$XPU_SRCDIR/tests/fixtures/mkdevroot.sh" "$HOSTS/$gh" "$T/ghdev" >/dev/null || bail "mkdevroot.sh failed"
chmod -R a+rX "$T"
NVIDIA_VISIBLE_DEVICES=all xpuinit plan --json --sys-root "$T/ghroot" --dev-root "$T/ghdev" --driver-root "$T/ghroot" \
        -- /bin/true >"$T/ghplan.json" 2>"$T/ghplan.err"
rc=$?
is "$rc" 0 "plan on $gh exits 0"
[ "$rc" -eq 0 ] || diag_file "$T/ghplan.err"
is "$(jq -c '[.profile, (.devices | length), .driver_version]' "$T/ghplan.json" 2>&1)" '["nvidia-cuda",1,"570.124.06"]' \
        "plan $gh: nvidia-cuda, 1 GPU, driver 570.124.06"
for lib in libnvidia-ml libcuda libnvidia-ptxjitcompiler libnvidia-nvvm; do
        is "$(jq -r --arg l "/$lib.so.570.124.06" '[.operations[] | select(.op == "bind" and (.path | endswith($l)))
                | .source] | join(" ")' "$T/ghplan.json" 2>&1)" "/usr/lib/$triplet/$lib.so.570.124.06" \
                "plan $gh: $lib bound from /usr/lib/$triplet"
done
is "$(jq -r '[.operations[] | select(.op == "check-device-node") | .path] | sort | join(" ")' "$T/ghplan.json" 2>&1)" \
        "/dev/nvidia-modeset /dev/nvidia-uvm /dev/nvidia-uvm-tools /dev/nvidia0 /dev/nvidiactl" \
        "plan $gh: the GPU's node, nvidiactl, nvidia-modeset and uvm"
is "$(jq -r '.env.CUDA_VISIBLE_DEVICES // empty' "$T/ghplan.json" 2>&1)" "GPU-7c1e2d3a-9b4f-4e21-a6d8-3f5b0c9e7a12" \
        "plan $gh: CUDA_VISIBLE_DEVICES names the GH200 by UUID"
e2e_done
