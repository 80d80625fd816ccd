#!/bin/sh
# shellcheck disable=SC2016 # jq programs, inner sh -c scripts and a literal `unshare -m` are single-quoted on purpose
# End to end, runtime-hook style: `xpuinit inject --rootfs ROOTFS` runs before the container
# starts, then runc starts /workload directly, without xpuinit in the container. The image has
# ldconfig, so the loader must find the injected libcuda.so.1 through /etc/ld.so.conf.d + the
# cache that inject rebuilt.
#   mount: a real OCI hook in config.json (path = the xpuinit binary, an explicit env):
#          - createContainer: runs in the container's mount namespace before pivot_root, so the
#            bind mounts under ROOTFS/run/xpuinit/lib go with the container and die with it;
#            after runc delete no mount under the bundle is left;
#          - createRuntime: runs in the runtime's (here: PID 1's) mount namespace, where the mounts
#            would outlive the container and the workload would not see them: xpuinit refuses
#            (125, the hint in runc's error) and runc fails the start.
#          runc runs in a PID namespace of the test's own (unshare -p -f --mount-proc) whose PID 1,
#          a shell, stands for the host's init: xpuinit compares its mount namespace with PID 1's,
#          and refuses when it cannot read /proc/1/ns/mnt (as in a sandbox without ptrace access).
#   link:  symlinks into the driver root, which the container sees at the same path, made by
#          inject run by hand (no mounts). ldconfig run from the host (ldconfig -r ROOTFS) cannot
#          see that path and deletes dangling links, so xpuinit must either make this work or
#          refuse it (125 with a message).
. "$(dirname "$0")/lib.sh"
e2e_init
command -v unshare >/dev/null 2>&1 || bail "unshare is not installed (util-linux)"

e2e_fixture nvidia-rtx2080ti-x8
fx=$E2E_FIXTURE
e2e_driver_root "$fx" "$E2E_TMP/driver"
e2e_dev_root "$fx" "$E2E_TMP/devroot"
HOOK_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# bundle NAME: E2E_BUNDLE = a fresh bundle with ldconfig in the image, the driver root at its own
# path, the fixture's devices and the bare workload.
bundle() {
        e2e_bundle "hook-$1"
        e2e_rootfs_ldconfig "$E2E_BUNDLE"
        e2e_mount_ro "$E2E_BUNDLE" "$E2E_TMP/driver" "$E2E_TMP/driver"
        e2e_env "$E2E_BUNDLE" "XPU_FAKE_STATE=$E2E_TMP/driver/xpu-fake-state"
        e2e_devices "$E2E_BUNDLE" "$fx"
        e2e_args "$E2E_BUNDLE" /workload --expect-cuda-count 8 --expect-unset LD_LIBRARY_PATH
}

# add_hook BUNDLE KIND: config.json hooks.KIND runs xpuinit inject --rootfs BUNDLE/rootfs (mount
# mode) with an explicit env, as docs/xpuinit.md shows.
add_hook() {
        args=$(printf '%s\n' xpuinit --sys-root "$fx" --dev-root "$E2E_TMP/devroot" \
                --driver-root "$E2E_TMP/driver" --inject mount inject --rootfs "$1/rootfs" | jq -R . | jq -s -c .)
        e2e_jq "$1" '.hooks[$k] = [{path: $p, args: $a, env: [$e]}]' --arg k "$2" \
                --arg p "$XPU_BUILD/xpuinit" --argjson a "$args" --arg e "PATH=$HOOK_PATH"
}

# hook_run BUNDLE: runc run + runc delete in a PID namespace of the test's own (see above); sets
# E2E_RC, E2E_OUT, E2E_ERR like e2e_run, and saves that namespace's (the runtime's) mountinfo
# after runc delete in BUNDLE/mountinfo.
hook_run() {
        id="xpu-e2e-$$-$(basename "$1")"
        E2E_IDS="$E2E_IDS $id"
        E2E_OUT="$1/stdout"
        E2E_ERR="$1/stderr"
        timeout "$E2E_TIMEOUT" unshare -p -f --mount-proc --propagation private sh -c '
                runc run -b "$1" "$2" </dev/null >"$1/stdout" 2>"$1/stderr"
                rc=$?
                runc delete -f "$2" >/dev/null 2>&1
                cat /proc/self/mountinfo >"$1/mountinfo"
                exit $rc' sh "$1" "$id"
        E2E_RC=$?
        [ "$E2E_RC" -ne 124 ] || diag "runc run $id timed out after ${E2E_TIMEOUT}s"
}

