#!/bin/sh
# End to end, `xpuinit cdi generate`: the spec xpuinit writes for a fixture host is read by
# Debian's podman (4.3: CDI 0.3.0-0.5.0, unknown fields refused), which starts the image's xpuinit
# with the devices it names. A spec podman refuses fails here ("unresolvable CDI devices").
#   spec:    cdiVersion 0.5.0, kind xpuinit.dev/gpu, names index / UUID / PCI bus id / all, no
#            hooks, no field of a later version; JSON and YAML say the same; bad --kind refused;
#   nvidia:  --device xpuinit.dev/gpu=0, =UUID, =PCI bus id, =all on the 8-GPU RTX 2080 Ti host:
#            exactly those /dev/nvidiaN, the control nodes, CUDA_VISIBLE_DEVICES naming them, and a
#            working libcuda.so.1 that is the host driver's file CDI mounted under
#            /run/nvidia/driver (xpuinit in the image made the soname link); an image that says
#            NVIDIA_VISIBLE_DEVICES=all still gets only the GPU asked for;
#   mig:     the A100 in MIG mode: each MIG device named <gpu>:<mig> and MIG-<uuid>, with its GPU's
#            and its two capability nodes; --device xpuinit.dev/gpu=0:1 and =MIG-<uuid> give the
#            workload that MIG device's nodes and CUDA_VISIBLE_DEVICES naming it;
#   amd:     --device xpuinit.dev/gpu=0 and =all from the YAML spec on the 8-GPU MI210 host:
#            /dev/kfd and the render nodes with their groups (kfd 105, dri 44) in the workload's
#            supplementary groups, ROCR_VISIBLE_DEVICES for the GPU given;
#   xpud:    --cdi-dir writes the same spec as xpuinit.json (dot file + rename) and removes it at
#            SIGTERM.
# Hermetic: specs, dev roots, driver roots and podman's storage below $E2E_TMP; podman sees only
# these specs (e2e_podman_init).
. "$(dirname "$0")/lib.sh"
e2e_init
need_tools podman unshare mount jq python3

XPUINIT_HOST=$XPU_BUILD/xpuinit

# ---- NVIDIA host ---------------------------------------------------------------------------------------
e2e_fixture nvidia-rtx2080ti-x8
fx=$E2E_FIXTURE
drv=$E2E_TMP/driver
e2e_driver_root "$fx" "$drv"
e2e_dev_root "$fx" "$E2E_TMP/nvdev"
ver=$(e2e_nvidia_version "$fx")
lib=$(e2e_nvidia_libdir "$fx")
uuids=$(e2e_nvidia_uuids "$fx" | paste -sd, -)
uuid0=$(printf '%s' "$uuids" | cut -d, -f1)
uuid3=$(printf '%s' "$uuids" | cut -d, -f4)
specs=$E2E_TMP/cdi
mkdir -p "$specs" || bail "cannot create $specs"

"$XPUINIT_HOST" cdi generate --sys-root "$fx" --dev-root "$E2E_TMP/nvdev" --driver-root "$drv" \
        --output "$specs/xpuinit.json" >"$E2E_TMP/gen.out" 2>"$E2E_TMP/gen.err"
is "$?" 0 "spec: cdi generate --output exits 0"
is "$(cat "$E2E_TMP/gen.out")" "" "spec: nothing on stdout with --output"
spec=$specs/xpuinit.json
is "$(jq -r '.cdiVersion + " " + .kind' "$spec")" "0.5.0 xpuinit.dev/gpu" "spec: cdiVersion 0.5.0, kind xpuinit.dev/gpu"
is "$(jq -r '[.devices[].name] | length' "$spec")" 25 "spec: 8 GPUs x (index, UUID, bus id) + all"
is "$(jq -r '[.devices[].name] | map(select(test("^[0-9]$"))) | join(",")' "$spec")" "0,1,2,3,4,5,6,7" \
        "spec: a device per xpuinit index"
is "$(jq -r '[.devices[].name | select(startswith("GPU-"))] | join(",")' "$spec")" "$uuids" "spec: a device per UUID"
is "$(jq -r '[.devices[].name | select(test("^0000:"))] | join(",")' "$spec")" \
        "0000:1a:00.0,0000:1b:00.0,0000:60:00.0,0000:61:00.0,0000:b1:00.0,0000:b2:00.0,0000:da:00.0,0000:db:00.0" \
        "spec: a device per PCI bus id"
