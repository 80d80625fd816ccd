#!/bin/sh
# End to end, CDI: Debian's podman (4.3: CDI specs of cdiVersion 0.3.0-0.5.0) starts xpuinit in a
# container made from a CDI spec shaped like nvidia-ctk's (pkg/nvcdi/wrapper.go): the
# spec-level env NVIDIA_VISIBLE_DEVICES=void and NVIDIA_CTK_LIBCUDA_DIR, the control nodes,
# /dev/nvidia0 for device "0", and the fixture driver's libcuda.so.<ver> and libnvidia-ml.so.<ver>
# bind-mounted into /usr/lib/x86_64-linux-gnu. No hook: nvidia-ctk's update-ldcache and
# create-symlinks hooks need nvidia-cdi-hook, so nothing makes libcuda.so.1 here but xpuinit.
#   cdi:       the NVIDIA profile with the one GPU CDI gave; libcuda.so.1 loads, and it is the
#              file CDI mounted (a soname link in /run/xpuinit/lib), not a second copy;
#   plan:      `xpuinit plan --json` says so (notes; no link or bind of the versioned files);
#   caps:      NVIDIA_DRIVER_CAPABILITIES with compat32 (no 32-bit copies here), display and a typo: two warnings,
#              the start goes on;
#   void/none: the same container without the mark (NVIDIA_VISIBLE_DEVICES=void alone, or none)
#              gets the cpu profile and no libcuda.
# Hermetic: the specs live in a mktemp -d directory that a private mount namespace (unshare -m)
# shows as /etc/cdi (an overlay on /etc; /run/cdi and /var/run/cdi, where the host has them, are
# hidden by a tmpfs);
# podman's root, runroot and tmpdir are below $E2E_TMP; --rootfs (no image), --network none.
. "$(dirname "$0")/lib.sh"
e2e_init
need_tools podman unshare mount

e2e_fixture nvidia-rtx2080ti-x8
fx=$E2E_FIXTURE
drv=$E2E_TMP/driver
e2e_driver_root "$fx" "$drv"
e2e_dev_root "$fx" "$E2E_TMP/devroot"
ver=$(e2e_nvidia_version "$fx")
lib=$(e2e_nvidia_libdir "$fx")
uuid0=$(e2e_nvidia_uuids "$fx" | sed -n 1p)
cdidir=/usr/lib/x86_64-linux-gnu
dev=$E2E_TMP/devroot/dev

# ---- CDI specs (JSON, cdiVersion 0.5.0), one kind each ----------------------------------------
specs=$E2E_TMP/cdi
mkdir -p "$specs" || bail "cannot create $specs"
# cdi_spec FILE KIND ENV_JSON_ARRAY: a spec of KIND whose device "0" is /dev/nvidia0, with the
# control nodes and the two driver libraries for every device, and ENV.
cdi_spec() {
        jq -n --arg kind "$2" --argjson env "$3" --arg dev "$dev" --arg drv "$drv/$lib" --arg ver "$ver" \
                --arg dir "$cdidir" '{
                cdiVersion: "0.5.0", kind: $kind,
                devices: [{name: "0", containerEdits: {deviceNodes: [{path: "/dev/nvidia0",
                        hostPath: ($dev + "/nvidia0")}]}}],
                containerEdits: {
                        env: $env,
                        deviceNodes: [{path: "/dev/nvidiactl", hostPath: ($dev + "/nvidiactl")},
                                {path: "/dev/nvidia-uvm", hostPath: ($dev + "/nvidia-uvm")},
                                {path: "/dev/nvidia-uvm-tools", hostPath: ($dev + "/nvidia-uvm-tools")}],
                        mounts: [{hostPath: ($drv + "/libcuda.so." + $ver),
                                        containerPath: ($dir + "/libcuda.so." + $ver),
                                        options: ["ro", "nosuid", "nodev", "bind"]},
                                {hostPath: ($drv + "/libnvidia-ml.so." + $ver),
                                        containerPath: ($dir + "/libnvidia-ml.so." + $ver),
                                        options: ["ro", "nosuid", "nodev", "bind"]}]}}' >"$specs/$1" ||
                bail "cannot write the CDI spec $1"
}
cdi_spec nvidia.json nvidia.com/gpu \
        "[\"NVIDIA_VISIBLE_DEVICES=void\", \"NVIDIA_CTK_LIBCUDA_DIR=$cdidir\"]"
