#!/bin/sh
# xpud under faults, end to end: build/xpud samples every second a
# fake host with 8 NVIDIA GPUs (nvidia-rtx2080ti-x8 through tests/fixtures/mkdriverroot.sh: the
# fake NVML answers from a state file with known readings) and 2 AMD GPUs (a sysfs tree from
# tests/rocm/mkamdsys.sh), read with curl --unix-socket:
#   - values and units: 250000 mW in the state file → xpu_power_watts 250, 41 °C → 41 (NVML);
#     41000 m°C → 41, 95000000 µW → 95, VRAM bytes (amdgpu sysfs); the same numbers in
#     /v1/devices; one nvmlInit_v2 across many samples (one NVML session);
#   - a GPU falls off the bus (device.1.lost in the state file) → /v1/health unhealthy with the
#     reason, a device_lost event, xpu_up 0 and no value series for it, the daemon keeps serving;
#     it comes back → device_back, healthy;
#   - an AMD GPU leaves sysfs, then comes back with the KFD order reversed → every gpu label and
#     /v1/devices/{index} keeps naming the same UUID (the lost GPU keeps its index, the other one
#     is not renumbered);
#   - the NVML helper hangs (hang.nvmlDeviceGetPowerUsage) and then aborts → backend error,
#     xpud_backend_up{backend="nvml"} 0, the last good values marked stale in /v1/devices; the
#     fault removed → backend up again, fresh values;
#   - the kernel log (--kmsg, a file standing in for /dev/kmsg): an Xid 79 line → gpu 0 unhealthy
#     with the catalogue's reason and action, an xid event, xpu_xid_errors_total{xid="79"} 1; an
#     Xid 13 (an application fault) counts but leaves gpu 1 healthy;
#   - NVML memory repair (device.N.remap / retired in the state): remapped rows, a pending remap as a
#     health reason, retired pages;
#   - xpud exits 0 on SIGTERM.
# Every wait polls with a deadline. Needs root (the helper switches to nobody), curl and jq (make
# deps); missing ones fail loudly. Prints TAP.

# SC2317: the helpers below are called through until_true/check and the EXIT trap.
# shellcheck disable=SC2317
# shellcheck source=tests/e2e/lib.sh
. "${XPU_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/e2e/lib.sh"

XPUD="${XPU_BUILD:-}/xpud"
FIXTURE="${XPU_SRCDIR:-}/tests/fixtures/hosts/nvidia-rtx2080ti-x8"
UUID0=GPU-307dcc96-618a-4416-c1ef-87823c2e1a31
UUID1=GPU-e28db54c-aa74-5e20-7e8d-5db5f78f12fe
T=
XPID=

cleanup() {
        [ -n "$XPID" ] && kill -KILL "$XPID" 2>/dev/null
        [ -n "$T" ] && rm -rf "$T"
}

[ "$(id -u)" -eq 0 ] || bail "xpud fault tests must run as root (the NVML helper switches to nobody)"
need_tools curl jq timeout
[ -x "$XPUD" ] || bail "$XPUD is missing (make build-tests; XPU_BUILD set by tests/run-tests.sh)"
[ -f "$XPU_BUILD/tests/shims/libnvidia-ml.so.shim" ] || bail "the fake NVML is missing (make build-tests)"
T=$(mktemp -d /tmp/xpud-faults.XXXXXX) || bail "mktemp failed"
trap cleanup EXIT
trap 'exit 130' INT TERM
chmod 0755 "$T"

# ---- the fake host ---------------------------------------------------------------------------

HOST="$T/host"
e2e_mixed_host "$FIXTURE" "$HOST" "$T/amd" -n 2 --temp-edge 41000,52500 --power 95000000,120500000 \
        --vram-used 1073741824 --busy 25,0
