/* SPDX-License-Identifier: Apache-2.0 */
/* Device model, inventory and backend registry: what the probes report.
 *
 * Data flow: xpu_inventory_probe() runs every vendor's fast path (xpu_vendors[], one descriptor per
 * vendor, probes/<vendor>/) against the host roots and returns plain data. Nothing here mounts, execs
 * or opens device nodes for I/O. Absent facts stay absent: every optional number has a bit in
 * xpu_device.have, every optional string is empty. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/fileio.h"
#include "base/macro.h"
#include "base/pci.h"
#include "base/devnode.h"
/* The vendors' own facts (plain data, one header each): members of struct xpu_device. */
#include "amd/amd-facts.h"
#include "intel/intel-facts.h"
#include "nvidia/nvidia-facts.h"

enum xpu_vendor {
        XPU_VENDOR_NVIDIA = 0,
        XPU_VENDOR_AMD,
        XPU_VENDOR_INTEL,
        _XPU_VENDOR_MAX,
};

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
        _XPU_SOURCE_MAX,
};
/* "procfs", "sysfs", "nvml", "rocm_smi", "cuda"; NULL for an out-of-range value. */
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

        /* The vendor's own facts (probes/<vendor>/<vendor>-facts.h), one union: only the member of
         * the device's vendor holds anything, so only the vendor's own code and descriptor hooks
         * (struct xpu_vendor_ops) read them; vendor-neutral code goes through the descriptor. */
        union {
                struct xpu_nvidia_facts nvidia;
                struct xpu_amd_facts amd;
                struct xpu_intel_facts intel;
        };

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
};