is "$(jq -r '[.. | objects | keys[]] | unique | map(select(. as $k | ["cdiVersion","kind","devices","name",
        "containerEdits","env","deviceNodes","mounts","path","hostPath","type","major","minor","fileMode","uid",
        "gid","containerPath","options"] | index($k) | not)) | join(",")' "$spec")" "" \
        "spec: only fields of cdiVersion 0.5.0 (no hooks, annotations, additionalGids)"
is "$(jq -r '.devices[] | select(.name == "3") | [.containerEdits.deviceNodes[].path] | join(",")' "$spec")" \
        "/dev/nvidiactl,/dev/nvidia-uvm,/dev/nvidia-uvm-tools,/dev/nvidia3" "spec: GPU 3's nodes (control nodes + its own)"
is "$(jq -r --arg v "$ver" '.devices[] | select(.name == "0") | .containerEdits.mounts[]
        | select(.containerPath == "/run/nvidia/driver/usr/lib64/libcuda.so." + $v) | .hostPath + " " + (.options | join(","))' "$spec")" \
        "$drv/$lib/libcuda.so.$ver ro,nosuid,nodev,bind" "spec: the host's libcuda.so.$ver mounted read-only under /run/nvidia/driver"
is "$(jq -r '.devices[] | select(.name == "all") | .containerEdits.deviceNodes | length' "$spec")" 11 \
        "spec: all = 8 GPU nodes + 3 control nodes"
is "$(jq -r '.containerEdits.env | join(",")' "$spec")" "XPU_VISIBLE_DEVICES=all" \
        "spec: XPU_VISIBLE_DEVICES=all for every device (xpuinit takes what the engine gave)"
if grep -q warning "$E2E_TMP/gen.err"; then not_ok "spec: no warning"; diag_file "$E2E_TMP/gen.err"; else ok "spec: no warning"; fi

# The same in YAML, to stdout.
"$XPUINIT_HOST" cdi generate --format yaml --sys-root "$fx" --dev-root "$E2E_TMP/nvdev" --driver-root "$drv" \
        >"$E2E_TMP/nv.yaml" 2>"$E2E_TMP/gen.err"
is "$?" 0 "spec: --format yaml exits 0"
like "$E2E_TMP/nv.yaml" '^cdiVersion: "0\.5\.0"$' "spec: YAML keeps 0.5.0 a string"
like "$E2E_TMP/nv.yaml" '^- name: "0"$' "spec: YAML keeps device name 0 a string"
python3 -c 'import json, sys, yaml; a = yaml.safe_load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
sys.exit(0 if a == b else 1)' "$E2E_TMP/nv.yaml" "$spec"
is "$?" 0 "spec: the YAML and the JSON spec are the same document (PyYAML reads it)"

# Usage errors: exit 2, one line.
for k in nvidia.com/gpu amd.com/gpu xpuinit.dev/gpu.x noslash -bad/gpu; do
        "$XPUINIT_HOST" cdi generate --kind "$k" --sys-root "$fx" >/dev/null 2>"$E2E_TMP/kind.err"
        rc=$?
        if [ "$rc" -eq 2 ] && [ "$(grep -c . "$E2E_TMP/kind.err")" -eq 1 ] && grep -q -- "--kind \"$k\"" "$E2E_TMP/kind.err"; then
                ok "spec: --kind $k refused (exit 2, one line naming it)"
        else
                not_ok "spec: --kind $k refused (exit 2, one line naming it)"
                diag "rc $rc" && diag_file "$E2E_TMP/kind.err"
        fi
done
for args in "--output a.json --output b.json" "--json" "--format yaml --format json" "--kind a.b/c --kind a.b/d"; do
        # shellcheck disable=SC2086 # ARGS is a list of words
        "$XPUINIT_HOST" cdi generate $args --sys-root "$fx" >/dev/null 2>"$E2E_TMP/twice.err"
        rc=$?
        if [ "$rc" -eq 2 ] && [ "$(grep -c . "$E2E_TMP/twice.err")" -eq 1 ]; then
                ok "spec: cdi generate $args refused (exit 2, one line)"
        else
                not_ok "spec: cdi generate $args refused (exit 2, one line)"
                diag "rc $rc" && diag_file "$E2E_TMP/twice.err"
        fi
