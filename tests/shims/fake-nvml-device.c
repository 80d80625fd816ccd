/* SPDX-License-Identifier: Apache-2.0 */
/* Fake NVML library, the per-device queries (fake-nvml.h): identity, PCI info, MIG, readings and
 * memory repair of a GPU or MIG handle, each from the state file's "device.N.*" keys (state.h). */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake-nvml.h"
#include "state.h"

/* "device.N.uuid" of a GPU; "device.N.mig.M.uuid" of a MIG device (GPU N must not be lost). */
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length) {
        char key[64];
        const struct nvmlDevice_st *mig = fake_mig_handle(device);
        nvmlReturn_t r;
        if (mig) {
                r = fake_enter("nvmlDeviceGetUUID", &devices[mig->index]);
                if (r != NVML_SUCCESS)
                        return r;
                snprintf(key, sizeof(key), "device.%u.mig.%d.uuid", mig->index, mig->mig);
                return fake_copy_string(uuid, length, key);
        }
        r = fake_enter("nvmlDeviceGetUUID", device);
        if (r != NVML_SUCCESS)
                return r;
        snprintf(key, sizeof(key), "device.%u.uuid", device->index);
        return fake_copy_string(uuid, length, key);
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length) {
        char key[64];
        const struct nvmlDevice_st *mig = fake_mig_handle(device);
        if (mig) { /* "device.N.mig.M.name" */
                nvmlReturn_t e = fake_enter("nvmlDeviceGetName", &devices[mig->index]);
                if (e != NVML_SUCCESS)
                        return e;
                snprintf(key, sizeof(key), "device.%u.mig.%d.name", mig->index, mig->mig);
                return fake_copy_string(name, length, key);
        }
        nvmlReturn_t r = fake_enter("nvmlDeviceGetName", device);
        if (r != NVML_SUCCESS)
                return r;
        /* "device.N.name_from_env VAR": the name is the value of VAR in this process's environment
         * ("(unset)" when absent), so a test can see the environment the library runs in. */
        char var[64];
        if (xpu_fake_state_getf(var, sizeof(var), "device.%u.name_from_env", device->index) == 0) {
                const char *v = getenv(var);
                if (!v)
                        v = "(unset)";
                if (!name || strlen(v) + 1 > length)
                        return NVML_ERROR_INSUFFICIENT_SIZE;
                memcpy(name, v, strlen(v) + 1);
                return NVML_SUCCESS;
        }
        /* "device.N.name_fill C": the whole buffer filled with C, no NUL (a library quirk). */
        if (xpu_fake_state_getf(var, sizeof(var), "device.%u.name_fill", device->index) == 0 && var[0]) {
                if (!name || length == 0)
                        return NVML_ERROR_INVALID_ARGUMENT;
                memset(name, var[0], length);
                return NVML_SUCCESS;
        }
        snprintf(key, sizeof(key), "device.%u.name", device->index);
        return fake_copy_string(name, length, key);
}

nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int *minor) {
        long long v = 0;
        nvmlReturn_t r = fake_enter("nvmlDeviceGetMinorNumber", device);
        if (r != NVML_SUCCESS)
                return r;
        if (!minor)
                return NVML_ERROR_INVALID_ARGUMENT;
        if (xpu_fake_state_get_long(&v, "device.%u.minor", device->index) < 0 || v < 0)
                return NVML_ERROR_NOT_SUPPORTED;
        *minor = (unsigned)v;
        return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory) {
        long long total = 0, used = 0;
        const struct nvmlDevice_st *mig = fake_mig_handle(device);
        if (mig) { /* "device.N.mig.M.memory_total" */
                nvmlReturn_t e = fake_enter("nvmlDeviceGetMemoryInfo", &devices[mig->index]);
                if (e != NVML_SUCCESS)
                        return e;
                if (!memory)
                        return NVML_ERROR_INVALID_ARGUMENT;
                if (xpu_fake_state_get_long(&total, "device.%u.mig.%d.memory_total", mig->index, mig->mig) < 0 ||
                    total <= 0)
                        return NVML_ERROR_NOT_SUPPORTED;
                memory->total = (unsigned long long)total;
                memory->used = 0;
                memory->free = memory->total;
                return NVML_SUCCESS;
        }
        nvmlReturn_t r = fake_enter("nvmlDeviceGetMemoryInfo", device);
        if (r != NVML_SUCCESS)
                return r;
        if (!memory)
                return NVML_ERROR_INVALID_ARGUMENT;
        if (xpu_fake_state_get_long(&total, "device.%u.memory_total", device->index) < 0 || total < 0)
                return NVML_ERROR_NOT_SUPPORTED;
        if (xpu_fake_state_get_long(&used, "device.%u.memory_used", device->index) < 0 || used < 0 ||
            used > total)
                used = 0;
        memory->total = (unsigned long long)total;
        memory->used = (unsigned long long)used;
        memory->free = memory->total - memory->used;
        return NVML_SUCCESS;
}

