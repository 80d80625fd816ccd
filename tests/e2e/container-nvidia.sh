#!/bin/sh
# End to end, NVIDIA: xpuinit is the process of a runc container on the nvidia-rtx2080ti-x8
# fixture host (8 GPUs, driver 465.19.01; fake libcuda/libnvidia-ml in a read-only driver root)
# and starts /workload, which proves from inside what it got: libcuda.so.1 through the loader,
# 8 devices, CUDA_DEVICE_ORDER/CUDA_VISIBLE_DEVICES, device nodes.
#   link mode (Docker's default capabilities: no CAP_SYS_ADMIN, auto must pick link),
#   mount mode (CAP_SYS_ADMIN, --inject mount), an image with ldconfig, device selection,
#   a runtime that gave fewer nodes, a bad selection (125), an unmet XPU_REQUIRE (125) and a met one.
. "$(dirname "$0")/lib.sh"
e2e_init

e2e_fixture nvidia-rtx2080ti-x8
fx=$E2E_FIXTURE
e2e_driver_root "$fx" "$E2E_TMP/driver"
lib=$(e2e_nvidia_libdir "$fx")
ver=$(e2e_nvidia_version "$fx")
uuids=$(e2e_nvidia_uuids "$fx" | paste -sd, -)
uuid() { e2e_nvidia_uuids "$fx" | sed -n "$(($1 + 1))p"; }
is "$E2E_GPUS" 8 "fixture has 8 GPUs"
# What only the vendor libraries know (the rich path): compute capability 7.5, brand GeForce.
state="$E2E_TMP/driver/xpu-fake-state"
{
        i=0
        while [ "$i" -lt 8 ]; do
                printf 'device.%d.cc 7.5\ndevice.%d.brand 5\n' "$i" "$i"
                i=$((i + 1))
        done
        cat "$state"
} >"$state.new" && mv "$state.new" "$state"
cuda_ver=$(sed -n 's/^cuda_version //p' "$state")

# nv_bundle NAME [XPUINIT OPTION...] -- WORKLOAD ARG...: a bundle on the fixture host.
nv_bundle() {
        name=$1
        shift
        e2e_xpuinit_bundle "$name" "$fx" "$E2E_TMP/driver" "$@"
}

# check_cuda MODE: what every successful NVIDIA run must show.
check_cuda() {
        is "$E2E_RC" 0 "$1: xpuinit ran the workload and every workload check passed"
        [ "$E2E_RC" -eq 0 ] || e2e_show
        is "$(e2e_fact cuda.path)" /run/xpuinit/lib/libcuda.so.1 \
                "$1: dlopen(libcuda.so.1) found the injected library in /run/xpuinit/lib"
        is "$(e2e_fact cuda.count)" 8 "$1: cuDeviceGetCount = 8"
        is "$(e2e_fact nvml.count)" 8 "$1: nvmlDeviceGetCount_v2 = 8"
        is "$(e2e_fact nvml.driver_version)" "$ver" "$1: NVML driver version $ver"
        is "$(e2e_fact env.CUDA_DEVICE_ORDER)" PCI_BUS_ID "$1: CUDA_DEVICE_ORDER=PCI_BUS_ID"
        is "$(e2e_fact env.CUDA_VISIBLE_DEVICES)" "$uuids" "$1: CUDA_VISIBLE_DEVICES = 8 UUIDs in PCI bus order"
        is "$(e2e_fact node./dev/nvidia0)" "c 195:0 mode=0666 gid=0" "$1: /dev/nvidia0 is 195:0"
        is "$(e2e_fact node./dev/nvidia7)" "c 195:7 mode=0666 gid=0" "$1: /dev/nvidia7 is 195:7"
        is "$(e2e_fact node./dev/nvidiactl)" "c 195:255 mode=0666 gid=0" "$1: /dev/nvidiactl is 195:255"
        is "$(e2e_fact ppid)" 1 "$1: the workload is a child of xpuinit, PID 1"
        dir=$(e2e_fact dir./run/xpuinit/lib)
        for f in libcuda.so.1 "libcuda.so.$ver" libnvidia-ml.so.1 "libnvidia-ml.so.$ver"; do
                case ",$dir," in
                *,"$f",*) ok "$1: /run/xpuinit/lib has $f" ;;
                *) not_ok "$1: /run/xpuinit/lib has $f"
                        diag "dir: $dir" ;;
                esac
        done
        case ",$dir," in
        *460.73.01*) not_ok "$1: the stale 460.73.01 library is not injected"; diag "dir: $dir" ;;
        *) ok "$1: the stale 460.73.01 library is not injected" ;;
        esac
        case ",$dir," in
        *glcore*) not_ok "$1: graphics libraries not injected (default utility,compute)"; diag "dir: $dir" ;;
        *) ok "$1: graphics libraries not injected (default utility,compute)" ;;
        esac
}

