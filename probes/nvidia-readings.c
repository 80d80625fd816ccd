/* SPDX-License-Identifier: Apache-2.0 */
/* NVML's live readings (struct xpu_nvml_device, as the helper read them) in the vendor-neutral
 * base units of readings.h: see xpu_nvml_device_readings() in nvidia-nvml.h. Pure: no I/O. */
#include "nvidia-nvml.h"

#include <string.h>

#include "base/fileio.h"
#include "base/macro.h"

/* NVML clock event (throttle) reason bits (nvml.h nvmlClocksEventReason*, formerly
 * nvmlClocksThrottleReason*) and the neutral reason each one counts as. Bits not listed
 * (0x1 GPU idle, 0x2 application clocks setting, 0x100 display clock setting) are no throttling. */
static const struct {
        uint64_t bits;
        enum xpu_throttle reason;
} throttle_bits[] = {
        { 0x4, XPU_THROTTLE_POWER },         /* SW power cap */
        { 0x20, XPU_THROTTLE_THERMAL },      /* SW thermal slowdown */
        { 0x40, XPU_THROTTLE_THERMAL },      /* HW thermal slowdown */
        { 0x8, XPU_THROTTLE_HW_SLOWDOWN },   /* HW slowdown */
        { 0x80, XPU_THROTTLE_HW_SLOWDOWN },  /* HW power brake slowdown */
        { 0x10, XPU_THROTTLE_SYNC_BOOST },   /* sync boost */
};

uint32_t xpu_nvml_throttle_from_reasons(uint64_t reasons) {
        uint32_t t = 0;
        for (size_t i = 0; i < ELEMENTSOF(throttle_bits); i++)
                if (reasons & throttle_bits[i].bits)
                        t |= 1u << throttle_bits[i].reason;
        return t;
}

void xpu_nvml_device_readings(const struct xpu_nvml_device *d, struct xpu_readings *ret) {
        struct xpu_readings *r = ret;
        *r = (struct xpu_readings){ 0 };
        if (d->lost) {
                r->lost = true;
                xpu_strlcpy(r->lost_reason, d->lost_reason, sizeof r->lost_reason);
                return; /* what was read before the loss is not this sample's truth */
        }
        if (d->have & XPU_NVML_HAVE_UTIL_GPU) {
                r->utilization_ratio = d->utilization_gpu_percent / 100.0;
                r->have |= XPU_READ_UTILIZATION;
        }
        if (d->have & XPU_NVML_HAVE_UTIL_MEMORY) {
                r->memory_bandwidth_utilization_ratio = d->utilization_memory_percent / 100.0;
                r->have |= XPU_READ_MEMORY_UTILIZATION;
        }
        if (d->have & XPU_NVML_HAVE_MEMORY_USED) {
                r->memory_used_bytes = d->memory_used_bytes;
                r->have |= XPU_READ_MEMORY_USED;
        }
        if (d->have & XPU_NVML_HAVE_MEMORY_TOTAL) {
                r->memory_total_bytes = d->memory_total_bytes;
                r->have |= XPU_READ_MEMORY_TOTAL;
        }
        if (d->have & XPU_NVML_HAVE_TEMPERATURE) {
                r->temperature_celsius[XPU_TEMP_GPU] = d->temperature_celsius;
                r->have_temperature |= 1u << XPU_TEMP_GPU;
        }
        if (d->have & XPU_NVML_HAVE_POWER_USAGE) {
                r->power_watts = d->power_usage_milliwatts / 1000.0;
                r->have |= XPU_READ_POWER;
        }
        if (d->have & XPU_NVML_HAVE_POWER_LIMIT) {
                r->power_limit_watts = d->power_limit_milliwatts / 1000.0;
                r->have |= XPU_READ_POWER_LIMIT;
        }
        if (d->have & XPU_NVML_HAVE_ENERGY) {
                r->energy_joules = (double)d->energy_millijoules / 1000.0;
                r->have |= XPU_READ_ENERGY;
        }
        if (d->have & XPU_NVML_HAVE_CLOCK_SM) {
                r->clock_hertz[XPU_CLOCK_GRAPHICS] = d->clock_sm_hz;
                r->have_clock |= 1u << XPU_CLOCK_GRAPHICS;
        }
        if (d->have & XPU_NVML_HAVE_CLOCK_MEMORY) {
                r->clock_hertz[XPU_CLOCK_MEMORY] = d->clock_memory_hz;
                r->have_clock |= 1u << XPU_CLOCK_MEMORY;
        }
        /* Both counts or neither: one alone would make the other look like 0. */
        if ((d->have & XPU_NVML_HAVE_ECC_CORRECTED) && (d->have & XPU_NVML_HAVE_ECC_UNCORRECTED)) {
                r->ecc_corrected = d->ecc_corrected;
                r->ecc_uncorrected = d->ecc_uncorrected;
                r->have |= XPU_READ_ECC;
        }
        if (d->have & XPU_NVML_HAVE_CLOCK_EVENTS) {
                r->throttle = xpu_nvml_throttle_from_reasons(d->clock_event_reasons);
                r->have |= XPU_READ_THROTTLE;
        }
}