# The calls log of the fake NVML (it runs as nobody in the helper).
: >"$T/calls"
chmod 0666 "$T/calls"
# Readings of GPUs 0 and 1; the rest of the state is the capture's (names, UUIDs, bus ids).
cp "$HOST/xpu-fake-state" "$T/state.base"
cat >>"$T/state.base" <<EOF
calls_log $T/calls
device.0.power_usage_mw 250000
device.0.power_limit_mw 260000
device.0.temperature 41
device.0.util_gpu 35
device.0.util_memory 12
device.0.memory_total 11811160064
device.0.memory_used 524288000
device.0.clock_sm_mhz 1350
device.0.energy_mj 123456789
device.1.power_usage_mw 71234
device.1.temperature 38
EOF
chmod -R a+rX "$HOST"

# set_state [LINE...]: the state file = the base plus LINEs, replaced atomically (the fake reads it
# on every call).
set_state() {
        cp "$T/state.base" "$T/state.new"
        for l in "$@"; do
                printf '%s\n' "$l" >>"$T/state.new"
        done
        chmod 0644 "$T/state.new"
        mv "$T/state.new" "$HOST/xpu-fake-state"
}
set_state

# ---- helpers -----------------------------------------------------------------------------------

SOCK="$T/xpud.sock"

# get PATH: CODE of GET PATH (the body in $T/body).
get() {
        CODE=$(curl -s -o "$T/body" -w '%{http_code}' --max-time 10 --unix-socket "$SOCK" "http://xpud$1")
}

# fetch: the current /metrics, /v1/devices, /v1/health and /v1/events into $T/{metrics,devices,health,events}.
fetch() {
        # Every body from the same snapshot: /v1/health's seq before and after must agree (a
        # sample published in between would mix two snapshots' answers).
        for _try in 1 2 3 4 5; do
                for r in v1/health metrics v1/devices v1/events v1/health; do
                        f=$T/$(basename "$r")
                        [ "$r" = v1/health ] && [ -f "$T/health" ] && cp "$T/health" "$T/health.before"
                        curl -s -o "$f" --max-time 10 --unix-socket "$SOCK" "http://xpud/$r" || : >"$f"
                done
                [ "$(jq -r .seq "$T/health.before" 2>/dev/null)" = "$(jq -r .seq "$T/health" 2>/dev/null)" ] && return 0
        done
}

# until SECONDS COMMAND...: run fetch, then COMMAND, every 0.2 s until COMMAND succeeds; 1 when
# SECONDS pass first.
until_true() {
        end=$(($(date +%s) + $1))
        shift
        while :; do
                fetch
                "$@" && return 0
                [ "$(date +%s)" -ge "$end" ] && return 1
                sleep 0.2
        done
}

# jqt FILE FILTER: FILTER is true on FILE.
jqt() {
        jq -e "$2" "$1" >/dev/null 2>&1
}

# sample_line PREFIX VALUE: $T/metrics has a line starting with PREFIX and ending in " VALUE".
sample_line() {
        awk -v p="$1" -v v="$2" 'index($0, p) == 1 && $NF == v { f = 1 } END { exit !f }' "$T/metrics"
}

# no_series PREFIX: no line of $T/metrics starts with PREFIX.
no_series() {
        ! awk -v p="$1" 'index($0, p) == 1 { f = 1 } END { exit !f }' "$T/metrics"
}

# has_series PREFIX: some line of $T/metrics starts with PREFIX.
has_series() {
        ! no_series "$1"
}

# check DESC COMMAND...: one TAP line for COMMAND on the last fetch.
check() {
        d=$1
        shift
        if "$@"; then
                ok "$d"
        else
                not_ok "$d"
                diag "failed: $*"
        fi
}

seq_now() {
        jq -r '.seq // 0' "$T/devices" 2>/dev/null || echo 0
}

L0="vendor=\"nvidia\",gpu=\"0\",uuid=\"$UUID0\",pci_bus_id=\"0000:1a:00.0\""
L1="vendor=\"nvidia\",gpu=\"1\",uuid=\"$UUID1\",pci_bus_id=\"0000:1b:00.0\""

# ---- start ---------------------------------------------------------------------------------------

