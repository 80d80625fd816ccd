# shellcheck shell=sh
# SC2016: jq programs are single-quoted on purpose. SC2034: variables set for the scenarios.
# shellcheck disable=SC2016,SC2034
# Harness of the end-to-end tests (tests/e2e/container-*.sh source it): TAP helpers, a tiny
# rootfs (busybox-static + the host's loader and libc + the workload + xpuinit), fixture driver
# roots with the fake vendor libraries, OCI bundles for runc, and one runc run per scenario step.
#
# Needs root, runc, busybox-static, jq, and a build (XPU_BUILD, XPU_SRCDIR set by
# tests/run-tests.sh). Anything missing is a loud failure, never a skip.
#
# Public functions (all POSIX sh):
#   ok/not_ok/diag/is/like/unlike/e2e_done     TAP output
#   e2e_init                                    check prerequisites, make $E2E_TMP, set the trap
#   need_tools TOOL... / need_pkgs PKG...       bail unless on PATH / install what is missing
#   e2e_fixture NAME                            E2E_FIXTURE = tests/fixtures/hosts/NAME (or fail;
#                                               E2E_FIXTURES overrides the directory)
#   e2e_driver_root FIXTURE DEST                copy FIXTURE to DEST, add the shims + state file;
#                                               E2E_GPUS = GPUs in the state file
#   e2e_bundle NAME                             E2E_BUNDLE = new bundle $E2E_TMP/NAME
#   e2e_rootfs_ldconfig BUNDLE                  put ldconfig + ld.so.conf(.d) in its rootfs
#   e2e_jq BUNDLE FILTER [jq args]              edit BUNDLE/config.json in place
#   e2e_args BUNDLE ARG...                      process.args
#   e2e_env BUNDLE NAME=VALUE...                add to process.env
#   e2e_mount_ro BUNDLE SRC DEST                read-only bind mount
#   e2e_caps_add BUNDLE CAP...                  add capabilities to every set
#   e2e_devices BUNDLE FIXTURE ['GLOB=GID ...'] the fixture's dev/DEVNODES as spec devices
#   e2e_device BUNDLE PATH MAJOR MINOR [GID]    one more character device
#   e2e_dev_root FIXTURE DEST                   mknod the fixture's nodes under DEST/dev
#   e2e_podman_init SPECS / e2e_podman_run NAME DEVICE [OPTS] -- CMD
#                                               podman with exactly the CDI specs of SPECS
#   e2e_run BUNDLE                              runc run; sets E2E_RC, E2E_OUT, E2E_ERR (files)
#   e2e_fact KEY                                value of "KEY=..." in the last run's stdout
#
# Functions that produce a value set a variable instead of printing it: a failure inside a
# command substitution could not stop the script.

E2E_TESTS=0
E2E_FAILED=0
E2E_TMP=
E2E_IDS=
E2E_TIMEOUT=${E2E_TIMEOUT:-60}
# Docker's default capability set: no CAP_SYS_ADMIN, so xpuinit's auto mode must pick "link".
E2E_DEFAULT_CAPS="CAP_CHOWN CAP_DAC_OVERRIDE CAP_FSETID CAP_FOWNER CAP_MKNOD CAP_NET_RAW
CAP_SETGID CAP_SETUID CAP_SETFCAP CAP_SETPCAP CAP_NET_BIND_SERVICE CAP_SYS_CHROOT CAP_KILL
CAP_AUDIT_WRITE"

# ---- TAP ----------------------------------------------------------------------------------

ok() {
        E2E_TESTS=$((E2E_TESTS + 1))
        printf 'ok %d - %s\n' "$E2E_TESTS" "$1"
}

not_ok() {
        E2E_TESTS=$((E2E_TESTS + 1))
        E2E_FAILED=$((E2E_FAILED + 1))
        printf 'not ok %d - %s\n' "$E2E_TESTS" "$1"
}

diag() {
        printf '%s\n' "$@" | sed 's/^/# /'
}

# diag_file FILE: FILE's first 60 lines as TAP comments.
diag_file() {
        sed -n '1,60s/^/# /p' "$1"
}

# is GOT WANT DESC: one test comparing two strings.
is() {
        if [ "$1" = "$2" ]; then
                ok "$3"
        else
                not_ok "$3"
                diag "got:  '$1'" "want: '$2'"
        fi
}

# like FILE REGEX DESC: one test that FILE has a line matching the extended REGEX.
like() {
        if grep -Eq -- "$2" "$1"; then
                ok "$3"
        else
                not_ok "$3"
                diag "no line of $(basename "$1") matches /$2/:"
                diag_file "$1"
        fi
}