workload="/workload --expect-cuda-count 8 --expect-nvml-count 8
        --expect-env CUDA_DEVICE_ORDER=PCI_BUS_ID --expect-env CUDA_VISIBLE_DEVICES=$uuids
        --expect-node /dev/nvidia0=195:0 --expect-node /dev/nvidia7=195:7
        --expect-node /dev/nvidiactl=195:255 --list-dir /run/xpuinit/lib --mounts /run/xpuinit"

# ---- link mode: Docker's default capabilities, --inject auto ------------------------------------
# shellcheck disable=SC2086 # $workload is split into words on purpose
nv_bundle link -- $workload
e2e_devices "$E2E_BUNDLE" "$fx"
e2e_run "$E2E_BUNDLE"
check_cuda link
is "$(e2e_fact cuda.realpath)" "/xpu/driver/$lib/libcuda.so.$ver" \
        "link: libcuda.so.1 resolves into the read-only driver root"
like "$E2E_OUT" '^env\.LD_LIBRARY_PATH=(.*:)?/run/xpuinit/lib(:.*)?$' \
        "link: no ldconfig in the image, so LD_LIBRARY_PATH holds /run/xpuinit/lib"

# ---- mount mode: CAP_SYS_ADMIN, --inject mount ----------------------------------------------------
# shellcheck disable=SC2086
nv_bundle mount --inject mount -- $workload
e2e_caps_add "$E2E_BUNDLE" CAP_SYS_ADMIN
e2e_devices "$E2E_BUNDLE" "$fx"
e2e_run "$E2E_BUNDLE"
check_cuda mount
is "$(e2e_fact cuda.realpath)" "/run/xpuinit/lib/libcuda.so.$ver" \
        "mount: libcuda.so.$ver is a file in /run/xpuinit/lib (bind mount), not a link out"
like "$E2E_OUT" "^mount\\./run/xpuinit/lib/libcuda\\.so\\.$ver=[^ ]+ ro,nosuid,nodev" \
        "mount: libcuda.so.$ver is bind-mounted read-only, nosuid, nodev"

# ---- an image with ldconfig: drop-in + cache instead of LD_LIBRARY_PATH -------------------------
# shellcheck disable=SC2086
nv_bundle ldconfig -- $workload --list-dir /etc/ld.so.conf.d
e2e_rootfs_ldconfig "$E2E_BUNDLE"
e2e_devices "$E2E_BUNDLE" "$fx"
e2e_run "$E2E_BUNDLE"
check_cuda ldconfig
like "$E2E_OUT" '^dir\./etc/ld\.so\.conf\.d=(.*,)?000-xpuinit\.conf(,.*)?$' \
        "ldconfig: /etc/ld.so.conf.d/000-xpuinit.conf written"
unlike "$E2E_OUT" '^env\.LD_LIBRARY_PATH=.*/run/xpuinit/lib' \
        "ldconfig: LD_LIBRARY_PATH not needed when the image has ldconfig"

# ---- selection: XPU_VISIBLE_DEVICES by index and by UUID ------------------------------------------
u1=$(uuid 1)
u3=$(uuid 3)
nv_bundle select -- /workload --expect-cuda-count 8 --expect-env "CUDA_VISIBLE_DEVICES=$u1,$u3"
e2e_env "$E2E_BUNDLE" "XPU_VISIBLE_DEVICES=1,$u3"
e2e_devices "$E2E_BUNDLE" "$fx"
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "select: workload checks passed"
is "$(e2e_fact env.CUDA_VISIBLE_DEVICES)" "$u1,$u3" \
        "select: XPU_VISIBLE_DEVICES=1,<uuid of 3> gives exactly those two UUIDs"

