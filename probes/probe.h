/* SPDX-License-Identifier: Apache-2.0 */
/* Device model and inventory: what the probes report. The vendors' descriptors are in vendor.h.
 *
 * Data flow: xpu_inventory_probe() runs every vendor's fast path (xpu_vendors[], one descriptor per
 * vendor, probes/<vendor>/) against the host roots and returns plain data. Nothing here mounts, execs
 * or opens device nodes for I/O. Absent facts stay absent: every optional number has a bit in
 * xpu_device.have, every optional string is empty. */
#pragma once

#include <limits.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/macro.h"
#include "base/pci.h"
#include "base/devnode.h"
#include "mig.h"
#include "vendor-id.h" /* enum xpu_vendor */

/* "nvidia", "amd", "intel" (xpu_vendor_ops.name); NULL for an out-of-range value. */
const char *xpu_vendor_to_string(enum xpu_vendor v);
/* "NVIDIA", "AMD", "Intel": the name as the vendor spells it, for messages; NULL out of range. */
const char *xpu_vendor_display_name(enum xpu_vendor v);
/* Inverse of xpu_vendor_to_string() (case-insensitive). Returns the vendor or -EINVAL. */
int xpu_vendor_from_string(const char *s);

/* Which backend answered for a device. */
enum xpu_source {
        XPU_SOURCE_PROCFS = 0, /* /proc/driver/nvidia */
        XPU_SOURCE_SYSFS,      /* KFD topology, amdgpu sysfs */
        XPU_SOURCE_NVML,
        XPU_SOURCE_ROCM_SMI,
        XPU_SOURCE_CUDA,       /* CUDA driver API (libcuda) */
        XPU_SOURCE_WSL,        /* WSL2: /dev/dxg and a vendor's driver store under /usr/lib/wsl (wsl.h) */
        _XPU_SOURCE_MAX,
};
/* "procfs", "sysfs", "nvml", "rocm_smi", "cuda", "wsl"; NULL for an out-of-range value. */
const char *xpu_source_to_string(enum xpu_source s);
/* Inverse of xpu_source_to_string(). Returns the source or -EINVAL. */
int xpu_source_from_string(const char *s);

/* Device facts a rich backend (probes/rich.h) may fill in, each marked with the backend that gave
 * it (xpu_device.field_source; "sources" in the inventory JSON). */
enum xpu_field {
        XPU_FIELD_NAME = 0,           /* name */
        XPU_FIELD_UUID,               /* uuid */
        XPU_FIELD_MEMORY_TOTAL,       /* memory_total_bytes */
        XPU_FIELD_MEMORY_USED,        /* memory_used_bytes */
        XPU_FIELD_COMPUTE_CAPABILITY, /* compute_capability */
        XPU_FIELD_BRAND,              /* brand */
        XPU_FIELD_MIG,                /* mig_enabled, mig_devices */
        XPU_FIELD_UNIQUE_ID,          /* unique_id */
        XPU_FIELD_PCI_IDS,            /* pci_vendor_id, pci_device_id */
        _XPU_FIELD_MAX,
};
/* The JSON key of F ("memory_total_bytes"); NULL for an out-of-range value. */
const char *xpu_field_to_string(enum xpu_field f);

#define XPU_DEVICE_NODES_MAX 4
/* Bytes of struct xpu_device's vendor_facts: the largest vendor's facts (an NVIDIA GPU's with its
 * MIG devices, 2880 bytes on x86-64 and aarch64, rounded up). Each -facts.h asserts that its struct fits. */
#define XPU_VENDOR_FACTS_SIZE 3072
#define XPU_VENDOR_NODES_MAX 8

