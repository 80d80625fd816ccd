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
        struct xpu_mig_device mig[XPU_MIG_DEVICES_MAX]; /* by (gi, ci) */
        size_t n_mig;
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
