#!/bin/sh
# End to end, fabric device sets: xpuinit is the process of a runc container on the
# nvidia-fabric-imex-rdma fixture host (2 H100, IMEX channels, InfiniBand verbs/rdma_cm/umad/issm,
# gdrdrv, nvidia-fs, NVSwitch). The runtime gives every node of the host, each fabric node 0660
# with a group of its own, so the workload's supplementary groups say exactly which nodes it may
# open: those of the sets asked for (NVIDIA_IMEX_CHANNELS, XPU_RDMA / NVIDIA_MOFED,
# NVIDIA_GDRCOPY, NVIDIA_GDS, NVIDIA_NVSWITCH) and no other. A channel that does not exist, or that
# the runtime did not give, a channel node whose minor is not its id, and a bad value exit 125
# before the workload.
. "$(dirname "$0")/lib.sh"
e2e_init

e2e_fixture nvidia-fabric-imex-rdma
fx=$E2E_FIXTURE
e2e_driver_root "$fx" "$E2E_TMP/driver"
is "$E2E_GPUS" 2 "fixture has 2 GPUs"

# One group per kind of fabric node (first match wins).
groups="/dev/nvidia-caps-imex-channels/channel0=3000 /dev/nvidia-caps-imex-channels/channel1=3001
        /dev/infiniband/uverbs*=3010 /dev/infiniband/rdma_cm=3011 /dev/infiniband/umad*=3012
        /dev/infiniband/issm*=3013 /dev/gdrdrv=3020 /dev/nvidia-fs*=3030 /dev/nvidia-nvswitch*=3040"

# fab NAME VAR=VALUE... -- WORKLOAD ARG...: a bundle on the fixture host with every node given.
fab() {
        name=$1
        shift
        vars=
        while [ "$#" -gt 0 ] && [ "$1" != -- ]; do
                vars="$vars $1"
                shift
        done
        [ "$#" -gt 0 ] && shift
        e2e_xpuinit_bundle "$name" "$fx" "$E2E_TMP/driver" -- /workload "$@"
        for v in $vars; do
                e2e_env "$E2E_BUNDLE" "$v"
        done
        e2e_devices "$E2E_BUNDLE" "$fx" "$(printf '%s' "$groups" | tr -s ' \n' '  ')"
}

# fabric_groups: the workload's supplementary groups of the fabric range (3000-3099), sorted.
fabric_groups() {
        e2e_fact groups | tr ',' '\n' | awk '$1 >= 3000 && $1 < 3100' | sort -n | paste -sd, -
}

# ---- IMEX channel 1 and RDMA: exactly those nodes' groups ------------------------------------------
fab imex-rdma NVIDIA_IMEX_CHANNELS=1 XPU_RDMA=enabled -- \
        --expect-node /dev/nvidia-caps-imex-channels/channel1=234:1 \
        --expect-node /dev/infiniband/uverbs0=231:192 --expect-node /dev/infiniband/rdma_cm=10:56 \
        --expect-group 3001 --expect-group 3010 --expect-group 3011 --expect-group 3012
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "imex-rdma: xpuinit ran the workload and every workload check passed"
[ "$E2E_RC" -eq 0 ] || e2e_show
is "$(fabric_groups)" "3001,3010,3011,3012" \
        "imex-rdma: the workload may open channel1, uverbs, rdma_cm and umad, and no other fabric node"

# ---- every channel, and NVIDIA_MOFED for RDMA ------------------------------------------------------
fab all-mofed NVIDIA_IMEX_CHANNELS=all NVIDIA_MOFED=enabled -- --expect-group 3000 --expect-group 3001
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "all-mofed: runs"
[ "$E2E_RC" -eq 0 ] || e2e_show
is "$(fabric_groups)" "3000,3001,3010,3011,3012" "all-mofed: both channels and the RDMA nodes (NVIDIA_MOFED), no issm"

# ---- GDRCopy, GPUDirect Storage, NVSwitch -----------------------------------------------------------
fab gdr-gds-nvswitch NVIDIA_GDRCOPY=enabled NVIDIA_GDS=enabled NVIDIA_NVSWITCH=enabled -- \
        --expect-node /dev/gdrdrv=508:0 --expect-node /dev/nvidia-fs1=507:1 \
        --expect-node /dev/nvidia-nvswitchctl=509:255
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "gdr-gds-nvswitch: runs"
[ "$E2E_RC" -eq 0 ] || e2e_show
is "$(fabric_groups)" "3020,3030,3040" "gdr-gds-nvswitch: gdrdrv, nvidia-fs and nvswitch groups only"

