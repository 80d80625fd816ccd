#!/bin/sh
# `xpud query --npd`, Node Problem Detector's custom-plugin protocol, end to end: build/xpud
# samples every second a fake host with 8 NVIDIA GPUs (nvidia-rtx2080ti-x8, the fake NVML
# answering from a state file) and 2 AMD GPUs (tests/rocm/mkamdsys.sh, hwmon with the thermal
# limit files temp2_crit/temp2_emergency), and `xpud query --npd` (condition XPUUnhealthy) and
# `--npd=degraded` (XPUDegraded) are asked after each injected fault:
#   - healthy: exit 0 and an OK line for both levels;
#   - degraded (thermal throttling, an NVML slowdown limit reached): exit 0 for --npd, 1 for
#     --npd=degraded, the line naming the GPU and the reason;
#   - unhealthy, each alone: a lost GPU, uncorrected ECC, a failed row remap, NVML's shutdown
#     temperature, AMD's junction past temp2_emergency, an Xid 79 in the kernel log (a file given
#     to --kmsg): exit 1, one line of at most 80 bytes naming the GPU (index and UUID) and the
#     reason; several at once: the worst first and "(+N more)"; the thermal limits also in
#     /metrics (xpu_temperature_limit_celsius) and /v1/health;
#   - the exact path and args of each rule of examples/kubernetes/npd-xpu.json (jq), run against
#     this xpud from a copy of the xpud image's layout (loader, libraries, /usr/bin/xpud under one
#     directory standing for /opt/xpud), and the JSON's structure (what NPD requires);
#   - xpud not there (no socket), xpud whose first sample has not finished (an NVML that hangs
#     at nvmlInit_v2: the socket accepts but no answer comes), xpud stopped: exit 2 (unknown).
# Every wait polls with a deadline. Needs root (the NVML helper switches to nobody), curl and jq.
# Prints TAP.

# SC2317: the helpers below are called through until_true/check and the EXIT trap.
# shellcheck disable=SC2317
# shellcheck source=tests/e2e/lib.sh
. "${XPU_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/e2e/lib.sh"

