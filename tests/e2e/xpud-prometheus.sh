#!/bin/sh
# shellcheck disable=SC2016
# xpud scraped by a real Prometheus server: build/xpud serves an 8-GPU fake amdgpu tree
# (tests/rocm/mkamdsys.sh -n 8, a different VRAM size per GPU) on its UNIX socket and, with
# --listen-tcp 127.0.0.1:PORT, /metrics on loopback TCP; Prometheus 2.42 (Debian package
# `prometheus`; it cannot scrape a UNIX socket) runs on loopback with a private configuration
# (scrape every 1 s) and storage directory; through its HTTP API the test checks that the target is
# up without a scrape error, that every sample of the body was ingested, and that the PromQL query
# xpu_memory_total_bytes returns one series per device with that device's VRAM size in bytes and
# its identity labels. Everything started is stopped; nothing is left running or on disk.
# SC2016: jq programs are single-quoted on purpose.
#
# Needs prometheus, curl, jq and python3 (a free port): installed when missing (as root;
# prometheus through packaging/install-deps.sh, which keeps Debian from starting its service on
# port 9090); failing that is a failure (Bail out), never a skip. Prints TAP.
. "$(dirname "$0")/lib.sh"

SRC=${XPU_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
XPUD=${XPU_BUILD:-$SRC/build}/xpud
GPUS=8
# VRAM per GPU: (i + 1) * 8 GiB, so a value that lands on the wrong device shows.
VRAM="8589934592,17179869184,25769803776,34359738368,42949672960,51539607552,60129542144,68719476736"
TMP=
XPID=
PPID_PROM=



# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
        [ -z "$PPID_PROM" ] || stop_pid "$PPID_PROM" || true
        [ -z "$XPID" ] || stop_pid "$XPID" || true
        [ -z "$TMP" ] || rm -rf "$TMP"
}

[ -x "$XPUD" ] || bail "$XPUD is not built (make build-tests)"
need_pkgs prometheus curl jq python3
diag "$(prometheus --version 2>&1 | head -n 1)"

TMP=$(mktemp -d /tmp/xpud-prometheus.XXXXXX) || bail "mktemp failed"
trap cleanup EXIT
trap 'exit 130' INT TERM