# no_mounts_left NAME BUNDLE: neither the runtime's namespace (BUNDLE/mountinfo) nor the test's
# has a mount at or below BUNDLE.
no_mounts_left() {
        left=$(cat "$2/mountinfo" /proc/self/mountinfo |
                awk -v d="$2" '$5 == d || index($5, d "/") == 1 { print $5 }')
        is "$left" "" "$1: no mount under the bundle is left after runc delete"
}

# ---- mount mode, a createContainer hook: works, leaves nothing mounted -----------------------------
bundle mount
add_hook "$E2E_BUNDLE" createContainer
hook_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "mount: createContainer hook; the bare workload found libcuda.so.1 through the cache, 8 GPUs"
[ "$E2E_RC" -eq 0 ] || e2e_show
is "$(e2e_fact cuda.path)" /run/xpuinit/lib/libcuda.so.1 "mount: loaded from /run/xpuinit/lib"
like "$E2E_BUNDLE/rootfs/etc/ld.so.conf.d/000-xpuinit.conf" '^/run/xpuinit/lib$' \
        "mount: the drop-in lists /run/xpuinit/lib"
if [ -e "$E2E_BUNDLE/rootfs/run/xpuinit/lib/libcuda.so.1" ]; then
        not_ok "mount: the library was mounted in the container's namespace only (not visible here)"
else
        ok "mount: the library was mounted in the container's namespace only (not visible here)"
fi
no_mounts_left mount "$E2E_BUNDLE"

# ---- mount mode, a createRuntime hook: refused, runc fails the start ------------------------------
bundle runtime
add_hook "$E2E_BUNDLE" createRuntime
hook_run "$E2E_BUNDLE"
if [ "$E2E_RC" -ne 0 ]; then
        ok "runtime: runc fails the start when the createRuntime hook refuses"
else
        not_ok "runtime: runc fails the start when the createRuntime hook refuses"
        e2e_show
fi
like "$E2E_ERR" 'exit status 125' "runtime: the hook exits 125"
like "$E2E_ERR" 'run it as a createContainer hook, or inside `unshare -m`' "runtime: the hint is in runc's error"
if [ -e "$E2E_BUNDLE/rootfs/etc/ld.so.conf.d/000-xpuinit.conf" ]; then
        not_ok "runtime: the refusal wrote nothing into the rootfs (no drop-in)"
else
        ok "runtime: the refusal wrote nothing into the rootfs (no drop-in)"
fi
is "$(e2e_fact cuda.path)" "" "runtime: the workload did not run"
no_mounts_left runtime "$E2E_BUNDLE"

# ---- link mode, inject run by hand (links only, no mounts) --------------------------------------
bundle link
env -i "PATH=$HOOK_PATH" "$XPU_BUILD/xpuinit" --sys-root "$fx" --dev-root "$E2E_TMP/devroot" \
        --driver-root "$E2E_TMP/driver" --inject link inject --rootfs "$E2E_BUNDLE/rootfs" \
        >"$E2E_BUNDLE/inject.out" 2>&1
rc=$?
if [ "$rc" -eq 125 ] && [ -s "$E2E_BUNDLE/inject.out" ]; then
        ok "link: xpuinit inject --rootfs refuses link mode with ldconfig in the image (125)"
        diag_file "$E2E_BUNDLE/inject.out"
else
        is "$rc" 0 "link: xpuinit inject --rootfs exits 0"
        [ "$rc" -eq 0 ] || diag_file "$E2E_BUNDLE/inject.out"
        like "$E2E_BUNDLE/rootfs/etc/ld.so.conf.d/000-xpuinit.conf" '^/run/xpuinit/lib$' \
                "link: the drop-in lists /run/xpuinit/lib"
        e2e_run "$E2E_BUNDLE"
        is "$E2E_RC" 0 "link: the bare workload found libcuda.so.1 through the cache, 8 GPUs"
        [ "$E2E_RC" -eq 0 ] || e2e_show
        is "$(e2e_fact cuda.path)" /run/xpuinit/lib/libcuda.so.1 "link: loaded from /run/xpuinit/lib"
        e2e_umount_below "$E2E_BUNDLE/rootfs"
fi

e2e_done
