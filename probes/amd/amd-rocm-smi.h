/* SPDX-License-Identifier: Apache-2.0 */
/* The ROCm SMI reader: librocm_smi64 from the driver root, called only in
 * an isolated helper child (probes/sandbox/isolate.h), its facts sent back as text lines
 * (probes/sandbox/reply.h) and parsed strictly here; then merged into the sysfs fast path's AMD
 * devices by PCI bus id (ROCm SMI's device order is the DRM card order, not HIP's KFD order).
 * The rich-path backend is xpu_rich_rocm_smi (probes/rich.h). Nothing here logs.
 *
 * ROCm SMI always reads the host's /sys (/sys/class/drm, /sys/class/kfd) and keeps a mutex file
 * per card in /dev/shm (rocm_smi_cardN); it cannot be pointed at a --sys-root tree. Its facts
 * are plain amdgpu sysfs and hwmon files (rocm_smi_lib src/rocm_smi_device.cc), listed per field
 * below. */
#pragma once

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "probe.h"

/* Most devices one read reports (a host has at most 16 GPUs, 8 partitions each). */
#define XPU_ROCM_SMI_DEVICES_MAX 128

/* The temperature sensors read (rsmi_temperature_type_t order: RSMI_TEMP_TYPE_EDGE, _JUNCTION,
 * _MEMORY), each from the amdgpu hwmon tempN_input whose tempN_label is "edge", "junction",
 * "mem". */
enum xpu_rocm_smi_temp {
        XPU_ROCM_SMI_TEMP_EDGE = 0,
        XPU_ROCM_SMI_TEMP_JUNCTION,
        XPU_ROCM_SMI_TEMP_MEMORY,
        _XPU_ROCM_SMI_TEMP_MAX,
};

/* "edge", "junction", "memory"; NULL for an out-of-range value. */
const char *xpu_rocm_smi_temp_to_string(enum xpu_rocm_smi_temp t);

/* Bits of xpu_rocm_smi_device.have: set when ROCm SMI answered that query. */
enum {
        XPU_ROCM_SMI_HAVE_PCI = 1u << 0,            /* pci_bus_id */
        XPU_ROCM_SMI_HAVE_NAME = 1u << 1,           /* name */
        XPU_ROCM_SMI_HAVE_PCI_IDS = 1u << 2,        /* pci_vendor_id and pci_device_id */
        XPU_ROCM_SMI_HAVE_UNIQUE_ID = 1u << 3,      /* unique_id */
        XPU_ROCM_SMI_HAVE_MEMORY_TOTAL = 1u << 4,   /* memory_total_bytes */
        XPU_ROCM_SMI_HAVE_MEMORY_USED = 1u << 5,    /* memory_used_bytes */
        XPU_ROCM_SMI_HAVE_BUSY = 1u << 6,           /* busy_percent */
        XPU_ROCM_SMI_HAVE_POWER = 1u << 7,          /* power_watts */
        XPU_ROCM_SMI_HAVE_TEMP_EDGE = 1u << 8,      /* temperature_mc[XPU_ROCM_SMI_TEMP_EDGE] */
        XPU_ROCM_SMI_HAVE_TEMP_JUNCTION = 1u << 9,  /* temperature_mc[XPU_ROCM_SMI_TEMP_JUNCTION] */
        XPU_ROCM_SMI_HAVE_TEMP_MEMORY = 1u << 10,   /* temperature_mc[XPU_ROCM_SMI_TEMP_MEMORY] */
};
/* The have bit of temperature sensor T. */
#define XPU_ROCM_SMI_HAVE_TEMP(t) (XPU_ROCM_SMI_HAVE_TEMP_EDGE << (t))

/* One GPU (or, on ROCm SMI versions that list them, one partition) as ROCm SMI reports it, in
 * ROCm SMI's index order. Facts whose have bit is clear are unknown (the call failed or the
 * library lacks it) and zero. */
struct xpu_rocm_smi_device {
        /* rsmi_dev_pci_id_get: BDFID = domain << 32 | bus << 8 | device << 3 | function, decoded to
         * the canonical form "0000:0c:00.0" (bits 16-31 are reserved in 5.2.3; newer versions put a
         * partition number in 28-31: ignored, so a partition names its GPU's function). */
        char pci_bus_id[XPU_PCI_BUS_ID_MAX];
        /* rsmi_dev_name_get: device/product_name, else the pci.ids name. Left out when the library
         * knows neither and answers with the hex id ("0x740f"): that is no name. */
        char name[128];
        uint16_t pci_vendor_id; /* rsmi_dev_vendor_id_get: device/vendor (0x1002) */
        uint16_t pci_device_id; /* rsmi_dev_id_get: device/device */
        /* rsmi_dev_unique_id_get: device/unique_id (gfx9 and later), 16 lower-case hex digits as
         * the fast path prints it ("%016llx"); 0 counts as unknown. */
        char unique_id[24];
        uint64_t memory_total_bytes; /* rsmi_dev_memory_total_get(VRAM): mem_info_vram_total, bytes */
        uint64_t memory_used_bytes;  /* rsmi_dev_memory_usage_get(VRAM): mem_info_vram_used, bytes (live) */
        uint32_t busy_percent;       /* rsmi_dev_busy_percent_get: gpu_busy_percent, 0..100 (live) */
        /* rsmi_dev_temp_metric_get(sensor, RSMI_TEMP_CURRENT): millidegrees Celsius (live) */
        int64_t temperature_mc[_XPU_ROCM_SMI_TEMP_MAX];
        /* rsmi_dev_power_ave_get(sensor 0): hwmon power1_average in microwatts, here in watts (live) */
        double power_watts;
        uint32_t have; /* XPU_ROCM_SMI_HAVE_* */
};

