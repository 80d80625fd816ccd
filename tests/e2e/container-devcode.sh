#!/bin/sh
# End to end, the start-time device-code check: xpuinit is PID 1 of a runc container whose image
# carries the index `xpuinit audit --write-index` wrote at build time. On the amd-mi210x8 fixture
# host (8 × gfx90a) a CUDA-only image exits 125 with one line naming what the image has and what
# the node has; a HIP image with gfx90a code starts. On the same host with its KFD gfx target
# changed to gfx1031 (10.3.1), a gfx1030-only image exits 125 naming HSA_OVERRIDE_GFX_VERSION=10.3.0,
# starts when the user set it, and with XPUINIT_DEVICE_CODE=apply starts with it set by xpuinit.
. "$(dirname "$0")/lib.sh"
e2e_init

dc=$XPU_SRCDIR/tests/fixtures/devcode
e2e_fixture amd-mi210x8
mi210=$E2E_FIXTURE
cp -a "$mi210" "$E2E_TMP/host1031" || bail "cannot copy the fixture host"
for p in "$E2E_TMP"/host1031/sys/class/kfd/kfd/topology/nodes/*/properties; do
        sed -i 's/^gfx_target_version 90010$/gfx_target_version 100301/' "$p" || bail "sed $p"
done
is "$(cat "$E2E_TMP"/host1031/sys/class/kfd/kfd/topology/nodes/*/properties | grep -c '^gfx_target_version 100301$')" 8 \
        "the gfx1031 host has 8 GPUs of gfx target 10.3.1"

# image_bundle NAME HOST FIXTURE...: a bundle whose rootfs has the fixture libraries in
# /usr/lib/xpu and the index of its own /usr/lib/xpu at /etc/xpuinit/device-code.json (written by
# the audit, as a Dockerfile's RUN line would), on fixture host HOST with its AMD nodes.
image_bundle() {
        name=$1
        host=$2
        shift 2
        e2e_bundle "$name"
        mkdir -p "$E2E_BUNDLE/rootfs/usr/lib/xpu" || bail "mkdir"
        for f; do
                cp "$dc/$f" "$E2E_BUNDLE/rootfs/usr/lib/xpu/" || bail "cp $f"
        done
        "$XPU_BUILD/xpuinit" audit --write-index "$E2E_BUNDLE/rootfs/etc/xpuinit/device-code.json" \
                "$E2E_BUNDLE/rootfs/usr/lib/xpu" >/dev/null 2>&1 || bail "audit --write-index for $name"
        e2e_mount_ro "$E2E_BUNDLE" "$host" /xpu/host
        e2e_devices "$E2E_BUNDLE" "$host" "/dev/kfd=105 /dev/dri/*=44"
}

run_args() {
        e2e_args "$E2E_BUNDLE" /usr/bin/xpuinit --sys-root /xpu/host --driver-root /xpu/host "$@"
        e2e_run "$E2E_BUNDLE"
}

# ---- a CUDA-only image on the AMD host -------------------------------------------------------------
image_bundle cuda "$mi210" nvidia/libkernel.so elf/libapp.so
run_args -- /workload
is "$E2E_RC" 125 "cuda on gfx90a: exits 125 before the workload runs"
like "$E2E_ERR" '^xpuinit: error: the image cannot run on gfx90a: this image has CUDA \(libapp.so, libkernel.so\) and nothing for AMD; it cannot run on this node.s 8 × .* \(gfx90a\)' \
        "cuda on gfx90a: one line names the image's CUDA libraries and the node's GPUs"
unlike "$E2E_OUT" '^uid=' "cuda on gfx90a: the workload did not run"
is "$(grep -c 'xpuinit: error:' "$E2E_ERR")" 1 "cuda on gfx90a: exactly one error line"

# XPUINIT_DEVICE_CODE=warn starts it anyway, with the same line as a warning.
image_bundle cuda-warn "$mi210" nvidia/libkernel.so
e2e_env "$E2E_BUNDLE" XPUINIT_DEVICE_CODE=warn
run_args -- /workload
is "$E2E_RC" 0 "cuda on gfx90a, XPUINIT_DEVICE_CODE=warn: starts"
like "$E2E_ERR" '^xpuinit: warning: the image cannot run on gfx90a' "cuda on gfx90a, warn: the verdict is a warning"

# ---- a HIP image with gfx90a code on the same host starts -----------------------------------------
image_bundle hip "$mi210" amd/libhip.so
run_args -- /workload
is "$E2E_RC" 0 "hip (gfx90a:sramecc+:xnack-, gfx1030) on gfx90a: starts"
[ "$E2E_RC" -eq 0 ] || e2e_show
unlike "$E2E_ERR" 'device code' "hip on gfx90a: nothing to say"

