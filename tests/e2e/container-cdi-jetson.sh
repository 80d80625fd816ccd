#!/bin/sh
# End to end, `xpuinit cdi generate` on a Jetson (the jetson-orin fixture host: an Orin on L4T
# 36.4.3, no /proc/driver/nvidia, its CSV host lists devices.csv and drivers.csv). The spec must
# be one Debian's podman (4.3: CDI 0.3.0-0.5.0, unknown fields refused) resolves, and give what
# the CSV files list, the way the NVIDIA Container Toolkit's csv mode does, without hooks:
#   spec:    cdiVersion 0.5.0, kind xpuinit.dev/gpu, names 0 and all, only 0.5.0 fields; the
#            listed nodes the host has, with their numbers; lib and dir lines read-only at their
#            own path, each sym line's target at the link's path; no driver version; JSON and
#            YAML say the same; a CSV line that does not parse stops it (125) with the start's words;
#   podman:  --device xpuinit.dev/gpu=0 runs the image's xpuinit and the workload, which sees the
#            listed nodes, the host's libcuda at the listed paths (and through the sym lines'),
#            and no node or file the lists do not name; the image's xpuinit reads the lists the spec
#            mounted, finds their files in place and gives their directories to the loader;
#   xpud:    --cdi-dir writes the same spec.
# Hermetic: specs, dev and driver roots and podman's storage below $E2E_TMP.
. "$(dirname "$0")/lib.sh"
e2e_init
need_tools podman unshare mount jq python3

XPUINIT_HOST=$XPU_BUILD/xpuinit

e2e_fixture jetson-orin
fx=$E2E_FIXTURE
drv="$E2E_TMP/driver"
if ! mkdir -p "$drv" || ! cp -a "$fx/." "$drv/"; then
        bail "cannot copy $fx"
fi
lib=usr/lib/aarch64-linux-gnu
# The placeholders get their names as contents, so the workload can tell the host's file; an
# unlisted library next to the listed ones must stay out of the container.
for f in "$lib"/nvidia/libcuda.so.1.1 "$lib"/tegra-egl/libEGL_nvidia.so.0 \
        lib/firmware/tegra23x/nvhost_nvdec050_desc_prod.bin; do
        printf 'host_%s\n' "$(basename "$f")" >"$drv/$f" || bail "cannot write $drv/$f"
done
printf 'not listed\n' >"$drv/$lib/nvidia/libnvos.so" || bail "cannot write libnvos.so"
e2e_dev_root "$fx" "$E2E_TMP/dev"
dev=$E2E_TMP/dev
specs=$E2E_TMP/cdi
mkdir -p "$specs" || bail "cannot create $specs"

# ---- the spec ------------------------------------------------------------------------------------------
"$XPUINIT_HOST" cdi generate --sys-root "$fx" --dev-root "$dev" --driver-root "$drv" \
        --output "$specs/xpuinit.json" >"$E2E_TMP/gen.out" 2>"$E2E_TMP/gen.err"
is "$?" 0 "spec: cdi generate on a Jetson exits 0"
[ -s "$E2E_TMP/gen.err" ] && diag_file "$E2E_TMP/gen.err"
if grep -q . "$E2E_TMP/gen.err"; then not_ok "spec: nothing on stderr"; else ok "spec: nothing on stderr"; fi
spec=$specs/xpuinit.json
is "$(jq -r '.cdiVersion + " " + .kind' "$spec")" "0.5.0 xpuinit.dev/gpu" "spec: cdiVersion 0.5.0, kind xpuinit.dev/gpu"
is "$(jq -r '[.devices[].name] | join(",")' "$spec")" "0,all" "spec: the index and all (no UUID or PCI bus id on a Tegra)"
is "$(jq -r '[.. | objects | keys[]] | unique | map(select(. as $k | ["cdiVersion","kind","devices","name",
        "containerEdits","env","deviceNodes","mounts","path","hostPath","type","major","minor","fileMode","uid",
        "gid","containerPath","options"] | index($k) | not)) | join(",")' "$spec")" "" \
        "spec: only fields of cdiVersion 0.5.0 (no hooks, annotations, additionalGids)"
