/* SPDX-License-Identifier: Apache-2.0 */
/* What only an Intel GPU has: the facts of struct xpu_device's `intel` member (probe.h), valid
 * when the device's vendor is XPU_VENDOR_INTEL. Plain data, from i915 and xe sysfs. */
#pragma once

#include <stdint.h>

/* An Intel GPU's own facts. */
struct xpu_intel_facts {
        uint32_t tile_count; /* tiles (Level Zero sub-devices): xe device/tile*, i915 gt/gt* on multi-tile
                              * parts; 1 when the driver shows none (XPU_HAVE_TILES) */
};
