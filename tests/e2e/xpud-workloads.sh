#!/bin/sh
# shellcheck disable=SC2016
# Which pod uses which GPU, end to end: build/xpud on the NVIDIA (nvidia-rtx2080ti-x8), AMD
# (amd-mi210x8) and Intel (intel-max1550-x6-aurora) fixture hosts, asking a real gRPC peer: the
# fake kubelet (tests/e2e/fake-kubelet.py, Debian's python3-grpcio) serving the answers of
# tests/fixtures/kubelet/. Checked: device-plugin ids of each vendor (GPU UUIDs and time-slicing
# replicas, PCI bus ids, shared Intel cards) and a DRA claim resolved through a CDI spec in a
# temporary --cdi-spec-dirs (numbers in the spec, and a node given by path only, numbers from
# --dev-root), a spec added while xpud runs; ids of another node counted, never guessed; pods
# coming and going; --workload-labels; a slow kubelet (answers after the deadline), a killed and
# restarted one, garbage replies: /metrics and /v1/devices answer at once and keep the last
# workloads with xpud_pod_resources_up 0, and it comes back; at most one List per sample (the
# fake's --calls log against xpud's sample count); xpud stops promptly while a call hangs.
# SC2016: jq programs are single-quoted on purpose.
#
# Needs root (mknod for the dev roots), curl, jq, and /usr/bin/python3 with python3-grpcio and
# python3-grpc-tools (installed when missing through packaging/install-deps.sh; failing that is a
# failure, never a skip). Prints TAP.

# shellcheck source=tests/e2e/lib.sh
. "${XPU_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/e2e/lib.sh"

SRC=${XPU_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
XPUD="${XPU_BUILD:-$SRC/build}/xpud"
HOSTS="$SRC/tests/fixtures/hosts"
ANSWERS="$SRC/tests/fixtures/kubelet"
FAKE="$SRC/tests/e2e/fake-kubelet.py"
T=
XPID=
KPID=

# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
        for p in $XPID $KPID; do
                kill -KILL "$p" 2>/dev/null
        done
        [ -n "$T" ] && rm -rf "$T"
}

[ "$(id -u)" -eq 0 ] || bail "xpud-workloads must run as root (mknod for the dev roots)"
need_tools curl jq
need_pkgs python3-grpcio python3-grpc-tools
/usr/bin/python3 -c 'import grpc, grpc_tools' 2>/dev/null || bail "/usr/bin/python3 cannot import grpc and grpc_tools"
[ -x "$XPUD" ] || bail "$XPUD is missing (make build-tests; XPU_BUILD set by tests/run-tests.sh)"
[ -f "$FAKE" ] || bail "$FAKE is missing"
T=$(mktemp -d /tmp/xpud-workloads.XXXXXX) || bail "mktemp failed"
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$T/cdi"

# ---- helpers ------------------------------------------------------------------------------------

# state FILE [JQ FILTER]: make FILE (of tests/fixtures/kubelet/, or a path) through FILTER the
# fake kubelet's state, atomically (it reads the state at every call).
state() {
        src=$1
        [ -f "$src" ] || src="$ANSWERS/$1"
        jq "${2:-.}" "$src" >"$T/state.json.tmp" || bail "cannot write the state from $1"
        mv "$T/state.json.tmp" "$T/state.json"
}

# kubelet: start the fake kubelet on $T/kubelet.sock; KPID its pid. Fails the script when it is
# not listening within 30 s (it generates its stubs with protoc first).
kubelet() {
        rm -f "$T/ready"
        /usr/bin/python3 "$FAKE" "$T/kubelet.sock" "$T/state.json" --calls "$T/calls" --ready "$T/ready" \
                >"$T/kubelet.out" 2>"$T/kubelet.err" &
        KPID=$!
        i=0
        while [ ! -f "$T/ready" ] && [ $i -lt 300 ]; do
                kill -0 "$KPID" 2>/dev/null || break
                i=$((i + 1))
                sleep 0.1
        done
        if [ ! -f "$T/ready" ]; then
                diag_file "$T/kubelet.err"
                bail "the fake kubelet did not start"
        fi
}

kubelet_stop() {
        kill -"${1:-TERM}" "$KPID" 2>/dev/null
        wait "$KPID" 2>/dev/null
        KPID=
}

