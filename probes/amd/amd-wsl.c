/* SPDX-License-Identifier: Apache-2.0 */
/* AMD's GPUs on WSL2 (vendor.h, struct xpu_vendor_wsl; probes/wsl.h). The Adrenalin driver's
 * display package is "u0<number>.inf" (the folder /usr/lib/wsl/drivers/u0420529.inf_amd64_<hash>
 * beside NVIDIA's in NVIDIA/nvidia-container-toolkit PR 1890; the INF name is AMD's package
 * naming, inferred). ROCm on WSL2 is user space in the image (librocdxg, the HSA runtime with
 * HSA_ENABLE_DXG_DETECTION; ROCm/librocdxg issues 6 and 35) that reaches the Windows driver through
 * /dev/dxg and Microsoft's libdxcore (ROCm/rocm-systems PR 8745): the host gives libdxcore. */
#include "amd.h"
#include "vendor.h"

static const char *const amd_wsl_patterns[] = { "u0*.inf_amd64_*", NULL };

static const char *const amd_wsl_files[] = {
        "libdxcore.so", /* Microsoft's dxcore (in /usr/lib/wsl/lib): librocdxg's way to the driver */
        NULL,
};

/* The HSA runtime looks for /dev/dxg only when asked, before ROCm 7.13 (github.com/ROCm/librocdxg/issues/34
 * and /35; github.com/ROCm/legacy-rocm-build/issues/6296). */
static const char *const amd_wsl_env[] = { "HSA_ENABLE_DXG_DETECTION=1", NULL };

const struct xpu_vendor_wsl xpu_wsl_amd = {
        .store_patterns = amd_wsl_patterns,
        .files = amd_wsl_files,
        .env = amd_wsl_env,
};
