/* SPDX-License-Identifier: Apache-2.0 */
/* Live readings of one device, vendor-neutral, in base units (the quantities
 * dcgm-exporter and AMD's device-metrics-exporter report, in Prometheus base units): what xpud
 * samples every --interval and renders as JSON and Prometheus text. Producers: each vendor's
 * readings backend (xpu_readings_ops of vendor.h): NVML through the isolated helper
 * (probes/nvidia/), amdgpu and i915/xe sysfs and hwmon read directly (probes/amd/,
 * probes/intel/); and for every vendor the PCIe link from PCI sysfs (probes/pci-link.c). A
 * reading a device does not report stays absent (its bit in `have` clear): never a vendor
 * sentinel, never a guess. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* Temperature sensors (label "sensor" of xpu_temperature_celsius). */
enum xpu_temp_sensor {
        XPU_TEMP_GPU = 0,  /* NVML NVML_TEMPERATURE_GPU */
        XPU_TEMP_EDGE,     /* amdgpu hwmon temp*_label "edge" */
        XPU_TEMP_JUNCTION, /* amdgpu "junction" (hotspot) */
        XPU_TEMP_MEMORY,   /* amdgpu "mem"; NVML memory temperature where reported */
        _XPU_TEMP_MAX,
};
/* "gpu", "edge", "junction", "memory"; NULL when out of range. */
const char *xpu_temp_sensor_to_string(enum xpu_temp_sensor s);

/* A temperature sensor's limits as its vendor sets them (label "limit" of
 * xpu_temperature_limit_celsius), degrees Celsius. At or above slowdown the GPU cuts its clocks to
 * cool down; at or above shutdown it turns itself off to protect the silicon. Sources:
 *   NVIDIA  nvmlDeviceGetTemperatureThreshold(NVML_TEMPERATURE_THRESHOLD_SLOWDOWN = 1 /
 *           _SHUTDOWN = 0), for sensor "gpu" (MEM_MAX = 2 and GPU_MAX = 3 are the targets of the
 *           boost algorithm, not limits at which the GPU acts, and NVML's memory temperature is
 *           not read: both left out);
 *   AMD     amdgpu hwmon temp<K>_crit / temp<K>_emergency (millidegrees; the kernel documents
 *           emergency as the ASIC shutdown temperature), per edge/junction/mem sensor;
 *   Intel   i915 hwmon has no temperature at all; xe's hwmon ABI documents temp2_input/temp3_input
 *           but no limits (up to kernel 6.16): the standard temp<K>_crit / temp<K>_emergency names
 *           are read should a kernel add them.
 * A limit the device does not report stays absent, never guessed. */
enum xpu_temp_limit {
        XPU_TEMP_LIMIT_SLOWDOWN = 0,
        XPU_TEMP_LIMIT_SHUTDOWN,
        _XPU_TEMP_LIMIT_MAX,
};
/* "slowdown", "shutdown"; NULL when out of range. */
const char *xpu_temp_limit_to_string(enum xpu_temp_limit l);
/* The bit of xpu_readings.have_temperature_limit for SENSOR's LIMIT. */
#define XPU_TEMP_LIMIT_BIT(sensor, limit) (1u << ((unsigned)(sensor) * _XPU_TEMP_LIMIT_MAX + (unsigned)(limit)))

/* Clock domains (label "clock" of xpu_clock_hertz). */
enum xpu_clock {
        XPU_CLOCK_GRAPHICS = 0, /* NVML SM clock; amdgpu pp_dpm_sclk current level */
        XPU_CLOCK_MEMORY,       /* NVML memory clock; amdgpu pp_dpm_mclk current level */
        XPU_CLOCK_SOC,          /* amdgpu pp_dpm_socclk current level */
        _XPU_CLOCK_MAX,
};
/* "graphics", "memory", "soc"; NULL when out of range. */
const char *xpu_clock_to_string(enum xpu_clock c);

