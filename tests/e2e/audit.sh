#!/bin/sh
# End to end, `xpuinit audit` on image roots built from the device-code fixtures (nvcc 13,
# clang 14, gcc; tests/fixtures/devcode/): the JSON contract, the text report, --for verdicts and
# --fail-on exit codes, the index and the start-time check it feeds (plan, and a start refused
# with 125), --k8s-affinity, usage errors, and hostile roots (link loops, links out of the root,
# a FIFO, a 4 GiB sparse "library", garbage ELF) that must neither hang nor crash it.
. "$(dirname "$0")/lib.sh"
e2e_init

x=$XPU_BUILD/xpuinit
dc=$XPU_SRCDIR/tests/fixtures/devcode
t=$E2E_TMP

# image ROOT FILE...: a root with the fixture FILEs under usr/lib/.
image() {
        root=$1
        shift
        mkdir -p "$root/usr/lib" || bail "mkdir $root"
        for f; do
                cp "$dc/$f" "$root/usr/lib/" || bail "cp $f"
        done
}

# audit_json OUT [ARG...]: xpuinit audit --json ARG... into OUT; AUDIT_RC its status.
audit_json() {
        out=$1
        shift
        timeout 60 "$x" audit --json "$@" >"$out" 2>"$out.err"
        AUDIT_RC=$?
}

# ---- a mixed image: CUDA, HIP, a stub libcuda, a neutral library ---------------------------------
image "$t/mixed" nvidia/libkernel.so amd/libhip.so elf/libcuda.so.1 elf/libapp.so elf/libplain.so
audit_json "$t/mixed.json" --for sm_90 --for sm_75 --for gfx1031 --for gfx90a:sramecc+:xnack- "$t/mixed"
is "$AUDIT_RC" 0 "mixed: audit exits 0 without --fail-on"
j() { jq -r "$1" "$t/mixed.json"; }
is "$(j '.root')" "$t/mixed" "mixed: root is the audited directory"
is "$(j '[.objects[].path] | join(" ")')" \
        "usr/lib/libapp.so usr/lib/libcuda.so.1 usr/lib/libhip.so usr/lib/libkernel.so usr/lib/libplain.so" \
        "mixed: five objects, sorted, paths relative to the root"
is "$(j '.objects[] | select(.path == "usr/lib/libkernel.so") | [.kind, .vendor, (.nvidia.sass | join(",")), (.nvidia.ptx | join(",")), .nvidia.ptx_isa.compute_90, (.nvidia.sections | join(",")), (.needed | join(","))] | join(" ")')" \
        "elf nvidia sm_80 compute_90 9.0 .nv_fatbin libcudart.so.13" \
        "mixed: libkernel.so: SASS sm_80 (the device-link stub left out), PTX compute_90 ISA 9.0, needs libcudart.so.13"
is "$(j '.objects[] | select(.path == "usr/lib/libhip.so") | [.vendor, (.amd.gfx | join(",")), (.amd.compression | join(",")), (.amd.sections | join(","))] | join(" ")')" \
        "amd gfx90a:sramecc+:xnack-,gfx1030 ccob-v2-zstd .hip_fatbin" \
        "mixed: libhip.so: exact target IDs from its zstd CCOB in .hip_fatbin"
is "$(j '.objects[] | select(.path == "usr/lib/libapp.so") | .layers | join(",")')" "runtime,blas,parallel-algorithms" \
        "mixed: libapp.so: layers from its DT_NEEDED (cudart, cublas) and a Thrust instantiation"
is "$(j '.objects[] | select(.path == "usr/lib/libplain.so") | [.vendor, (.layers | length)] | map(tostring) | join(" ")')" \
        "null 0" "mixed: libplain.so is vendor-neutral"
is "$(j '.objects[] | select(.path == "usr/lib/libcuda.so.1") | [.library, .stub] | map(tostring) | join(" ")')" "libcuda true" \
        "mixed: libcuda.so.1 is a stub of the driver library"
