/* SPDX-License-Identifier: Apache-2.0 */
/* The NVML reader (issue 3, "What is read"): libnvidia-ml from the driver root, called only in an
 * isolated helper child (probes/base/isolate.h), its facts sent back as text lines and parsed
 * strictly here; then merged into the fast-path inventory by PCI bus id. Nothing here logs. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "base/fileio.h"
#include "probe.h"

/* Most devices one read reports; NVML's own limit is far above any host's GPU count. */
#define XPU_NVML_DEVICES_MAX 64

/* Bits of xpu_nvml_device.have: set when NVML answered that query. */
enum {
        XPU_NVML_HAVE_MINOR = 1u << 0,              /* minor */
        XPU_NVML_HAVE_PCI = 1u << 1,                /* pci_bus_id */
        XPU_NVML_HAVE_MEMORY_TOTAL = 1u << 2,       /* memory_total_bytes */
        XPU_NVML_HAVE_COMPUTE_CAPABILITY = 1u << 3, /* compute_capability */
        XPU_NVML_HAVE_BRAND = 1u << 4,              /* brand */
};

/* One GPU as NVML reports it (NVML index order = PCI bus order, but merge by bus id only). */
struct xpu_nvml_device {
        char uuid[64];                       /* "GPU-307dcc96-..." */
        char name[128];                      /* "NVIDIA GeForce RTX 2080 Ti" */
        char pci_bus_id[XPU_PCI_BUS_ID_MAX]; /* normal form ("0000:1a:00.0") */
        char compute_capability[16];         /* "7.5" */
        char brand[32];                      /* "GeForce", "Tesla", ...; "brand 17" for unknown codes */
        uint32_t minor;                      /* /dev/nvidia<minor> */
        uint64_t memory_total_bytes;         /* bytes (nvmlDeviceGetMemoryInfo total) */
        uint32_t have;                       /* XPU_NVML_HAVE_* */
};

struct xpu_nvml_result {
        char driver_version[32];      /* nvmlSystemGetDriverVersion: "465.19.01" */
        char cuda_driver_version[16]; /* "11.3" from 11030; "" when the library lacks the call */
        size_t n;                     /* devices used */
        struct xpu_nvml_device devices[];
};

/* Read NVML's view of the host. In a helper of xpu_isolate_run() (nobody:nogroup, no
 * capabilities, environment PATH only, TIMEOUT_MS bounded; 0 = 10 s) the helper loads
 * libnvidia-ml.so.1 from DRIVER_ROOT_FD (xpu_dl_open), refuses a library whose file-name version
 * differs from DRIVER_VERSION (the kernel module's, /proc/driver/nvidia/version) before calling
 * anything in it, then calls nvmlInit_v2, the system queries, per device name, UUID, minor, PCI
 * info, memory, compute capability, brand, and nvmlShutdown. DRIVER_VERSION NULL or "" skips the
 * version check.
 *
 * The helper cannot keep DRIVER_ROOT_FD (the runner closes every fd but the reply pipe): it
 * reopens the directory by the fd's /proc/self/fd path and checks device and inode against the
 * parent's fd.
 *
 * Returns 0 and *RET (free with xpu_nvml_result_free()), or -errno with ERR one line:
 *   -ENOENT        "not available: libnvidia-ml.so.1 not found in ..."
 *   -EPROTO        "driver/library version mismatch: kernel module ..., libnvidia-ml.so.X"
 *   -ENODEV        "nvmlInit_v2 failed: Driver Not Loaded (error 9)"
 *   -EIO           "nvmlInit_v2 failed: GPU is lost (error 15)" (other NVML codes likewise)
 *   -ETIMEDOUT     "NVML helper timed out after 10 s"
 *   -ECONNABORTED  "NVML helper killed by signal 6 (Aborted)"
 *   -EBADMSG       "garbage from the NVML helper: line 3"
 *   other -errno from xpu_isolate_run() as "NVML helper <reason>". */
int xpu_nvml_read(int driver_root_fd, const char *driver_version, unsigned timeout_ms,
                  struct xpu_nvml_result **ret, char *err, size_t err_size);

/* NULL-safe; returns NULL. */
struct xpu_nvml_result *xpu_nvml_result_free(struct xpu_nvml_result *r);

/* Parse the helper's reply TEXT (NUL-terminated; the wire format is described in nvidia-nvml.c).
 * Exposed for tests. Returns 0 and *RET, -EBADMSG with ERR "garbage from the NVML helper: line N",
 * the helper's own error (an "error ERRNO TEXT" line) with ERR = TEXT, or -ENOMEM. */
int xpu_nvml_parse_reply(const char *text, struct xpu_nvml_result **ret, char *err, size_t err_size);

/* Fill what the fast path lacks from R into INV: for each NVIDIA device of INV whose pci_bus_id
 * equals an NVML device's (never by position): memory_total_bytes (+ XPU_HAVE_MEMORY_TOTAL) when
 * unknown, compute_capability, name and uuid when empty. Sets
 * inv->vendors[XPU_VENDOR_NVIDIA].cuda_driver_version when R has one. An NVML device the fast path
 * does not list becomes a warning line, not a device. Returns the number of devices matched, or
 * -ENOMEM. */
int xpu_nvml_merge(struct xpu_inventory *inv, const struct xpu_nvml_result *r);
