#!/bin/sh
# End to end, Grace Hopper: xpuinit is the process of a runc container on the nvidia-gh200 fixture
# host (one GH200 at PCI domain 9, 0009:01:00.0, driver 570.124.06 from the aarch64 open-module
# version line; fake libcuda/libnvidia-ml in a read-only driver root). The workload proves from
# inside that it got exactly the GPU's node, nvidiactl, nvidia-uvm and nvidia-modeset, the
# running driver's compute libraries through the loader, and CUDA_VISIBLE_DEVICES naming the GH200;
# nothing of another GPU and no graphics library. The fixture keeps its libraries under
# /usr/lib/aarch64-linux-gnu, where an arm64 build finds them; an x86-64 build searches only its
# own multiarch directory (a library of another architecture cannot load), so there they move.
. "$(dirname "$0")/lib.sh"
e2e_init

e2e_fixture nvidia-gh200
fx=$E2E_FIXTURE
e2e_driver_root "$fx" "$E2E_TMP/driver"
ver=$(e2e_nvidia_version "$fx")
uuid=$(e2e_nvidia_uuids "$fx")
is "$ver" 570.124.06 "fixture: driver 570.124.06"
is "$uuid" GPU-7c1e2d3a-9b4f-4e21-a6d8-3f5b0c9e7a12 "fixture: the GH200's UUID"
is "$E2E_GPUS" 1 "fixture: one GPU"
uvm=$(e2e_proc_major "$fx" nvidia-uvm)
is "$uvm" 505 "fixture: nvidia-uvm major 505"

# The build's multiarch directory: e_machine, the 16-bit field at offset 18 of xpuinit's ELF header.
case $(od -An -tu2 -j18 -N2 "$XPU_BUILD/xpuinit" | tr -d ' ') in
62) triplet=x86_64-linux-gnu ;;
183) triplet=aarch64-linux-gnu ;;
*) bail "$XPU_BUILD/xpuinit is neither x86-64 nor AArch64" ;;
esac
if [ "$triplet" != aarch64-linux-gnu ]; then
        mv "$E2E_TMP/driver/usr/lib/aarch64-linux-gnu" "$E2E_TMP/driver/usr/lib/$triplet" ||
                bail "cannot move the fixture's libraries to usr/lib/$triplet"
fi

e2e_xpuinit_bundle link "$fx" "$E2E_TMP/driver" -- /workload --expect-cuda-count 1 --expect-nvml-count 1 \
        --expect-env CUDA_DEVICE_ORDER=PCI_BUS_ID --expect-env "CUDA_VISIBLE_DEVICES=$uuid" \
        --expect-node /dev/nvidia0=195:0 --expect-node /dev/nvidiactl=195:255 \
        --expect-node "/dev/nvidia-uvm=$uvm:0" --expect-node "/dev/nvidia-uvm-tools=$uvm:1" \
        --expect-node /dev/nvidia-modeset=195:254 --expect-no-node /dev/nvidia1 \
        --list-dir /run/xpuinit/lib --list-dir /dev
e2e_devices "$E2E_BUNDLE" "$fx"
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "xpuinit ran the workload on the GH200 host and every workload check passed"
[ "$E2E_RC" -eq 0 ] || e2e_show
is "$(e2e_fact cuda.path)" /run/xpuinit/lib/libcuda.so.1 "dlopen(libcuda.so.1) found the injected library"
is "$(e2e_fact cuda.realpath)" "/xpu/driver/usr/lib/$triplet/libcuda.so.$ver" \
        "libcuda.so.1 resolves into the driver root's usr/lib/$triplet"
is "$(e2e_fact nvml.driver_version)" "$ver" "NVML driver version $ver"
is "$(e2e_fact env.CUDA_VISIBLE_DEVICES)" "$uuid" "CUDA_VISIBLE_DEVICES names the GH200 by UUID"
# (The fixture's nvvm and ptxjitcompiler are empty placeholders without a SONAME: their links are .so.1.)
is "$(e2e_fact dir./run/xpuinit/lib)" \
        "libcuda.so.1,libcuda.so.$ver,libnvidia-ml.so.1,libnvidia-ml.so.$ver,libnvidia-nvvm.so.1,libnvidia-nvvm.so.$ver,libnvidia-ptxjitcompiler.so.1,libnvidia-ptxjitcompiler.so.$ver" \
        "/run/xpuinit/lib: the compute and utility libraries of $ver, nothing else"
# /dev: the container's own nodes and the GPU's, no other NVIDIA node.
nv_nodes=$(e2e_fact dir./dev | tr ',' '\n' | grep '^nvidia' | paste -sd, -)
is "$nv_nodes" "nvidia-modeset,nvidia-uvm,nvidia-uvm-tools,nvidia0,nvidiactl" "/dev: exactly the GH200's NVIDIA nodes"
e2e_done
