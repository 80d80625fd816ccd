#!/bin/sh
# shellcheck disable=SC2016
# Checks of the Grafana dashboard examples/grafana/xpu-overview.json (make check-dashboard; make
# check runs it too, through tests/run-tests.sh):
#   1. Grafana's published schema types (the npm package @grafana/schema, pinned in
#      package-lock.json): dashboard.mjs writes the dashboard as one typed TypeScript constant,
#      each panel's options and custom field config typed by its panel plugin's Options and
#      FieldConfig, and `tsc --strict` checks it (unknown and misspelled fields, values outside an
#      enum, wrong types); dashboard.mjs also checks what types cannot say (unique panel ids, the
#      24-column grid without overlaps, every target a PromQL expr with its own refId, the
#      ${datasource} variable everywhere, no undefined $variable);
#   2. a broken copy for each kind of mistake must be rejected by the check that catches it;
#   3. every query evaluated by a real Prometheus (Debian `prometheus`, private port,
#      configuration and storage, scraping every second) that scrapes build/xpud serving a fake
#      host (8 NVIDIA GPUs behind the fake NVML, 2 AMD GPUs in a fake sysfs with PCIe link files,
#      ECC, memory repair, clock-event readings and thermal limits, one Xid in the kernel log, two
#      pods holding GPUs through a fake kubelet (tests/e2e/fake-kubelet.py); Prometheus loads the
#      alerting rules, so the application Xid fires an alert for the "Firing alerts" panel): with the template
#      variables replaced ($instance, $vendor, $gpu = .*, $job = xpud, $__rate_interval = 1m), each
#      instant query must return data, the per-pod panels' (xpu_workload_info) and the
#      temperature limits' included.
# npm ci runs in a scratch copy of this directory with a scratch npm cache (XPU_NPM_CACHE names
# one to keep): nothing is written into the source tree. Needs root (the NVML helper switches to
# nobody), node and npm with the registry reachable, prometheus, curl, jq, python3 (a free port);
# python3-grpcio and python3-grpc-tools (the fake kubelet); without them it fails, never skips. Prints TAP.
# SC2016: jq programs and PromQL are single-quoted on purpose.
. "$(dirname "$0")/../e2e/lib.sh"

SRC=${XPU_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
export XPU_SRCDIR="$SRC"
XPU_BUILD=${XPU_BUILD:-$SRC/build}
export XPU_BUILD
DASH=$SRC/examples/grafana/xpu-overview.json
XPUD=$XPU_BUILD/xpud
FIXTURE=$SRC/tests/fixtures/hosts/nvidia-rtx2080ti-x8
TAB=$(printf '\t')
# The per-pod panels need xpu_workload_info: xpud asks a fake kubelet (tests/e2e/fake-kubelet.py,
# Debian's python3-grpcio) that gives two pods GPUs of the fixture (tests/fixtures/kubelet/).
KPID=
xpud_prestart() {
        /usr/bin/python3 "$SRC/tests/e2e/fake-kubelet.py" "$T/kubelet.sock" \
                "$SRC/tests/fixtures/kubelet/nvidia-rtx2080ti-x8.json" --ready "$T/kubelet.ready" \
                >"$T/kubelet.log" 2>&1 &
        KPID=$!
        i=0
        while [ ! -f "$T/kubelet.ready" ] && [ "$i" -lt 300 ] && kill -0 "$KPID" 2>/dev/null; do
                i=$((i + 1))
                sleep 0.1
        done
        [ -f "$T/kubelet.ready" ] || { diag_file "$T/kubelet.log"; bail "the fake kubelet did not start"; }
}

T=
XPID=
PROM=
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
        [ -z "$PROM" ] || stop_pid "$PROM" || true
        [ -z "$KPID" ] || stop_pid "$KPID" || true
        [ -z "$XPID" ] || stop_pid "$XPID" || true
        [ -z "$T" ] || rm -rf "$T"
}

[ "$(id -u)" -eq 0 ] || bail "dashboard.sh must run as root (the NVML helper switches to nobody)"
need_tools node npm
need_pkgs prometheus curl jq python3 python3-grpcio python3-grpc-tools
[ -x "$XPUD" ] || bail "$XPUD is not built (make build-tests)"
[ -f "$XPU_BUILD/tests/shims/libnvidia-ml.so.shim" ] || bail "the fake NVML is missing (make build-tests)"
T=$(mktemp -d /tmp/xpu-dashboard.XXXXXX) || bail "mktemp failed"
trap cleanup EXIT
trap 'exit 130' INT TERM
chmod 0755 "$T"

# ---- the schema types ------------------------------------------------------------------------------
cp -R "$SRC/tests/grafana" "$T/g" || bail "cannot copy tests/grafana"
rm -rf "$T/g/node_modules" "$T/g/check"
npm_config_cache=${XPU_NPM_CACHE:-$T/npm-cache}
export npm_config_cache
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
if (cd "$T/g" && npm ci --no-audit --no-fund) >"$T/npm.log" 2>&1; then
        v=$(jq -r '.packages["node_modules/@grafana/schema"].version' "$T/g/package-lock.json")
        ok "npm ci installs @grafana/schema $v and typescript (node $(node --version))"
