#!/bin/sh
# The attack suite (docs/safe-paths.md): one small hostile container root, driver root,
# profile or environment per advisory class, each built here in a scratch directory, each thrown
# at `xpuinit inject --rootfs` as a runtime hook would run it. For every run:
#   - the host side is hashed before and after (sha256 of /etc/shadow, /etc/passwd, the host's
#     ld.so.cache and ld.so.conf, a listing and hashes of this run's scratch dir standing for the
#     host, and its marker file, in a scratch dir of its own) and must not change;
#   - the container root is listed before and after and must not change (every write target is
#     checked before the first one is made, so a refusal leaves nothing behind);
#   - xpuinit exits 125 and its stderr names the hostile path.
# Each run is in its own mount namespace (unshare -m), so a mount that did happen dies with it,
# inside a PID namespace (unshare -p -f --mount-proc) whose PID 1, a shell, stands for the host's
# init: inject refuses PID 1's mount namespace, and one it cannot compare (/proc/1/ns/mnt not
# readable, as in a sandbox without ptrace access to the real PID 1).
# Needs root (mknod, mount, unshare) and a build (XPU_BUILD, XPU_SRCDIR from tests/run-tests.sh);
# builds the static xpuinit (make static) when it is missing. Prints TAP.
. "$(dirname "$0")/../e2e/lib.sh"
e2e_init
for tool in unshare sha256sum mkfifo mknod flock make; do
        command -v "$tool" >/dev/null 2>&1 || bail "$tool is not installed"
done
[ -f "$XPU_BUILD/tests/attack/preload.so" ] || bail "$XPU_BUILD/tests/attack/preload.so is missing (make build-tests)"

HOST=$(mktemp -d /tmp/xpu-attack-host.XXXXXX) || bail "mktemp failed"
MARKDIR=$(mktemp -d /tmp/xpu-attack-marker.XXXXXX) || bail "mktemp failed"
MARKER=$MARKDIR/marker
trap 'rm -rf "$HOST" "$MARKDIR"; e2e_cleanup' EXIT
mkdir -p "$HOST/libdir" "$HOST/confd" "$HOST/fw" "$HOST/xpuinit"
printf 'host secret: must never reach a container\n' >"$HOST/secret.txt"
printf '# host ld.so.conf.d\n' >"$HOST/confd/host.conf"
printf 'host cache\n' >"$HOST/ld.so.cache"
touch "$HOST/libdir/keep" "$HOST/fw/keep" "$HOST/xpuinit/keep"
chmod -R a+rX "$HOST"

e2e_fixture nvidia-rtx2080ti-x8
fx=$E2E_FIXTURE
e2e_driver_root "$fx" "$E2E_TMP/driver"
e2e_dev_root "$fx" "$E2E_TMP/devroot"
VER=$(e2e_nvidia_version "$fx")
LIBDIR=$(e2e_nvidia_libdir "$fx")
XPUINIT=$XPU_BUILD/xpuinit
CLEAN_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# host_state FILE: what an attack aims at on the host.
host_state() {
        {
                sha256sum /etc/shadow /etc/passwd /etc/ld.so.cache /etc/ld.so.conf 2>&1
                ls -la /etc/ld.so.conf.d 2>&1
                # this run's own scratch host and marker only: the plain and sanitized passes of
                # make check run this suite at once, each with its own (a glob saw the other's)
                find "$HOST" -printf '%p %y %s %m %l\n' | sort
                find "$HOST" -type f -exec sha256sum {} + | sort
                ls -d "$MARKER" 2>/dev/null
        } >"$1"
}

# root_state ROOT FILE: the container root's listing (names, types, sizes, link targets).
root_state() {
        find "$1" -printf '%p %y %s %l\n' 2>&1 | sort >"$2"
}

# mkroot NAME: R = a fresh container root with ldconfig and /etc/ld.so.conf (so the plan writes
# the ld.so.conf.d drop-in and runs the host's ldconfig -r), DRV = the clean driver root.
mkroot() {
        R=$E2E_TMP/$1/rootfs
        mkdir -p "$R/etc" "$R/sbin" "$R/run" "$R/tmp" || bail "cannot create $R"
        printf 'include /etc/ld.so.conf.d/*.conf\n' >"$R/etc/ld.so.conf"
        printf '#!/bin/sh\necho the image ldconfig must not run from outside >&2\nexit 99\n' >"$R/sbin/ldconfig"
        chmod 755 "$R/sbin/ldconfig"
        DRV=$E2E_TMP/driver
}

