#!/bin/sh
# End to end, Intel: xpuinit is the process of a runc container on the intel-max1550-x6-aurora
# fixture host (six Data Center GPU Max 1550 on i915, two tiles each, in two PCI domains; render
# nodes group render 109, card nodes group video 44). The workload must see the render and card
# nodes, both groups among its supplementary groups, ZE_ENABLE_PCI_ID_DEVICE_ORDER=1, no injected
# library, and a ZE_AFFINITY_MASK in Level Zero's numbers when XPU_VISIBLE_DEVICES narrows.
. "$(dirname "$0")/lib.sh"
e2e_init

e2e_fixture intel-max1550-x6-aurora
fx=$E2E_FIXTURE
[ -f "$fx/expected.json" ] || bail "$fx/expected.json is missing"
is "$(jq -r '[.intel.devices[].pci_bus_id] | join(",")' "$fx/expected.json")" \
        "0000:18:00.0,0000:42:00.0,0000:6c:00.0,0001:18:00.0,0001:42:00.0,0001:6c:00.0" \
        "fixture oracle lists the 6 GPUs in PCI bus order, domain first"

intel_bundle() {
        name=$1
        shift
        e2e_bundle "$name"
        e2e_mount_ro "$E2E_BUNDLE" "$fx" /xpu/host
        e2e_args "$E2E_BUNDLE" /usr/bin/xpuinit --sys-root /xpu/host --driver-root /xpu/host "$@"
        e2e_devices "$E2E_BUNDLE" "$fx" "/dev/dri/renderD*=109 /dev/dri/card*=44"
}

# ---- all GPUs ---------------------------------------------------------------------------------------
intel_bundle all -- /workload --expect-node /dev/dri/renderD128=226:128 --expect-node /dev/dri/renderD133=226:133 \
        --expect-node /dev/dri/card5=226:5 --expect-group 109 --expect-group 44 \
        --expect-env ZE_ENABLE_PCI_ID_DEVICE_ORDER=1 --expect-unset ZE_AFFINITY_MASK --expect-no-cuda \
        --list-dir /run/xpuinit/lib
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "all: xpuinit ran the workload and every workload check passed"
[ "$E2E_RC" -eq 0 ] || e2e_show
is "$(e2e_fact node./dev/dri/renderD131)" "c 226:131 mode=0660 gid=109" "all: renderD131 present, group render"
like "$E2E_OUT" '^groups=(.*,)?109(,.*)?$' "all: supplementary groups include render (109, the render nodes' group)"
like "$E2E_OUT" '^groups=(.*,)?44(,.*)?$' "all: supplementary groups include video (44, the card nodes' group)"
dir=$(e2e_fact dir./run/xpuinit/lib)
case "$dir" in
missing | "") ok "all: no library injected (/run/xpuinit/lib ${dir:-empty})" ;;
*) not_ok "all: no library injected"
        diag "/run/xpuinit/lib: $dir" ;;
esac

# ---- XPU_VISIBLE_DEVICES by PCI bus id: the workload's Level Zero gets the GPU's two tiles ------
intel_bundle xpu -- /workload --expect-env ZE_AFFINITY_MASK=6,7
e2e_env "$E2E_BUNDLE" XPU_VISIBLE_DEVICES=0001:18:00.0 ZE_AFFINITY_MASK=0
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "xpu: XPU_VISIBLE_DEVICES=0001:18:00.0 runs with ZE_AFFINITY_MASK=6,7 (FLAT: its tiles)"
[ "$E2E_RC" -eq 0 ] || e2e_show

intel_bundle composite -- /workload --expect-env ZE_AFFINITY_MASK=3
e2e_env "$E2E_BUNDLE" XPU_VISIBLE_DEVICES=intel:3 ZE_FLAT_DEVICE_HIERARCHY=COMPOSITE
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "composite: XPU_VISIBLE_DEVICES=intel:3 gives ZE_AFFINITY_MASK=3 in the COMPOSITE hierarchy"
[ "$E2E_RC" -eq 0 ] || e2e_show

# ---- the image's own ZE_AFFINITY_MASK selects, and reaches the workload as it was -----------------
intel_bundle ze -- /workload --expect-env ZE_AFFINITY_MASK=4,5 --expect-node /dev/dri/renderD130=226:130
e2e_env "$E2E_BUNDLE" ZE_AFFINITY_MASK=4,5
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "ze: ZE_AFFINITY_MASK=4,5 runs, the mask unchanged"
[ "$E2E_RC" -eq 0 ] || e2e_show
host="$E2E_TMP/host"
if ! cp -R "$fx" "$host" || ! chmod -R u+w "$host" || ! e2e_dev_root "$fx" "$host"; then
        bail "cannot make a dev root"
fi
ZE_AFFINITY_MASK=4,5 "$XPU_BUILD/xpuinit" --sys-root "$host" --dev-root "$host" --driver-root "$host" plan --json \
        >"$E2E_TMP/plan.json" 2>"$E2E_TMP/plan.err"
is "$(jq -r '[.devices[].pci_bus_id] | join(",")' "$E2E_TMP/plan.json")" "0000:6c:00.0" \
        "ze: the plan takes the GPU whose tiles are FLAT devices 4 and 5 (0000:6c:00.0)"
is "$(jq -r '.profile' "$E2E_TMP/plan.json")" "intel-oneapi" "ze: ... with the intel-oneapi profile"

# ---- a mask that names no device stops the start, naming the variable ----------------------------
intel_bundle bad -- /workload
e2e_env "$E2E_BUNDLE" ZE_AFFINITY_MASK=12
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 125 "bad: ZE_AFFINITY_MASK=12 (12 tiles: 0..11) stops the start with 125"
like "$E2E_ERR" 'ZE_AFFINITY_MASK="12": no device 12 in the FLAT hierarchy' "bad: the message names the variable and the entry"

e2e_done
