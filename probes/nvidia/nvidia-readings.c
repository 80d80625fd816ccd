/* SPDX-License-Identifier: Apache-2.0 */
/* NVML's live readings (struct xpu_nvml_device, as the helper read them) in the vendor-neutral
 * base units of readings.h, sentinels and impossible values left out (readings-range.h): see
 * xpu_nvml_device_readings_checked() in nvidia-nvml.h. No I/O; warnings go to the inventory. */
#include "nvidia/nvidia-nvml.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "base/macro.h"
#include "base/str.h"
#include "readings-range.h"

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

/* One device being mapped: where its warnings go. */
struct nvml_check {
        const struct xpu_nvml_device *d;
        struct xpu_inventory *inv; /* NULL: no warnings */
        int left_out;              /* readings dropped */
        int oom;                   /* -ENOMEM once a warning could not be stored */
};

/* Is RAW (as NVML answered CALL, in RAW_UNIT), V in the base unit, a reading of KIND? When not,
 * count it and warn once, naming the call. */
static bool keep(struct nvml_check *c, const char *call, const char *raw_unit, enum xpu_reading_kind kind, uint64_t raw,
                 double v) {
        const char *why = xpu_reading_implausible(kind, raw, v);
        if (!why)
                return true;
        c->left_out++;
        const char *who = c->d->pci_bus_id[0] ? c->d->pci_bus_id : c->d->uuid[0] ? c->d->uuid : "a GPU";
        if (c->inv && xpu_inventory_warn(c->inv, "nvml: %s: %s answered %" PRIu64 " %s: %s; left out", who, call, raw,
                                         raw_unit, why) < 0)
                c->oom = -ENOMEM;
        return false;
}

