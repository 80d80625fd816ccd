#!/bin/sh
# End to end, Jetson: xpuinit is the process of a runc container on the jetson-orin fixture host
# (an Orin on L4T 36.4.3; its CSV host lists devices.csv and drivers.csv in a read-only driver
# root; the runtime gives the nodes of dev/DEVNODES). The workload must see the nodes and files
# the CSV files list, the sym lines as the same links, and nothing else: no unlisted file of the
# driver root's directories, no library directory, no node the host lacks.
#   link mode (Docker's default capabilities), mount mode (CAP_SYS_ADMIN, --inject mount),
#   NVIDIA_REQUIRE_JETPACK met and not met (125), a CSV line that does not parse (125).
. "$(dirname "$0")/lib.sh"
e2e_init

e2e_fixture jetson-orin
fx=$E2E_FIXTURE
drv="$E2E_TMP/driver"
if ! mkdir -p "$drv" || ! cp -a "$fx/." "$drv/"; then
        bail "cannot copy $fx"
fi
lib=usr/lib/aarch64-linux-gnu
# The placeholders get their names as contents (one word: the workload compares the first line),
# so the workload can tell the host's file; an unlisted library next to the listed ones must stay
# out of the container.
for f in "$lib"/nvidia/libcuda.so.1.1 "$lib"/tegra-egl/libEGL_nvidia.so.0 \
        lib/firmware/tegra23x/nvhost_nvdec050_desc_prod.bin; do
        printf 'host_%s\n' "$(basename "$f")" >"$drv/$f" || bail "cannot write $drv/$f"
done
printf 'not listed\n' >"$drv/$lib/nvidia/libnvos.so" || bail "cannot write libnvos.so"

# jetson_bundle NAME [XPUINIT OPTION...] -- WORKLOAD ARG...
jetson_bundle() {
        name=$1
        shift
        e2e_bundle "$name"
        e2e_mount_ro "$E2E_BUNDLE" "$drv" /xpu/host
        e2e_args "$E2E_BUNDLE" /usr/bin/xpuinit --sys-root /xpu/host --driver-root /xpu/host "$@"
        e2e_devices "$E2E_BUNDLE" "$fx"
}

listed="libcuda.so,libcuda.so.1,libcuda.so.1.1,libnvidia-ml.so.1,libnvidia-ptxjitcompiler.so.1"
listed="$listed,libnvidia-ptxjitcompiler.so.540.3.0,libnvrm_gpu.so,libnvrm_host1x.so,libnvrm_mem.so"
workload="/workload --expect-node /dev/nvmap=10:120 --expect-node /dev/nvgpu/igpu0/ctrl=507:3
        --expect-node /dev/nvgpu/igpu0/channel=507:2 --expect-node /dev/dri/renderD128=226:128
        --expect-node /dev/host1x-fence=505:0 --expect-no-node /dev/v4l2-nvdec --expect-no-node /dev/nvhost-gpu
        --expect-file /$lib/nvidia/libcuda.so.1.1=host_libcuda.so.1.1
        --expect-file /$lib/tegra/libcuda.so.1=host_libcuda.so.1.1
        --expect-file /$lib/libcuda.so=host_libcuda.so.1.1
        --expect-file /$lib/tegra-egl/libEGL_nvidia.so.0=host_libEGL_nvidia.so.0
        --expect-file /lib/firmware/tegra23x/nvhost_nvdec050_desc_prod.bin=host_nvhost_nvdec050_desc_prod.bin
        --expect-no-node /lib/firmware/tegra19x --expect-no-node /$lib/nvidia/libnvos.so
        --list-dir /$lib/nvidia --list-dir /$lib/tegra-egl --list-dir /run/xpuinit/lib --print-env LD_LIBRARY_PATH"

# check RUN: what every Jetson start must show.
check() {
        is "$E2E_RC" 0 "$1: xpuinit ran the workload and every workload check passed"
        [ "$E2E_RC" -eq 0 ] || e2e_show
        is "$(e2e_fact "dir./$lib/nvidia")" "$listed" "$1: /$lib/nvidia holds exactly the listed files"
        is "$(e2e_fact "dir./$lib/tegra-egl")" "libEGL_nvidia.so.0" "$1: /$lib/tegra-egl holds the one listed file"
        is "$(e2e_fact dir./run/xpuinit/lib)" missing "$1: no library directory (the host lists the files)"
        is "$(e2e_fact env.LD_LIBRARY_PATH)" "/$lib/nvidia:/$lib/tegra-egl:/$lib" \
                "$1: the listed libraries' directories lead the loader path (the image has no ldconfig)"
}

# ---- link mode: Docker's default capabilities --------------------------------------------------
# shellcheck disable=SC2086 # $workload is split into words on purpose
jetson_bundle link -- $workload
e2e_run "$E2E_BUNDLE"
check link