# ---- the runtime gave only /dev/nvidia0 and /dev/nvidia1: selection never widens -----------------
nv_bundle narrow -- /workload --expect-no-node /dev/nvidia2
e2e_device "$E2E_BUNDLE" /dev/nvidia0 195 0
e2e_device "$E2E_BUNDLE" /dev/nvidia1 195 1
e2e_device "$E2E_BUNDLE" /dev/nvidiactl 195 255
e2e_device "$E2E_BUNDLE" /dev/nvidia-uvm 239 0
e2e_device "$E2E_BUNDLE" /dev/nvidia-uvm-tools 239 1
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "narrow: runs with 2 of 8 nodes"
is "$(e2e_fact env.CUDA_VISIBLE_DEVICES)" "$(uuid 0),$(uuid 1)" \
        "narrow: CUDA_VISIBLE_DEVICES lists only the GPUs whose nodes the runtime gave"
[ "$E2E_RC" -eq 0 ] || e2e_show

# ---- a selection naming a device that does not exist: 125 and the entry named --------------------
nv_bundle badsel -- /workload
e2e_env "$E2E_BUNDLE" XPU_VISIBLE_DEVICES=0,42
e2e_devices "$E2E_BUNDLE" "$fx"
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 125 "badsel: XPU_VISIBLE_DEVICES=0,42 fails before the workload (125)"
like "$E2E_ERR" 'XPU_VISIBLE_DEVICES.*42' "badsel: the error names the variable and the entry"
unlike "$E2E_OUT" '^pid=' "badsel: the workload never started"

# ---- requirements: XPU_REQUIRE unmet exits 125 with required vs found; met runs ----------------
nv_bundle require -- /workload
e2e_env "$E2E_BUNDLE" XPU_REQUIRE="driver>=999"
e2e_devices "$E2E_BUNDLE" "$fx"
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 125 "require: XPU_REQUIRE=driver>=999 fails before the workload (125)"
like "$E2E_ERR" "requirement \"driver>=999\" not met: driver>=999 but host has nvidia driver $ver" \
        "require: the error shows the requirement and the host's driver $ver side by side"
unlike "$E2E_OUT" '^pid=' "require: the workload never started"
nv_bundle requireok -- /workload --expect-cuda-count 8
e2e_env "$E2E_BUNDLE" XPU_REQUIRE="driver>=465"
e2e_devices "$E2E_BUNDLE" "$fx"
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "require: XPU_REQUIRE=driver>=465 is met by $ver and the workload runs"
[ "$E2E_RC" -eq 0 ] || e2e_show
like "$E2E_OUT" '^pid=' "require: the workload started"

# ---- requirements on facts only the vendor libraries know: NVML and libcuda in isolated helpers --
# req NAME EXPECTED_RC VAR=VALUE...: a run of $req_wl (default /workload) with those variables.
req_wl="/workload --expect-cuda-count 8"
req() {
        name=$1
        want=$2
        shift 2
        # shellcheck disable=SC2086 # $req_wl is split into words on purpose
        nv_bundle "$name" -- $req_wl
        e2e_env "$E2E_BUNDLE" "$@"
        e2e_devices "$E2E_BUNDLE" "$fx"
        e2e_run "$E2E_BUNDLE"
        is "$E2E_RC" "$want" "$name: $* exits $want"
        if [ "$want" -eq 0 ]; then
                like "$E2E_OUT" '^pid=' "$name: the workload started"
        else
                unlike "$E2E_OUT" '^pid=' "$name: the workload never started"
        fi
}
req cuda-unmet 125 XPU_REQUIRE="cuda>=12.4"
like "$E2E_ERR" "requirement \"cuda>=12.4\" not met: cuda>=12.4 but host has CUDA driver $cuda_ver \\(driver $ver\\); update the driver or use CUDA forward compatibility" \
        "cuda-unmet: one line with the required and the host's CUDA version ($cuda_ver, from NVML) and the fix"
