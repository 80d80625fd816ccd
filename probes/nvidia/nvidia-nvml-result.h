/* SPDX-License-Identifier: Apache-2.0 */
/* What one NVML read returns (nvidia-nvml.h): the devices and MIG devices NVML reported, with a
 * bit per fact it answered. Plain data shared by the helper side (nvidia-nvml-helper.c), the
 * parser (nvidia-nvml-parse.c) and the reader (nvidia-nvml.c); it includes none of them. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/pci.h"             /* XPU_PCI_BUS_ID_MAX */
#include "nvidia/nvidia-facts.h" /* XPU_MIG_DEVICES_MAX */

/* Most devices one read reports; NVML's own limit is far above any host's GPU count. */
#define XPU_NVML_DEVICES_MAX 64

/* Bits of xpu_nvml_device.have: set when NVML answered that query. A call that fails (for
 * example NVML_ERROR_NOT_SUPPORTED, normal for most readings on GeForce boards) leaves its bit
 * clear and its field 0. */
enum {
        XPU_NVML_HAVE_MINOR = 1u << 0,              /* minor */
        XPU_NVML_HAVE_PCI = 1u << 1,                /* pci_bus_id */
        XPU_NVML_HAVE_MEMORY_TOTAL = 1u << 2,       /* memory_total_bytes */
        XPU_NVML_HAVE_COMPUTE_CAPABILITY = 1u << 3, /* compute_capability */
        XPU_NVML_HAVE_BRAND = 1u << 4,              /* brand */
        XPU_NVML_HAVE_MEMORY_USED = 1u << 5,        /* memory_used_bytes */
        XPU_NVML_HAVE_MIG_MODE = 1u << 6,           /* mig_enabled */
        XPU_NVML_HAVE_MIG_DEVICES = 1u << 7,        /* mig[], n_mig: the full list was read */
        XPU_NVML_HAVE_UTIL_GPU = 1u << 8,           /* utilization_gpu_percent */
        XPU_NVML_HAVE_UTIL_MEMORY = 1u << 9,        /* utilization_memory_percent */
        XPU_NVML_HAVE_TEMPERATURE = 1u << 10,       /* temperature_celsius */
        XPU_NVML_HAVE_POWER_USAGE = 1u << 11,       /* power_usage_milliwatts */
        XPU_NVML_HAVE_POWER_LIMIT = 1u << 12,       /* power_limit_milliwatts */
        XPU_NVML_HAVE_ENERGY = 1u << 13,            /* energy_millijoules */
        XPU_NVML_HAVE_CLOCK_SM = 1u << 14,          /* clock_sm_hz */
        XPU_NVML_HAVE_CLOCK_MEMORY = 1u << 15,      /* clock_memory_hz */
        XPU_NVML_HAVE_ECC_CORRECTED = 1u << 16,     /* ecc_corrected */
        XPU_NVML_HAVE_ECC_UNCORRECTED = 1u << 17,   /* ecc_uncorrected */
        XPU_NVML_HAVE_CLOCK_EVENTS = 1u << 18,      /* clock_event_reasons */
        XPU_NVML_HAVE_REMAP = 1u << 19,             /* remap_*: all four (row remapping, Ampere and later) */
        XPU_NVML_HAVE_RETIRED = 1u << 20,           /* retired_*: all three (page retirement, before Ampere) */
        XPU_NVML_HAVE_TEMP_SLOWDOWN = 1u << 21,     /* temp_slowdown_celsius */
        XPU_NVML_HAVE_TEMP_SHUTDOWN = 1u << 22,     /* temp_shutdown_celsius */
        XPU_NVML_HAVE_NUMA_NODE = 1u << 23,         /* numa_node */
        XPU_NVML_HAVE_ADDRESSING_MODE = 1u << 24,   /* addressing_mode */
        XPU_NVML_HAVE_C2C = 1u << 25,               /* c2c_enabled */
        XPU_NVML_HAVE_FABRIC = 1u << 26,            /* fabric_state, _status, _clique_id, _cluster_uuid */
        XPU_NVML_HAVE_FABRIC_HEALTH = 1u << 27,     /* fabric_health_mask (nvmlDeviceGetGpuFabricInfoV) */
};