# ---- gfx1030-only code on a gfx1031 host ------------------------------------------------------------
image_bundle g1030 "$E2E_TMP/host1031" amd/libhip1030.so
run_args -- /workload
is "$E2E_RC" 125 "gfx1030 image on gfx1031: exits 125"
like "$E2E_ERR" '^xpuinit: error: device code for gfx1031 runs only with HSA_OVERRIDE_GFX_VERSION=10\.3\.0: libhip1030.so has no code object for this node.s 8 × .*\(gfx1031\).*set HSA_OVERRIDE_GFX_VERSION=10\.3\.0 for the container, or XPUINIT_DEVICE_CODE=apply' \
        "gfx1030 image on gfx1031: the line names the GPU, the image's target, the object and the variable to set"

image_bundle g1030-set "$E2E_TMP/host1031" amd/libhip1030.so
e2e_env "$E2E_BUNDLE" HSA_OVERRIDE_GFX_VERSION=10.3.0
run_args -- /workload --expect-env HSA_OVERRIDE_GFX_VERSION=10.3.0
is "$E2E_RC" 0 "gfx1030 image on gfx1031, HSA_OVERRIDE_GFX_VERSION=10.3.0 set by the user: starts"
[ "$E2E_RC" -eq 0 ] || e2e_show

image_bundle g1030-apply "$E2E_TMP/host1031" amd/libhip1030.so
e2e_env "$E2E_BUNDLE" XPUINIT_DEVICE_CODE=apply
run_args -- /workload --expect-env HSA_OVERRIDE_GFX_VERSION=10.3.0
is "$E2E_RC" 0 "gfx1030 image on gfx1031, XPUINIT_DEVICE_CODE=apply: starts with HSA_OVERRIDE_GFX_VERSION=10.3.0"
[ "$E2E_RC" -eq 0 ] || e2e_show
like "$E2E_ERR" '^xpuinit: warning: device code for gfx1031: setting HSA_OVERRIDE_GFX_VERSION=10\.3\.0 for the workload' \
        "gfx1030 image on gfx1031, apply: a warning says what was set"

# The verdict is judged before the plan on the environment the workload gets: the image's with its
# profile's edits. A profile that sets the override starts the image; one that unsets the user's
# stops it.
# image_profile BUNDLE EDITS: the image's own profile for AMD GPUs with the env EDITS (JSON).
image_profile() {
        mkdir -p "$1/rootfs/etc/xpuinit/profiles.d" || bail "mkdir profiles.d"
        printf '{ "name": "amd-own", "priority": 200, "match": { "vendor": "amd", "min_devices": 1 },
  "device_nodes": ["/dev/kfd"], "env": %s, "seccomp": "default" }\n' "$2" \
                >"$1/rootfs/etc/xpuinit/profiles.d/amd-own.json" || bail "write the profile"
}
image_bundle g1030-profile "$E2E_TMP/host1031" amd/libhip1030.so
image_profile "$E2E_BUNDLE" '{ "set": { "HSA_OVERRIDE_GFX_VERSION": "10.3.0" } }'
run_args -- /workload --expect-env HSA_OVERRIDE_GFX_VERSION=10.3.0 # (only amd-own sets it)
is "$E2E_RC" 0 "gfx1030 image on gfx1031, HSA_OVERRIDE_GFX_VERSION=10.3.0 set by the image's profile: starts"
[ "$E2E_RC" -eq 0 ] || e2e_show

image_bundle g1030-unset "$E2E_TMP/host1031" amd/libhip1030.so
image_profile "$E2E_BUNDLE" '{ "unset": ["HSA_OVERRIDE_GFX_VERSION"] }'
e2e_env "$E2E_BUNDLE" HSA_OVERRIDE_GFX_VERSION=10.3.0
run_args -- /workload
is "$E2E_RC" 125 "gfx1030 image on gfx1031, the user's override unset by the image's profile: exits 125"
like "$E2E_ERR" 'runs only with HSA_OVERRIDE_GFX_VERSION=10\.3\.0' "profile-unset override: the line names the variable"

# ---- no index: the start goes on; -v names the RUN line to add ----------------------------------------
e2e_bundle noindex
e2e_mount_ro "$E2E_BUNDLE" "$mi210" /xpu/host
e2e_devices "$E2E_BUNDLE" "$mi210" "/dev/kfd=105 /dev/dri/*=44"
run_args -v -- /workload
is "$E2E_RC" 0 "no index: starts"
like "$E2E_ERR" 'no device-code index at /etc/xpuinit/device-code.json.*RUN xpuinit audit --write-index /etc/xpuinit/device-code.json /' \
        "no index: the info line names the RUN line to add"

e2e_done
