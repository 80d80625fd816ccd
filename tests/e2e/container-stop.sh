#!/bin/sh
# End to end: the container is stopped (`runc kill ID TERM`, what `docker stop` sends to PID 1)
# while xpuinit is still setting up. The image's ldconfig is slow the first time it runs, so the
# TERM arrives while the apply waits for it: xpuinit must exit 143 without starting the workload
# and take back exactly what it put into the container, in link mode (Docker's default
# capabilities) and in mount mode (CAP_SYS_ADMIN), on three fixture hosts:
#   nvidia-rtx2080ti-x8  the library directory /run/xpuinit/lib (links, or a tmpfs with binds),
#                        the loader drop-in; ldconfig runs again without the drop-in;
#   jetson-orin          the CSV host list: files bound or linked at their own paths, the `sym`
#                        links, the directories made for them; the image holds an empty file at
#                        a `lib` path (left as it is, with a warning, in link mode; hidden by the
#                        bind in mount mode) and its own link at a `sym` path (replaced, then put
#                        back);
#   wsl-nvidia           the driver store's files at their own paths, /usr/bin/nvidia-smi.
# After the stop the rootfs is compared with a snapshot taken before the start: every path's
# type, mode, owner, size, link text and contents (but /tmp, where the stand-in ldconfig writes,
# and /xpu, runc's mount points).
. "$(dirname "$0")/lib.sh"
e2e_init

# snapshot ROOTFS: one line per path as above, then a checksum per regular file.
snapshot() {
        (cd "$1" && find . \( -path ./tmp -o -path ./xpu \) -prune -o -type d -printf '%p d %m %U:%G\n' -o \
                -printf '%p %y %m %U:%G %s %l\n' | sort &&
                find . \( -path ./tmp -o -path ./xpu \) -prune -o -type f -exec md5sum {} + | sort)
}

# image_files NAME ROOTFS: what the image of case NAME holds besides the template. The Jetson's:
# an empty file at a `lib` path of the CSV lists and a link of its own at a `sym` path.
image_files() {
        case $1 in
        jetson-orin)
                mkdir -p "$2/usr/lib/aarch64-linux-gnu/nvidia" &&
                        : >"$2/usr/lib/aarch64-linux-gnu/nvidia/libcuda.so.1.1" &&
                        ln -s libcuda.so.1.0 "$2/usr/lib/aarch64-linux-gnu/nvidia/libcuda.so.1"
                ;;
        *) ;;
        esac
}