/* Bits of xpu_nvml_mig.seen, in the order of the reply's mig.M keys. */
enum {
        XPU_NVML_MIG_SEEN_UUID = 1u << 0,
        XPU_NVML_MIG_SEEN_GI = 1u << 1,
        XPU_NVML_MIG_SEEN_CI = 1u << 2,
        XPU_NVML_MIG_SEEN_MEMORY = 1u << 3,
        XPU_NVML_MIG_SEEN_NAME = 1u << 4,
};

/* One MIG device (a compute instance of a GPU instance) of a GPU in MIG mode. Its parent is the
 * xpu_nvml_device that holds it. */
struct xpu_nvml_mig {
        char uuid[64]; /* nvmlDeviceGetUUID of the MIG handle: "MIG-<uuid>" (R470+) or the older
                          "MIG-GPU-<uuid>/<gi>/<ci>" */
        uint32_t gi;   /* nvmlDeviceGetGpuInstanceId of the MIG handle */
        uint32_t ci;   /* nvmlDeviceGetComputeInstanceId of the MIG handle */
        char name[96]; /* nvmlDeviceGetName of the MIG handle ("NVIDIA A100-SXM4-80GB MIG 1g.20gb"); "" */
        uint64_t memory_total_bytes; /* nvmlDeviceGetMemoryInfo total of the MIG handle, bytes; 0 unknown */
        uint8_t seen;  /* XPU_NVML_MIG_SEEN_* bits: which keys the reply gave (parser use) */
};

/* One GPU as NVML reports it (NVML index order = PCI bus order, but merge by bus id only).
 * Static facts first (merged into the inventory), then the live readings (kept here for xpud,
 * never merged). Units are in the names. */
struct xpu_nvml_device {
        char uuid[64];                       /* nvmlDeviceGetUUID: "GPU-307dcc96-..."; "" when lost, or when NVML
                                                answered an empty one or one longer than 63 bytes */
        char name[128];                      /* nvmlDeviceGetName, cut to 127 bytes; "" when lost or empty */
        char pci_bus_id[XPU_PCI_BUS_ID_MAX]; /* nvmlDeviceGetPciInfo_v3/_v2/(v1) busId, canonical form ("0000:1a:00.0", base/pci.h) */
        char compute_capability[16];         /* nvmlDeviceGetCudaComputeCapability: "7.5" */
        char brand[32];                      /* nvmlDeviceGetBrand in the toolkit's spelling: "geforce", "tesla", "nvidiartx", ...; "brand 17" for an unknown code */
        uint32_t minor;                      /* nvmlDeviceGetMinorNumber: /dev/nvidia<minor> */
        uint64_t memory_total_bytes;         /* nvmlDeviceGetMemoryInfo total, bytes */
        uint64_t memory_used_bytes;          /* nvmlDeviceGetMemoryInfo (v1) used, bytes: reserved + allocated (a live reading) */

        bool mig_enabled;                          /* nvmlDeviceGetMigMode current mode == NVML_DEVICE_MIG_ENABLE */
        struct xpu_nvml_mig mig[XPU_MIG_DEVICES_MAX]; /* nvmlDeviceGetMigDeviceHandleByIndex for 0 ..
                                                         nvmlDeviceGetMaxMigDeviceCount-1 (indices without a
                                                         MIG device skipped), in NVML index order */
        size_t n_mig;

        /* Memory coherent with the CPU's (Grace Hopper, Grace Blackwell; nvidia-numa.h): */
        uint32_t numa_node;                  /* nvmlDeviceGetNumaNodeId: the NUMA node of the GPU's memory,
                                                < XPU_NVIDIA_NUMA_NODES_MAX */
        char addressing_mode[8];             /* nvmlDeviceGetAddressingMode: "none", "hmm", "ats" */
        bool c2c_enabled;                    /* nvmlDeviceGetC2cModeInfoV isC2cEnabled */