/* "device.N.bus_id" as given (any case, with or without the 8-digit domain). */
static nvmlReturn_t bus_id_of(const char *function, nvmlDevice_t device, char *buf, size_t size, unsigned *domain,
                              unsigned *bus, unsigned *dev) {
        char value[32];
        nvmlReturn_t r = fake_check_device(device);
        if (r == NVML_SUCCESS)
                r = fake_forced_at(function, device->index);
        if (r != NVML_SUCCESS)
                return r;
        if (xpu_fake_state_getf(value, sizeof(value), "device.%u.bus_id", device->index) < 0)
                return NVML_ERROR_NOT_SUPPORTED;
        if (sscanf(value, "%x:%x:%x.", domain, bus, dev) != 3)
                return NVML_ERROR_UNKNOWN;
        snprintf(buf, size, "%s", value);
        /* "device.N.bus_id_text TEXT": the busId text differs from the numbers ("-" = empty). */
        if (xpu_fake_state_getf(value, sizeof(value), "device.%u.bus_id_text", device->index) == 0)
                snprintf(buf, size, "%s", strcmp(value, "-") == 0 ? "" : value);
        return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci) {
        char id[32];
        unsigned domain = 0, bus = 0, dev = 0;
        nvmlReturn_t r = fake_forced("nvmlDeviceGetPciInfo_v3");
        if (r == NVML_SUCCESS && !pci)
                r = NVML_ERROR_INVALID_ARGUMENT;
        if (r == NVML_SUCCESS)
                r = bus_id_of("nvmlDeviceGetPciInfo_v3", device, id, sizeof(id), &domain, &bus, &dev);
        if (r != NVML_SUCCESS)
                return r;
        memset(pci, 0, sizeof(*pci));
        snprintf(pci->busId, sizeof(pci->busId), "%s", id);
        snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "%04X:%02X:%02X.0", domain & 0xffffu, bus, dev);
        pci->domain = domain;
        pci->bus = bus;
        pci->device = dev;
        return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_t *pci) {
        return nvmlDeviceGetPciInfo_v3(device, pci);
}

nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t device, nvmlPciInfoV1_t *pci) {
        char id[32];
        unsigned domain = 0, bus = 0, dev = 0;
        nvmlReturn_t r = fake_forced("nvmlDeviceGetPciInfo");
        if (r == NVML_SUCCESS && !pci)
                r = NVML_ERROR_INVALID_ARGUMENT;
        if (r == NVML_SUCCESS)
                r = bus_id_of("nvmlDeviceGetPciInfo", device, id, sizeof(id), &domain, &bus, &dev);
        if (r != NVML_SUCCESS)
                return r;
        memset(pci, 0, sizeof(*pci));
        snprintf(pci->busId, sizeof(pci->busId), "%04X:%02X:%02X.0", domain & 0xffffu, bus, dev);
        pci->domain = domain;
        pci->bus = bus;
        pci->device = dev;
        return NVML_SUCCESS;
}