# ---- mount mode --------------------------------------------------------------------------------
# shellcheck disable=SC2086
jetson_bundle mount --inject mount -- $workload --mounts /usr/lib/aarch64-linux-gnu
e2e_caps_add "$E2E_BUNDLE" CAP_SYS_ADMIN
e2e_run "$E2E_BUNDLE"
check mount
like "$E2E_OUT" "^mount\\./$lib/nvidia/libcuda\\.so\\.1\\.1=[^ ]* ro," "mount: libcuda.so.1.1 is bound read-only"

# ---- NVIDIA_REQUIRE_JETPACK: the host's L4T 36.4.3 against it ----------------------------------
jetson_bundle jetpack-met -- /workload --expect-node /dev/nvmap=10:120
e2e_env "$E2E_BUNDLE" "NVIDIA_REQUIRE_JETPACK=l4t>=36.4"
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "jetpack: NVIDIA_REQUIRE_JETPACK=l4t>=36.4 is met on L4T 36.4.3"
[ "$E2E_RC" -eq 0 ] || e2e_show

jetson_bundle jetpack-unmet -- /workload
e2e_env "$E2E_BUNDLE" "NVIDIA_REQUIRE_JETPACK=l4t>=37"
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 125 "jetpack: NVIDIA_REQUIRE_JETPACK=l4t>=37 stops the start with 125"
like "$E2E_ERR" 'NVIDIA_REQUIRE_JETPACK: requirement "l4t>=37" not met: l4t>=37 but host has nvidia:0 on L4T 36.4.3' \
        "jetpack: the message names the variable, the requirement and the host's L4T release"

jetson_bundle jetpack-csv -- /workload --expect-node /dev/nvmap=10:120
e2e_env "$E2E_BUNDLE" "NVIDIA_REQUIRE_JETPACK=csv-mounts=all"
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "jetpack: csv-mounts=all is the toolkit's file choice, not a requirement"
[ "$E2E_RC" -eq 0 ] || e2e_show

# ---- a Xavier on L4T 32 (jetson-xavier), mount mode: l4t.csv's dir line bound read-only -------
e2e_fixture jetson-xavier
xfx=$E2E_FIXTURE
xdrv="$E2E_TMP/xavier"
if ! mkdir -p "$xdrv" || ! cp -a "$xfx/." "$xdrv/"; then
        bail "cannot copy $xfx"
fi
printf 'host_fw\n' >"$xdrv/lib/firmware/tegra19x/nvhost_nvdec040_ns.fw"
printf 'host_tegra_libcuda\n' >"$xdrv/$lib/tegra/libcuda.so.1.1"
e2e_bundle xavier
e2e_mount_ro "$E2E_BUNDLE" "$xdrv" /xpu/host
e2e_args "$E2E_BUNDLE" /usr/bin/xpuinit --sys-root /xpu/host --driver-root /xpu/host --inject mount -- \
        /workload --expect-node /dev/nvmap=10:120 --expect-node /dev/nvhost-ctrl-gpu=508:2 \
        --expect-node /dev/nvhost-nvdla0=503:1 --expect-no-node /dev/nvhost-nvdla1 \
        --expect-file /lib/firmware/tegra19x/nvhost_nvdec040_ns.fw=host_fw \
        --expect-file "/$lib/libcuda.so=host_tegra_libcuda" --list-dir "/$lib/tegra" \
        --mounts /lib/firmware --print-env LD_LIBRARY_PATH
e2e_devices "$E2E_BUNDLE" "$xfx"
e2e_caps_add "$E2E_BUNDLE" CAP_SYS_ADMIN
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "xavier: xpuinit ran the workload and every workload check passed"
[ "$E2E_RC" -eq 0 ] || e2e_show
like "$E2E_OUT" '^mount\./lib/firmware/tegra19x=[^ ]* ro,' "xavier: the dir line's directory is bound read-only"
is "$(e2e_fact "dir./$lib/tegra")" "libcuda.so,libcuda.so.1.1,libnvos.so,libnvrm.so,libnvrm_gpu.so" \
        "xavier: /$lib/tegra holds exactly the listed files"
is "$(e2e_fact env.LD_LIBRARY_PATH)" "/$lib/tegra:/$lib" "xavier: the loader path leads with .../tegra"

# ---- a CSV line that does not parse: the start stops, naming file, line and fix -----------------
printf 'dev, /dev/nvmap\nlibs, /usr/lib/x.so\n' >"$drv/etc/nvidia-container-runtime/host-files-for-container.d/drivers.csv"
jetson_bundle bad-csv -- /workload
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 125 "bad csv: a line of an unknown kind stops the start with 125"
like "$E2E_ERR" 'host-files-for-container.d/drivers.csv:2: unknown kind "libs".*fix or remove that line' \
        "bad csv: the message names the file, the line and the fix"

e2e_done