is "$(j '[.issues[] | select(.kind == "stub-driver-library") | .path] | join(",")')" "usr/lib/libcuda.so.1" \
        "mixed: the stub is an issue"
is "$(j '.summary.objects')" 5 "mixed: summary counts 5 objects"
is "$(j '[.summary.vendors."vendor-neutral".objects, .summary.vendors.nvidia.objects, .summary.vendors.amd.objects] | map(tostring) | join(" ")')" \
        "1 3 1" "mixed: 1 neutral, 3 NVIDIA, 1 AMD object"
# Each object once: libapp.so (no library, no code of its own; needs cudart and cuBLAS) in blas,
# libkernel.so (its own code) and the libcuda stub in runtime, libhip.so in AMD's runtime.
is "$(j '[.summary.layers.blas.nvidia.objects, .summary.layers.runtime.nvidia.objects, .summary.layers.runtime.amd.objects, .summary.layers."vendor-neutral"."vendor-neutral".objects] | map(tostring) | join(" ")')" \
        "1 2 1 1" "mixed: layers count each object once: blas 1, runtime 2 NVIDIA + 1 AMD, 1 vendor-neutral row"
is "$(j '.summary | ([.layers[][] | .objects] | add) == .objects and ([.layers[][] | .bytes] | add) == .bytes')" \
        true "mixed: the layer rows add up to the objects and bytes of the image"
is "$(j '[.summary.layers[][] | .bytes_percent] | add | round')" 100 "mixed: the cells' bytes_percent add up to 100"
is "$(j '.summary | .layers.blas.nvidia.bytes_percent == ((.layers.blas.nvidia.bytes * 10000 / .bytes | round) / 100)')" \
        true "mixed: bytes_percent is the cell's share of the image's bytes"
is "$(j '[.summary.needs.runtime.nvidia.objects, .summary.needs.blas.nvidia.objects, (.summary.needs.runtime | keys | join(","))] | map(tostring) | join(" ")')" \
        "3 1 amd,nvidia,nvidia+amd" "mixed: summary.needs counts an object in each layer it needs (libapp.so in runtime too)"
is "$(j '.summary.targets.amd.gfx | join(",")')" "gfx90a:sramecc+:xnack-,gfx1030" "mixed: the union of AMD targets"
is "$(j '.summary.targets.nvidia.sass | join(",")')" "sm_80" "mixed: the union of NVIDIA SASS"
is "$(j '[.targets[] | .target + "=" + .verdict] | join(" ")')" \
        "sm_90=ptx-jit sm_75=cannot-run gfx1031=override gfx90a:sramecc+:xnack-=native" \
        "mixed: verdicts for sm_90, sm_75, gfx1031 and gfx90a:sramecc+:xnack-"
is "$(j '.targets[] | select(.target == "gfx1031") | .override.HSA_OVERRIDE_GFX_VERSION')" "10.3.0" \
        "mixed: gfx1031 runs with HSA_OVERRIDE_GFX_VERSION=10.3.0"
is "$(j '.targets[] | select(.target == "sm_75") | .blocking | join(",")')" "usr/lib/libkernel.so" \
        "mixed: sm_75 is blocked by libkernel.so"
is "$(j '.objects[] | select(.path == "usr/lib/libkernel.so") | .verdicts.sm_90')" "ptx-jit" \
        "mixed: per-object verdict for sm_90"
is "$(j '.elapsed_seconds | type')" "number" "mixed: elapsed_seconds is a number"

# --fail-on: 1 at the level or worse, 0 below it.
timeout 60 "$x" audit --for sm_75 --fail-on cannot-run "$t/mixed" >/dev/null 2>&1
is "$?" 1 "--fail-on cannot-run exits 1 when sm_75 cannot run"
timeout 60 "$x" audit --for sm_90 --fail-on cannot-run "$t/mixed" >/dev/null 2>&1
is "$?" 0 "--fail-on cannot-run exits 0 when sm_90 runs by PTX JIT"
timeout 60 "$x" audit --for sm_90 --fail-on ptx-jit "$t/mixed" >/dev/null 2>&1
is "$?" 1 "--fail-on ptx-jit exits 1 when sm_90 needs the JIT"
timeout 60 "$x" audit --for sm_80 --fail-on ptx-jit "$t/mixed" >/dev/null 2>&1
is "$?" 0 "--fail-on ptx-jit exits 0 when sm_80 is native"

