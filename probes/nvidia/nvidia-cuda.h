/* SPDX-License-Identifier: Apache-2.0 */
/* The CUDA driver API reader: libcuda.so.1 from the driver root, called
 * only in an isolated helper child (probes/sandbox/isolate.h), its facts sent back as text lines
 * (probes/sandbox/reply.h) and parsed strictly here; then merged into the fast-path inventory by PCI
 * bus id. This is the version an image's CUDA runtime will actually see: the runtime asks
 * cuDriverGetVersion of the same injected libcuda. Nothing here logs.
 *
 * Ordinals: the helper runs with an environment of PATH only, so libcuda sees no
 * CUDA_VISIBLE_DEVICES and uses its default CUDA_DEVICE_ORDER=FASTEST_FIRST: CUDA ordinal N is
 * in general NOT the fast path's (or NVML's) index N, which follow PCI bus order. Devices are
 * therefore matched to the fast path by PCI bus id only, never by ordinal. */
#pragma once

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "probe.h"

struct xpu_rich_ops;

/* Most devices one read reports (the same bound as NVML's reader). */
#define XPU_CUDA_DEVICES_MAX 64

/* Bits of xpu_cuda_device.have: set when libcuda answered that query. */
enum {
        XPU_CUDA_HAVE_UUID = 1u << 0,               /* uuid (cuDeviceGetUuid_v2 / cuDeviceGetUuid) */
        XPU_CUDA_HAVE_PCI = 1u << 1,                /* pci_bus_id (PCI domain/bus/device attributes) */
        XPU_CUDA_HAVE_MEMORY_TOTAL = 1u << 2,       /* memory_total_bytes (cuDeviceTotalMem_v2) */
        XPU_CUDA_HAVE_COMPUTE_CAPABILITY = 1u << 3, /* compute_capability (attributes 75, 76) */
};

/* One GPU as the CUDA driver API reports it; its position in xpu_cuda_result.devices is its CUDA
 * ordinal (FASTEST_FIRST order, see above). */
struct xpu_cuda_device {
        char name[128];                      /* cuDeviceGetName: "NVIDIA GeForce RTX 2080 Ti", cut to 127
                                              * bytes; "" when libcuda answered an empty one */
        char uuid[64];                       /* "GPU-307dcc96-618a-4416-c1ef-87823c2e1a31": the 16 bytes of
                                              * cuDeviceGetUuid_v2 in nvidia-smi's form, lower case */
        char pci_bus_id[XPU_PCI_BUS_ID_MAX]; /* canonical form ("0000:1a:00.0"), function 0: from
                                              * CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID (50), _PCI_BUS_ID (33),
                                              * _PCI_DEVICE_ID (34; the slot on the bus, not the PCI id) */
        char compute_capability[16];         /* "7.5": CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR (75)
                                              * and _MINOR (76) */
        uint64_t memory_total_bytes;         /* bytes, cuDeviceTotalMem_v2 */
        uint32_t have;                       /* XPU_CUDA_HAVE_* */
};

struct xpu_cuda_result {
        char library[PATH_MAX];       /* the file loaded, path inside the driver root
                                         ("/usr/lib/x86_64-linux-gnu/libcuda.so.465.19.01") */
        char cuda_driver_version[16]; /* cuDriverGetVersion: 12020 → "12.2" (major . minor); "" when libcuda
                                         answered a number outside 1000..999999 */
        size_t total;                 /* devices libcuda has (cuDeviceGetCount): n, or more when it listed more
                                         than XPU_CUDA_DEVICES_MAX (only the first are read) */
        size_t n;                     /* devices used */
        struct xpu_cuda_device devices[];
};