int xpu_nvml_device_readings_checked(const struct xpu_nvml_device *d, struct xpu_inventory *inv,
                                     struct xpu_readings *ret) {
        struct xpu_readings *r = ret;
        struct nvml_check c = { .d = d, .inv = inv };
        *r = (struct xpu_readings){ 0 };
        if (d->lost) {
                r->lost = true;
                xpu_strlcpy(r->lost_reason, d->lost_reason, sizeof r->lost_reason);
                return 0; /* what was read before the loss is not this sample's truth */
        }
        if ((d->have & XPU_NVML_HAVE_UTIL_GPU) &&
            keep(&c, "nvmlDeviceGetUtilizationRates(gpu)", "%", XPU_READING_PERCENT, d->utilization_gpu_percent,
                 d->utilization_gpu_percent)) {
                r->utilization_ratio = d->utilization_gpu_percent / 100.0;
                r->have |= XPU_READ_UTILIZATION;
        }
        if ((d->have & XPU_NVML_HAVE_UTIL_MEMORY) &&
            keep(&c, "nvmlDeviceGetUtilizationRates(memory)", "%", XPU_READING_PERCENT, d->utilization_memory_percent,
                 d->utilization_memory_percent)) {
                r->memory_bandwidth_utilization_ratio = d->utilization_memory_percent / 100.0;
                r->have |= XPU_READ_MEMORY_UTILIZATION;
        }
        if ((d->have & XPU_NVML_HAVE_MEMORY_USED) &&
            keep(&c, "nvmlDeviceGetMemoryInfo(used)", "bytes", XPU_READING_BYTES, d->memory_used_bytes,
                 (double)d->memory_used_bytes)) {
                r->memory_used_bytes = d->memory_used_bytes;
                r->have |= XPU_READ_MEMORY_USED;
        }
        if ((d->have & XPU_NVML_HAVE_MEMORY_TOTAL) &&
            keep(&c, "nvmlDeviceGetMemoryInfo(total)", "bytes", XPU_READING_BYTES, d->memory_total_bytes,
                 (double)d->memory_total_bytes)) {
                r->memory_total_bytes = d->memory_total_bytes;
                r->have |= XPU_READ_MEMORY_TOTAL;
        }
        if ((d->have & XPU_NVML_HAVE_TEMPERATURE) &&
            keep(&c, "nvmlDeviceGetTemperature(GPU)", "degrees Celsius", XPU_READING_CELSIUS, d->temperature_celsius,
                 d->temperature_celsius)) {
                r->temperature_celsius[XPU_TEMP_GPU] = d->temperature_celsius;
                r->have_temperature |= 1u << XPU_TEMP_GPU;
        }
        /* The GPU sensor's limits, kept apart from the reading: a board may report one without
         * the other. */
        if ((d->have & XPU_NVML_HAVE_TEMP_SLOWDOWN) &&
            keep(&c, "nvmlDeviceGetTemperatureThreshold(SLOWDOWN)", "degrees Celsius", XPU_READING_CELSIUS,
                 d->temp_slowdown_celsius, d->temp_slowdown_celsius)) {
                r->temperature_limit_celsius[XPU_TEMP_GPU][XPU_TEMP_LIMIT_SLOWDOWN] = d->temp_slowdown_celsius;
                r->have_temperature_limit |= XPU_TEMP_LIMIT_BIT(XPU_TEMP_GPU, XPU_TEMP_LIMIT_SLOWDOWN);
        }
        if ((d->have & XPU_NVML_HAVE_TEMP_SHUTDOWN) &&
            keep(&c, "nvmlDeviceGetTemperatureThreshold(SHUTDOWN)", "degrees Celsius", XPU_READING_CELSIUS,
                 d->temp_shutdown_celsius, d->temp_shutdown_celsius)) {
                r->temperature_limit_celsius[XPU_TEMP_GPU][XPU_TEMP_LIMIT_SHUTDOWN] = d->temp_shutdown_celsius;
                r->have_temperature_limit |= XPU_TEMP_LIMIT_BIT(XPU_TEMP_GPU, XPU_TEMP_LIMIT_SHUTDOWN);
        }
        if ((d->have & XPU_NVML_HAVE_POWER_USAGE) &&
            keep(&c, "nvmlDeviceGetPowerUsage", "mW", XPU_READING_WATTS, d->power_usage_milliwatts,
                 d->power_usage_milliwatts / 1000.0)) {
                r->power_watts = d->power_usage_milliwatts / 1000.0;
                r->have |= XPU_READ_POWER;
        }
        if ((d->have & XPU_NVML_HAVE_POWER_LIMIT) &&
            keep(&c, "nvmlDeviceGetEnforcedPowerLimit", "mW", XPU_READING_WATTS, d->power_limit_milliwatts,
                 d->power_limit_milliwatts / 1000.0)) {
                r->power_limit_watts = d->power_limit_milliwatts / 1000.0;
                r->have |= XPU_READ_POWER_LIMIT;
        }
        if ((d->have & XPU_NVML_HAVE_ENERGY) &&
            keep(&c, "nvmlDeviceGetTotalEnergyConsumption", "mJ", XPU_READING_COUNT, d->energy_millijoules,
                 (double)d->energy_millijoules / 1000.0)) {
                r->energy_joules = (double)d->energy_millijoules / 1000.0;
                r->have |= XPU_READ_ENERGY;
        }
        if ((d->have & XPU_NVML_HAVE_CLOCK_SM) &&
            keep(&c, "nvmlDeviceGetClockInfo(SM)", "Hz", XPU_READING_HERTZ, d->clock_sm_hz, (double)d->clock_sm_hz)) {
                r->clock_hertz[XPU_CLOCK_GRAPHICS] = d->clock_sm_hz;
                r->have_clock |= 1u << XPU_CLOCK_GRAPHICS;
        }
        if ((d->have & XPU_NVML_HAVE_CLOCK_MEMORY) &&
            keep(&c, "nvmlDeviceGetClockInfo(MEM)", "Hz", XPU_READING_HERTZ, d->clock_memory_hz,
                 (double)d->clock_memory_hz)) {
                r->clock_hertz[XPU_CLOCK_MEMORY] = d->clock_memory_hz;
                r->have_clock |= 1u << XPU_CLOCK_MEMORY;
        }
        /* Both counts or neither: one alone would make the other look like 0. Both are checked
         * (and warned about) before either is dropped. */
        if ((d->have & XPU_NVML_HAVE_ECC_CORRECTED) && (d->have & XPU_NVML_HAVE_ECC_UNCORRECTED)) {
                bool corr = keep(&c, "nvmlDeviceGetTotalEccErrors(CORRECTED, VOLATILE)", "errors", XPU_READING_COUNT,
                                 d->ecc_corrected, (double)d->ecc_corrected);
                bool unc = keep(&c, "nvmlDeviceGetTotalEccErrors(UNCORRECTED, VOLATILE)", "errors", XPU_READING_COUNT,
                                d->ecc_uncorrected, (double)d->ecc_uncorrected);
                if (corr && unc) {
                        r->ecc_corrected = d->ecc_corrected;
                        r->ecc_uncorrected = d->ecc_uncorrected;
                        r->have |= XPU_READ_ECC;
                }
        }
        /* A bitmask: all bits set is the sentinel, not every reason at once. */
        if ((d->have & XPU_NVML_HAVE_CLOCK_EVENTS) &&
            keep(&c, "nvmlDeviceGetCurrentClocksEventReasons", "(bitmask)", XPU_READING_COUNT, d->clock_event_reasons,
                 0)) {
                r->throttle = xpu_nvml_throttle_from_reasons(d->clock_event_reasons);
                r->have |= XPU_READ_THROTTLE;
        }
        /* Memory repair: lifetime counts and flags, taken as NVML gives them (the flags were
         * checked to be 0 or 1 by the parser). */
        if (d->have & XPU_NVML_HAVE_REMAP) {
                r->remapped_rows[XPU_REPAIR_CORRECTABLE] = d->remap_correctable;
                r->remapped_rows[XPU_REPAIR_UNCORRECTABLE] = d->remap_uncorrectable;
                r->remap_pending = d->remap_pending != 0;
                r->remap_failed = d->remap_failed != 0;
                r->have |= XPU_READ_ROW_REMAP;
        }
        if (d->have & XPU_NVML_HAVE_RETIRED) {
                r->retired_pages[XPU_REPAIR_CORRECTABLE] = d->retired_sbe;
                r->retired_pages[XPU_REPAIR_UNCORRECTABLE] = d->retired_dbe;
                r->retired_pending = d->retired_pending != 0;
                r->have |= XPU_READ_RETIRED_PAGES;
        }
        /* The NVLink fabric registration; the parser took the numbers as sent, the state is
         * checked here (the helper never sends one past COMPLETED). */
        if ((d->have & XPU_NVML_HAVE_FABRIC) && d->fabric_state < _XPU_FABRIC_STATE_MAX) {
                r->fabric_state = (uint8_t)d->fabric_state;
                r->fabric_status = d->fabric_status;
                r->fabric_clique_id = d->fabric_clique_id;
                memcpy(r->fabric_cluster_uuid, d->fabric_cluster_uuid, sizeof r->fabric_cluster_uuid);
                r->have |= XPU_READ_FABRIC;
                if (d->have & XPU_NVML_HAVE_FABRIC_HEALTH) {
                        r->fabric_health_mask = d->fabric_health_mask;
                        r->have |= XPU_READ_FABRIC_HEALTH;
                }
        }
        return c.oom < 0 ? c.oom : c.left_out;
}

void xpu_nvml_device_readings(const struct xpu_nvml_device *d, struct xpu_readings *ret) {
        (void)xpu_nvml_device_readings_checked(d, NULL, ret);
}
