#!/bin/sh
# End to end, runtime-hook style: `xpuinit inject --rootfs ROOTFS` runs on the host before the
# container starts (as an OCI prestart/createRuntime hook would), then runc starts /workload
# directly, without xpuinit in the container. The image has ldconfig, so the loader must find
# the injected libcuda.so.1 through /etc/ld.so.conf.d + the cache that inject rebuilt.
#   mount: bind mounts made on the host under ROOTFS/run/xpuinit/lib (runc's recursive rootfs
#          bind carries them into the container);
#   link:  symlinks into the driver root, which the container sees at the same path. ldconfig
#          run from the host (ldconfig -r ROOTFS) cannot see that path and deletes dangling
#          links, so xpuinit must either make this work or refuse it (125 with a message).
. "$(dirname "$0")/lib.sh"
e2e_init

e2e_fixture nvidia-rtx2080ti-x8
fx=$E2E_FIXTURE
e2e_driver_root "$fx" "$E2E_TMP/driver"
e2e_dev_root "$fx" "$E2E_TMP/devroot"

# hook MODE: inject into a fresh bundle from the host, then run the bare workload.
hook() {
        e2e_bundle "hook-$1"
        e2e_rootfs_ldconfig "$E2E_BUNDLE"
        "$XPU_BUILD/xpuinit" --sys-root "$fx" --dev-root "$E2E_TMP/devroot" \
                --driver-root "$E2E_TMP/driver" --inject "$1" inject --rootfs "$E2E_BUNDLE/rootfs" \
                >"$E2E_BUNDLE/inject.out" 2>&1
        rc=$?
        if [ "$1" = link ] && [ "$rc" -eq 125 ] && [ -s "$E2E_BUNDLE/inject.out" ]; then
                ok "$1: xpuinit inject --rootfs refuses link mode with ldconfig in the image (125)"
                diag_file "$E2E_BUNDLE/inject.out"
                return 0
        fi
        is "$rc" 0 "$1: xpuinit inject --rootfs exits 0"
        [ "$rc" -eq 0 ] || diag_file "$E2E_BUNDLE/inject.out"
        like "$E2E_BUNDLE/rootfs/etc/ld.so.conf.d/000-xpuinit.conf" '^/run/xpuinit/lib$' \
                "$1: the drop-in lists /run/xpuinit/lib"
        if [ -e "$E2E_BUNDLE/rootfs/run/xpuinit/lib/libcuda.so.1" ]; then
                ok "$1: ROOTFS/run/xpuinit/lib/libcuda.so.1 exists after inject"
        else
                not_ok "$1: ROOTFS/run/xpuinit/lib/libcuda.so.1 exists after inject"
                diag "$(ls -la "$E2E_BUNDLE/rootfs/run/xpuinit/lib" 2>&1)"
        fi
        e2e_mount_ro "$E2E_BUNDLE" "$E2E_TMP/driver" "$E2E_TMP/driver"
        e2e_env "$E2E_BUNDLE" "XPU_FAKE_STATE=$E2E_TMP/driver/xpu-fake-state"
        e2e_devices "$E2E_BUNDLE" "$fx"
        e2e_args "$E2E_BUNDLE" /workload --expect-cuda-count 8 --expect-unset LD_LIBRARY_PATH
        e2e_run "$E2E_BUNDLE"
        is "$E2E_RC" 0 "$1: the bare workload found libcuda.so.1 through the cache, 8 GPUs"
        [ "$E2E_RC" -eq 0 ] || e2e_show
        is "$(e2e_fact cuda.path)" /run/xpuinit/lib/libcuda.so.1 "$1: loaded from /run/xpuinit/lib"
        e2e_umount_below "$E2E_BUNDLE/rootfs"
}

hook mount
hook link

e2e_done