/* Read the CUDA driver API's view of the host. DRIVER_VERSION (the kernel module's,
 * /proc/driver/nvidia/version) must pass xpu_nvidia_library_version_check() (nvidia-nvml.h; else
 * -ENODATA and no helper runs). In a helper of xpu_isolate_run() (nobody:nogroup, no
 * capabilities, environment PATH only, TIMEOUT_MS bounded; 0 = 10 s; probes/sandbox/helper-job.h)
 * the helper finds libcuda.so.1 in DRIVER_ROOT_FD and refuses a library whose file-name version
 * differs before loading it (xpu_dl_open_version: none of its code runs). Then it binds cuInit, cuDriverGetVersion, cuDeviceGetCount, cuDeviceGet,
 * cuDeviceGetName, cuDeviceGetAttribute (required), cuDeviceGetUuid_v2 (else cuDeviceGetUuid),
 * cuDeviceTotalMem_v2, cuGetErrorName, cuGetErrorString (optional), and calls cuInit(0),
 * cuDriverGetVersion, cuDeviceGetCount and per ordinal cuDeviceGet, cuDeviceGetName, the UUID,
 * the compute-capability and PCI attributes and the total memory. A failing optional per-device
 * query leaves that fact out; a failing required call fails the read. The library is never
 * dlclose()d (the helper exits). The helper cleans what libcuda answers so that one odd value
 * costs that value only: a name is made printable and cut to 127 bytes, an empty one and a CUDA
 * version outside 1000..999999 are left out; more than XPU_CUDA_DEVICES_MAX devices: the first
 * are read and the total is sent (xpu_cuda_merge() warns).
 *
 * Returns 0 and *RET (free with xpu_cuda_result_free()), or -errno with ERR one line:
 *   -ENODATA       "not loading libcuda.so.1: the NVIDIA kernel module's version is unknown ..."
 *   -ENOENT        "not available: libcuda.so.1 not found in ..."
 *   -EPROTO        "driver/library version mismatch: kernel module ..., libcuda.so.X"
 *   -ENODEV        "cuInit failed: CUDA_ERROR_NO_DEVICE (100): no CUDA-capable device is detected"
 *   -EPROTO        the same for CUDA_ERROR_SYSTEM_DRIVER_MISMATCH (803) and
 *                  CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE (804)
 *   -EIO           any other CUDA error, e.g. "cuDeviceGetName(1) failed: CUDA_ERROR_UNKNOWN (999):
 *                  unknown error"; without cuGetErrorName/String "cuInit failed: CUDA error 999"
 *   -ETIMEDOUT     "CUDA helper timed out after 10 s"
 *   -ECONNABORTED  "CUDA helper killed by signal 6 (Aborted)"
 *   -EBADMSG       "garbage from the CUDA helper: line 3"
 *   other -errno from xpu_isolate_run() as "CUDA helper <reason>"; -EINVAL for bad arguments. */
int xpu_cuda_read(int driver_root_fd, const char *driver_version, unsigned timeout_ms,
                  struct xpu_cuda_result **ret, char *err, size_t err_size);

struct xpu_nvidia_lib; /* nvidia-nvml.h */
/* xpu_cuda_read() with the library rule LIB (nvidia-nvml.h): on WSL2 libcuda.so.1, else
 * libcuda.so.1.1, from /usr/lib/wsl/lib or the driver store folder before the loader cache, no
 * version check. */
int xpu_cuda_read_lib(int driver_root_fd, const struct xpu_nvidia_lib *lib, unsigned timeout_ms,
                      struct xpu_cuda_result **ret, char *err, size_t err_size);

/* NULL-safe; returns NULL. */
struct xpu_cuda_result *xpu_cuda_result_free(struct xpu_cuda_result *r);

/* Parse the helper's reply TEXT (NUL-terminated; wire format at the top of nvidia-cuda.c).
 * Exposed for tests. Strict: an unknown or repeated key, a value of the wrong form, out of range
 * or too long for its field, a devices_total not above a full device_count is garbage. Returns 0
 * and *RET, -EBADMSG with ERR "garbage from the CUDA helper: line N" (or "...: no library",
 * "...: no device_count"), the helper's own error (an "error ERRNO TEXT" line) with ERR = TEXT,
 * or -ENOMEM. ERR may be NULL. */
int xpu_cuda_parse_reply(const char *text, struct xpu_cuda_result **ret, char *err, size_t err_size);

/* Merge R into INV through the one merge rule of probe.h, every fact marked XPU_SOURCE_CUDA:
 * the host's CUDA driver version (xpu_vendor_merge_cuda_version); per CUDA device, the NVIDIA
 * device of INV with the same pci_bus_id (never by ordinal: see the top of this file) gets
 * compute_capability, name, uuid and memory_total_bytes (xpu_device_merge_string/_u64): empty
 * ones are filled, ones NVML or procfs already set are cross-checked and a disagreement becomes
 * a warning. On a GPU that NVML reported in MIG mode (XPU_HAVE_MIG_MODE and mig_enabled) the
 * uuid and memory are those of a MIG instance, so they are not merged. A CUDA device without a
 * bus id or at a bus id the fast path does not list becomes a warning, never a device; a second
 * one at the bus id of an earlier ordinal is ignored with a warning (xpu_merge_bus_id_repeated());
 * a UUID another device already has is not filled (xpu_device_merge_string()); R->total above
 * R->n becomes the warning "cuda: 70 devices, only the first 64 read".
 * Returns the number of devices matched, or -ENOMEM. */
int xpu_cuda_merge(struct xpu_inventory *inv, const struct xpu_cuda_result *r);

/* The rich-path backend (probes/rich.h): vendor NVIDIA, source XPU_SOURCE_CUDA, library
 * "libcuda.so.1"; read() = xpu_cuda_read() with inv->vendors[NVIDIA].driver_version, merge() =
 * xpu_cuda_merge(), to_json() = {"source":"cuda","library":"/usr/lib/.../libcuda.so.465.19.01",
 * "cuda_driver_version":"12.2","devices_total"?:70,"devices":[{"ordinal":0,"pci_bus_id":...,
 * "uuid":...,"name":...,"compute_capability":...,"memory_total_bytes":...}]} (facts libcuda did
 * not answer are left out; devices_total only when more devices were listed than read). */
extern const struct xpu_rich_ops xpu_rich_cuda;
