/* SPDX-License-Identifier: Apache-2.0 */
/* What only an AMD GPU has: the facts struct xpu_device keeps in its vendor_facts (probe.h),
 * reached through xpu_amd_facts(), valid when the device's vendor is XPU_VENDOR_AMD. Plain data,
 * from the KFD topology node properties (/sys/class/kfd/kfd/topology/nodes/N/properties, gpu_id)
 * and amdgpu sysfs. */
#pragma once

#include <assert.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>

#include "probe.h"

/* An AMD GPU's (or one partition's) own facts. */
struct xpu_amd_facts {
        char gfx_target[16];         /* "gfx90a", from gfx_target_version (XPU_HAVE_GFX_TARGET_VERSION) */
        uint32_t gfx_target_version; /* major*10000 + minor*100 + stepping */
        uint32_t kfd_gpu_id;         /* topology/nodes/N/gpu_id (XPU_HAVE_KFD_GPU_ID) */
        uint32_t kfd_node;           /* N of topology/nodes/N (XPU_HAVE_KFD_NODE) */
        char unique_id[24];          /* 16 lower-case hex digits (%016llx) */
        uint32_t simd_count;         /* XPU_HAVE_SIMD_COUNT */
        uint32_t compute_units;      /* simd_count / simd_per_cu */
        uint32_t num_xcc;            /* XPU_HAVE_NUM_XCC */
        char partition_mode[24];     /* "cpx_nps4": the card's current_compute_partition and
                                      * current_memory_partition (MI300 and later), lower-case; "" without */
};

static_assert(sizeof(struct xpu_amd_facts) <= XPU_VENDOR_FACTS_SIZE,
              "struct xpu_amd_facts outgrew XPU_VENDOR_FACTS_SIZE: raise it in probes/probe.h");
static_assert(alignof(struct xpu_amd_facts) <= alignof(max_align_t), "vendor facts are aligned as max_align_t");

/* D's AMD facts: D a struct xpu_device * of an AMD GPU, the result as const as D. */
#define xpu_amd_facts(d)                                                                                  \
        _Generic((d),                                                                                     \
                const struct xpu_device *: (const struct xpu_amd_facts *)(const void *)(d)->vendor_facts, \
                struct xpu_device *: (struct xpu_amd_facts *)(void *)(d)->vendor_facts)

/* The offset in struct xpu_device of MEMBER of D's AMD facts, for the descriptor's tables of string
 * facts (struct xpu_fact_label, vendor.h), which vendor-neutral code reads by offset. */
#define XPU_AMD_FACT(member) (offsetof(struct xpu_device, vendor_facts) + offsetof(struct xpu_amd_facts, member))