/* Bits of xpu_device.have: set when the matching number is known. */
enum {
        XPU_HAVE_MEMORY_TOTAL = 1u << 0,       /* memory_total_bytes */
        XPU_HAVE_MEMORY_USED = 1u << 1,        /* memory_used_bytes */
        XPU_HAVE_NUMA_NODE = 1u << 2,          /* numa_node */
        XPU_HAVE_PCI_IDS = 1u << 3,            /* pci_vendor_id, pci_device_id */
        XPU_HAVE_MINOR = 1u << 4,              /* minor (NVIDIA) */
        XPU_HAVE_IRQ = 1u << 5,                /* irq (NVIDIA) */
        XPU_HAVE_EXCLUDED = 1u << 6,           /* excluded (NVIDIA) */
        XPU_HAVE_RENDER_MINOR = 1u << 7,       /* render_minor (AMD, Intel) */
        XPU_HAVE_KFD_GPU_ID = 1u << 8,         /* kfd_gpu_id (AMD) */
        XPU_HAVE_KFD_NODE = 1u << 9,           /* kfd_node (AMD) */
        XPU_HAVE_GFX_TARGET_VERSION = 1u << 10, /* gfx_target_version and gfx_target (AMD) */
        XPU_HAVE_SIMD_COUNT = 1u << 11,        /* simd_count, compute_units (AMD) */
        XPU_HAVE_PARTITION = 1u << 12,         /* partition (AMD) */
        XPU_HAVE_CARD = 1u << 13,              /* card: N of /sys/class/drm/cardN (AMD, Intel) */
        XPU_HAVE_NUM_XCC = 1u << 14,           /* num_xcc (AMD) */
        XPU_HAVE_MIG_MODE = 1u << 15,          /* mig_enabled (NVIDIA: NVML, or procfs when instances exist) */
        XPU_HAVE_TILES = 1u << 16,             /* tile_count (Intel) */
};

/* One accelerator as the workload will see it. Partitions of a partitioned AMD GPU are separate
 * devices; MIG devices of an NVIDIA GPU are listed in their parent (mig[]), selected through it. */
struct xpu_device {
        unsigned index;        /* xpuinit index: NVIDIA devices first, then AMD, each in vendor order */
        unsigned vendor_index; /* vendor ordinal: NVIDIA = PCI bus order (= NVML/nvidia-smi), AMD = KFD GPU-node order (= HIP) */
        enum xpu_vendor vendor;
        enum xpu_source source;
        uint32_t have; /* XPU_HAVE_* */

        char name[128];                      /* marketing name; empty when unknown, never guessed */
        bool name_from_pci_ids;              /* NAME is the PCI ID database's (pci-ids.h), not the driver's */
        char uuid[64];                       /* NVIDIA "GPU-<uuid>"; AMD "GPU-<16 hex of unique_id>" */
        char pci_bus_id[XPU_PCI_BUS_ID_MAX]; /* canonical form (base/pci.h), "" when unknown */
        char driver_version[32];             /* kernel driver version of this device's driver */
        uint64_t memory_total_bytes;         /* bytes */
        uint64_t memory_used_bytes;          /* bytes */
        int32_t numa_node;                   /* -1 when the platform has no NUMA affinity */
        uint16_t pci_vendor_id;              /* 0x10de, 0x1002, 0x8086 */
        uint16_t pci_device_id;
        char kernel_driver[16];              /* the kernel driver bound to it: "i915", "xe"; "" unknown */
        bool integrated;                     /* part of the CPU package (Intel 0000:00:02.x); false unknown */

        struct xpu_devnode nodes[XPU_DEVICE_NODES_MAX]; /* per-device nodes (/dev/nvidiaN, renderD) */
        size_t n_nodes;

        uint32_t render_minor; /* drm_render_minor → /dev/dri/renderD<render_minor> (DRM drivers: AMD, Intel) */
        uint32_t card;         /* N of /sys/class/drm/cardN (AMD, Intel) */
        uint32_t partition;    /* partition number within its PCI device (AMD: location_id function bits) */

