/* SPDX-License-Identifier: Apache-2.0 */
/* AMD fast path: KFD topology and amdgpu sysfs parsers (silent; exposed for tests and fuzzers).
 *
 * Sources (kernel amdkfd/kfd_topology.c, libhsakmt/src/topology.c):
 *   /sys/class/kfd/kfd/topology/nodes/N/properties   "key value" lines, values unsigned decimal
 *   /sys/class/kfd/kfd/topology/nodes/N/mem_banks/M/properties   same format (heap_type, size_in_bytes)
 *   /sys/class/kfd/kfd/dev                            "MAJ:MIN" of /dev/kfd (dynamic major)
 *   /sys/class/drm/cardN/device/unique_id             16 hex digits, or "N/A"
 * The probe itself is xpu_vendor_amd (probes/vendor.h). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "amd/amd-facts.h"

/* Device minors are 20 bits wide (the kernel's MINORBITS). */
#define XPU_AMD_MINOR_LIMIT (1u << 20)

/* Bounds: KFD nodes and DRM cards looked at per host, memory banks per node, and the longest
 * properties line accepted (a real line is under 40 bytes). */
#define XPU_AMD_NODES_MAX 256
#define XPU_AMD_CARDS_MAX 256
#define XPU_AMD_BANKS_MAX 64
#define XPU_AMD_LINE_MAX 128

/* The properties keys the probe uses; every other key is ignored. */
enum xpu_amd_prop {
        XPU_AMD_PROP_CPU_CORES_COUNT = 0,  /* CPU cores of a CPU node */
        XPU_AMD_PROP_SIMD_COUNT,           /* SIMDs; 0 on CPU nodes */
        XPU_AMD_PROP_SIMD_PER_CU,          /* SIMDs per compute unit */
        XPU_AMD_PROP_GFX_TARGET_VERSION,   /* major*10000 + minor*100 + stepping; absent on old kernels */
        XPU_AMD_PROP_VENDOR_ID,            /* PCI vendor id, decimal (4098 = 0x1002) */
        XPU_AMD_PROP_DEVICE_ID,            /* PCI device id, decimal */
        XPU_AMD_PROP_LOCATION_ID,          /* bus << 8 | devfn; partitions put their number in the function bits */
        XPU_AMD_PROP_DOMAIN,               /* PCI domain; absent on old kernels (= 0) */
        XPU_AMD_PROP_DRM_RENDER_MINOR,     /* N of /dev/dri/renderDN */
        XPU_AMD_PROP_HIVE_ID,              /* XGMI hive, 0 when none */
        XPU_AMD_PROP_LOCAL_MEM_SIZE,       /* bytes; filled on old kernels, 0 on current ones */
        XPU_AMD_PROP_UNIQUE_ID,            /* 64-bit, printed in decimal by KFD */
        XPU_AMD_PROP_NUM_XCC,              /* XCCs (accelerator complexes) of this node */
        XPU_AMD_PROP_HEAP_TYPE,            /* mem_banks: 0 system, 1 frame buffer public, 2 frame buffer private */
        XPU_AMD_PROP_SIZE_IN_BYTES,        /* mem_banks: bytes */
        _XPU_AMD_PROP_MAX,
};

/* mem_banks heap_type values that are the GPU's own memory (VRAM). */
#define XPU_AMD_HEAP_FB_PUBLIC 1
#define XPU_AMD_HEAP_FB_PRIVATE 2

struct xpu_amd_properties {
        uint64_t value[_XPU_AMD_PROP_MAX];
        uint32_t have;         /* bit 1u << XPU_AMD_PROP_* when value[] holds that key */
        unsigned n_malformed;  /* lines that are not "key unsigned-decimal" (too long, no value,
                                * garbage, overflow) or repeat a used key: ignored */
};

/* Key text of PROP ("simd_count"); NULL when out of range. */
const char *xpu_amd_prop_name(enum xpu_amd_prop prop);

/* Parse a KFD properties text ("key value\n" lines, as in nodes/N/properties and
 * mem_banks/M/properties) into *RET. Unknown keys are skipped; malformed lines are counted in
 * n_malformed and skipped; for a repeated key the first value wins. Empty lines are fine.
 * Returns 0 (even when nothing was recognised) or -EINVAL when TEXT or RET is NULL. */
int xpu_amd_parse_properties(const char *text, struct xpu_amd_properties *ret);

/* True when PROPS holds KEY; then *RET (when not NULL) gets its value. */
bool xpu_amd_prop_get(const struct xpu_amd_properties *props, enum xpu_amd_prop key, uint64_t *ret);

/* Format a KFD gfx_target_version (major*10000 + minor*100 + stepping) as the LLVM/ROCm target
 * name: "gfx" + major in decimal + minor and stepping as one hex digit each (libhsakmt's rule):
 * 90008 → gfx908, 90010 → gfx90a, 90402 → gfx942, 100300 → gfx1030, 110501 → gfx1151.
 * Returns the length, -EINVAL when VERSION is 0, major is 0 or above 99, or minor/stepping do not
 * fit one hex digit (never guesses), -ENOBUFS when BUF (SIZE bytes) is too small. */
int xpu_amd_gfx_target(uint32_t version, char *buf, size_t size);

/* A PCI location decoded from KFD's domain and location_id. */
struct xpu_amd_location {
        uint32_t domain;
        uint8_t bus;
        uint8_t dev; /* devfn >> 3 */
        uint8_t fn;  /* devfn & 7: the PCI function, or the partition number of a partitioned GPU */
};

/* Decode DOMAIN (32 bits) and LOCATION_ID (bus << 8 | devfn, 16 bits). Returns 0, or -ERANGE when
 * either has bits set beyond its width. */
int xpu_amd_location_decode(uint64_t domain, uint64_t location_id, struct xpu_amd_location *ret);

/* Parse a DRM/KFD "MAJ:MIN" text (white space around it allowed), majors and minors below 2^20.
 * Returns 0 or -EINVAL. */
int xpu_amd_parse_dev(const char *text, uint32_t *ret_major, uint32_t *ret_minor);

/* Parse amdgpu's device/unique_id text: 1-16 hex digits, no 0x prefix (rocm-smi drops leading
 * zeros, so fewer digits are accepted). Returns 0, -ENODATA for "N/A" or an empty text, -EINVAL
 * for anything else. */
int xpu_amd_parse_unique_id(const char *text, uint64_t *ret);

struct xpu_vendor_k8s;
/* How AMD's Kubernetes device plugin names its GPUs (amd-k8s.c): the descriptor's k8s. */
extern const struct xpu_vendor_k8s xpu_k8s_amd;
/* AMD's GPUs on WSL2 (amd-wsl.c): the descriptor's wsl. */
extern const struct xpu_vendor_wsl xpu_wsl_amd;

struct xpu_kernel_event;
/* AMD's kernel-log rules (amd-kmsg.c): the descriptor's kernel_log (vendor.h). */
int xpu_amd_kernel_log(const char *record, const char *msg, size_t len, struct xpu_kernel_event *ev);