is "$(jq -r '.devices[] | select(.name == "0") | [.containerEdits.deviceNodes[] | "\(.path)=\(.major):\(.minor)"] | join(",")' "$spec")" \
        "/dev/dri/card0=226:0,/dev/dri/renderD128=226:128,/dev/host1x-fence=505:0,/dev/nvgpu/igpu0/as=507:1,/dev/nvgpu/igpu0/channel=507:2,/dev/nvgpu/igpu0/ctrl=507:3,/dev/nvgpu/igpu0/ctxsw=507:4,/dev/nvgpu/igpu0/dbg=507:5,/dev/nvgpu/igpu0/power=507:8,/dev/nvgpu/igpu0/prof=507:9,/dev/nvgpu/igpu0/sched=507:12,/dev/nvgpu/igpu0/tsg=507:13,/dev/nvidia-modeset=195:254,/dev/nvidia0=195:0,/dev/nvidiactl=195:255,/dev/nvmap=10:120,/dev/nvsciipc=504:0" \
        "spec: the dev lines' nodes the host has, with the host's numbers (none it lacks)"
rdrv=$(readlink -f "$drv")
is "$(jq -r --arg r "$rdrv" '.devices[] | select(.name == "0") | [.containerEdits.mounts[] | .containerPath + "<-" + (.hostPath | ltrimstr($r))] | join(" ")' "$spec")" \
        "/$lib/nvidia/libcuda.so.1.1<-/$lib/nvidia/libcuda.so.1.1 /$lib/nvidia/libnvidia-ml.so.1<-/$lib/nvidia/libnvidia-ml.so.1 /$lib/nvidia/libnvidia-ptxjitcompiler.so.540.3.0<-/$lib/nvidia/libnvidia-ptxjitcompiler.so.540.3.0 /$lib/nvidia/libnvrm_gpu.so<-/$lib/nvidia/libnvrm_gpu.so /$lib/nvidia/libnvrm_host1x.so<-/$lib/nvidia/libnvrm_host1x.so /$lib/nvidia/libnvrm_mem.so<-/$lib/nvidia/libnvrm_mem.so /$lib/tegra-egl/libEGL_nvidia.so.0<-/$lib/tegra-egl/libEGL_nvidia.so.0 /$lib/libcuda.so<-/$lib/nvidia/libcuda.so.1.1 /$lib/nvidia/libcuda.so<-/$lib/nvidia/libcuda.so.1.1 /$lib/nvidia/libcuda.so.1<-/$lib/nvidia/libcuda.so.1.1 /$lib/nvidia/libnvidia-ptxjitcompiler.so.1<-/$lib/nvidia/libnvidia-ptxjitcompiler.so.540.3.0 /$lib/tegra<-/$lib/nvidia /lib/firmware/tegra23x/nvhost_nvdec050_desc_prod.bin<-/lib/firmware/tegra23x/nvhost_nvdec050_desc_prod.bin /usr/sbin/nvidia-smi<-/usr/sbin/nvidia-smi /etc/nvidia-container-runtime/host-files-for-container.d<-/etc/nvidia-container-runtime/host-files-for-container.d" \
        "spec: lib lines at their own path, sym lines as their target at the link's path, the lists themselves"
is "$(jq -r '[.devices[].containerEdits.mounts[].options | join(",")] | unique | join(" ")' "$spec")" \
        "ro,nosuid,nodev,bind" "spec: every mount read-only, nosuid, nodev"
is "$(jq -r '.devices[] | select(.name == "0") | .containerEdits.env | join(",")' "$spec")" \
        "XPUINIT_DRIVER_ROOT=/,NVIDIA_VISIBLE_DEVICES=void" "spec: the files are at their own path: the driver root is /"
if jq -e '.. | strings | select(test("VERSION|L4T|36\\.4"))' "$spec" >/dev/null; then
        not_ok "spec: no driver version invented"
else
        ok "spec: no driver version invented"
