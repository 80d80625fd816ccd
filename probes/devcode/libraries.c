/* SPDX-License-Identifier: Apache-2.0 */
/* The vendor library table (libraries.h has the sources). */
#include "devcode/libraries.h"

#include <errno.h>
#include <string.h>

#include "base/macro.h"
#include "base/str.h"

const char *xpu_layer_name(enum xpu_layer l) {
        static const char *const names[_XPU_LAYER_MAX] = {
                [XPU_LAYER_RUNTIME] = "runtime",
                [XPU_LAYER_DNN] = "dnn",
                [XPU_LAYER_BLAS] = "blas",
                [XPU_LAYER_SPARSE] = "sparse",
                [XPU_LAYER_FFT_RAND_SOLVER] = "fft-rand-solver",
                [XPU_LAYER_COLLECTIVES] = "collectives",
                [XPU_LAYER_PARALLEL_ALGORITHMS] = "parallel-algorithms",
                [XPU_LAYER_JIT] = "jit",
                [XPU_LAYER_OTHER] = "other",
        };
        return (unsigned)l < _XPU_LAYER_MAX ? names[l] : NULL;
}

const char *xpu_code_vendor_name(unsigned vendors) {
        switch (vendors & (XPU_CODE_VENDOR_NVIDIA | XPU_CODE_VENDOR_AMD)) {
        case XPU_CODE_VENDOR_NVIDIA:
                return "nvidia";
        case XPU_CODE_VENDOR_AMD:
                return "amd";
        case XPU_CODE_VENDOR_NVIDIA | XPU_CODE_VENDOR_AMD:
                return "nvidia+amd";
        default:
                return NULL;
        }
}

#define NV XPU_CODE_VENDOR_NVIDIA
#define AMD XPU_CODE_VENDOR_AMD
/* A name ending in '*' matches by prefix. Longer names of one family come before the shorter
 * ones they start with only where the layer differs. */
static const struct xpu_vendor_library libraries[] = {
        /* NVIDIA driver (the host's; injected by xpuinit) */
        { "libcuda", NV, XPU_LAYER_RUNTIME, true },
        { "libnvidia-ml", NV, XPU_LAYER_OTHER, true },
        { "libnvidia-ptxjitcompiler", NV, XPU_LAYER_JIT, true },
        { "libnvidia-nvvm", NV, XPU_LAYER_JIT, true },
        { "libnvidia-*", NV, XPU_LAYER_RUNTIME, true },
        /* CUDA toolkit: runtime */
        { "libcudart", NV, XPU_LAYER_RUNTIME, false },
        /* cuDNN, TensorRT */
        { "libcudnn", NV, XPU_LAYER_DNN, false },
        { "libcudnn_*", NV, XPU_LAYER_DNN, false },
        { "libnvinfer*", NV, XPU_LAYER_DNN, false },
        { "libnvonnxparser", NV, XPU_LAYER_DNN, false },
        /* BLAS and tensor algebra */
        { "libcublas", NV, XPU_LAYER_BLAS, false },
        { "libcublasLt", NV, XPU_LAYER_BLAS, false },
        { "libcublasmp", NV, XPU_LAYER_BLAS, false },
        { "libnvblas", NV, XPU_LAYER_BLAS, false },
        { "libcutensor*", NV, XPU_LAYER_BLAS, false },
        /* sparse */
        { "libcusparse", NV, XPU_LAYER_SPARSE, false },
        { "libcusparseLt", NV, XPU_LAYER_SPARSE, false },
        /* FFT, random numbers, solvers */
        { "libcufft", NV, XPU_LAYER_FFT_RAND_SOLVER, false },
        { "libcufftw", NV, XPU_LAYER_FFT_RAND_SOLVER, false },
        { "libcufftMp", NV, XPU_LAYER_FFT_RAND_SOLVER, false },
        { "libcurand", NV, XPU_LAYER_FFT_RAND_SOLVER, false },
        { "libcusolver", NV, XPU_LAYER_FFT_RAND_SOLVER, false },
        { "libcusolverMg", NV, XPU_LAYER_FFT_RAND_SOLVER, false },
        { "libcudss", NV, XPU_LAYER_FFT_RAND_SOLVER, false },
        /* collectives */
        { "libnccl", NV, XPU_LAYER_COLLECTIVES, false },
        { "libnvshmem*", NV, XPU_LAYER_COLLECTIVES, false },
        /* JIT compilers and linkers */
        { "libnvrtc", NV, XPU_LAYER_JIT, false },
        { "libnvrtc.alt", NV, XPU_LAYER_JIT, false },
        { "libnvrtc-builtins", NV, XPU_LAYER_JIT, false },
        { "libnvrtc-builtins.alt", NV, XPU_LAYER_JIT, false },
        { "libnvJitLink", NV, XPU_LAYER_JIT, false },
        { "libnvvm", NV, XPU_LAYER_JIT, false },
        { "libnvfatbin", NV, XPU_LAYER_JIT, false },
        { "libnvptxcompiler", NV, XPU_LAYER_JIT, false },
        /* profiling, tracing, checkpointing, codecs, I/O */
        { "libcupti", NV, XPU_LAYER_OTHER, false },
        { "libnvperf_host", NV, XPU_LAYER_OTHER, false },
        { "libnvperf_target", NV, XPU_LAYER_OTHER, false },
        { "libpcsamplingutil", NV, XPU_LAYER_OTHER, false },
        { "libcheckpoint", NV, XPU_LAYER_OTHER, false },
        { "libnvtx3interop", NV, XPU_LAYER_OTHER, false },
        { "libnvToolsExt", NV, XPU_LAYER_OTHER, false },
        { "libnpp*", NV, XPU_LAYER_OTHER, false },
        { "libnvjpeg", NV, XPU_LAYER_OTHER, false },
        { "libcufile", NV, XPU_LAYER_OTHER, false },
        { "libcufile_rdma", NV, XPU_LAYER_OTHER, false },

        /* AMD: runtime */
        { "libamdhip64", AMD, XPU_LAYER_RUNTIME, false },
        { "libhsa-runtime64", AMD, XPU_LAYER_RUNTIME, false },
        { "libhsakmt", AMD, XPU_LAYER_RUNTIME, false },
        { "libamdocl64", AMD, XPU_LAYER_RUNTIME, false },
        /* DNN */
        { "libMIOpen", AMD, XPU_LAYER_DNN, false },
        { "libmigraphx*", AMD, XPU_LAYER_DNN, false },
        /* BLAS */
        { "librocblas", AMD, XPU_LAYER_BLAS, false },
        { "libhipblas", AMD, XPU_LAYER_BLAS, false },
        { "libhipblaslt", AMD, XPU_LAYER_BLAS, false },
        /* sparse */
        { "librocsparse", AMD, XPU_LAYER_SPARSE, false },
        { "libhipsparse", AMD, XPU_LAYER_SPARSE, false },
        { "libhipsparselt", AMD, XPU_LAYER_SPARSE, false },
        /* FFT, random numbers, solvers */
        { "librocfft", AMD, XPU_LAYER_FFT_RAND_SOLVER, false },
        { "librocfft-device*", AMD, XPU_LAYER_FFT_RAND_SOLVER, false },
        { "libhipfft", AMD, XPU_LAYER_FFT_RAND_SOLVER, false },
        { "librocrand", AMD, XPU_LAYER_FFT_RAND_SOLVER, false },
        { "libhiprand", AMD, XPU_LAYER_FFT_RAND_SOLVER, false },
        { "librocsolver", AMD, XPU_LAYER_FFT_RAND_SOLVER, false },
        { "libhipsolver", AMD, XPU_LAYER_FFT_RAND_SOLVER, false },
        /* collectives */
        { "librccl", AMD, XPU_LAYER_COLLECTIVES, false },
        /* JIT */
        { "libhiprtc", AMD, XPU_LAYER_JIT, false },
        { "libhiprtc-builtins", AMD, XPU_LAYER_JIT, false },
        { "libamd_comgr", AMD, XPU_LAYER_JIT, false },
        /* profiling, tracing, management */
        { "librocprofiler*", AMD, XPU_LAYER_OTHER, false },
        { "libroctracer64", AMD, XPU_LAYER_OTHER, false },
        { "libroctx64", AMD, XPU_LAYER_OTHER, false },
        { "librocm_smi64", AMD, XPU_LAYER_OTHER, false },
        { "libamd_smi", AMD, XPU_LAYER_OTHER, false },
};
#undef NV
#undef AMD

