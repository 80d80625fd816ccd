#!/bin/sh
# End-to-end harness self-test, without xpuinit: the rootfs, the bundle, the device nodes and
# the fake libcuda/libnvidia-ml work inside a real runc container when the workload is pointed
# at the fixture driver root by hand. If this fails, the other container-*.sh failures are the
# harness's, not xpuinit's.
. "$(dirname "$0")/lib.sh"
e2e_init

e2e_fixture nvidia-rtx2080ti-x8
fx=$E2E_FIXTURE
e2e_driver_root "$fx" "$E2E_TMP/driver"
is "$E2E_GPUS" 8 "state file lists the fixture's 8 GPUs"
lib=$(e2e_nvidia_libdir "$fx")
is "$(readlink "$E2E_TMP/driver/$lib/libcuda.so.1")" libcuda.so.465.19.01 \
        "libcuda.so.1 -> libcuda.so.465.19.01 in the driver root"
is "$(readlink "$E2E_TMP/driver/$lib/libnvidia-ml.so.1")" libnvidia-ml.so.465.19.01 \
        "libnvidia-ml.so.1 -> libnvidia-ml.so.465.19.01 in the driver root"
if [ -e "$E2E_TMP/driver/$lib/libnvidia-ml.so" ]; then
        not_ok "no libnvidia-ml.so dev link (newer drivers lack it)"
else
        ok "no libnvidia-ml.so dev link (newer drivers lack it)"
fi

e2e_bundle direct
b=$E2E_BUNDLE
e2e_mount_ro "$b" "$E2E_TMP/driver" /xpu/driver
e2e_devices "$b" "$fx"
e2e_env "$b" "LD_LIBRARY_PATH=/xpu/driver/$lib" XPU_FAKE_STATE=/xpu/driver/xpu-fake-state
e2e_args "$b" /workload --expect-cuda-count 8 --expect-cuda-version 11030 --expect-nvml-count 8 \
        --expect-node /dev/nvidia0=195:0 --expect-node /dev/nvidia7=195:7 \
        --expect-node /dev/nvidiactl=195:255 --expect-uid 0 --exit 3
e2e_run "$b"
is "$E2E_RC" 3 "workload ran in the container, all its checks passed, exit status passed through"
[ "$E2E_RC" -eq 3 ] || e2e_show
is "$(e2e_fact cuda.realpath)" "/xpu/driver/$lib/libcuda.so.465.19.01" \
        "dlopen(libcuda.so.1) found the fake library by LD_LIBRARY_PATH"
is "$(e2e_fact cuda.count)" 8 "cuDeviceGetCount = 8 from the state file"
is "$(e2e_fact cuda.device.0.uuid)" GPU-307dcc96-618a-4416-c1ef-87823c2e1a31 \
        "cuDeviceGetUuid(0) = the UUID of bus 0000:1a:00.0"
is "$(e2e_fact cuda.device.0.name)" "NVIDIA GeForce RTX 2080 Ti" "cuDeviceGetName(0)"
is "$(e2e_fact nvml.driver_version)" 465.19.01 "nvmlSystemGetDriverVersion = 465.19.01"
is "$(e2e_fact node./dev/nvidia-uvm)" "c 239:0 mode=0666 gid=0" "/dev/nvidia-uvm created as 239:0"
is "$(e2e_fact pid)" 1 "the container's process is PID 1"

# Without the loader path the fake library is not found: nothing else leaks it in.
e2e_bundle no-path
b=$E2E_BUNDLE
e2e_mount_ro "$b" "$E2E_TMP/driver" /xpu/driver
e2e_args "$b" /workload --expect-no-cuda
e2e_run "$b"
is "$E2E_RC" 0 "without LD_LIBRARY_PATH libcuda.so.1 is not found in the bare rootfs"
[ "$E2E_RC" -eq 0 ] || e2e_show

# Device groups for the AMD scenario.
e2e_fixture amd-mi210x8
e2e_bundle groups
b=$E2E_BUNDLE
e2e_devices "$b" "$E2E_FIXTURE" "/dev/kfd=105 /dev/dri/*=44"
is "$E2E_NODES" "/dev/kfd /dev/dri/renderD128 /dev/dri/renderD129 /dev/dri/renderD130 /dev/dri/renderD131 /dev/dri/renderD132 /dev/dri/renderD133 /dev/dri/renderD134 /dev/dri/renderD135" \
        "all nine AMD nodes of the fixture added"
e2e_args "$b" /workload --expect-node /dev/kfd=510:0 --expect-node /dev/dri/renderD135=226:135
e2e_run "$b"
is "$E2E_RC" 0 "AMD nodes exist in the container with the fixture's numbers"
is "$(e2e_fact node./dev/kfd)" "c 510:0 mode=0660 gid=105" "/dev/kfd is group render (105), 0660"
is "$(e2e_fact node./dev/dri/renderD128)" "c 226:128 mode=0660 gid=44" "renderD128 is group video (44)"
e2e_done