# xpud HOST [ARGS...]: xpud on fixture HOST asking the fake kubelet (stderr in $T/xpud.log);
# XPID its pid. Bails unless /healthz answers within 15 s.
xpud() {
        host=$HOSTS/$1
        shift
        rm -rf "$T/devroot"
        sh "$SRC/tests/fixtures/mkdevroot.sh" "$host" "$T/devroot" >/dev/null 2>&1 || bail "mkdevroot.sh $host failed"
        timeout -k 5 300 "$XPUD" --socket "$T/xpud.sock" --sys-root "$host" --dev-root "$T/devroot" \
                --driver-root "$host" --interval 1 --kmsg none --pod-resources "$T/kubelet.sock" \
                --cdi-spec-dirs "$T/none,$T/cdi" -v "$@" 2>"$T/xpud.log" &
        XPID=$!
        i=0
        while [ $i -lt 150 ]; do
                [ "$(curl -s -o /dev/null -w '%{http_code}' --unix-socket "$T/xpud.sock" http://xpud/healthz)" = 200 ] &&
                        return 0
                i=$((i + 1))
                sleep 0.1
        done
        diag_file "$T/xpud.log"
        bail "xpud did not answer /healthz on $host"
}

# xpud_stop: SIGTERM; XRC its exit status, XSECS the seconds it took (124: killed after 10 s).
xpud_stop() {
        start=$(date +%s)
        kill -TERM "$XPID" 2>/dev/null
        i=0
        while kill -0 "$XPID" 2>/dev/null && [ $i -lt 100 ]; do
                i=$((i + 1))
                sleep 0.1
        done
        if kill -0 "$XPID" 2>/dev/null; then
                kill -KILL "$XPID"
                wait "$XPID" 2>/dev/null
                XRC=124
        else
                wait "$XPID"
                XRC=$?
        fi
        XSECS=$(($(date +%s) - start))
        XPID=
}

# get PATH: the body into $T/body within 2 s; CODE the status ("000" when it took longer).
get() {
        CODE=$(curl -s -o "$T/body" -w '%{http_code}' --max-time 2 --unix-socket "$T/xpud.sock" "http://xpud$1")
}

# wait_metric REGEX SECONDS: until /metrics has a line matching REGEX; 1 on timeout.
wait_metric() {
        i=0
        while [ $i -lt $(($2 * 10)) ]; do
                get /metrics
                grep -Eq -- "$1" "$T/body" && return 0
                i=$((i + 1))
                sleep 0.1
        done
        return 1
}

# workloads: "gpu pod container resource claim" of every xpu_workload_info line, sorted, one per line.
workloads() {
        get /metrics
        sed -n 's/^xpu_workload_info{\(.*\)} 1$/\1/p' "$T/body" | awk -F'",' '{
                delete v
                for (i = 1; i <= NF; i++) { split($i, kv, "=\""); sub(/"$/, "", kv[2]); v[kv[1]] = kv[2] }
                printf "%s %s %s %s %s\n", v["gpu"], v["pod"], v["container"], v["resource"], ("claim" in v) ? v["claim"] : "-"
        }' | sort
}

# gpu_of UUID|BUS: the gpu label of that device in /v1/devices.
gpu_of() {
        get /v1/devices
        jq -r --arg k "$1" '.devices[] | select(.uuid == $k or .pci_bus_id == $k) | .index' "$T/body"
}

metric() {
        get /metrics
        sed -n "s/^$1 //p" "$T/body"
}

# ---- NVIDIA device plugin: GPU UUIDs, replicas, another node's UUID ------------------------------
state nvidia-rtx2080ti-x8.json
kubelet
xpud nvidia-rtx2080ti-x8
if wait_metric '^xpu_workload_info\{' 10; then
        ok "xpu_workload_info appears on the NVIDIA host"
else
        not_ok "xpu_workload_info appears on the NVIDIA host"
        diag_file "$T/xpud.log"
fi
g0=$(gpu_of GPU-307dcc96-618a-4416-c1ef-87823c2e1a31)
g1=$(gpu_of GPU-e28db54c-aa74-5e20-7e8d-5db5f78f12fe)
g2=$(gpu_of GPU-00cead84-aab2-a1c2-3d21-53e6a83b2a35)
is "$(workloads | tr '\n' ';')" \
        "$(printf '%s\n' "$g0 train-0 main nvidia.com/gpu -" "$g1 train-0 main nvidia.com/gpu -" \
                "$g2 notebook-1 jupyter nvidia.com/gpu.shared -" "$g2 notebook-2 jupyter nvidia.com/gpu.shared -" |
                sort | tr '\n' ';')" \
        "NVIDIA: GPU UUIDs and time-slicing replicas name their GPUs; the sidecar without devices and the CPU-only pod hold none"