req cuda-met 0 XPU_REQUIRE="cuda>=11.0,arch>=7.5,brand=geforce"
req arch-unmet 125 XPU_REQUIRE="arch>=8.0"
like "$E2E_ERR" 'arch>=8\.0 but host has nvidia:0 with compute capability 7\.5' \
        "arch-unmet: the device and its compute capability from the rich probe"
req brand-alt 0 XPU_REQUIRE="brand=tesla brand=geforce"
req image-cuda 125 NVIDIA_REQUIRE_CUDA="cuda>=12.4 brand=tesla,driver>=470,driver<471"
like "$E2E_ERR" 'NVIDIA_REQUIRE_CUDA: requirement .* not met: no alternative met; first: cuda>=12\.4 but host has CUDA driver' \
        "image-cuda: the image's NVIDIA_REQUIRE_CUDA is checked against the CUDA version NVML reports"
like "$E2E_ERR" 'NVIDIA_DISABLE_REQUIRE=1' "image-cuda: the message says how to skip the check"
req image-disabled 0 NVIDIA_REQUIRE_CUDA="cuda>=12.4" NVIDIA_DISABLE_REQUIRE=1
req image-met 0 NVIDIA_REQUIRE_CUDA="cuda>=11.0 brand=tesla,driver>=470"

# The vendor's libraries are alternatives for a requirement: NVML answered, so libcuda is not
# loaded; NVML failing, libcuda answers instead.
req one-library 0 XPU_REQUIRE="cuda>=11.0" XPUINIT_LOG_LEVEL=debug
like "$E2E_ERR" 'cuda: skipped: nvml answered' "one-library: libcuda is not loaded when NVML answered"
sed -i '1i error.nvmlInit_v2 999' "$state"
req nvml-down 125 XPU_REQUIRE="cuda>=12.4"
like "$E2E_ERR" 'nvml: nvmlInit_v2 failed' "nvml-down: the NVML failure is a warning"
like "$E2E_ERR" "cuda>=12\\.4 but host has CUDA driver $cuda_ver" "nvml-down: libcuda gave the CUDA version instead"
sed -i '/^error\.nvmlInit_v2/d' "$state"

# A vendor library that hangs: bounded by --vendor-timeout, the image's requirement cannot be
# checked (a warning), XPU_REQUIRE fails with the reason. (The workload is echo here: /workload
# would call the hanging cuInit itself.)
sed -i '1i hang.nvmlInit_v2 1\nhang.cuInit 1' "$state"
req_wl="/bin/echo pid=echo"
req hang-lenient 0 NVIDIA_REQUIRE_CUDA="cuda>=11.0" XPUINIT_VENDOR_TIMEOUT=1
like "$E2E_ERR" 'nvml: NVML helper timed out after 1 s' "hang-lenient: the hanging NVML is reported as a timeout"
like "$E2E_ERR" 'NVIDIA_REQUIRE_CUDA: not checked: cuda>=11\.0' "hang-lenient: the unchecked requirement is named"
req hang-strict 125 XPU_REQUIRE="cuda>=11.0" XPUINIT_VENDOR_TIMEOUT=1
like "$E2E_ERR" 'CUDA driver version unknown \(nvml: NVML helper timed out after 1 s\)' \
        "hang-strict: the unmet requirement says why the version is unknown"
sed -i '/^hang\./d' "$state"
req_wl="/workload --expect-cuda-count 8"

# A container given none of the host's GPUs (no --gpus, no device resource): the start falls back
# to cpu and says so at warning level, naming the count and how to ask for them; a container
# that asked for none (NVIDIA_VISIBLE_DEVICES=none) is not warned.
nv_bundle not-given -- /bin/echo pid=echo
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "not-given: the workload runs (cpu)"
like "$E2E_ERR" '^xpuinit: warning: found 8 NVIDIA GPUs, 0 given to this container: request them \(--gpus/--device, a Kubernetes resource or a CDI device\); looked for /dev/nvidia0, /dev/nvidia1, /dev/nvidia2 and 5 more: not found$' \
        "not-given: a warning names the 8 GPUs, the fix and the nodes looked for"