struct xpu_inventory {
        char kernel[65]; /* uname release of the running kernel ("" under a fixture sys root) */
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

struct xpu_rich_ops; /* rich.h */
struct cJSON;        /* cJSON.h */
struct xpu_readings;  /* readings.h */

/* A vendor's live readings, for xpud's sampler: state kept between samples (a library session,
 * open sysfs files) and one collection per sample. */
struct xpu_readings_ops {
        const char *name; /* the backend's name: "nvml", "amdgpu_sysfs" (xpud_backend_up{backend}) */
        /* New state into *RET. Returns 0 or -ENOMEM. */
        int (*open)(void **ret);
        /* Read this vendor's devices of INV: R[i] and FRESH[i] = true for each inventory device i
         * read (R and FRESH have one slot per inventory device); a library's identity facts may be
         * merged into INV (names, memory). TIMEOUT_MS bounds a vendor library's helper. Returns 0,
         * -ENOMEM (the sample fails), or another -errno with ERR one line (the backend is down for
         * this sample; what it read is kept). */
        int (*collect)(void *state, const struct xpu_roots *roots, unsigned timeout_ms, struct xpu_inventory *inv,
                       struct xpu_readings *r, bool *fresh, char *err, size_t err_size);
        /* Let go of what holds the driver (a library helper): its driver went away, or the sampler
         * thread ends. NULL when there is nothing to let go of; the state stays usable. */
        void (*stop)(void *state);
        void (*close)(void *state); /* NULL-safe */
};

/* How a vendor's own visibility variable is read (entrypoint/select.c applies the rules) and the
 * marks its CDI specs leave in a container. Plain data: the vendor's conventions, no code. */
struct xpu_vendor_visibility {
        const char *variable; /* "NVIDIA_VISIBLE_DEVICES"; read when XPU_VISIBLE_DEVICES is unset */
        bool ranges;          /* entries may be ranges "0-3" (amd-container-runtime) */
        /* "0x<hex>" names a device by the number its vendor knows it by (AMD: the KFD unique_id):
         * D's as hex digits, "" when unknown. NULL: the vendor has no such number. */
        const char *(*unique_id)(const struct xpu_device *d);
        const char *cdi_kind; /* the kind of the vendor's CDI specs: "nvidia.com/gpu" */
        /* The variable a spec of the vendor's CDI generator sets beside the devices and driver
         * files it gives (select.h), the value it must have (NULL: any non-empty one), and whether
         * that value is where CDI mounted the driver libraries. NULL: the vendor sets none. */
        const char *cdi_mark;
        const char *cdi_mark_value;
        bool cdi_mark_is_libdir;
        /* A variable whose numbers are the vendor runtime's own (Level Zero's ZE_AFFINITY_MASK,
         * read in the hierarchy the workload uses): TRANSLATE turns VALUE into the list the rules
         * above read (vendor indices, into LIST); MASK writes the value that selects SELECTED (one
         * flag per inventory device) when another variable decided ("" = every given device:
         * unset it). Both return 0, -ENOMEM, -ENOBUFS or -EINVAL with ERR. NULL: the value is the
         * list, and nothing is written back. */
        int (*translate)(const struct xpu_inventory *inv, const char *value, char *list, size_t list_size, char *err,
                         size_t err_size);
        int (*mask)(const struct xpu_inventory *inv, const bool *selected, char *out, size_t size, char *err,
                    size_t err_size);
};

/* What a vendor's GPUs need in a CDI spec besides their nodes (cdi-spec.h). */
struct xpu_vendor_cdi {
        /* The user-mode driver files that must match the host's kernel module: globs of
         * "<base>.so" matched against "<base>.so.<driver version>" (libs.h), and programs. NULL:
         * the vendor's user space lives in the image (ROCm, oneAPI). */
        const char *const *libraries;
        const char *const *programs;
        /* Files found by their path (host-files.h patterns), mounted at the same path below the
         * driver root, where xpuinit in the image places them. */
        const char *const *files;
        const char *const *env; /* "NAME=VALUE" set with each of the vendor's devices */
};

/* A string fact of a vendor's devices shown as a metadata label (xpud's xpu_info): the label's
 * name and the offset in struct xpu_device of a NUL-terminated char array ("" = unknown). */
struct xpu_fact_label {
        const char *label;
        size_t offset;
};

/* One vendor: everything the vendor-neutral code needs to know about it, in one place
 * (probes/<vendor>/). xpu_vendors[] is the only list of vendors in the program. */
struct xpu_vendor_ops {
        enum xpu_vendor vendor;
        const char *name;         /* "nvidia": JSON values, labels, "vendor:index" entries */
        const char *display_name; /* "NVIDIA": the vendor's own spelling, for messages */
        struct xpu_vendor_visibility visibility;
        /* Fast path: procfs, sysfs and dev only; no dynamic loading. Appends this vendor's devices
         * (vendor_index set, index left to the caller) and fills inv->vendors[vendor]. A bad or
         * unreadable file skips that device or field with one xpu_inventory_warn() naming the
         * file; probing goes on. Returns 0, or -ENOMEM. */
        int (*probe)(const struct xpu_roots *roots, struct xpu_inventory *inv);
        /* The rich-path backends (rich.h) that read this vendor's library, in merge order,
         * NULL-terminated; NULL when the vendor has none. */
        const struct xpu_rich_ops *const *rich;
        const struct xpu_vendor_cdi *cdi; /* NULL: nodes only */
        const struct xpu_readings_ops *readings; /* NULL: xpud reads none (the device has health only) */
        /* Device code (probes/devcode/): the vendor's XPU_CODE_VENDOR_* bit (0: the audit judges no
         * device code of its GPUs), what its kinds of GPU are called ("compute capability"), and
         * D's kind as an audit --for spelling into SPEC ("9.0", "gfx90a"; "" when unknown). */
        unsigned code_vendor;
        const char *code_target_name;
        void (*code_target)(const struct xpu_device *d, char *spec, size_t size);
        /* How D is partitioned, as a label value ("mig", "cpx_nps4", "none"); NULL when not known
         * (device-targets.h). NULL: the vendor's GPUs are never partitioned (always "none"). */
        const char *(*partition)(const struct xpu_device *d);
        /* D's own facts (D->nvidia, D->amd, ...; only this vendor's member is ever read) in the
         * views of a device: FACTS_JSON adds them as members of D's inventory JSON object O
         * ("minor", "gfx_target", ...: docs/architecture.md) and returns false on -ENOMEM;
         * FACTS_TEXT writes them on D's `xpuinit probe` line ("  cc 9.0  brand Tesla"), and
         * SUBDEVICES_TEXT writes one line each for its sub-devices below it (MIG devices). NULL:
         * none. */
        bool (*facts_json)(const struct xpu_device *d, struct cJSON *o);
        void (*facts_text)(const struct xpu_device *d, FILE *f);
        void (*subdevices_text)(const struct xpu_device *d, FILE *f);
        /* The vendor's own string facts that xpud's xpu_info carries as labels, ended by a NULL
         * label; NULL: none. */
        const struct xpu_fact_label *info_labels;
        /* D's MIG devices (D->nvidia.mig) and their number in *N, or NULL with *N = 0 (probe.h's
         * xpu_mig_devices()). NULL: the vendor's GPUs have none. */
        const struct xpu_mig_device *(*mig)(const struct xpu_device *d, size_t *n);
        uint32_t code_target_sources; /* rich sources (1u << enum xpu_source) of code_target()'s fact; 0: fast path */
        bool cuda_driver;    /* its rich path sets xpu_vendor_info.cuda_driver_version (the "cuda" requirement key) */
        bool rich_mig_uuids; /* MIG UUIDs come only from its rich path: their absence is told by its rich_note */
        const char *require_advice; /* after "; " when its known driver fails a requirement; NULL "update the driver" */
        /* Its toolkit's image requirement variables: NAME=EXPR for every NAME with the prefix, checked with its
         * profiles unless the disable variable is true, SKIP (NULL-terminated) never; NULL: none. */
        const char *require_env_prefix, *require_env_disable; /* "NVIDIA_REQUIRE_", "NVIDIA_DISABLE_REQUIRE" */
        const char *const *require_env_skip;                  /* "NVIDIA_REQUIRE_JETPACK" */
};

extern const struct xpu_vendor_ops xpu_vendor_nvidia; /* probes/nvidia/nvidia.c */
extern const struct xpu_vendor_ops xpu_vendor_amd;    /* probes/amd/amd.c */
extern const struct xpu_vendor_ops xpu_vendor_intel;  /* probes/intel/intel.c */
/* Every vendor, indexed by enum xpu_vendor, which is also the order the fast paths run in and
 * the order of xpuinit indices (probes/vendors.c). */
extern const struct xpu_vendor_ops *const xpu_vendors[_XPU_VENDOR_MAX];
/* The descriptor of V, NULL when V is out of range. */
const struct xpu_vendor_ops *xpu_vendor(enum xpu_vendor v);

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

/* D's MIG devices (nvidia-facts.h), in (gi, ci) order, through its vendor's descriptor (the mig
 * hook), so that code which is not the vendor's reads no other vendor's facts: NULL when D has
 * none. xpu_mig_count(): how many (0 for a device whose vendor has no MIG). */
const struct xpu_mig_device *xpu_mig_devices(const struct xpu_device *d);
size_t xpu_mig_count(const struct xpu_device *d);

/* The MIG device of DEV with GPU instance GI and compute instance CI, or NULL. */
const struct xpu_mig_device *xpu_device_find_mig(const struct xpu_device *dev, uint32_t gi, uint32_t ci);

/* True when DEV has per-device nodes and every non-optional one is present under the dev root:
 * the container runtime gave this device to the container. */
bool xpu_device_available(const struct xpu_device *dev);

/* Look up a character device major by name in /proc/devices ("Character devices:" section)
 * below the sys root. Returns the major (>= 0), -ENOENT when absent, or -errno from the read. */
int xpu_proc_devices_major(const struct xpu_roots *roots, const char *name);