# mkdriver NAME: DRV = a copy of the clean driver root to spoil.
mkdriver() {
        DRV=$E2E_TMP/$1/driver
        mkdir -p "$DRV" || bail "cannot create $DRV"
        cp -a "$E2E_TMP/driver/." "$DRV/" || bail "cannot copy the driver root"
}

# in_ns CMD...: CMD (at most 60 s) in a mount namespace of its own, below a shell that is PID 1 of
# a new PID namespace (see the top): the shell stays in the namespace --mount-proc made, so PID 1's
# mount namespace is readable and not the one CMD runs in.
in_ns() {
        timeout 60 unshare -p -f --mount-proc --propagation private sh -c \
                'unshare -m --propagation private "$@"; exit $?' sh "$@"
}

# attack NAME REGEX CMD...: run CMD (xpuinit and its arguments, or a wrapper) in a new mount
# namespace with a clean environment, cwd = R; assert 125, REGEX on stderr, no change on the host
# side or in R.
attack() {
        name=$1 want=$2
        shift 2
        out=$E2E_TMP/$name.out err=$E2E_TMP/$name.err
        host_state "$E2E_TMP/$name.host-before"
        root_state "$R" "$E2E_TMP/$name.root-before"
        (cd "$R" && in_ns "$@") >"$out" 2>"$err"
        rc=$?
        host_state "$E2E_TMP/$name.host-after"
        root_state "$R" "$E2E_TMP/$name.root-after"
        is "$rc" 125 "$name: xpuinit exits 125"
        [ "$rc" -eq 125 ] || diag_file "$err"
        like "$err" "$want" "$name: stderr names the hostile path"
        diag "$(grep -m 1 -E 'error' "$err")"
        if cmp -s "$E2E_TMP/$name.host-before" "$E2E_TMP/$name.host-after"; then
                ok "$name: the host side is unchanged (hashes and listings)"
        else
                not_ok "$name: the host side is unchanged (hashes and listings)"
                diag "$(diff "$E2E_TMP/$name.host-before" "$E2E_TMP/$name.host-after" | head -20)"
        fi
        if cmp -s "$E2E_TMP/$name.root-before" "$E2E_TMP/$name.root-after"; then
                ok "$name: the container root gained nothing"
        else
                not_ok "$name: the container root gained nothing"
                diag "$(diff "$E2E_TMP/$name.root-before" "$E2E_TMP/$name.root-after" | head -20)"
        fi
}

# inject ARGS...: the hook's command line, clean environment, fixture roots.
inject() {
        printf '%s\n' env -i "PATH=$CLEAN_PATH" "$XPUINIT" --sys-root "$fx" --dev-root "$E2E_TMP/devroot" \
                --driver-root "$DRV" --inject mount "$@" inject --rootfs "$R"
}
# shellcheck disable=SC2046 # word splitting of $(inject) is wanted: no argument has blanks
run_inject() {
        name=$1 want=$2
        shift 2
        # shellcheck disable=SC2046
        attack "$name" "$want" $(inject "$@")
}

# ---- control: a clean root is injected (so the refusals below are about the attacks) ------------
mkroot control
(cd "$R" && in_ns sh -c \
        "$(inject | tr '\n' ' ') && test -e '$R/run/xpuinit/lib/libcuda.so.1' && grep -qx /run/xpuinit/lib '$R/etc/ld.so.conf.d/000-xpuinit.conf'") \
        >"$E2E_TMP/control.out" 2>&1
rc=$?
is "$rc" 0 "control: a clean container root is injected (libcuda.so.1, the drop-in)"
[ "$rc" -eq 0 ] || diag_file "$E2E_TMP/control.out"

# ---- (a) symlinked library directory pointing at a host directory (CVE-2024-0132/0133) ---------
mkroot a-abs
rmdir "$R/run" && ln -s "$HOST/libdir" "$R/run"
run_inject a-abs "/run is a symlink to $HOST/libdir .*outside the container root; refusing"
mkroot a-dotdot
mkdir -p "$R/run" && ln -s "../../../../../../../..$HOST/xpuinit" "$R/run/xpuinit"
run_inject a-dotdot '/run/xpuinit is a symlink to \.\./.*"\.\." leads outside the container root'