        /* The vendor's own facts (probes/<vendor>/<vendor>-facts.h): storage whose shape only the
         * device's vendor knows (as struct sockaddr_storage holds any address family), read by its
         * own code and descriptor hooks through the accessor of its -facts.h (xpu_<vendor>_facts(d));
         * vendor-neutral code goes through the descriptor (struct xpu_vendor_ops). Zero when
         * nothing was found. */
        alignas(max_align_t) unsigned char vendor_facts[XPU_VENDOR_FACTS_SIZE];

        /* Where each enum xpu_field came from: 0 = the device's own source (the fast path), else
         * 1 + the enum xpu_source of the rich backend that filled it. */
        uint8_t field_source[_XPU_FIELD_MAX];
};

/* What a vendor's kernel driver exposes host-wide. */
struct xpu_vendor_info {
        bool driver_loaded;       /* the kernel driver answered (procfs dir, KFD topology, amdgpu sysfs) */
        char driver_version[32];  /* NVIDIA: /proc/driver/nvidia/version; AMD: /sys/module/amdgpu/version */
        char driver_flavor[32];   /* NVIDIA: "proprietary" or "open" kernel module */
        char cuda_driver_version[16]; /* "12.2": only from libcuda/NVML (rich path); empty otherwise */
        enum xpu_source cuda_driver_version_source; /* who gave it (valid when cuda_driver_version is set) */
        char rich_note[600]; /* why the rich path could not tell: first failing backend's "nvml: <error>" */
        uint32_t rich_ok;    /* rich backends (1u << enum xpu_source) that answered and were merged */
        struct xpu_devnode nodes[XPU_VENDOR_NODES_MAX]; /* nvidiactl, nvidia-uvm, ...; /dev/kfd */
        size_t n_nodes;
        /* NVIDIA: the host-wide MIG capability nodes, given only on request
         * (NVIDIA_MIG_CONFIG_DEVICES, NVIDIA_MIG_MONITOR_DEVICES): configure MIG (create and
         * destroy instances) and read every MIG device's aggregate data. From the DeviceFileMinor
         * of /proc/driver/nvidia/capabilities/mig/config and .../monitor; path "" when absent. */
        struct xpu_devnode mig_config_cap, mig_monitor_cap;
        char looked_for[256]; /* what was looked for, shown when nothing was found */
        /* WSL2: the vendor's driver store folder, "/usr/lib/wsl/drivers/<folder>" in the driver
         * root (wsl.h); "" elsewhere or when none was found. */
        char wsl_store[128];
};

/* Where the GPUs are reached: the probe JSON's host.platform. */
enum xpu_platform {
        XPU_PLATFORM_LINUX = 0, /* each vendor's Linux kernel driver: procfs, sysfs, its own nodes */
        XPU_PLATFORM_WSL,       /* WSL2: /dev/dxg and the Windows driver's files under /usr/lib/wsl */
        XPU_PLATFORM_TEGRA,     /* NVIDIA Jetson: the integrated GPU, no PCI */
        _XPU_PLATFORM_MAX,
};
/* "linux", "wsl", "tegra"; NULL for an out-of-range value. */
const char *xpu_platform_name(enum xpu_platform p);

struct xpu_inventory {
        char kernel[65]; /* uname release of the running kernel ("" under a fixture sys root) */
        enum xpu_platform platform;
        struct xpu_vendor_info vendors[_XPU_VENDOR_MAX];
        struct xpu_device *devices;
        size_t n_devices;
        char **warnings; /* one line each, naming the file and what was wrong */
        size_t n_warnings;
};

/* The host directories every read goes through (--sys-root, --dev-root, --driver-root). */
struct xpu_roots {
        int sys_fd;    /* "/" of /sys and /proc reads */
        int dev_fd;    /* directory holding dev/ */
        int driver_fd; /* root of the vendor user-space files (NVIDIA driver libraries) */
        char sys[PATH_MAX];
        char dev[PATH_MAX];
        char driver[PATH_MAX];
};

