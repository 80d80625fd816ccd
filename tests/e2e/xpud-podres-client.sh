#!/bin/sh
# The pod-resources client (daemon/podres.h) against real peers, through its driver
# build/tests/podres-call: a real gRPC server (tests/e2e/fake-kubelet.py, Debian's python3-grpcio)
# answering with device-plugin allocations of the three vendors (GPU UUIDs and PCI bus ids of the
# nvidia-rtx2080ti-x8 and amd-mi210x8 fixture hosts, a MIG UUID, Intel's card ids) and a DRA
# claim over two drivers; pods changing between calls; one List per call; a slow, a hung, a
# garbage-speaking, an erroring and an oversized kubelet; a kubelet stopped and started again, and
# killed; no socket, a socket nobody listens on, a listener whose backlog is full; raw peers that
# are not gRPC (HTTP/1.1, junk bytes, silence, a byte every 50 ms); and hand-written HTTP/2
# replies that are wrong in one way each (status 404, no grpc-status, another content-type, a
# compressed message, two messages, a cut message, RST_STREAM, GOAWAY, EOF mid-reply).
# Deadlines are checked with the driver's own measure of the call (elapsed_ms), with a generous
# bound on the test machine's wall clock only where a hang would otherwise go unseen.
#
# Needs /usr/bin/python3 with python3-grpcio, python3-grpc-tools and python3-protobuf (make deps).
# Missing ones fail loudly. Prints TAP.

# shellcheck source=tests/e2e/lib.sh
. "${XPU_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/e2e/lib.sh"

SRC="${XPU_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
CALL="${XPU_BUILD:-$SRC/build}/tests/podres-call"
FAKE="$SRC/tests/e2e/fake-kubelet.py"
PY=/usr/bin/python3
T=
PIDS=

# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
        # Each pid is a timeout(1) wrapper, which leads a process group of its own with its
        # command: SIGKILL to the group, so the python child is not left running when the
        # wrapper alone dies (the pid itself when the group is not made yet).
        for p in $PIDS; do
                kill -KILL "-$p" 2>/dev/null || kill -KILL "$p" 2>/dev/null
        done
        [ -n "$T" ] && rm -rf "$T"
}

[ -x "$CALL" ] || bail "$CALL is missing (make build-tests; XPU_BUILD set by tests/run-tests.sh)"
[ -x "$PY" ] || bail "$PY is missing (Debian's python3; make deps)"
"$PY" -c 'import grpc, grpc_tools.protoc, google.protobuf' 2>/dev/null ||
        bail "python3-grpcio, python3-grpc-tools or python3-protobuf is missing (make deps)"
need_tools timeout
T=$(mktemp -d /tmp/xpud-podres.XXXXXX) || bail "mktemp failed"
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- helpers --------------------------------------------------------------------------------

# wait_file FILE: until FILE exists (at most 30 s, a python3 start with protoc), else 1.
wait_file() {
        i=0
        while [ ! -e "$1" ]; do
                i=$((i + 1))
                [ "$i" -le 300 ] || return 1
                sleep 0.1
        done
}

# kubelet_start: the fake kubelet on $T/kubelet.sock serving $T/state.json; KPID = the pid of
# its timeout wrapper ($T/ready holds the server's own).
kubelet_start() {
        rm -f "$T/ready"
        timeout -k 5 300 "$PY" "$FAKE" "$T/kubelet.sock" "$T/state.json" --calls "$T/calls" --ready "$T/ready" \
                >"$T/kubelet.out" 2>"$T/kubelet.err" &
        KPID=$!
        PIDS="$PIDS $KPID"
        wait_file "$T/ready" || { diag_file "$T/kubelet.err"; bail "the fake kubelet did not start"; }
}

# state JSON: replace the kubelet's state atomically (write, then rename).
state() {
        printf '%s\n' "$1" >"$T/state.json.new" && mv "$T/state.json.new" "$T/state.json"
}

# call SOCKET [TIMEOUT_MS]: the driver under a wall-clock bound; RC, OUT (file), MS (its elapsed_ms).
call() {
        timeout -k 5 30 "$CALL" "$@" >"$T/out" 2>"$T/err"
        RC=$?
        OUT="$T/out"
        MS=$(awk '$1 == "elapsed_ms" { print $2 }' "$T/out")
}