# ---- (b) symlinked mount target: a mount point that is a link to a host file (CVE-2025-23359) ---
mkroot b-tmpfs-point
ln -s "$HOST/secret.txt" "$R/run/xpuinit"
run_inject b-tmpfs-point "/run/xpuinit is a symlink to $HOST/secret.txt"
mkroot b-library
mkdir -p "$R/run/xpuinit/lib" && ln -s "$HOST/secret.txt" "$R/run/xpuinit/lib/libcuda.so.$VER"
run_inject b-library "/run/xpuinit/lib/libcuda.so.$VER is a symlink to $HOST/secret.txt"

# ---- (c) ".." in a profile path from the image's profile directory ------------------------------
mkroot c-devnode
mkdir -p "$R/etc/xpuinit/profiles.d"
cat >"$R/etc/xpuinit/profiles.d/evil.json" <<'EOF'
{ "name": "evil", "priority": 1000, "match": { "vendor": "nvidia" },
  "capabilities": ["compute"], "libraries": { "compute": ["libcuda.so"] },
  "device_nodes": ["/dev/../etc/shadow"] }
EOF
run_inject c-devnode 'evil\.json.*device_nodes' --profile-dir "$R/etc/xpuinit/profiles.d"
mkroot c-library
mkdir -p "$R/etc/xpuinit/profiles.d"
cat >"$R/etc/xpuinit/profiles.d/evil.json" <<'EOF'
{ "name": "evil", "priority": 1000, "match": { "vendor": "nvidia" },
  "capabilities": ["compute"], "libraries": { "compute": ["../../../etc/shadow"] } }
EOF
run_inject c-library 'evil\.json.*libraries' --profile-dir "$R/etc/xpuinit/profiles.d"

# ---- (d) LD_PRELOAD=/proc/self/cwd/x.so in the hook's env, cwd = the rootfs (CVE-2025-23266) -----
mkroot d-preload
cp "$XPU_BUILD/tests/attack/preload.so" "$R/x.so"
# The library works: a dynamically linked program started like the hook runs its constructor.
(cd "$R" && env -i "XPU_ATTACK_MARKER=$MARKER" LD_PRELOAD=/proc/self/cwd/x.so /bin/true)
if [ -f "$MARKER" ]; then
        ok "d-preload: control: /bin/true (dynamic) runs the preloaded constructor"
else
        not_ok "d-preload: control: /bin/true (dynamic) runs the preloaded constructor"
fi
rm -f "$MARKER"
# The static build of the current sources, from the plain build beside a sanitized one (a
# static-pie cannot carry ASan); flock: the plain and sanitized passes of make check run at once.
case $XPU_BUILD in
*-asan) PLAIN=${XPU_BUILD%-asan} ;;
*) PLAIN=$XPU_BUILD ;;
esac
mkdir -p "$PLAIN" || bail "cannot create $PLAIN"
flock "$PLAIN/.attack-static.lock" make -C "$XPU_SRCDIR" BUILD="$PLAIN" static >"$E2E_TMP/static.log" 2>&1 ||
        { diag_file "$E2E_TMP/static.log"; bail "make static failed"; }
STATIC=$PLAIN/xpuinit-static
if e2e_is_static "$STATIC"; then
        ok "d-preload: xpuinit-static needs no loader"
else
        not_ok "d-preload: xpuinit-static needs no loader"
fi
attack d-preload "LD_PRELOAD=/proc/self/cwd/x\.so.*explicit env" env -i "PATH=$CLEAN_PATH" \
        "XPU_ATTACK_MARKER=$MARKER" LD_PRELOAD=/proc/self/cwd/x.so "$STATIC" \
        --sys-root "$fx" --dev-root "$E2E_TMP/devroot" --driver-root "$DRV" inject --rootfs "$R"
if [ -e "$MARKER" ]; then
        not_ok "d-preload: the preloaded constructor did not run in the hook (no marker)"
else
        ok "d-preload: the preloaded constructor did not run in the hook (no marker)"
fi

