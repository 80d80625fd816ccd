/* SPDX-License-Identifier: Apache-2.0 */
/* Intel's GPUs on WSL2 (vendor.h, struct xpu_vendor_wsl; probes/wsl.h). The graphics driver's
 * package is "iigd_dch.inf", with an OEM prefix on some laptops ("6_lenovo_iigd_dch.inf_amd64_
 * <hash>": github.com/NVIDIA/k8s-device-plugin/issues/207; "iigd_dch.inf_amd64_<hash>":
 * github.com/yuk7/ArchWSL/issues/308, github.com/microsoft/WSL/issues/6423). Its folder holds
 * mostly Windows DLLs (the ArchWSL listing): Level Zero and OpenCL on WSL2 are the compute-runtime
 * in the image, reaching the driver through /dev/dxg and Microsoft's libdxcore
 * (github.com/intel/compute-runtime/issues/391 and /625); Mesa's D3D12 driver uses libd3d12 and
 * libd3d12core from /usr/lib/wsl/lib (github.com/microsoft/WSL/issues/12653). */
#include "intel.h"
#include "vendor.h"

static const char *const intel_wsl_patterns[] = { "iigd_dch*.inf_amd64_*", "*_iigd_dch*.inf_amd64_*", NULL };

static const char *const intel_wsl_files[] = {
        "libdxcore.so",    /* Microsoft's dxcore (in /usr/lib/wsl/lib) */
        "libd3d12.so",     /* Direct3D 12, for Mesa's D3D12 driver (graphics, video) */
        "libd3d12core.so", /* its core */
        NULL,
};

const struct xpu_vendor_wsl xpu_wsl_intel = {
        .store_patterns = intel_wsl_patterns,
        .files = intel_wsl_files,
};
