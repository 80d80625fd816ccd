#!/bin/sh
# The alerting rules (examples/prometheus/xpu-alerts.yaml, the same as a PrometheusRule in
# examples/kubernetes/xpu-prometheusrule.yaml) against what xpud really serves:
#   - `promtool check rules` accepts both files (the PrometheusRule's spec.groups taken out), and
#     the PrometheusRule holds exactly the plain file's groups;
#   - build/xpud samples every second a fake host with 8 NVIDIA GPUs (nvidia-rtx2080ti-x8, the fake
#     NVML answering from a state file) and 2 AMD GPUs (tests/rocm/mkamdsys.sh), with a file
#     standing in for /dev/kmsg; the test injects one fault after another and RECORDS /metrics
#     over the UNIX socket, one scrape per sample, once each fault shows: healthy; the NVML helper
#     hangs (stale samples, backend down), then recovers; then faults that stay to the end: a PCIe
#     link trained x8 of x16 (AMD gpu 9: degraded for long); thermal and power throttling (gpu 5);
#     a failed row remap with Xid 64 (gpu 4), a pending one with Xid 63 (gpu 6), a pending page
#     retirement with Xid 119 and an unclassed Xid (gpu 7); a GPU falls off the bus (gpu 0); Xid 79
#     (gpu 1) and application Xids 13 and 31 (gpu 2); uncorrected ECC with Xid 48 (gpu 3); and,
#     an AMD junction temperature above its slowdown limit, then above its shutdown limit (gpu 8;
#     amdgpu's temp2_crit and temp2_emergency are written for it);
#   - tests/e2e/scrapes-to-promtool.py turns the scrapes into promtool's input series (scrape i =
#     minute i), adds the xpud-down tail (`up` 0, then no target: Prometheus makes `up`, so the
#     converter writes that one series) and an alert_rule_test for every rule at every minute with
#     exactly the alerts the faults so far must fire (none on the healthy scrapes); `promtool test
#     rules` runs it.
# XPUDSamplingStalled compares with time(), which a recording cannot move: promtool checks it only
# stays silent. Every wait polls with a deadline. XPU_KEEP_ALERTS=DIR keeps a copy of the scratch
# directory (scrapes, expectations, the promtool test) for debugging. Needs root (the NVML helper switches to nobody),
# curl, jq, promtool and /usr/bin/python3 with PyYAML (make deps; installed when missing). Prints TAP.

# SC2317: the helpers below are called through until_true and the EXIT trap.
# shellcheck disable=SC2317
# shellcheck source=tests/e2e/lib.sh
. "${XPU_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/e2e/lib.sh"

XPUD="${XPU_BUILD:-}/xpud"
FIXTURE="${XPU_SRCDIR:-}/tests/fixtures/hosts/nvidia-rtx2080ti-x8"
RULES="$XPU_SRCDIR/examples/prometheus/xpu-alerts.yaml"
PROMRULE="$XPU_SRCDIR/examples/kubernetes/xpu-prometheusrule.yaml"
T=
XPID=

cleanup() {
        [ -n "$XPID" ] && kill -KILL "$XPID" 2>/dev/null
        [ -n "$T" ] && { [ -z "${XPU_KEEP_ALERTS:-}" ] || cp -r "$T" "$XPU_KEEP_ALERTS"; rm -rf "$T"; }
}

[ "$(id -u)" -eq 0 ] || bail "xpud alert tests must run as root (the NVML helper switches to nobody)"
need_pkgs prometheus python3-yaml curl jq
need_tools curl jq timeout promtool
/usr/bin/python3 -c "import yaml" 2>/dev/null || bail "/usr/bin/python3 with PyYAML is missing"
[ -x "$XPUD" ] || bail "$XPUD is missing (make build-tests; XPU_BUILD set by tests/run-tests.sh)"
[ -f "$XPU_BUILD/tests/shims/libnvidia-ml.so.shim" ] || bail "the fake NVML is missing (make build-tests)"
T=$(mktemp -d /tmp/xpud-alerts.XXXXXX) || bail "mktemp failed"
trap cleanup EXIT
trap 'exit 130' INT TERM
chmod 0755 "$T"

# ---- the rule files -------------------------------------------------------------------------------