# ---- (e) /etc/ld.so.conf.d (or a firmware path) that is a symlink out (firmware traversal) ------
mkroot e-confd
ln -s "$HOST/confd" "$R/etc/ld.so.conf.d"
run_inject e-confd "/etc/ld.so.conf.d is a symlink to $HOST/confd .*refusing to write there"
mkroot e-etc
mkdir -p "$R/etc/ld.so.conf.d" && rm -rf "$R/etc/ld.so.conf.d" && ln -s "../../../../../..$HOST/confd" "$R/etc/ld.so.conf.d"
run_inject e-etc '/etc/ld.so.conf.d is a symlink to \.\./.*"\.\." leads outside'

# ---- (f) a driver-root library that is a symlink to /etc/shadow (CVE-2024-0132 class) -----------
mkroot f-shadow
mkdriver f-shadow
rm -f "$DRV/$LIBDIR/libcuda.so.$VER"
ln -s /etc/shadow "$DRV/$LIBDIR/libcuda.so.$VER"
mkdir -p "$DRV/etc"
# shellcheck disable=SC2016 # a literal shadow line
printf 'root:$6$attack-secret:19000:0:99999:7:::\n' >"$DRV/etc/shadow"
run_inject f-shadow "libcuda\.so\.$VER .*leads to /etc/shadow\) is a file without the ELF magic"

# ---- (g) a FIFO or a device node where a library should be -----------------------------------
mkroot g-fifo
mkdriver g-fifo
rm -f "$DRV/$LIBDIR/libnvidia-ml.so.$VER" && mkfifo "$DRV/$LIBDIR/libnvidia-ml.so.$VER"
run_inject g-fifo "libnvidia-ml\.so\.$VER .*is a FIFO"
mkroot g-device
mkdriver g-device
rm -f "$DRV/$LIBDIR/libcuda.so.$VER" && mknod "$DRV/$LIBDIR/libcuda.so.$VER" c 1 3
run_inject g-device "libcuda\.so\.$VER .*is a character device"

# ---- (h) a huge directory (100k entries) and a deeply nested one (depth 2000) --------------------
mkroot h-huge
mkdriver h-huge
mkdir -p "$DRV/usr/lib64"
(cd "$DRV/usr/lib64" && seq -f 'junk%06g' 1 100000 | xargs touch) || bail "cannot fill $DRV/usr/lib64"
run_inject h-huge "/usr/lib64 has more than 65536 entries"
mkroot h-deep
deep=d
i=1
while [ "$i" -lt 2000 ]; do
        deep="$deep/d"
        i=$((i + 1))
done
(cd "$R" && mkdir -p "$deep") || bail "cannot make a directory 2000 deep"
rmdir "$R/run" && ln -s "$deep" "$R/run"
run_inject h-deep "/run is a symlink to d/d/d.* leads more than 128 directories deep"

mkroot h-profiles
mkdir -p "$R/etc/xpuinit/profiles.d"
(cd "$R/etc/xpuinit/profiles.d" && seq -f 'junk%06g' 1 100000 | xargs touch) || bail "cannot fill the profile dir"
run_inject h-profiles "profiles\.d: the profile directory has more than 65536 entries" \
        --profile-dir "$R/etc/xpuinit/profiles.d"

# ---- (i) a bind mount of a host directory onto a write target (mount propagation class) --------
mkroot i-confd
mkdir -p "$R/etc/ld.so.conf.d"
attack i-confd "/etc/ld.so.conf.d is a mount point of another filesystem" sh -c \
        "mount --bind '$HOST/confd' '$R/etc/ld.so.conf.d' && exec $(inject | tr '\n' ' ')"
mkroot i-run
mkdir -p "$R/run/xpuinit"
attack i-run "/run/xpuinit is a mount point of another filesystem" sh -c \
        "mount --bind '$HOST/xpuinit' '$R/run/xpuinit' && exec $(inject | tr '\n' ' ')"

