#!/bin/sh
# Real-hardware check of the probe, the injection and the rich path (NVML, libcuda), for a machine
# with an NVIDIA GPU and its driver under a driver root (default /usr/local/nvidia). Not part of
# `make check` (CI has no GPU).
# Needs: a static xpuinit (make static; carried as build/xpuinit-static), nvidia-smi, gcc, python3.
#   sh tests/hardware/nvidia-check.sh [DRIVER_ROOT] [OUT_DIR]
# Writes probe.json, rich.json, smi.csv, compare.txt, inject-*.txt to OUT_DIR (default: a new
# directory made with mktemp -d, named at the end); exits non-zero on a mismatch.
set -u
DRIVER_ROOT=${1:-/usr/local/nvidia}
OUT=${2:-${OUT:-}}
[ -n "$OUT" ] || OUT=$(mktemp -d) || { echo "nvidia-check: mktemp failed" >&2; exit 1; }
X=${XPUINIT:-build/xpuinit-static}
mkdir -p "$OUT"
fail=0
note() { printf '%s\n' "$*" | tee -a "$OUT/compare.txt"; }

[ -x "$X" ] || { echo "no $X (make static)"; exit 2; }
smi=$(command -v nvidia-smi || echo "$DRIVER_ROOT/bin/nvidia-smi")

# 1. probe versus nvidia-smi
"$X" probe --json --driver-root "$DRIVER_ROOT" >"$OUT/probe.json" 2>"$OUT/probe.stderr"
echo "probe exit $?" >>"$OUT/probe.stderr"
"$smi" --query-gpu=index,uuid,pci.bus_id,name,memory.total,driver_version --format=csv,noheader >"$OUT/smi.csv"
python3 - "$OUT/probe.json" "$OUT/smi.csv" >>"$OUT/compare.txt" <<'PY' || fail=1
import json, sys
inv = json.load(open(sys.argv[1]))
devs = [d for d in inv["devices"] if d["vendor"] == "nvidia"]
rows = [[c.strip() for c in l.split(",")] for l in open(sys.argv[2]) if l.strip()]
bad = 0
print(f"xpuinit: {len(devs)} NVIDIA device(s), driver {inv['host'].get('nvidia_driver_version')}; nvidia-smi: {len(rows)}")
if len(devs) != len(rows):
    bad += 1
for d, r in zip(devs, rows):
    idx, uuid, bus, name, mem, drv = r
    bus = bus.lower()
    bus = bus[4:] if len(bus.split(":")[0]) == 8 and bus.startswith("0000") else bus
    checks = [("index", str(d["vendor_index"]), idx), ("uuid", d.get("uuid"), uuid),
              ("pci_bus_id", d.get("pci_bus_id"), bus), ("name", d.get("name"), name),
              ("driver", d.get("driver_version"), drv)]
    for k, a, b in checks:
        ok = a == b
        bad += not ok
        print(f"  gpu {idx} {k}: xpuinit {a!r} nvidia-smi {b!r} {'ok' if ok else 'MISMATCH'}")
    print(f"  gpu {idx} memory: nvidia-smi {mem} (the fast path does not read it; see the rich probe below)")
sys.exit(1 if bad else 0)
PY

# 2. inject and cuInit/cuDeviceGetCount through the injected libcuda.so.1, in a private mount
#    namespace (this machine's / stands in for the container root), mount and link mode.
cat >"$OUT/cuda-check.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
int main(void) {
        void *h = dlopen("libcuda.so.1", RTLD_NOW);
        if (!h) { printf("dlopen: %s\n", dlerror()); return 1; }
        struct link_map *lm = NULL;
        dlinfo(h, RTLD_DI_LINKMAP, &lm);
        int (*init)(unsigned) = (int (*)(unsigned))dlsym(h, "cuInit");
        int (*ver)(int *) = (int (*)(int *))dlsym(h, "cuDriverGetVersion");
        int (*count)(int *) = (int (*)(int *))dlsym(h, "cuDeviceGetCount");
        int v = 0, n = -1;
        int r1 = init ? init(0) : -1, r2 = ver ? ver(&v) : -1, r3 = count ? count(&n) : -1;
        printf("libcuda=%s cuInit=%d cuDriverGetVersion=%d (%d) cuDeviceGetCount=%d (%d)\n",
               lm ? lm->l_name : "?", r1, r2, v, r3, n);
        return r1 || r3 || n < 1;
}
C
gcc -O2 -o "$OUT/cuda-check" "$OUT/cuda-check.c" || { echo "gcc failed"; exit 2; }
for mode in mount link; do
        unshare -m sh -c "'$X' -v --driver-root '$DRIVER_ROOT' --inject $mode -- '$OUT/cuda-check'" \
                >"$OUT/inject-$mode.txt" 2>&1
        rc=$?
        note "inject $mode: exit $rc: $(grep libcuda= "$OUT/inject-$mode.txt")"
        grep -q 'libcuda=/run/xpuinit/lib/libcuda.so.1' "$OUT/inject-$mode.txt" || { note "  not loaded from /run/xpuinit/lib"; fail=1; }
        [ "$rc" -eq 0 ] || fail=1