fi
is "$(jq -r '.devices[] | select(.name == "all") | .containerEdits | [(.deviceNodes | length), (.mounts | length)] | join(" ")' "$spec")" \
        "17 15" "spec: all = the one GPU's nodes and mounts"
"$XPUINIT_HOST" cdi generate --format yaml --sys-root "$fx" --dev-root "$dev" --driver-root "$drv" \
        >"$E2E_TMP/jet.yaml" 2>"$E2E_TMP/gen.err"
is "$?" 0 "spec: --format yaml exits 0"
/usr/bin/python3 -c 'import json, sys, yaml; a = yaml.safe_load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
sys.exit(0 if a == b else 1)' "$E2E_TMP/jet.yaml" "$spec"
is "$?" 0 "spec: the YAML and the JSON spec are the same document (PyYAML reads it)"

# A CSV line that does not parse: the spec is refused with the words a start stops with.
bad=$E2E_TMP/bad-driver
cp -a "$drv" "$bad" || bail "cannot copy $drv"
csv=$bad/etc/nvidia-container-runtime/host-files-for-container.d/drivers.csv
line=$(($(wc -l <"$csv") + 1))
printf 'libs, /%s/nvidia/libcuda.so.1.1\n' "$lib" >>"$csv" || bail "cannot write $csv"
"$XPUINIT_HOST" cdi generate --sys-root "$fx" --dev-root "$dev" --driver-root "$bad" \
        >"$E2E_TMP/bad.out" 2>"$E2E_TMP/bad.err"
is "$?" 125 "spec: a CSV line that does not parse: exit 125"
is "$(cat "$E2E_TMP/bad.out")" "" "spec: ... and no spec on stdout"
like "$E2E_TMP/bad.err" '^xpuinit: error: cdi generate: /etc/nvidia-container-runtime/host-files-for-container\.d/drivers\.csv:'"$line"': unknown kind "libs"; expected "KIND, PATH" .*; fix or remove that line$' \
        "spec: ... naming the file, the line and the fix"
XPUINIT_SYS_ROOT=$fx XPUINIT_DEV_ROOT=$dev XPUINIT_DRIVER_ROOT=$bad "$XPUINIT_HOST" plan -- /bin/true \
        >/dev/null 2>"$E2E_TMP/bad-start.err"
is "$?" 125 "spec: ... the same list stops a start (plan) with 125"
is "$(sed -n 's/^xpuinit: error: .*\(drivers\.csv:[0-9]*: .*\)$/\1/p' "$E2E_TMP/bad-start.err")" \
        "$(sed -n 's/^xpuinit: error: .*\(drivers\.csv:[0-9]*: .*\)$/\1/p' "$E2E_TMP/bad.err")" \
        "spec: ... with the same words"

# ---- podman starts the image's xpuinit with the device the spec gives ---------------------------------
E2E_PODMAN_MOUNTS="-v $fx:/xpu/host:ro"
e2e_podman_init "$specs"
e2e_podman_run jet0 xpuinit.dev/gpu=0 -- /usr/bin/xpuinit -- /workload \
        --expect-node /dev/nvmap=10:120 --expect-node /dev/nvgpu/igpu0/ctrl=507:3 \
        --expect-node /dev/nvgpu/igpu0/channel=507:2 --expect-node /dev/dri/renderD128=226:128 \
        --expect-node /dev/host1x-fence=505:0 --expect-no-node /dev/v4l2-nvdec --expect-no-node /dev/nvhost-gpu \
        --expect-file "/$lib/nvidia/libcuda.so.1.1=host_libcuda.so.1.1" \
        --expect-file "/$lib/nvidia/libcuda.so.1=host_libcuda.so.1.1" \
        --expect-file "/$lib/tegra/libcuda.so.1=host_libcuda.so.1.1" \
        --expect-file "/$lib/libcuda.so=host_libcuda.so.1.1" \
        --expect-file "/$lib/tegra-egl/libEGL_nvidia.so.0=host_libEGL_nvidia.so.0" \
        --expect-file /lib/firmware/tegra23x/nvhost_nvdec050_desc_prod.bin=host_nvhost_nvdec050_desc_prod.bin \
        --expect-no-node /lib/firmware/tegra19x --list-dir "/$lib/tegra-egl" --print-env XPUINIT_DRIVER_ROOT \
        --print-env LD_LIBRARY_PATH
