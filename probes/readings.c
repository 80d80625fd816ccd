/* SPDX-License-Identifier: Apache-2.0 */
/* Names of the enums of readings.h: the label values of xpu_temperature_celsius{sensor},
 * xpu_temperature_limit_celsius{limit}, xpu_clock_hertz{clock}, xpu_throttle_active{reason} and
 * xpu_pcie_link_*{link}, and the JSON keys of /v1/devices. */
#include "readings.h"

#include "base/macro.h"

static const char *const temp_sensor_names[_XPU_TEMP_MAX] = {
        [XPU_TEMP_GPU] = "gpu",
        [XPU_TEMP_EDGE] = "edge",
        [XPU_TEMP_JUNCTION] = "junction",
        [XPU_TEMP_MEMORY] = "memory",
};

static const char *const clock_names[_XPU_CLOCK_MAX] = {
        [XPU_CLOCK_GRAPHICS] = "graphics",
        [XPU_CLOCK_MEMORY] = "memory",
        [XPU_CLOCK_SOC] = "soc",
};

static const char *const throttle_names[_XPU_THROTTLE_MAX] = {
        [XPU_THROTTLE_POWER] = "power",
        [XPU_THROTTLE_THERMAL] = "thermal",
        [XPU_THROTTLE_HW_SLOWDOWN] = "hw_slowdown",
        [XPU_THROTTLE_SYNC_BOOST] = "sync_boost",
};

static const char *const link_end_names[_XPU_LINK_END_MAX] = {
        [XPU_LINK_CURRENT] = "current",
        [XPU_LINK_MAX] = "max",
};

const char *xpu_temp_sensor_to_string(enum xpu_temp_sensor s) {
        return (unsigned)s < ELEMENTSOF(temp_sensor_names) ? temp_sensor_names[s] : NULL;
}

const char *xpu_temp_limit_to_string(enum xpu_temp_limit l) {
        static const char *const names[_XPU_TEMP_LIMIT_MAX] = {
                [XPU_TEMP_LIMIT_SLOWDOWN] = "slowdown",
                [XPU_TEMP_LIMIT_SHUTDOWN] = "shutdown",
        };
        return (unsigned)l < _XPU_TEMP_LIMIT_MAX ? names[l] : NULL;
}

const char *xpu_clock_to_string(enum xpu_clock c) {
        return (unsigned)c < ELEMENTSOF(clock_names) ? clock_names[c] : NULL;
}

const char *xpu_throttle_to_string(enum xpu_throttle t) {
        return (unsigned)t < ELEMENTSOF(throttle_names) ? throttle_names[t] : NULL;
}

const char *xpu_link_end_to_string(enum xpu_link_end e) {
        return (unsigned)e < ELEMENTSOF(link_end_names) ? link_end_names[e] : NULL;
}

const char *xpu_fabric_state_to_string(enum xpu_fabric_state s) {
        static const char *const names[_XPU_FABRIC_STATE_MAX] = { "not_supported", "not_started", "in_progress",
                                                                  "completed" };
        return (unsigned)s < _XPU_FABRIC_STATE_MAX ? names[s] : NULL;
}

const char *xpu_repair_cause_to_string(enum xpu_repair_cause c) {
        static const char *const names[_XPU_REPAIR_MAX] = { "correctable", "uncorrectable" };
        return (unsigned)c < _XPU_REPAIR_MAX ? names[c] : NULL;
}