else
        not_ok "npm ci installs the pinned packages (tests/grafana/package-lock.json)"
        grep -v 'EBADENGINE' "$T/npm.log" | head -n 30 | sed 's/^/# /'
        e2e_done
fi

# check FILE DIR: dashboard.mjs's checks of FILE into DIR (verdicts in DIR/verdicts), then tsc;
# sets TSC (its exit status) and leaves its messages in DIR/tsc.out.
check() {
        rm -rf "$2"
        mkdir -p "$2"
        node "$T/g/dashboard.mjs" "$1" "$2" >"$2/verdicts" 2>"$2/mjs.err" ||
                echo "fail${TAB}dashboard.mjs runs${TAB}$(head -c 300 "$2/mjs.err")" >>"$2/verdicts"
        ln -s "$T/g/node_modules" "$2/node_modules"
        cp "$T/g/package.json" "$2/"
        (cd "$2" && node node_modules/typescript/bin/tsc -p .) >"$2/tsc.out" 2>&1
        TSC=$?
}

check "$DASH" "$T/check"
what="xpu-overview.json is a Dashboard of @grafana/schema, each panel's options its plugin's Options (tsc --strict)"
if [ "$TSC" -eq 0 ]; then
        ok "$what"
else
        not_ok "$what"
        head -n 20 "$T/check/tsc.out" | cut -c1-400 | sed 's/^/# /'
fi
while IFS=$TAB read -r status what detail; do
        if [ "$status" = ok ]; then
                ok "xpu-overview.json: $what${detail:+ ($detail)}"
        else
                not_ok "xpu-overview.json: $what"
                diag "$detail"
        fi
done <"$T/check/verdicts"

# ---- broken copies -----------------------------------------------------------------------------------
# JQ <tab> CAUGHT BY ("tsc" or the start of a runtime check) <tab> WHAT
cat >"$T/broken.tsv" <<'EOF'
.panels[1].titel = "GPUs"	tsc	unknown field: a panel's title spelled titel
.panels[1].options.colorMode = "bakground"	tsc	wrong enum: a stat panel's colorMode
(.panels[] | select(.type == "timeseries") | .fieldConfig.defaults.custom.drawStyle) |= "lines"	tsc	wrong enum: a time series' drawStyle
(.panels[] | select(.type == "timeseries") | .options.legend) |= del(.placement)	tsc	missing field: a legend's placement
.templating.list[2].type = "qeury"	tsc	wrong enum: a variable's type
.graphTooltip = "1"	tsc	wrong type: graphTooltip as a string
.panels[2].id = .panels[1].id	every panel has an id	two panels with one id
.panels[1].gridPos.x = 22	every panel lies within	a panel past the 24th column
.panels[2].gridPos.x = 0	every panel lies within	two panels overlapping
.panels[1].datasource.uid = "prometheus-1"	every panel and target	a data source uid written in, not ${datasource}
.panels[1].targets[0].expr = ""	every panel and target	a target without PromQL
.panels[1].targets[0].expr |= sub("\\$instance"; "$node")	every panel and target	a query naming an undefined variable
EOF
n=0
while IFS=$TAB read -r filter by what; do
        n=$((n + 1))
        if ! jq "$filter" "$DASH" >"$T/broken-$n.json" 2>"$T/jq.err"; then
                not_ok "broken copy $n ($what) could not be made"
                diag_file "$T/jq.err"
                continue
        fi
        check "$T/broken-$n.json" "$T/broken-$n"
        if [ "$by" = tsc ]; then
                if [ "$TSC" -ne 0 ]; then
                        ok "broken copy ($what): rejected by tsc"
                        grep -m 1 'error TS' "$T/broken-$n/tsc.out" | cut -c1-200 | sed 's/^/# /'
                else
                        not_ok "broken copy ($what): rejected by tsc"
                fi
        else
                v=$(B=$by awk -F '\t' 'index($2, ENVIRON["B"]) == 1 { print $1; exit }' "$T/broken-$n/verdicts")
                if [ "$v" = fail ]; then
                        ok "broken copy ($what): rejected by the check \"$by...\""
                else
                        not_ok "broken copy ($what): rejected by the check \"$by...\""
                        diag "got: ${v:-no such check}"
                fi
        fi
done <"$T/broken.tsv"

# ---- every query against a real Prometheus scraping xpud -----------------------------------------------
HOST=$T/host
e2e_mixed_host "$FIXTURE" "$HOST" "$T/amd" -n 2 --busy 25,0
for bus in 0c 1c; do
        d=$HOST/sys/bus/pci/devices/0000:$bus:00.0
        printf '16\n' >"$d/current_link_width"
        printf '16\n' >"$d/max_link_width"
        printf '2.5 GT/s PCIe\n' >"$d/current_link_speed"
        printf '16.0 GT/s PCIe\n' >"$d/max_link_speed"