/* Throttle reasons (label "reason" of xpu_throttle_active), a vendor-neutral subset. */
enum xpu_throttle {
        XPU_THROTTLE_POWER = 0,   /* software power cap (NVML SW_POWER_CAP) */
        XPU_THROTTLE_THERMAL,     /* software or hardware thermal slowdown (NVML SW/HW_THERMAL) */
        XPU_THROTTLE_HW_SLOWDOWN, /* hardware slowdown (NVML HW_SLOWDOWN, HW_POWER_BRAKE) */
        XPU_THROTTLE_SYNC_BOOST,  /* NVML SYNC_BOOST */
        _XPU_THROTTLE_MAX,
};
/* "power", "thermal", "hw_slowdown", "sync_boost"; NULL when out of range. */
const char *xpu_throttle_to_string(enum xpu_throttle t);

/* The two ends of a PCIe link figure (label "link" of xpu_pcie_link_*): what the link trained to
 * now, and the most both sides support. */
enum xpu_link_end {
        XPU_LINK_CURRENT = 0, /* sysfs current_link_* (Link Status) */
        XPU_LINK_MAX,         /* sysfs max_link_* (Link Capabilities) */
        _XPU_LINK_END_MAX,
};
/* "current", "max"; NULL when out of range. */
const char *xpu_link_end_to_string(enum xpu_link_end e);

/* A GPU's registration with a multi-node NVLink fabric (label "state" of xpu_fabric_state): NVIDIA's
 * nvmlDeviceGetGpuFabricInfo[V] state, NVML_GPU_FABRIC_STATE_NOT_SUPPORTED (0) to _COMPLETED (3);
 * no other vendor reports one. */
enum xpu_fabric_state {
        XPU_FABRIC_NOT_SUPPORTED = 0, /* no NVLink fabric (PCIe boards; one GPU) */
        XPU_FABRIC_NOT_STARTED,       /* the fabric manager / IMEX has not probed the GPU yet */
        XPU_FABRIC_IN_PROGRESS,
        XPU_FABRIC_COMPLETED,         /* registered: fabric_status says whether it succeeded */
        _XPU_FABRIC_STATE_MAX,
};
/* "not_supported", "not_started", "in_progress", "completed"; NULL when out of range. */
const char *xpu_fabric_state_to_string(enum xpu_fabric_state s);

/* Bits of xpu_readings.have. */
enum {
        XPU_READ_UTILIZATION = 1u << 0,        /* utilization_ratio */
        XPU_READ_MEMORY_UTILIZATION = 1u << 1, /* memory_bandwidth_utilization_ratio */
        XPU_READ_MEMORY_USED = 1u << 2,        /* memory_used_bytes */
        XPU_READ_MEMORY_TOTAL = 1u << 3,       /* memory_total_bytes */
        XPU_READ_POWER = 1u << 4,              /* power_watts */
        XPU_READ_POWER_LIMIT = 1u << 5,        /* power_limit_watts */
        XPU_READ_ENERGY = 1u << 6,             /* energy_joules (a counter since driver load) */
        XPU_READ_ECC = 1u << 7,                /* ecc_corrected, ecc_uncorrected (volatile counts) */
        XPU_READ_THROTTLE = 1u << 8,           /* throttle (bits 1u << enum xpu_throttle) */
        XPU_READ_PCIE_WIDTH = 1u << 9,         /* pcie_link_width[] (both ends) */
        XPU_READ_PCIE_SPEED = 1u << 10,        /* pcie_link_speed[] (both ends) */
        XPU_READ_ROW_REMAP = 1u << 11,         /* remapped_rows[], remap_pending, remap_failed */
        XPU_READ_RETIRED_PAGES = 1u << 12,     /* retired_pages[], retired_pending */
        XPU_READ_ERROR_STATE = 1u << 13,       /* error_state */
        XPU_READ_FABRIC = 1u << 14,            /* fabric_state; completed: fabric_status, fabric_clique_id,
                                                * fabric_cluster_uuid ("" when none) */
        XPU_READ_FABRIC_HEALTH = 1u << 15,     /* fabric_health_mask */
};

