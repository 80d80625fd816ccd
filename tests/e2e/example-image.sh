#!/bin/sh
# shellcheck disable=SC2016
# examples/Dockerfile as written, without Docker (CI has no Docker daemon): the test reads the
# Dockerfile and lays its image out in a runc rootfs the way `docker build` would, then runs it
# the way the README's `docker run` recipes do.
#   - every instruction is one this test knows (FROM, RUN apt-get install, COPY, ENTRYPOINT, CMD);
#   - the packages RUN installs hold every shared library build/xpuinit needs (besides libc6,
#     which debian:12-slim has);
#   - COPY sources exist in the build context (the repository, build/ being this run's build);
#   - xpuinit accepts the image's profiles, and every command a profile starts exists in the
#     image and is executable;
#   - ENTRYPOINT + CMD on the NVIDIA fixture host (the README's recipe without CDI: only the
#     driver root's library directory and nvidia-smi mounted read-only at their paths below
#     /host) start the CUDA stand-in through the profile app-cuda with the GPUs and the
#     injected libraries; a command given to `docker run` (here the e2e workload) runs after it
#     and loads libcuda; on the AMD fixture host the ROCm stand-in runs through app-rocm with
#     ROCR_VISIBLE_DEVICES and the device groups; on a host without GPUs the command runs alone.
# SC2016: jq programs are single-quoted on purpose. Needs root, runc, jq, busybox-static, readelf
# (binutils), a build.
. "$(dirname "$0")/lib.sh"
e2e_init

SRC=$XPU_SRCDIR
DF=$SRC/examples/Dockerfile
[ -f "$DF" ] || bail "$DF is missing"

# ---- the Dockerfile ---------------------------------------------------------------------------
# Its instructions, one per line (continuations joined, comments and blank lines dropped).
sed -e 's/\r$//' "$DF" | awk '/^[[:space:]]*#/ || /^[[:space:]]*$/ { next }
        { line = line $0 } /\\$/ { sub(/\\$/, "", line); next } { print line; line = "" }' >"$E2E_TMP/instructions"
unknown=$(awk '$1 !~ /^(FROM|ARG|RUN|COPY|ENTRYPOINT|CMD)$/ { print $1 }' "$E2E_TMP/instructions" | sort -u | tr '\n' ' ')
is "$unknown" "" "examples/Dockerfile uses only FROM, ARG, RUN, COPY, ENTRYPOINT and CMD (what this test lays out)"
# ARG NAME=DEFAULT: its default stands in for ${NAME} in the COPY lines (no --build-arg here).
args=$(awk '$1 == "ARG" && $2 ~ /=/ { print $2 }' "$E2E_TMP/instructions")
for a in $args; do
        name=${a%%=*}
        value=${a#*=}
        sed "s|\${$name}|$value|g" "$E2E_TMP/instructions" >"$E2E_TMP/instructions.new" &&
                mv "$E2E_TMP/instructions.new" "$E2E_TMP/instructions"
done
is "$(awk '$1 == "ARG" { print $2 }' "$E2E_TMP/instructions")" "XPUINIT=build/xpuinit" \
        "... its one ARG, the binary, defaults to build/xpuinit (the arm64 build: --build-arg)"
is "$(awk '$1 == "FROM" { print $2 }' "$E2E_TMP/instructions")" "debian:12-slim" "... FROM debian:12-slim"

# RUN: the packages of its apt-get install commands.
pkgs=$(awk '$1 == "RUN"' "$E2E_TMP/instructions" | tr '&;|' '\n' | awk '
        { inst = 0; for (i = 1; i <= NF; i++) { if ($i == "install") inst = 1; else if (inst && $i !~ /^-/) print $i } }' |
        sort -u | tr '\n' ' ')
is "$(awk '$1 == "RUN"' "$E2E_TMP/instructions" | grep -vc 'apt-get')" 0 "... every RUN is an apt-get command"
# The Debian packages of the libraries xpuinit links (DT_NEEDED; libc6 is in the base image, and
# the sanitizer runtimes of a sanitized build are no part of the image).
needed=$(readelf -d "$XPU_BUILD/xpuinit" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p' |
        grep -vE '^lib(asan|ubsan|lsan|tsan)\.' | while read -r soname; do
        so=$(ldd "$XPU_BUILD/xpuinit" | awk -v n="$soname" '$1 == n && $3 ~ /^\// { print $3 }')
        [ -n "$so" ] && { dpkg -S "$(readlink -f "$so")" 2>/dev/null || dpkg -S "$so" 2>/dev/null; }
done | sed 's/:.*//' | sort -u | grep -vx libc6 | tr '\n' ' ')
missing=
for p in $needed; do
        case " $pkgs " in *" $p "*) ;; *) missing="$missing $p" ;; esac