cdi_spec nomark.json nomark.xpuinit.test/gpu '["NVIDIA_VISIBLE_DEVICES=void"]'
cdi_spec none.json none.xpuinit.test/gpu '["NVIDIA_VISIBLE_DEVICES=none"]'

# podman runs of the fixture host with the specs above (tests/e2e/lib.sh, e2e_podman_run).
E2E_PODMAN_MOUNTS="-v $fx:/xpu/host:ro -v $drv:/xpu/driver:ro"
e2e_podman_init "$specs"
pm_run() {
        e2e_podman_run "$@"
}

# ---- the NVIDIA profile from the devices and files CDI gave -------------------------------------
pm_run cdi nvidia.com/gpu=0 -- /usr/bin/xpuinit -- /workload --expect-cuda-count 8 --expect-nvml-count 8 \
        --expect-env CUDA_DEVICE_ORDER=PCI_BUS_ID --expect-env "CUDA_VISIBLE_DEVICES=$uuid0" \
        --expect-node /dev/nvidia0=195:0 --expect-no-node /dev/nvidia1 --list-dir /run/xpuinit/lib
is "$E2E_RC" 0 "cdi: xpuinit ran the workload and every workload check passed"
[ "$E2E_RC" -eq 0 ] || e2e_show
is "$(e2e_fact env.NVIDIA_VISIBLE_DEVICES)" void "cdi: the CDI spec's NVIDIA_VISIBLE_DEVICES=void reached the container"
is "$(e2e_fact env.CUDA_VISIBLE_DEVICES)" "$uuid0" \
        "cdi: the NVIDIA profile selected the one GPU CDI gave (CUDA_VISIBLE_DEVICES = its UUID)"
is "$(e2e_fact cuda.dlopen)" ok "cdi: dlopen(libcuda.so.1) works"
is "$(e2e_fact cuda.path)" /run/xpuinit/lib/libcuda.so.1 "cdi: libcuda.so.1 found through xpuinit's soname link"
is "$(e2e_fact cuda.realpath)" "$cdidir/libcuda.so.$ver" \
        "cdi: libcuda.so.1 is the libcuda.so.$ver that CDI mounted, not another copy"
is "$(e2e_fact nvml.realpath)" "$cdidir/libnvidia-ml.so.$ver" "cdi: libnvidia-ml.so.1 is CDI's file too"
is "$(e2e_fact cuda.count)" 8 "cdi: cuDeviceGetCount answers (the fake reports the fixture's 8)"
is "$(e2e_fact dir./run/xpuinit/lib)" libcuda.so.1,libnvidia-ml.so.1 \
        "cdi: /run/xpuinit/lib holds only the two soname links, no versioned file"
is "$(grep -c . "$E2E_ERR")" 0 "cdi: xpuinit printed no warning"
[ "$(grep -c . "$E2E_ERR")" -eq 0 ] || diag_file "$E2E_ERR"

# ---- what the plan says ---------------------------------------------------------------------------
pm_run plan nvidia.com/gpu=0 -- /usr/bin/xpuinit plan --json -- /workload
is "$E2E_RC" 0 "plan: xpuinit plan --json exits 0"
[ "$E2E_RC" -eq 0 ] || e2e_show
is "$(jq -r .profile "$E2E_OUT")" nvidia-cuda "plan: profile nvidia-cuda"
is "$(jq -r '.devices | map(.uuid) | join(",")' "$E2E_OUT")" "$uuid0" "plan: the one device CDI gave"
is "$(jq -r --arg v "$ver" '[.operations[] | select(.op == "bind" or .op == "symlink")
        | select(.path | endswith(".so." + $v))] | length' "$E2E_OUT")" 0 \
        "plan: no bind or link of the versioned files CDI mounted"
