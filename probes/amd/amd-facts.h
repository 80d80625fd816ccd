/* SPDX-License-Identifier: Apache-2.0 */
/* What only an AMD GPU has: the facts of struct xpu_device's `amd` member (probe.h), valid when
 * the device's vendor is XPU_VENDOR_AMD. Plain data, from the KFD topology node properties
 * (/sys/class/kfd/kfd/topology/nodes/N/properties, gpu_id) and amdgpu sysfs. */
#pragma once

#include <stdint.h>

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