# The environment counts: CUDA_FORCE_PTX_JIT, CUDA_DISABLE_PTX_JIT, a bad HSA value is refused.
CUDA_DISABLE_PTX_JIT=1 timeout 60 "$x" audit --for sm_90 --fail-on cannot-run "$t/mixed" >/dev/null 2>&1
is "$?" 1 "CUDA_DISABLE_PTX_JIT=1: sm_90 cannot run PTX-only code"
HSA_OVERRIDE_GFX_VERSION=10.3.0 audit_json "$t/env.json" --for gfx1031 "$t/mixed"
is "$(jq -r '.targets[0] | [.verdict, (.override_from_environment | tostring)] | join(" ")' "$t/env.json")" "override true" \
        "HSA_OVERRIDE_GFX_VERSION=10.3.0 from the environment is judged with"
HSA_OVERRIDE_GFX_VERSION=gfx1030 timeout 60 "$x" audit --for gfx1031 "$t/mixed" >/dev/null 2>"$t/bad-env.err"
is "$?" 2 "a malformed HSA_OVERRIDE_GFX_VERSION is a usage error"
like "$t/bad-env.err" 'HSA_OVERRIDE_GFX_VERSION=gfx1030 is not a gfx version' "the error names the variable"
timeout 60 "$x" audit --cuda-driver 12.8 --for sm_120 --fail-on cannot-run "$t/mixed" >/dev/null 2>&1
is "$?" 1 "--cuda-driver 12.8: PTX ISA 9.0 (CUDA 13.0) cannot be JIT-compiled"

# The text report a person reads.
timeout 60 "$x" audit --for sm_90 --for gfx1031 "$t/mixed" >"$t/mixed.txt" 2>&1
like "$t/mixed.txt" '^Audit of .*: [0-9]+ files, 5 objects' "text: the headline counts the objects"
like "$t/mixed.txt" '^Vendor-tied: 80\.0% of the objects' "text: the vendor-tied ratio"
like "$t/mixed.txt" '^runtime +- +2 +[0-9.]+ [KMG]?i?B +[0-9.]+% +1 +[0-9.]+ [KMG]?i?B +[0-9.]+%$' \
        "text: the layer table's runtime row, NVIDIA and AMD objects with bytes and %"
like "$t/mixed.txt" '^vendor-neutral +1 +[0-9.]+ [KMG]?i?B +[0-9.]+% +- +-$' "text: the vendor-neutral objects' row"
like "$t/mixed.txt" '^total +1 .* 3 .* 1 .*%$' "text: the total row"
like "$t/mixed.txt" '^What the objects need' "text: the needs view is labelled"
like "$t/mixed.txt" '^runtime +3 / ' "text: the needs view counts libapp.so in runtime too"
like "$t/mixed.txt" '^  gfx1031 +override +libhip.so has no code object for gfx1031' "text: the gfx1031 verdict and why"
like "$t/mixed.txt" 'set +HSA_OVERRIDE_GFX_VERSION=10\.3\.0' "text: the override to set"
like "$t/mixed.txt" '^  stub-driver-library: usr/lib/libcuda.so.1 is a stub' "text: the stub issue"

# A CUDA image on an AMD GPU: a few deciding objects in words, the JSON keeps them all.
image "$t/cuda4" nvidia/libkernel.so nvidia/librdc.so elf/libapp.so elf/libcuda.so.1
timeout 60 "$x" audit --for gfx90a "$t/cuda4" >"$t/cuda4.txt" 2>&1
like "$t/cuda4.txt" '^  gfx90a +cannot-run this image has CUDA \(libapp.so, libcuda.so.1, libkernel.so and 1 more\) and nothing for AMD' \
        "text: a cross-vendor verdict names three objects and counts the rest"