is "$E2E_RC" 0 "podman =0: podman resolved the device, xpuinit ran the workload, every check passed"
[ "$E2E_RC" -eq 0 ] || e2e_show
is "$(e2e_fact dir./$lib/tegra-egl)" "libEGL_nvidia.so.0" "podman =0: /$lib/tegra-egl holds the one listed file"
is "$(e2e_fact env.XPUINIT_DRIVER_ROOT)" / "podman =0: the spec told xpuinit the files are at their own path"
is "$(e2e_fact env.LD_LIBRARY_PATH)" "/$lib/nvidia:/$lib/tegra-egl" \
        "podman =0: the listed libraries' directories lead the loader path (the image has no ldconfig)"
unlike "$E2E_ERR" 'warning|error' "podman =0: xpuinit warned of nothing (the lists' files were already in place)"
e2e_podman_run jet-plan xpuinit.dev/gpu=0 -- /usr/bin/xpuinit plan -- /workload
is "$E2E_RC" 0 "podman =0: xpuinit plan in the container exits 0"
[ "$E2E_RC" -eq 0 ] || e2e_show
like "$E2E_OUT" 'note: the host lists what its containers get \(/etc/nvidia-container-runtime/host-files-for-container\.d/\*\.csv in driver root /\): 17 device node\(s\)' \
        "podman =0: xpuinit in the image reads the host's lists the spec mounted"
like "$E2E_OUT" "note: already in the container as the driver root's own file\\(s\\): /$lib/nvidia/libcuda\\.so\\.1\\.1, " \
        "podman =0: ... and finds their files already in place"
like "$E2E_OUT" "note: loader: LD_LIBRARY_PATH starts with /$lib/nvidia:/$lib/tegra-egl " \
        "podman =0: ... and gives their directories to the loader"
unlike "$E2E_OUT" '^  (bind|symlink) ' "podman =0: ... so it binds and links nothing again"
e2e_podman_run jet-all xpuinit.dev/gpu=all -- /usr/bin/xpuinit -- /workload \
        --expect-node /dev/nvmap=10:120 --expect-file "/$lib/tegra/libcuda.so.1=host_libcuda.so.1.1"
is "$E2E_RC" 0 "podman =all: every check passed"
[ "$E2E_RC" -eq 0 ] || e2e_show
e2e_podman_run jet-bad xpuinit.dev/gpu=1 -- /usr/bin/xpuinit -- /workload
like "$E2E_ERR" 'unresolvable CDI devices xpuinit.dev/gpu=1' "podman =1: a device the spec lacks is podman's error"

# ---- xpud --cdi-dir -------------------------------------------------------------------------------------
cdir=$E2E_TMP/run-cdi
mkdir -p "$cdir" || bail "cannot create $cdir"
"$XPU_BUILD/xpud" --socket "$E2E_TMP/xpud.sock" --sys-root "$fx" --dev-root "$dev" --driver-root "$drv" \
        --cdi-dir "$cdir" --interval 60 2>"$E2E_TMP/xpud.log" &
xpud_pid=$!
i=0
while [ ! -f "$cdir/xpuinit.json" ] && [ $i -lt 100 ]; do
        sleep 0.1
        i=$((i + 1))
done
jq -S . "$spec" >"$E2E_TMP/want.json"
if jq -S . "$cdir/xpuinit.json" 2>/dev/null | cmp -s - "$E2E_TMP/want.json"; then
        ok "xpud: --cdi-dir writes the spec xpuinit cdi generate writes"
else
        not_ok "xpud: --cdi-dir writes the spec xpuinit cdi generate writes"
        diag_file "$E2E_TMP/xpud.log"
fi
kill -TERM "$xpud_pid"
wait "$xpud_pid"
is "$?" 0 "xpud: exits 0 on SIGTERM"

e2e_done