is "$(jq -r '[.operations[] | select(.op == "symlink") | .path + " -> " + .target] | join(", ")' "$E2E_OUT")" \
        "/run/xpuinit/lib/libnvidia-ml.so.1 -> $cdidir/libnvidia-ml.so.$ver, /run/xpuinit/lib/libcuda.so.1 -> $cdidir/libcuda.so.$ver" \
        "plan: the soname links point at CDI's files"
is "$(jq -r '.notes[] | select(contains("already mounted"))' "$E2E_OUT")" \
        "NVIDIA_CTK_LIBCUDA_DIR: the container's CDI spec already mounted 2 driver file(s) of version $ver, not injected again: $cdidir/libnvidia-ml.so.$ver, $cdidir/libcuda.so.$ver" \
        "plan: a note names the files CDI mounted"

# ---- NVIDIA_DRIVER_CAPABILITIES with values the toolkit accepts and the profile does not know ------
pm_run caps nvidia.com/gpu=0 -e NVIDIA_DRIVER_CAPABILITIES=compute,compat32,utility,display,warp -- \
        /usr/bin/xpuinit -- /workload --expect-cuda-count 8
is "$E2E_RC" 0 "caps: compat32 and an unknown word among the capabilities do not stop the start"
[ "$E2E_RC" -eq 0 ] || e2e_show
is "$(grep -c "warning" "$E2E_ERR")" 2 "caps: exactly two warnings"
[ "$(grep -c "warning" "$E2E_ERR")" -eq 2 ] || diag_file "$E2E_ERR"
like "$E2E_ERR" '^xpuinit: warning: NVIDIA_DRIVER_CAPABILITIES: ignoring "warp": profile "nvidia-cuda" has no driver files for it' \
        "caps: the warning names the ignored value and the profile"
like "$E2E_ERR" '^xpuinit: warning: capability compat32: no 32-bit library of version .* 32-bit programs will not find the driver' \
        "caps: compat32 on a driver root without 32-bit copies warns"
is "$(e2e_fact cuda.realpath)" "$cdidir/libcuda.so.$ver" "caps: libcuda.so.1 still loads (CDI's file)"

# ---- controls: no CDI mark ---------------------------------------------------------------------------
for kind in nomark none; do
        case $kind in
        nomark) what="NVIDIA_VISIBLE_DEVICES=void without NVIDIA_CTK_LIBCUDA_DIR" ;;
        *) what="NVIDIA_VISIBLE_DEVICES=none" ;;
        esac
        pm_run "$kind-plan" "$kind.xpuinit.test/gpu=0" -- /usr/bin/xpuinit plan --json -- /workload
        is "$E2E_RC" 0 "$kind: xpuinit plan --json exits 0"
        [ "$E2E_RC" -eq 0 ] || e2e_show
        is "$(jq -r .profile "$E2E_OUT")" cpu "$kind: $what gets the cpu profile"
        is "$(jq -r '.operations | length' "$E2E_OUT")" 0 "$kind: nothing to do"
        pm_run "$kind" "$kind.xpuinit.test/gpu=0" -- /usr/bin/xpuinit -- /workload --expect-no-cuda \
                --expect-unset CUDA_VISIBLE_DEVICES
        is "$E2E_RC" 0 "$kind: the workload runs without libcuda.so.1 and CUDA_VISIBLE_DEVICES"
        [ "$E2E_RC" -eq 0 ] || e2e_show
        like "$E2E_OUT" '^cuda\.dlopen=error' "$kind: libcuda.so.1 is not found (no soname link, no loader path)"
done

e2e_done