# ---- (k) a host's tmpfs (its /run, /dev/shm, /tmp) bind-mounted onto a write target -------------
# In the run's own namespace a tmpfs stands for the host's (it holds a file and a directory); SRC
# of it is bound on R/DEST, as `-v /run:/run` or `-v /tmp/x:/run` would. The tmpfs is crossed
# only when it is the container's own: one mounted elsewhere too, or a directory of one, is not.
# tmpfs_attack NAME REGEX SRC DEST: attack(), then the host's tmpfs must still hold exactly what
# it held (the namespace, and with it the tmpfs, is gone afterwards: it is listed inside).
tmpfs_attack() {
        name=$1 want=$2 src=$3 dest=$4 t=$HOST/tmpfs-$1
        mkdir -p "$t"
        attack "$name" "$want" sh -c "mount -t tmpfs xpu-host-tmpfs '$t' && mkdir '$t/sub' && \
                touch '$t/host-file' && mount --bind '$t$src' '$R$dest' && \
                { $(inject | tr '\n' ' '); rc=\$?; (cd '$t' && find . | sort) >'$E2E_TMP/$name.inside'; exit \$rc; }"
        is "$(tr '\n' ' ' <"$E2E_TMP/$name.inside")" ". ./host-file ./sub " \
                "$name: the host's tmpfs gained nothing"
}
mkroot k-run
tmpfs_attack k-run "/run is a mount point of a tmpfs that is mounted at $HOST/tmpfs-k-run too" "" /run
mkroot k-run-dir
tmpfs_attack k-run-dir "/run is a mount point of the directory /sub of a tmpfs" /sub /run
mkroot k-confd
mkdir -p "$R/etc/ld.so.conf.d"
tmpfs_attack k-confd "/etc/ld.so.conf.d is a mount point of a tmpfs that is mounted at .* too" "" /etc/ld.so.conf.d
# A host directory that is a shared mount, bound on R/run as a slave (Kubernetes'
# mountPropagation: HostToContainer), gets a tmpfs after the container started: by propagation
# the tmpfs turns up on R/run as well (mountinfo master:N), once, whole, and younger than PID 1.
mkroot k-propagated
t=$HOST/tmpfs-k-propagated
mkdir -p "$t"
attack k-propagated "/run is a mount point of a tmpfs that came by mount propagation from outside the container \\(mountinfo master:[0-9]*\\)" \
        sh -c "mount --bind '$t' '$t' && mount --make-shared '$t' && mount --bind '$t' '$R/run' && \
        mount --make-slave '$R/run' && mount -t tmpfs xpu-late-tmpfs '$t' && touch '$t/host-file' && \
        { $(inject | tr '\n' ' '); rc=\$?; (cd '$t' && find . | sort) >'$E2E_TMP/k-propagated.inside'; exit \$rc; }"
is "$(tr '\n' ' ' <"$E2E_TMP/k-propagated.inside")" ". ./host-file " "k-propagated: the host's tmpfs gained nothing"
# control: a tmpfs made for the container (the runtime's own /run) is crossed as before
mkroot k-control
(cd "$R" && in_ns sh -c "mount -t tmpfs xpu-runtime-run '$R/run' && $(inject | tr '\n' ' ') && \
        test -e '$R/run/xpuinit/lib/libcuda.so.1'") >"$E2E_TMP/k-control.out" 2>&1
rc=$?
is "$rc" 0 "k-control: the runtime's own /run tmpfs is crossed (libcuda.so.1 injected below it)"
[ "$rc" -eq 0 ] || diag_file "$E2E_TMP/k-control.out"

# ---- (j) the host's ldconfig with /etc/ld.so.cache leading out (CVE-2025-23267) ----------------
mkroot j-cache
ln -s "$HOST/ld.so.cache" "$R/etc/ld.so.cache"
run_inject j-cache "/etc/ld.so.cache is a symlink to $HOST/ld.so.cache .*refusing to run ldconfig"
mkroot j-cache-dotdot
ln -s "../../../../../..$HOST/ld.so.cache" "$R/etc/ld.so.cache"
run_inject j-cache-dotdot '/etc/ld.so.cache is a symlink to \.\./.*refusing to run ldconfig'
# its auxiliary cache: a host directory bind-mounted on /var/cache/ldconfig would gain aux-cache
mkroot j-auxcache
mkdir -p "$R/var/cache/ldconfig" "$HOST/auxcache"
attack j-auxcache "/var/cache/ldconfig is a mount point of another filesystem.*refusing to run ldconfig" sh -c \
        "mount --bind '$HOST/auxcache' '$R/var/cache/ldconfig' && exec $(inject | tr '\n' ' ')"
