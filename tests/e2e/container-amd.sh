#!/bin/sh
# End to end, AMD: xpuinit is the process of a runc container on the amd-mi210x8 fixture host
# (8 MI210, KFD topology, /dev/kfd 510:0 group render 105, render nodes group video 44). The
# workload must see /dev/kfd and the render nodes, both groups among its supplementary groups,
# ROCR_VISIBLE_DEVICES in KFD order, and no injected library.
. "$(dirname "$0")/lib.sh"
e2e_init

e2e_fixture amd-mi210x8
fx=$E2E_FIXTURE
[ -f "$fx/expected.json" ] || bail "$fx/expected.json is missing"
# The selection in KFD order, as ROCm's UUIDs ("GPU-" + unique_id) or as indices.
amd_uuids() { jq -r '[.amd.devices | sort_by(.index)[] | "GPU-" + .unique_id] | join(",")' "$fx/expected.json"; }
amd_uuid() { jq -r --argjson i "$1" '.amd.devices[] | select(.index == $i) | "GPU-" + .unique_id' "$fx/expected.json"; }
all_uuids=$(amd_uuids)
is "$(printf '%s' "$all_uuids" | tr ',' '\n' | grep -c '^GPU-')" 8 "fixture oracle lists 8 AMD GPUs"

amd_bundle() {
        name=$1
        shift
        e2e_bundle "$name"
        e2e_mount_ro "$E2E_BUNDLE" "$fx" /xpu/host
        e2e_args "$E2E_BUNDLE" /usr/bin/xpuinit --sys-root /xpu/host --driver-root /xpu/host "$@"
        e2e_devices "$E2E_BUNDLE" "$fx" "/dev/kfd=105 /dev/dri/*=44"
}

# rocr_is DESC UUIDS INDICES: ROCR_VISIBLE_DEVICES is the UUID list or the index list.
rocr_is() {
        got=$(e2e_fact env.ROCR_VISIBLE_DEVICES)
        if [ "$got" = "$2" ] || [ "$got" = "$3" ]; then
                ok "$1"
        else
                not_ok "$1"
                diag "got:  '$got'" "want: '$2'" "  or: '$3'"
        fi
}

# ---- all GPUs ---------------------------------------------------------------------------------------
amd_bundle all -- /workload --expect-node /dev/kfd=510:0 --expect-node /dev/dri/renderD128=226:128 \
        --expect-node /dev/dri/renderD135=226:135 --expect-group 105 --expect-group 44 \
        --expect-env-prefix ROCR_VISIBLE_DEVICES= --expect-no-cuda --expect-unset CUDA_VISIBLE_DEVICES \
        --list-dir /run/xpuinit/lib
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "all: xpuinit ran the workload and every workload check passed"
[ "$E2E_RC" -eq 0 ] || e2e_show
is "$(e2e_fact node./dev/kfd)" "c 510:0 mode=0660 gid=105" "all: /dev/kfd present, 510:0, group 105"
is "$(e2e_fact node./dev/dri/renderD130)" "c 226:130 mode=0660 gid=44" "all: renderD130 present, group 44"
like "$E2E_OUT" '^groups=(.*,)?105(,.*)?$' "all: supplementary groups include render (105, /dev/kfd's group)"
like "$E2E_OUT" '^groups=(.*,)?44(,.*)?$' "all: supplementary groups include video (44, the render nodes' group)"
rocr_is "all: ROCR_VISIBLE_DEVICES = the 8 GPUs in KFD order" "$all_uuids" "0,1,2,3,4,5,6,7"
dir=$(e2e_fact dir./run/xpuinit/lib)
case "$dir" in
missing | "") ok "all: no library injected (/run/xpuinit/lib ${dir:-empty})" ;;
*) not_ok "all: no library injected"
        diag "/run/xpuinit/lib: $dir" ;;
esac
unlike "$E2E_OUT" '^env\.LD_LIBRARY_PATH=' "all: LD_LIBRARY_PATH not set"
is "$(e2e_fact ppid)" 1 "all: the workload is a child of xpuinit, PID 1"

# ---- one GPU by index: KFD index 2 is 0000:03:00.0, renderD130 ------------------------------------
amd_bundle one -- /workload --expect-group 105 --expect-group 44
e2e_env "$E2E_BUNDLE" XPU_VISIBLE_DEVICES=2
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "one: XPU_VISIBLE_DEVICES=2 runs, groups still granted"
[ "$E2E_RC" -eq 0 ] || e2e_show
rocr_is "one: ROCR_VISIBLE_DEVICES names only KFD GPU 2" "$(amd_uuid 2)" "2"

# ---- AMD_VISIBLE_DEVICES by PCI bus id (bus order != KFD order) -----------------------------------
amd_bundle bus -- /workload
e2e_env "$E2E_BUNDLE" AMD_VISIBLE_DEVICES=0000:63:00.0,0000:03:00.0
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "bus: AMD_VISIBLE_DEVICES with PCI bus ids runs"
[ "$E2E_RC" -eq 0 ] || e2e_show
rocr_is "bus: 0000:63:00.0,0000:03:00.0 = KFD GPUs 0 and 2" "$(amd_uuid 0),$(amd_uuid 2)" "0,2"

# Names the driver gives none of (no FRU product_name) come from the host's PCI ID database in the
# driver root, as rocm-smi's did for the capture amd-mi100x4 is made from; the JSON says so.
e2e_fixture amd-mi100x4
mi100=$E2E_FIXTURE
"$XPU_BUILD/xpuinit" --sys-root "$mi100" --dev-root "$mi100" --driver-root "$mi100" probe --json \
        >"$E2E_TMP/names.json" 2>"$E2E_TMP/names.err"
is "$(jq -r '[.devices[].name] | unique | join("|")' "$E2E_TMP/names.json")" "Arcturus GL-XL [Instinct MI100]" \
        "names: the 4 MI100s are named from the driver root's pci.ids"
is "$(jq -r '[.devices[].sources.name] | unique | join("|")' "$E2E_TMP/names.json")" "pci.ids" \
        "names: probe --json says the name came from pci.ids"
mkdir -p "$E2E_TMP/empty-driver-root"
"$XPU_BUILD/xpuinit" --sys-root "$mi100" --dev-root "$mi100" --driver-root "$E2E_TMP/empty-driver-root" probe \
        >"$E2E_TMP/names.txt" 2>&1
like "$E2E_TMP/names.txt" '0000:83:00.0  \(name unknown\)' "names: no database in the driver root, no name (never guessed)"

# A host whose GPUs this container was not given: the warning names each node looked for once
# (/dev/kfd belongs to every GPU) and the dev root it looked under.
mkdir -p "$E2E_TMP/no-dev"
"$XPU_BUILD/xpuinit" --sys-root "$fx" --dev-root "$E2E_TMP/no-dev" --driver-root "$fx" plan -- /bin/true \
        >/dev/null 2>"$E2E_TMP/not-given.err"
is "$(cat "$E2E_TMP/not-given.err")" "xpuinit: warning: found 8 AMD GPUs, 0 given to this container: request them (--gpus/--device, a Kubernetes resource or a CDI device); looked for /dev/kfd, /dev/dri/renderD128, /dev/dri/renderD129 and 6 more under the dev root $E2E_TMP/no-dev: not found (the dev root is the directory that holds dev/)" \
        "not-given: the warning names /dev/kfd once, the render nodes and the dev root"

e2e_done
