#!/bin/sh
# End to end, NVIDIA MIG: xpuinit is the process of a runc container on the nvidia-a100-mig
# fixture host (one A100 in MIG mode, MIG devices 0:0..0:3 = GPU instances 3..6, compute instance
# 0, capability nodes /dev/nvidia-caps/nvidia-cap165..193; fake libnvidia-ml in the driver root
# that knows the MIG UUIDs). The workload proves from inside which nodes it got and what CUDA is
# told: the parent's /dev/nvidia1 and the selected MIG device's two capability nodes, never the
# whole GPU, and CUDA_VISIBLE_DEVICES naming that MIG device.
. "$(dirname "$0")/lib.sh"
e2e_init

e2e_fixture nvidia-a100-mig
fx=$E2E_FIXTURE
e2e_driver_root "$fx" "$E2E_TMP/driver"
gpu=$(e2e_nvidia_uuids "$fx")
is "$gpu" GPU-202d648d-7b39-6345-296c-251c4321e21c "fixture: the A100's UUID"
caps_major=$(e2e_proc_major "$fx" nvidia-caps)
is "$caps_major" 238 "fixture: nvidia-caps major 238"
# What only NVML knows: the MIG UUIDs of GPU instances 3..6 (NVML index order).
state="$E2E_TMP/driver/xpu-fake-state"
e2e_mig_state "$state"

# mig_bundle NAME [XPUINIT OPTION...] -- WORKLOAD ARG...: a bundle on the fixture host.
mig_bundle() {
        name=$1
        shift
        e2e_xpuinit_bundle "$name" "$fx" "$E2E_TMP/driver" "$@"
}

# The nodes a container given only MIG device 0:1 has (what a device plugin or CDI gives).
give_one_mig() {
        e2e_device "$E2E_BUNDLE" /dev/nvidia1 195 1
        e2e_device "$E2E_BUNDLE" /dev/nvidiactl 195 255
        e2e_device "$E2E_BUNDLE" /dev/nvidia-uvm 511 0
        e2e_device "$E2E_BUNDLE" /dev/nvidia-caps/nvidia-cap174 238 174
        e2e_device "$E2E_BUNDLE" /dev/nvidia-caps/nvidia-cap175 238 175
}

# ---- "0:1" (the toolkit's <gpu>:<mig>): parent node + GI and CI caps, the procfs-only name -------
mig_bundle index -- /workload --expect-node /dev/nvidia1=195:1 \
        --expect-node /dev/nvidia-caps/nvidia-cap174=238:174 --expect-node /dev/nvidia-caps/nvidia-cap175=238:175
e2e_env "$E2E_BUNDLE" NVIDIA_VISIBLE_DEVICES=0:1
e2e_devices "$E2E_BUNDLE" "$fx"
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "index: NVIDIA_VISIBLE_DEVICES=0:1 starts the workload"
[ "$E2E_RC" -eq 0 ] || e2e_show
is "$(e2e_fact env.CUDA_VISIBLE_DEVICES)" "MIG-$gpu/4/0" \
        "index: CUDA_VISIBLE_DEVICES names GPU instance 4 in CUDA's MIG-<gpu uuid>/<gi>/<ci> form (no NVML needed)"
is "$(e2e_fact node./dev/nvidia-caps/nvidia-cap174)" "c 238:174 mode=0666 gid=0" "index: the GI capability node"
is "$(e2e_fact env.NVIDIA_VISIBLE_DEVICES)" void "index: NVIDIA_VISIBLE_DEVICES=void for the workload, as the profile says"

# ---- "MIG-<uuid>" (what the device plugin's MIG strategies and the DRA driver pass): NVML read ----
mig_bundle uuid -- /workload --expect-env CUDA_VISIBLE_DEVICES=MIG-3f0c1a2b-0000-5000-8000-000000000002
e2e_env "$E2E_BUNDLE" NVIDIA_VISIBLE_DEVICES=MIG-3f0c1a2b-0000-5000-8000-000000000002
e2e_devices "$E2E_BUNDLE" "$fx"
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "uuid: NVIDIA_VISIBLE_DEVICES=MIG-<uuid> starts the workload"
[ "$E2E_RC" -eq 0 ] || e2e_show
is "$(e2e_fact env.CUDA_VISIBLE_DEVICES)" MIG-3f0c1a2b-0000-5000-8000-000000000002 \
        "uuid: CUDA_VISIBLE_DEVICES is that MIG UUID"

# ---- "MIG-<uuid>" and a requirement on the CUDA version: one read of the vendor libraries --------
# The selection decides once what it reads: the requirement's facts (NVML, else libcuda) and the MIG
# UUID's (NVML) in one helper run, NVML once, libcuda not at all once NVML answered.
mig_bundle uuid-require -- /workload --expect-env CUDA_VISIBLE_DEVICES=MIG-3f0c1a2b-0000-5000-8000-000000000002
e2e_env "$E2E_BUNDLE" NVIDIA_VISIBLE_DEVICES=MIG-3f0c1a2b-0000-5000-8000-000000000002 "XPU_REQUIRE=cuda>=11.0" \
        XPUINIT_LOG_LEVEL=info
e2e_devices "$E2E_BUNDLE" "$fx"
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "uuid-require: MIG-<uuid> with a cuda requirement starts the workload"
[ "$E2E_RC" -eq 0 ] || e2e_show
is "$(grep -c 'nvml: [0-9]* device(s) matched' "$E2E_ERR")" 1 "uuid-require: NVML read once, for both"
unlike "$E2E_ERR" 'cuda: [0-9]* device(s) matched' "uuid-require: libcuda not read once NVML answered"