done
# A file name engines never read from a spec directory: written as asked, with a warning.
for f in spec.yml spec.YAML spec; do
        "$XPUINIT_HOST" cdi generate --output "$E2E_TMP/$f" --sys-root "$fx" --dev-root "$E2E_TMP/nvdev" \
                --driver-root "$drv" >/dev/null 2>"$E2E_TMP/name.err"
        rc=$?
        if [ "$rc" -eq 0 ] && [ -s "$E2E_TMP/$f" ] &&
                grep -q "warning: cdi: $E2E_TMP/$f: container engines read only spec files named \*.json or \*.yaml" "$E2E_TMP/name.err"; then
                ok "spec: --output $f is written, with a warning that engines do not read such a name"
        else
                not_ok "spec: --output $f is written, with a warning that engines do not read such a name"
                diag "rc $rc" && diag_file "$E2E_TMP/name.err"
        fi
done
# A driver root whose library directory is a symlink (absolute, as in a driver container's root):
# the spec binds the file that was checked inside the root, never the lexical path, which on the
# host would lead to whatever the symlink names there.
sdrv=$E2E_TMP/symlinked-driver
cp -a "$drv" "$sdrv"
mv "$sdrv/$lib" "$sdrv/moved-libs"
ln -s /moved-libs "$sdrv/$lib"
"$XPUINIT_HOST" cdi generate --sys-root "$fx" --dev-root "$E2E_TMP/nvdev" --driver-root "$sdrv" \
        >"$E2E_TMP/sym.json" 2>"$E2E_TMP/sym.err"
is "$?" 0 "spec: a driver root with a symlinked library directory: exit 0"
is "$(jq -r --arg v "$ver" '.devices[] | select(.name == "0") | .containerEdits.mounts[]
        | select(.containerPath == "/run/nvidia/driver/usr/lib64/libcuda.so." + $v) | .hostPath' "$E2E_TMP/sym.json")" \
        "$(readlink -f "$sdrv")/moved-libs/libcuda.so.$ver" "spec: ... libcuda's hostPath is the file inside the root, symlinks resolved"
is "$(jq -r '[.devices[0].containerEdits.mounts[].hostPath | select(startswith("'"$(readlink -f "$sdrv")"'/moved-libs/") | not)] | map(select(test("/lib")))| length' "$E2E_TMP/sym.json")" 0 \
        "spec: ... and no library hostPath goes through the symlink"
# --host-root given through a symlink strips the same prefix as the resolved one.
ln -s "$E2E_TMP" "$E2E_TMP/host-link"
"$XPUINIT_HOST" cdi generate --sys-root "$fx" --dev-root "$E2E_TMP/host-link/nvdev" --driver-root "$drv" \
        --host-root "$E2E_TMP/host-link" >"$E2E_TMP/hl.json" 2>"$E2E_TMP/hl.err"
is "$?" 0 "spec: --host-root through a symlink: exit 0"
is "$(jq -r '.devices[] | select(.name == "0") | .containerEdits.deviceNodes[] | select(.path == "/dev/nvidia0") | .hostPath' "$E2E_TMP/hl.json")" \
        "/nvdev/dev/nvidia0" "spec: ... host paths are written without it"
# Something at FILE that is not a regular file is never replaced (a symlink such as /dev/stdout,
# a device node such as /dev/null): exit 125, and it is still there, as it was.
ln -s /proc/self/fd/1 "$E2E_TMP/out-link"
mknod "$E2E_TMP/out-null" c 1 3
for f in out-link out-null; do
        before=$(stat -c '%F %t:%T' "$E2E_TMP/$f")
        "$XPUINIT_HOST" cdi generate --output "$E2E_TMP/$f" --sys-root "$fx" --dev-root "$E2E_TMP/nvdev" \
                --driver-root "$drv" >"$E2E_TMP/notreg.out" 2>"$E2E_TMP/notreg.err"
        rc=$?
        if [ "$rc" -eq 125 ] && [ "$(stat -c '%F %t:%T' "$E2E_TMP/$f")" = "$before" ] && [ ! -s "$E2E_TMP/notreg.out" ] &&
                grep -q "is there and is not a regular file" "$E2E_TMP/notreg.err"; then
                ok "spec: --output onto a $before: refused (exit 125), left as it was"
        else
                not_ok "spec: --output onto a $before: refused (exit 125), left as it was"
                diag "rc $rc, now $(stat -c '%F %t:%T' "$E2E_TMP/$f")" && diag_file "$E2E_TMP/notreg.err"
        fi