promtool check rules "$RULES" >"$T/check.out" 2>&1
is "$?" 0 "promtool check rules examples/prometheus/xpu-alerts.yaml"
/usr/bin/python3 -c '
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
assert d["kind"] == "PrometheusRule", d["kind"]
yaml.safe_dump({"groups": d["spec"]["groups"]}, open(sys.argv[2], "w"))
' "$PROMRULE" "$T/spec-groups.yaml" 2>"$T/extract.err" || diag_file "$T/extract.err"
promtool check rules "$T/spec-groups.yaml" >"$T/check2.out" 2>&1
rc=$?
is "$rc" 0 "promtool check rules on the PrometheusRule's spec.groups"
[ "$rc" -eq 0 ] || diag_file "$T/check2.out"
sed -n '/^groups:/,$p' "$RULES" >"$T/plain.groups"
sed -n '/^  groups:/,$p' "$PROMRULE" | sed 's/^  //' >"$T/crd.groups"
if [ -s "$T/plain.groups" ] && cmp -s "$T/plain.groups" "$T/crd.groups"; then
        ok "the PrometheusRule holds the plain rule file's groups, line for line"
else
        not_ok "the PrometheusRule holds the plain rule file's groups, line for line"
        diag "regenerate: sed -n '/^groups:/,\$p' examples/prometheus/xpu-alerts.yaml | sed 's/^/  /'"
        diff "$T/plain.groups" "$T/crd.groups" | head -n 20 | sed 's/^/# /'
fi

# ---- the fake host ----------------------------------------------------------------------------------

HOST="$T/host"
e2e_mixed_host "$FIXTURE" "$HOST" "$T/amd" -n 2
# Both AMD GPUs with a PCIe link trained to its maximum (x16, 16 GT/s) and, on gpu 8's junction
# sensor, amdgpu's slowdown and shutdown limits (hwmon temp2_crit, temp2_emergency; m°C).
for bus in 0c 1c; do
        d="$HOST/sys/bus/pci/devices/0000:$bus:00.0"
        printf '16\n' >"$d/current_link_width"
        printf '16\n' >"$d/max_link_width"
        printf '16.0 GT/s PCIe\n' >"$d/current_link_speed"
        printf '16.0 GT/s PCIe\n' >"$d/max_link_speed"
done
HW8=$(echo "$HOST"/sys/bus/pci/devices/0000:0c:00.0/hwmon/hwmon*)
printf '100000\n' >"$HW8/temp2_crit"
printf '105000\n' >"$HW8/temp2_emergency"
# Readings the faults change, all clean at the start: ECC counts, clock event reasons, memory repair.
cp "$HOST/xpu-fake-state" "$T/state.base"
for g in 0 1 2 3 4 5 6 7; do
        printf 'device.%s.ecc_corrected 0\ndevice.%s.ecc_uncorrected 0\ndevice.%s.clock_event_reasons 0\n' \
                "$g" "$g" "$g" >>"$T/state.base"
done
printf 'device.4.remap 0 0 0 0\ndevice.6.remap 0 0 0 0\ndevice.7.retired 0 0 0\n' >>"$T/state.base"
chmod -R a+rX "$HOST"
FAULTS=

# fault LINE...: add state lines to the faults so far; the state file = the base, less the keys a
# fault sets (the fake takes a key's first line), plus every fault, replaced atomically (the fake
# reads it on every call).
fault() {
        for l in "$@"; do
                FAULTS="$FAULTS$l
"
        done
        set_faults
}
set_faults() {
        printf '%s' "$FAULTS" >"$T/faults"
        awk -v faults="$T/faults" 'BEGIN { while ((getline l <faults) > 0) { split(l, w, " "); f[w[1]] = 1 } }
                !($1 in f)' "$T/state.base" >"$T/state.new"
        cat "$T/faults" >>"$T/state.new"
        chmod 0644 "$T/state.new"
        mv "$T/state.new" "$HOST/xpu-fake-state"
}
set_faults

# ---- helpers --------------------------------------------------------------------------------------

SOCK="$T/xpud.sock"
REC="$T/scrapes"
mkdir "$REC"
: >"$T/expect"
IDX=0
LAST_TS=

