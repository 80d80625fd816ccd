#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A fake kubelet for the tests: the pod-resources API, v1.PodResourcesLister/List, served by a
real gRPC server (Debian's python3-grpcio) on a UNIX socket, from daemon/podresources.proto.

    /usr/bin/python3 tests/e2e/fake-kubelet.py SOCKET STATE.json [--calls FILE] [--ready FILE]

SOCKET    the UNIX socket to serve on (made by the server; removed at SIGTERM/SIGINT).
STATE     what to answer, a JSON file read again at every call: a test changes the pods by
          rewriting it atomically (write another file, then rename it over STATE).
--calls   append one line per List call: "List user-agent=<the client's user-agent>".
--ready   created once the server listens, holding its pid: wait for it, not with sleep. "ready"
          is also printed on stdout.

STATE's shape (every key optional):
    {"pods": [{"namespace": "ns", "name": "pod",
               "containers": [{"name": "ctr",
                               "devices": [{"resource": "nvidia.com/gpu", "ids": ["GPU-..."]}],
                               "claims": [{"namespace": "ns", "name": "claim",
                                           "resources": [{"driver": "gpu.nvidia.com", "pool": "node",
                                                          "device": "gpu-0",
                                                          "cdi": ["k8s.gpu.nvidia.com/claim=..."]}]}],
                               "cpu_ids": [2, 3]}]}],
     "mode": "ok" | "slow" | "garbage" | "status" | "huge" | "hang",
     "delay_s": 5,              slow: seconds to sleep before answering
     "code": 14,                status: the gRPC status code to abort with
     "message": "...",          status: its message
     "garbage_hex": "ff01"}     garbage: the reply bytes (default: a cut varint, not a message)
  ok: the pods as a ListPodResourcesResponse; slow: the same after delay_s; garbage: bytes that
  are not a valid message; status: no message, the status code and message; huge: a valid reply
  larger than xpud's 4 MiB limit; hang: never answers (until the client goes away).

The message classes are generated at start with grpc_tools.protoc (python3-grpc-tools) into a
private temporary directory; the List handler sends raw bytes (identity serializers), so garbage
goes out as it is.
"""

import json
import os
import shutil
import signal
import sys
import tempfile
import time
from concurrent import futures

import grpc
from grpc_tools import protoc

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO = os.path.join(HERE, "..", "..", "daemon", "podresources.proto")


def usage(msg):
    sys.stderr.write("fake-kubelet: %s\nusage: fake-kubelet.py SOCKET STATE.json [--calls FILE] [--ready FILE]\n" % msg)
    sys.exit(2)


def load_messages(tmp):
    """Generate podresources_pb2 from the .proto into TMP and import it."""
    proto_dir = os.path.dirname(os.path.abspath(PROTO))
    # grpc_tools ships the well-known protos; ours imports none.
    rc = protoc.main(["grpc_tools.protoc", "-I" + proto_dir, "--python_out=" + tmp, os.path.abspath(PROTO)])
    if rc != 0:
        sys.stderr.write("fake-kubelet: protoc failed on %s (exit %d)\n" % (PROTO, rc))
        sys.exit(1)
    sys.path.insert(0, tmp)
    import podresources_pb2  # noqa: E402 (generated above)

    return podresources_pb2


def build_reply(pb, state):
    """The ListPodResourcesResponse for STATE's pods."""
    reply = pb.ListPodResourcesResponse()
    for p in state.get("pods", []):
        pod = reply.pod_resources.add(name=p.get("name", ""), namespace=p.get("namespace", ""))
        for c in p.get("containers", []):
            ctr = pod.containers.add(name=c.get("name", ""))
            ctr.cpu_ids.extend(c.get("cpu_ids", []))
            for d in c.get("devices", []):
                dev = ctr.devices.add(resource_name=d.get("resource", ""))
                dev.device_ids.extend(d.get("ids", []))
                dev.topology.nodes.add(ID=0)
            for cl in c.get("claims", []):
                dr = ctr.dynamic_resources.add(claim_name=cl.get("name", ""), claim_namespace=cl.get("namespace", ""))
                for r in cl.get("resources", []):
                    cr = dr.claim_resources.add(driver_name=r.get("driver", ""), pool_name=r.get("pool", ""),
                                                device_name=r.get("device", ""))
                    for name in r.get("cdi", []):
                        cr.cdi_devices.add(name=name)
    return reply


def huge_reply(pb):
    """A valid reply of about 6 MiB: 300 pods of 20 ids of 1000 bytes."""
    reply = pb.ListPodResourcesResponse()
    for i in range(300):
        pod = reply.pod_resources.add(name="huge-%d" % i, namespace="default")
        dev = pod.containers.add(name="c").devices.add(resource_name="nvidia.com/gpu")
        dev.device_ids.extend(["GPU-%04d-%s" % (k, "x" * 990) for k in range(20)])
    return reply


def main():
    args = sys.argv[1:]
    opts = {"--calls": None, "--ready": None}
    pos = []
    while args:
        a = args.pop(0)
        if a in opts:
            if not args:
                usage("%s needs a value" % a)
            opts[a] = args.pop(0)
        elif a.startswith("-"):
            usage("unknown option %s" % a)
        else:
            pos.append(a)
    if len(pos) != 2:
        usage("SOCKET and STATE.json are required")
    sock, state_path = os.path.abspath(pos[0]), pos[1]

    tmp = tempfile.mkdtemp(prefix="fake-kubelet.")
    try:
        pb = load_messages(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    def list_pods(request, context):
        ua = dict(context.invocation_metadata()).get("user-agent", "")
        if opts["--calls"]:
            with open(opts["--calls"], "a", encoding="utf-8") as f:
                f.write("List user-agent=%s\n" % ua)
        try:
            with open(state_path, encoding="utf-8") as f:
                state = json.load(f)
        except (OSError, ValueError) as e:
            context.abort(grpc.StatusCode.INTERNAL, "fake-kubelet: cannot read %s: %s" % (state_path, e))
        mode = state.get("mode", "ok")
        if mode == "slow":
            time.sleep(float(state.get("delay_s", 5)))
        elif mode == "hang":
            end = time.monotonic() + 600
            while context.is_active() and time.monotonic() < end:
                time.sleep(0.05)
            context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, "fake-kubelet: hung")
        elif mode == "garbage":
            return bytes.fromhex(state.get("garbage_hex", "0a8080808080808080808001"))
        elif mode == "status":
            code = int(state.get("code", 2))
            matches = [c for c in grpc.StatusCode if c.value[0] == code]
            context.abort(matches[0] if matches else grpc.StatusCode.UNKNOWN, state.get("message", ""))
        elif mode == "huge":
            return huge_reply(pb).SerializeToString()
        elif mode != "ok":
            context.abort(grpc.StatusCode.INTERNAL, "fake-kubelet: unknown mode %r in %s" % (mode, state_path))
        return build_reply(pb, state).SerializeToString()

    handler = grpc.method_handlers_generic_handler(
        "v1.PodResourcesLister",
        {"List": grpc.unary_unary_rpc_method_handler(list_pods, request_deserializer=None, response_serializer=None)},
    )
    # The kubelet's own limit on replies is 16 MiB; the huge mode must be able to send 6.
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8),
                         options=[("grpc.max_send_message_length", 16 << 20)])
    server.add_generic_rpc_handlers((handler,))
    if os.path.exists(sock):
        os.unlink(sock)
    if server.add_insecure_port("unix:" + sock) == 0:
        sys.stderr.write("fake-kubelet: cannot listen on %s\n" % sock)
        sys.exit(1)
    server.start()

    def stop(signum, frame):
        server.stop(0)
        try:
            os.unlink(sock)
        except OSError:
            pass
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    if opts["--ready"]:
        with open(opts["--ready"] + ".tmp", "w", encoding="utf-8") as f:
            f.write("%d\n" % os.getpid())
        os.rename(opts["--ready"] + ".tmp", opts["--ready"])
    print("ready", flush=True)
    server.wait_for_termination()


if __name__ == "__main__":
    main()