/* "device.N.cc 7.5" */
nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor) {
        char value[32];
        nvmlReturn_t r = fake_enter("nvmlDeviceGetCudaComputeCapability", device);
        if (r != NVML_SUCCESS)
                return r;
        if (!major || !minor)
                return NVML_ERROR_INVALID_ARGUMENT;
        if (xpu_fake_state_getf(value, sizeof(value), "device.%u.cc", device->index) < 0)
                return NVML_ERROR_NOT_SUPPORTED;
        if (sscanf(value, "%d.%d", major, minor) != 2)
                return NVML_ERROR_UNKNOWN;
        return NVML_SUCCESS;
}

/* nvmlBrandType_t values by name ("device.N.brand GeForce"); a number is taken as is. */
static const struct {
        const char *name;
        int code;
} brands[] = {
        { "Unknown", 0 }, { "Quadro", 1 }, { "Tesla", 2 }, { "NVS", 3 }, { "GRID", 4 },
        { "GeForce", 5 }, { "Titan", 6 }, { "NVIDIA", 14 }, { "GeForce RTX", 15 },
};

nvmlReturn_t nvmlDeviceGetBrand(nvmlDevice_t device, int *type) {
        char value[32];
        long long code = 0;
        nvmlReturn_t r = fake_enter("nvmlDeviceGetBrand", device);
        if (r != NVML_SUCCESS)
                return r;
        if (!type)
                return NVML_ERROR_INVALID_ARGUMENT;
        if (xpu_fake_state_get_long(&code, "device.%u.brand", device->index) == 0) {
                *type = (int)code;
                return NVML_SUCCESS;
        }
        if (xpu_fake_state_getf(value, sizeof(value), "device.%u.brand", device->index) < 0)
                return NVML_ERROR_NOT_SUPPORTED;
        for (size_t i = 0; i < sizeof(brands) / sizeof(brands[0]); i++)
                if (strcmp(brands[i].name, value) == 0) {
                        *type = brands[i].code;
                        return NVML_SUCCESS;
                }
        return NVML_ERROR_UNKNOWN;
}

/* "device.N.mig_mode 0|1" (current), "device.N.mig_pending 0|1" (default: the current mode);
 * absent: NOT_SUPPORTED, as on a GPU without MIG. */
nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *currentMode, unsigned int *pendingMode) {
        unsigned long long current = 0, pending = 0;
        nvmlReturn_t r = fake_enter("nvmlDeviceGetMigMode", device);
        if (r != NVML_SUCCESS)
                return r;
        if (!currentMode || !pendingMode)
                return NVML_ERROR_INVALID_ARGUMENT;
        r = fake_device_number(device, "mig_mode", 1, &current);
        if (r != NVML_SUCCESS)
                return r;
        if (fake_device_number(device, "mig_pending", 1, &pending) != NVML_SUCCESS)
                pending = current;
        *currentMode = (unsigned)current;
        *pendingMode = (unsigned)pending;
        return NVML_SUCCESS;
}

/* "device.N.mig_max" (default 7, an A100's) when the GPU has a MIG mode. */
nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count) {
        unsigned long long mode = 0, max = 7;
        nvmlReturn_t r = fake_enter("nvmlDeviceGetMaxMigDeviceCount", device);
        if (r != NVML_SUCCESS)
                return r;
        if (!count)
                return NVML_ERROR_INVALID_ARGUMENT;
        r = fake_device_number(device, "mig_mode", 1, &mode);
        if (r != NVML_SUCCESS)
                return r;
        r = fake_device_number(device, "mig_max", MAX_MIG, &max);
        if (r == NVML_ERROR_UNKNOWN)
                return r;
        *count = (unsigned)max;
        return NVML_SUCCESS;
}

/* A handle for "device.N.mig.INDEX.uuid"; NOT_FOUND when the state has none at INDEX (an unused
 * slot), INVALID_ARGUMENT when MIG is off or INDEX is past mig_max. */
nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index, nvmlDevice_t *migDevice) {
        unsigned long long mode = 0, max = 7;
        char uuid[8];
        nvmlReturn_t r = fake_enter("nvmlDeviceGetMigDeviceHandleByIndex", device);
        if (r != NVML_SUCCESS)
                return r;
        if (!migDevice || fake_device_number(device, "mig_mode", 1, &mode) != NVML_SUCCESS || mode != 1)
                return NVML_ERROR_INVALID_ARGUMENT;
        if (fake_device_number(device, "mig_max", MAX_MIG, &max) == NVML_ERROR_UNKNOWN || index >= max)
                return NVML_ERROR_INVALID_ARGUMENT;
        if (xpu_fake_state_getf(uuid, sizeof(uuid), "device.%u.mig.%u.uuid", device->index, index) < 0)
                return NVML_ERROR_NOT_FOUND;
        struct nvmlDevice_st *m = &mig_devices[device->index][index];
        m->index = device->index;
        m->mig = (int)index;
        *migDevice = m;
        return NVML_SUCCESS;
}

/* "device.N.mig.M.gi" / ".ci" of MIG handle M; absent: GPU instance M + 1 and compute instance 0
 * (one compute instance per GPU instance, GPU instances numbered from 1 as the driver does). Not a
 * MIG handle: INVALID_ARGUMENT, as NVML answers for a GPU. */
static nvmlReturn_t mig_instance_id(const char *function, nvmlDevice_t device, const char *key, unsigned *id) {
        const struct nvmlDevice_st *mig = fake_mig_handle(device);
        long long v = 0;
        if (!mig || !id)
                return NVML_ERROR_INVALID_ARGUMENT;
        nvmlReturn_t r = fake_enter(function, &devices[mig->index]);
        if (r != NVML_SUCCESS)
                return r;
        if (xpu_fake_state_get_long(&v, "device.%u.mig.%d.%s", mig->index, mig->mig, key) < 0)
                v = strcmp(key, "gi") == 0 ? mig->mig + 1 : 0;
        if (v < 0 || v > UINT_MAX)
                return NVML_ERROR_UNKNOWN;
        *id = (unsigned)v;
        return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int *id) {
        return mig_instance_id("nvmlDeviceGetGpuInstanceId", device, "gi", id);
}

nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int *id) {
        return mig_instance_id("nvmlDeviceGetComputeInstanceId", device, "ci", id);
}

/* "device.N.util_gpu" and "device.N.util_memory", percent; both or NOT_SUPPORTED. */
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *utilization) {
        unsigned long long gpu = 0, memory = 0;
        nvmlReturn_t r = fake_enter("nvmlDeviceGetUtilizationRates", device);
        if (r != NVML_SUCCESS)
                return r;
        if (!utilization)
                return NVML_ERROR_INVALID_ARGUMENT;
        r = fake_device_number(device, "util_gpu", UINT_MAX, &gpu);
        if (r == NVML_SUCCESS)
                r = fake_device_number(device, "util_memory", UINT_MAX, &memory);
        if (r != NVML_SUCCESS)
                return r;
        utilization->gpu = (unsigned)gpu;
        utilization->memory = (unsigned)memory;
        return NVML_SUCCESS;
}

/* "device.N.temperature", degrees Celsius, for NVML_TEMPERATURE_GPU (0), the only sensor. */
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, int sensorType, unsigned int *temp) {
        unsigned long long v = 0;
        nvmlReturn_t r = fake_enter("nvmlDeviceGetTemperature", device);
        if (r != NVML_SUCCESS)
                return r;
        if (!temp || sensorType != 0)
                return NVML_ERROR_INVALID_ARGUMENT;
        r = fake_device_number(device, "temperature", UINT_MAX, &v);
        if (r == NVML_SUCCESS)
                *temp = (unsigned)v;
        return r;
}

/* "device.N.temp_shutdown" (NVML_TEMPERATURE_THRESHOLD_SHUTDOWN, 0) and "device.N.temp_slowdown"
 * (..._SLOWDOWN, 1), degrees Celsius; the other thresholds (MEM_MAX, GPU_MAX, ...) are
 * NOT_SUPPORTED, as on boards without them. */
nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t device, int thresholdType, unsigned int *temp) {
        static const char *const keys[] = { "temp_shutdown", "temp_slowdown" };
        unsigned long long v = 0;
        nvmlReturn_t r = fake_enter("nvmlDeviceGetTemperatureThreshold", device);
        if (r != NVML_SUCCESS)
                return r;
        if (!temp || thresholdType < 0)
                return NVML_ERROR_INVALID_ARGUMENT;
        if ((size_t)thresholdType >= sizeof keys / sizeof keys[0])
                return NVML_ERROR_NOT_SUPPORTED;
        r = fake_device_number(device, keys[thresholdType], UINT_MAX, &v);
        if (r == NVML_SUCCESS)
                *temp = (unsigned)v;
        return r;
}

/* A reading of one unsigned int from "device.N.KEY". */
static nvmlReturn_t uint_reading(const char *function, nvmlDevice_t device, const char *key, unsigned int *out) {
        unsigned long long v = 0;
        nvmlReturn_t r = fake_enter(function, device);
        if (r != NVML_SUCCESS)
                return r;
        if (!out)
                return NVML_ERROR_INVALID_ARGUMENT;
        r = fake_device_number(device, key, UINT_MAX, &v);
        if (r == NVML_SUCCESS)
                *out = (unsigned)v;
        return r;
}

/* A reading of one unsigned long long from "device.N.KEY". */
static nvmlReturn_t ull_reading(const char *function, nvmlDevice_t device, const char *key,
                                unsigned long long *out) {
        nvmlReturn_t r = fake_enter(function, device);
        if (r != NVML_SUCCESS)
                return r;
        if (!out)
                return NVML_ERROR_INVALID_ARGUMENT;
        return fake_device_number(device, key, ULLONG_MAX, out);
}

/* "device.N.power_usage_mw", milliwatts. */
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power) {
        return uint_reading("nvmlDeviceGetPowerUsage", device, "power_usage_mw", power);
}

/* "device.N.power_limit_mw", milliwatts. */
nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int *limit) {
        return uint_reading("nvmlDeviceGetEnforcedPowerLimit", device, "power_limit_mw", limit);
}

/* "device.N.energy_mj", millijoules since the driver was loaded. */
nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long *energy) {
        return ull_reading("nvmlDeviceGetTotalEnergyConsumption", device, "energy_mj", energy);
}

/* nvmlClockType_t → state key, MHz. */
static const char *const clock_keys[] = {
        "clock_graphics_mhz", /* NVML_CLOCK_GRAPHICS */
        "clock_sm_mhz",       /* NVML_CLOCK_SM */
        "clock_mem_mhz",      /* NVML_CLOCK_MEM */
        "clock_video_mhz",    /* NVML_CLOCK_VIDEO */
};

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, int type, unsigned int *clock) {
        if (type < 0 || (size_t)type >= sizeof(clock_keys) / sizeof(clock_keys[0]))
                return NVML_ERROR_INVALID_ARGUMENT;
        return uint_reading("nvmlDeviceGetClockInfo", device, clock_keys[type], clock);
}

/* [errorType][counterType] → state key: "device.N.ecc_corrected" and "...ecc_uncorrected" are the
 * volatile totals, "device.N.ecc_aggregate_corrected"/"..._uncorrected" the lifetime ones. */
static const char *const ecc_keys[2][2] = {
        { "ecc_corrected", "ecc_aggregate_corrected" },     /* NVML_MEMORY_ERROR_TYPE_CORRECTED */
        { "ecc_uncorrected", "ecc_aggregate_uncorrected" }, /* NVML_MEMORY_ERROR_TYPE_UNCORRECTED */
};

nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, int errorType, int counterType,
                                         unsigned long long *eccCounts) {
        if (errorType < 0 || errorType > 1 || counterType < 0 || counterType > 1)
                return NVML_ERROR_INVALID_ARGUMENT;
        return ull_reading("nvmlDeviceGetTotalEccErrors", device, ecc_keys[errorType][counterType], eccCounts);
}