# scrape: the current /metrics into $T/metrics.
scrape() {
        curl -s -o "$T/metrics" --max-time 10 --unix-socket "$SOCK" http://xpud/metrics || : >"$T/metrics"
}

# sample_line PREFIX VALUE: $T/metrics has a line starting with PREFIX and ending in " VALUE".
sample_line() {
        awk -v p="$1" -v v="$2" 'index($0, p) == 1 && $NF == v { f = 1 } END { exit !f }' "$T/metrics"
}

# no_series PREFIX: no line of $T/metrics starts with PREFIX.
no_series() {
        ! awk -v p="$1" 'index($0, p) == 1 { f = 1 } END { exit !f }' "$T/metrics"
}

# ts: the sample time of $T/metrics (xpud_last_collect_timestamp_seconds).
ts() {
        awk '$1 == "xpud_last_collect_timestamp_seconds" { print $2 }' "$T/metrics"
}

# until_true SECONDS COMMAND...: scrape, then COMMAND, every 0.2 s until COMMAND succeeds; 1 when
# SECONDS pass first.
until_true() {
        end=$(($(date +%s) + $1))
        shift
        while :; do
                scrape
                "$@" && return 0
                [ "$(date +%s)" -ge "$end" ] && return 1
                sleep 0.2
        done
}

new_sample() {
        t=$(ts)
        [ -n "$t" ] && [ "$t" != "$LAST_TS" ]
}

# record N NAME: once the fault shows (the caller waited for it), keep N scrapes of N consecutive new
# samples; PHASE_START is the index of the first. A scrape of the same sample is not kept twice.
record() {
        PHASE_START=$IDX
        n=0
        while [ "$n" -lt "$1" ]; do
                if ! until_true 20 new_sample; then
                        bail "$2: no new sample within 20 s"
                fi
                LAST_TS=$(ts)
                cp "$T/metrics" "$REC/scrape-$(printf '%04d' "$IDX").prom"
                IDX=$((IDX + 1))
                n=$((n + 1))
        done
        ok "$2: recorded $1 scrapes (minutes $PHASE_START to $((IDX - 1)))"
}

# wait_for DESC SECONDS COMMAND...: one TAP line: the fault shows within SECONDS.
wait_for() {
        d=$1
        shift
        if until_true "$@"; then
                ok "$d"
        else
                not_ok "$d"
                diag_file "$T/metrics"
                e2e_done
        fi
}

# expect ALERT FIRST LAST LABEL...: one line of the converter's expectations.
expect() {
        (
                IFS=$(printf '\t')
                printf '%s\n' "$*"
        ) >>"$T/expect"
}

# all_nvidia PREFIX_FORMAT VALUE: sample_line for gpu 0..7 (PREFIX_FORMAT has %s for the gpu).
all_nvidia() {
        for g in 0 1 2 3 4 5 6 7; do
                # shellcheck disable=SC2059
                sample_line "$(printf "$1" "$g")" "$2" || return 1
        done
}

# G VENDOR GPU: the start of a device series' labels.
G() {
        printf 'vendor="%s",gpu="%s",' "$1" "$2"
}

# state_is VENDOR GPU STATE: xpu_health_state{state=STATE} is 1 for that device.
state_is() {
        awk -v p="xpu_health_state{$(G "$1" "$2")" -v s="state=\"$3\"" 'index($0, p) == 1 && index($0, s) && $NF == 1 { f = 1 }
                END { exit !f }' "$T/metrics"
}

# ---- start ----------------------------------------------------------------------------------------

: >"$T/kmsg"
timeout -k 5 600 "$XPUD" --socket "$SOCK" --sys-root "$HOST" --dev-root "$HOST" --driver-root "$HOST" \
        --interval 1 --vendor-timeout 2 --kmsg "$T/kmsg" 2>"$T/xpud.log" &
