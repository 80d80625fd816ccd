/* SPDX-License-Identifier: Apache-2.0 */
/* NVIDIA's GPUs on WSL2 (vendor.h, struct xpu_vendor_wsl; probes/wsl.h). The Windows driver's
 * package lands in /usr/lib/wsl/drivers/ under its INF's name, which differs by product line and
 * packager: nv_dispi, nv_dispsi, nvltwi, nvfrwi, ... ("nv*.inf_amd64_<hash>":
 * github.com/NVIDIA/nvidia-container-toolkit/pull/1890 and /issues/1739,
 * github.com/NVIDIA/k8s-device-plugin/issues/207). NVIDIA has other
 * packages there too (audio, USB-C), so the folder must hold libcuda.so.1.1, the file the
 * toolkit's dxcore lookup and libnvidia-container's dxcore.c require of the GPU driver's folder.
 * The files are the toolkit's wsl mode's (pkg/nvcdi/driver-wsl.go, requiredDriverStoreFiles),
 * looked for in the folder first, then in /usr/lib/wsl/lib. */
#include "nvidia.h"
#include "vendor.h"

static const char *const nvidia_wsl_patterns[] = { "nv*.inf_amd64_*", NULL };

static const char *const nvidia_wsl_files[] = {
        "libcuda.so.1.1",                /* the CUDA driver (its SONAME libcuda.so.1) */
        "libcuda_loader.so",             /* libcuda's WSL loader */
        "libnvidia-ptxjitcompiler.so.1", /* the PTX JIT */
        "libnvidia-ml.so.1",             /* NVML */
        "libnvidia-ml_loader.so",        /* NVML's WSL loader */
        "libdxcore.so",                  /* Microsoft's dxcore (in /usr/lib/wsl/lib) */
        "libnvdxgdmal.so.1",             /* CUDA's dxg memory allocator */
        "nvcubins.bin",                  /* the driver's own GPU code */
        "nvidia-smi",                    /* the Linux nvidia-smi of the Windows driver */
        NULL,
};

/* The driver store path is kept, so the toolkit links nvidia-smi where images look for it
 * (driver-wsl.go, nvidiaSMISimlinkHook). */
static const char *const nvidia_wsl_links[] = { "/usr/bin/nvidia-smi=nvidia-smi", NULL };

const struct xpu_vendor_wsl xpu_wsl_nvidia = {
        .store_patterns = nvidia_wsl_patterns,
        .store_marker = "libcuda.so.1.1",
        .files = nvidia_wsl_files,
        .links = nvidia_wsl_links,
};