# free_port: a TCP port on 127.0.0.1 that nobody listens on right now.
free_port() {
        python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_http URL: until it answers 200 (30 s), else 1.
wait_http() {
        i=0
        while [ "$i" -lt 300 ]; do
                [ "$(curl -s -o /dev/null -w '%{http_code}' "$1")" = 200 ] && return 0
                i=$((i + 1))
                sleep 0.1
        done
        return 1
}

# query PROMQL: the JSON answer of Prometheus's instant query API in $TMP/q.json.
query() {
        curl -s -G --data-urlencode "query=$1" "http://127.0.0.1:$PROM_PORT/api/v1/query" >"$TMP/q.json"
}

# ---- xpud on the fake tree, with the TCP listener --------------------------------------------
sh "$SRC/tests/rocm/mkamdsys.sh" -o "$TMP/amd" -n "$GPUS" --vram-total "$VRAM" >/dev/null ||
        bail "tests/rocm/mkamdsys.sh failed"
XPUD_PORT=$(free_port) || bail "no free port"
"$XPUD" --socket "$TMP/xpud.sock" --listen-tcp "127.0.0.1:$XPUD_PORT" --interval 1 \
        --sys-root "$TMP/amd" --dev-root "$TMP/amd" --driver-root "$TMP/amd" 2>"$TMP/xpud.log" &
XPID=$!
if wait_http "http://127.0.0.1:$XPUD_PORT/metrics"; then
        ok "xpud serves /metrics on 127.0.0.1:$XPUD_PORT (--listen-tcp)"
else
        diag_file "$TMP/xpud.log"
        bail "xpud does not serve /metrics on 127.0.0.1:$XPUD_PORT"
fi
curl -s "http://127.0.0.1:$XPUD_PORT/metrics" >"$TMP/body.prom"
samples=$(grep -vc '^#' "$TMP/body.prom")
is "$(grep -c '^xpu_memory_total_bytes{' "$TMP/body.prom")" "$GPUS" "the body xpud serves has one xpu_memory_total_bytes per GPU"

# ---- Prometheus on loopback, private configuration and storage -------------------------------
PROM_PORT=$(free_port) || bail "no free port"
cat >"$TMP/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: xpud
    static_configs:
      - targets: ['127.0.0.1:$XPUD_PORT']
EOF
prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/data" \
        --web.listen-address="127.0.0.1:$PROM_PORT" --log.level=warn >"$TMP/prometheus.log" 2>&1 &
PPID_PROM=$!
if wait_http "http://127.0.0.1:$PROM_PORT/-/ready"; then
        ok "Prometheus is ready on 127.0.0.1:$PROM_PORT"
else
        diag_file "$TMP/prometheus.log"
        bail "Prometheus did not become ready"
fi

# Until the target has been scraped and every device's series is there (30 s).
i=0
n=0
while [ "$i" -lt 60 ]; do
        query 'xpu_memory_total_bytes'
        n=$(jq '.data.result | length' "$TMP/q.json" 2>/dev/null || echo 0)
        [ "$n" = "$GPUS" ] && break
        i=$((i + 1))
        sleep 0.5
done
is "$(jq -r .status "$TMP/q.json")" success "the query xpu_memory_total_bytes succeeds"
is "$n" "$GPUS" "xpu_memory_total_bytes returns one series per device ($GPUS)"

# Each device: its value and its identity labels (mkamdsys.sh: card i at bus 0x0c + 0x10 * i,
# unique id 5a1e0000c0ffee0<i>).
g=0
for want in $(echo "$VRAM" | tr ',' ' '); do
        bus=$(printf '%02x' $((0x0c + 16 * g)))
        got=$(jq -r --arg g "$g" '.data.result[] | select(.metric.gpu == $g) |
                [.metric.vendor, .metric.uuid, .metric.pci_bus_id, .metric.job, .metric.instance, .value[1]] | join(" ")' \
                "$TMP/q.json")
        is "$got" "amd GPU-5a1e0000c0ffee0$g 0000:$bus:00.0 xpud 127.0.0.1:$XPUD_PORT $want" \
                "gpu $g: xpu_memory_total_bytes $want with its vendor, uuid and pci_bus_id"
        g=$((g + 1))
done

query 'sum(xpu_memory_total_bytes)'
is "$(jq -r '.data.result[0].value[1]' "$TMP/q.json")" 309237645312 "sum(xpu_memory_total_bytes) is 288 GiB"
query 'count(xpu_up == 1)'
is "$(jq -r '.data.result[0].value[1]' "$TMP/q.json")" "$GPUS" "every device has xpu_up 1"
query 'xpu_temperature_celsius{gpu="0",sensor="edge"}'
is "$(jq -r '.data.result[0].value[1]' "$TMP/q.json")" 41 "41000 millidegrees in hwmon are xpu_temperature_celsius 41"

# The scrape itself: up, no error, every sample of the body ingested.
query 'up{job="xpud"}'
is "$(jq -r '.data.result[0].value[1]' "$TMP/q.json")" 1 "up{job=\"xpud\"} is 1"
curl -s "http://127.0.0.1:$PROM_PORT/api/v1/targets" >"$TMP/targets.json"
is "$(jq -r '.data.activeTargets[] | select(.labels.job == "xpud") | "\(.health) \(.lastError)"' "$TMP/targets.json")" \
        "up " "the target's health is up with no last error"
query 'scrape_samples_scraped{job="xpud"}'
is "$(jq -r '.data.result[0].value[1]' "$TMP/q.json")" "$samples" \
        "Prometheus scraped as many samples as the body has ($samples)"
query 'scrape_samples_post_metric_relabeling{job="xpud"}'
is "$(jq -r '.data.result[0].value[1]' "$TMP/q.json")" "$samples" "and kept them all"
# Prometheus's own counters of rejected samples (its /metrics; it does not scrape itself here).
curl -s "http://127.0.0.1:$PROM_PORT/metrics" >"$TMP/prom-self.prom"
rejected=$(awk '/^prometheus_target_scrapes_(sample_duplicate_timestamp|sample_out_of_order|sample_out_of_bounds|exemplar_out_of_order)_total / { s += $2; n++ }
        END { print (n == 4 ? s : "missing") }' "$TMP/prom-self.prom")
is "$rejected" 0 "Prometheus rejected no sample (duplicate timestamp, out of order, out of bounds)"

# ---- stop everything ---------------------------------------------------------------------------
st=0
stop_pid "$PPID_PROM" || st=$?
is "$st" 0 "Prometheus exits 0 on SIGTERM"
if kill -0 "$PPID_PROM" 2>/dev/null; then not_ok "Prometheus is gone"; else ok "Prometheus is gone"; fi
PPID_PROM=
st=0
stop_pid "$XPID" || st=$?
is "$st" 0 "xpud exits 0 on SIGTERM"
if kill -0 "$XPID" 2>/dev/null; then not_ok "xpud is gone"; else ok "xpud is gone"; fi
XPID=
if [ -e "$TMP/xpud.sock" ]; then not_ok "xpud removed its socket"; else ok "xpud removed its socket"; fi
if curl -s -o /dev/null "http://127.0.0.1:$XPUD_PORT/metrics"; then
        not_ok "nothing listens on 127.0.0.1:$XPUD_PORT any more"
else
        ok "nothing listens on 127.0.0.1:$XPUD_PORT any more"
fi
e2e_done
