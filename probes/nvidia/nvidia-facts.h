/* SPDX-License-Identifier: Apache-2.0 */
/* What only an NVIDIA GPU has: the facts struct xpu_device keeps in its vendor_facts (probe.h),
 * reached through xpu_nvidia_facts(), valid when the device's vendor is XPU_VENDOR_NVIDIA. Plain
 * data, filled by the fast path (/proc/driver/nvidia/gpus/<bus id>/information, capabilities/) and
 * the rich path (NVML, CUDA). Its MIG devices are struct xpu_mig_device (mig.h). */
#pragma once

#include <assert.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mig.h"
#include "probe.h"

/* Highest NUMA node id + 1 we accept from sysfs or NVML (the kernel's NODES_SHIFT is at most 10 on
 * arm64 and x86-64: 1024 nodes; room to spare). */
#define XPU_NVIDIA_NUMA_NODES_MAX 4096

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
        /* Memory coherent with the CPU's (Grace Hopper, Grace Blackwell: NVLink-C2C), nvidia-numa.h:
         * the CPU-less NUMA node that holds the GPU's memory, from the sysfs pairing or NVML. */
        bool memory_numa_known;      /* memory_numa_node is set */
        uint32_t memory_numa_node;   /* < XPU_NVIDIA_NUMA_NODES_MAX */
        uint8_t memory_numa_source;  /* enum xpu_source that gave it: sysfs or nvml */
        char memory_numa_label[12];  /* memory_numa_node in decimal ("" unknown): the xpu_info label */
        char memory_coherent[8];     /* "true", "false"; "" unknown */
        char addressing_mode[8];     /* nvmlDeviceGetAddressingMode: "ats", "hmm", "none"; "" unknown */
};

static_assert(sizeof(struct xpu_nvidia_facts) <= XPU_VENDOR_FACTS_SIZE,
              "struct xpu_nvidia_facts outgrew XPU_VENDOR_FACTS_SIZE: raise it in probes/probe.h");
static_assert(alignof(struct xpu_nvidia_facts) <= alignof(max_align_t), "vendor facts are aligned as max_align_t");

/* D's NVIDIA facts: D a struct xpu_device * of an NVIDIA GPU, the result as const as D. */
#define xpu_nvidia_facts(d)                                                                                  \
        _Generic((d),                                                                                        \
                const struct xpu_device *: (const struct xpu_nvidia_facts *)(const void *)(d)->vendor_facts, \
                struct xpu_device *: (struct xpu_nvidia_facts *)(void *)(d)->vendor_facts)

/* The offset in struct xpu_device of MEMBER of D's NVIDIA facts, for the descriptor's tables of string
 * facts (struct xpu_fact_label, vendor.h), which vendor-neutral code reads by offset. */
#define XPU_NVIDIA_FACT(member) (offsetof(struct xpu_device, vendor_facts) + offsetof(struct xpu_nvidia_facts, member))