# the image's ld.so.conf lists a host library directory bind-mounted into the root: the host's
# ldconfig runs with -X, so it makes no soname link there (the inject itself succeeds)
ZLIB=$(readlink -f /lib/x86_64-linux-gnu/libz.so.1) || bail "no libz.so.1 (zlib1g) to stand for a host library"
mkroot j-libdir
mkdir -p "$R/hostlib" "$HOST/libdir2"
cp "$ZLIB" "$HOST/libdir2/" || bail "cannot copy $ZLIB"
printf 'include /etc/ld.so.conf.d/*.conf\n/hostlib\n' >"$R/etc/ld.so.conf"
host_state "$E2E_TMP/j-libdir.host-before"
(cd "$R" && in_ns sh -c \
        "mount --bind '$HOST/libdir2' '$R/hostlib' && exec $(inject | tr '\n' ' ')") \
        >"$E2E_TMP/j-libdir.out" 2>"$E2E_TMP/j-libdir.err"
rc=$?
is "$rc" 0 "j-libdir: the inject succeeds"
[ "$rc" -eq 0 ] || diag_file "$E2E_TMP/j-libdir.err"
like "$E2E_TMP/j-libdir.out" "ldconfig" "j-libdir: ldconfig ran"
host_state "$E2E_TMP/j-libdir.host-after"
if cmp -s "$E2E_TMP/j-libdir.host-before" "$E2E_TMP/j-libdir.host-after"; then
        ok "j-libdir: the host's library directory gained no soname link"
else
        not_ok "j-libdir: the host's library directory gained no soname link"
        diag "$(diff "$E2E_TMP/j-libdir.host-before" "$E2E_TMP/j-libdir.host-after" | head -20)"
fi

# ---- `xpuinit plan` refuses the hostile driver roots as well (it changes nothing) ----------------
for c in f-shadow g-fifo h-huge; do
        env -i "PATH=$CLEAN_PATH" "$XPUINIT" --sys-root "$fx" --dev-root "$E2E_TMP/devroot" \
                --driver-root "$E2E_TMP/$c/driver" --inject mount plan -- /bin/true \
                >"$E2E_TMP/$c.plan.out" 2>"$E2E_TMP/$c.plan.err"
        is "$?" 125 "$c: xpuinit plan exits 125 too"
done
like "$E2E_TMP/f-shadow.plan.err" "libcuda\.so\.$VER .*/etc/shadow" "f-shadow: xpuinit plan names the library"

# ---- inside a container (runc): xpuinit as the container's process, the same rules --------------
# The image's /etc/ld.so.conf.d is a link to a magic link (/proc/self/cwd): refused, 125, named.
e2e_bundle runc-confd
e2e_rootfs_ldconfig "$E2E_BUNDLE"
rm -rf "$E2E_BUNDLE/rootfs/etc/ld.so.conf.d"
ln -s /proc/self/cwd "$E2E_BUNDLE/rootfs/etc/ld.so.conf.d"
e2e_mount_ro "$E2E_BUNDLE" "$fx" /xpu/host
e2e_mount_ro "$E2E_BUNDLE" "$E2E_TMP/driver" /xpu/driver
e2e_env "$E2E_BUNDLE" XPU_FAKE_STATE=/xpu/driver/xpu-fake-state
e2e_args "$E2E_BUNDLE" /usr/bin/xpuinit --sys-root /xpu/host --driver-root /xpu/driver --inject mount -- /workload
e2e_caps_add "$E2E_BUNDLE" CAP_SYS_ADMIN
e2e_devices "$E2E_BUNDLE" "$fx"
host_state "$E2E_TMP/runc.host-before"
e2e_run "$E2E_BUNDLE"
host_state "$E2E_TMP/runc.host-after"
is "$E2E_RC" 125 "runc-confd: xpuinit in the container exits 125"
[ "$E2E_RC" -eq 125 ] || e2e_show
like "$E2E_ERR" "/etc/ld.so.conf.d is a symlink to /proc/self/cwd .*refusing to write there" \
        "runc-confd: stderr names /etc/ld.so.conf.d and the magic link"
if cmp -s "$E2E_TMP/runc.host-before" "$E2E_TMP/runc.host-after"; then
        ok "runc-confd: the host side is unchanged"
else
        not_ok "runc-confd: the host side is unchanged"
fi