        /* Live readings for xpud (not merged into the inventory). */
        uint32_t utilization_gpu_percent;    /* nvmlDeviceGetUtilizationRates gpu, 0..100 % of the last sample period */
        uint32_t utilization_memory_percent; /* nvmlDeviceGetUtilizationRates memory, 0..100 % */
        uint32_t temperature_celsius;        /* nvmlDeviceGetTemperature(NVML_TEMPERATURE_GPU), degrees Celsius */
        uint32_t temp_slowdown_celsius;      /* nvmlDeviceGetTemperatureThreshold(..._SLOWDOWN), degrees Celsius */
        uint32_t temp_shutdown_celsius;      /* nvmlDeviceGetTemperatureThreshold(..._SHUTDOWN), degrees Celsius */
        uint32_t power_usage_milliwatts;     /* nvmlDeviceGetPowerUsage, milliwatts */
        uint32_t power_limit_milliwatts;     /* nvmlDeviceGetEnforcedPowerLimit, milliwatts */
        uint64_t energy_millijoules;         /* nvmlDeviceGetTotalEnergyConsumption, millijoules since the driver was loaded */
        uint64_t clock_sm_hz;                /* nvmlDeviceGetClockInfo(NVML_CLOCK_SM), MHz converted to hertz */
        uint64_t clock_memory_hz;            /* nvmlDeviceGetClockInfo(NVML_CLOCK_MEM), MHz converted to hertz */
        uint64_t ecc_corrected;              /* nvmlDeviceGetTotalEccErrors(CORRECTED, VOLATILE): count since driver load */
        uint64_t ecc_uncorrected;            /* nvmlDeviceGetTotalEccErrors(UNCORRECTED, VOLATILE): count since driver load */
        uint64_t clock_event_reasons;        /* nvmlDeviceGetCurrentClocksEventReasons (or the older
                                                ...ClocksThrottleReasons): NVML's bitmask, e.g. 0x1 GPU idle,
                                                0x4 SW power cap, 0x20 SW thermal slowdown */
        /* Memory repair (the GPU's lifetime counts, kept across driver loads): */
        uint32_t remap_correctable;          /* nvmlDeviceGetRemappedRows corrRows: rows remapped for correctable errors */
        uint32_t remap_uncorrectable;        /* ... uncRows: rows remapped for uncorrectable errors */
        uint32_t remap_pending;              /* ... isPending: 1 = a remap waits for the next GPU reset */
        uint32_t remap_failed;               /* ... failureOccurred: 1 = a remap failed (no spare row left) */
        uint32_t retired_sbe;                /* nvmlDeviceGetRetiredPages(MULTIPLE_SINGLE_BIT_ECC_ERRORS) count */
        uint32_t retired_dbe;                /* nvmlDeviceGetRetiredPages(DOUBLE_BIT_ECC_ERROR) count */
        uint32_t retired_pending;            /* nvmlDeviceGetRetiredPagesPendingStatus: 1 = retirement waits for a reset */
        /* Multi-node NVLink fabric (nvmlDeviceGetGpuFabricInfoV, else nvmlDeviceGetGpuFabricInfo): */
        uint32_t fabric_state;               /* NVML_GPU_FABRIC_STATE_*: 0 not supported, 1 not started, 2 in progress,
                                                3 completed */
        uint32_t fabric_status;              /* the registration's nvmlReturn_t once completed (0 = success) */
        uint32_t fabric_clique_id;           /* cliqueId: the GPUs of one clique reach each other over NVLink */
        char fabric_cluster_uuid[40];        /* clusterUuid as "8-4-4-4-12" hex; "" when not completed or all zero */
        uint32_t fabric_health_mask;         /* healthMask (NVML_GPU_FABRIC_HEALTH_MASK_*), V only */

        /* A per-device call answered NVML_ERROR_GPU_IS_LOST (15): the helper stopped querying this
         * device (the fields read before stay, with their bits) and went on with the others. */
        bool lost;
        char lost_reason[160]; /* "nvmlDeviceGetPowerUsage failed: GPU is lost (error 15)" */

        uint32_t have; /* XPU_NVML_HAVE_* */
};

struct xpu_nvml_result {
        char library[PATH_MAX];       /* the file loaded, path inside the driver root
                                         ("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.465.19.01") */
        char driver_version[32];      /* nvmlSystemGetDriverVersion: "465.19.01"; "" when empty or too long */
        char cuda_driver_version[16]; /* nvmlSystemGetCudaDriverVersion_v2: "11.3" from 11030; "" when the library
                                         lacks the call or answered no CUDA version (below 1000) */
        size_t total;                 /* devices NVML has (nvmlDeviceGetCount_v2): n, or more when it listed more
                                         than XPU_NVML_DEVICES_MAX (only the first are read) */
        size_t n;                     /* devices used */
        struct xpu_nvml_device devices[];
};