# A stand-in for /dev/kmsg: records appended to it are read at the next sample.
: >"$T/kmsg"
"$XPUD" --socket "$SOCK" --sys-root "$HOST" --dev-root "$HOST" --driver-root "$HOST" --interval 1 \
        --vendor-timeout 2 --kmsg "$T/kmsg" -v 2>"$T/xpud.log" &
XPID=$!
if until_true 20 sh -c "[ \"\$(curl -s -o /dev/null -w '%{http_code}' --unix-socket '$SOCK' http://xpud/readyz)\" = 200 ]"; then
        ok "xpud is ready on the fake host"
else
        not_ok "xpud is ready on the fake host"
        diag_file "$T/xpud.log"
        e2e_done
fi

# ---- values and units ------------------------------------------------------------------------------

until_true 10 jqt "$T/devices" '.devices[0].readings.power_watts == 250' || true
check "NVML 250000 mW → xpu_power_watts 250" sample_line "xpu_power_watts{$L0}" 250
check "NVML 41 °C → xpu_temperature_celsius{sensor=\"gpu\"} 41" sample_line "xpu_temperature_celsius{$L0,sensor=\"gpu\"}" 41
check "NVML power limit 260000 mW → xpu_power_limit_watts 260" sample_line "xpu_power_limit_watts{$L0}" 260
check "NVML utilization 35 % → xpu_utilization_ratio 0.35" sample_line "xpu_utilization_ratio{$L0}" 0.35
check "NVML SM clock 1350 MHz → xpu_clock_hertz{clock=\"graphics\"} 1350000000" \
        sample_line "xpu_clock_hertz{$L0,clock=\"graphics\"}" 1350000000
check "NVML energy 123456789 mJ → xpu_energy_joules_total 123456.789" sample_line "xpu_energy_joules_total{$L0}" 123456.789
check "NVML 71234 mW → 71.234 W on gpu 1" sample_line "xpu_power_watts{$L1}" 71.234
check "AMD hwmon 41000 m°C → xpu_temperature_celsius{sensor=\"edge\"} 41 on gpu 8" \
        sample_line 'xpu_temperature_celsius{vendor="amd",gpu="8",' 41
check "AMD hwmon 52500 m°C → 52.5 on gpu 9" sample_line 'xpu_temperature_celsius{vendor="amd",gpu="9",uuid="GPU-5a1e0000c0ffee01",pci_bus_id="0000:1c:00.0",sensor="edge"}' 52.5
check "AMD 95000000 µW → xpu_power_watts 95" sample_line 'xpu_power_watts{vendor="amd",gpu="8",' 95
check "AMD 120500000 µW → xpu_power_watts 120.5" sample_line 'xpu_power_watts{vendor="amd",gpu="9",' 120.5
check "AMD gpu_busy_percent 25 → xpu_utilization_ratio 0.25" sample_line 'xpu_utilization_ratio{vendor="amd",gpu="8",' 0.25
check "AMD VRAM used in bytes" sample_line 'xpu_memory_used_bytes{vendor="amd",gpu="8",' 1073741824
check "xpud_backend_up{backend=\"nvml\"} 1" sample_line 'xpud_backend_up{backend="nvml"}' 1
check "xpud_backend_up{backend=\"amdgpu_sysfs\"} 1" sample_line 'xpud_backend_up{backend="amdgpu_sysfs"}' 1
check "xpud_collect_duration_seconds for nvml" has_series 'xpud_collect_duration_seconds{backend="nvml"} '
check "xpud_collect_duration_seconds for amdgpu_sysfs" has_series 'xpud_collect_duration_seconds{backend="amdgpu_sysfs"} '
check "/v1/devices: gpu 0 power_watts 250, temperature 41, up, not stale" jqt "$T/devices" \
        '.devices[0] | .readings.power_watts == 250 and .readings.temperature_celsius.gpu == 41 and .up == true and .stale == false'
check "/v1/devices: gpu 0 memory from NVML (bytes)" jqt "$T/devices" \
        '.devices[0].readings.memory_used_bytes == 524288000 and .devices[0].readings.memory_total_bytes == 11811160064'