# ---- MIG-GPU-<uuid>/<gi>/<ci> and a CDI name of nvidia-ctk's ------------------------------------
n=0
for v in "MIG-$gpu/6/0" "nvidia.com/gpu=0:3"; do
        n=$((n + 1))
        mig_bundle "legacy$n" -- /workload
        e2e_env "$E2E_BUNDLE" "NVIDIA_VISIBLE_DEVICES=$v"
        e2e_devices "$E2E_BUNDLE" "$fx"
        e2e_run "$E2E_BUNDLE"
        is "$E2E_RC" 0 "$v: starts"
        is "$(e2e_fact env.CUDA_VISIBLE_DEVICES)" "MIG-$gpu/6/0" "$v: CUDA_VISIBLE_DEVICES names GPU instance 6"
done

# ---- a runtime that gave one MIG device, nothing asked: that MIG device, not the GPU -------------
mig_bundle given -- /workload --expect-no-node /dev/nvidia-caps/nvidia-cap165
give_one_mig
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "given: the workload starts with one MIG device's nodes"
[ "$E2E_RC" -eq 0 ] || e2e_show
is "$(e2e_fact env.CUDA_VISIBLE_DEVICES)" "MIG-$gpu/4/0" \
        "given: CUDA_VISIBLE_DEVICES is the MIG device the runtime gave, not the whole GPU"
unlike "$E2E_ERR" 'warning' "given: no warning"

# ---- asking for a MIG device the runtime did not give: 125, the missing node named ---------------
mig_bundle notgiven -- /workload
e2e_env "$E2E_BUNDLE" NVIDIA_VISIBLE_DEVICES=0:2
give_one_mig
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 125 "notgiven: NVIDIA_VISIBLE_DEVICES=0:2 with only 0:1's nodes exits 125"
like "$E2E_ERR" 'names MIG device 0:2 \(GPU instance 5, compute instance 0 of GPU-202d648d-7b39-6345-296c-251c4321e21c\), which the container runtime did not give to this container \(/dev/nvidia-caps/nvidia-cap183 is missing\)' \
        "notgiven: the error names the MIG device and its missing capability node"
unlike "$E2E_OUT" '^pid=' "notgiven: the workload never started"

# ---- no such MIG device: 125 with the list ----------------------------------------------------
mig_bundle nosuch -- /workload
e2e_env "$E2E_BUNDLE" NVIDIA_VISIBLE_DEVICES=0:7
e2e_devices "$E2E_BUNDLE" "$fx"
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 125 "nosuch: NVIDIA_VISIBLE_DEVICES=0:7 exits 125"
like "$E2E_ERR" '"0:7": device 0 has MIG devices 0:0 to 0:3; MIG devices: 0:0 \(gi 3 ci 0\), 0:1 \(gi 4 ci 0\)' \
        "nosuch: the error lists the MIG devices"

# ---- the whole GPU of a MIG-mode A100: runs, with the warning that CUDA sees no MIG device --------
mig_bundle whole -- /workload
e2e_env "$E2E_BUNDLE" NVIDIA_VISIBLE_DEVICES=0
e2e_devices "$E2E_BUNDLE" "$fx"
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "whole: NVIDIA_VISIBLE_DEVICES=0 starts"
is "$(e2e_fact env.CUDA_VISIBLE_DEVICES)" "$gpu" "whole: CUDA_VISIBLE_DEVICES is the GPU's UUID"
like "$E2E_ERR" "warning: GPU 0 \\($gpu\\) is in MIG mode and given whole: CUDA sees none of its MIG devices" \
        "whole: the start warns that CUDA sees none of its MIG devices"

# ---- NVIDIA_MIG_MONITOR_DEVICES=all: the host-wide monitor capability node too; without the node
# the start stops before anything changes; a value other than "all" is refused -------------------
mig_bundle monitor -- /workload --expect-node /dev/nvidia-caps/nvidia-cap2=238:2
e2e_env "$E2E_BUNDLE" NVIDIA_VISIBLE_DEVICES=0:1 NVIDIA_MIG_MONITOR_DEVICES=all
give_one_mig
e2e_device "$E2E_BUNDLE" /dev/nvidia-caps/nvidia-cap2 238 2
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "monitor: NVIDIA_MIG_MONITOR_DEVICES=all with the node given starts the workload"
[ "$E2E_RC" -eq 0 ] || e2e_show
mig_bundle monitor-missing -- /workload
e2e_env "$E2E_BUNDLE" NVIDIA_VISIBLE_DEVICES=0:1 NVIDIA_MIG_MONITOR_DEVICES=all
give_one_mig
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 125 "monitor-missing: exit 125"
like "$E2E_ERR" '/dev/nvidia-caps/nvidia-cap2' "monitor-missing: the message names the missing capability node"
mig_bundle config-bad -- /workload
e2e_env "$E2E_BUNDLE" NVIDIA_MIG_CONFIG_DEVICES=0
give_one_mig
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 125 "config-bad: NVIDIA_MIG_CONFIG_DEVICES=0 exits 125"
like "$E2E_ERR" 'NVIDIA_MIG_CONFIG_DEVICES="0": only "all" is supported' "config-bad: the message says only all"

e2e_done