done
if [ -n "$needed" ]; then ok "xpuinit's libraries come from Debian packages ($needed)"; else not_ok "xpuinit's libraries come from Debian packages"; fi
is "$missing" "" "... and the Dockerfile's RUN installs every one of them ($pkgs)"

# ---- the image, laid out as docker build would ------------------------------------------------
e2e_bundle image
R=$E2E_BUNDLE/rootfs
# A Debian image has ldconfig and /etc/ld.so.conf.
e2e_rootfs_ldconfig "$E2E_BUNDLE"
# The commands the image's CMD and stand-ins use, where Debian has them.
ln -sf ../../bin/busybox "$R/usr/bin/env"
ln -sf busybox "$R/bin/id"
copies=0
bad=
while read -r _ src dest; do
        copies=$((copies + 1))
        # The build context is the repository; build/ is this run's build directory.
        case $src in
        build/*) from=$XPU_BUILD/${src#build/} ;;
        *) from=$SRC/$src ;;
        esac
        if [ ! -e "$from" ]; then
                bad="$bad $src"
                continue
        fi
        case $src in
        */)
                mkdir -p "$R$dest" && cp -a "$from." "$R$dest" || bad="$bad $src"
                ;;
        *)
                mkdir -p "$R$(dirname "$dest")" && cp -a "$from" "$R$dest" || bad="$bad $src"
                ;;
        esac
done <<EOF
$(awk '$1 == "COPY" { print $1, $2, $3 }' "$E2E_TMP/instructions")
EOF
is "$bad" "" "every COPY source of the Dockerfile exists and is copied ($copies COPY instructions)"
entry=$(awk '$1 == "ENTRYPOINT" { sub(/^ENTRYPOINT[[:space:]]+/, ""); print }' "$E2E_TMP/instructions")
cmd=$(awk '$1 == "CMD" { sub(/^CMD[[:space:]]+/, ""); print }' "$E2E_TMP/instructions")
is "$(printf '%s' "$entry" | jq -c . 2>/dev/null)" '["/usr/bin/xpuinit","--"]' "ENTRYPOINT is xpuinit, exec form"
printf '%s' "$cmd" | jq -e 'type == "array" and length > 0' >/dev/null 2>&1
is "$?" 0 "CMD is a JSON array"

# ---- the image's profiles -------------------------------------------------------------------
P=$R/etc/xpuinit/profiles.d
"$XPU_BUILD/xpuinit" profiles --json --profile-dir "$P" >"$E2E_TMP/profiles.json" 2>"$E2E_TMP/profiles.err"
is "$?" 0 "xpuinit accepts the image's profiles"
is "$(jq -r '[.[] | select(.origin | startswith("built-in") | not) | .name] | sort | join(" ")' "$E2E_TMP/profiles.json" 2>/dev/null)" \
        "app-cuda app-rocm" "... app-cuda and app-rocm, from the image's profile directory"