check "/v1/devices: gpu 8 edge 41, junction 44, memory 40 (mkamdsys defaults)" jqt "$T/devices" \
        '.devices[8].readings.temperature_celsius == {"edge": 41, "junction": 44, "memory": 40}'
check "/v1/health: healthy" jqt "$T/health" '.status == "healthy"'

first_seq=$(seq_now)
until_true 15 sh -c "[ \$(jq -r '.seq' '$T/devices') -ge $((first_seq + 3)) ]" || true
is "$(grep -c '^nvmlInit_v2 ' "$T/calls")" 1 "one nvmlInit_v2 across $(($(seq_now))) samples (one NVML session)"

# ---- a GPU falls off the bus ------------------------------------------------------------------------

set_state "device.1.lost 1"
if until_true 15 jqt "$T/health" '.devices[1].state == "unhealthy"'; then
        ok "gpu 1 fell off the bus: /v1/health says unhealthy"
else
        not_ok "gpu 1 fell off the bus: /v1/health says unhealthy"
        diag_file "$T/health"
fi
check "/v1/health status unhealthy" jqt "$T/health" '.status == "unhealthy"'
# (the call that meets the loss first: the handle lookup of the next sample, or a reading of a
# sample under way when the state changed)
check "/v1/health reason names the loss" jqt "$T/health" \
        '.devices[1].reasons[0] | test("^fell off the bus: nvml[A-Za-z_0-9]+ failed: GPU is lost \\(error 15\\)$")'
check "/v1/health suggests an action" jqt "$T/health" '.devices[1].action | test("reseat or power-cycle")'
check "/v1/events: device_lost for gpu 1" jqt "$T/events" \
        "[.events[] | select(.kind == \"device_lost\" and .device == \"$UUID1\" and (.message | test(\"gpu 1 .* fell off the bus\")))] | length == 1"
check "/metrics: xpu_up 0 for gpu 1" sample_line "xpu_up{$L1}" 0
check "/metrics: xpu_health_state unhealthy 1 for gpu 1" sample_line "xpu_health_state{$L1,state=\"unhealthy\"}" 1
check "/metrics: no xpu_power_watts for gpu 1" no_series "xpu_power_watts{$L1}"
check "/metrics: no xpu_temperature_celsius for gpu 1" no_series "xpu_temperature_celsius{$L1,"
check "/metrics: gpu 0 still reads 250 W" sample_line "xpu_power_watts{$L0}" 250
check "/metrics: NVML itself stays up" sample_line 'xpud_backend_up{backend="nvml"}' 1
get /healthz
is "$CODE" 200 "the daemon keeps serving (/healthz 200)"

set_state
if until_true 15 jqt "$T/health" '.devices[1].state == "healthy"'; then
        ok "gpu 1 is back: healthy"
else
        not_ok "gpu 1 is back: healthy"
fi
check "/v1/events: device_back for gpu 1" jqt "$T/events" \
        "[.events[] | select(.kind == \"device_back\" and .device == \"$UUID1\")] | length == 1"
# (fetch reads /metrics before /v1/health: the snapshot that said healthy may be newer)
if until_true 10 sample_line "xpu_power_watts{$L1}" 71.234; then
        ok "/metrics: gpu 1 values are back"
else
        not_ok "/metrics: gpu 1 values are back"
fi

# ---- an AMD GPU leaves, then the KFD order changes ------------------------------------------------------

# The sys tree is a relative link in the host root, switched in one rename: the daemon never sees
# a host without one. amd-two: the start's two GPUs; amd-one: only the second (bus 1c); amd-rev:
# both, KFD nodes in reverse card order (HIP's order, the probes' AMD order, changes).
A8=GPU-5a1e0000c0ffee00 # bus 0c: gpu 8 at the start
A9=GPU-5a1e0000c0ffee01 # bus 1c: gpu 9
mv "$HOST/sys" "$HOST/amd-two"
ln -s amd-two "$HOST/sys"
sh "$XPU_SRCDIR/tests/rocm/mkamdsys.sh" -o "$T/one" -n 1 --bus 1c --unique-id 5a1e0000c0ffee01 --temp-edge 52500 \
        --power 120500000 --vram-used 1073741824 --busy 0 >/dev/null || bail "mkamdsys.sh failed"
