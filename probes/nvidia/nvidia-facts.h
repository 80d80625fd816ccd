/* SPDX-License-Identifier: Apache-2.0 */
/* What only an NVIDIA GPU has: the facts of struct xpu_device's `nvidia` member (probe.h), valid
 * when the device's vendor is XPU_VENDOR_NVIDIA. Plain data, filled by the fast path
 * (/proc/driver/nvidia/gpus/<bus id>/information, capabilities/) and the rich path (NVML, CUDA). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
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

/* An NVIDIA GPU's own facts. */
struct xpu_nvidia_facts {
        uint32_t minor;              /* "Device Minor:" → /dev/nvidia<minor>; not the index (XPU_HAVE_MINOR) */
        uint32_t irq;                /* "IRQ:" (XPU_HAVE_IRQ) */
        bool excluded;               /* "GPU Excluded: Yes" / "Blacklisted: Yes" (XPU_HAVE_EXCLUDED) */
        char vbios_version[32];      /* "Video BIOS:" */
        char bus_type[16];           /* "Bus Type:" PCI, PCIe, ... */
        char gsp_firmware[32];       /* "GPU Firmware:" */
        char compute_capability[16]; /* "9.0"; NVML or CUDA only */
        char brand[32];              /* NVML brand: "GeForce", "Tesla", "NVIDIA"; NVML only */
        bool mig_enabled;            /* current MIG mode (XPU_HAVE_MIG_MODE) */
        /* Jetson's integrated GPU (nvidia-tegra.c): the SoC ("tegra234", from the device tree's
         * compatible) and the L4T release of /etc/nv_tegra_release ("35.4.1"); "" elsewhere. */
        char tegra_soc[16];
        char l4t_release[16];
        struct xpu_mig_device mig[XPU_MIG_DEVICES_MAX]; /* by (gi, ci) */
        size_t n_mig;
};