# A host's tmpfs bound on /run of a container (`-v /run:/run`, or a directory of a tmpfs): after
# pivot_root the host's own mount of it is out of sight, so the birth time (made before the
# container's first process) and the mountinfo root (a directory of it) tell it apart; the
# runtime's own tmpfs (a "tmpfs" mount in config.json) is crossed.
HOSTRUN=$E2E_TMP/host-run
mkdir -p "$HOSTRUN"
mount -t tmpfs xpu-host-run "$HOSTRUN" || bail "cannot mount a tmpfs on $HOSTRUN"
{ mkdir "$HOSTRUN/sub" && touch "$HOSTRUN/host-file"; } || bail "cannot fill $HOSTRUN"
sleep 1 # a host's /run is older than any container: older by more than the start time's resolution
# runc_tmpfs NAME MOUNT-JSON [JQ-FILTER]: a container like runc-confd's, with MOUNT-JSON added to
# its mounts and JQ-FILTER (default: none) applied to its config
runc_tmpfs() {
        e2e_bundle "$1"
        e2e_rootfs_ldconfig "$E2E_BUNDLE"
        e2e_mount_ro "$E2E_BUNDLE" "$fx" /xpu/host
        e2e_mount_ro "$E2E_BUNDLE" "$E2E_TMP/driver" /xpu/driver
        # shellcheck disable=SC2016 # $m is jq's variable
        e2e_jq "$E2E_BUNDLE" '.mounts += [$m]' --argjson m "$2"
        [ -z "${3:-}" ] || e2e_jq "$E2E_BUNDLE" "$3"
        e2e_env "$E2E_BUNDLE" XPU_FAKE_STATE=/xpu/driver/xpu-fake-state
        e2e_args "$E2E_BUNDLE" /usr/bin/xpuinit --sys-root /xpu/host --driver-root /xpu/driver --inject mount \
                -- /workload
        e2e_caps_add "$E2E_BUNDLE" CAP_SYS_ADMIN
        e2e_devices "$E2E_BUNDLE" "$fx"
        e2e_run "$E2E_BUNDLE"
}
runc_tmpfs runc-hostrun "{\"destination\": \"/run\", \"type\": \"bind\", \"source\": \"$HOSTRUN\", \"options\": [\"rbind\"]}"
is "$E2E_RC" 125 "runc-hostrun: the host's /run tmpfs bound on /run: xpuinit exits 125"
[ "$E2E_RC" -eq 125 ] || e2e_show
like "$E2E_ERR" "/run is a mount point of a tmpfs made [0-9.]* s before the container's first process .*refusing to write there" \
        "runc-hostrun: stderr names /run and why"
runc_tmpfs runc-hostrun-dir "{\"destination\": \"/run\", \"type\": \"bind\", \"source\": \"$HOSTRUN/sub\", \"options\": [\"rbind\"]}"
is "$E2E_RC" 125 "runc-hostrun-dir: a directory of the host's tmpfs bound on /run: xpuinit exits 125"
[ "$E2E_RC" -eq 125 ] || e2e_show
like "$E2E_ERR" "/run is a mount point of the directory /sub of a tmpfs" "runc-hostrun-dir: stderr names /run and why"
is "$( (cd "$HOSTRUN" && find . | sort) | tr '\n' ' ')" ". ./host-file ./sub " "runc-hostrun: the host's tmpfs gained nothing"
runc_tmpfs runc-ownrun '{"destination": "/run", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "nodev", "mode=755"]}'
is "$E2E_RC" 0 "runc-ownrun: the runtime's own /run tmpfs is crossed: the workload runs"
[ "$E2E_RC" -eq 0 ] || e2e_show
# The host's /proc bound on the container's /proc: /proc/1 is then the host's init, whose start
# says nothing of this container, so the birth-time rule cannot judge; refused, not guessed.
runc_tmpfs runc-hostproc "{\"destination\": \"/run\", \"type\": \"bind\", \"source\": \"$HOSTRUN\", \"options\": [\"rbind\"]}" \
        '.mounts = [.mounts[] | if .destination == "/proc" then {destination: "/proc", type: "bind", source: "/proc", options: ["rbind"]} else . end]'
is "$E2E_RC" 125 "runc-hostproc: the host's /run tmpfs, and the host's /proc bound on /proc: xpuinit exits 125"
[ "$E2E_RC" -eq 125 ] || e2e_show
like "$E2E_ERR" "/run is a mount point of a tmpfs whose origin cannot be told \\(/proc is another PID namespace's" \
        "runc-hostproc: stderr says why it cannot tell"
is "$( (cd "$HOSTRUN" && find . | sort) | tr '\n' ' ')" ". ./host-file ./sub " "runc-hostproc: the host's tmpfs gained nothing"
umount "$HOSTRUN"

e2e_done
