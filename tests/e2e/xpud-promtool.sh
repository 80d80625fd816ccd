#!/bin/sh
# shellcheck disable=SC2016
# xpud's renderers against the real tools: the /metrics body of the hand-built snapshot
# of tests/unit/xpud-fixture.h (2 NVIDIA + 2 AMD GPUs, one lost, one throttled, one backend down),
# printed by `test-xpud-render-prom --dump` (also with pods on its GPUs and --workload-labels), passes `promtool check metrics` (Debian package
# `prometheus`) with no lint line, also with a hostile device name; every series appears once
# (promtool does not check that); the JSON bodies parse with jq and hold the values in base units.
# SC2016: jq programs are single-quoted on purpose.
#
# Needs promtool and jq: installed when missing (as root; prometheus through
# packaging/install-deps.sh, which keeps its service from starting); failing that is a failure
# (Bail out), never a skip.
. "$(dirname "$0")/lib.sh"

SRC=${XPU_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
DUMP=${XPU_BUILD:-$SRC/build}/tests/test-xpud-render-prom
[ -x "$DUMP" ] || bail "$DUMP is not built (make build-tests)"

need_pkgs prometheus jq
diag "$(promtool --version 2>&1 | head -n 1)"

TMP=$(mktemp -d /tmp/xpud-promtool.XXXXXX) || bail "mktemp failed"
trap 'rm -rf "$TMP"' EXIT

# check_metrics NAME: promtool check metrics on $TMP/NAME.prom; exit 0, nothing printed.
check_metrics() {
        promtool check metrics <"$TMP/$1.prom" >"$TMP/$1.out" 2>&1
        rc=$?
        is "$rc" 0 "promtool check metrics exits 0 on the $1 body"
        is "$(wc -c <"$TMP/$1.out" | tr -d ' ')" 0 "promtool prints no lint or parse line for the $1 body"
        if [ -s "$TMP/$1.out" ]; then
                diag_file "$TMP/$1.out"
        fi
        # name{labels} of every sample, once each
        dups=$(grep -v '^#' "$TMP/$1.prom" | sed 's/ [^ ]*$//' | sort | uniq -d | head -n 5)
        is "$dups" "" "no series appears twice in the $1 body"
        helps=$(grep -c '^# HELP ' "$TMP/$1.prom")
        types=$(grep -c '^# TYPE ' "$TMP/$1.prom")
        names=$(grep -v '^#' "$TMP/$1.prom" | sed 's/[{ ].*//' | uniq | wc -l | tr -d ' ')
        distinct=$(grep -v '^#' "$TMP/$1.prom" | sed 's/[{ ].*//' | sort -u | wc -l | tr -d ' ')
        is "$names" "$distinct" "the samples of each metric of the $1 body are grouped"
        is "$helps $types" "$distinct $distinct" "one HELP and one TYPE per metric of the $1 body"
}

for body in metrics metrics-hostile metrics-mig metrics-workloads; do
        "$DUMP" --dump "$body" >"$TMP/$body.prom"
        is "$?" 0 "test-xpud-render-prom --dump $body"
        check_metrics "$body"
done

# promtool does judge: a body with a second TYPE line and a counter without _total fails.
printf '# HELP a_total x\n# TYPE a_total counter\n# TYPE a_total counter\na_total 1\n' >"$TMP/bad.prom"
promtool check metrics <"$TMP/bad.prom" >/dev/null 2>&1
rc=$?
if [ "$rc" -ne 0 ]; then
        ok "promtool rejects a body with two TYPE lines (exit $rc)"
else
        not_ok "promtool rejects a body with two TYPE lines"
fi

M="$TMP/metrics.prom"
L0='vendor="nvidia",gpu="0",uuid="GPU-307dcc96-618a-4416-c1ef-87823c2e1a31",pci_bus_id="0000:1a:00.0"'
L2='vendor="amd",gpu="2",uuid="GPU-1e2d3c4b5a697887",pci_bus_id="0000:c1:00.0"'
L3='vendor="amd",gpu="3",uuid="GPU-8f7e6d5c4b3a2918",pci_bus_id="0000:c2:00.0"'
is "$(grep -F "xpu_power_watts{$L0}" "$M")" "xpu_power_watts{$L0} 250" "250 W is xpu_power_watts 250"
is "$(grep -F "xpu_temperature_celsius{$L3,sensor=\"edge\"}" "$M")" \
        "xpu_temperature_celsius{$L3,sensor=\"edge\"} 41" "41 degrees is xpu_temperature_celsius 41"
is "$(grep -cF "$L2" "$M")" 6 "the lost gpu 2 keeps 6 series (xpu_info, xpu_up, 4 health states)"
is "$(grep -F "xpu_up{$L2}" "$M")" "xpu_up{$L2} 0" "the lost gpu 2 has xpu_up 0"
is "$(grep -F "xpu_health_state{$L2,state=\"unhealthy\"}" "$M")" "xpu_health_state{$L2,state=\"unhealthy\"} 1" \
        "the lost gpu 2 is unhealthy"
like "$TMP/metrics-hostile.prom" '^xpu_info\{.*name="Evil \\"GPU\\" \\\\ name\\nsecond line .* end"' \
        "a hostile device name is escaped in xpu_info"

for body in devices devices-mig devices-workloads health events version; do
        "$DUMP" --dump "$body" >"$TMP/$body.json"
        jq -e . "$TMP/$body.json" >/dev/null 2>&1
        is "$?" 0 "the $body body is JSON"
done
is "$(jq -c '[.devices[0].readings.power_watts, .devices[3].readings.temperature_celsius.edge, .devices[2].lost,
        .devices[2].readings, .devices[3].stale]' "$TMP/devices.json")" '[250,41,true,{},true]' \
        "/v1/devices readings in base units; the lost device has none; the stale one is marked"
is "$(jq -c '.devices[1].mig_devices | map([.name, .gpu_instance_id, .uuid, .memory_total_bytes])' "$TMP/devices-mig.json")" \
        '[["1:0",1,"MIG-aaaaaaaa-0000-4000-8000-000000000001",20937965568],["1:1",2,null,null]]' \
        "/v1/devices lists a GPU's MIG devices: name, GPU instance, NVML's UUID and memory where known"
is "$(jq -c '[.devices[0].readings.remapped_rows, .devices[1].readings.retired_pages]' "$TMP/devices-mig.json")" \
        '[{"correctable":7,"uncorrectable":2,"pending":true,"failed":false},{"correctable":5,"uncorrectable":1,"pending":false}]' \
        "/v1/devices: remapped rows and retired pages with their flags"
is "$(jq -c '[.devices[0].readings.fabric, .devices[1].readings.fabric, .host.fabric]' "$TMP/devices-mig.json")" \
        '[{"state":"completed","status":0,"clique_id":4026,"cluster_uuid":"9c6f5af3-53bf-49b5-a436-b66766c413c3","health_mask":0},{"state":"in_progress"},{"imex_channels":2,"imex_channels_truncated":false}]' \
        "/v1/devices: each GPU's NVLink fabric registration and the node's IMEX channel count"
is "$(jq -c '[.devices[0].readings.fabric, .host.fabric]' "$TMP/devices.json")" '[null,null]' \
        "/v1/devices: no fabric keys where nothing reported them"
is "$(jq -c '[.status, [.devices[].state], [.backends[] | [.name, .up]]]' "$TMP/health.json")" \
        '["unhealthy",["healthy","degraded","unhealthy","degraded"],[["nvml",true],["amdgpu_sysfs",false]]]' \
        "/v1/health: worst state, each device's state, each backend"
is "$(jq -c '[.api, .drivers.nvidia.version, .drivers.amd.version, .backends]' "$TMP/version.json")" \
        '["v1","550.54.15","6.3.6",["nvml","amdgpu_sysfs"]]' "/v1/version"
is "$(jq -c '[.events, .dropped]' "$TMP/events.json")" '[[],0]' "/v1/events of a snapshot without events"
is "$(jq -c '[.devices[] | .workloads | map([.pod, .resource, .claim])]' "$TMP/devices-workloads.json")" \
        '[[["notebook-1","nvidia.com/gpu.shared",null],["notebook-2","nvidia.com/gpu.shared",null]],[["train-0","gpu.nvidia.com","ml/train-0-gpu"]],[],[]]' \
        "/v1/devices: each GPU's workloads (claim null for a device plugin, [] when none)"

e2e_done