# stop_case NAME INJECT DRIVER_MOUNT: a bundle for xpuinit --inject INJECT with the driver root
# (and sys root) DRIVER_MOUNT (driver: the fixture's sys tree and a driver root; host: one copy
# of the fixture for both), the image's files of NAME; stopped during the image's ldconfig; the
# rootfs must be as before. Leaves $b and $r set.
stop_case() {
        name=$1
        inj=$2
        dmount=$3
        e2e_bundle "stop-$name-$inj"
        b=$E2E_BUNDLE
        r="$b/rootfs"
        if [ "$dmount" = driver ]; then
                e2e_mount_ro "$b" "$fx" /xpu/host
                e2e_mount_ro "$b" "$drv" /xpu/driver
                e2e_env "$b" XPU_FAKE_STATE=/xpu/driver/xpu-fake-state
                e2e_args "$b" /usr/bin/xpuinit -v --sys-root /xpu/host --driver-root /xpu/driver --inject "$inj" \
                        -- /bin/sh -c ': >/tmp/workload-ran'
        else
                e2e_mount_ro "$b" "$drv" /xpu/host
                e2e_args "$b" /usr/bin/xpuinit -v --sys-root /xpu/host --driver-root /xpu/host --inject "$inj" \
                        -- /bin/sh -c ': >/tmp/workload-ran'
        fi
        [ "$inj" = mount ] && e2e_caps_add "$b" CAP_SYS_ADMIN
        e2e_devices "$b" "$fx"
        # The image's ldconfig (xpuinit runs it with an empty environment, no capabilities): 2 s
        # the first time, at once the second.
        mkdir -p "$r/sbin" "$r/etc/ld.so.conf.d" || bail "cannot make the image's directories"
        printf 'include /etc/ld.so.conf.d/*.conf\n' >"$r/etc/ld.so.conf"
        cat >"$r/sbin/ldconfig" <<'EOF'
#!/bin/sh
if [ -e /tmp/ldconfig-1 ]; then : >/tmp/ldconfig-2; exit 0; fi
: >/tmp/ldconfig-1
sleep 2
EOF
        chmod 755 "$r/sbin/ldconfig"
        image_files "$name" "$r" || bail "$name: cannot set up the image"
        snapshot "$r" >"$b/before" || bail "$name: cannot take the snapshot"

        id="xpu-e2e-$$-stop-$name-$inj"
        E2E_IDS="$E2E_IDS $id"
        timeout "$E2E_TIMEOUT" runc run -b "$b" "$id" </dev/null >"$b/stdout" 2>"$b/stderr" &
        rpid=$!
        i=0
        while [ ! -e "$r/tmp/ldconfig-1" ] && [ $i -lt 1000 ]; do
                sleep 0.01
                i=$((i + 1))
        done
        if [ -e "$r/tmp/ldconfig-1" ]; then
                ok "$name $inj: the apply runs the image's ldconfig"
                runc kill "$id" TERM || diag "runc kill $id TERM failed"
        else
                not_ok "$name $inj: the apply runs the image's ldconfig"
        fi
        wait "$rpid"
        rc=$?
        runc delete -f "$id" >/dev/null 2>&1
        is "$rc" 143 "$name $inj: SIGTERM during the apply: exit 143"
        [ "$rc" -eq 143 ] || diag "--- stderr" "$(cat "$b/stderr")"
        is "$([ -e "$r/tmp/workload-ran" ] && echo yes || echo no)" no "$name $inj: the workload never ran"
        like "$b/stderr" 'SIGTERM arrived before the workload started: not starting it' "$name $inj: xpuinit says why"
        unlike "$b/stderr" 'cannot remove' "$name $inj: the undo reports nothing left behind"
        is "$([ -e "$r/tmp/ldconfig-2" ] && echo yes || echo no)" yes \
                "$name $inj: ldconfig ran again without the drop-in (the cache forgets its directories)"
        snapshot "$r" >"$b/after"
        if cmp -s "$b/before" "$b/after"; then
                ok "$name $inj: the rootfs is as it was before the start"
        else
                not_ok "$name $inj: the rootfs is as it was before the start"
                diag "$(diff "$b/before" "$b/after" | head -n 40)"
        fi
}

e2e_fixture nvidia-rtx2080ti-x8
fx=$E2E_FIXTURE
drv="$E2E_TMP/driver"
e2e_driver_root "$fx" "$drv"
for inj in link mount; do
        stop_case rtx "$inj" driver
        is "$([ -e "$r/run/xpuinit" ] && echo yes || echo no)" no "rtx $inj: /run/xpuinit is gone from the container"
        [ -e "$r/run/xpuinit" ] && diag "$(find "$r/run/xpuinit" | head -n 5)"
        is "$([ -e "$r/etc/ld.so.conf.d/000-xpuinit.conf" ] && echo yes || echo no)" no \
                "rtx $inj: the loader drop-in is gone"
        is "$([ -d "$r/etc/ld.so.conf.d" ] && echo yes || echo no)" yes "rtx $inj: the image's /etc/ld.so.conf.d stays"
done

for host in jetson-orin wsl-nvidia; do
        e2e_fixture "$host"
        fx=$E2E_FIXTURE
        drv="$E2E_TMP/driver-$host"
        if ! mkdir -p "$drv" || ! cp -a "$fx/." "$drv/"; then
                bail "cannot copy $fx"
        fi
        for inj in link mount; do
                stop_case "$host" "$inj" host
        done
done
# Link mode leaves the image's file at a `lib` path and says so (mount mode binds over it).
like "$E2E_TMP/stop-jetson-orin-link/stderr" \
        'nvidia/libcuda.so.1.1: the image has a file there, not a link; it is left as it is' \
        "jetson link: the image's file at a lib path is left, with a warning"

e2e_done