done
"$XPUINIT_HOST" cdi generate --output "$E2E_TMP/spec.yaml" --sys-root "$fx" --dev-root "$E2E_TMP/nvdev" \
        --driver-root "$drv" >/dev/null 2>"$E2E_TMP/name.err"
is "$?:$(grep -c warning "$E2E_TMP/name.err")" "0:0" "spec: --output spec.yaml: no warning"
like "$E2E_TMP/spec.yaml" '^cdiVersion: "0\.5\.0"$' "spec: ... and YAML, from its name"
"$XPUINIT_HOST" cdi --sys-root "$fx" >/dev/null 2>"$E2E_TMP/verb.err"
is "$?" 2 "spec: cdi without generate is a usage error"
"$XPUINIT_HOST" cdi generate --sys-root "$E2E_TMP" >/dev/null 2>"$E2E_TMP/none.err"
is "$?" 125 "spec: a host without GPUs: exit 125"
like "$E2E_TMP/none.err" 'cdi generate: no GPU on this host' "spec: ... saying there is no GPU"

# ---- podman starts xpuinit with the devices the spec gives ---------------------------------------------
E2E_PODMAN_MOUNTS="-v $fx:/xpu/host:ro -v $drv:/xpu/driver:ro"
e2e_podman_init "$specs"

nv_check() { # NAME WANT: the facts of a run given the GPUs whose UUIDs are WANT (comma-separated)
        is "$(e2e_fact cuda.dlopen)" ok "$1: dlopen(libcuda.so.1) works"
        is "$(e2e_fact cuda.realpath)" "/run/nvidia/driver/usr/lib64/libcuda.so.$ver" \
                "$1: libcuda.so.1 is the host driver's file that CDI mounted"
        is "$(e2e_fact env.CUDA_VISIBLE_DEVICES)" "$2" "$1: CUDA_VISIBLE_DEVICES names exactly the GPUs given"
        is "$(e2e_fact env.XPUINIT_DRIVER_ROOT)" /run/nvidia/driver "$1: the spec told xpuinit where the driver files are"
}

e2e_podman_run nv-index xpuinit.dev/gpu=0 -- /usr/bin/xpuinit -- /workload --expect-cuda-count 8 \
        --expect-node /dev/nvidia0=195:0 --expect-no-node /dev/nvidia1 --expect-node /dev/nvidiactl=195:255 \
        --print-env XPUINIT_DRIVER_ROOT
is "$E2E_RC" 0 "nvidia =0: podman resolved the device, xpuinit ran the workload, every check passed"
[ "$E2E_RC" -eq 0 ] || e2e_show
nv_check "nvidia =0" "$uuid0"

e2e_podman_run nv-uuid "xpuinit.dev/gpu=$uuid3" -e NVIDIA_VISIBLE_DEVICES=all -- /usr/bin/xpuinit -- /workload \
        --expect-node /dev/nvidia3=195:3 --expect-no-node /dev/nvidia0 --print-env XPUINIT_DRIVER_ROOT
is "$E2E_RC" 0 "nvidia =UUID (image with NVIDIA_VISIBLE_DEVICES=all): every check passed"
[ "$E2E_RC" -eq 0 ] || e2e_show
nv_check "nvidia =UUID" "$uuid3"

e2e_podman_run nv-bus xpuinit.dev/gpu=0000:1b:00.0 -- /usr/bin/xpuinit -- /workload \
        --expect-node /dev/nvidia1=195:1 --expect-no-node /dev/nvidia0 --print-env XPUINIT_DRIVER_ROOT
is "$E2E_RC" 0 "nvidia =PCI bus id: every check passed"
[ "$E2E_RC" -eq 0 ] || e2e_show
nv_check "nvidia =PCI bus id" "$(printf '%s' "$uuids" | cut -d, -f2)"

e2e_podman_run nv-all xpuinit.dev/gpu=all -- /usr/bin/xpuinit -- /workload --expect-cuda-count 8 \
        --expect-node /dev/nvidia0=195:0 --expect-node /dev/nvidia7=195:7 --print-env XPUINIT_DRIVER_ROOT
