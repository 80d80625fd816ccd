/* SPDX-License-Identifier: Apache-2.0 */
/* Fake NVML library (libnvidia-ml.so.1) for tests: the entry points used to list GPUs and read
 * driver facts, answering from the state file described in state.h. No NVIDIA header is used;
 * the few types and return codes below follow NVML's published values. */
#include <stdatomic.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "state.h"

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
static struct nvmlDevice_st devices[MAX_DEVICES];
static struct nvmlDevice_st mig_devices[MAX_DEVICES][MAX_MIG];

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
EXPORT nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power);
EXPORT nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int *limit);
EXPORT nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long *energy);
EXPORT nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, int type, unsigned int *clock);
EXPORT nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int *corrRows, unsigned int *uncRows,
                                              unsigned int *isPending, unsigned int *failureOccurred);
EXPORT nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t device, int cause, unsigned int *pageCount,
                                              unsigned long long *addresses);
EXPORT nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device, int *isPending);
EXPORT nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, int errorType, int counterType,
                                                unsigned long long *eccCounts);
EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long *reasons);
EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device, unsigned long long *reasons);

/* nvmlInit*() calls not yet matched by nvmlShutdown(), as NVML counts them. */
static atomic_int init_count;

/* Failure modes of entry point FUNCTION, for all devices ("hang.FUNCTION 1" never returns,
 * "abort.FUNCTION 1" calls abort(), "error.FUNCTION N" returns N) or, with INDEX >= 0, for
 * device INDEX only ("hang.FUNCTION.2 1", "abort.FUNCTION.2 1", "error.FUNCTION.2 15"). */
static nvmlReturn_t forced_at(const char *function, long long index) {
        char key[128];
        long long v = 0;
        if (index >= 0)
                snprintf(key, sizeof(key), "%s.%lld", function, index);
        else
                snprintf(key, sizeof(key), "%s", function);
        if (xpu_fake_state_get_long(&v, "hang.%s", key) == 0 && v)
                for (;;)
                        pause();
        if (xpu_fake_state_get_long(&v, "abort.%s", key) == 0 && v)
                abort();
        return (nvmlReturn_t)xpu_fake_forced_error(key);
}

static nvmlReturn_t forced(const char *function) {
        return forced_at(function, -1);
}

/* Number of devices in the state file as nvmlDeviceGetCount answers it (up to 4096: a test may
 * list more than the reader holds), or -1 when it does not say. */
static long long device_count_listed(void) {
        long long n = 0;
        if (xpu_fake_state_get_long(&n, "device_count") < 0 || n < 0 || n > 4096)
                return -1;
        return n;
}

/* Number of devices that have handles (at most MAX_DEVICES), or -1. */
static long long device_count(void) {
        long long n = device_count_listed();
        return n < MAX_DEVICES ? n : MAX_DEVICES;
}

/* Check that NVML is initialised and DEVICE is one of our GPU handles still on the bus
 * ("device.N.lost 1" in the state makes it fall off: every call on it answers GPU_IS_LOST). */
static nvmlReturn_t check_device(nvmlDevice_t device) {
        long long lost = 0;
        if (atomic_load(&init_count) <= 0)
                return NVML_ERROR_UNINITIALIZED;
        if (!device || device < devices || device >= devices + MAX_DEVICES)
                return NVML_ERROR_INVALID_ARGUMENT;
        if ((long long)device->index >= device_count())
                return NVML_ERROR_INVALID_ARGUMENT;
        if (xpu_fake_state_get_long(&lost, "device.%u.lost", device->index) == 0 && lost)
                return NVML_ERROR_GPU_IS_LOST;
        return NVML_SUCCESS;
}

/* The checks of every per-device entry point FUNCTION: global failure modes, a valid GPU
 * handle, then the failure modes of that device. */
static nvmlReturn_t enter(const char *function, nvmlDevice_t device) {
        nvmlReturn_t r = forced(function);
        if (r == NVML_SUCCESS)
                r = check_device(device);
        if (r == NVML_SUCCESS)
                r = forced_at(function, device->index);
        return r;
}

/* "device.N.KEY" of DEVICE as an unsigned number (decimal or 0x hex) at most MAX:
 * NOT_SUPPORTED when absent (as NVML answers on boards without that sensor), UNKNOWN when
 * malformed or too large. */