int xpu_library_stem(const char *name, char *buf, size_t size, const char **version) {
        const char *base = strrchr(name, '/');
        base = base ? base + 1 : name;
        const char *so = strstr(base, ".so");
        if (!so || (so[3] != '\0' && so[3] != '.'))
                return -EINVAL;
        size_t len = (size_t)(so - base);
        /* auditwheel/delocate: "<name>-<8 hex digits>" */
        if (len > 9 && base[len - 9] == '-' && strspn(base + len - 8, "0123456789abcdef") >= 8)
                len -= 9;
        if (len >= size)
                return -ENAMETOOLONG;
        memcpy(buf, base, len);
        buf[len] = '\0';
        if (version)
                *version = so + 3;
        return 0;
}

const struct xpu_vendor_library *xpu_vendor_library_find(const char *soname) {
        char stem[256];
        if (!soname || xpu_library_stem(soname, stem, sizeof stem, NULL) < 0 || strncmp(stem, "lib", 3) != 0)
                return NULL;
        size_t len = strlen(stem);
        const struct xpu_vendor_library *prefix_match = NULL;
        for (size_t i = 0; i < ELEMENTSOF(libraries); i++) {
                const char *n = libraries[i].name;
                size_t nl = strlen(n);
                if (n[nl - 1] == '*') {
                        if (!prefix_match && len >= nl - 1 && strncmp(stem, n, nl - 1) == 0)
                                prefix_match = &libraries[i];
                } else if (nl == len && strcmp(stem, n) == 0) {
                        return &libraries[i]; /* an exact name wins over any family */
                }
        }
        return prefix_match;
}

unsigned xpu_cudart_major(const char *soname) {
        char stem[32];
        const char *version;
        uint64_t v;
        if (!soname || xpu_library_stem(soname, stem, sizeof stem, &version) < 0 || strcmp(stem, "libcudart") != 0 ||
            version[0] != '.')
                return 0;
        const char *num = version + 1;
        char major[8];
        size_t n = strspn(num, "0123456789");
        if (n == 0 || n >= sizeof major || (num[n] != '\0' && num[n] != '.'))
                return 0;
        memcpy(major, num, n);
        major[n] = '\0';
        return xpu_parse_u64(major, 10, &v) == 0 && v > 0 && v < 1000 ? (unsigned)v : 0;
}