is "$(sed -n '/^Verdicts/,/^$/p' "$t/cuda4.txt" | grep -c ' usr/lib/')" 3 "text: three deciding objects listed"
like "$t/cuda4.txt" '^ +and 1 more \(--json lists them all\)$' "text: and the count of the rest"
audit_json "$t/cuda4.json" --for gfx90a "$t/cuda4"
is "$(jq -r '.targets[0].blocking | length' "$t/cuda4.json")" 4 "json: blocking keeps every deciding object"
# No device code at all: native, and the reason says why in words.
image "$t/plain" elf/libplain.so
audit_json "$t/plain.json" --for gfx90a --for sm_90 "$t/plain"
is "$(jq -r '[.targets[] | .verdict + ": " + .reason] | join(" | ")' "$t/plain.json")" \
        "native: no device code: the image runs no kernels of its own on gfx90a (no library or program in it carries AMD device code), so there is nothing to fail | native: no device code: the image runs no kernels of its own on sm_90 (no library or program in it carries NVIDIA device code), so there is nothing to fail" \
        "no device code: native, and the reason says there is nothing to fail"
timeout 60 "$x" audit --for gfx90a "$t/plain" >"$t/plain.txt" 2>&1
like "$t/plain.txt" '^  gfx90a +native +no device code: the image runs no kernels of its own on gfx90a' "text: no device code, in words"

# Kernel files with nothing for the GPU: the issue's path names their directory (and "." the root).
image "$t/kfiles" amd/libhip.so
mkdir -p "$t/kfiles/opt/rocm/lib/kernels" || bail "mkdir kernels"
cp "$dc/amd/kernel.hsaco" "$t/kfiles/opt/rocm/lib/kernels/" || bail "cp kernel.hsaco"
cp "$dc/amd/kernel.hsaco" "$t/kfiles/top.hsaco" || bail "cp top.hsaco"
audit_json "$t/kfiles.json" --for gfx90a:sramecc+:xnack- "$t/kfiles"
is "$(jq -r '[.issues[] | select(.kind == "kernel-files-without-host-target") | .path + " = " + .message] | join(" | ")' "$t/kfiles.json")" \
        ". = .: 1 AMD kernel file(s), none for gfx90a:sramecc+:xnack- | opt/rocm/lib/kernels = opt/rocm/lib/kernels: 1 AMD kernel file(s), none for gfx90a:sramecc+:xnack-" \
        "kernel-files-without-host-target: path is the directory, relative to the root"

# ---- the index and the start-time check ----------------------------------------------------------
image "$t/cuda" nvidia/libkernel.so elf/libapp.so
timeout 60 "$x" audit --write-index "$t/cuda/etc/xpuinit/device-code.json" "$t/cuda" >/dev/null 2>&1
is "$?" 0 "--write-index exits 0 and creates its directory"
is "$(jq -r '[.version, (.objects | length)] | map(tostring) | join(" ")' "$t/cuda/etc/xpuinit/device-code.json")" "1 2" \
        "index: version 1 with the two vendor-tied objects"
if [ -e "$t/cuda/etc/xpuinit/.device-code.json.tmp" ]; then
        not_ok "index: no temporary file left"
else
        ok "index: no temporary file left"
fi
e2e_fixture amd-mi210x8
amd=$E2E_FIXTURE
image "$t/hip" amd/libhip.so
timeout 60 "$x" audit --write-index "$t/index-hip.json" "$t/hip" >/dev/null 2>&1 || bail "audit --write-index hip"
# The fixture's device nodes, made for real: what a container with the GPUs would have.
e2e_dev_root "$amd" "$t/devroot"
XPUINIT_DEVICE_CODE_INDEX=$t/cuda/etc/xpuinit/device-code.json timeout 60 "$x" --sys-root "$amd" --dev-root "$t/devroot" \
        --driver-root "$amd" --inject none -- /bin/true >"$t/start.out" 2>"$t/start.err"