static nvmlReturn_t device_number(nvmlDevice_t device, const char *key, unsigned long long max,
                                  unsigned long long *ret) {
        char value[64], *end = NULL;
        if (xpu_fake_state_getf(value, sizeof(value), "device.%u.%s", device->index, key) < 0)
                return NVML_ERROR_NOT_SUPPORTED;
        errno = 0;
        unsigned long long v = strtoull(value, &end, 0);
        if (errno != 0 || end == value || *end != '\0' || value[0] == '-' || v > max)
                return NVML_ERROR_UNKNOWN;
        *ret = v;
        return NVML_SUCCESS;
}

/* Copy the state value of KEY into BUF of LENGTH bytes, as NVML copies strings. */
static nvmlReturn_t copy_string(char *buf, unsigned int length, const char *key) {
        char value[256];
        if (!buf)
                return NVML_ERROR_INVALID_ARGUMENT;
        if (xpu_fake_state_get(key, value, sizeof(value)) < 0)
                return NVML_ERROR_NOT_SUPPORTED;
        if (strlen(value) + 1 > length)
                return NVML_ERROR_INSUFFICIENT_SIZE;
        memcpy(buf, value, strlen(value) + 1);
        return NVML_SUCCESS;
}

/* "calls_log PATH": append "FUNCTION PID\n" to PATH (which the test created, writable by the
 * helper's nobody) for the calls that open and close an NVML session, so a test can count
 * nvmlInit_v2 across a daemon's samples. Best effort: a log that cannot be written is skipped. */
static void log_call(const char *function) {
        char path[PATH_MAX], line[128];
        if (xpu_fake_state_get("calls_log", path, sizeof(path)) < 0 || !path[0])
                return;
        int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
        if (fd < 0)
                return;
        int n = snprintf(line, sizeof(line), "%s %d\n", function, (int)getpid());
        if (n > 0 && write(fd, line, (size_t)n) < 0) {
                /* nothing to do: the test sees the line missing */
        }
        close(fd);
}

nvmlReturn_t nvmlInit_v2(void) {
        log_call("nvmlInit_v2");
        nvmlReturn_t r = forced("nvmlInit_v2");
        if (r != NVML_SUCCESS)
                return r;
        /* No state file stands for a host whose kernel driver is not loaded. */
        if (xpu_fake_state_available() < 0)
                return NVML_ERROR_DRIVER_NOT_LOADED;
        for (unsigned i = 0; i < MAX_DEVICES; i++)
                devices[i].index = i;
        atomic_fetch_add(&init_count, 1);
        return NVML_SUCCESS;
}

nvmlReturn_t nvmlInit(void) {
        return nvmlInit_v2();
}

nvmlReturn_t nvmlShutdown(void) {
        log_call("nvmlShutdown");
        nvmlReturn_t r = forced("nvmlShutdown");
        if (r != NVML_SUCCESS)
                return r;
        int n = atomic_load(&init_count);
        while (n > 0 && !atomic_compare_exchange_weak(&init_count, &n, n - 1))
                ;
        return n > 0 ? NVML_SUCCESS : NVML_ERROR_UNINITIALIZED;
}

/* Descriptions of the codes this library returns. */
static const struct {
        nvmlReturn_t code;
        const char *text;
} errors[] = {
        { NVML_SUCCESS, "Success" },
        { NVML_ERROR_UNINITIALIZED, "Uninitialized" },
        { NVML_ERROR_INVALID_ARGUMENT, "Invalid Argument" },
        { NVML_ERROR_NOT_SUPPORTED, "Not Supported" },
        { NVML_ERROR_NOT_FOUND, "Not Found" },
        { NVML_ERROR_INSUFFICIENT_SIZE, "Insufficient Size" },
        { NVML_ERROR_DRIVER_NOT_LOADED, "Driver Not Loaded" },
        { NVML_ERROR_GPU_IS_LOST, "GPU is lost" },
        { NVML_ERROR_UNKNOWN, "Unknown Error" },
};

const char *nvmlErrorString(nvmlReturn_t result) {
        for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
                if (errors[i].code == result)
                        return errors[i].text;
        return "Unknown Error";
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length) {
        nvmlReturn_t r = forced("nvmlSystemGetDriverVersion");
        if (r != NVML_SUCCESS)
                return r;
        if (atomic_load(&init_count) <= 0)
                return NVML_ERROR_UNINITIALIZED;
        return copy_string(version, length, "driver_version");
}