is "$(metric xpud_workload_unmatched_ids)" 1 "NVIDIA: another node's UUID is counted, not guessed"
is "$(metric xpud_pod_resources_up)" 1 "xpud_pod_resources_up 1 while the kubelet answers"
like "$T/xpud.log" "1 device id\(s\) name no GPU of this node \(first: nvidia.com/gpu id GPU-00000000" \
        "the unmatched id is logged, naming it"
get /v1/devices
is "$(jq -c --argjson g "$g2" '.devices[] | select(.index == $g) | .workloads' "$T/body")" \
        '[{"namespace":"ml","pod":"notebook-1","container":"jupyter","resource":"nvidia.com/gpu.shared","claim":null},{"namespace":"ml","pod":"notebook-2","container":"jupyter","resource":"nvidia.com/gpu.shared","claim":null}]' \
        "/v1/devices: the shared GPU's workloads"
get "/v1/devices/$g0"
is "$(jq -c '.workloads | map(.pod)' "$T/body")" '["train-0"]' "/v1/devices/{index}: its workloads"
"$XPUD" query --socket "$T/xpud.sock" "/v1/devices/$g1" >"$T/query.out" 2>&1
like "$T/query.out" '"workloads":\[\{"namespace":"ml","pod":"train-0"' "xpud query /v1/devices/{index} prints the workloads"

# Pods coming and going: train-0 ends, train-9 starts on its first GPU.
state nvidia-rtx2080ti-x8.json '.pods |= map(select(.name != "train-0")) + [{"namespace": "ml", "name": "train-9",
        "containers": [{"name": "main", "devices": [{"resource": "nvidia.com/gpu",
        "ids": ["GPU-307dcc96-618a-4416-c1ef-87823c2e1a31"]}]}]}]'
if wait_metric 'pod="train-9"' 10; then ok "a new pod appears within a few samples"; else not_ok "a new pod appears"; fi
is "$(workloads | grep -c train-0)" 0 "the pod that ended is gone"

# A slow kubelet: every answer after the deadline. Requests answer at once, the last workloads stay.
state nvidia-rtx2080ti-x8.json '.pods |= map(select(.name != "train-0")) + [{"namespace": "ml", "name": "train-9",
        "containers": [{"name": "main", "devices": [{"resource": "nvidia.com/gpu",
        "ids": ["GPU-307dcc96-618a-4416-c1ef-87823c2e1a31"]}]}]}] | .mode = "slow" | .delay_s = 4'
if wait_metric '^xpud_pod_resources_up 0$' 15; then ok "a slow kubelet: xpud_pod_resources_up 0"; else not_ok "a slow kubelet: xpud_pod_resources_up 0"; fi
slow=0
for _ in 1 2 3 4 5 6 7 8 9 10; do
        get /metrics
        [ "$CODE" = 200 ] || slow=$((slow + 1))
        get /v1/devices
        [ "$CODE" = 200 ] || slow=$((slow + 1))
        sleep 0.2
done
is "$slow" 0 "a slow kubelet: /metrics and /v1/devices answer within 2 s every time"
is "$(workloads | grep -c train-9)" 1 "a slow kubelet: the last workloads are kept"
a1=$(metric xpud_pod_resources_age_seconds)
sleep 2
a2=$(metric xpud_pod_resources_age_seconds)
is "$(awk -v a="$a1" -v b="$a2" 'BEGIN { print (b > a && b >= 2) ? "older" : a " then " b }')" older \
        "a slow kubelet: the answer in use ages (xpud_pod_resources_age_seconds)"
e1=$(metric xpud_pod_resources_errors_total)
is "$(awk -v e="$e1" 'BEGIN { print (e >= 1) ? "counted" : e }')" counted "a slow kubelet: the deadline misses are counted"
is "$(grep -c 'pod-resources: .*keeping the last answer' "$T/xpud.log")" 1 "the error is logged once, not every sample"