is "$?" 125 "start: a CUDA-only image on the AMD host exits 125"
like "$t/start.err" 'the image cannot run on gfx90a: this image has CUDA \(libapp.so, libkernel.so\) and nothing for AMD; it cannot run on this node.s 8 × ' \
        "start: one line names the image's vendor, its libraries and the node's GPUs"
XPUINIT_DEVICE_CODE_INDEX=$t/cuda/etc/xpuinit/device-code.json XPUINIT_DEVICE_CODE=warn timeout 60 "$x" plan --json \
        --sys-root "$amd" --dev-root "$t/devroot" --driver-root "$amd" -- /bin/true >"$t/plan.json" 2>/dev/null
is "$(jq -r '.device_code.verdict' "$t/plan.json")" "cannot-run" "plan: shows the verdict"
XPUINIT_DEVICE_CODE_INDEX=$t/cuda/etc/xpuinit/device-code.json XPUINIT_DEVICE_CODE=off timeout 60 "$x" plan --json \
        --sys-root "$amd" --dev-root "$t/devroot" --driver-root "$amd" -- /bin/true >"$t/plan-off.json" 2>/dev/null
is "$(jq -r '.device_code' "$t/plan-off.json")" "null" "XPUINIT_DEVICE_CODE=off: nothing judged"
printf '{"version": 1, "objects": [{"path": "x", "kind": "exe"}]}' >"$t/bad-index.json"
XPUINIT_DEVICE_CODE_INDEX=$t/bad-index.json timeout 60 "$x" --sys-root "$amd" --dev-root "$t/devroot" --driver-root "$amd" \
        --inject none -- /bin/true >/dev/null 2>"$t/bad-index.err"
is "$?" 125 "start: a damaged index is refused under enforce"
like "$t/bad-index.err" 'device-code index .*bad-index.json: object "x": "kind" is not elf.*write it again with `xpuinit audit --write-index' \
        "start: the error names the index, the field and the fix"
# A profile may carry the mode; XPUINIT_DEVICE_CODE wins over it.
mkdir -p "$t/profiles"
printf '{"name": "amd-lenient", "priority": 1000, "match": {"vendor": "amd"}, "device_code": "warn"}\n' \
        >"$t/profiles/amd-lenient.json"
XPUINIT_DEVICE_CODE_INDEX=$t/cuda/etc/xpuinit/device-code.json timeout 60 "$x" --profile-dir "$t/profiles" \
        --sys-root "$amd" --dev-root "$t/devroot" --driver-root "$amd" --inject none -- /bin/true >/dev/null 2>"$t/prof.err"
is "$?" 0 "profile \"device_code\": \"warn\": the CUDA-only image starts on the AMD host"
like "$t/prof.err" 'warning: the image cannot run on gfx90a' "profile warn: the verdict is a warning"
XPUINIT_DEVICE_CODE=enforce XPUINIT_DEVICE_CODE_INDEX=$t/cuda/etc/xpuinit/device-code.json timeout 60 "$x" \
        --profile-dir "$t/profiles" --sys-root "$amd" --dev-root "$t/devroot" --driver-root "$amd" --inject none \
        -- /bin/true >/dev/null 2>&1
is "$?" 125 "XPUINIT_DEVICE_CODE=enforce wins over the profile's warn"
printf '{"name": "amd-lenient", "priority": 1000, "match": {"vendor": "amd"}, "device_code": "never"}\n' \
        >"$t/profiles/amd-lenient.json"
timeout 60 "$x" --profile-dir "$t/profiles" --sys-root "$amd" --dev-root "$t/devroot" --driver-root "$amd" \
        plan >/dev/null 2>"$t/prof-bad.err"
