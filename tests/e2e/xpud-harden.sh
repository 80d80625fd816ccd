#!/bin/sh
# xpud hardens itself after binding (docs/xpud.md
# "Privileges"), end to end: build/xpud on a fake host with 8 NVIDIA GPUs (the fake NVML through
# tests/fixtures/mkdriverroot.sh) and 2 AMD GPUs (tests/rocm/mkamdsys.sh), read from
# /proc/PID/status of xpud, of each of its threads and of its NVML helper:
#   - started as root without --user: CapEff = CapPrm = CAP_KILL, CAP_SETGID, CAP_SETUID (what
#     the helper needs to switch to nobody and to be killed), CapInh, CapBnd and CapAmb 0,
#     NoNewPrivs 1, Seccomp 2 (filter) in every thread; the helper runs as nobody with no
#     capabilities under the same filter; /metrics and /v1/devices carry the NVML and AMD values;
#   - --user nobody: every capability set 0, NoNewPrivs 1, Seccomp 2; the values still come;
#   - both exit 0 on SIGTERM.
# Needs root, curl, jq, pgrep (make deps); missing ones fail loudly. Prints TAP.

# SC2317: helpers called through until_true and the EXIT trap.
# shellcheck disable=SC2317
# shellcheck source=tests/e2e/lib.sh
. "${XPU_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/e2e/lib.sh"

XPUD="${XPU_BUILD:-}/xpud"
FIXTURE="${XPU_SRCDIR:-}/tests/fixtures/hosts/nvidia-rtx2080ti-x8"
UUID0=GPU-307dcc96-618a-4416-c1ef-87823c2e1a31
# CAP_KILL (5), CAP_SETGID (6), CAP_SETUID (7) as /proc/PID/status prints a set.
ROOT_CAPS=00000000000000e0
NONE=0000000000000000
T=
XPID=

cleanup() {
        [ -n "$XPID" ] && kill -KILL "$XPID" 2>/dev/null
        [ -n "$T" ] && rm -rf "$T"
}

[ "$(id -u)" -eq 0 ] || bail "xpud hardening tests must run as root (xpud drops from root)"
need_tools curl jq pgrep
[ -x "$XPUD" ] || bail "$XPUD is missing (make build-tests; XPU_BUILD set by tests/run-tests.sh)"
[ -f "$XPU_BUILD/tests/shims/libnvidia-ml.so.shim" ] || bail "the fake NVML is missing (make build-tests)"
T=$(mktemp -d /tmp/xpud-harden.XXXXXX) || bail "mktemp failed"
trap cleanup EXIT
trap 'exit 130' INT TERM
chmod 0755 "$T"

HOST="$T/host"
e2e_mixed_host "$FIXTURE" "$HOST" "$T/amd" -n 2 --power 95000000,120500000
printf 'device.0.power_usage_mw 250000\n' >>"$HOST/xpu-fake-state"
chmod -R a+rX "$HOST"

# field PID KEY: the value of "KEY:" in /proc/PID/status (tabs and spaces squeezed).
field() {
        awk -v k="$2:" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "/proc/$1/status" 2>/dev/null
}

# get PATH: $T/body and CODE.
get() {
        CODE=$(curl -s -o "$T/body" -w '%{http_code}' --max-time 10 --unix-socket "$SOCK" "http://xpud$1")
}

# until_true SECONDS COMMAND...: every 0.2 s until COMMAND succeeds; 1 when SECONDS pass first.
until_true() {
        end=$(($(date +%s) + $1))
        shift
        while :; do
                "$@" && return 0
                [ "$(date +%s)" -ge "$end" ] && return 1
                sleep 0.2
        done
}

# values_ok: /metrics has gpu 0's 250 W from NVML and gpu 8's 95 W from amdgpu sysfs, and
# /v1/devices lists the 10 GPUs with gpu 0's 250 W.
values_ok() {
        get /metrics
        [ "$CODE" = 200 ] || return 1
        grep -q "^xpu_power_watts{vendor=\"nvidia\",gpu=\"0\",uuid=\"$UUID0\",pci_bus_id=\"0000:1a:00.0\"} 250\$" "$T/body" ||
                return 1
        grep -q '^xpu_power_watts{vendor="amd",gpu="8",.*} 95$' "$T/body" || return 1
        grep -q '^xpud_backend_up{backend="nvml"} 1$' "$T/body" || return 1
        get /v1/devices
        [ "$CODE" = 200 ] && jq -e '(.devices | length) == 10 and .devices[0].readings.power_watts == 250' "$T/body" >/dev/null
}