/* Open the three roots (NULL = "/"). Returns 0, or -errno naming which failed through *RET_WHICH
 * ("sys", "dev", "driver") when not NULL. */
int xpu_roots_open(struct xpu_roots *r, const char *sys, const char *dev, const char *driver,
                   const char **ret_which);
void xpu_roots_close(struct xpu_roots *r);

/* Read (again) the devices' facts that live in the driver root (each vendor's probe.driver_root,
 * vendor.h), after the driver root was chosen: xpu_inventory_probe() calls it with its roots, a
 * start again when the driver root it chose differs. Returns 0 or -ENOMEM. */
int xpu_inventory_driver_root_facts(const struct xpu_roots *roots, struct xpu_inventory *inv);
/* Run every backend and number the devices. *RET is owned by the caller (xpu_inventory_free()).
 * Returns 0 or -ENOMEM; device-level problems become warnings, never errors. */
int xpu_inventory_probe(const struct xpu_roots *roots, struct xpu_inventory **ret);
struct xpu_inventory *xpu_inventory_new(void);
struct xpu_inventory *xpu_inventory_free(struct xpu_inventory *inv);

/* Append a copy of DEV. Returns the stored copy or NULL on -ENOMEM. */
struct xpu_device *xpu_inventory_add_device(struct xpu_inventory *inv, const struct xpu_device *dev);
/* Record a warning line ("<file>: <problem>; <what was done>"). Returns 0 or -ENOMEM. */
int xpu_inventory_warn(struct xpu_inventory *inv, const char *fmt, ...) _printf_(2, 3);
/* The device of VENDOR whose pci_bus_id is BUS_ID (any spelling, compared as numbers), or NULL. */
struct xpu_device *xpu_inventory_find_bus_id(struct xpu_inventory *inv, enum xpu_vendor vendor, const char *bus_id);

/* Merge one string fact of a rich backend into DEV (the one rule every backend uses):
 *   DST empty             → copy VALUE (truncated to SIZE), mark F as coming from SOURCE, return 1;
 *                           but for XPU_FIELD_UUID not when xpu_inventory_uuid_owner() finds another
 *                           device with that UUID: then DST stays empty, a warning names both
 *                           devices, return 0 (XPU_VISIBLE_DEVICES=<uuid> must select one device);
 *   VALUE empty or equal  → nothing, return 0;
 *   different             → keep DST, add the warning "<pci bus id>: <source> reports <f> \"VALUE\"
 *                           but <the device's source> has \"DST\"; keeping <the device's source>'s",
 *                           return 0.
 * Returns -ENOMEM when the warning cannot be stored. */
int xpu_device_merge_string(struct xpu_inventory *inv, struct xpu_device *dev, enum xpu_field f, char *dst,
                            size_t size, const char *value, enum xpu_source source);
/* The same rule for a number with a have bit: DEV->have lacks HAVE_BIT → *DST = VALUE, set the
 * bit, mark F; equal → nothing; different → warning as above, keep *DST. Returns 1, 0 or -ENOMEM. */
int xpu_device_merge_u64(struct xpu_inventory *inv, struct xpu_device *dev, enum xpu_field f, uint64_t *dst,
                         uint32_t have_bit, uint64_t value, enum xpu_source source);
/* The same rule for the host's CUDA driver version ("12.2") of VENDOR: set it (and its source)
 * when empty; a different VERSION becomes a warning. VERSION empty: nothing. Returns 1, 0 or
 * -ENOMEM. */
int xpu_vendor_merge_cuda_version(struct xpu_inventory *inv, enum xpu_vendor vendor, const char *version,
                                  enum xpu_source source);
/* The device of INV other than DEV whose uuid is UUID (compared in any case, as device selection
 * compares), or NULL. Devices of DEV's vendor with DEV's PCI bus id are not counted: the
 * partitions of one AMD GPU share its GPU-level id by design (selecting it selects them all). */