# unlike FILE REGEX DESC: one test that no line of FILE matches REGEX.
unlike() {
        if grep -Eq -- "$2" "$1"; then
                not_ok "$3"
                grep -E -- "$2" "$1" | sed 's/^/# /'
        else
                ok "$3"
        fi
}

# bail REASON: a prerequisite is missing; counted as a failure, never a skip.
bail() {
        not_ok "e2e prerequisite: $1"
        printf 'Bail out! %s\n' "$1"
        exit 1
}

# need_tools TOOL...: bail unless every TOOL is on PATH.
need_tools() {
        for tool; do
                command -v "$tool" >/dev/null 2>&1 || bail "$tool is not installed (make deps)"
        done
}

# need_pkgs PKG...: install the Debian packages that are missing through
# packaging/install-deps.sh (which keeps Debian from starting or enabling a service a package
# ships), or bail.
need_pkgs() {
        XPU_EXTRA_PKGS="$*" sh "$(dirname "$0")/../../packaging/install-deps.sh" build >/dev/null 2>&1 ||
                bail "cannot install $* (packaging/install-deps.sh; run as root)"
}

# stop_pid PID: SIGTERM, then wait for it (at most 10 s, then SIGKILL). Returns its exit status
# (0 when it was already gone).
stop_pid() {
        kill -TERM "$1" 2>/dev/null || return 0
        i=0
        while kill -0 "$1" 2>/dev/null && [ "$i" -lt 100 ]; do
                sleep 0.1
                i=$((i + 1))
        done
        kill -KILL "$1" 2>/dev/null
        st=0
        wait "$1" 2>/dev/null || st=$?
        return "$st"
}

# e2e_done: print the plan and exit 0 when every test passed, else 1.
e2e_done() {
        printf '1..%d\n' "$E2E_TESTS"
        [ "$E2E_FAILED" -eq 0 ] || exit 1
        exit 0
}

# ---- set-up and clean-up --------------------------------------------------------------------

e2e_cleanup() {
        for id in $E2E_IDS; do
                runc delete -f "$id" >/dev/null 2>&1
        done
        if [ -n "$E2E_TMP" ] && [ -d "$E2E_TMP" ]; then
                e2e_umount_below "$E2E_TMP"
                # Nothing of the host may be mounted below; --one-file-system guards anyway.
                if grep -q " $E2E_TMP/" /proc/self/mountinfo; then
                        printf '# %s still has mounts; left in place\n' "$E2E_TMP"
                else
                        rm -rf --one-file-system "$E2E_TMP"
                fi
        fi
}

# e2e_umount_below DIR: detach every mount at or below DIR in this mount namespace (what
# `xpuinit inject --rootfs` made on the host), deepest first.
e2e_umount_below() {
        awk -v d="$1" '$5 == d || index($5, d "/") == 1 { print $5 }' /proc/self/mountinfo |
                sort -r | while read -r m; do
                umount -l "$m" || printf '# cannot unmount %s\n' "$m"
        done
}

e2e_init() {
        [ "$(id -u)" -eq 0 ] || bail "end-to-end tests must run as root (runc, mknod)"
        need_tools runc jq busybox ldd timeout
        if [ -z "${XPU_BUILD:-}" ] || [ -z "${XPU_SRCDIR:-}" ]; then
                bail "XPU_BUILD and XPU_SRCDIR must be set (run through tests/run-tests.sh)"
        fi
        for f in xpuinit tests/e2e/workload tests/shims/libcuda.so.shim \
                tests/shims/libnvidia-ml.so.shim; do
                [ -f "$XPU_BUILD/$f" ] || bail "$XPU_BUILD/$f is missing (make build-tests)"
        done
        E2E_BUSYBOX=$(e2e_find_busybox) || bail "no statically linked busybox (busybox-static)"
        E2E_TMP=$(mktemp -d /tmp/xpu-e2e.XXXXXX) || bail "mktemp failed"
        trap e2e_cleanup EXIT
        trap 'exit 130' INT TERM
        E2E_CGROUPS=yes
        e2e_cgroups_usable || E2E_CGROUPS=no
}

# e2e_is_static FILE: true when FILE needs no shared library (static or static-pie: ldd lists
# no "=>" line).
e2e_is_static() {
        ! ldd "$1" 2>&1 | grep -q '=>'
}

# Busybox must be static: the rootfs holds only the workload's and xpuinit's libraries.
e2e_find_busybox() {
        for b in /bin/busybox /usr/bin/busybox; do
                [ -x "$b" ] || continue
                if e2e_is_static "$b"; then
                        printf '%s\n' "$b"
                        return 0
                fi
        done
        return 1
}

