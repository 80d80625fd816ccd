#!/bin/sh
# End to end, WSL2: xpuinit is the process of a runc container on the wsl-nvidia, wsl-amd and
# wsl-intel fixture hosts (mounted at /xpu/host as sys and driver root; /dev/dxg 10:124 given as
# the engine gives it with --device /dev/dxg). The workload must see /dev/dxg and no Linux GPU
# node (/dev/nvidiactl, /dev/kfd, /dev/dri), exactly the vendor's Windows driver files at their
# own path (the driver store folder and /usr/lib/wsl/lib hold those and nothing else), the loader
# drop-in naming both folders, and on NVIDIA /usr/bin/nvidia-smi leading to the driver store's,
# a libcuda.so.1 and libnvidia-ml.so.1 that load through the loader's cache (the fake libraries
# of tests/shims as the driver store's libcuda.so.1.1 and libnvidia-ml.so.1: ldconfig made their
# soname links); on AMD
# HSA_ENABLE_DXG_DETECTION=1. Bad input: a /dev/dxg of another major is no WSL2 GPU (the start
# runs on the cpu profile with a warning naming it), a driver store that is a symlink out of the
# root is skipped with a warning, and `xpuinit cdi generate` on the host writes /dev/dxg and the
# same files at their own path.
. "$(dirname "$0")/lib.sh"
e2e_init
need_tools jq readelf

NV_STORE=/usr/lib/wsl/drivers/nv_dispsi.inf_amd64_7cc7738d8e428783

# A copy of fixture $1 in $E2E_TMP/$2 (writable), its path in $WSL_HOST.
wsl_host() {
        e2e_fixture "$1"
        WSL_HOST=$E2E_TMP/$2
        mkdir -p "$WSL_HOST" || bail "cannot create $WSL_HOST"
        if ! cp -R "$E2E_FIXTURE/." "$WSL_HOST/" || ! chmod -R u+w "$WSL_HOST"; then
                bail "cannot copy $E2E_FIXTURE"
        fi
}

# A bundle NAME running xpuinit on $WSL_HOST with the ldconfig rootfs; the rest: the workload's
# arguments.
wsl_bundle() {
        name=$1
        shift
        e2e_bundle "$name"
        e2e_rootfs_ldconfig "$E2E_BUNDLE"
        e2e_mount_ro "$E2E_BUNDLE" "$WSL_HOST" /xpu/host
        e2e_devices "$E2E_BUNDLE" "$WSL_HOST"
        e2e_args "$E2E_BUNDLE" /usr/bin/xpuinit --sys-root /xpu/host --driver-root /xpu/host -- /workload "$@"
}

# ---- NVIDIA ------------------------------------------------------------------------------------
wsl_host wsl-nvidia nv
cp "$XPU_BUILD/tests/shims/libcuda.so.shim" "$WSL_HOST$NV_STORE/libcuda.so.1.1" || bail "no libcuda shim"
cp "$XPU_BUILD/tests/shims/libnvidia-ml.so.shim" "$WSL_HOST$NV_STORE/libnvidia-ml.so.1" || bail "no NVML shim"
printf 'smi\n' >"$WSL_HOST$NV_STORE/nvidia-smi" # what /usr/bin/nvidia-smi must read
printf 'driver_version 581.57\ncuda_version 13000\ndevice_count 1\ndevice.0.uuid GPU-00000000-0000-0000-0000-000000000001\ndevice.0.name NVIDIA GeForce RTX 4090\n' \
        >"$WSL_HOST/xpu-fake-state"
wsl_bundle nvidia --expect-node /dev/dxg=10:124 --expect-no-node /dev/nvidiactl --expect-no-node /dev/nvidia0 \
        --expect-no-node /dev/nvidia-uvm --expect-cuda-count 1 --expect-nvml-count 1 \
        --expect-file "/etc/ld.so.conf.d/001-xpuinit-wsl.conf=# written by xpuinit: the WSL2 driver's libraries" \
        --expect-env CUDA_VISIBLE_DEVICES=0 --expect-file /usr/bin/nvidia-smi=smi \
        --list-dir "$NV_STORE" --list-dir /usr/lib/wsl/lib \
        --list-dir /usr/lib/wsl/drivers --list-dir /dev --list-dir /run/xpuinit/lib
e2e_env "$E2E_BUNDLE" XPU_FAKE_STATE=/xpu/host/xpu-fake-state
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "nvidia: xpuinit ran the workload and every workload check passed"
[ "$E2E_RC" -eq 0 ] || e2e_show
# ldconfig adds the soname links libcuda.so.1 and libnvidia-ml.so.1 (to the same files)
is "$(e2e_fact "dir.$NV_STORE")" \
        "libcuda.so.1,libcuda.so.1.1,libcuda_loader.so,libnvdxgdmal.so.1,libnvidia-ml.so.1,libnvidia-ml_loader.so,libnvidia-ptxjitcompiler.so.1,nvcubins.bin,nvidia-smi" \
        "nvidia: the driver store holds the toolkit's files and ldconfig's soname link, nothing else"
