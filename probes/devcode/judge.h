/* SPDX-License-Identifier: Apache-2.0 */
/* Whether an image's device code runs on one kind of GPU: the rules of compat.h applied to the
 * objects of an audit (object.h) or of an index (index.h). Pure: no I/O, no logging.
 *
 * Per object: NVIDIA code is native when a SASS entry runs on the GPU (unless
 * CUDA_FORCE_PTX_JIT=1), ptx-jit when only PTX it can JIT-compile is there (unless
 * CUDA_DISABLE_PTX_JIT=1, and only when the driver knows the PTX ISA), else cannot-run; AMD code
 * is native when a code object's target runs on the GPU's. Per image: only ELF objects with
 * device code of the GPU's vendor decide and the worst wins (standalone kernel files are picked
 * per GPU by the libraries that load them, so they never block: a directory of them with nothing
 * for the GPU is reported apart); an image whose vendor-tied objects are all of the other vendor
 * cannot run; one without device code runs. For AMD an image short of native code gets one
 * process-wide HSA_OVERRIDE_GFX_VERSION of an image target in the GPU's generic family that every
 * object has, else HSA_XNACK=1 on a gfx90a when only XNACK differs (and the user did not set
 * HSA_XNACK), else cannot-run; a gfx90a whose mode is not stated runs with XNACK off, the runtime's
 * default. A libcudart.so.N needs a driver of CUDA N or later. An object of the GPU's vendor whose
 * device code could not be read (malformed, or compressed without libzstd) cannot be said to run. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "devcode/compat.h"
#include "devcode/object.h"

/* One kind of GPU to judge. */
struct xpu_code_target {
        unsigned vendor;               /* XPU_CODE_VENDOR_NVIDIA or XPU_CODE_VENDOR_AMD */
        char name[64];                 /* "sm_90", "gfx90a:sramecc+:xnack-" */
        unsigned sm;                   /* NVIDIA: compute capability X.Y as X * 10 + Y */
        struct xpu_gfx_target gfx;     /* AMD */
        char gpus[160];                /* "8 × AMD Instinct MI300X" for this host's GPUs, else "" */
        unsigned count;                /* how many of this host's GPUs are of this kind, else 0 */
        bool unknown;                  /* only the vendor is known (a compute capability NVML did not
                                        * give): only "nothing for this vendor" can be judged */
};

/* Parse a --for value: "sm_XY" or "X.Y" (compute capability X.Y; "sm_90a"/"sm_100f" name the same
 * GPU) or an AMD target ID ("gfx1031", "gfx90a:sramecc-:xnack-"). Returns 0, or -EINVAL. */
int xpu_code_target_parse(const char *s, struct xpu_code_target *t);

/* What the environment changes: the CUDA driver and ROCm read these, so the audit and the start
 * judge with them. */
struct xpu_code_env {
        bool force_ptx_jit;            /* CUDA_FORCE_PTX_JIT=1: SASS is ignored */
        bool disable_ptx_jit;          /* CUDA_DISABLE_PTX_JIT=1: PTX is never compiled */
        int cuda_driver;               /* the driver's CUDA version as 13000 for 13.0; 0 unknown */
        char hsa_override[16];         /* HSA_OVERRIDE_GFX_VERSION, "" when unset */
        int hsa_xnack;                 /* HSA_XNACK: 1, 0, or -1 when unset */
};

/* Fill E from the environment vector ENV (CUDA_DRIVER left 0). A variable holding something else
 * than 0/1 or x.y.z is named in ERR: with STRICT the call returns -EINVAL (and E holds nothing of
 * the environment), without it the value is taken as unset and the call returns 1. Returns 0 when
 * every value was read. */
int xpu_code_env_from(char *const *env, bool strict, struct xpu_code_env *e, char *err, size_t err_size);

/* The level of one object for T: native, ptx-jit or cannot-run (overrides are the image's
 * question). An object without code of T's vendor is native. */
enum xpu_code_level xpu_code_object_level(const struct xpu_object *o, const struct xpu_code_target *t,
                                          const struct xpu_code_env *env);

/* A directory of standalone kernel files of the target's vendor with nothing for the target. */
struct xpu_code_file_issue {
        char *dir;                     /* relative to the root, as object paths are; "." for the root */
        char *message;                 /* "2 AMD kernel file(s), none for gfx1100" */
};

struct xpu_code_verdict {
        enum xpu_code_level level;
        char override_name[32];        /* "HSA_OVERRIDE_GFX_VERSION" or "HSA_XNACK", "" when none */
        char override_value[16];       /* "10.3.0", "1" */
        bool override_from_env;        /* the environment already sets it: judged with it */
        char **blocking;               /* paths of the objects that decide (strv), or NULL */
        size_t n_blocking;
        char *reason;                  /* one sentence */
        struct xpu_code_file_issue *file_issues;
        size_t n_file_issues;
        bool not_judged;               /* the target is unknown: LEVEL says nothing */
};

/* Judge OBJECTS[0..N) for T. Returns 0 with *V filled, -ENOMEM, or -EINVAL when T's vendor is no code
 * format the judge knows (XPU_CODE_VENDOR_NVIDIA, _AMD). */
int xpu_code_judge(const struct xpu_object *objects, size_t n, const struct xpu_code_target *t,
                   const struct xpu_code_env *env, struct xpu_code_verdict *v);

/* Free what *V holds and zero it. */
void xpu_code_verdict_clear(struct xpu_code_verdict *v);