# `xpuinit plan` says the same, as it shows what a start would do. A dev root one level too deep
# (mkdevroot.sh HOST DIR makes DIR/dev: --dev-root DIR/dev looks for DIR/dev/dev/nvidia0) finds
# no node: the warning names the nodes and the dev root; one level up they are found.
sh "$XPU_SRCDIR/tests/fixtures/mkdevroot.sh" "$fx" "$E2E_TMP/devroot" >/dev/null || bail "mkdevroot.sh failed"
"$XPU_BUILD/xpuinit" --sys-root "$fx" --dev-root "$E2E_TMP/devroot/dev" --driver-root "$E2E_TMP/driver" plan -- /bin/true \
        >/dev/null 2>"$E2E_TMP/plan-not-given.err"
is "$(cat "$E2E_TMP/plan-not-given.err")" "xpuinit: warning: found 8 NVIDIA GPUs, 0 given to this container: request them (--gpus/--device, a Kubernetes resource or a CDI device); looked for /dev/nvidia0, /dev/nvidia1, /dev/nvidia2 and 5 more under the dev root $E2E_TMP/devroot/dev: not found (the dev root is the directory that holds dev/)" \
        "not-given: xpuinit plan with --dev-root one level too deep names the nodes and the dev root"
"$XPU_BUILD/xpuinit" --sys-root "$fx" --dev-root "$E2E_TMP/devroot" --driver-root "$E2E_TMP/driver" plan -- /bin/true \
        >/dev/null 2>"$E2E_TMP/plan-given.err"
unlike "$E2E_TMP/plan-given.err" '0 given' "not-given: ... and with --dev-root at the directory that holds dev/, no warning"
nv_bundle not-given-none -- /bin/echo pid=echo
e2e_env "$E2E_BUNDLE" NVIDIA_VISIBLE_DEVICES=none
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "not-given-none: the workload runs (cpu)"
unlike "$E2E_ERR" '0 given to this container' "not-given-none: no warning when none was asked for"
nv_bundle given -- /bin/echo pid=echo
e2e_devices "$E2E_BUNDLE" "$fx"
e2e_run "$E2E_BUNDLE"
unlike "$E2E_ERR" 'given to this container' "given: no warning when the GPUs were given"

# -v names the driver root and how it was chosen: the option, or the first default (/host here)
# that holds driver libraries.
nv_bundle verbose-root -v -- /bin/echo pid=echo
e2e_devices "$E2E_BUNDLE" "$fx"
e2e_run "$E2E_BUNDLE"
like "$E2E_ERR" '^xpuinit: info: driver root /xpu/driver \(--driver-root/XPUINIT_DRIVER_ROOT\)$' \
        "verbose-root: -v names the driver root given by --driver-root"
e2e_bundle verbose-default
e2e_mount_ro "$E2E_BUNDLE" "$fx" /xpu/host
e2e_mount_ro "$E2E_BUNDLE" "$E2E_TMP/driver" /host
e2e_env "$E2E_BUNDLE" XPU_FAKE_STATE=/host/xpu-fake-state
e2e_args "$E2E_BUNDLE" /usr/bin/xpuinit --sys-root /xpu/host -v -- /workload --expect-cuda-count 8
e2e_devices "$E2E_BUNDLE" "$fx"
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "verbose-default: the driver root found at /host serves the workload"
[ "$E2E_RC" -eq 0 ] || e2e_show
like "$E2E_ERR" '^xpuinit: info: driver root /host \(the first of /run/nvidia/driver, /host, / that holds driver libraries\)$' \
        "verbose-default: -v names /host and why"

# ---- files at their own path: GSP firmware, the persistenced socket (xpud listens on it), the MPS
# pipe directory; bound in mount mode, linked in link mode ----------------------------------------
drv=$E2E_TMP/driver
fw=/lib/firmware/nvidia/$ver/gsp_tu10x.bin
mkdir -p "$drv/lib/firmware/nvidia/$ver" "$drv/lib/firmware/nvidia/460.73.01" "$drv/tmp/nvidia-mps" \
        "$drv/run/nvidia-persistenced" || bail "cannot populate the driver root"