cmds=$(jq -r '(.command.prefix // .command.replace // empty)[0]' "$P"/*.json | sort -u)
absent=
for c in $cmds; do
        [ -f "$R$c" ] && [ -x "$R$c" ] || absent="$absent $c"
        head -n 1 "$R$c" 2>/dev/null | grep -q '^#!/bin/sh' || [ ! -f "$R$c" ] || absent="$absent $c(interpreter)"
done
is "$absent" "" "every command the profiles start exists in the image and is executable ($(echo "$cmds" | tr '\n' ' '))"

# ---- docker run on the NVIDIA fixture host ----------------------------------------------------
e2e_fixture nvidia-rtx2080ti-x8
nv=$E2E_FIXTURE
e2e_driver_root "$nv" "$E2E_TMP/driver"
nvlib=$(e2e_nvidia_libdir "$nv")
# The host's nvidia-smi, as the recipe mounts it (a stand-in: xpuinit only links it).
mkdir -p "$E2E_TMP/driver/usr/bin" && cp "$E2E_BUSYBOX" "$E2E_TMP/driver/usr/bin/nvidia-smi"
uuids=$(e2e_nvidia_uuids "$nv" | paste -sd, -)
# image_run NAME SYSROOT [DRIVER_ROOT] -- [COMMAND...]: a container of the image with ENTRYPOINT
# and CMD (or COMMAND, as docker run IMAGE COMMAND), the host's /proc and /sys standing in
# through XPUINIT_SYS_ROOT, and as the README's recipe mounts them, DRIVER_ROOT's library
# directory and usr/bin/nvidia-smi read-only at their paths below /host (XPUINIT_DRIVER_ROOT);
# besides them only the fake driver's state file, which the fake libraries read.
image_run() {
        name=$1 sysroot=$2 drv=$3
        shift 4
        b=$E2E_TMP/$name
        mkdir -p "$b"
        rm -rf "$b/rootfs"
        cp -a "$E2E_BUNDLE/rootfs" "$b/rootfs"
        cp "$E2E_BUNDLE/config.json" "$b/config.json"
        cp "$XPU_BUILD/tests/e2e/workload" "$b/rootfs/workload"
        if [ $# -gt 0 ]; then
                given=$(for a in "$@"; do printf '%s\n' "$a"; done | jq -R . | jq -s -c .)
                args=$(jq -n -c --argjson e "$entry" --argjson c "$given" '$e + $c')
        else
                args=$(jq -n -c --argjson e "$entry" --argjson c "$cmd" '$e + $c')
        fi
        e2e_jq "$b" '.process.args = $a' --argjson a "$args"
        e2e_env "$b" XPUINIT_LOG_LEVEL=info
        if [ -n "$sysroot" ]; then
                e2e_mount_ro "$b" "$sysroot" /xpu/host
                e2e_env "$b" XPUINIT_SYS_ROOT=/xpu/host
        fi
        if [ -n "$drv" ]; then
                e2e_mount_ro "$b" "$drv/$nvlib" "/host/$nvlib"
                e2e_mount_ro "$b" "$drv/usr/bin/nvidia-smi" /host/usr/bin/nvidia-smi
                e2e_mount_ro "$b" "$drv/xpu-fake-state" /host/xpu-fake-state
                e2e_env "$b" XPUINIT_DRIVER_ROOT=/host XPU_FAKE_STATE=/host/xpu-fake-state
        fi
        RUN_BUNDLE=$b
}

image_run nvidia "$nv" "$E2E_TMP/driver" --
e2e_devices "$RUN_BUNDLE" "$nv"
e2e_run "$RUN_BUNDLE"
is "$E2E_RC" 0 "nvidia: the image's ENTRYPOINT and CMD exit 0"
[ "$E2E_RC" -eq 0 ] || e2e_show
like "$E2E_ERR" 'profile app-cuda' "nvidia: xpuinit chose the image's profile app-cuda"
like "$E2E_OUT" '^app-cuda: the CUDA build, started by xpuinit.s profile app-cuda$' "nvidia: the CUDA build started"
is "$(sed -n 's/^app-cuda: CUDA_VISIBLE_DEVICES=//p' "$E2E_OUT")" "$uuids" "nvidia: ... with the 8 GPUs' UUIDs"
like "$E2E_OUT" '^app-cuda: driver libraries in /run/xpuinit/lib:.* libcuda\.so\.1( |$)' \
        "nvidia: ... and libcuda.so.1 injected from the library directory mounted below /host"
is "$(grep -c 'warning' "$E2E_ERR")" 0 "nvidia: ... without a warning about what the recipe leaves out"
[ "$(grep -c 'warning' "$E2E_ERR")" -eq 0 ] || diag_file "$E2E_ERR"
like "$E2E_OUT" '^CUDA_DEVICE_ORDER=PCI_BUS_ID$' "nvidia: then CMD (/usr/bin/env) ran with the profile's environment"

# The same mounts under the built-in profile nvidia-cuda (utility: nvidia-smi too), its plan
# through the image's xpuinit as the command (docker run --entrypoint /usr/bin/xpuinit).
image_run nvidia-plan "$nv" "$E2E_TMP/driver" --
e2e_jq "$RUN_BUNDLE" '.process.args = ["/usr/bin/xpuinit", "--profile", "nvidia-cuda", "plan", "--json", "--", "/bin/true"]'
e2e_devices "$RUN_BUNDLE" "$nv"
e2e_run "$RUN_BUNDLE"
is "$E2E_RC" 0 "nvidia, profile nvidia-cuda: xpuinit plan exits 0"
[ "$E2E_RC" -eq 0 ] || e2e_show
is "$(jq -r '[.operations[] | select(.op == "symlink") | select(.target | test("/(libcuda\\.so|libnvidia-ml\\.so|nvidia-smi)"))
        | .target | sub("\\.so\\.[0-9.]+$"; ".so")] | sort | join(" ")' "$E2E_OUT" 2>/dev/null)" \
        "/host/usr/bin/nvidia-smi /host/$nvlib/libcuda.so /host/$nvlib/libnvidia-ml.so" \
        "nvidia, profile nvidia-cuda: libcuda, libnvidia-ml and nvidia-smi linked from their mounts below /host"

image_run nvidia-cmd "$nv" "$E2E_TMP/driver" -- /workload --expect-cuda-count 8
e2e_devices "$RUN_BUNDLE" "$nv"
e2e_run "$RUN_BUNDLE"
is "$E2E_RC" 0 "nvidia, docker run IMAGE /workload: exit 0, every workload check passed"
[ "$E2E_RC" -eq 0 ] || e2e_show
like "$E2E_OUT" '^app-cuda: the CUDA build' "nvidia, docker run IMAGE /workload: the CUDA build started first"
is "$(e2e_fact cuda.path)" /run/xpuinit/lib/libcuda.so.1 "nvidia, docker run IMAGE /workload: the command loads the injected libcuda.so.1"
is "$(e2e_fact cuda.count)" 8 "nvidia, docker run IMAGE /workload: cuDeviceGetCount = 8"

# ---- docker run on the AMD fixture host -------------------------------------------------------
e2e_fixture amd-mi210x8
amd=$E2E_FIXTURE
image_run amd "$amd" "" --
e2e_devices "$RUN_BUNDLE" "$amd" "/dev/kfd=105 /dev/dri/*=44"
e2e_run "$RUN_BUNDLE"
is "$E2E_RC" 0 "amd: the image's ENTRYPOINT and CMD exit 0"
[ "$E2E_RC" -eq 0 ] || e2e_show
like "$E2E_ERR" 'profile app-rocm' "amd: xpuinit chose the image's profile app-rocm"
like "$E2E_OUT" '^app-rocm: the ROCm build, started by xpuinit.s profile app-rocm$' "amd: the ROCm build started"
like "$E2E_OUT" '^app-rocm: ROCR_VISIBLE_DEVICES=GPU-[0-9a-f]{16}(,GPU-[0-9a-f]{16}){7}$' "amd: ... with the 8 GPUs selected"
like "$E2E_OUT" '^app-rocm: groups: (.* )?105( |$)' "amd: ... in /dev/kfd's group"
like "$E2E_OUT" '^app-rocm: groups: (.* )?44( |$)' "amd: ... and in the render nodes' group"

# ---- docker run on a host without GPUs --------------------------------------------------------
mkdir -p "$E2E_TMP/nogpu/proc" "$E2E_TMP/nogpu/sys"
image_run cpu "$E2E_TMP/nogpu" "" --
e2e_run "$RUN_BUNDLE"
is "$E2E_RC" 0 "cpu: the image's ENTRYPOINT and CMD exit 0"
unlike "$E2E_OUT" '^app-(cuda|rocm):' "cpu: no vendor build starts"
like "$E2E_OUT" '^PATH=' "cpu: CMD (/usr/bin/env) ran"

e2e_done
