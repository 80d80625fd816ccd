/* SPDX-License-Identifier: Apache-2.0 */
/* Plausibility checks of live readings: see readings-range.h. */
#include "readings-range.h"

#include <math.h>

#include "base/macro.h"

const char *xpu_reading_sentinel(uint64_t raw) {
        if (raw == UINT64_MAX)
                return "UINT64_MAX, a vendor's \"not available\"";
        if (raw == UINT32_MAX)
                return "UINT32_MAX, a vendor's \"not available\"";
        return NULL;
}

/* Bounds per kind (inclusive) and the text of a value outside them. */
static const struct {
        double min, max;
        const char *why;
} bounds[_XPU_READING_KIND_MAX] = {
        [XPU_READING_PERCENT] = { 0, XPU_READING_PERCENT_MAX, "outside 0..100 %" },
        [XPU_READING_CELSIUS] = { XPU_READING_CELSIUS_MIN, XPU_READING_CELSIUS_MAX, "outside -50..200 degrees Celsius" },
        [XPU_READING_WATTS] = { 0, XPU_READING_WATTS_MAX, "outside 0..10 kW" },
        [XPU_READING_HERTZ] = { 0, (double)XPU_READING_HERTZ_MAX, "outside 0..10 GHz" },
        [XPU_READING_BYTES] = { 0, (double)XPU_READING_BYTES_MAX, "outside 0..1 PiB" },
        [XPU_READING_COUNT] = { -INFINITY, INFINITY, NULL },
};

const char *xpu_reading_out_of_range(enum xpu_reading_kind kind, double v) {
        if ((unsigned)kind >= ELEMENTSOF(bounds) || !bounds[kind].why)
                return NULL;
        if (isnan(v) || v < bounds[kind].min || v > bounds[kind].max)
                return bounds[kind].why;
        return NULL;
}

const char *xpu_reading_implausible(enum xpu_reading_kind kind, uint64_t raw, double v) {
        const char *why = xpu_reading_sentinel(raw);
        return why ? why : xpu_reading_out_of_range(kind, v);
}
