#!/bin/sh
# make check-real: `xpuinit audit` against NVIDIA's real CUDA 13 libraries (CUDA_LIB, default
# /usr/local/cuda/lib64: the toolkit with cuDNN 9 and NCCL 2; not a Debian package, so not part
# of make check). Checks facts an independent parser measured on the same libraries; TAP output.
#   sh tests/real/cuda-audit.sh BUILD_DIR
set -u
build=${1:-build}
lib=${CUDA_LIB:-/usr/local/cuda/lib64}
n=0
failed=0
ok() { n=$((n + 1)); printf 'ok %d - %s\n' "$n" "$1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); printf 'not ok %d - %s\n' "$n" "$1"; }
is() {
        if [ "$1" = "$2" ]; then ok "$3"; else
                not_ok "$3"
                printf '# got:  %s\n# want: %s\n' "$1" "$2"
        fi
}
[ -d "$lib" ] || { echo "Bail out! $lib does not exist (NVIDIA's CUDA toolkit); set CUDA_LIB"; exit 1; }
command -v jq >/dev/null || { echo "Bail out! jq is not installed"; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$build/xpuinit" audit --json --cuda-driver 13.0 --for sm_70 --for sm_80 --for sm_90 --for sm_100 --for sm_110 \
        --for sm_120 --for gfx942 "$lib" >"$out" || { echo "Bail out! audit failed"; exit 1; }
q() { jq -r "$1" "$out"; }
o() { q ".objects[] | select(.path == \"$1\") | $2"; }
is "$(q '[.targets[] | .target + "=" + .verdict] | join(" ")')" \
        "sm_70=cannot-run sm_80=native sm_90=native sm_100=native sm_110=cannot-run sm_120=native gfx942=cannot-run" \
        "verdicts: no V100 (sm_70) or Thor (sm_110), 8.0 to 12.0 native, nothing for AMD"
is "$(q '.targets[] | select(.target == "gfx942") | [(.reason | test("^this image has CUDA \\([^)]*, [^)]*, [^,)]* and 29 more\\) and nothing for AMD")), (.blocking | length)] | map(tostring) | join(" ")')" \
        "true 32" "gfx942: three libraries named and 29 more; blocking lists all 32"
is "$(o libcufft.so.12 '.nvidia.sections | join(",")')" ".nv_fatbin,.ldata" "cuFFT: its containers in .ldata are found"
is "$(o libcublasLt.so.13 '.nvidia.sections | join(",")')" ".nv_fatbin,.cask_resource" \
        "cuBLASLt: containers in .nv_fatbin and .cask_resource"
is "$(o libcublasLt.so.13 '[.nvidia.sass[] | select(. == "sm_90a" or . == "sm_100f" or . == "sm_120f")] | sort | join(",")')" \
        "sm_100f,sm_120f,sm_90a" "cuBLASLt: arch- and family-specific SASS"
is "$(o libcudnn_ops.so.9 '[.nvidia.sass[] | select(startswith("sm_90"))] | join(",")')" "sm_90a" \
        "cuDNN: Hopper only through sm_90a"
is "$(o libcufftw.so.12 '(.nvidia.sass // []) | length')" 0 "cuFFTW: its device-link stub holds no kernel"
is "$(o libcusparse.so.12 '.nvidia.sections | join(",")')" ".rodata,.nv_fatbin" "cuSPARSE: containers in .rodata too"
is "$(o libcusparse.so.12 '.layers | join(",")')" "sparse,parallel-algorithms,jit" \
        "cuSPARSE: its CUB kernels, registered by names in .rodata, are parallel-algorithms"
is "$(q '[.objects[] | select(.path | startswith("libcudnn_")) | .library] | join(" ")')" \
        "libcudnn_adv libcudnn_cnn libcudnn_engines_precompiled libcudnn_engines_runtime_compiled libcudnn_graph libcudnn_heuristic libcudnn_ops" \
        "cuDNN 9: each library is its own, not the table's libcudnn_*"
is "$(q '[.objects[] | select(.malformed)] | length')" 0 "no real library is malformed"
is "$(o libnccl.so.2 '(.nvidia.relocatable.sass | length) > 0')" true "NCCL: relocatable code reported apart"
is "$(o libnccl.so.2 '.layers | join(",")')" "collectives" "NCCL: collectives layer"
is "$(o libcublasLt.so.13 '.library + " " + (.layers | join(","))')" "libcublasLt blas" "cuBLASLt: blas layer"
is "$(o libnvrtc.so.13 '.layers | join(",")')" "jit" "NVRTC: jit layer"
is "$(o libcudart.so.13 '.cudart')" 13 "cudart: CUDA 13 runtime"
is "$(q '[.issues[] | select(.kind == "stub-driver-library") | .path] | join(",")')" "stubs/libcuda.so" \
        "stubs/libcuda.so: a stub driver library"
is "$(q '[.issues[] | select(.kind == "malformed-object")] | length')" 0 "no object is malformed"
is "$(q '.summary.vendors.nvidia.objects == .summary.objects')" true "every object is tied to NVIDIA"
is "$(q '.summary | ([.layers[][] | .objects] | add) == .objects')" true "each object counts in one layer"
is "$(q '[.summary.layers.runtime.nvidia.objects, .summary.needs.runtime.nvidia.objects] | map(tostring) | join(" ")')" \
        "2 2" "runtime: libcudart and the libcuda stub, once each"
is "$(q '[.summary.layers.blas.nvidia.objects, .summary.needs.blas.nvidia.objects] | map(tostring) | join(" ")')" "3 5" \
        "blas: cuBLAS, cuBLASLt and nvblas are BLAS; cuSOLVER and cuSOLVERMg need it"
printf '1..%d\n' "$n"
[ "$failed" -eq 0 ]