# peer MODE SOCKET: a raw stream peer that is not gRPC (python3, below); its pid in PIDS.
peer() {
        rm -f "$T/peer-ready"
        timeout -k 5 120 "$PY" "$T/peer.py" "$1" "$2" "$T/peer-ready" 2>"$T/peer.err" &
        PIDS="$PIDS $!"
        wait_file "$T/peer-ready" || bail "the $1 peer did not start"
}

cat >"$T/peer.py" <<'PEER'
import os, socket, sys, time
mode, path, ready = sys.argv[1:4]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(path)
if mode != "nolisten":
    s.listen(0 if mode == "full" else 8)
held = []
if mode == "full":
    # Fill the backlog with connections of our own and never accept: connect() then fails with
    # EAGAIN, as against a kubelet too busy to accept.
    for _ in range(64):
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.setblocking(False)
        try:
            c.connect(path)
        except BlockingIOError:
            break
        held.append(c)
open(ready, "w").close()
if mode in ("nolisten", "full"):
    time.sleep(120)
    sys.exit(0)
while True:
    c, _ = s.accept()
    if mode == "http1":
        c.recv(4096)
        c.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        c.close()
    elif mode == "junk":
        c.sendall(b"\x00\x00\x08\x99\x00\x00\x00\x00\x00junkjunk" * 4)
        time.sleep(0.5)
        c.close()
    elif mode == "silent":
        time.sleep(60)
    elif mode.startswith("h2-"):
        # HTTP/2 written by hand (RFC 9113 frames, RFC 7541 literals), gRPC-shaped but wrong in
        # one way each; "h2-ok" is the same shape done right.
        def frame(ftype, flags, stream, payload=b""):
            return len(payload).to_bytes(3, "big") + bytes([ftype, flags]) + stream.to_bytes(4, "big") + payload
        def lit(name, value):
            return b"\x00" + bytes([len(name)]) + name + bytes([len(value)]) + value
        HEADERS, DATA, RST, SETTINGS = 1, 0, 3, 4
        END_STREAM, END_HEADERS = 1, 4
        ok_headers = b"\x88" + lit(b"content-type", b"application/grpc")  # :status 200
        trailer = lit(b"grpc-status", b"0")
        reply = {
            "h2-ok": [frame(HEADERS, END_HEADERS, 1, ok_headers), frame(DATA, 0, 1, b"\x00" * 5),
                      frame(HEADERS, END_HEADERS | END_STREAM, 1, trailer)],
            "h2-404": [frame(HEADERS, END_HEADERS | END_STREAM, 1, b"\x8d")],  # :status 404
            "h2-nostatus": [frame(HEADERS, END_HEADERS, 1, ok_headers),
                            frame(DATA, END_STREAM, 1, b"\x00" * 5)],
            "h2-notype": [frame(HEADERS, END_HEADERS, 1, b"\x88" + lit(b"content-type", b"text/plain")),
                          frame(DATA, 0, 1, b"\x00" * 5), frame(HEADERS, END_HEADERS | END_STREAM, 1, trailer)],
            "h2-compressed": [frame(HEADERS, END_HEADERS, 1, ok_headers), frame(DATA, 0, 1, b"\x01" + b"\x00" * 4),
                              frame(HEADERS, END_HEADERS | END_STREAM, 1, trailer)],
            "h2-two": [frame(HEADERS, END_HEADERS, 1, ok_headers), frame(DATA, 0, 1, b"\x00" * 10),
                       frame(HEADERS, END_HEADERS | END_STREAM, 1, trailer)],
            "h2-cut": [frame(HEADERS, END_HEADERS, 1, ok_headers), frame(DATA, 0, 1, b"\x00\x00\x00\x00\x0a\x0a"),
                       frame(HEADERS, END_HEADERS | END_STREAM, 1, trailer)],
            "h2-rst": [frame(HEADERS, END_HEADERS, 1, ok_headers), frame(RST, 0, 1, (2).to_bytes(4, "big"))],
            "h2-goaway": [frame(7, 0, 0, (0).to_bytes(4, "big") + (0).to_bytes(4, "big"))],  # GOAWAY, last stream 0
            "h2-eof": [frame(HEADERS, END_HEADERS, 1, ok_headers), frame(DATA, 0, 1, b"\x00\x00\x00")],
        }[mode]
        c.recv(65536)  # the client's preface, settings and request
        c.sendall(frame(SETTINGS, 0, 0) + b"".join(reply))
        time.sleep(0.3 if mode == "h2-eof" else 2)
        c.close()
    elif mode == "drip":
        # An empty SETTINGS frame, then PINGs, one byte every 50 ms: never a reply.
        data = b"\x00\x00\x00\x04\x00\x00\x00\x00\x00" + b"\x00\x00\x08\x06\x00\x00\x00\x00\x00" + b"\x01" * 8
        try:
            for i in range(2400):
                c.send(data[i % len(data):i % len(data) + 1])
                time.sleep(0.05)
        except OSError:
            pass
