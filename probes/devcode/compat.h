/* SPDX-License-Identifier: Apache-2.0 */
/* Whether one piece of device code runs on one GPU: the vendors' compatibility rules as pure
 * functions, with no I/O. Sources: NVIDIA's CUDA programming guide (compute capability and SASS
 * compatibility; arch-specific "a" and family-specific "f" targets, CUDA 12.9's "family-specific
 * architecture features"), the PTX ISA release history (docs.nvidia.com/cuda/parallel-thread-execution,
 * "Release History"; the same table in cuda-python's _ptx_utils.py), and LLVM's AMDGPUUsage
 * (target IDs, target features, generic processors). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "devcode/fatbin.h"

/* How a GPU gets to run an image's code, best first (the worst of an image's objects wins). */
enum xpu_code_level {
        XPU_CODE_NATIVE = 0,     /* machine code for the GPU (SASS, or a code object of its target) */
        XPU_CODE_PTX_JIT = 1,    /* only PTX: the driver compiles it at the first start */
        XPU_CODE_OVERRIDE = 2,   /* AMD: only with HSA_OVERRIDE_GFX_VERSION or HSA_XNACK set */
        XPU_CODE_CANNOT_RUN = 3,
};

/* "native", "ptx-jit", "override", "cannot-run". */
const char *xpu_code_level_name(enum xpu_code_level l);

/* ---- NVIDIA. SM numbers: compute capability X.Y is X * 10 + Y (sm_90: 90, sm_120: 120). ---- */

/* SASS for SM_CODE with VARIANT runs on a GPU of SM_GPU: plain and family code on the same major
 * with an equal or higher minor, arch-specific ("a") code on exactly that capability. */
bool xpu_sass_runs_on(unsigned sm_code, enum xpu_sm_variant variant, unsigned sm_gpu);

/* PTX for SM_CODE with VARIANT can be JIT-compiled for SM_GPU: plain PTX for any equal or higher
 * capability, family PTX within the same major, arch-specific PTX for exactly that capability.
 * Whether the driver knows the PTX ISA is xpu_ptx_isa_cuda()'s question. */
bool xpu_ptx_jits_on(unsigned sm_code, enum xpu_sm_variant variant, unsigned sm_gpu);

/* The first CUDA version whose driver loads PTX ISA MAJOR.MINOR, as cuDriverGetVersion() spells
 * versions (13.0: 13000, 12.9: 12090). Returns it, or -ENOENT for an ISA version the table does
 * not know (newer than this build: the caller cannot tell, and must say so). */
int xpu_ptx_isa_cuda(unsigned major, unsigned minor);

/* For a PTX ISA newer than any xpu_ptx_isa_cuda() knows: a CUDA version its driver needs at least
 * (one minor release past the newest known, 13.2 while the newest is ISA 9.1 of CUDA 13.1);
 * 0 for a known or older ISA. */
int xpu_ptx_isa_newer_cuda(unsigned major, unsigned minor);

/* ---- AMD ---- */

/* A target ID: a processor with its target features. A feature is -1 when not stated (code for
 * either mode; for a device, a processor without that feature), 0 for "-" (off), 1 for "+". */
struct xpu_gfx_target {
        char processor[32]; /* "gfx90a", "gfx1030", "gfx11-generic" */
        int sramecc;
        int xnack;
};

/* Parse "gfx90a:sramecc+:xnack-" (features in any order, each at most once). Returns 0, or
 * -EINVAL for anything else (no "gfx" prefix, an unknown or repeated feature, a missing sign). */
int xpu_gfx_target_parse(const char *id, struct xpu_gfx_target *t);

/* The generic processor whose family holds PROCESSOR ("gfx1031" -> "gfx10-3-generic"), or NULL
 * when it has none (gfx90a, gfx908) or is not known. */
const char *xpu_gfx_generic_of(const char *processor);

/* Code for CODE runs on a device whose target is DEVICE: the processor is the device's, or CODE's
 * is the generic processor of the device's family; and each feature CODE states matches the
 * device's mode where the device has that feature. */
bool xpu_gfx_code_runs_on(const struct xpu_gfx_target *code, const struct xpu_gfx_target *device);

/* The HSA_OVERRIDE_GFX_VERSION value that makes ROCm treat a GPU as PROCESSOR: "gfx1030" ->
 * "10.3.0", "gfx90a" -> "9.0.10" (major digits, minor digit, stepping as hex digit printed in
 * decimal). Returns 0, or -EINVAL for a generic or malformed processor name. */
int xpu_gfx_override_version(const char *processor, char *buf, size_t size);

/* The processor an HSA_OVERRIDE_GFX_VERSION value names: "10.3.0" -> "gfx1030", "9.0.10" ->
 * "gfx90a" (the inverse of xpu_gfx_override_version()). Returns 0, or -EINVAL for anything but
 * three dot-separated numbers (major 1..99, minor 0..9, stepping 0..15). */
int xpu_gfx_processor_of_version(const char *version, char *buf, size_t size);

/* True when ID is a target ID as LLVM writes them: a known processor (gfx<major><minor><stepping>
 * with an HSA_OVERRIDE_GFX_VERSION form, or a generic processor) and only the features it defines. */
bool xpu_gfx_target_id_known(const char *id);