# True when runc can create cgroups here (v2: delegatable controllers; v1: a writable
# devices hierarchy). Otherwise the spec loses process.rlimits and linux.resources.
e2e_cgroups_usable() {
        [ -w /sys/fs/cgroup/cgroup.subtree_control ] && return 0
        [ -d /sys/fs/cgroup/devices ] && [ -w /sys/fs/cgroup/devices ] && return 0
        return 1
}

# ---- fixtures and driver roots --------------------------------------------------------------

e2e_fixture() {
        E2E_FIXTURE="${E2E_FIXTURES:-$XPU_SRCDIR/tests/fixtures/hosts}/$1"
        [ -d "$E2E_FIXTURE" ] || bail "fixture host $1 is missing ($E2E_FIXTURE)"
}

# e2e_mixed_host FIXTURE HOST SCRATCH [MKAMDSYS ARGS...]: a host root for xpud: FIXTURE's NVIDIA
# files with the fake NVML (tests/fixtures/mkdriverroot.sh) plus an amdgpu sysfs tree built in
# SCRATCH by tests/rocm/mkamdsys.sh with ARGS, moved to HOST/sys.
e2e_mixed_host() {
        fx=$1
        host=$2
        scratch=$3
        shift 3
        sh "$XPU_SRCDIR/tests/fixtures/mkdriverroot.sh" "$fx" "$host" "$XPU_BUILD" >/dev/null ||
                bail "mkdriverroot.sh failed"
        sh "$XPU_SRCDIR/tests/rocm/mkamdsys.sh" -o "$scratch" "$@" >/dev/null || bail "mkamdsys.sh failed"
        mv "$scratch/sys" "$host/sys" || bail "cannot move the AMD tree into the host"
}

# e2e_nvidia_version FIXTURE: the running driver version from proc/driver/nvidia/version (both
# the proprietary and the open module's first line), else expected.json's driver_version.
e2e_nvidia_version() {
        v=
        if [ -f "$1/proc/driver/nvidia/version" ]; then
                # The first dotted number of line 1 ("x86_64" and the time have no dot).
                v=$(awk 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9.]+$/) {
                        print $i; exit } }' "$1/proc/driver/nvidia/version")
        fi
        if [ -z "$v" ] && [ -f "$1/expected.json" ]; then
                v=$(jq -r '.nvidia.driver_version // empty' "$1/expected.json")
        fi
        [ -n "$v" ] || return 1
        printf '%s\n' "$v"
}

# e2e_nvidia_uuids FIXTURE: the GPU UUIDs in PCI bus order (the information files' directory
# names are lower-case fixed-width bus ids, so a plain sort is bus order).
e2e_nvidia_uuids() {
        for info in "$1"/proc/driver/nvidia/gpus/*/information; do
                [ -f "$info" ] || continue
                sed -n 's/^GPU UUID:[[:space:]]*\(GPU-[0-9a-fA-F-]*\).*/\1/p' "$info"
        done
}

# e2e_nvidia_libdir FIXTURE: the directory that holds the fixture's driver libraries.
e2e_nvidia_libdir() {
        for d in usr/lib/x86_64-linux-gnu usr/lib64 usr/lib/aarch64-linux-gnu usr/lib; do
                if ls "$1/$d"/libnvidia-*.so.* >/dev/null 2>&1; then
                        printf '%s\n' "$d"
                        return 0
                fi
        done
        printf 'usr/lib/x86_64-linux-gnu\n'
}

