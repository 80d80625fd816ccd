/* SPDX-License-Identifier: Apache-2.0 */
/* A MIG device: a partition of a GPU that the contracts name (selection by UUID or "<gpu>:<mig>",
 * CDI device names, metrics), so vendor-neutral code reads it, through xpu_mig_devices() (probe.h:
 * the vendor's descriptor finds them in its own facts). Plain data; the vendor that has them
 * (probes/nvidia/) fills them. */
#pragma once

#include <stdint.h>

#include "base/devnode.h"

/* Most MIG devices one GPU can hold (7 on A100/H100/H200) with room to spare. */
#define XPU_MIG_DEVICES_MAX 8

/* Bits of xpu_mig_device.have. */
enum {
        XPU_MIG_HAVE_MEMORY_TOTAL = 1u << 0, /* memory_total_bytes (NVML) */
        XPU_MIG_HAVE_CAPS = 1u << 1,         /* gi_cap, ci_cap (procfs) */
};

/* One MIG device of an NVIDIA GPU in MIG mode: a compute instance (CI) inside a GPU instance (GI).
 * A workload that is given it needs the parent's /dev/nvidiaN and the two capability nodes, whose
 * minors the driver lists in /proc/driver/nvidia/capabilities/gpu<minor>/mig/gi<G>/access and
 * .../gi<G>/ci<C>/access ("DeviceFileMinor: M" → /dev/nvidia-caps/nvidia-capM, major "nvidia-caps"
 * of /proc/devices). Ordered by (gi, ci), the order NVML's nvmlDeviceGetMigDeviceHandleByIndex
 * and nvidia-smi number them in; the index in xpu_device.mig[] is the "<gpu>:<mig>" number. */
struct xpu_mig_device {
        uint32_t gi;                 /* GPU instance id: G of gi<G> (nvmlDeviceGetGpuInstanceId) */
        uint32_t ci;                 /* compute instance id: C of ci<C> (nvmlDeviceGetComputeInstanceId) */
        uint32_t have;               /* XPU_MIG_HAVE_* */
        char uuid[64];               /* "MIG-<uuid>" from NVML (nvmlDeviceGetUUID of the MIG handle); "" unknown */
        char name[96];               /* NVML name of the MIG handle ("NVIDIA A100-SXM4-80GB MIG 1g.20gb"); "" */
        uint64_t memory_total_bytes; /* bytes, nvmlDeviceGetMemoryInfo of the MIG handle */
        struct xpu_devnode gi_cap;   /* /dev/nvidia-caps/nvidia-cap<M> of the GI's access file */
        struct xpu_devnode ci_cap;   /* the same for the CI */
};