done
# NVIDIA readings (the capture holds names, UUIDs and bus ids), and ECC counts, clock event reasons
# and memory repair, which a datacenter GPU reports.
for g in 0 1 2 3 4 5 6 7; do
        printf 'device.%s.%s\n' "$g" "power_usage_mw $((200000 + 1000 * g))" "$g" "power_limit_mw 250000" \
                "$g" "temperature $((40 + g))" "$g" "util_gpu $((10 * g))" "$g" "util_memory $((5 * g))" \
                "$g" "memory_total 11811160064" "$g" "memory_used 524288000" "$g" "clock_sm_mhz 1350" \
                "$g" "clock_mem_mhz 7000" "$g" "energy_mj 123456789" "$g" "ecc_corrected $g" "$g" "ecc_uncorrected 0" \
                "$g" "clock_event_reasons 0" "$g" "temp_slowdown 87" "$g" "temp_shutdown 92" >>"$HOST/xpu-fake-state"
done
printf 'device.4.remap 3 0 0 0\ndevice.7.retired 2 0 0\n' >>"$HOST/xpu-fake-state"
chmod -R a+rX "$HOST"
printf '%s\n' '4,2104,7310000002,-;NVRM: Xid (PCI:0000:1b:00): 13, pid=8812, name=train.py, Graphics Exception: ESR 0x505648=0x1000e' \
        >"$T/kmsg"
xpud_prestart
free_port() {
        python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
XPORT=$(free_port) || bail "no free port"
timeout -k 5 300 "$XPUD" --socket "$T/xpud.sock" --listen-tcp "127.0.0.1:$XPORT" --interval 1 --vendor-timeout 2 \
        --sys-root "$HOST" --dev-root "$HOST" --driver-root "$HOST" --kmsg "$T/kmsg" --pod-resources "$T/kubelet.sock" 2>"$T/xpud.log" &
XPID=$!
PPORT=$(free_port) || bail "no free port"
cat >"$T/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - $SRC/examples/prometheus/xpu-alerts.yaml
scrape_configs:
  - job_name: xpud
    static_configs:
      - targets: ['127.0.0.1:$XPORT']
EOF
prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/data" \
        --web.listen-address="127.0.0.1:$PPORT" --log.level=warn >"$T/prometheus.log" 2>&1 &
PROM=$!

# query PROMQL: the instant query's answer in $T/q.json.
query() {
        curl -s --max-time 10 -G --data-urlencode "query=$1" "http://127.0.0.1:$PPORT/api/v1/query" >"$T/q.json"
}
# Until every GPU's series is in and rates have samples to work on (4 scrapes of xpud), 40 s.
i=0
while [ "$i" -lt 200 ]; do
        query 'count(count_over_time(xpu_info{job="xpud"}[1m]) >= 4)'
        [ "$(jq -r '.data.result[0].value[1] // 0' "$T/q.json" 2>/dev/null)" = 10 ] && break
        i=$((i + 1))
        sleep 0.2
done
if [ "$i" -lt 200 ]; then
        ok "Prometheus has scraped xpud (10 GPUs) at least 4 times"
else
        not_ok "Prometheus has scraped xpud (10 GPUs) at least 4 times"
        diag_file "$T/xpud.log"
        diag_file "$T/prometheus.log"
        e2e_done
fi
while IFS=$TAB read -r id title ref kind expr; do
        query "$expr"
        status=$(jq -r '.status // "no answer"' "$T/q.json" 2>/dev/null)
        n=$(jq '.data.result | length' "$T/q.json" 2>/dev/null)
        name="panel $id \"$title\" $ref"
        [ "$kind" = variable ] && name=$title
        if [ "$status" != success ]; then
                not_ok "$name: Prometheus evaluates the query"
                diag "$expr" "$(jq -r '.error // empty' "$T/q.json" 2>/dev/null)"
                continue
        fi
        if [ "${n:-0}" -gt 0 ]; then
                ok "$name returns data ($n series)"
        else
                not_ok "$name returns data"
                diag "$expr"
        fi
done <"$T/check/queries.tsv"
is "$(grep -vc "${TAB}variable${TAB}" "$T/check/queries.tsv")" \
        "$(jq '[.panels[] | select(.type != "row") | .targets[]] | length' "$DASH")" \
        "every query of every panel, the per-pod ones and the temperature limits too, was required to return data"

st=0
stop_pid "$PROM" || st=$?
PROM=
is "$st" 0 "Prometheus exits 0 on SIGTERM"
st=0
stop_pid "$XPID" || st=$?
XPID=
is "$st" 0 "xpud exits 0 on SIGTERM"
e2e_done