# Killed, then restarted.
state nvidia-rtx2080ti-x8.json
kubelet_stop KILL
sleep 3
is "$(metric xpud_pod_resources_up)" 0 "a killed kubelet: xpud_pod_resources_up 0"
is "$(workloads | grep -c train-9)" 1 "a killed kubelet: the last workloads are kept"
kubelet
if wait_metric 'pod="train-0"' 15; then ok "a restarted kubelet: the answer is current again"; else not_ok "a restarted kubelet: the answer is current again"; fi
is "$(metric xpud_pod_resources_up)" 1 "a restarted kubelet: xpud_pod_resources_up 1"
like "$T/xpud.log" "pod-resources: .* answers again" "its return is logged"

# Garbage: bytes that are not a ListPodResourcesResponse.
state nvidia-rtx2080ti-x8.json '.mode = "garbage"'
if wait_metric '^xpud_pod_resources_up 0$' 10; then ok "garbage replies: xpud_pod_resources_up 0"; else not_ok "garbage replies: xpud_pod_resources_up 0"; fi
is "$(workloads | grep -c train-0)" 2 "garbage replies: the last workloads are kept"
state nvidia-rtx2080ti-x8.json '.mode = "huge"'
sleep 3
get /metrics
is "$CODE" 200 "a reply over the limit: /metrics still answers"
is "$(workloads | grep -c train-0)" 2 "a reply over the limit: the last workloads are kept"

# At most one List per sample.
get /v1/devices
seq=$(jq .seq "$T/body")
calls=$(grep -c '^List' "$T/calls")
is "$(awk -v c="$calls" -v s="$seq" 'BEGIN { print (c >= 1 && c <= s) ? "ok" : c " calls for " s " samples" }')" ok \
        "at most one List call per sample ($calls calls, $seq samples)"
like "$T/calls" "user-agent=xpud" "the calls carry xpud's user agent"

# Stops promptly while a call hangs.
state nvidia-rtx2080ti-x8.json '.mode = "hang"'
sleep 2
xpud_stop
is "$XRC" 0 "xpud exits 0 at SIGTERM while a List call hangs"
is "$(awk -v s="$XSECS" 'BEGIN { print (s <= 4) ? "prompt" : s " s" }')" prompt "and within the call's deadline"

# ---- DRA: a claim's CDI devices, numbers from the spec or from the node under --dev-root --------
cp "$ANSWERS/dra-nvidia-cdi.json" "$T/cdi/claim-1.json"
state dra-nvidia.json
xpud nvidia-rtx2080ti-x8
if wait_metric 'claim="ml/dra-0-gpu"' 10; then ok "DRA: the claim's GPU has xpu_workload_info"; else not_ok "DRA: the claim's GPU has xpu_workload_info"; diag_file "$T/xpud.log"; fi
get /v1/devices
gm0=$(jq -r '.devices[] | select(.minor == 0) | .index' "$T/body")
gm1=$(jq -r '.devices[] | select(.minor == 1) | .index' "$T/body")
is "$(workloads | tr '\n' ';')" "$gm0 dra-0 main gpu.nvidia.com ml/dra-0-gpu;" "DRA: /dev/nvidia0 of the spec is the GPU of minor 0; nvidiactl names no GPU"
# A spec added while xpud runs, naming its node by path only: the number comes from --dev-root.
cat >"$T/cdi/claim-2.json" <<'EOF'
{"cdiVersion": "0.6.0", "kind": "k8s.gpu.nvidia.com/claim",
 "devices": [{"name": "77aa-gpu-1", "containerEdits": {"deviceNodes": [{"path": "/dev/nvidia1"}]}}]}
EOF
state dra-nvidia.json '.pods += [{"namespace": "ml", "name": "dra-1", "containers": [{"name": "main",
        "claims": [{"namespace": "ml", "name": "dra-1-gpu", "resources": [{"driver": "gpu.nvidia.com",
        "pool": "node", "device": "gpu-1", "cdi": ["k8s.gpu.nvidia.com/claim=77aa-gpu-1"]}]}]}]}]'