# e2e_driver_root FIXTURE DEST: DEST = a copy of FIXTURE plus the fake libcuda and
# libnvidia-ml under the running version's names, with the real link layout
# (libcuda.so.1 -> libcuda.so.VER, libcuda.so -> libcuda.so.1, libnvidia-ml.so.1 ->
# libnvidia-ml.so.VER, no libnvidia-ml.so), and DEST/xpu-fake-state for them.
# Sets E2E_GPUS to the number of GPUs written to the state file.
e2e_driver_root() {
        fx=$1
        dest=$2
        mkdir -p "$dest" || bail "cannot create $dest"
        cp -a "$fx/." "$dest/" || bail "cannot copy $fx"
        ver=$(e2e_nvidia_version "$fx") || bail "no NVIDIA driver version in $fx"
        lib=$(e2e_nvidia_libdir "$fx")
        mkdir -p "$dest/$lib"
        rm -f "$dest/$lib/libcuda.so.$ver" "$dest/$lib/libnvidia-ml.so.$ver"
        cp "$XPU_BUILD/tests/shims/libcuda.so.shim" "$dest/$lib/libcuda.so.$ver"
        cp "$XPU_BUILD/tests/shims/libnvidia-ml.so.shim" "$dest/$lib/libnvidia-ml.so.$ver"
        ln -sfn "libcuda.so.$ver" "$dest/$lib/libcuda.so.1"
        ln -sfn libcuda.so.1 "$dest/$lib/libcuda.so"
        ln -sfn "libnvidia-ml.so.$ver" "$dest/$lib/libnvidia-ml.so.1"
        cuda=
        first_model=
        [ -f "$fx/expected.json" ] && cuda=$(jq -r '.nvidia.cuda_version // empty' "$fx/expected.json")
        state="$dest/xpu-fake-state"
        {
                printf 'driver_version %s\n' "$ver"
                printf 'cuda_version %s\n' "${cuda:-12040}"
                i=0
                for info in "$fx"/proc/driver/nvidia/gpus/*/information; do
                        [ -f "$info" ] || continue
                        sed -n -e "s/^GPU UUID:[[:space:]]*\\(GPU-[0-9a-fA-F-]*\\).*/device.$i.uuid \\1/p" \
                                -e "s/^Model:[[:space:]]*\\(.*[^[:space:]]\\)[[:space:]]*\$/device.$i.name \\1/p" \
                                -e "s/^Device Minor:[[:space:]]*\\([0-9]*\\).*/device.$i.minor \\1/p" \
                                -e "s/^Bus Location:[[:space:]]*\\([0-9a-fA-F:.]*\\).*/device.$i.bus_id \\1/p" "$info"
                        # Captures list the model of the first GPU only; NVML names every one.
                        model=$(sed -n 's/^Model:[[:space:]]*\(.*[^[:space:]]\)[[:space:]]*$/\1/p' "$info")
                        first_model=${first_model:-$model}
                        printf 'device.%d.name %s\n' "$i" "${first_model:-NVIDIA GPU}"
                        i=$((i + 1))
                done
                printf 'device_count %d\n' "$i"
        } >"$state"
        # The libraries look for their state beside themselves when XPU_FAKE_STATE is unset, as in
        # xpuinit's isolated helper, whose environment holds only PATH.
        ln -sfn "$(printf '%s' "$lib" | sed 's|[^/]*|..|g')/xpu-fake-state" "$dest/$lib/xpu-fake-state"
        E2E_GPUS=$(sed -n 's/^device_count //p' "$state")
}

# ---- rootfs -----------------------------------------------------------------------------------

# e2e_copy_libs ROOTFS BINARY: copy the shared objects ldd lists for BINARY to the same paths.
e2e_copy_libs() {
        ldd "$2" | sed -n -e 's/.*=> \(\/[^ ]*\) .*/\1/p' -e 's/^[[:space:]]*\(\/[^ ]*\) .*/\1/p' |
                while read -r so; do
                        mkdir -p "$1$(dirname "$so")"
                        cp -L "$so" "$1$so" || return 1
                done
}

# e2e_rootfs_template: build $E2E_TMP/rootfs.template once (no ldconfig, no ld.so.cache: the
# loader finds injected libraries only through what xpuinit sets up).
e2e_rootfs_template() {
        r="$E2E_TMP/rootfs.template"
        [ -d "$r" ] && return 0
        mkdir -p "$r/bin" "$r/usr/bin" "$r/etc" "$r/run" "$r/tmp" "$r/proc" "$r/sys" "$r/dev" ||
                bail "cannot create $r"
        chmod 1777 "$r/tmp"
        cp "$E2E_BUSYBOX" "$r/bin/busybox"
        for applet in sh ls cat id env echo test grep sleep true false readlink; do
                ln -s busybox "$r/bin/$applet"
        done
        cp "$XPU_BUILD/tests/e2e/workload" "$r/workload"
        cp "$XPU_BUILD/xpuinit" "$r/usr/bin/xpuinit"
        e2e_copy_libs "$r" "$XPU_BUILD/tests/e2e/workload" || bail "cannot copy the workload's libraries"
        e2e_copy_libs "$r" "$XPU_BUILD/xpuinit" || bail "cannot copy xpuinit's libraries"
        cat >"$r/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
EOF
        cat >"$r/etc/group" <<'EOF'
root:x:0:
video:x:44:
render:x:105:
nogroup:x:65534:
EOF
}

# ---- podman with CDI specs -------------------------------------------------------------------