PEER

# ---- a normal reply: the three vendors' device plugins and DRA -------------------------------

FX="$SRC/tests/fixtures/hosts"
NV=$(e2e_nvidia_uuids "$FX/nvidia-rtx2080ti-x8" | head -n 2 | tr '\n' ' ')
NV0=${NV%% *}
NV1=$(echo "$NV" | cut -d' ' -f2)
if [ -z "$NV0" ] || [ -z "$NV1" ]; then
        bail "no GPU UUIDs in the nvidia-rtx2080ti-x8 fixture"
fi
AMD0=$(basename "$(find "$FX/amd-mi210x8/sys/bus/pci/devices/" -mindepth 1 -maxdepth 1 | sort | head -n 1)")
[ -n "$AMD0" ] || bail "no PCI devices in the amd-mi210x8 fixture"
MIG="MIG-5fd0a6e9-4f33-5b3c-9b9a-5a2f4b0e1a11"

state '{"pods": [
  {"namespace": "ml", "name": "train-0", "containers": [
     {"name": "main", "devices": [{"resource": "nvidia.com/gpu", "ids": ["'"$NV0"'", "'"$NV1"'"]}], "cpu_ids": [2, 3]},
     {"name": "sidecar", "cpu_ids": [4]}]},
  {"namespace": "ml", "name": "mig-job", "containers": [
     {"name": "c", "devices": [{"resource": "nvidia.com/mig-1g.10gb", "ids": ["'"$MIG"'"]}]}]},
  {"namespace": "rocm", "name": "bench", "containers": [
     {"name": "hip", "devices": [{"resource": "amd.com/gpu", "ids": ["'"$AMD0"'"]}]}]},
  {"namespace": "oneapi", "name": "render", "containers": [
     {"name": "app", "devices": [{"resource": "gpu.intel.com/i915", "ids": ["card1-0"]},
                                 {"resource": "gpu.intel.com/xe", "ids": ["card2-0", "card2-1"]}]}]},
  {"namespace": "dra", "name": "inference", "containers": [
     {"name": "srv", "claims": [{"namespace": "dra", "name": "two-gpus", "resources": [
        {"driver": "gpu.nvidia.com", "pool": "node-1", "device": "gpu-0", "cdi": ["k8s.gpu.nvidia.com/claim=6f1c-gpu-0"]},
        {"driver": "gpu.amd.com", "pool": "node-1", "device": "gpu-1", "cdi": ["amd.com/gpu=gpu-1", "k8s.gpu.amd.com/claim=6f1c"]}]}]}]},
  {"namespace": "kube-system", "name": "coredns", "containers": [{"name": "coredns"}]},
  {"namespace": "empty", "name": "no-containers"}]}'
kubelet_start
call "$T/kubelet.sock"
cat >"$T/want" <<EOF
pods 7
ml/train-0/main nvidia.com/gpu - $NV0,$NV1
ml/mig-job/c nvidia.com/mig-1g.10gb - $MIG
rocm/bench/hip amd.com/gpu - $AMD0
oneapi/render/app gpu.intel.com/i915 - card1-0
oneapi/render/app gpu.intel.com/xe - card2-0,card2-1
dra/inference/srv gpu.nvidia.com dra/two-gpus k8s.gpu.nvidia.com/claim=6f1c-gpu-0
dra/inference/srv gpu.amd.com dra/two-gpus amd.com/gpu=gpu-1,k8s.gpu.amd.com/claim=6f1c
EOF
is "$RC" 0 "List against the fake kubelet succeeds"
grep -v '^elapsed_ms ' "$OUT" >"$T/got"
if diff -u "$T/want" "$T/got" >"$T/diff"; then
        ok "every device-plugin allocation (nvidia, MIG, amd, i915, xe) and both DRA claim resources, in order"