XPID=$!
wait_for "xpud serves /metrics with 10 GPUs, all up" 30 all_nvidia 'xpu_up{vendor="nvidia",gpu="%s",' 1
check_amd_up() {
        sample_line "xpu_up{$(G amd 8)" 1 && sample_line "xpu_up{$(G amd 9)" 1 &&
                sample_line "xpu_pcie_link_width_lanes{$(G amd 9)" 16
}
wait_for "AMD gpus 8 and 9 are up with their PCIe link read" 15 check_amd_up
is "$(grep -c "^xpu_temperature_limit_celsius{$(G amd 8)" "$T/metrics")" 2 \
        "AMD gpu 8 exports its junction limits (temp2_crit as slowdown, temp2_emergency as shutdown)"

record 4 "healthy"

# ---- stale samples: the NVML helper hangs --------------------------------------------------------------

fault "hang.nvmlDeviceGetPowerUsage 1"
stale_shows() {
        sample_line 'xpud_backend_up{backend="nvml"}' 0 && all_nvidia 'xpu_up{vendor="nvidia",gpu="%s",' 0
}
wait_for "NVML hangs: backend down, every NVIDIA GPU stale" 30 stale_shows
record 6 "stale samples"
for g in 0 1 2 3 4 5 6 7; do
        expect XPUDeviceStale "$PHASE_START" $((IDX - 1)) "@gpu=$g" @target
done
expect XPUDBackendDown "$PHASE_START" $((IDX - 1)) backend=nvml @target
FAULTS=
set_faults
healthy_again() {
        sample_line 'xpud_backend_up{backend="nvml"}' 1 && all_nvidia 'xpu_up{vendor="nvidia",gpu="%s",' 1 || return 1
        for g in 0 1 2 3 4 5 6 7; do
                state_is nvidia "$g" healthy || return 1
        done
}
wait_for "NVML back: fresh samples" 30 healthy_again
record 2 "healthy again"

# ---- faults that stay to the end --------------------------------------------------------------------------

printf '8\n' >"$HOST/sys/bus/pci/devices/0000:1c:00.0/current_link_width"
wait_for "PCIe: AMD gpu 9 trained x8 of x16" 15 \
        sample_line "xpu_pcie_link_width_lanes{$(G amd 9)uuid=\"GPU-5a1e0000c0ffee01\",pci_bus_id=\"0000:1c:00.0\",link=\"current\"}" 8
record 7 "PCIe link narrower"
expect XPUPCIeLinkNarrow "$PHASE_START" - "@gpu=9" @target
expect XPUDeviceDegraded "$PHASE_START" - "@gpu=9" state=degraded @target

fault "device.5.clock_event_reasons 0x24"
throttle_shows() {
        awk -v p="xpu_throttle_active{$(G nvidia 5)" 'index($0, p) == 1 && /reason="(thermal|power)"/ && $NF == 1 { n++ }
                END { exit n != 2 }' "$T/metrics"
}
wait_for "throttling: gpu 5 thermal and power" 15 throttle_shows
record 7 "thermal and power throttling"
expect XPUThermalThrottling "$PHASE_START" - "@gpu=5" reason=thermal @target
expect XPUPowerThrottling "$PHASE_START" - "@gpu=5" reason=power @target
expect XPUDeviceDegraded "$PHASE_START" - "@gpu=5" state=degraded @target

fault "device.4.remap 0 2 0 1" "device.6.remap 0 1 1 0" "device.7.retired 0 1 1"
printf '%s\n' '4,2120,7500000001,-;NVRM: Xid (PCI:0000:b1:00): 64, pid=0, name=, Row remapper failure' \
        '4,2121,7500000002,-;NVRM: Xid (PCI:0000:da:00): 63, pid=0, name=, Row remapping event' \
        '4,2122,7500000003,-;NVRM: Xid (PCI:0000:db:00): 119, pid=0, name=, Timeout waiting for RPC from GSP!' \
        '4,2123,7500000004,-;NVRM: Xid (PCI:0000:db:00): 999, pid=0, name=, a future Xid' >>"$T/kmsg"
remap_shows() {
        sample_line "xpu_memory_remap_failed{$(G nvidia 4)" 1 && sample_line "xpu_memory_remap_pending{$(G nvidia 6)" 1 &&
                sample_line "xpu_memory_retired_pages_pending{$(G nvidia 7)" 1 &&
                sample_line "xpu_xid_errors_total{$(G nvidia 4)" 1 && sample_line "xpu_xid_errors_total{$(G nvidia 6)" 1 &&
                [ "$(grep -c "^xpu_xid_errors_total{$(G nvidia 7)" "$T/metrics")" = 2 ]
}
wait_for "row remap failed (gpu 4), pending (gpu 6), page retirement pending (gpu 7), their Xids" 15 remap_shows
record 6 "memory repair"
expect XPURowRemapFailed "$PHASE_START" - "@gpu=4" @target
expect XPUXidMemoryFatal "$PHASE_START" - "@gpu=4" xid=64 @target
expect XPUDeviceUnhealthy "$PHASE_START" - "@gpu=4" state=unhealthy @target
expect XPURowRemapPending "$PHASE_START" - "@gpu=6" @target
expect XPUXidMemoryDegraded "$PHASE_START" - "@gpu=6" xid=63 @target
expect XPURetiredPagesPending "$PHASE_START" - "@gpu=7" @target
expect XPUXidGPUFatal "$PHASE_START" - "@gpu=7" xid=119 @target
expect XPUXidOther "$PHASE_START" - "@gpu=7" xid=999 @target
expect XPUDeviceUnhealthy "$PHASE_START" - "@gpu=7" state=unhealthy @target

fault "device.0.lost 1"
lost_shows() {
        sample_line "xpu_up{$(G nvidia 0)" 0 && no_series "xpu_last_collect_timestamp_seconds{$(G nvidia 0)"
}
wait_for "gpu 0 fell off the bus" 15 lost_shows
record 6 "GPU lost"
expect XPUDeviceLost "$PHASE_START" - "@gpu=0" @target

printf '%s\n' '4,2102,7203114825,-;NVRM: Xid (PCI:0000:1b:00): 79, pid=2563, name=python3, GPU has fallen off the bus.' \
        '4,2104,7310000002,-;NVRM: Xid (PCI:0000:60:00): 13, pid=8812, name=train.py, Graphics Exception: ESR 0x505648=0x1000e' \
        '4,2105,7310000009,-;NVRM: Xid (PCI:0000:60:00): 31, pid=8812, name=train.py, Ch 00000010, intr 00000000. MMU Fault' \
        >>"$T/kmsg"
xid_shows() {
        sample_line "xpu_xid_errors_total{$(G nvidia 1)" 1 && state_is nvidia 1 unhealthy &&
                [ "$(grep -c "^xpu_xid_errors_total{$(G nvidia 2)" "$T/metrics")" = 2 ]
}
wait_for "kernel log: Xid 79 on gpu 1, Xids 13 and 31 on gpu 2" 15 xid_shows
record 6 "Xid 79 and application Xids"
expect XPUXidFallenOffBus "$PHASE_START" - "@gpu=1" xid=79 @target
expect XPUDeviceUnhealthy "$PHASE_START" - "@gpu=1" state=unhealthy @target
expect XPUXidApplication "$PHASE_START" - "@gpu=2" xid=13 @target
expect XPUXidApplication "$PHASE_START" - "@gpu=2" xid=31 @target

fault "device.3.ecc_uncorrected 2"
printf '%s\n' '4,2110,7400000001,-;NVRM: Xid (PCI:0000:61:00): 48, pid=9001, name=train.py, DBE (double bit error) ECC error' >>"$T/kmsg"
ecc_shows() {
        awk -v p="xpu_ecc_errors_total{$(G nvidia 3)" 'index($0, p) == 1 && /severity="uncorrected"/ && $NF == 2 { f = 1 }
                END { exit !f }' "$T/metrics" && sample_line "xpu_xid_errors_total{$(G nvidia 3)" 1
}
wait_for "uncorrected ECC errors and Xid 48 on gpu 3" 15 ecc_shows
record 6 "uncorrected ECC"
expect XPUUncorrectableECCErrors "$PHASE_START" - "@gpu=3" severity=uncorrected @target
expect XPUXidMemoryFatal "$PHASE_START" - "@gpu=3" xid=48 @target
expect XPUDeviceUnhealthy "$PHASE_START" - "@gpu=3" state=unhealthy @target

# ---- thermal limits -----------------------------------------------------------------------------------------

J8="xpu_temperature_celsius{$(G amd 8)uuid=\"GPU-5a1e0000c0ffee00\",pci_bus_id=\"0000:0c:00.0\",sensor=\"junction\"}"
printf '101000\n' >"$HW8/temp2_input"
wait_for "AMD gpu 8 junction 101 °C, above its 100 °C slowdown limit" 15 sample_line "$J8" 101
record 3 "above the slowdown temperature"
expect XPUTemperatureAboveSlowdown "$PHASE_START" - "@gpu=8" sensor=junction @target
printf '106000\n' >"$HW8/temp2_input"
wait_for "AMD gpu 8 junction 106 °C, above its 105 °C shutdown limit" 15 sample_line "$J8" 106
record 3 "above the shutdown temperature"
expect XPUTemperatureAboveShutdown "$PHASE_START" - "@gpu=8" sensor=junction @target
expect XPUDeviceUnhealthy "$PHASE_START" - "@gpu=8" state=unhealthy @target
NEVER=XPUDSamplingStalled,XPUXidNVLink

# ---- the target goes down (written by the converter) ---------------------------------------------------------

N=$IDX
expect XPUDDown "$N" $((N + 3)) @target
expect XPUDAbsent $((N + 4)) $((N + 14)) job=xpud

kill -TERM "$XPID"
wait "$XPID"
is "$?" 0 "xpud exits 0 on SIGTERM"
XPID=

# ---- promtool test rules on the recording ------------------------------------------------------------------

/usr/bin/python3 "$XPU_SRCDIR/tests/e2e/scrapes-to-promtool.py" --rules "$RULES" --scrapes "$REC" \
        --expect "$T/expect" --instance node-a --job xpud --tail-down 4 --tail-absent 11 --never-fires "$NEVER" \
        >"$T/test.yaml" 2>"$T/conv.err"
rc=$?
is "$rc" 0 "the converter writes a promtool test of $N recorded scrapes"
[ "$rc" -eq 0 ] || diag_file "$T/conv.err"
is "$(jq '.tests[0].alert_rule_test | map(select(.exp_alerts != [])) | length > 40' "$T/test.yaml")" true \
        "the test expects alerts at many minutes (the faults fire)"
is "$(jq '[.tests[0].alert_rule_test[] | select(.eval_time == "0m" or .eval_time == "3m") | .exp_alerts[]] | length' \
        "$T/test.yaml")" 0 \
        "the test expects no alert on the healthy scrapes"
if [ -s "$T/test.yaml" ]; then
        promtool test rules "$T/test.yaml" >"$T/promtool.out" 2>&1
        rc=$?
else
        rc=missing
fi
is "$rc" 0 "promtool test rules: every rule fires exactly where the recorded faults say, and nowhere else"
if [ "$rc" != 0 ] && [ -f "$T/promtool.out" ]; then
        grep -v '^ *$' "$T/promtool.out" | head -n 60 | sed 's/^/# /'
fi

# The test judges: without one of the expected alerts, or with a rule that misses its fault, it fails.
jq '(first(.tests[0].alert_rule_test[] | select(.alertname == "XPUDeviceLost" and .exp_alerts != [])) |
        .exp_alerts) |= []' \
        "$T/test.yaml" >"$T/test-less.yaml"
promtool test rules "$T/test-less.yaml" >"$T/less.out" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && grep -q 'alertname: XPUDeviceLost' "$T/less.out"; then
        ok "promtool test rules fails on a copy of the test that leaves out a firing XPUDeviceLost"
else
        not_ok "promtool test rules fails on a copy of the test that leaves out a firing XPUDeviceLost (exit $rc)"
fi
sed 's/{link="current"} < ignoring(link)/{link="current"} > ignoring(link)/' \
        "$RULES" >"$T/rules-broken.yaml"
jq --arg r "$T/rules-broken.yaml" '.rule_files = [$r]' "$T/test.yaml" >"$T/test-broken.yaml"
promtool test rules "$T/test-broken.yaml" >"$T/broken.out" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && grep -q 'alertname: XPUPCIeLinkNarrow' "$T/broken.out"; then
        ok "promtool test rules fails on rules whose XPUPCIeLinkNarrow compares the wrong way"
else
        not_ok "promtool test rules fails on rules whose XPUPCIeLinkNarrow compares the wrong way (exit $rc)"
fi
e2e_done