echo "GSP-firmware-$ver" >"$drv$fw"
echo "GSP-firmware-460.73.01" >"$drv/lib/firmware/nvidia/460.73.01/gsp_tu10x.bin"
"$XPU_BUILD/xpud" --socket "$drv/run/nvidia-persistenced/socket" --sys-root "$fx" --dev-root "$fx" \
        --driver-root "$drv" --interval 60 2>"$E2E_TMP/persistenced.log" &
listener=$!
i=0
while [ ! -S "$drv/run/nvidia-persistenced/socket" ] && [ $i -lt 100 ]; do
        sleep 0.1
        i=$((i + 1))
done
[ -S "$drv/run/nvidia-persistenced/socket" ] || { diag_file "$E2E_TMP/persistenced.log"; bail "no listener"; }
# persistenced's socket and the MPS pipe directory are every user's (xpuinit places nothing less)
chmod 0777 "$drv/run/nvidia-persistenced/socket" || bail "chmod"
chmod 1777 "$drv/tmp/nvidia-mps" || bail "chmod"
hostfiles="/workload --expect-file $fw=GSP-firmware-$ver --expect-connect /run/nvidia-persistenced/socket
        --list-dir /lib/firmware/nvidia --list-dir /tmp/nvidia-mps --mounts /lib/firmware
        --mounts /run/nvidia-persistenced --mounts /tmp/nvidia-mps"
# shellcheck disable=SC2086 # $hostfiles is split into words on purpose
set -- $hostfiles
nv_bundle hostfiles --inject mount -- "$@"
e2e_caps_add "$E2E_BUNDLE" CAP_SYS_ADMIN
e2e_devices "$E2E_BUNDLE" "$fx"
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "hostfiles mount: the firmware reads as the driver root's, the persistenced socket answers"
[ "$E2E_RC" -eq 0 ] || e2e_show
is "$(e2e_fact dir./lib/firmware/nvidia)" "$ver" "hostfiles mount: only the running version's firmware"
like "$E2E_OUT" "^mount\\.$fw=[^ ]+ ro,nosuid,nodev" "hostfiles mount: the firmware is bound read-only, nosuid, nodev"
like "$E2E_OUT" '^mount\./run/nvidia-persistenced/socket=[^ ]+ ro,nosuid,nodev,noexec' \
        "hostfiles mount: the socket is bound nosuid, nodev, noexec, no more writable than the read-only driver root (connect works)"
like "$E2E_OUT" '^mount\./tmp/nvidia-mps=[^ ]+ ro,nosuid,nodev,noexec' \
        "hostfiles mount: the MPS directory is no more writable than the read-only driver root"

# shellcheck disable=SC2086
set -- $hostfiles
nv_bundle hostfiles-link -- "$@"
e2e_devices "$E2E_BUNDLE" "$fx"
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "hostfiles link: the firmware and the socket are reached through links into the driver root"
[ "$E2E_RC" -eq 0 ] || e2e_show
unlike "$E2E_OUT" '^mount\./lib/firmware' "hostfiles link: nothing mounted"

# an image whose firmware directory is a link out of its root: refused, naming the link
nv_bundle hostfiles-escape --inject mount -- /workload
e2e_caps_add "$E2E_BUNDLE" CAP_SYS_ADMIN
e2e_devices "$E2E_BUNDLE" "$fx"
mkdir -p "$E2E_BUNDLE/rootfs/lib/firmware" && ln -s ../../../../../../../../../tmp "$E2E_BUNDLE/rootfs/lib/firmware/nvidia"
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 125 "hostfiles escape: exit 125"
like "$E2E_ERR" '/lib/firmware/nvidia is a symlink to \.\./.*refusing' "hostfiles escape: the message names the link"
kill "$listener" 2>/dev/null
wait "$listener" 2>/dev/null
rm -rf "$drv/lib/firmware" "$drv/tmp" "$drv/run"