/* Why memory was repaired (label "severity" of the remapped rows, "cause" of the retired pages). */
enum xpu_repair_cause {
        XPU_REPAIR_CORRECTABLE = 0, /* rows remapped for correctable errors; pages retired for repeated single-bit errors */
        XPU_REPAIR_UNCORRECTABLE,   /* rows remapped for uncorrectable errors; pages retired for a double-bit error */
        _XPU_REPAIR_MAX,
};
/* "correctable", "uncorrectable"; NULL when out of range. */
const char *xpu_repair_cause_to_string(enum xpu_repair_cause c);

struct xpu_readings {
        uint32_t have;                          /* XPU_READ_* */
        uint32_t have_temperature;              /* 1u << enum xpu_temp_sensor */
        uint32_t have_clock;                    /* 1u << enum xpu_clock */
        double utilization_ratio;               /* 0..1 (NVML utilization.gpu / 100; amdgpu gpu_busy_percent / 100) */
        double memory_bandwidth_utilization_ratio; /* 0..1 (NVML utilization.memory; amdgpu mem_busy_percent) */
        uint64_t memory_used_bytes;             /* bytes */
        uint64_t memory_total_bytes;            /* bytes */
        double temperature_celsius[_XPU_TEMP_MAX]; /* degrees Celsius */
        uint32_t have_temperature_limit;        /* XPU_TEMP_LIMIT_BIT(sensor, limit) */
        double temperature_limit_celsius[_XPU_TEMP_MAX][_XPU_TEMP_LIMIT_MAX]; /* degrees Celsius (enum
                                                 * xpu_temp_limit): the vendor's slowdown and shutdown limits */
        double power_watts;                     /* average or current board power, watts */
        double power_limit_watts;               /* enforced power limit, watts */
        double energy_joules;                   /* energy since driver load, joules */
        uint64_t clock_hertz[_XPU_CLOCK_MAX];   /* hertz */
        uint64_t ecc_corrected;                 /* volatile (since driver load) corrected errors */
        uint64_t ecc_uncorrected;               /* volatile uncorrected errors */
        uint32_t throttle;                      /* 1u << enum xpu_throttle: reasons active now */
        uint32_t pcie_link_width[_XPU_LINK_END_MAX]; /* lanes (sysfs *_link_width, probes/pci-link.h) */
        uint64_t pcie_link_speed[_XPU_LINK_END_MAX]; /* transfers per second (sysfs *_link_speed) */
        uint32_t remapped_rows[_XPU_REPAIR_MAX]; /* rows remapped over the GPU's life (NVML, Ampere and later) */
        bool remap_pending;                     /* a row remap waits for the next GPU reset */
        bool remap_failed;                      /* a row remap failed: no spare row was left */
        uint32_t retired_pages[_XPU_REPAIR_MAX]; /* pages retired over the GPU's life (NVML, before Ampere) */
        bool retired_pending;                   /* a page retirement waits for the next driver load */
        bool error_state;                       /* the driver keeps a GPU error state: the GPU hung and was
                                                 * reset since the state was last cleared (i915 cardN/error) */
        uint8_t fabric_state;                   /* enum xpu_fabric_state */
        uint32_t fabric_status;                 /* once completed: 0 registered, else the library's error code */
        uint32_t fabric_clique_id;              /* once completed: the GPUs of a clique reach each other over NVLink */
        char fabric_cluster_uuid[40];           /* once completed: the fabric's cluster, "" when none (all zero) */
        uint32_t fabric_health_mask;            /* the library's fabric health bits (NVML_GPU_FABRIC_HEALTH_MASK_*) */
        bool lost;                              /* the device fell off the bus / stopped answering */
        char lost_reason[128];                  /* why, when lost: "nvmlDeviceGetPowerUsage: GPU is lost (error 15)" */
};