is "$E2E_RC" 0 "nvidia =all: every check passed"
[ "$E2E_RC" -eq 0 ] || e2e_show
nv_check "nvidia =all" "$uuids"

e2e_podman_run nv-bad xpuinit.dev/gpu=8 -- /usr/bin/xpuinit -- /workload
like "$E2E_ERR" 'unresolvable CDI devices xpuinit.dev/gpu=8' "nvidia =8: a device the spec lacks is podman's error"

# ---- AMD host, YAML spec -------------------------------------------------------------------------------
e2e_fixture amd-mi210x8
afx=$E2E_FIXTURE
adev=$E2E_TMP/amddev
e2e_dev_root "$afx" "$adev"
if ! { chgrp 105 "$adev/dev/kfd" && chmod 0660 "$adev/dev/kfd" && chgrp -R 44 "$adev/dev/dri" &&
        chmod 0660 "$adev"/dev/dri/*; }; then
        bail "cannot set the fixture nodes' groups"
fi
aspecs=$E2E_TMP/cdi-amd
mkdir -p "$aspecs" || bail "cannot create $aspecs"
"$XPUINIT_HOST" cdi generate --sys-root "$afx" --dev-root "$adev" --driver-root "$afx" \
        --output "$aspecs/xpuinit.yaml" 2>"$E2E_TMP/agen.err"
is "$?" 0 "amd spec: cdi generate --output xpuinit.yaml exits 0"
like "$aspecs/xpuinit.yaml" '^kind: "xpuinit.dev/gpu"$' "amd spec: the .yaml name chose YAML"
amd_uuid0=$(jq -r '.amd.devices[] | select(.index == 0) | "GPU-" + .unique_id' "$afx/expected.json")
E2E_PODMAN_MOUNTS="-v $afx:/xpu/host:ro"
e2e_podman_init "$aspecs"
e2e_podman_run amd0 xpuinit.dev/gpu=0 -- /usr/bin/xpuinit --driver-root /xpu/host -- /workload \
        --expect-node /dev/kfd=510:0 --expect-node /dev/dri/renderD128=226:128 --expect-no-node /dev/dri/renderD129 \
        --expect-group 105 --expect-group 44 --expect-no-cuda
is "$E2E_RC" 0 "amd =0: podman resolved the device, xpuinit ran the workload, every check passed"
[ "$E2E_RC" -eq 0 ] || e2e_show
is "$(e2e_fact node./dev/kfd)" "c 510:0 mode=0660 gid=105" "amd =0: /dev/kfd with the host node's mode and group"
is "$(e2e_fact node./dev/dri/renderD128)" "c 226:128 mode=0660 gid=44" "amd =0: renderD128 with its group"
like "$E2E_OUT" '^groups=(.*,)?105(,.*)?$' "amd =0: the workload is in /dev/kfd's group"
like "$E2E_OUT" '^groups=(.*,)?44(,.*)?$' "amd =0: ... and in the render node's"
rocr=$(e2e_fact env.ROCR_VISIBLE_DEVICES)
if [ "$rocr" = "$amd_uuid0" ] || [ "$rocr" = 0 ]; then ok "amd =0: ROCR_VISIBLE_DEVICES names the one GPU"; else
        not_ok "amd =0: ROCR_VISIBLE_DEVICES names the one GPU"
        diag "got '$rocr', want '$amd_uuid0' or '0'"
fi
e2e_podman_run amd-all xpuinit.dev/gpu=all -- /usr/bin/xpuinit --driver-root /xpu/host -- /workload \
        --expect-node /dev/dri/renderD128=226:128 --expect-node /dev/dri/renderD135=226:135 --expect-group 44
is "$E2E_RC" 0 "amd =all: all 8 render nodes, every check passed"
[ "$E2E_RC" -eq 0 ] || e2e_show

# ---- xpud --cdi-dir ---------------------------------------------------------------------------------------
cdir=$E2E_TMP/run-cdi
mkdir -p "$cdir" || bail "cannot create $cdir"
"$XPU_BUILD/xpud" --socket "$E2E_TMP/xpud.sock" --sys-root "$fx" --dev-root "$E2E_TMP/nvdev" --driver-root "$drv" \
        --cdi-dir "$cdir" --interval 60 2>"$E2E_TMP/xpud.log" &
xpud_pid=$!
i=0
while [ ! -f "$cdir/xpuinit.json" ] && [ $i -lt 100 ]; do
        sleep 0.1
        i=$((i + 1))
done
if jq -e . "$cdir/xpuinit.json" >/dev/null 2>&1; then ok "xpud: --cdi-dir wrote xpuinit.json"; else
        not_ok "xpud: --cdi-dir wrote xpuinit.json"
        diag_file "$E2E_TMP/xpud.log"
fi
jq -S . "$spec" >"$E2E_TMP/want.json"
if jq -S . "$cdir/xpuinit.json" | cmp -s - "$E2E_TMP/want.json"; then
        ok "xpud: the spec is the one xpuinit cdi generate writes"
else
        not_ok "xpud: the spec is the one xpuinit cdi generate writes"
fi
is "$(find "$cdir" -name '.*' | wc -l | tr -d ' ')" 0 "xpud: no dot file left behind"
kill -TERM "$xpud_pid"
wait "$xpud_pid"
is "$?" 0 "xpud: exits 0 on SIGTERM"
if [ -e "$cdir/xpuinit.json" ]; then not_ok "xpud: the spec is removed at stop"; else ok "xpud: the spec is removed at stop"; fi

# The spec follows the host: a node whose numbers, mode or group change (nvidia-uvm's major is
# dynamic: a module reload gives a new one) is rewritten; GPUs that leave are not handed out.
live=$E2E_TMP/live
cp -a "$fx" "$live" || bail "cannot copy $fx"
cp -a "$E2E_TMP/nvdev" "$E2E_TMP/livedev"
"$XPU_BUILD/xpud" --socket "$E2E_TMP/xpud2.sock" --sys-root "$live" --dev-root "$E2E_TMP/livedev" --driver-root "$drv" \
        --cdi-dir "$cdir" --interval 1 2>"$E2E_TMP/xpud2.log" &
xpud_pid=$!
# wait_spec JQ WANT: until jq JQ of the spec prints WANT (10 s); 0 when it did.
wait_spec() {
        i=0
        while [ $i -lt 100 ]; do
                [ "$(jq -r "$1" "$cdir/xpuinit.json" 2>/dev/null)" = "$2" ] && return 0
                sleep 0.1
                i=$((i + 1))
        done
        return 1
}
uvm='.devices[] | select(.name == "0") | .containerEdits.deviceNodes[] | select(.path == "/dev/nvidia-uvm")'
wait_spec "$uvm | .major" "$((0x$(stat -c '%t' "$E2E_TMP/livedev/dev/nvidia-uvm")))"
is "$?" 0 "xpud: --cdi-dir wrote the spec of the live host"
rm -f "$E2E_TMP/livedev/dev/nvidia-uvm"
mknod -m 0600 "$E2E_TMP/livedev/dev/nvidia-uvm" c 511 0
chgrp 44 "$E2E_TMP/livedev/dev/nvidia-uvm"
wait_spec "$uvm | [.major, .fileMode, .gid] | map(tostring) | join(\" \")" "511 384 44"
is "$?" 0 "xpud: a new major, mode and group of /dev/nvidia-uvm are in the spec within a few samples"
mv "$live/proc/driver/nvidia/gpus" "$live/gpus-away"
i=0
while [ -e "$cdir/xpuinit.json" ] && [ $i -lt 100 ]; do
        sleep 0.1
        i=$((i + 1))
done
if [ -e "$cdir/xpuinit.json" ]; then
        not_ok "xpud: with every GPU gone (held lost), the spec is removed"
        diag_file "$E2E_TMP/xpud2.log"
else
        ok "xpud: with every GPU gone (held lost), the spec is removed"
fi
kill -TERM "$xpud_pid"
wait "$xpud_pid"
is "$?" 0 "xpud: exits 0 on SIGTERM"


# ---- NVIDIA MIG host: MIG devices under nvidia-ctk's names ---------------------------------------------
e2e_fixture nvidia-a100-mig
mfx=$E2E_FIXTURE
mdrv=$E2E_TMP/mig-driver
e2e_driver_root "$mfx" "$mdrv"
e2e_dev_root "$mfx" "$E2E_TMP/migdev"
# The NVML helper runs as nobody (docs/isolation.md): the driver root must be searchable.
if ! { chmod 0755 "$E2E_TMP" && chmod -R a+rX "$mdrv"; }; then
        bail "cannot make $mdrv searchable"
fi
mgpu=$(e2e_nvidia_uuids "$mfx")
e2e_mig_state "$mdrv/xpu-fake-state"
mspecs=$E2E_TMP/cdi-mig
mkdir -p "$mspecs" || bail "cannot create $mspecs"
XPU_FAKE_STATE="$mdrv/xpu-fake-state" "$XPUINIT_HOST" cdi generate --sys-root "$mfx" --dev-root "$E2E_TMP/migdev" \
        --driver-root "$mdrv" --output "$mspecs/xpuinit.json" 2>"$E2E_TMP/mgen.err"
is "$?" 0 "mig spec: cdi generate exits 0"
is "$(jq -r '[.devices[].name] | join(",")' "$mspecs/xpuinit.json")" \
        "0,$mgpu,0000:01:00.0,0:0,MIG-3f0c1a2b-0000-5000-8000-000000000000,0:1,MIG-3f0c1a2b-0000-5000-8000-000000000001,0:2,MIG-3f0c1a2b-0000-5000-8000-000000000002,0:3,MIG-3f0c1a2b-0000-5000-8000-000000000003,all" \
        "mig spec: the GPU's names, then each MIG device as <gpu>:<mig> and by its NVML UUID, and all"
is "$(jq -r '.devices[] | select(.name == "0:1") | [.containerEdits.deviceNodes[].path] | join(",")' "$mspecs/xpuinit.json")" \
        "/dev/nvidiactl,/dev/nvidia-uvm,/dev/nvidia-uvm-tools,/dev/nvidia-modeset,/dev/nvidia1,/dev/nvidia-caps/nvidia-cap174,/dev/nvidia-caps/nvidia-cap175" \
        "mig spec: 0:1 = the GPU's nodes and GPU instance 4's two capability nodes"
is "$(jq -r '.devices[] | select(.name == "0:1") | .containerEdits.deviceNodes[] | select(.path == "/dev/nvidia-caps/nvidia-cap175") | "\(.major):\(.minor)"' "$mspecs/xpuinit.json")" \
        238:175 "mig spec: the CI capability node has the nvidia-caps major"
if grep -q warning "$E2E_TMP/mgen.err"; then not_ok "mig spec: no warning"; diag_file "$E2E_TMP/mgen.err"; else ok "mig spec: no warning"; fi
E2E_PODMAN_MOUNTS="-v $mfx:/xpu/host:ro -v $mdrv:/xpu/driver:ro"
e2e_podman_init "$mspecs"
e2e_podman_run mig-index xpuinit.dev/gpu=0:1 -- /usr/bin/xpuinit -- /workload --expect-node /dev/nvidia1=195:1 \
        --expect-node /dev/nvidia-caps/nvidia-cap174=238:174 --expect-node /dev/nvidia-caps/nvidia-cap175=238:175 \
        --expect-no-node /dev/nvidia-caps/nvidia-cap165
is "$E2E_RC" 0 "mig =0:1: podman resolved the MIG device, xpuinit ran the workload, every check passed"
[ "$E2E_RC" -eq 0 ] || e2e_show
is "$(e2e_fact env.CUDA_VISIBLE_DEVICES)" "MIG-$mgpu/4/0" "mig =0:1: CUDA_VISIBLE_DEVICES names that MIG device, not the GPU"
e2e_podman_run mig-uuid xpuinit.dev/gpu=MIG-3f0c1a2b-0000-5000-8000-000000000003 -- /usr/bin/xpuinit -- /workload \
        --expect-node /dev/nvidia-caps/nvidia-cap193=238:193 --expect-no-node /dev/nvidia-caps/nvidia-cap174
is "$E2E_RC" 0 "mig =MIG-<uuid>: every check passed"
[ "$E2E_RC" -eq 0 ] || e2e_show
is "$(e2e_fact env.CUDA_VISIBLE_DEVICES)" "MIG-$mgpu/6/0" "mig =MIG-<uuid>: CUDA_VISIBLE_DEVICES names GPU instance 6"

e2e_done