# ---- CUDA forward compatibility: the image carries cuda-compat (libcuda of a newer branch than the
# host's 465) in /usr/local/cuda/compat; the loader finds it first on a data center GPU only ----------
# compat_bundle NAME: a bundle whose image has the fake libcuda as libcuda.so.999.1.1 in the compat dir.
compat_bundle() {
        nv_bundle "$1" -v -- /workload --expect-cuda-count 8 --print-env LD_LIBRARY_PATH
        cdir=$E2E_BUNDLE/rootfs/usr/local/cuda/compat
        if ! { mkdir -p "$cdir" && cp "$drv/$lib/libcuda.so.$ver" "$cdir/libcuda.so.999.1.1" &&
                ln -s libcuda.so.999.1.1 "$cdir/libcuda.so.1"; }; then
                bail "cannot make the compat directory"
        fi
        e2e_devices "$E2E_BUNDLE" "$fx"
}
cp "$state" "$state.geforce"
sed 's/^\(device\.[0-9]*\.brand\) 5$/\1 Tesla/' "$state.geforce" >"$state"
compat_bundle compat-tesla
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "compat tesla: the workload ran"
[ "$E2E_RC" -eq 0 ] || e2e_show
is "$(e2e_fact cuda.path)" /usr/local/cuda/compat/libcuda.so.1 \
        "compat tesla: dlopen(libcuda.so.1) finds the image's forward-compatibility libcuda first"
is "$(e2e_fact env.LD_LIBRARY_PATH)" /usr/local/cuda/compat:/run/xpuinit/lib \
        "compat tesla: LD_LIBRARY_PATH lists the compat directory, then the host's libraries"
like "$E2E_ERR" 'forward compatibility: the image.s /usr/local/cuda/compat/libcuda\.so\.999\.1\.1 is newer than the running driver 465\.19\.01 \(requirement "brand=tesla brand=nvidia" met\)' \
        "compat tesla: the start says which was chosen and why (NVML read for the brand)"
mv "$state.geforce" "$state"
compat_bundle compat-geforce
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "compat geforce: the workload ran"
is "$(e2e_fact cuda.path)" /run/xpuinit/lib/libcuda.so.1 "compat geforce: the host's libcuda, not the image's compat one"
like "$E2E_ERR" 'forward_compat\.require is not met .*brand geforce.*the host.s libraries are used' \
        "compat geforce: the start says why the compat libraries are not used"

# ---- compat32: the 32-bit copies in /run/xpuinit/lib32 (a 32-bit ELF stand-in), bound in mount mode --
mkdir -p "$drv/usr/lib/i386-linux-gnu" || bail "cannot make the i386 directory"
printf '\177ELF\001\001\001 32-bit libcuda stand-in, a whole ELF32 header long: 52 bytes and more\n' >"$drv/usr/lib/i386-linux-gnu/libcuda.so.$ver"
nv_bundle compat32 --inject mount -- /workload --expect-cuda-count 8 --list-dir /run/xpuinit/lib32 \
        --mounts /run/xpuinit/lib32 --print-env LD_LIBRARY_PATH
e2e_env "$E2E_BUNDLE" NVIDIA_DRIVER_CAPABILITIES=utility,compute,compat32
e2e_caps_add "$E2E_BUNDLE" CAP_SYS_ADMIN
e2e_devices "$E2E_BUNDLE" "$fx"
e2e_run "$E2E_BUNDLE"
is "$E2E_RC" 0 "compat32: the 64-bit workload still finds the 64-bit libcuda first"
[ "$E2E_RC" -eq 0 ] || e2e_show
is "$(e2e_fact dir./run/xpuinit/lib32)" "libcuda.so.1,libcuda.so.$ver" "compat32: /run/xpuinit/lib32 holds the 32-bit libcuda and its soname link"
like "$E2E_OUT" "^mount\\./run/xpuinit/lib32/libcuda\\.so\\.$ver=[^ ]+ ro,nosuid,nodev" "compat32: bound read-only"
is "$(e2e_fact env.LD_LIBRARY_PATH)" /run/xpuinit/lib:/run/xpuinit/lib32 "compat32: the loader searches lib, then lib32"
rm -rf "$drv/usr/lib/i386-linux-gnu"

e2e_done