is "$(e2e_fact dir./usr/lib/wsl/lib)" "libdxcore.so" "nvidia: /usr/lib/wsl/lib holds libdxcore.so only"
is "$(e2e_fact dir./usr/lib/wsl/drivers)" "nv_dispsi.inf_amd64_7cc7738d8e428783" "nvidia: one driver store folder"
like "$E2E_OUT" '^dir\./dev=(.*,)?dxg(,|$)' "nvidia: /dev lists dxg"
unlike "$E2E_OUT" '^dir\./dev=(.*,)?(nvidia|kfd|dri)' "nvidia: /dev lists no Linux GPU node"
is "$(e2e_fact dir./run/xpuinit/lib)" "missing" "nvidia: no library directory (the files are at their own path)"
# (a bind mount in mount mode, a link into /xpu/host in link mode)
like "$E2E_OUT" "^cuda\.realpath=(/xpu/host)?$NV_STORE/libcuda\.so\.1\.1\$" \
        "nvidia: libcuda.so.1 is the driver store's libcuda.so.1.1"
is "$(e2e_fact cuda.count)" 1 "nvidia: cuDeviceGetCount = 1"

# ---- AMD ---------------------------------------------------------------------------------------
wsl_host wsl-amd amd
wsl_bundle amd --expect-node /dev/dxg=10:124 --expect-no-node /dev/kfd --expect-env HSA_ENABLE_DXG_DETECTION=1 \
        --list-dir /usr/lib/wsl/lib --list-dir /usr/lib/wsl/drivers --list-dir /dev/dri
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "amd: xpuinit ran the workload and every workload check passed"
[ "$E2E_RC" -eq 0 ] || e2e_show
is "$(e2e_fact dir./usr/lib/wsl/lib)" "libdxcore.so" "amd: /usr/lib/wsl/lib holds libdxcore.so only"
is "$(e2e_fact dir./usr/lib/wsl/drivers)" "missing" "amd: no driver store folder (its files live in the image)"
is "$(e2e_fact dir./dev/dri)" "missing" "amd: no DRM node"

# ---- Intel -------------------------------------------------------------------------------------
wsl_host wsl-intel intel
wsl_bundle intel --expect-node /dev/dxg=10:124 --expect-env ZE_ENABLE_PCI_ID_DEVICE_ORDER=1 \
        --expect-unset HSA_ENABLE_DXG_DETECTION --list-dir /usr/lib/wsl/lib
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "intel: xpuinit ran the workload and every workload check passed"
[ "$E2E_RC" -eq 0 ] || e2e_show
is "$(e2e_fact dir./usr/lib/wsl/lib)" "libd3d12.so,libd3d12core.so,libdxcore.so" \
        "intel: /usr/lib/wsl/lib holds dxcore and Direct3D 12"

# ---- bad input ---------------------------------------------------------------------------------
# /dev/dxg of another major (1:3, /dev/null's numbers): not WSL2's node, said, no GPU
wsl_host wsl-nvidia badmajor
sed -i 's|^/dev/dxg c 10:124|/dev/dxg c 1:3|' "$WSL_HOST/dev/DEVNODES"
wsl_bundle badmajor --expect-no-node /dev/nvidiactl --list-dir /usr/lib/wsl
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "badmajor: the workload runs (no GPU)"
[ "$E2E_RC" -eq 0 ] || e2e_show
like "$E2E_ERR" "/dev/dxg under dev root /: character device 1:3, not of the misc major 10; not taken for WSL2's GPU node" \
        "badmajor: the warning names /dev/dxg and its numbers"
is "$(e2e_fact dir./usr/lib/wsl)" "missing" "badmajor: no WSL2 file placed"

# the driver store a symlink out of the root: skipped, said
wsl_host wsl-nvidia symlink
mv "$WSL_HOST$NV_STORE" "$E2E_TMP/outside-store" || bail "cannot move the driver store"
ln -s "$E2E_TMP/outside-store" "$WSL_HOST$NV_STORE" || bail "cannot link the driver store"
wsl_bundle symlink --list-dir /usr/lib/wsl/drivers
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "symlink: the workload runs (no GPU)"
like "$E2E_ERR" "$NV_STORE in driver root /xpu/host: a symbolic link, not a folder; skipped" \
        "symlink: the warning names the folder"
is "$(e2e_fact dir./usr/lib/wsl/drivers)" "missing" "symlink: nothing of it placed"

# ---- cdi generate ------------------------------------------------------------------------------
wsl_host wsl-nvidia cdi
e2e_dev_root "$E2E_FIXTURE" "$E2E_TMP/cdidev" || bail "cannot make a dev root"
"$XPU_BUILD/xpuinit" cdi generate --format json --sys-root "$WSL_HOST" --dev-root "$E2E_TMP/cdidev" \
        --driver-root "$WSL_HOST" >"$E2E_TMP/spec.json" 2>"$E2E_TMP/spec.err"
is "$?" 0 "cdi: cdi generate exits 0"
is "$(jq -r '[.devices[].name] | join(",")' "$E2E_TMP/spec.json")" "0,all" "cdi: devices 0 and all"
is "$(jq -r '.devices[0].containerEdits.deviceNodes | map("\(.path) \(.major):\(.minor)") | join(",")' "$E2E_TMP/spec.json")" \
        "/dev/dxg 10:124" "cdi: the one node is /dev/dxg"
is "$(jq -r '.devices[0].containerEdits.mounts | map(select(.hostPath == "'"$WSL_HOST"'" + .containerPath)) | length' "$E2E_TMP/spec.json")" \
        9 "cdi: nine files, each mounted at its own path"
is "$(jq -r '.devices[0].containerEdits.env | join(",")' "$E2E_TMP/spec.json")" \
        "XPUINIT_DRIVER_ROOT=/,NVIDIA_VISIBLE_DEVICES=void" "cdi: the driver root is / (the files are at their own path)"
e2e_done