/* Same encodings as the fake libcuda: 11030 or "11.3". */
nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *version) {
        nvmlReturn_t r = forced("nvmlSystemGetCudaDriverVersion");
        if (r != NVML_SUCCESS)
                return r;
        if (!version)
                return NVML_ERROR_INVALID_ARGUMENT;
        int v = 0, e = xpu_fake_state_cuda_version(&v);
        if (e == -ENODATA)
                return NVML_ERROR_NOT_SUPPORTED;
        if (e < 0)
                return NVML_ERROR_UNKNOWN;
        *version = v;
        return NVML_SUCCESS;
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *version) {
        return nvmlSystemGetCudaDriverVersion(version);
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count) {
        nvmlReturn_t r = forced("nvmlDeviceGetCount_v2");
        if (r != NVML_SUCCESS)
                return r;
        if (!count)
                return NVML_ERROR_INVALID_ARGUMENT;
        if (atomic_load(&init_count) <= 0)
                return NVML_ERROR_UNINITIALIZED;
        long long n = device_count_listed();
        if (n < 0)
                return NVML_ERROR_UNKNOWN;
        *count = (unsigned)n;
        return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCount(unsigned int *count) {
        return nvmlDeviceGetCount_v2(count);
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device) {
        nvmlReturn_t r = forced("nvmlDeviceGetHandleByIndex_v2");
        if (r != NVML_SUCCESS)
                return r;
        if (!device || index >= MAX_DEVICES)
                return NVML_ERROR_INVALID_ARGUMENT;
        r = check_device(&devices[index]);
        if (r == NVML_SUCCESS)
                r = forced_at("nvmlDeviceGetHandleByIndex_v2", index);
        if (r != NVML_SUCCESS)
                return r;
        *device = &devices[index];
        return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device) {
        return nvmlDeviceGetHandleByIndex_v2(index, device);
}

/* A MIG handle of nvmlDeviceGetMigDeviceHandleByIndex, or NULL. */
static const struct nvmlDevice_st *mig_handle(nvmlDevice_t device) {
        const struct nvmlDevice_st *first = &mig_devices[0][0];
        if (!device || device < first || device >= first + MAX_DEVICES * MAX_MIG)
                return NULL;
        return device;
}

/* "device.N.uuid" of a GPU; "device.N.mig.M.uuid" of a MIG device (GPU N must not be lost). */
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length) {
        char key[64];
        const struct nvmlDevice_st *mig = mig_handle(device);
        nvmlReturn_t r;
        if (mig) {
                r = enter("nvmlDeviceGetUUID", &devices[mig->index]);
                if (r != NVML_SUCCESS)
                        return r;
                snprintf(key, sizeof(key), "device.%u.mig.%d.uuid", mig->index, mig->mig);
                return copy_string(uuid, length, key);
        }
        r = enter("nvmlDeviceGetUUID", device);
        if (r != NVML_SUCCESS)
                return r;
        snprintf(key, sizeof(key), "device.%u.uuid", device->index);
        return copy_string(uuid, length, key);
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length) {
        char key[64];
        const struct nvmlDevice_st *mig = mig_handle(device);
        if (mig) { /* "device.N.mig.M.name" */
                nvmlReturn_t e = enter("nvmlDeviceGetName", &devices[mig->index]);
                if (e != NVML_SUCCESS)
                        return e;
                snprintf(key, sizeof(key), "device.%u.mig.%d.name", mig->index, mig->mig);
                return copy_string(name, length, key);
        }
        nvmlReturn_t r = enter("nvmlDeviceGetName", device);
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
        return copy_string(name, length, key);
}

nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int *minor) {
        long long v = 0;
        nvmlReturn_t r = enter("nvmlDeviceGetMinorNumber", device);
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
        const struct nvmlDevice_st *mig = mig_handle(device);
        if (mig) { /* "device.N.mig.M.memory_total" */
                nvmlReturn_t e = enter("nvmlDeviceGetMemoryInfo", &devices[mig->index]);
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
        nvmlReturn_t r = enter("nvmlDeviceGetMemoryInfo", device);
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
        nvmlReturn_t r = check_device(device);
        if (r == NVML_SUCCESS)
                r = forced_at(function, device->index);
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
        nvmlReturn_t r = forced("nvmlDeviceGetPciInfo_v3");
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
        nvmlReturn_t r = forced("nvmlDeviceGetPciInfo");
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
        nvmlReturn_t r = enter("nvmlDeviceGetCudaComputeCapability", device);
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
        nvmlReturn_t r = enter("nvmlDeviceGetBrand", device);
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
        nvmlReturn_t r = enter("nvmlDeviceGetMigMode", device);
        if (r != NVML_SUCCESS)
                return r;
        if (!currentMode || !pendingMode)
                return NVML_ERROR_INVALID_ARGUMENT;
        r = device_number(device, "mig_mode", 1, &current);
        if (r != NVML_SUCCESS)
                return r;
        if (device_number(device, "mig_pending", 1, &pending) != NVML_SUCCESS)
                pending = current;
        *currentMode = (unsigned)current;
        *pendingMode = (unsigned)pending;
        return NVML_SUCCESS;
}

/* "device.N.mig_max" (default 7, an A100's) when the GPU has a MIG mode. */
nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count) {
        unsigned long long mode = 0, max = 7;
        nvmlReturn_t r = enter("nvmlDeviceGetMaxMigDeviceCount", device);
        if (r != NVML_SUCCESS)
                return r;
        if (!count)
                return NVML_ERROR_INVALID_ARGUMENT;
        r = device_number(device, "mig_mode", 1, &mode);
        if (r != NVML_SUCCESS)
                return r;
        r = device_number(device, "mig_max", MAX_MIG, &max);
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
        nvmlReturn_t r = enter("nvmlDeviceGetMigDeviceHandleByIndex", device);
        if (r != NVML_SUCCESS)
                return r;
        if (!migDevice || device_number(device, "mig_mode", 1, &mode) != NVML_SUCCESS || mode != 1)
                return NVML_ERROR_INVALID_ARGUMENT;
        if (device_number(device, "mig_max", MAX_MIG, &max) == NVML_ERROR_UNKNOWN || index >= max)
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
        const struct nvmlDevice_st *mig = mig_handle(device);
        long long v = 0;
        if (!mig || !id)
                return NVML_ERROR_INVALID_ARGUMENT;
        nvmlReturn_t r = enter(function, &devices[mig->index]);
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
        nvmlReturn_t r = enter("nvmlDeviceGetUtilizationRates", device);
        if (r != NVML_SUCCESS)
                return r;
        if (!utilization)
                return NVML_ERROR_INVALID_ARGUMENT;
        r = device_number(device, "util_gpu", UINT_MAX, &gpu);
        if (r == NVML_SUCCESS)
                r = device_number(device, "util_memory", UINT_MAX, &memory);
        if (r != NVML_SUCCESS)
                return r;
        utilization->gpu = (unsigned)gpu;
        utilization->memory = (unsigned)memory;
        return NVML_SUCCESS;
}

/* "device.N.temperature", degrees Celsius, for NVML_TEMPERATURE_GPU (0), the only sensor. */
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, int sensorType, unsigned int *temp) {
        unsigned long long v = 0;
        nvmlReturn_t r = enter("nvmlDeviceGetTemperature", device);
        if (r != NVML_SUCCESS)
                return r;
        if (!temp || sensorType != 0)
                return NVML_ERROR_INVALID_ARGUMENT;
        r = device_number(device, "temperature", UINT_MAX, &v);
        if (r == NVML_SUCCESS)
                *temp = (unsigned)v;
        return r;
}

/* A reading of one unsigned int from "device.N.KEY". */
static nvmlReturn_t uint_reading(const char *function, nvmlDevice_t device, const char *key, unsigned int *out) {
        unsigned long long v = 0;
        nvmlReturn_t r = enter(function, device);
        if (r != NVML_SUCCESS)
                return r;
        if (!out)
                return NVML_ERROR_INVALID_ARGUMENT;
        r = device_number(device, key, UINT_MAX, &v);
        if (r == NVML_SUCCESS)
                *out = (unsigned)v;
        return r;
}

/* A reading of one unsigned long long from "device.N.KEY". */
static nvmlReturn_t ull_reading(const char *function, nvmlDevice_t device, const char *key,
                                unsigned long long *out) {
        nvmlReturn_t r = enter(function, device);
        if (r != NVML_SUCCESS)
                return r;
        if (!out)
                return NVML_ERROR_INVALID_ARGUMENT;
        return device_number(device, key, ULLONG_MAX, out);
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
        nvmlReturn_t r = enter("nvmlDeviceGetRemappedRows", device);
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
        nvmlReturn_t r = enter("nvmlDeviceGetRetiredPages", device);
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
        nvmlReturn_t r = enter("nvmlDeviceGetRetiredPagesPendingStatus", device);
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