/* "device.N.remap C U P F" (rows remapped for correctable and uncorrectable errors, pending,
 * failed; Ampere and later), else NOT_SUPPORTED as on older GPUs. */
nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int *corrRows, unsigned int *uncRows,
                                       unsigned int *isPending, unsigned int *failureOccurred) {
        char v[64];
        nvmlReturn_t r = fake_enter("nvmlDeviceGetRemappedRows", device);
        if (r != NVML_SUCCESS)
                return r;
        if (!corrRows || !uncRows || !isPending || !failureOccurred)
                return NVML_ERROR_INVALID_ARGUMENT;
        if (xpu_fake_state_getf(v, sizeof(v), "device.%u.remap", device->index) < 0)
                return NVML_ERROR_NOT_SUPPORTED;
        if (sscanf(v, "%u %u %u %u", corrRows, uncRows, isPending, failureOccurred) != 4)
                return NVML_ERROR_UNKNOWN;
        return NVML_SUCCESS;
}

/* "device.N.retired SBE DBE PENDING" (pages retired for repeated single-bit and for double-bit
 * errors, pending; before Ampere), else NOT_SUPPORTED. A count query (*pageCount 0) answers
 * INSUFFICIENT_SIZE with the count when there are pages, as NVML does. */
nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t device, int cause, unsigned int *pageCount,
                                       unsigned long long *addresses) {
        char v[64];
        unsigned n[3];
        nvmlReturn_t r = fake_enter("nvmlDeviceGetRetiredPages", device);
        if (r != NVML_SUCCESS)
                return r;
        if (!pageCount || cause < 0 || cause > 1)
                return NVML_ERROR_INVALID_ARGUMENT;
        if (xpu_fake_state_getf(v, sizeof(v), "device.%u.retired", device->index) < 0)
                return NVML_ERROR_NOT_SUPPORTED;
        if (sscanf(v, "%u %u %u", &n[0], &n[1], &n[2]) != 3)
                return NVML_ERROR_UNKNOWN;
        unsigned have = *pageCount;
        *pageCount = n[cause];
        if (have < n[cause])
                return NVML_ERROR_INSUFFICIENT_SIZE;
        for (unsigned k = 0; addresses && k < n[cause]; k++)
                addresses[k] = 0x1000ull * (k + 1);
        return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device, int *isPending) {
        char v[64];
        unsigned n[3];
        nvmlReturn_t r = fake_enter("nvmlDeviceGetRetiredPagesPendingStatus", device);
        if (r != NVML_SUCCESS)
                return r;
        if (!isPending)
                return NVML_ERROR_INVALID_ARGUMENT;
        if (xpu_fake_state_getf(v, sizeof(v), "device.%u.retired", device->index) < 0)
                return NVML_ERROR_NOT_SUPPORTED;
        if (sscanf(v, "%u %u %u", &n[0], &n[1], &n[2]) != 3)
                return NVML_ERROR_UNKNOWN;
        *isPending = (int)n[2];
        return NVML_SUCCESS;
}

/* "device.N.clock_event_reasons": NVML's bitmask, decimal or 0x hex. */
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long *reasons) {
        return ull_reading("nvmlDeviceGetCurrentClocksEventReasons", device, "clock_event_reasons", reasons);
}

/* The name before R535; the same answer. */
nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device, unsigned long long *reasons) {
        return ull_reading("nvmlDeviceGetCurrentClocksThrottleReasons", device, "clock_event_reasons", reasons);
}

/* The coherence queries of a Grace Hopper GPU, each NOT_SUPPORTED without its key, as NVML answers
 * on other GPUs. Any number is handed out as given (cut to 32 bits), so tests can send hostile
 * values: "device.N.numa_node" (nvmlDeviceGetNumaNodeId), "device.N.addressing_mode"
 * (nvmlDeviceGetAddressingMode's value; a wrong version word is NVML_ERROR_ARGUMENT_VERSION_MISMATCH,
 * 25), "device.N.c2c_mode" (nvmlDeviceGetC2cModeInfoV's isC2cEnabled). */
