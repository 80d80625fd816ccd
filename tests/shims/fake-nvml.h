/* SPDX-License-Identifier: Apache-2.0 */
/* What the two files of the fake NVML library share (tests/shims/fake-nvml.c: the library's
 * state, failure modes, init, system queries and handles; fake-nvml-device.c: the per-device
 * queries): NVML's types and return codes as published (no NVIDIA header is used), the handles,
 * the exported entry points and the checks every entry point makes. Answers come from the state
 * file described in state.h. */
#pragma once

#include <stddef.h>

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct {
        unsigned long long total; /* bytes */
        unsigned long long free;  /* bytes */
        unsigned long long used;  /* bytes */
} nvmlMemory_t;

/* nvmlPciInfo_t as nvmlDeviceGetPciInfo_v2/_v3 fill it (NVML >= 9). */
typedef struct {
        char busIdLegacy[16]; /* "0000:1A:00.0" */
        unsigned int domain, bus, device;
        unsigned int pciDeviceId;    /* device id << 16 | vendor id */
        unsigned int pciSubSystemId;
        char busId[32];              /* "00000000:1A:00.0" */
} nvmlPciInfo_t;
/* nvmlUtilization_t: percent of the last sample period. */
typedef struct {
        unsigned int gpu;
        unsigned int memory;
} nvmlUtilization_t;

/* nvmlGpuFabricInfo_t and nvmlGpuFabricInfo_v2_t (nvml.h): a GPU's NVLink fabric registration. */
typedef struct {
        unsigned char clusterUuid[16];
        nvmlReturn_t status;
        unsigned int cliqueId;
        unsigned char state;
} nvmlGpuFabricInfo_t;
typedef struct {
        unsigned int version;
        unsigned char clusterUuid[16];
        nvmlReturn_t status;
        unsigned int cliqueId;
        unsigned char state;
        unsigned int healthMask;
} nvmlGpuFabricInfo_v2_t;

/* The layout the unversioned nvmlDeviceGetPciInfo (NVML < 9) fills. */
typedef struct {
        char busId[16];
        unsigned int domain, bus, device;
        unsigned int pciDeviceId;
        unsigned int pciSubSystemId;
        unsigned int reserved[4];
} nvmlPciInfoV1_t;

enum {
        NVML_SUCCESS = 0,
        NVML_ERROR_UNINITIALIZED = 1,
        NVML_ERROR_INVALID_ARGUMENT = 2,
        NVML_ERROR_NOT_SUPPORTED = 3,
        NVML_ERROR_NOT_FOUND = 6,
        NVML_ERROR_INSUFFICIENT_SIZE = 7,
        NVML_ERROR_DRIVER_NOT_LOADED = 9,
        NVML_ERROR_GPU_IS_LOST = 15,
        NVML_ERROR_UNKNOWN = 999,
};

/* Devices this fake can hand out; a handle is a pointer into one of these arrays: GPUs, and the
 * MIG devices of each GPU (mig = the MIG index, -1 for a GPU). */
#define MAX_DEVICES 64
#define MAX_MIG 16
struct nvmlDevice_st {
        unsigned index;
        int mig;
};
extern struct nvmlDevice_st devices[MAX_DEVICES];
extern struct nvmlDevice_st mig_devices[MAX_DEVICES][MAX_MIG];

#define EXPORT __attribute__((visibility("default")))

EXPORT nvmlReturn_t nvmlInit_v2(void);
EXPORT nvmlReturn_t nvmlInit(void);
EXPORT nvmlReturn_t nvmlShutdown(void);
EXPORT const char *nvmlErrorString(nvmlReturn_t result);
EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length);
EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *version);
EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *version);
EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count);
EXPORT nvmlReturn_t nvmlDeviceGetCount(unsigned int *count);
EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device);
EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device);
EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length);
EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length);
EXPORT nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int *minor);
EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory);
EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci);
EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_t *pci);
EXPORT nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t device, nvmlPciInfoV1_t *pci);
EXPORT nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor);
EXPORT nvmlReturn_t nvmlDeviceGetBrand(nvmlDevice_t device, int *type);
EXPORT nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *currentMode, unsigned int *pendingMode);
EXPORT nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count);
EXPORT nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index,
                                                        nvmlDevice_t *migDevice);
EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int *id);
EXPORT nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int *id);
EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *utilization);
EXPORT nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, int sensorType, unsigned int *temp);
EXPORT nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t device, int thresholdType, unsigned int *temp);
EXPORT nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power);
EXPORT nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int *limit);
EXPORT nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long *energy);
EXPORT nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, int type, unsigned int *clock);
EXPORT nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int *corrRows, unsigned int *uncRows,
                                              unsigned int *isPending, unsigned int *failureOccurred);
EXPORT nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t device, int cause, unsigned int *pageCount,
                                              unsigned long long *addresses);
EXPORT nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device, int *isPending);
/* nvmlDeviceAddressingMode_t (version NVML_STRUCT_VERSION(DeviceAddressingMode, 1) = 0x1000008)
 * and nvmlC2cModeInfo_v1_t, as NVIDIA's nvidia-ml-py defines them. */
typedef struct {
        unsigned int version;
        unsigned int value; /* 0 none, 1 HMM, 2 ATS */
} nvmlDeviceAddressingMode_t;
typedef struct {
        unsigned int isC2cEnabled;
} nvmlC2cModeInfo_v1_t;
EXPORT nvmlReturn_t nvmlDeviceGetNumaNodeId(nvmlDevice_t device, unsigned int *node);
EXPORT nvmlReturn_t nvmlDeviceGetAddressingMode(nvmlDevice_t device, nvmlDeviceAddressingMode_t *mode);
EXPORT nvmlReturn_t nvmlDeviceGetC2cModeInfoV(nvmlDevice_t device, nvmlC2cModeInfo_v1_t *info);
EXPORT nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, int errorType, int counterType,
                                                unsigned long long *eccCounts);
EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long *reasons);
EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device, unsigned long long *reasons);
EXPORT nvmlReturn_t nvmlDeviceGetGpuFabricInfo(nvmlDevice_t device, nvmlGpuFabricInfo_t *info);
EXPORT nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device, nvmlGpuFabricInfo_v2_t *info);

/* ---- the checks of the entry points (fake-nvml.c) ---- */

/* Failure modes of entry point FUNCTION, for all devices ("hang.FUNCTION 1" never returns,
 * "abort.FUNCTION 1" calls abort(), "error.FUNCTION N" returns N) or, with INDEX >= 0, for
 * device INDEX only ("hang.FUNCTION.2 1", "abort.FUNCTION.2 1", "error.FUNCTION.2 15");
 * fake_forced() for all devices. NVML_SUCCESS when the state file forces nothing. */
nvmlReturn_t fake_forced_at(const char *function, long long index);
nvmlReturn_t fake_forced(const char *function);
/* NVML is initialised and DEVICE is one of the GPU handles, still on the bus ("device.N.lost 1"
 * in the state makes it fall off: every call on it answers GPU_IS_LOST). */
nvmlReturn_t fake_check_device(nvmlDevice_t device);
/* The checks of every per-device entry point FUNCTION: global failure modes, a valid GPU handle,
 * then the failure modes of that device. */
nvmlReturn_t fake_enter(const char *function, nvmlDevice_t device);
/* "device.N.KEY" of DEVICE as an unsigned number (decimal or 0x hex) at most MAX into *RET:
 * NOT_SUPPORTED when absent (as NVML answers on boards without that sensor), UNKNOWN when
 * malformed or too large. */
nvmlReturn_t fake_device_number(nvmlDevice_t device, const char *key, unsigned long long max,
                                unsigned long long *ret);
/* Copy the state value of KEY into BUF of LENGTH bytes, as NVML copies strings. */
nvmlReturn_t fake_copy_string(char *buf, unsigned int length, const char *key);
/* DEVICE when it is a MIG handle of nvmlDeviceGetMigDeviceHandleByIndex, else NULL. */
const struct nvmlDevice_st *fake_mig_handle(nvmlDevice_t device);