# helper_pid: the NVML helper (xpud's child), in HPID.
helper_pid() {
        HPID=$(pgrep -P "$XPID" | head -n 1)
        [ -n "$HPID" ]
}

# threads_hardened: every thread of xpud has NoNewPrivs 1 and Seccomp 2.
threads_hardened() {
        n=0
        for s in /proc/"$XPID"/task/*/status; do
                [ "$(awk '$1 == "NoNewPrivs:" { print $2 }' "$s")" = 1 ] || return 1
                [ "$(awk '$1 == "Seccomp:" { print $2 }' "$s")" = 2 ] || return 1
                n=$((n + 1))
        done
        [ "$n" -ge 2 ] # the main thread, the sampler's, the server's
}

# run_case NAME CAPS [XPUD ARGS...]: start xpud, check its status, the helper's, the values.
run_case() {
        name=$1
        caps=$2
        shift 2
        SOCK="$T/$name/xpud.sock"
        "$XPUD" --socket "$SOCK" --sys-root "$HOST" --dev-root "$HOST" --driver-root "$HOST" --interval 1 -v "$@" \
                2>"$T/$name.log" &
        XPID=$!
        if until_true 20 values_ok; then
                ok "$name: /metrics and /v1/devices carry the NVML and AMD values"
        else
                not_ok "$name: /metrics and /v1/devices carry the NVML and AMD values"
                diag_file "$T/$name.log"
        fi
        is "$(field "$XPID" CapEff)" "$caps" "$name: xpud CapEff"
        is "$(field "$XPID" CapPrm)" "$caps" "$name: xpud CapPrm"
        is "$(field "$XPID" CapInh)" $NONE "$name: xpud CapInh"
        is "$(field "$XPID" CapBnd)" $NONE "$name: xpud CapBnd (bounding set empty)"
        is "$(field "$XPID" CapAmb)" $NONE "$name: xpud CapAmb"
        is "$(field "$XPID" NoNewPrivs)" 1 "$name: xpud NoNewPrivs"
        is "$(field "$XPID" Seccomp)" 2 "$name: xpud Seccomp 2 (filter)"
        if threads_hardened; then
                ok "$name: every thread of xpud has NoNewPrivs 1 and Seccomp 2"
        else
                not_ok "$name: every thread of xpud has NoNewPrivs 1 and Seccomp 2"
                grep -H -E '^(NoNewPrivs|Seccomp):' /proc/"$XPID"/task/*/status | sed 's/^/# /'
        fi
        if helper_pid; then
                ok "$name: the NVML helper runs (pid $HPID)"
                is "$(field "$HPID" Uid | awk '{ print $1 " " $2 " " $3 }')" "65534 65534 65534" \
                        "$name: the helper runs as nobody"
                is "$(field "$HPID" CapEff) $(field "$HPID" CapPrm) $(field "$HPID" CapBnd)" "$NONE $NONE $NONE" \
                        "$name: the helper has no capabilities"
                is "$(field "$HPID" NoNewPrivs) $(field "$HPID" Seccomp)" "1 2" \
                        "$name: the helper runs under no_new_privs and the filter"
        else
                not_ok "$name: the NVML helper runs"
        fi
        like "$T/$name.log" "hardened: capabilities .*seccomp filter \"xpud\"" "$name: the log says so"
        kill -TERM "$XPID"
        wait "$XPID"
        is "$?" 0 "$name: exit 0 on SIGTERM"
        XPID=
}

run_case root "$ROOT_CAPS"
like "$T/root.log" "capabilities CAP_KILL,CAP_SETGID,CAP_SETUID" "root: the log names the kept capabilities"
run_case user "$NONE" --user nobody

e2e_done