sh "$XPU_SRCDIR/tests/rocm/mkamdsys.sh" -o "$T/rev" -n 2 --kfd-reverse --temp-edge 41000,52500 \
        --power 95000000,120500000 --vram-used 1073741824 --busy 25,0 >/dev/null || bail "mkamdsys.sh failed"
mv "$T/one/sys" "$HOST/amd-one"
mv "$T/rev/sys" "$HOST/amd-rev"
chmod -R a+rX "$HOST"

# use_sys NAME: $HOST/sys -> NAME, in one rename.
use_sys() {
        ln -s "$1" "$HOST/sys.new" && mv -T "$HOST/sys.new" "$HOST/sys"
}

# gpu_is INDEX UUID UP: /v1/devices/INDEX is UUID with "up" UP, and /metrics has one xpu_up series
# for that gpu label, with that UUID (value 1 when UP is true, else 0).
gpu_is() {
        get "/v1/devices/$1"
        [ "$CODE" = 200 ] && jqt "$T/body" ".uuid == \"$2\" and .index == $1 and .up == $3" || return 1
        [ "$(grep -c "^xpu_up{vendor=\"amd\",gpu=\"$1\"," "$T/metrics")" = 1 ] || return 1
        sample_line "xpu_up{vendor=\"amd\",gpu=\"$1\",uuid=\"$2\"," "$([ "$3" = true ] && echo 1 || echo 0)"
}

use_sys amd-one
if until_true 15 jqt "$T/devices" ".devices[] | select(.uuid == \"$A8\") | .lost"; then
        ok "AMD gpu 8 left sysfs: lost"
else
        not_ok "AMD gpu 8 left sysfs: lost"
        diag_file "$T/devices"
fi
check "... it keeps gpu 8 (/v1/devices/8, the gpu label of /metrics)" gpu_is 8 "$A8" false
check "... and gpu 9 stays gpu 9, not renumbered to 8" gpu_is 9 "$A9" true
check "... NVIDIA gpu 0 is still gpu 0" sample_line "xpu_power_watts{$L0}" 250
check "/v1/devices lists the devices in index order" jqt "$T/devices" '[.devices[].index] == [range(10)]'

use_sys amd-rev
if until_true 15 jqt "$T/devices" ".devices[] | select(.uuid == \"$A8\") | .up"; then
        ok "AMD gpu 8 is back, now second in KFD order"
else
        not_ok "AMD gpu 8 is back, now second in KFD order"
        diag_file "$T/devices"
fi
check "... and is gpu 8 again" gpu_is 8 "$A8" true
check "... and gpu 9, now first in KFD order, stays gpu 9" gpu_is 9 "$A9" true
check "... gpu 9 keeps its own readings (52.5 °C edge)" \
        sample_line "xpu_temperature_celsius{vendor=\"amd\",gpu=\"9\",uuid=\"$A9\",pci_bus_id=\"0000:1c:00.0\",sensor=\"edge\"}" 52.5
check "/v1/devices still in index order" jqt "$T/devices" '[.devices[].index] == [range(10)]'
use_sys amd-two

# ---- the NVML helper hangs, then aborts --------------------------------------------------------------

set_state "hang.nvmlDeviceGetPowerUsage 1"
if until_true 20 sample_line 'xpud_backend_up{backend="nvml"}' 0; then
        ok "NVML helper hangs: xpud_backend_up{backend=\"nvml\"} 0"
else
        not_ok "NVML helper hangs: xpud_backend_up{backend=\"nvml\"} 0"
        diag_file "$T/metrics"
fi
check "/v1/health: nvml backend error names the timeout" jqt "$T/health" \
        '.backends[] | select(.name == "nvml") | .up == false and .error == "NVML helper timed out after 2 s"'
check "/v1/devices: gpu 0 keeps its last good values, marked stale" jqt "$T/devices" \
        '.devices[0] | .stale == true and .up == false and .readings.power_watts == 250'
check "/v1/health: gpu 0 degraded, stale sample" jqt "$T/health" \
        '.devices[0].state == "degraded" and (.devices[0].reasons[0] | startswith("stale sample: nvml: NVML helper timed out"))'
check "/metrics: xpu_up 0 for gpu 0" sample_line "xpu_up{$L0}" 0
check "/v1/events: backend_error" jqt "$T/events" \
        '[.events[] | select(.kind == "backend_error" and (.message | startswith("nvml: NVML helper timed out")))] | length >= 1'
check "AMD is unaffected" sample_line 'xpud_backend_up{backend="amdgpu_sysfs"}' 1
get /metrics
is "$CODE" 200 "/metrics answers while the helper hangs"

set_state "abort.nvmlDeviceGetPowerUsage 1"
if until_true 20 jqt "$T/health" \
        '.backends[] | select(.name == "nvml") | .up == false and (.error | test("killed by signal 6 \\(Aborted\\)"))'; then
        ok "NVML helper aborts: backend error \"killed by signal 6 (Aborted)\""
else
        not_ok "NVML helper aborts: backend error \"killed by signal 6 (Aborted)\""
        diag_file "$T/health"
fi
check "/metrics: xpud_backend_up{backend=\"nvml\"} 0 after the abort" sample_line 'xpud_backend_up{backend="nvml"}' 0
check "/v1/devices: still the last good values, stale" jqt "$T/devices" \
        '.devices[0] | .stale == true and .readings.power_watts == 250'
kill -0 "$XPID" 2>/dev/null
is "$?" 0 "xpud survives the helper's abort"

stale_time=$(jq -r '.devices[0].sample_time' "$T/devices")
set_state
if until_true 30 sample_line 'xpud_backend_up{backend="nvml"}' 1; then
        ok "fault removed: xpud_backend_up{backend=\"nvml\"} 1"
else
        not_ok "fault removed: xpud_backend_up{backend=\"nvml\"} 1"
        diag_file "$T/health"
fi
check "/v1/devices: gpu 0 fresh again" jqt "$T/devices" \
        ".devices[0] | .stale == false and .up == true and .readings.power_watts == 250 and .sample_time > $stale_time"
check "/metrics: xpu_up 1 for gpu 0" sample_line "xpu_up{$L0}" 1
check "/v1/events: backend_up" jqt "$T/events" '[.events[] | select(.kind == "backend_up" and .message == "nvml is back")] | length >= 1'
check "/v1/health: healthy again" jqt "$T/health" '.status == "healthy"'
inits=$(grep -c '^nvmlInit_v2 ' "$T/calls")
if [ "$inits" -ge 3 ]; then
        ok "a new NVML session after each failure ($inits nvmlInit_v2 in all)"
else
        not_ok "a new NVML session after each failure ($inits nvmlInit_v2 in all)"
fi

# ---- kernel log: an Xid 79 makes its GPU unhealthy, an Xid 13 (an application's fault) does not ----------

printf '%s\n' '4,2102,7203114825,-;NVRM: Xid (PCI:0000:1a:00): 79, pid=2563, name=python3, GPU has fallen off the bus.' \
        '4,2104,7310000002,-;NVRM: Xid (PCI:0000:1b:00): 13, pid=8812, name=train.py, Graphics Exception: ESR 0x505648=0x1000e' \
        >>"$T/kmsg"
if until_true 20 jqt "$T/health" '.devices[0].state == "unhealthy"'; then
        ok "kernel log: Xid 79 for 0000:1a:00 makes gpu 0 unhealthy"
else
        not_ok "kernel log: Xid 79 for 0000:1a:00 makes gpu 0 unhealthy"
        diag_file "$T/health"
fi
check "/v1/health: the reason names the Xid and what it means" jqt "$T/health" \
        '.devices[0].reasons[0] | startswith("Xid 79: GPU has fallen off the bus (kernel log at 7203.114825 s after boot")'
check "/v1/health: the action is the catalogue's" jqt "$T/health" \
        '.devices[0].action | startswith("drain the node, reboot it")'
check "/v1/health: gpu 1 (Xid 13, an application fault) is not made unhealthy" jqt "$T/health" '.devices[1].state == "healthy"'
check "/v1/events: an xid event for gpu 0" jqt "$T/events" \
        "[.events[] | select(.kind == \"xid\" and .device == \"$UUID0\" and (.message | startswith(\"gpu 0 (0000:1a:00.0): Xid 79: GPU has fallen off the bus\")))] | length == 1"
check "/metrics: xpu_xid_errors_total{xid=\"79\"} 1 for gpu 0" sample_line "xpu_xid_errors_total{$L0,xid=\"79\"}" 1
check "/metrics: xpu_xid_errors_total{xid=\"13\"} 1 for gpu 1" sample_line "xpu_xid_errors_total{$L1,xid=\"13\"}" 1
check "/v1/devices: xid_errors of gpu 0" jqt "$T/devices" '.devices[0].xid_errors == {"79": 1}'
printf '%s\n' '4,2105,7310000100,-;NVRM: Xid (PCI:0000:1b:00): 13, pid=8812, name=train.py, Graphics Exception' >>"$T/kmsg"
if until_true 20 sample_line "xpu_xid_errors_total{$L1,xid=\"13\"}" 2; then
        ok "kernel log: a second Xid 13 counts 2"
else
        not_ok "kernel log: a second Xid 13 counts 2"
fi

# ---- memory repair from NVML: a pending row remap and retired pages ----------------------------------

set_state "device.0.remap 7 2 1 0" "device.1.retired 5 1 0"
if until_true 20 sample_line "xpu_memory_remap_pending{$L0}" 1; then
        ok "NVML row remapping: xpu_memory_remap_pending 1 for gpu 0"
else
        not_ok "NVML row remapping: xpu_memory_remap_pending 1 for gpu 0"
        diag_file "$T/xpud.log"
fi
check "/metrics: 2 rows remapped for uncorrectable errors" \
        sample_line "xpu_memory_remapped_rows_total{$L0,severity=\"uncorrectable\"}" 2
check "/metrics: 1 page retired for a double-bit error on gpu 1" \
        sample_line "xpu_memory_retired_pages_total{$L1,cause=\"uncorrectable\"}" 1
check "/v1/health: the pending remap is a reason of gpu 0" jqt "$T/health" \
        '[.devices[0].reasons[] | select(. == "row remapping pending: a reset applies it")] | length == 1'

# ---- stop ---------------------------------------------------------------------------------------------

kill -TERM "$XPID"
i=0
while kill -0 "$XPID" 2>/dev/null && [ $i -lt 100 ]; do
        i=$((i + 1))
        sleep 0.1
done
if kill -0 "$XPID" 2>/dev/null; then
        not_ok "xpud exits on SIGTERM"
else
        wait "$XPID"
        is "$?" 0 "xpud exits 0 on SIGTERM"
fi
XPID=
is "$(grep -c '^nvmlShutdown ' "$T/calls")" 1 "NVML shut down cleanly once, when xpud stopped (failed helpers are killed)"
like "$T/xpud.log" 'nvml: NVML helper timed out after 2 s; keeping the last good readings, marked stale' \
        "the log names the backend error"
# (switching the AMD tree above can cost amdgpu_sysfs a failed sample of its own: only nvml counts here)
is "$(grep -c '^xpud: warning: nvml: .*keeping the last good readings' "$T/xpud.log")" 1 "one warning for the whole NVML outage (hang, then abort)"
like "$T/xpud.log" 'nvml is back' "the log says when the backend is back"
e2e_done