# e2e_podman_init SPECS_DIR: podman runs (e2e_podman_run) see exactly the CDI specs in SPECS_DIR
# (*.json, *.yaml) as /etc/cdi, in a private mount namespace (an overlay on /etc; /run/cdi and
# /var/run/cdi hidden by a tmpfs where the host has them), with podman's root, runroot and tmpdir
# below $E2E_TMP.
e2e_podman_init() {
        E2E_PODMAN_SPECS=$1
        cat >"$E2E_TMP/podman-ns.sh" <<'EOF'
set -e
t=$1
specs=$2
shift 2
ov=$(mktemp -d "$t/etc-overlay.XXXXXX")
mkdir "$ov/upper" "$ov/work"
mount -t overlay overlay -o "lowerdir=/etc,upperdir=$ov/upper,workdir=$ov/work" /etc
mkdir -p /etc/cdi
mount -t tmpfs -o mode=0755 tmpfs /etc/cdi
for f in "$specs"/*.json "$specs"/*.yaml; do
        if [ -f "$f" ]; then cp "$f" /etc/cdi/; fi
done
for d in /run/cdi /var/run/cdi; do
        if [ -d "$d" ]; then mount -t tmpfs -o mode=0755 tmpfs "$d"; fi
done
exec podman --root "$t/podman/root" --runroot "$t/podman/run" --tmpdir "$t/podman/tmp" \
        --runtime runc --cgroup-manager cgroupfs --events-backend none "$@"
EOF
        mkdir -p "$E2E_TMP/podman/root" "$E2E_TMP/podman/run" "$E2E_TMP/podman/tmp" ||
                bail "cannot create $E2E_TMP/podman"
}

# e2e_podman_run NAME DEVICE [-e NAME=VALUE | -v HOST:CTR[:ro] | --device OTHER ...] -- COMMAND...:
# podman run of a fresh copy NAME of the rootfs template with the CDI device DEVICE, the words of
# E2E_PODMAN_MOUNTS (e.g. "-v FX:/xpu/host:ro"), XPUINIT_SYS_ROOT=/xpu/host and
# XPU_FAKE_STATE=/xpu/driver/xpu-fake-state; sets E2E_RC, E2E_OUT, E2E_ERR as e2e_run does.
e2e_podman_run() {
        name=$1
        device=$2
        shift 2
        e2e_rootfs_template
        r="$E2E_TMP/$name"
        mkdir -p "$r" || bail "cannot create $r"
        cp -a "$E2E_TMP/rootfs.template" "$r/rootfs" || bail "cannot copy the rootfs to $r"
        set -- -e XPUINIT_SYS_ROOT=/xpu/host -e XPU_FAKE_STATE=/xpu/driver/xpu-fake-state "$@"
        # A sanitized pass: no leak checking in the container, as e2e_bundle does (xpuinit's own
        # seccomp filter denies the ptrace LeakSanitizer needs).
        if [ -n "${ASAN_OPTIONS:-}" ]; then
                set -- -e ASAN_OPTIONS=detect_leaks=0 "$@"
        fi
        opts=
        while [ $# -gt 0 ] && [ "$1" != -- ]; do
                opts="$opts $1"
                shift
        done
        [ $# -gt 0 ] && shift
        E2E_OUT="$r/stdout"
        E2E_ERR="$r/stderr"
        # shellcheck disable=SC2086 # $opts and E2E_PODMAN_MOUNTS hold words without blanks
        timeout "$E2E_TIMEOUT" unshare -m --propagation private sh "$E2E_TMP/podman-ns.sh" "$E2E_TMP" \
                "$E2E_PODMAN_SPECS" run --rm --network none --ulimit nofile=20000:20000 \
                --ulimit nproc=1024:1024 ${E2E_PODMAN_MOUNTS:-} $opts --device "$device" --rootfs "$r/rootfs" \
                "$@" </dev/null >"$E2E_OUT" 2>"$E2E_ERR"
        E2E_RC=$?
        if [ "$E2E_RC" -eq 124 ]; then
                diag "podman run $name timed out after ${E2E_TIMEOUT}s"
        fi
}

# e2e_rootfs_ldconfig BUNDLE: give BUNDLE's rootfs the host's (static) ldconfig, an
# /etc/ld.so.conf that includes /etc/ld.so.conf.d/*.conf, and a cache, as a Debian image has.
e2e_rootfs_ldconfig() {
        r="$1/rootfs"
        ldc=$(command -v ldconfig || echo /sbin/ldconfig)
        if ! e2e_is_static "$ldc"; then
                bail "$ldc is not statically linked; cannot copy it into the test rootfs"
        fi
        mkdir -p "$r/sbin" "$r/etc/ld.so.conf.d"
        cp "$ldc" "$r/sbin/ldconfig"
        printf 'include /etc/ld.so.conf.d/*.conf\n' >"$r/etc/ld.so.conf"
        "$ldc" -r "$r" || bail "ldconfig -r $r failed"
}

# ---- bundles ------------------------------------------------------------------------------------

# e2e_bundle NAME: E2E_BUNDLE = a fresh bundle $E2E_TMP/NAME with its own rootfs and runc's
# default spec, made non-interactive, with Docker's default capabilities.
e2e_bundle() {
        e2e_rootfs_template
        b="$E2E_TMP/$1"
        mkdir -p "$b" || bail "cannot create $b"
        cp -a "$E2E_TMP/rootfs.template" "$b/rootfs" || bail "cannot copy the rootfs to $b"
        (cd "$b" && runc spec) || bail "runc spec failed"
        # shellcheck disable=SC2086 # one capability per word
        caps=$(printf '%s\n' $E2E_DEFAULT_CAPS | jq -R . | jq -s -c .)
        e2e_jq "$b" '.process.terminal = false | .root.path = "rootfs" | .root.readonly = false
                | .process.capabilities.bounding = $c | .process.capabilities.effective = $c
                | .process.capabilities.permitted = $c | del(.process.capabilities.inheritable)
                | del(.process.capabilities.ambient)' --argjson c "$caps"
        if [ "$E2E_CGROUPS" = no ]; then
                e2e_jq "$b" 'del(.process.rlimits) | del(.linux.resources)'
        fi
        # A sanitized pass (tests/run-tests.sh --sanitized): no leak checking in the container
        # either, where xpuinit runs under its own seccomp filter, which denies the ptrace
        # LeakSanitizer needs (its other reports still end the program with status 1).
        if [ -n "${ASAN_OPTIONS:-}" ]; then
                e2e_jq "$b" '.process.env += ["ASAN_OPTIONS=detect_leaks=0"]'
        fi
        E2E_BUNDLE=$b
}

# e2e_jq BUNDLE FILTER [JQ ARGS...]: rewrite BUNDLE/config.json through jq.
e2e_jq() {
        b=$1
        f=$2
        shift 2
        jq "$@" "$f" "$b/config.json" >"$b/config.json.new" || bail "jq could not apply: $f"
        mv "$b/config.json.new" "$b/config.json" || bail "cannot update $b/config.json"
}

e2e_args() {
        b=$1
        shift
        args=$(for a in "$@"; do printf '%s\n' "$a"; done | jq -R . | jq -s -c .)
        e2e_jq "$b" '.process.args = $a' --argjson a "$args"
}

e2e_env() {
        b=$1
        shift
        for kv in "$@"; do
                e2e_jq "$b" '.process.env = ([.process.env[] | select(startswith($n) | not)] + [$kv])' \
                        --arg kv "$kv" --arg n "${kv%%=*}="
        done
}

# e2e_mig_state STATE: append to the fake NVML's STATE what only NVML knows of the nvidia-a100-mig
# host's MIG devices: MIG mode on, and MIG device M (GPU instance M + 3, compute instance 0) with
# UUID MIG-3f0c1a2b-0000-5000-8000-00000000000M, for M = 0..3.
e2e_mig_state() {
        {
                printf 'device.0.mig_mode 1\n'
                for m in 0 1 2 3; do
                        printf 'device.0.mig.%d.uuid MIG-3f0c1a2b-0000-5000-8000-00000000000%d\n' "$m" "$m"
                        printf 'device.0.mig.%d.gi %d\ndevice.0.mig.%d.ci 0\n' "$m" $((m + 3)) "$m"
                done
        } >>"$1"
}

# e2e_xpuinit_bundle NAME FIXTURE DRIVER_ROOT [XPUINIT OPTION...] -- WORKLOAD ARG...: a bundle on
# the fixture host (read-only at /xpu/host) with the driver root (read-only at /xpu/driver) and
# its fake vendor libraries' state, xpuinit as the process. Device nodes are the caller's.
e2e_xpuinit_bundle() {
        e2e_bundle "$1"
        e2e_mount_ro "$E2E_BUNDLE" "$2" /xpu/host
        e2e_mount_ro "$E2E_BUNDLE" "$3" /xpu/driver
        e2e_env "$E2E_BUNDLE" XPU_FAKE_STATE=/xpu/driver/xpu-fake-state
        shift 3
        e2e_args "$E2E_BUNDLE" /usr/bin/xpuinit --sys-root /xpu/host --driver-root /xpu/driver "$@"
}

e2e_mount_ro() {
        e2e_jq "$1" '.mounts += [{destination: $d, type: "bind", source: $s,
                options: ["rbind", "ro", "nosuid", "nodev"]}]' --arg s "$2" --arg d "$3"
}

e2e_caps_add() {
        b=$1
        shift
        for c in "$@"; do
                e2e_jq "$b" '.process.capabilities.bounding += [$c] | .process.capabilities.effective += [$c]
                        | .process.capabilities.permitted += [$c]' --arg c "$c"
        done
}

# e2e_device BUNDLE PATH MAJOR MINOR [GID]: a character device node created by runc in the
# container (mode 0666 or 0660 with a group), allowed in the device cgroup when there is one.
e2e_device() {
        gid=${5:-0}
        mode=438
        [ "$gid" -ne 0 ] && mode=432
        e2e_jq "$1" '.linux.devices = ((.linux.devices // []) + [{path: $p, type: "c", major: $ma,
                minor: $mi, fileMode: $m, uid: 0, gid: $g}])' \
                --arg p "$2" --argjson ma "$3" --argjson mi "$4" --argjson g "$gid" --argjson m "$mode"
        if [ "$E2E_CGROUPS" = yes ]; then
                e2e_jq "$1" '.linux.resources.devices += [{allow: true, type: "c", major: $ma, minor: $mi,
                        access: "rwm"}]' --argjson ma "$3" --argjson mi "$4"
        fi
}

# e2e_kfd_major FIXTURE: /dev/kfd's dynamic major as the fixture says (sys/class/kfd/kfd/dev,
# else proc/devices), else 510.
e2e_kfd_major() {
        m=
        [ -f "$1/sys/class/kfd/kfd/dev" ] && m=$(cut -d: -f1 "$1/sys/class/kfd/kfd/dev")
        [ -z "$m" ] && [ -f "$1/proc/devices" ] && m=$(awk '$2 == "kfd" { print $1 }' "$1/proc/devices")
        printf '%s\n' "${m:-510}"
}

# e2e_proc_major FIXTURE NAME: the major of driver NAME in the fixture's proc/devices.
e2e_proc_major() {
        [ -f "$1/proc/devices" ] && awk -v n="$2" '$2 == n { print $1; exit }' "$1/proc/devices"
}

# e2e_devices BUNDLE FIXTURE ['GLOB=GID ...']: every node of FIXTURE/dev/DEVNODES ("path c
# MAJ:MIN", '?' = dynamic major, taken from the fixture's sysfs/procfs) as a device of the
# container; a node whose path matches a GLOB gets group GID (first match wins), else root.
# Sets E2E_NODES to the paths added, space-separated.
e2e_devices() {
        E2E_NODES=
        [ -f "$2/dev/DEVNODES" ] || return 0
        nodes=$(grep -v '^[[:space:]]*#' "$2/dev/DEVNODES" | awk '$2 == "c" { print $1, $3 }')
        while read -r path num; do
                [ -n "$path" ] || continue
                maj=${num%%:*}
                min=${num#*:}
                if [ "$maj" = "?" ]; then
                        case "$path" in
                        /dev/kfd) maj=$(e2e_kfd_major "$2") ;;
                        /dev/nvidia-uvm*) maj=$(e2e_proc_major "$2" nvidia-uvm) ;;
                        /dev/nvidia-caps/*) maj=$(e2e_proc_major "$2" nvidia-caps) ;;
                        *) maj= ;;
                        esac
                fi
                case "$maj:$min" in
                :* | *: | *[!0-9:]*)
                        diag "skipping $path: no number for it in the fixture"
                        continue
                        ;;
                *) ;;
                esac
                gid=0
                for rule in ${3:-}; do
                        # shellcheck disable=SC2254 # the pattern is meant to glob
                        case "$path" in ${rule%=*})
                                gid=${rule##*=}
                                break
                                ;;
                        *) ;;
                        esac
                done
                e2e_device "$1" "$path" "$maj" "$min" "$gid"
                E2E_NODES="$E2E_NODES $path"
        done <<EOF
$nodes
EOF
        E2E_NODES=${E2E_NODES# }
}

# e2e_dev_root FIXTURE DEST: DEST/dev holds real character nodes (mknod) for the fixture's
# dev/DEVNODES, as the host's /dev would: a --dev-root for xpuinit run outside a container.
e2e_dev_root() {
        mkdir -p "$2/dev" || bail "cannot create $2/dev"
        grep -v '^[[:space:]]*#' "$1/dev/DEVNODES" | awk '$2 == "c" { print $1, $3 }' |
                while read -r path num; do
                        maj=${num%%:*}
                        [ "$maj" = "?" ] && [ "$path" = /dev/kfd ] && maj=$(e2e_kfd_major "$1")
                        case "$maj" in "" | *[!0-9]*) continue ;; *) ;; esac
                        mkdir -p "$2$(dirname "$path")"
                        mknod -m 0666 "$2$path" c "$maj" "${num#*:}" || return 1
                done || bail "mknod under $2 failed"
}

# ---- running --------------------------------------------------------------------------------------

# e2e_run BUNDLE: run the container to completion (at most E2E_TIMEOUT seconds), then delete it.
# Sets E2E_RC (runc's exit status = the container process's), E2E_OUT and E2E_ERR (file paths).
e2e_run() {
        id="xpu-e2e-$$-$(basename "$1")"
        E2E_IDS="$E2E_IDS $id"
        E2E_OUT="$1/stdout"
        E2E_ERR="$1/stderr"
        timeout "$E2E_TIMEOUT" runc run -b "$1" "$id" </dev/null >"$E2E_OUT" 2>"$E2E_ERR"
        E2E_RC=$?
        runc delete -f "$id" >/dev/null 2>&1
        if [ "$E2E_RC" -eq 124 ]; then
                diag "runc run $id timed out after ${E2E_TIMEOUT}s"
        fi
        return 0
}

# e2e_fact KEY: the value of the first "KEY=value" line the workload printed in the last run.
e2e_fact() {
        awk -v k="$1=" 'index($0, k) == 1 { print substr($0, length(k) + 1); exit }' "$E2E_OUT"
}

# e2e_show: the last run's output as TAP comments (after a failure).
e2e_show() {
        diag "exit status $E2E_RC" "--- stdout" "$(cat "$E2E_OUT")" "--- stderr" "$(cat "$E2E_ERR")"
}

# ---- self-test ----------------------------------------------------------------------------------
# tests/run-tests.sh runs every tests/e2e/*.sh; executed rather than sourced, this file checks
# its own parsers (no root or runc needed).
case "$0" in
*lib.sh)
        E2E_TMP=$(mktemp -d /tmp/xpu-e2e-lib.XXXXXX) || exit 1
        trap 'rm -rf "$E2E_TMP"' EXIT
        t=$E2E_TMP/v
        mkdir -p "$t/proc/driver/nvidia"
        printf 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  465.19.01  Fri Mar 19 07:44:41 UTC 2021\nGCC version:  gcc version 9.3.0\n' \
                >"$t/proc/driver/nvidia/version"
        is "$(e2e_nvidia_version "$t")" 465.19.01 "driver version from the proprietary module's line"
        printf 'NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  555.58  Release Build  (portage@localhost)  Sat Jul 20 2024\n' \
                >"$t/proc/driver/nvidia/version"
        is "$(e2e_nvidia_version "$t")" 555.58 "driver version from the open module's line"
        printf 'Character devices:\n  1 mem\n511 kfd\n239 nvidia-uvm\n' >"$t/proc/devices"
        is "$(e2e_kfd_major "$t")" 511 "kfd major from proc/devices"
        is "$(e2e_proc_major "$t" nvidia-uvm)" 239 "nvidia-uvm major from proc/devices"
        fx="${XPU_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/fixtures/hosts"
        is "$(e2e_nvidia_uuids "$fx/nvidia-rtx2080ti-x8" | tr '\n' ' ')" \
                "GPU-307dcc96-618a-4416-c1ef-87823c2e1a31 GPU-e28db54c-aa74-5e20-7e8d-5db5f78f12fe GPU-00cead84-aab2-a1c2-3d21-53e6a83b2a35 GPU-1c9b50c7-823e-8c87-d54d-8f2ef02906fb GPU-ce6c6e9f-1e3b-de98-15e3-4ac06b46717f GPU-b3ae0cf0-b3b5-aeec-01dc-8720c79f5068 GPU-81a93134-7966-a3ad-337f-f6b9e645e4bf GPU-ea7dfa3f-af70-377b-f7bc-a0fbf6b6dc1d " \
                "UUIDs of nvidia-rtx2080ti-x8 in PCI bus order"
        is "$(e2e_kfd_major "$fx/amd-mi210x8")" 510 "kfd major of amd-mi210x8 from sys/class/kfd/kfd/dev"
        is "$(e2e_nvidia_libdir "$fx/nvidia-rtx2080ti-x8")" usr/lib/x86_64-linux-gnu "library dir of the fixture"
        e2e_done
        ;;
*) ;;
esac
