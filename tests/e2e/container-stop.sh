#!/bin/sh
# End to end: the container is stopped (`runc kill ID TERM`, what `docker stop` sends to PID 1)
# while xpuinit is still setting up, on the nvidia-rtx2080ti-x8 fixture host. The image's
# ldconfig is slow the first time it runs, so the TERM arrives while the apply waits for it:
# xpuinit must exit 143 without starting the workload and take back what it put into the
# container (links or the tmpfs' mount point, the loader drop-in; ldconfig runs again without
# the drop-in), in link mode (Docker's default capabilities) and in mount mode (CAP_SYS_ADMIN).
. "$(dirname "$0")/lib.sh"
e2e_init

e2e_fixture nvidia-rtx2080ti-x8
fx=$E2E_FIXTURE
e2e_driver_root "$fx" "$E2E_TMP/driver"

for inj in link mount; do
        e2e_bundle "stop-$inj"
        b=$E2E_BUNDLE
        r="$b/rootfs"
        e2e_mount_ro "$b" "$fx" /xpu/host
        e2e_mount_ro "$b" "$E2E_TMP/driver" /xpu/driver
        e2e_env "$b" XPU_FAKE_STATE=/xpu/driver/xpu-fake-state
        e2e_args "$b" /usr/bin/xpuinit -v --sys-root /xpu/host --driver-root /xpu/driver --inject "$inj" \
                -- /bin/sh -c ': >/tmp/workload-ran'
        [ "$inj" = mount ] && e2e_caps_add "$b" CAP_SYS_ADMIN
        e2e_devices "$b" "$fx"
        # The image's ldconfig (xpuinit runs it with an empty environment, no capabilities): 2 s
        # the first time, at once the second.
        mkdir -p "$r/sbin" "$r/etc/ld.so.conf.d"
        printf 'include /etc/ld.so.conf.d/*.conf\n' >"$r/etc/ld.so.conf"
        cat >"$r/sbin/ldconfig" <<'EOF'
#!/bin/sh
if [ -e /tmp/ldconfig-1 ]; then : >/tmp/ldconfig-2; exit 0; fi
: >/tmp/ldconfig-1
sleep 2
EOF
        chmod 755 "$r/sbin/ldconfig"

        id="xpu-e2e-$$-stop-$inj"
        E2E_IDS="$E2E_IDS $id"
        timeout "$E2E_TIMEOUT" runc run -b "$b" "$id" </dev/null >"$b/stdout" 2>"$b/stderr" &
        rpid=$!
        i=0
        while [ ! -e "$r/tmp/ldconfig-1" ] && [ $i -lt 1000 ]; do
                sleep 0.01
                i=$((i + 1))
        done
        if [ -e "$r/tmp/ldconfig-1" ]; then
                ok "$inj: the apply runs the image's ldconfig"
                runc kill "$id" TERM || diag "runc kill $id TERM failed"
        else
                not_ok "$inj: the apply runs the image's ldconfig"
        fi
        wait "$rpid"
        rc=$?
        runc delete -f "$id" >/dev/null 2>&1
        is "$rc" 143 "$inj: SIGTERM during the apply: exit 143"
        [ "$rc" -eq 143 ] || diag "--- stderr" "$(cat "$b/stderr")"
        is "$([ -e "$r/tmp/workload-ran" ] && echo yes || echo no)" no "$inj: the workload never ran"
        like "$b/stderr" 'SIGTERM arrived before the workload started: not starting it' "$inj: xpuinit says why"
        is "$([ -e "$r/run/xpuinit" ] && echo yes || echo no)" no "$inj: /run/xpuinit is gone from the container"
        [ -e "$r/run/xpuinit" ] && diag "$(find "$r/run/xpuinit" | head -n 5)"
        is "$([ -e "$r/etc/ld.so.conf.d/000-xpuinit.conf" ] && echo yes || echo no)" no \
                "$inj: the loader drop-in is gone"
        is "$([ -d "$r/etc/ld.so.conf.d" ] && echo yes || echo no)" yes "$inj: the image's /etc/ld.so.conf.d stays"
        is "$([ -e "$r/tmp/ldconfig-2" ] && echo yes || echo no)" yes \
                "$inj: ldconfig ran again without the drop-in (the cache forgets /run/xpuinit/lib)"
done

e2e_done