else
        not_ok "every device-plugin allocation and DRA claim resource"
        diag_file "$T/diff"
fi
is "$(wc -l <"$T/calls" | tr -d ' ')" 1 "one call, one List"
like "$T/calls" "^List user-agent=xpud/$(cat "$SRC/VERSION")( |\$)" "the request names xpud and its version as user-agent"

# ---- pods come and go ------------------------------------------------------------------------

state '{"pods": [{"namespace": "ml", "name": "train-1", "containers": [
  {"name": "main", "devices": [{"resource": "nvidia.com/gpu", "ids": ["'"$NV1"'"]}]}]}]}'
call "$T/kubelet.sock"
grep -v '^elapsed_ms ' "$OUT" >"$T/got"
is "$RC:$(tr '\n' '|' <"$T/got")" "0:pods 1|ml/train-1/main nvidia.com/gpu - $NV1|" \
        "the next call sees the pods of the rewritten state only"
state '{"pods": []}'
call "$T/kubelet.sock"
is "$RC:$(head -n 1 "$OUT")" "0:pods 0" "no pods: an empty list, not an error"
is "$(wc -l <"$T/calls" | tr -d ' ')" 3 "three calls, three Lists"

# ---- a kubelet that misbehaves ---------------------------------------------------------------

# expect_error RC ENAME REGEX DESC: the last call failed with exit RC, errno ENAME and a message.
expect_error() {
        if [ "$RC" = "$1" ] && grep -Eq "^error $2 pod-resources socket [^ ]+: .*$3" "$OUT"; then
                ok "$4"
        else
                not_ok "$4"
                diag "exit status $RC (want $1)"
                diag_file "$OUT"
        fi
}

# within LO HI DESC: the driver's elapsed_ms in [LO, HI]. HI leaves 700 ms of slack for a loaded
# machine (make check runs two builds' tests at once), well below the 3 s of the slow kubelet.
within() {
        if [ -n "$MS" ] && [ "$MS" -ge "$1" ] && [ "$MS" -le "$2" ]; then
                ok "$3 (${MS} ms)"
        else
                not_ok "$3"
                diag "elapsed_ms '$MS', want $1..$2"
        fi
}

state '{"mode": "slow", "delay_s": 3, "pods": []}'
call "$T/kubelet.sock" 500
expect_error 4 ETIMEDOUT "within the deadline" "a kubelet slower than the deadline: ETIMEDOUT"
within 500 1200 "the slow call ends at its 500 ms deadline"

state '{"mode": "hang"}'
call "$T/kubelet.sock" 400
expect_error 4 ETIMEDOUT "within the deadline" "a hung kubelet: ETIMEDOUT"
within 400 1100 "the hung call ends at its 400 ms deadline"

state '{"mode": "garbage"}'
call "$T/kubelet.sock"
expect_error 5 EPROTO "pod-resources reply: .*cut short" "garbage bytes as the reply: EPROTO, said as such"
state '{"mode": "garbage", "garbage_hex": "0a0412030a01"}'
call "$T/kubelet.sock"
expect_error 5 EPROTO "pod-resources reply: " "a nested message cut short inside a valid length: EPROTO"
state '{"mode": "garbage", "garbage_hex": "0a060a04610a6263"}'
call "$T/kubelet.sock"
expect_error 5 EPROTO "PodResources.name: byte 0x0a" "a pod name with a newline: EPROTO naming the field"

state '{"mode": "status", "code": 14, "message": "kubelet is restarting: 100% busy"}'
call "$T/kubelet.sock"
expect_error 5 EPROTO "gRPC status 14 \\(UNAVAILABLE\\): kubelet is restarting: 100% busy" \
        "a gRPC error status: its code, name and (percent-decoded) message"
state '{"mode": "status", "code": 7, "message": ""}'
call "$T/kubelet.sock"
expect_error 5 EPROTO "gRPC status 7 \\(PERMISSION_DENIED\\)" "PERMISSION_DENIED is shown by name"

state '{"mode": "huge"}'
call "$T/kubelet.sock"
expect_error 6 EMSGSIZE "more than the limit of 4194304" "a reply over 4 MiB: EMSGSIZE"

# ---- the kubelet goes away and comes back ----------------------------------------------------