const struct xpu_device *xpu_inventory_uuid_owner(const struct xpu_inventory *inv, const struct xpu_device *dev,
                                                  const char *uuid);
/* For a backend's merge loop: does device K of its result repeat the PCI bus id of an earlier one?
 * DEVICES is the result's array (element size STRIDE bytes), BUS_OFFSET the offset of the bus id
 * (char[XPU_PCI_BUS_ID_MAX], canonical form as the parsers store it, "" when unknown) in an element.
 * Returns 1 and adds the warning "<source>: devices J and K both report <bus id>; ignoring device
 * K" when an earlier device J has the same non-empty bus id (the caller skips device K), 0 when
 * not, -ENOMEM. */
int xpu_merge_bus_id_repeated(struct xpu_inventory *inv, enum xpu_source source, const void *devices, size_t stride,
                              size_t bus_offset, size_t k);
/* For a backend's merge: when the library has TOTAL devices but only READ were read (the reply's
 * limit), add the warning "<source>: TOTAL devices, only the first READ read". Returns 1 when it
 * warned, 0 when TOTAL <= READ, -ENOMEM. */
int xpu_merge_warn_truncated(struct xpu_inventory *inv, enum xpu_source source, size_t total, size_t read);
/* Mark F of DEV as filled by SOURCE (for facts a backend sets itself, e.g. MIG). */
void xpu_device_mark(struct xpu_device *dev, enum xpu_field f, enum xpu_source source);
/* The source of F of DEV: DEV->source unless a rich backend marked it. */
enum xpu_source xpu_device_field_source(const struct xpu_device *dev, enum xpu_field f);

/* Count the devices of VENDOR. */
size_t xpu_inventory_count(const struct xpu_inventory *inv, enum xpu_vendor vendor);

/* Append a node to an array of nodes (NODES with *N used of MAX). The node is looked up under
 * the dev root: present is set when it exists as a character device. An unknown major
 * (have_major false) stays unknown. Returns 0 or -E2BIG when full. */
int xpu_devnode_add(const struct xpu_roots *roots, struct xpu_devnode *nodes, size_t *n, size_t max,
                    const char *path, uint32_t major, uint32_t minor, bool have_major, bool optional);

/* The PCI bus id DEV is named by, into OUT (canonical form): its PCI function's, and for a
 * partition of an AMD GPU (XPU_HAVE_PARTITION) the same with the partition number as the function,
 * as ROCm SMI and amd-smi spell a partition ("0000:05:00.2" is partition 2 of the GPU at
 * 0000:05:00.0; KFD's location_id carries it in the function bits). Returns false (OUT "") when
 * DEV has no bus id. */
bool xpu_device_named_bus_id(const struct xpu_device *dev, char out[XPU_PCI_BUS_ID_MAX]);

/* True when MIG device M of DEV was given to this container: DEV is available
 * (xpu_device_available()) and both capability nodes of M are known and present. */
bool xpu_mig_available(const struct xpu_device *dev, size_t m);

/* D's MIG devices (mig.h), in (gi, ci) order, and their number in *N (at most
 * XPU_MIG_DEVICES_MAX), through its vendor's descriptor (the mig hook), so that code which is not
 * the vendor's reads no other vendor's facts: NULL with *N = 0 when D (NULL included) has none.
 * xpu_mig_count(): just the number. */
const struct xpu_mig_device *xpu_mig_devices(const struct xpu_device *d, size_t *n);
size_t xpu_mig_count(const struct xpu_device *d);

/* The MIG device of DEV with GPU instance GI and compute instance CI, or NULL. */
const struct xpu_mig_device *xpu_device_find_mig(const struct xpu_device *dev, uint32_t gi, uint32_t ci);

/* True when DEV has per-device nodes and every non-optional one is present under the dev root:
 * the container runtime gave this device to the container. */
bool xpu_device_available(const struct xpu_device *dev);