is "$?" 125 "a profile with an unknown device_code is refused"
like "$t/prof-bad.err" 'device_code.*"enforce", "apply", "warn" or "off"' "the error names the key and the values"
# A node with GPUs of several kinds: the process-wide override one needs must not stop another.
e2e_fixture amd-edge-quirks
quirks=$E2E_FIXTURE
e2e_dev_root "$quirks" "$t/devroot-quirks"
printf '%s\n' '{"version": 1, "objects": [{"path": "usr/lib/libk.so", "kind": "elf", "vendor": "amd",' \
        '"amd": {"gfx": ["gfx90a", "gfx1031"]}}]}' >"$t/mixed-index.json"
XPUINIT_DEVICE_CODE=apply XPUINIT_DEVICE_CODE_INDEX=$t/mixed-index.json timeout 60 "$x" --sys-root "$quirks" \
        --dev-root "$t/devroot-quirks" --driver-root "$quirks" --inject none -- /bin/true >/dev/null 2>"$t/quirks.err"
is "$?" 125 "mixed node: an override for the gfx1030 that would stop the gfx90a is refused, even with apply"
like "$t/quirks.err" 'gfx1030 needs HSA_OVERRIDE_GFX_VERSION=10\.3\.1, which this process-wide setting would give gfx90a too' \
        "mixed node: the line names both GPUs and the variable"
# A variable another vendor's runtime reads, with a value it does not know, never stops the start.
CUDA_FORCE_PTX_JIT=yes XPUINIT_DEVICE_CODE_INDEX=$t/index-hip.json timeout 60 "$x" --sys-root "$amd" \
        --dev-root "$t/devroot" --driver-root "$amd" --inject none -- /bin/true >/dev/null 2>"$t/env.err"
is "$?" 0 "CUDA_FORCE_PTX_JIT=yes on an AMD host: the start goes on"
like "$t/env.err" 'CUDA_FORCE_PTX_JIT=yes: .*judged as if it were unset' "CUDA_FORCE_PTX_JIT=yes: one warning"
XPUINIT_DEVICE_CODE=sometimes timeout 60 "$x" plan --sys-root "$amd" >/dev/null 2>"$t/mode.err"
is "$?" 2 "an unknown XPUINIT_DEVICE_CODE is a usage error"

# ---- --k8s-affinity -------------------------------------------------------------------------------
image "$t/hip1030" amd/libhip1030.so
timeout 60 "$x" audit --k8s-affinity "$t/hip1030" >"$t/hip.yaml" 2>&1
is "$?" 0 "--k8s-affinity exits 0"
is "$(sed -n 's/^ *- "\(.*\)"$/\1/p' "$t/hip.yaml" | tr '\n' ' ')" "gfx1030 " \
        "--k8s-affinity: a gfx1030-only image admits only gfx1030 nodes"
like "$t/hip.yaml" '^ *- key: feature.node.kubernetes.io/xpu.arch$' "--k8s-affinity: by the xpu.arch label"
timeout 60 "$x" audit --k8s-affinity "$t/cuda" >"$t/cuda.yaml" 2>&1
is "$(sed -n 's/^ *- "\(.*\)"$/\1/p' "$t/cuda.yaml" | tr '\n' ' ')" \
        "sm_80 sm_86 sm_87 sm_88 sm_89 sm_90 sm_100 sm_101 sm_103 sm_110 sm_120 sm_121 " \
        "--k8s-affinity: sm_80 SASS and compute_90 PTX admit 8.x natively and 9.0 and later by JIT"

# ---- usage errors -----------------------------------------------------------------------------------
for args in "--for sm_9x /" "--for gfx11-generic /" "--fail-on worse /" "--cuda-driver 13.x /" "/ /tmp" \
        "--for" "--k8s-affinity --json /" "--k8s-affinity --for sm_90 /"; do
        # shellcheck disable=SC2086 # one argument per word
        timeout 60 "$x" audit $args >/dev/null 2>"$t/usage.err"
        is "$?" 2 "usage error: audit $args"
