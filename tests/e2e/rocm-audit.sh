#!/bin/sh
# End to end, `xpuinit audit` against Debian 12's real ROCm 5.x libraries: the test downloads
# librocsparse0, librocrand1, libhipsparse0, libhiprand1 and libamdhip64-5 (apt-get download) and
# unpacks them into a fresh root (dpkg-deb -x), as the layer of an image that installed them would
# hold them, without installing anything on this machine. their packages hold what they
# carry: rocRAND and rocSPARSE have gfx803, gfx900:xnack-, gfx906:xnack-, gfx908:xnack-,
# gfx90a:xnack±, gfx1030 and nothing for gfx11.
. "$(dirname "$0")/lib.sh"
e2e_init
need_tools apt-get dpkg-deb

x=$XPU_BUILD/xpuinit
dl=$E2E_TMP/debs
root=$E2E_TMP/root
mkdir -p "$dl" "$root" || bail "mkdir"
pkgs="librocsparse0 librocrand1 libhipsparse0 libhiprand1 libamdhip64-5"
# shellcheck disable=SC2086 # one package per word
if ! (cd "$dl" && apt-get download $pkgs >/dev/null 2>&1); then
        apt-get update >/dev/null 2>&1
        # shellcheck disable=SC2086
        (cd "$dl" && apt-get download $pkgs >/dev/null 2>&1) || bail "apt-get download $pkgs failed"
fi
for d in "$dl"/*.deb; do
        dpkg-deb -x "$d" "$root" || bail "dpkg-deb -x $d"
done
lib=usr/lib/x86_64-linux-gnu

timeout 120 "$x" audit --json --for gfx90a:xnack- --for gfx90a:xnack+ --for gfx1030 --for gfx1031 --for gfx1100 \
        --for sm_90 "$root" >"$E2E_TMP/rocm.json" 2>"$E2E_TMP/rocm.err"
is "$?" 0 "audit of the unpacked ROCm packages exits 0"
j() { jq -r "$1" "$E2E_TMP/rocm.json"; }
o() { j ".objects[] | select(.path | startswith(\"$lib/$1\")) | $2"; }
want="gfx803,gfx900:xnack-,gfx906:xnack-,gfx908:xnack-,gfx90a:xnack+,gfx90a:xnack-,gfx1030"
is "$(o librocsparse.so '.amd.gfx | join(",")')" "$want" "rocSPARSE: the target IDs Debian built it for"
is "$(o librocrand.so '.amd.gfx | join(",")')" "$want" "rocRAND: the same targets"
is "$(o librocsparse.so '[.library, (.layers | join(",")), (.amd.sections | join(","))] | join(" ")')" \
        "librocsparse runtime,sparse,parallel-algorithms .hip_fatbin" \
        "rocSPARSE: sparse layer, rocPRIM instantiations, code in .hip_fatbin"
is "$(o libhipsparse.so '[.library, (.layers | join(",")), (.needed | join(","))] | join(" ")')" \
        "libhipsparse runtime,sparse librocsparse.so.0,libamdhip64.so.5" "hipSPARSE: needs rocSPARSE and HIP"
is "$(o libhiprand.so '.layers | join(",")')" "runtime,fft-rand-solver" "hipRAND: fft-rand-solver layer"
is "$(o libamdhip64.so '[.library, (.needed | join(","))] | join(" ")')" "libamdhip64 libhsa-runtime64.so.1" \
        "HIP runtime: needs the HSA runtime"
is "$(j '[.targets[] | .target + "=" + .verdict] | join(" ")')" \
        "gfx90a:xnack-=native gfx90a:xnack+=native gfx1030=native gfx1031=override gfx1100=cannot-run sm_90=cannot-run" \
        "verdicts: MI200 either XNACK mode, RDNA2 native, gfx1031 by override, nothing for RDNA3 or NVIDIA"
is "$(j '.targets[] | select(.target == "gfx1031") | .override.HSA_OVERRIDE_GFX_VERSION')" "10.3.0" \
        "gfx1031: HSA_OVERRIDE_GFX_VERSION=10.3.0, a target both libraries have"
is "$(j '.targets[] | select(.target == "gfx1100") | .blocking | length')" 2 "gfx1100: rocRAND and rocSPARSE decide"
is "$(j '.targets[] | select(.target == "sm_90") | .reason')" \
        "this image has ROCm/HIP (libamdhip64.so.5, libhiprand.so.1, libhipsparse.so.0 and 2 more) and nothing for NVIDIA; it cannot run on sm_90" \
        "sm_90: this image has ROCm/HIP and nothing for NVIDIA, three libraries named and the rest counted"
is "$(j '.summary.vendors.amd.objects')" 5 "five AMD objects"
# rocSPARSE needs HIP but is counted once, in sparse: the runtime row is libamdhip64 alone.
is "$(j '.summary.layers.runtime.amd.bytes')" "$(o libamdhip64.so .size_bytes)" "the runtime row is libamdhip64's bytes only"
is "$(j '[.summary.layers.sparse.amd.objects, .summary.layers."fft-rand-solver".amd.objects, .summary.needs.runtime.amd.objects] | map(tostring) | join(" ")')" \
        "2 2 5" "rocSPARSE and hipSPARSE in sparse, rocRAND and hipRAND in fft-rand-solver; all five need the runtime"
is "$(j '.summary | ([.layers[][] | .bytes] | add) == .bytes')" true "the layer rows add up to the image's bytes"
is "$(j '[.issues[] | select(.kind == "malformed-object")] | length')" 0 "nothing malformed"

e2e_done