done
# 3. the rich path: probe --source all versus nvidia-smi (UUID, bus id, memory, CUDA
#    version) and cuDriverGetVersion through the injected libcuda (step 2); NVML's time.
"$X" probe --json --source all --driver-root "$DRIVER_ROOT" >"$OUT/rich.json" 2>"$OUT/rich.stderr"
echo "probe --source all exit $?" >>"$OUT/rich.stderr"
"$X" probe --source nvml --driver-root "$DRIVER_ROOT" >"$OUT/nvml.txt" 2>&1
"$smi" >"$OUT/smi.txt" 2>&1
cuver=$(sed -n 's/.*cuDriverGetVersion=0 (\([0-9]*\)).*/\1/p' "$OUT/inject-mount.txt" | head -n 1)
python3 - "$OUT/rich.json" "$OUT/smi.csv" "$OUT/smi.txt" "${cuver:-0}" >>"$OUT/compare.txt" <<'PY' || fail=1
import json, re, sys
inv = json.load(open(sys.argv[1]))
rows = [[c.strip() for c in l.split(",")] for l in open(sys.argv[2]) if l.strip()]
m = re.search(r"CUDA Version: *([0-9.]+)", open(sys.argv[3]).read())
smi_cuda = m.group(1) if m else None
cu = int(sys.argv[4])
cu_ver = f"{cu // 1000}.{cu % 1000 // 10}" if cu else None
host = inv["host"]
bad = 0
b = inv.get("backends", {})
for k, v in b.items():
    print(f"rich: backend {k}: {v.get('status')} {v.get('elapsed_us', '-')} us {v.get('error', v.get('reason', ''))}")
print(f"rich: NVML read (init + queries + shutdown, helper included): {b.get('nvml', {}).get('elapsed_us')} us")
for k, a, want in [("cuda vs nvidia-smi", host.get("cuda_driver_version"), smi_cuda),
                   ("cuda vs cuDriverGetVersion", host.get("cuda_driver_version"), cu_ver)]:
    ok = a == want
    bad += not ok
    print(f"rich: {k}: xpuinit {a!r} other {want!r} {'ok' if ok else 'MISMATCH'}")
devs = [d for d in inv["devices"] if d["vendor"] == "nvidia"]
for d, r in zip(devs, rows):
    idx, uuid, bus, name, mem, drv = r
    bus = bus.lower()
    bus = bus[4:] if len(bus.split(":")[0]) == 8 and bus.startswith("0000") else bus
    mib = int(mem.split()[0])
    got = d.get("memory_total_bytes")
    checks = [("uuid", d.get("uuid"), uuid), ("pci_bus_id", d.get("pci_bus_id"), bus),
              ("memory MiB", got // 1048576 if got else None, mib)]
    for k, a, want in checks:
        ok = a == want
        bad += not ok
        print(f"  gpu {idx} rich {k}: xpuinit {a!r} nvidia-smi {want!r} {'ok' if ok else 'MISMATCH'}")
    print(f"  gpu {idx} sources: {d.get('sources')} cc {d.get('compute_capability')} brand {d.get('brand')}")
for w in inv.get("warnings", []):
    print(f"rich: warning: {w}")
sys.exit(1 if bad else 0)
PY
cat "$OUT/compare.txt"
echo "nvidia-check: results in $OUT"
exit "$fail"
