/* SPDX-License-Identifier: Apache-2.0 */
/* What only an Intel GPU has: the facts struct xpu_device keeps in its vendor_facts (probe.h),
 * reached through xpu_intel_facts(), valid when the device's vendor is XPU_VENDOR_INTEL. Plain
 * data, from i915 and xe sysfs. */
#pragma once

#include <assert.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>

#include "probe.h"

/* An Intel GPU's own facts. */
struct xpu_intel_facts {
        uint32_t tile_count; /* tiles (Level Zero sub-devices): xe device/tile*, i915 gt/gt* on multi-tile
                              * parts; 1 when the driver shows none (XPU_HAVE_TILES) */
};

static_assert(sizeof(struct xpu_intel_facts) <= XPU_VENDOR_FACTS_SIZE,
              "struct xpu_intel_facts outgrew XPU_VENDOR_FACTS_SIZE: raise it in probes/probe.h");
static_assert(alignof(struct xpu_intel_facts) <= alignof(max_align_t), "vendor facts are aligned as max_align_t");

/* D's Intel facts: D a struct xpu_device * of an Intel GPU, the result as const as D. */
#define xpu_intel_facts(d)                                                                                  \
        _Generic((d),                                                                                     \
                const struct xpu_device *: (const struct xpu_intel_facts *)(const void *)(d)->vendor_facts, \
                struct xpu_device *: (struct xpu_intel_facts *)(void *)(d)->vendor_facts)

/* The offset in struct xpu_device of MEMBER of D's Intel facts, for the descriptor's tables of string
 * facts (struct xpu_fact_label, vendor.h), which vendor-neutral code reads by offset. */
#define XPU_INTEL_FACT(member) (offsetof(struct xpu_device, vendor_facts) + offsetof(struct xpu_intel_facts, member))
