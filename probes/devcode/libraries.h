/* SPDX-License-Identifier: Apache-2.0 */
/* Which vendor library a shared object is, by its soname (or, without one, its file name), and
 * the lock-in layer it belongs to. The table lists the libraries of NVIDIA's CUDA toolkit, cuDNN,
 * NCCL, TensorRT and driver, and of AMD's ROCm and HIP, by the sonames their packages install
 * (CUDA 13.0's lib64 directory; Debian 12's ROCm 5.x packages, e.g. librocsparse0, libamdhip64-5;
 * AMD's ROCm 6 package lists). Pure data and lookups, no I/O. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Lock-in layers, as bits of a mask (the audit JSON's "layers", in this order). */
enum xpu_layer {
        XPU_LAYER_RUNTIME = 0,        /* CUDA runtime and driver API, HIP, HSA */
        XPU_LAYER_DNN,                /* cuDNN, TensorRT, MIOpen, MIGraphX */
        XPU_LAYER_BLAS,               /* cuBLAS(Lt), cuTENSOR, rocBLAS, hipBLAS(Lt) */
        XPU_LAYER_SPARSE,             /* cuSPARSE(Lt), rocSPARSE, hipSPARSE */
        XPU_LAYER_FFT_RAND_SOLVER,    /* cuFFT, cuRAND, cuSOLVER, cuDSS and the roc/hip twins */
        XPU_LAYER_COLLECTIVES,        /* NCCL, NVSHMEM, RCCL */
        XPU_LAYER_PARALLEL_ALGORITHMS, /* Thrust, CUB, rocPRIM, hipCUB, rocThrust instantiations */
        XPU_LAYER_JIT,                /* NVRTC, nvJitLink, NVVM, hipRTC, comgr */
        XPU_LAYER_OTHER,              /* profiling, tracing, management, codecs */
        _XPU_LAYER_MAX,
};

/* Bits of a vendor mask (the audit JSON's "vendor": "nvidia", "amd", "nvidia+amd"). */
enum {
        XPU_CODE_VENDOR_NVIDIA = 1u << 0,
        XPU_CODE_VENDOR_AMD = 1u << 1,
};

/* "runtime", "dnn", ... "other"; NULL out of range. */
const char *xpu_layer_name(enum xpu_layer l);

/* "nvidia", "amd", "nvidia+amd", or NULL for 0. */
const char *xpu_code_vendor_name(unsigned vendors);

/* One vendor library. */
struct xpu_vendor_library {
        const char *name;     /* "libcublasLt": the soname up to ".so" */
        unsigned vendor;      /* XPU_CODE_VENDOR_* (one bit) */
        enum xpu_layer layer;
        bool driver;          /* a driver library the host provides (libcuda, libnvidia-ml): a copy
                               * or a stub in an image shadows the injected one */
};

/* The library a shared object's name names, into BUF (SIZE bytes): its file name (a DT_NEEDED may
 * be a path) up to ".so", without the "-<8 hex digits>" that auditwheel and delocate add when they
 * copy a library into a Python wheel ("libcudart-6d56b25a.so.11.0" is libcudart). *VERSION (may
 * be NULL) gets what follows ".so" (".11.0", or ""). Returns 0, -EINVAL when NAME has no ".so" (at
 * its end or before a '.'), -ENAMETOOLONG. */
int xpu_library_stem(const char *name, char *buf, size_t size, const char **version);

/* The vendor library SONAME ("libcublasLt.so.13", or a file name like "libcudnn_ops.so.9.13.0")
 * is, or NULL when it is none. Matched on its stem (xpu_library_stem; a few families by prefix:
 * "libcudnn_*", "libnvinfer*", "libnpp*", "librocprofiler*"). */
const struct xpu_vendor_library *xpu_vendor_library_find(const char *soname);

/* The major version N of a "libcudart.so.N" SONAME (the CUDA version its runtime needs from the
 * driver; a wheel's renamed copy or a path too), or 0 when SONAME is not that. */
unsigned xpu_cudart_major(const char *soname);