state '{"pods": [{"namespace": "a", "name": "b", "containers": [{"name": "c", "devices": [{"resource": "amd.com/gpu", "ids": ["'"$AMD0"'"]}]}]}]}'
kill -TERM "$KPID"
wait "$KPID" 2>/dev/null
call "$T/kubelet.sock"
expect_error 3 ENOENT "no such socket" "the kubelet stopped (its socket removed): ENOENT"
kubelet_start
call "$T/kubelet.sock"
is "$RC:$(sed -n 2p "$OUT")" "0:a/b/c amd.com/gpu - $AMD0" "the kubelet restarted: the next call succeeds"
# SIGKILL to the server itself (KPID is timeout's): no clean-up, the socket file stays.
kill -KILL "$(cat "$T/ready")"
wait "$KPID" 2>/dev/null
call "$T/kubelet.sock"
expect_error 3 ECONNREFUSED "connection refused" "the kubelet killed (its socket left behind): ECONNREFUSED"

# ---- no kubelet, and peers that are not gRPC -------------------------------------------------

call "$T/nothing-here.sock"
expect_error 3 ENOENT "no such socket" "no socket: ENOENT"
peer nolisten "$T/nolisten.sock"
call "$T/nolisten.sock"
expect_error 3 ECONNREFUSED "connection refused" "a socket nobody listens on: ECONNREFUSED"
peer full "$T/full.sock"
call "$T/full.sock" 400
expect_error 4 ETIMEDOUT "connect timed out" "a listener whose backlog is full: ETIMEDOUT at connect"
within 400 1100 "the full listener's call ends at its 400 ms deadline"
peer http1 "$T/http1.sock"
call "$T/http1.sock"
expect_error 5 EPROTO "HTTP/1" "an HTTP/1.1 server: EPROTO naming HTTP/1"
peer junk "$T/junk.sock"
call "$T/junk.sock"
expect_error 5 EPROTO "not a gRPC server" "a peer sending junk: EPROTO"
peer silent "$T/silent.sock"
call "$T/silent.sock" 300
expect_error 4 ETIMEDOUT "nothing received" "a peer that accepts and never answers: ETIMEDOUT"
within 300 1000 "the silent peer's call ends at its 300 ms deadline"
peer drip "$T/drip.sock"
call "$T/drip.sock" 600
expect_error 4 ETIMEDOUT "within the deadline" "a peer dripping a byte every 50 ms: ETIMEDOUT"
within 600 1300 "the dripping peer's call ends at its 600 ms deadline"
# HTTP/2 peers that are almost gRPC: each wrong in one way, after one that is right.
h2() {
        peer "$1" "$T/$1.sock"
        call "$T/$1.sock" 1500
}
h2 h2-ok
is "$RC:$(head -n 1 "$OUT")" "0:pods 0" "a hand-written HTTP/2 gRPC reply of the empty message: no pods"
h2 h2-404
expect_error 5 EPROTO "HTTP status 404, not 200" "HTTP/2 status 404: EPROTO naming the status"
h2 h2-nostatus
expect_error 5 EPROTO "no grpc-status" "a reply without grpc-status: EPROTO"
h2 h2-notype
expect_error 5 EPROTO "content-type is not application/grpc" "a reply of another content-type: EPROTO"
h2 h2-compressed
expect_error 5 EPROTO "compressed" "a compressed message that was not asked for: EPROTO"
h2 h2-two
expect_error 5 EPROTO "followed by more data" "two messages in a unary reply: EPROTO"
h2 h2-cut
expect_error 5 EPROTO "is cut short \\(10 bytes announced, 1 sent\\)" "a message shorter than its prefix: EPROTO"
h2 h2-rst
expect_error 5 EPROTO "reset the stream \\(HTTP/2 error INTERNAL_ERROR\\)" "RST_STREAM mid-reply: EPROTO with the code"
h2 h2-goaway
expect_error 7 ECONNRESET "refused the call \\(HTTP/2 REFUSED_STREAM" "GOAWAY before the call (a kubelet going away): ECONNRESET"
h2 h2-eof
expect_error 7 ECONNRESET "in the middle of the reply" "the connection closed mid-reply: ECONNRESET"

call "$T/$(printf 'x%.0s' $(seq 1 120)).sock"
expect_error 3 ENAMETOOLONG "longer than" "a socket path longer than sun_path: ENAMETOOLONG"

e2e_done