static nvmlReturn_t coherence_value(const char *function, nvmlDevice_t device, const char *key, unsigned *out) {
        long long v = 0;
        nvmlReturn_t r = fake_enter(function, device);
        if (r != NVML_SUCCESS)
                return r;
        if (!out)
                return NVML_ERROR_INVALID_ARGUMENT;
        if (xpu_fake_state_get_long(&v, "device.%u.%s", device->index, key) < 0)
                return NVML_ERROR_NOT_SUPPORTED;
        *out = (unsigned)v;
        return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNumaNodeId(nvmlDevice_t device, unsigned int *node) {
        return coherence_value("nvmlDeviceGetNumaNodeId", device, "numa_node", node);
}

nvmlReturn_t nvmlDeviceGetAddressingMode(nvmlDevice_t device, nvmlDeviceAddressingMode_t *mode) {
        if (mode && mode->version != 0x1000008u)
                return 25; /* NVML_ERROR_ARGUMENT_VERSION_MISMATCH */
        return coherence_value("nvmlDeviceGetAddressingMode", device, "addressing_mode", mode ? &mode->value : NULL);
}

nvmlReturn_t nvmlDeviceGetC2cModeInfoV(nvmlDevice_t device, nvmlC2cModeInfo_v1_t *info) {
        return coherence_value("nvmlDeviceGetC2cModeInfoV", device, "c2c_mode", info ? &info->isC2cEnabled : NULL);
}

/* "device.N.fabric STATE STATUS CLIQUE UUIDHEX [HEALTH]" into the fields; NOT_SUPPORTED without
 * it, or (WANT_HEALTH: the V call) without the fifth field. */
static nvmlReturn_t fabric_of(const char *function, nvmlDevice_t device, bool want_health, unsigned char uuid[16],
                              nvmlReturn_t *status, unsigned *clique, unsigned char *state, unsigned *health) {
        char v[128], hex[40];
        unsigned st = 0, code = 0;
        nvmlReturn_t r = fake_enter(function, device);
        if (r != NVML_SUCCESS)
                return r;
        if (xpu_fake_state_getf(v, sizeof(v), "device.%u.fabric", device->index) < 0)
                return NVML_ERROR_NOT_SUPPORTED;
        int n = sscanf(v, "%u %u %u %32s %u", &st, &code, clique, hex, health);
        if (n < 4 || strlen(hex) != 32)
                return NVML_ERROR_UNKNOWN;
        if (want_health && n < 5)
                return NVML_ERROR_NOT_SUPPORTED;
        for (int i = 0; i < 16; i++) {
                unsigned b;
                if (sscanf(hex + 2 * i, "%2x", &b) != 1)
                        return NVML_ERROR_UNKNOWN;
                uuid[i] = (unsigned char)b;
        }
        *state = (unsigned char)st;
        *status = (nvmlReturn_t)code;
        return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetGpuFabricInfo(nvmlDevice_t device, nvmlGpuFabricInfo_t *info) {
        unsigned health = 0;
        if (!info)
                return NVML_ERROR_INVALID_ARGUMENT;
        return fabric_of("nvmlDeviceGetGpuFabricInfo", device, false, info->clusterUuid, &info->status,
                         &info->cliqueId, &info->state, &health);
}

/* The V call checks the caller's version as NVML does (v2 only here). */
nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device, nvmlGpuFabricInfo_v2_t *info) {
        if (!info)
                return NVML_ERROR_INVALID_ARGUMENT;
        if (info->version != ((unsigned)sizeof(nvmlGpuFabricInfo_v2_t) | (2u << 24)))
                return 25; /* NVML_ERROR_ARGUMENT_VERSION_MISMATCH */
        return fabric_of("nvmlDeviceGetGpuFabricInfoV", device, true, info->clusterUuid, &info->status,
                         &info->cliqueId, &info->state, &info->healthMask);
}