struct xpu_rocm_smi_result {
        char library[PATH_MAX]; /* the file loaded, path inside the driver root ("/usr/lib/librocm_smi64.so.1.0") */
        size_t total;           /* devices ROCm SMI has (rsmi_num_monitor_devices): n, or more when it listed more
                                   than XPU_ROCM_SMI_DEVICES_MAX (only the first are read) */
        size_t n;               /* devices used (at most XPU_ROCM_SMI_DEVICES_MAX) */
        struct xpu_rocm_smi_device devices[];
};

/* Read ROCm SMI's view of the host. In a helper of xpu_isolate_run() (nobody:nogroup, no
 * capabilities, environment PATH only, TIMEOUT_MS bounded; 0 = 10 s) the helper reopens the
 * driver root (xpu_root_ref_open(): fds do not survive the runner), loads the first of
 * librocm_smi64.so.1 (Debian), .so.7, .so.6, .so.5 found in it (xpu_dl_open_dirs(): its
 * ld.so.cache, the standard library directories, then /opt/rocm/lib, /opt/rocm/lib64 and the
 * lib, lib64 of /opt/rocm-<version> newest first; probes/sandbox/helper-job.h), calls rsmi_init(0),
 * rsmi_num_monitor_devices, the per-device getters above, and rsmi_shut_down. A getter that fails
 * leaves its fact out, and so does an answer the parent's strict parser would refuse (the helper
 * checks first, so one odd value costs that value, not the read): a name is made printable and
 * cut to 127 bytes, a busy percent above 100 is left out; more than XPU_ROCM_SMI_DEVICES_MAX
 * devices: the first are read and the total is sent (xpu_rocm_smi_merge() warns).
 *
 * The library reads the host's /sys; SYS_ROOT_FD must be the host's "/" (same device and inode),
 * else nothing runs and the answer is -EXDEV with ERR "not available: ROCm SMI reads the host's
 * /sys and cannot follow --sys-root SYS_ROOT; run it in a mount namespace with the tree bound on
 * /sys". SYS_ROOT (text for that message) may be NULL.
 *
 * Returns 0 and *RET (free with xpu_rocm_smi_result_free()), or -errno with ERR one line:
 *   -EXDEV         see above
 *   -ENOENT        "not available: librocm_smi64.so.1, ... not found in /: /etc/ld.so.cache, ..."
 *   -ENODEV        "rsmi_init failed: <rsmi_status_string> (status 8)" (INIT_ERROR: no KFD, no GPU)
 *   -EPERM, -EOPNOTSUPP, -EBUSY, -EIO   the same for statuses 4, 2, 16 and the rest
 *   -ETIMEDOUT     "ROCm SMI helper timed out after 10 s"
 *   -ECONNABORTED  "ROCm SMI helper killed by signal 6 (Aborted)" (5.2.3 asserts on odd trees)
 *   -EBADMSG       "garbage from the ROCm SMI helper: line 3"
 *   other -errno from the runner as "ROCm SMI helper <reason>", -ENOMEM. */
int xpu_rocm_smi_read(int sys_root_fd, const char *sys_root, int driver_root_fd, unsigned timeout_ms,
                      struct xpu_rocm_smi_result **ret, char *err, size_t err_size);

/* NULL-safe; returns NULL. */
struct xpu_rocm_smi_result *xpu_rocm_smi_result_free(struct xpu_rocm_smi_result *r);

/* Parse the helper's reply TEXT (NUL-terminated; wire format in amd-rocm-smi.c). Exposed for
 * tests. Returns 0 and *RET; -EBADMSG with ERR "garbage from the ROCm SMI helper: line N" (or
 * "...: no library", "...: device N: ..." for a missing line or an out-of-range value; a
 * devices_total not above a full device_count is garbage too); the helper's own error (an
 * "error ERRNO TEXT" line) with ERR = TEXT; -ENOMEM. */
int xpu_rocm_smi_parse_reply(const char *text, struct xpu_rocm_smi_result **ret, char *err, size_t err_size);

/* Merge R into the AMD devices of INV, matched by PCI bus id only. Every AMD device with that bus
 * id takes the facts: a partitioned GPU is one PCI device (one ROCm SMI device in 5.2.3) but
 * several KFD devices sharing its bus id, and the GPU-wide facts (name, PCI ids, unique id, its
 * uuid "GPU-<unique id>") belong to each partition. Memory is merged into whole GPUs only: a
 * partition's own VRAM (KFD memory banks) is not the GPU's mem_info_vram_total. Each fact goes
 * through xpu_device_merge_string()/xpu_device_merge_u64() with XPU_SOURCE_ROCM_SMI: filled when
 * the fast path lacks it, a warning when it differs; memory_used_bytes, a live reading that moves
 * between the two reads, is only filled, never compared. A ROCm SMI device whose bus id no AMD
 * device has becomes one warning; a second ROCm SMI device at the bus id of an earlier one is
 * ignored with a warning (xpu_merge_bus_id_repeated()); a uuid another PCI device already has is
 * not filled (xpu_device_merge_string()); R->total above R->n becomes the warning "rocm_smi: 130
 * devices, only the first 128 read". Live readings (busy, temperatures, power) have no place in the
 * inventory and stay in R. Returns the number of inventory devices matched, or -ENOMEM. */
int xpu_rocm_smi_merge(struct xpu_inventory *inv, const struct xpu_rocm_smi_result *r);

struct xpu_rich_ops;
/* The rich-path backend of ROCm SMI (rich.h). */
extern const struct xpu_rich_ops xpu_rich_rocm_smi;
