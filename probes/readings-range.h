/* SPDX-License-Identifier: Apache-2.0 */
/* Plausibility of live readings: what NVML and amdgpu sysfs hand over is checked before
 * it becomes a struct xpu_readings field, so a vendor's "not available" value or a physically
 * impossible one is never served as a reading. Used by probes/nvidia/nvidia-readings.c and
 * probes/amd/amd-readings.c (each drops the value and adds one inventory warning naming its source)
 * and by xpud's renderers for the inventory's memory figures. Pure: no I/O, no logging.
 *
 * Two checks, in this order:
 *   sentinel   the raw unsigned value as the vendor gave it, before any unit conversion, is
 *              UINT32_MAX (4294967295) or UINT64_MAX (18446744073709551615): (unsigned)-1, what
 *              NVML's NVML_VALUE_NOT_AVAILABLE and an unset 32/64-bit field read as;
 *   range      the value in its base unit lies outside the bounds below. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* Bounds, inclusive, in the base units of readings.h. Wide enough for any accelerator made or
 * planned (a cold-soaked card at -40 °C, a 3 kW module, an 8 GHz memory clock, TiBs of HBM),
 * narrow enough to catch a sentinel after unit conversion (4294967295 mW = 4.29 MW). */
#define XPU_READING_CELSIUS_MIN (-50.0)                 /* degrees Celsius */
#define XPU_READING_CELSIUS_MAX 200.0                   /* degrees Celsius */
#define XPU_READING_WATTS_MAX 10000.0                   /* watts: 10 kW */
#define XPU_READING_HERTZ_MAX 10000000000ull            /* hertz: 10 GHz */
#define XPU_READING_BYTES_MAX (1ull << 50)              /* bytes: 1 PiB */
#define XPU_READING_PERCENT_MAX 100u                    /* utilization, percent */

/* What a reading is, for the range check. */
enum xpu_reading_kind {
        XPU_READING_PERCENT = 0, /* 0..100 % (before the /100 into a ratio) */
        XPU_READING_CELSIUS,     /* -50..200 °C */
        XPU_READING_WATTS,       /* 0..10 kW (power, power limit) */
        XPU_READING_HERTZ,       /* 0..10 GHz (clocks) */
        XPU_READING_BYTES,       /* 0..1 PiB (memory used, total) */
        XPU_READING_COUNT,       /* a counter (energy, ECC): any value but a sentinel */
        _XPU_READING_KIND_MAX,
};

/* NULL when RAW (an unsigned value exactly as the vendor gave it, before unit conversion) is a
 * value; else why it is none: "UINT32_MAX, a vendor's \"not available\"" or the same for
 * UINT64_MAX. */
const char *xpu_reading_sentinel(uint64_t raw);

/* NULL when V, a reading of KIND in its base unit (percent for XPU_READING_PERCENT), lies within
 * the bounds above (NaN never does); else the bounds it breaks, for a warning: "outside 0..100 %",
 * "outside -50..200 degrees Celsius", "outside 0..10 kW", "outside 0..10 GHz", "outside 0..1 PiB".
 * Always NULL for XPU_READING_COUNT and a KIND out of range. */
const char *xpu_reading_out_of_range(enum xpu_reading_kind kind, double v);

/* Both checks: NULL when RAW is no sentinel and V is in range, else the first reason. */
const char *xpu_reading_implausible(enum xpu_reading_kind kind, uint64_t raw, double v);