SRC=${XPU_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
XPUD="${XPU_BUILD:-$SRC/build}/xpud"
FIXTURE="$SRC/tests/fixtures/hosts/nvidia-rtx2080ti-x8"
NPD_JSON="$SRC/examples/kubernetes/npd-xpu.json"
T=
XPID=

cleanup() {
        [ -n "$XPID" ] && kill -KILL "$XPID" 2>/dev/null
        [ -n "$T" ] && rm -rf "$T"
}

[ "$(id -u)" -eq 0 ] || bail "xpud NPD tests must run as root (the NVML helper switches to nobody)"
need_tools curl jq timeout ldd
[ -x "$XPUD" ] || bail "$XPUD is missing (make build-tests; XPU_BUILD set by tests/run-tests.sh)"
[ -f "${XPU_BUILD:-$SRC/build}/tests/shims/libnvidia-ml.so.shim" ] || bail "the fake NVML is missing (make build-tests)"
[ -f "$NPD_JSON" ] || bail "$NPD_JSON is missing"
T=$(mktemp -d /tmp/xpud-npd.XXXXXX) || bail "mktemp failed"
trap cleanup EXIT
trap 'exit 130' INT TERM
chmod 0755 "$T"

# ---- the fake host ---------------------------------------------------------------------------

HOST="$T/host"
# AMD card0's junction limits (hwmon temp2_crit, temp2_emergency): slowdown 100 °C, shutdown
# 105 °C; card1 has none.
e2e_mixed_host "$FIXTURE" "$HOST" "$T/amd" -n 2 --temp-junction 44000 --junction-crit 100000, \
        --junction-emergency 105000,
HWMON0=
for d in "$HOST"/sys/class/drm/card0/device/hwmon/hwmon*; do
        [ -f "$d/temp2_crit" ] && [ -f "$d/temp2_emergency" ] && HWMON0=$d && break
done
[ -n "$HWMON0" ] || bail "mkamdsys.sh made no hwmon temp2_crit and temp2_emergency for card0"
HWMON1=$(ls -d "$HOST"/sys/class/drm/card1/device/hwmon/hwmon*)
[ ! -e "$HWMON1/temp2_crit" ] || bail "mkamdsys.sh made a temp2_crit for card1, given none"
cp "$HOST/xpu-fake-state" "$T/state.base"
cat >>"$T/state.base" <<EOF
device.0.temp_slowdown 90
device.0.temp_shutdown 95
EOF
chmod -R a+rX "$HOST"

# set_state [LINE...]: the state file = the base plus "device.0.temperature $TEMP0" (41 unless
# set) plus LINEs, replaced atomically (the fake NVML takes a key's first line).
TEMP0=41
set_state() {
        cp "$T/state.base" "$T/state.new"
        printf 'device.0.temperature %s\n' "$TEMP0" >>"$T/state.new"
        for l in "$@"; do
                printf '%s\n' "$l" >>"$T/state.new"
        done
        chmod 0644 "$T/state.new"
        mv "$T/state.new" "$HOST/xpu-fake-state"
}
set_state

SOCK="$T/xpud.sock"
UUID0=$(awk '$1 == "device.0.uuid" { print $2 }' "$T/state.base")
UUID1=$(awk '$1 == "device.1.uuid" { print $2 }' "$T/state.base")
UUID2=$(awk '$1 == "device.2.uuid" { print $2 }' "$T/state.base")
UUID3=$(awk '$1 == "device.3.uuid" { print $2 }' "$T/state.base")
if [ -z "$UUID0" ] || [ -z "$UUID3" ]; then
        bail "no device UUIDs in the fake NVML's state"
fi
short() {
        printf '%.12s' "$1"
}

# npd [LEVEL]: run `xpud query --npd[=LEVEL]`; RC its exit status, LINE its standard output.
npd() {
        if [ -n "${1:-}" ]; then
                timeout -k 5 30 "$XPUD" query --socket "$SOCK" "--npd=$1" >"$T/npd.out" 2>"$T/npd.err"
        else
                timeout -k 5 30 "$XPUD" query --socket "$SOCK" --npd >"$T/npd.out" 2>"$T/npd.err"
        fi
        RC=$?
        LINE=$(cat "$T/npd.out")
}

# one_short_line: the last output is exactly one line of at most 80 bytes.
one_short_line() {
        [ "$(wc -l <"$T/npd.out")" -eq 1 ] && [ "$(head -n 1 "$T/npd.out" | tr -d '\n' | wc -c)" -le 80 ]
}

# until_npd SECONDS LEVEL RC REGEX: ask until the exit status is RC and the line matches REGEX.
until_npd() {
        end=$(($(date +%s) + $1))
        while :; do
                npd "$2"
                [ "$RC" -eq "$3" ] && printf '%s\n' "$LINE" | grep -Eq -- "$4" && return 0
                [ "$(date +%s)" -ge "$end" ] && return 1
                sleep 0.3
        done
}

# expect DESC SECONDS LEVEL RC REGEX: one test of until_npd, the line's shape included.
expect() {
        d=$1
        shift
        if until_npd "$@" && one_short_line; then
                ok "$d: exit $3, \"$LINE\""
        else
                not_ok "$d"
                diag "got exit $RC, line '$LINE' ($(wc -l <"$T/npd.out") lines, $(tr -d '\n' <"$T/npd.out" | wc -c) bytes)"
                diag "want exit $3 and a line matching /$4/"
                diag_file "$T/npd.err"
                curl -s --max-time 5 --unix-socket "$SOCK" http://xpud/v1/health | head -c 2000 | sed 's/^/# /'
                echo
        fi
}

# get PATH: the body of GET PATH into $T/body.
get() {
        curl -s -o "$T/body" --max-time 10 --unix-socket "$SOCK" "http://xpud$1" || : >"$T/body"
}

start_xpud() {
        "$XPUD" --socket "$SOCK" --sys-root "$HOST" --dev-root "$HOST" --driver-root "$HOST" --interval 1 \
                --vendor-timeout "$1" --kmsg "$T/kmsg" 2>>"$T/xpud.log" &
        XPID=$!
}

stop_xpud() {
        kill -TERM "$XPID" 2>/dev/null
        i=0
        while kill -0 "$XPID" 2>/dev/null && [ "$i" -lt 100 ]; do
                sleep 0.1
                i=$((i + 1))
        done
        kill -KILL "$XPID" 2>/dev/null
        wait "$XPID" 2>/dev/null
        XPID=
}

: >"$T/kmsg"

# ---- no xpud: unknown --------------------------------------------------------------------------

npd
if [ "$RC" -eq 2 ] && one_short_line && printf '%s\n' "$LINE" | grep -qx "xpud unreachable: cannot connect: No such file or directory"; then
        ok "no socket: exit 2 (unknown), \"$LINE\""
else
        not_ok "no socket: exit 2 (unknown)"
        diag "got exit $RC, line '$LINE'"
fi
like "$T/npd.err" "cannot connect to $T/xpud.sock: .*is xpud running\\?" \
        "no socket: the whole error on stderr names the socket and the fix"

# ---- before the first sample: unknown ------------------------------------------------------------
# NVML hangs in nvmlInit_v2: the first sample waits for the helper's 14 s timeout. The socket is
# bound before it and accepts, but xpud answers only once the first sample is done; the query
# gives up after its own 10 s.
set_state "hang.nvmlInit_v2 1"
start_xpud 14
i=0
while [ ! -S "$SOCK" ] && [ "$i" -lt 100 ]; do
        sleep 0.1
        i=$((i + 1))
done
npd
if [ "$RC" -eq 2 ] && one_short_line && printf '%s\n' "$LINE" | grep -qx "xpud unreachable: no answer within 10 s (first sample not done, or busy)"; then
        ok "before the first sample: exit 2 (unknown), \"$LINE\""
else
        not_ok "before the first sample: exit 2 (unknown)"
        diag "got exit $RC, line '$LINE'"
        diag_file "$T/xpud.log"
fi
stop_xpud
set_state

# ---- healthy -------------------------------------------------------------------------------------

start_xpud 5
expect "all healthy, --npd" 30 "" 0 '^OK: 10 GPUs, none unhealthy$'
expect "all healthy, --npd=degraded" 10 degraded 0 '^OK: 10 GPUs, none degraded or unhealthy$'

# ---- the rules of npd-xpu.json, as NPD runs them ---------------------------------------------------

if jq -e '
        .plugin == "custom" and (.source | type == "string" and length > 0)
        and .pluginConfig.max_output_length == 80
        and ([.pluginConfig.invoke_interval, .pluginConfig.timeout] | all(type == "string" and test("^[0-9]+s$")))
        and (.pluginConfig.concurrency | type == "number")
        and (.pluginConfig.enable_message_change_based_condition_update | type == "boolean")
        and ([.conditions[].type] | sort == ["XPUDegraded", "XPUUnhealthy"])
        and ([.conditions[] | .reason, .message] | all(type == "string" and length > 0))
        and (.rules | length == 2)
        and ([.conditions[].type] as $c | [.rules[] | .type == "permanent" and (.condition | IN($c[]))
                and (.reason | length > 0) and (.path | startswith("/")) and (.args | type == "array")
                and ((.timeout | rtrimstr("s") | tonumber) <= 15) and ((.timeout | rtrimstr("s") | tonumber) > 10)]
                | all)
        and ([.rules[] | select(.condition == "XPUUnhealthy") | .args | index("--npd")] | .[0] != null)
        and ([.rules[] | select(.condition == "XPUDegraded") | .args | index("--npd=degraded")] | .[0] != null)
        ' "$NPD_JSON" >/dev/null; then
        ok "npd-xpu.json: a custom plugin monitor with what NPD requires (conditions, permanent rules, timeouts)"
else
        not_ok "npd-xpu.json: a custom plugin monitor with what NPD requires"
fi

# The xpud image's layout (packaging/xpud-image-root.sh) under $T/img for /opt/xpud: the loader
# at lib64/, the libraries ldd lists at their paths, usr/bin/xpud.
IMG="$T/img"
mkdir -p "$IMG/usr/bin"
cp "$XPUD" "$IMG/usr/bin/xpud"
for so in $(ldd "$XPUD" | sed -n -e 's/.*=> \(\/[^ ]*\) .*/\1/p' -e 's/^[[:space:]]*\(\/[^ ]*\) .*/\1/p'); do
        mkdir -p "$IMG$(dirname "$so")"
        cp -L "$so" "$IMG$so"
done
# /lib and /usr/lib are one directory on this host; the image has them where ldd names them.
[ -d "$IMG/usr/lib/x86_64-linux-gnu" ] && [ ! -d "$IMG/lib/x86_64-linux-gnu" ] && mkdir -p "$IMG/lib" &&
        cp -R "$IMG/usr/lib/x86_64-linux-gnu" "$IMG/lib/"

# run_rule CONDITION: run the rule of CONDITION as NPD would, /opt/xpud standing for $IMG and
# xpud's socket for $SOCK; RC and LINE as npd().
run_rule() {
        jq -r --arg c "$1" '.rules[] | select(.condition == $c) | .path, .args[]' "$NPD_JSON" |
                sed -e "s|/opt/xpud/|$IMG/|g" -e "s|^--socket=.*|--socket=$SOCK|" >"$T/rule"
        set --
        while IFS= read -r a; do
                set -- "$@" "$a"
        done <"$T/rule"
        timeout -k 5 15 "$@" >"$T/npd.out" 2>"$T/npd.err"
        RC=$?
        LINE=$(cat "$T/npd.out")
}

if [ "$(uname -m)" != x86_64 ]; then
        not_ok "npd-xpu.json's rules name x86_64 paths; this host is $(uname -m)"
else
        for c in XPUUnhealthy XPUDegraded; do
                run_rule "$c"
                if [ "$RC" -eq 0 ] && one_short_line && printf '%s\n' "$LINE" | grep -q '^OK: 10 GPUs, none'; then
                        ok "npd-xpu.json's $c rule, run as NPD runs it (the image's loader): exit 0, \"$LINE\""
                else
                        not_ok "npd-xpu.json's $c rule, run as NPD runs it: exit 0"
                        diag "got exit $RC, line '$LINE'"
                        diag_file "$T/npd.err"
                fi
        done
fi

# ---- degraded ------------------------------------------------------------------------------------

set_state "device.0.clock_event_reasons 0x20"
expect "thermal throttling, --npd=degraded" 20 degraded 1 "^gpu 0 $(short "$UUID0"): thermal throttling$"
expect "thermal throttling, --npd: no problem" 5 "" 0 '^OK: 10 GPUs, none unhealthy$'

TEMP0=92
set_state
expect "NVML 92 °C, slowdown limit 90 °C, --npd=degraded" 20 degraded 1 \
        "^gpu 0 $(short "$UUID0"): gpu temperature 92 °C at or above its slowdown limit 90 °C$"
expect "NVML 92 °C, slowdown limit 90 °C, --npd: no problem" 5 "" 0 '^OK: '
get /metrics
like "$T/body" "^xpu_temperature_limit_celsius\\{vendor=\"nvidia\",gpu=\"0\",uuid=\"$UUID0\",pci_bus_id=\"[0-9a-f:.]+\",sensor=\"gpu\",limit=\"slowdown\"\\} 90$" \
        "/metrics: xpu_temperature_limit_celsius{sensor=\"gpu\",limit=\"slowdown\"} 90 (nvmlDeviceGetTemperatureThreshold)"
like "$T/body" "^xpu_temperature_limit_celsius\\{vendor=\"nvidia\",gpu=\"0\",.*sensor=\"gpu\",limit=\"shutdown\"\\} 95$" \
        "/metrics: xpu_temperature_limit_celsius{sensor=\"gpu\",limit=\"shutdown\"} 95"
like "$T/body" "^xpu_temperature_limit_celsius\\{vendor=\"amd\",gpu=\"8\",.*sensor=\"junction\",limit=\"slowdown\"\\} 100$" \
        "/metrics: AMD temp2_crit 100000 m°C → xpu_temperature_limit_celsius{sensor=\"junction\",limit=\"slowdown\"} 100"
like "$T/body" "^xpu_temperature_limit_celsius\\{vendor=\"amd\",gpu=\"8\",.*sensor=\"junction\",limit=\"shutdown\"\\} 105$" \
        "/metrics: AMD temp2_emergency 105000 m°C → limit=\"shutdown\" 105"
unlike "$T/body" '^xpu_temperature_limit_celsius\{vendor="amd",gpu="9",' \
        "/metrics: no xpu_temperature_limit_celsius for AMD gpu 9, whose hwmon has no limit files"
get /v1/devices/0
is "$(jq -c .readings.temperature_limit_celsius "$T/body")" '{"gpu":{"slowdown":90,"shutdown":95}}' \
        "/v1/devices/0: readings.temperature_limit_celsius"

# ---- unhealthy, one fault at a time --------------------------------------------------------------

TEMP0=96
set_state
expect "NVML 96 °C, shutdown limit 95 °C" 20 "" 1 \
        "^gpu 0 $(short "$UUID0"): gpu temperature 96 °C at or above its shutdown limit 95 °C$"
get /v1/health
is "$(jq -r '.devices[0].state' "$T/body")" unhealthy "/v1/health: gpu 0 unhealthy at its shutdown temperature"
TEMP0=41
set_state
expect "back to healthy" 20 degraded 0 '^OK: 10 GPUs, none degraded or unhealthy$'

echo 103000 >"$HWMON0/temp2_input"
expect "AMD junction 103 °C, temp2_crit 100 °C, --npd=degraded" 20 degraded 1 \
        '^gpu 8 GPU-5a1e0000: junction temperature 103 °C at or above its slowdown lim\.\.\.$'
echo 106000 >"$HWMON0/temp2_input"
expect "AMD junction 106 °C, temp2_emergency 105 °C" 20 "" 1 \
        '^gpu 8 GPU-5a1e0000: junction temperature 106 °C at or above its shutdown lim\.\.\.$'
echo 44000 >"$HWMON0/temp2_input"
expect "AMD junction back to 44 °C" 20 degraded 0 '^OK: '

set_state "device.1.lost 1"
expect "lost GPU" 20 "" 1 "^gpu 1 $(short "$UUID1"): fell off the bus: nvml[A-Za-z_0-9]+ failed: G\\.\\.\\.$"
if [ "$(uname -m)" = x86_64 ]; then
        run_rule XPUUnhealthy
        if [ "$RC" -eq 1 ] && one_short_line && printf '%s\n' "$LINE" | grep -q "^gpu 1 $(short "$UUID1"): fell off the bus"; then
                ok "npd-xpu.json's XPUUnhealthy rule on a lost GPU: exit 1, \"$LINE\""
        else
                not_ok "npd-xpu.json's XPUUnhealthy rule on a lost GPU: exit 1"
                diag "got exit $RC, line '$LINE'"
        fi
fi
set_state
expect "the GPU is back" 20 "" 0 '^OK: '

set_state "device.2.ecc_corrected 0" "device.2.ecc_uncorrected 3"
expect "uncorrected ECC" 20 "" 1 "^gpu 2 $(short "$UUID2"): uncorrected ECC errors: 3"
set_state
expect "no more ECC errors" 20 "" 0 '^OK: '

set_state "device.3.remap 0 2 0 1"
expect "failed row remap" 20 "" 1 "^gpu 3 $(short "$UUID3"): row remapping failed \\(2 rows remapped for uncorrectable e\\.\\.\\.$"

# ---- several at once: the worst first, +N more ---------------------------------------------------

set_state "device.3.remap 0 2 0 1" "device.2.ecc_corrected 0" "device.2.ecc_uncorrected 3" \
        "device.0.clock_event_reasons 0x20"
expect "three GPUs: unhealthy 2 and 3, degraded 0; --npd" 20 "" 1 "^gpu 2 $(short "$UUID2"): uncorrected ECC errors: 3.* \\(\\+1 more\\)$"
expect "the same, --npd=degraded: the worst first" 10 degraded 1 "^gpu 2 $(short "$UUID2"): .* \\(\\+2 more\\)$"
set_state
expect "all healthy again" 20 degraded 0 '^OK: 10 GPUs, none degraded or unhealthy$'

# ---- Xid 79 in the kernel log (held for an hour: the last fault) -----------------------------------

printf '%s\n' '4,2102,7203114825,-;NVRM: Xid (PCI:0000:1a:00): 79, pid=2563, name=python3, GPU has fallen off the bus.' \
        >>"$T/kmsg"
expect "Xid 79 in the kernel log" 20 "" 1 "^gpu 0 $(short "$UUID0"): Xid 79: GPU has fallen off the bus \\(kernel log .*\\.\\.\\.$"

# ---- xpud stopped: unknown -------------------------------------------------------------------------

stop_xpud
npd
if [ "$RC" -eq 2 ] && one_short_line && printf '%s\n' "$LINE" | grep -q '^xpud unreachable: '; then
        ok "xpud stopped: exit 2 (unknown), \"$LINE\""
else
        not_ok "xpud stopped: exit 2 (unknown)"
        diag "got exit $RC, line '$LINE'"
fi

e2e_done