done
timeout 60 "$x" probe --for sm_90 >/dev/null 2>&1
is "$?" 2 "usage error: --for outside audit"
timeout 60 "$x" --sys-root "$t/devroot" audit --fail-on cannot-run "$t/mixed" >/dev/null 2>"$t/vacuous.err"
is "$?" 2 "--fail-on with no GPU to judge is a usage error, not a pass"
like "$t/vacuous.err" 'no GPU to judge.*--for' "the error says to name the GPUs with --for"

# nvidia-smi's spellings are taken: --for 9.0, --cuda-driver 13.
audit_json "$t/spell.json" --for 8.0 --cuda-driver 13 "$t/mixed"
is "$(jq -r '.targets[0].target + " " + .targets[0].verdict' "$t/spell.json")" "sm_80 native" "--for 8.0 is sm_80"

# One file is a root of one object.
audit_json "$t/one.json" --for sm_80 "$dc/nvidia/libkernel.so"
is "$(jq -r '[(.objects | length), .objects[0].path, .targets[0].verdict] | map(tostring) | join(" ")' "$t/one.json")" \
        "1 libkernel.so native" "a single library is audited as it is"

# --fail-on says which target failed.
timeout 60 "$x" audit --for sm_75 --fail-on cannot-run "$t/mixed" >/dev/null 2>"$t/failon.err"
like "$t/failon.err" 'audit: --fail-on cannot-run: sm_75 is cannot-run' "--fail-on names the failing target"
timeout 60 "$x" audit "$t/does-not-exist" >/dev/null 2>"$t/missing.err"
is "$?" 2 "a missing root is a usage error"
like "$t/missing.err" 'cannot open the root directory .*does-not-exist' "the error names the root"

# An index the start would refuse is never written; an incomplete audit writes none.
mkdir -p "$t/deep"
d=$t/deep
i=0
while [ $i -lt 205 ]; do d=$d/d; i=$((i + 1)); done
mkdir -p "$d" && cp "$dc/nvidia/libkernel.so" "$d/"
timeout 60 "$x" audit --write-index "$t/deep.json" "$t/deep" >/dev/null 2>"$t/deep.err"
is "$?" 125 "--write-index of an incomplete audit (a directory 205 levels deep) fails"
if [ -e "$t/deep.json" ]; then not_ok "incomplete: no index written"; else ok "incomplete: no index written"; fi
like "$t/deep.err" 'incomplete.*none is written' "incomplete: the error says why"
timeout 60 "$x" audit --for sm_75 --fail-on cannot-run "$t/deep" >"$t/deep.txt" 2>/dev/null
is "$?" 1 "--fail-on fails an incomplete audit"
like "$t/deep.txt" '^INCOMPLETE: 1 directories deeper than 200 levels were not read' "the report says INCOMPLETE"

# An image whose index would pass the bounds a start reads (131,072 JSON values) gets none, and
# says so at build time: 7,000 standalone fatbin files of one entry each.
/usr/bin/python3 - "$t/many-kernels" <<'PY' || bail "writing the kernel files"
import os, struct, sys
root = sys.argv[1]
entry = bytearray(64)
struct.pack_into("<HxxI", entry, 0, 2, 64)
struct.pack_into("<I", entry, 0x1C, 80)
blob = struct.pack("<IHHQ", 0xBA55ED50, 1, 16, 64) + bytes(entry)
for d in range(7):
    os.makedirs("%s/kernels/%d" % (root, d))
    for i in range(1000):
        with open("%s/kernels/%d/k%d.fatbin" % (root, d, i), "wb") as f:
            f.write(blob)
PY
timeout 120 "$x" audit --write-index "$t/many-kernels.json" "$t/many-kernels" >/dev/null 2>"$t/many-kernels.err"
is "$?" 125 "--write-index of an index past the start's bounds fails"
like "$t/many-kernels.err" 'would not read back \(more than 131072 JSON values.*nothing written' \
        "past the bounds: the error names the bound"