# ---- an image profile asks for IMEX and GDRCopy; its variable still decides -----------------------
mkdir -p "$E2E_TMP/profiles"
cat >"$E2E_TMP/profiles/nccl.json" <<'JSON'
{ "name": "nccl", "priority": 200, "match": { "vendor": "nvidia" },
  "device_nodes": ["/dev/nvidiactl"], "fabric": ["imex", "gdrcopy"] }
JSON
fab profile --
e2e_mount_ro "$E2E_BUNDLE" "$E2E_TMP/profiles" /etc/xpuinit/profiles.d
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "profile: runs"
[ "$E2E_RC" -eq 0 ] || e2e_show
is "$(fabric_groups)" "3000,3001,3020" "profile: \"fabric\": [\"imex\", \"gdrcopy\"] gives every channel and gdrdrv"
fab profile-var NVIDIA_IMEX_CHANNELS=0 --
e2e_mount_ro "$E2E_BUNDLE" "$E2E_TMP/profiles" /etc/xpuinit/profiles.d
e2e_run "$E2E_BUNDLE"
is "$(fabric_groups)" "3000,3020" "profile-var: NVIDIA_IMEX_CHANNELS=0 narrows the profile's channels to channel0"

# ---- nothing asked: no fabric group ----------------------------------------------------------------
fab none --
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "none: runs"
is "$(fabric_groups)" "" "none: no fabric node's group without a request"

# ---- a channel that does not exist: 125, the channel and the fix named -----------------------------
fab missing NVIDIA_IMEX_CHANNELS=0,7 --
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 125 "missing: NVIDIA_IMEX_CHANNELS=0,7 fails before the workload (125)"
like "$E2E_ERR" 'NVIDIA_IMEX_CHANNELS=0,7 asks for IMEX channel 7, but /dev/nvidia-caps-imex-channels/channel7 is not in the container \(it has: channel0, channel1\)' \
        "missing: the error names the channel and the channels the container has"
unlike "$E2E_OUT" '^pid=' "missing: the workload never started"

# ---- the runtime gave channel0 only: asking for channel1 is 125 -----------------------------------
e2e_xpuinit_bundle narrow "$fx" "$E2E_TMP/driver" -- /workload
e2e_env "$E2E_BUNDLE" NVIDIA_IMEX_CHANNELS=1
e2e_device "$E2E_BUNDLE" /dev/nvidia0 195 0
e2e_device "$E2E_BUNDLE" /dev/nvidiactl 195 255
e2e_device "$E2E_BUNDLE" /dev/nvidia-uvm 510 0
e2e_device "$E2E_BUNDLE" /dev/nvidia-caps-imex-channels/channel0 234 0
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 125 "narrow: channel 1 not given by the runtime: 125"
like "$E2E_ERR" 'channel1 is not in the container \(it has: channel0\)' "narrow: says which channel the container has"

# ---- the runtime gave channel0 with channel 7's numbers: 125, the numbers and the fix named ----------
e2e_xpuinit_bundle minor "$fx" "$E2E_TMP/driver" -- /workload
e2e_env "$E2E_BUNDLE" NVIDIA_IMEX_CHANNELS=0
e2e_device "$E2E_BUNDLE" /dev/nvidia0 195 0
e2e_device "$E2E_BUNDLE" /dev/nvidiactl 195 255
e2e_device "$E2E_BUNDLE" /dev/nvidia-uvm 510 0
e2e_device "$E2E_BUNDLE" /dev/nvidia-caps-imex-channels/channel0 234 7
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 125 "minor: channel0 made as 234:7 fails before the workload (125)"
like "$E2E_ERR" 'channel0 is 234:7, but IMEX channel 0 has the minor 0 .*mknod /dev/nvidia-caps-imex-channels/channel0 c 234 0' \
        "minor: the error names the node, its numbers, the expected minor and the fix"
unlike "$E2E_OUT" '^pid=' "minor: the workload never started"

# ---- a bad value: 125 naming the variable -----------------------------------------------------------
fab bad XPU_RDMA=yes --
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 125 "bad: XPU_RDMA=yes fails before the workload (125)"
like "$E2E_ERR" 'XPU_RDMA="yes": expected "enabled" or "disabled"' "bad: the error names the variable and the values"
e2e_done