if wait_metric 'claim="ml/dra-1-gpu"' 10; then ok "DRA: a spec written while xpud runs is read"; else not_ok "DRA: a spec written while xpud runs is read"; fi
is "$(workloads | grep dra-1)" "$gm1 dra-1 main gpu.nvidia.com ml/dra-1-gpu" "DRA: a node given by path is matched by its number under --dev-root"
is "$(metric xpud_workload_unmatched_ids)" 0 "DRA: nothing unmatched"
xpud_stop

# ---- AMD device plugin: PCI bus ids ------------------------------------------------------------
state amd-mi210x8.json
xpud amd-mi210x8
if wait_metric '^xpu_workload_info\{' 10; then ok "xpu_workload_info appears on the AMD host"; else not_ok "xpu_workload_info appears on the AMD host"; fi
a0=$(gpu_of 0000:63:00.0)
a1=$(gpu_of 0000:43:00.0)
a2=$(gpu_of 0000:03:00.0)
is "$(workloads | tr '\n' ';')" \
        "$(printf '%s\n' "$a0 sim-0 solver amd.com/gpu -" "$a1 sim-0 solver amd.com/gpu -" "$a2 sim-1 solver amd.com/gpu -" |
                sort | tr '\n' ';')" "AMD: the plugin's PCI bus ids name their GPUs"
xpud_stop

# ---- Intel GPU plugin: card ids, a shared card, --workload-labels --------------------------------
state intel-max1550-x6-aurora.json
xpud intel-max1550-x6-aurora --workload-labels
if wait_metric '^xpu_workload_info\{' 10; then ok "xpu_workload_info appears on the Intel host"; else not_ok "xpu_workload_info appears on the Intel host"; fi
i0=$(gpu_of 0000:18:00.0)
i5=$(gpu_of 0001:6c:00.0)
is "$(workloads | tr '\n' ';')" \
        "$(printf '%s\n' "$i0 enc-a ffmpeg gpu.intel.com/i915 -" "$i0 enc-b ffmpeg gpu.intel.com/i915 -" \
                "$i5 enc-c ffmpeg gpu.intel.com/i915 -" | sort | tr '\n' ';')" "Intel: card ids name their GPUs, shares of card0 both"
get /metrics
is "$(grep -c "^xpu_up{vendor=\"intel\",gpu=\"$i0\",.*,namespace=\"media\",pod=\"enc-[ab]\",container=\"ffmpeg\"} " "$T/body")" 2 \
        "--workload-labels: the shared card's series once per container"
is "$(grep -c "^xpu_up{vendor=\"intel\",gpu=\"$i5\",.*,pod=\"enc-c\"" "$T/body")" 1 "--workload-labels: one series for the card of one pod"
is "$(grep -c '^xpu_up{' "$T/body")" 7 "--workload-labels: 6 GPUs, one shared by two: 7 xpu_up series"
if grep '^xpu_up{' "$T/body" | grep -v namespace= | grep -q .; then
        ok "--workload-labels: GPUs without a pod have no pod labels"
else
        not_ok "--workload-labels: GPUs without a pod have no pod labels"
fi
xpud_stop
kubelet_stop

# ---- a socket given that is not there yet: a warning, then tried at every sample ------------------
state amd-mi210x8.json
rm -f "$T/kubelet.sock"
xpud amd-mi210x8
like "$T/xpud.log" "--pod-resources $T/kubelet.sock: .*trying again at every sample" "a missing --pod-resources PATH is a warning"
if wait_metric '^xpud_pod_resources_up 0$' 5; then ok "xpud_pod_resources_up 0 while nothing listens"; else not_ok "xpud_pod_resources_up 0 while nothing listens"; fi
kubelet
if wait_metric 'pod="sim-0"' 10; then ok "the kubelet that comes later is used"; else not_ok "the kubelet that comes later is used"; fi
xpud_stop
kubelet_stop

# ---- --pod-resources none: no client, no series -----------------------------------------------------
xpud amd-mi210x8 --pod-resources none
get /metrics
is "$(grep -c '^xpud_pod_resources\|^xpu_workload_info' "$T/body")" 0 "--pod-resources none: no pod-resources series"
unlike "$T/xpud.log" "pod-resources" "--pod-resources none: nothing logged about it"
xpud_stop

e2e_done