if [ -e "$t/many-kernels.json" ]; then not_ok "past the bounds: no index written"; else ok "past the bounds: no index written"; fi

# ---- hostile roots ------------------------------------------------------------------------------------
h=$t/hostile
image "$h" nvidia/libkernel.so
ln -s loop "$h/usr/lib/loop"
ln -s ../.. "$h/usr/lib/up"
ln -s "$dc" "$h/usr/lib/outside"
mkfifo "$h/usr/lib/libfifo.so"
truncate -s 4G "$h/usr/lib/libhuge.so"
head -c 300 "$dc/nvidia/libkernel.so" >"$h/usr/lib/libcut.so"
head -c 20000 "$dc/amd/libhip.so" >"$h/usr/lib/libcuthip.so"
printf '\177ELF garbage' >"$h/usr/lib/libgarbage.so"
# The loader needs no section headers: a library stripped of them must not pass for neutral.
cp "$dc/nvidia/libkernel.so" "$h/usr/lib/libnoshdr.so"
printf '\000\000\000\000\000\000\000\000' | dd of="$h/usr/lib/libnoshdr.so" bs=1 seek=40 conv=notrunc status=none
printf '\000\000\000\000' | dd of="$h/usr/lib/libnoshdr.so" bs=1 seek=60 conv=notrunc status=none
# A name that would forge report lines, and a 32-bit object (no 64-bit GPU runtime loads it).
cp "$dc/nvidia/libkernel.so" "$h/usr/lib/$(printf 'libk.so\n  sm_80 native forged\033[31m')"
printf '\177ELF\001\001\001\000\000\000\000\000\000\000\000\000' >"$h/usr/lib/lib32.so"
audit_json "$t/hostile.json" --for sm_80 "$h"
is "$AUDIT_RC" 0 "hostile: audit finishes (loops, links out, a FIFO, a 4 GiB sparse file)"
is "$(jq -r '[.objects[].path | select(startswith("usr/lib/libk.so\n") | not)] | join(" ")' "$t/hostile.json")" \
        "usr/lib/libcut.so usr/lib/libcuthip.so usr/lib/libgarbage.so usr/lib/libkernel.so usr/lib/libnoshdr.so" \
        "hostile: nothing outside the root; the FIFO, the sparse file and the 32-bit object are not objects"
timeout 60 "$x" audit --for sm_80 "$h" >"$t/hostile.txt" 2>&1
unlike "$t/hostile.txt" '^  sm_80 native forged' "hostile: a file name cannot forge a report line"
unlike "$t/hostile.txt" "$(printf '\033')" "hostile: no escape sequence reaches the terminal"
is "$(jq -r '[.issues[] | select(.kind == "malformed-object") | .path] | join(" ")' "$t/hostile.json")" \
        "usr/lib/libcut.so usr/lib/libcuthip.so usr/lib/libgarbage.so usr/lib/libnoshdr.so" \
        "hostile: each damaged ELF, and one without section headers, is a malformed-object issue"
is "$(jq -r '.summary.walk | [.links, .special] | map(tostring) | join(" ")' "$t/hostile.json")" "3 1" \
        "hostile: three links not followed, one special file not opened"
is "$(jq -r '.objects[] | select(.path == "usr/lib/libkernel.so") | .verdicts.sm_80' "$t/hostile.json")" "native" \
        "hostile: the intact library is still judged"
# The library without section headers still says what it needs (PT_DYNAMIC): it is CUDA's, and
# its device code cannot be found, so nothing says the image runs.
is "$(jq -r '.objects[] | select(.path == "usr/lib/libnoshdr.so") | [.vendor, (.needed | join(","))] | join(" ")' \
        "$t/hostile.json")" "nvidia libcudart.so.13" "hostile: a library without section headers keeps its vendor and needs"
is "$(jq -r '.targets[0] | [.verdict, (.blocking | join(","))] | join(" ")' "$t/hostile.json")" \
        "cannot-run usr/lib/libnoshdr.so" "hostile: its unreadable device code decides"

e2e_done
