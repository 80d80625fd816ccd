/* SPDX-License-Identifier: Apache-2.0 */
/* Fake CUDA driver API library (libcuda.so.1) for tests: the entry points a workload (and
 * probes/nvidia/nvidia-cuda.c) calls to find its GPUs, answering from the state file described in
 * state.h. No NVIDIA header is used; the few types, result codes and attribute numbers below
 * follow the CUDA driver API's published values.
 *
 * State keys this library reads (beside state.h's common ones: cuda_version, device_count,
 * device.N.name, device.N.uuid, device.N.cc, device.N.memory_total, error.FUNCTION):
 *   device.N.bus_id 00000000:1A:00.0   the same key fake NVML reads (any case, 4- or 8-digit
 *                                      domain); answers CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID (50),
 *                                      _PCI_BUS_ID (33) and _PCI_DEVICE_ID (34)
 *   device.N.name_from_env LD_PRELOAD  cuDeviceGetName answers that variable of the library's
 *                                      environment ("(unset)" when absent), as fake NVML does
 *   cuda_order 2,0,1                   CUDA ordinal K is state device LIST[K] (libcuda's default
 *                                      CUDA_DEVICE_ORDER=FASTEST_FIRST differs from PCI bus
 *                                      order); every ordinal below device_count must be listed.
 *                                      Unset: ordinal K is device K
 *   hang.FUNCTION 1                    that entry point never returns
 *   abort.FUNCTION 1                   that entry point calls abort()
 *   abort.load 1                       the library aborts while being loaded (its constructor):
 *                                      shows whether a caller loaded it at all
 * The CUdevice handle cuDeviceGet returns is the ordinal, as in the real library. */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "state.h"

typedef int CUresult;
typedef int CUdevice;
typedef struct {
        char bytes[16];
} CUuuid;

enum {
        CUDA_SUCCESS = 0,
        CUDA_ERROR_INVALID_VALUE = 1,
        CUDA_ERROR_NOT_INITIALIZED = 3,
        CUDA_ERROR_NO_DEVICE = 100,
        CUDA_ERROR_INVALID_DEVICE = 101,
        CUDA_ERROR_NOT_FOUND = 500,
        CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
        CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE = 804,
        CUDA_ERROR_UNKNOWN = 999,
};

/* CUdevice_attribute values used here. */
enum {
        CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = 33,
        CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID = 34,
        CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID = 50,
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
};

#define EXPORT __attribute__((visibility("default")))

EXPORT CUresult cuInit(unsigned int flags);
EXPORT CUresult cuDriverGetVersion(int *version);
EXPORT CUresult cuDeviceGetCount(int *count);
EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal);
EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice dev);
EXPORT CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev);
EXPORT CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev);
EXPORT CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice dev);
EXPORT CUresult cuDeviceGetAttribute(int *pi, int attrib, CUdevice dev);
EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev);
EXPORT CUresult cuGetErrorName(CUresult error, const char **str);
EXPORT CUresult cuGetErrorString(CUresult error, const char **str);

/* Set by a successful cuInit(); every device query before it fails like the real library. */
static atomic_bool initialized;

/* Failure modes of entry point FUNCTION: "hang.FUNCTION 1" never returns, "abort.FUNCTION 1"
 * calls abort(), "error.FUNCTION N" returns N; else CUDA_SUCCESS. */
static CUresult forced(const char *function) {
        long long v = 0;
        if (xpu_fake_state_get_long(&v, "hang.%s", function) == 0 && v)
                for (;;)
                        pause();
        if (xpu_fake_state_get_long(&v, "abort.%s", function) == 0 && v)
                abort();
        return (CUresult)xpu_fake_forced_error(function);
}

/* "abort.load 1": die while being loaded, before any entry point could be called. */
__attribute__((constructor)) static void on_load(void) {
        long long v = 0;
        if (xpu_fake_state_get_long(&v, "abort.load") == 0 && v)
                abort();
}

/* The state device behind ordinal DEV: entry DEV of "cuda_order" when set, else DEV.
 * Returns it, or -1 when the list is malformed or too short. */
static long long state_index(CUdevice dev) {
        char list[512];
        if (xpu_fake_state_get("cuda_order", list, sizeof(list)) < 0)
                return dev;
        char *p = list;
        for (CUdevice k = 0;; k++) {
                char *end = NULL;
                long long v = strtoll(p, &end, 10);
                if (end == p || v < 0 || (*end != ',' && *end != '\0'))
                        return -1;
                if (k == dev)
                        return v;
                if (*end == '\0')
                        return -1;
                p = end + 1;
        }
}

/* Check that cuInit() ran and DEV is an ordinal below device_count; *IDX = its state device. */
static CUresult check_device(CUdevice dev, long long *idx) {
        long long count = 0;
        if (!atomic_load(&initialized))
                return CUDA_ERROR_NOT_INITIALIZED;
        if (xpu_fake_state_get_long(&count, "device_count") < 0)
                return CUDA_ERROR_UNKNOWN;
        if (dev < 0 || dev >= count)
                return CUDA_ERROR_INVALID_DEVICE;
        *idx = state_index(dev);
        if (*idx < 0 || *idx >= count)
                return CUDA_ERROR_UNKNOWN;
        return CUDA_SUCCESS;
}

CUresult cuInit(unsigned int flags) {
        CUresult r = forced("cuInit");
        if (r != CUDA_SUCCESS)
                return r;
        if (flags != 0)
                return CUDA_ERROR_INVALID_VALUE;
        /* No state file stands for a host whose kernel driver is not there. */
        if (xpu_fake_state_available() < 0)
                return CUDA_ERROR_NO_DEVICE;
        atomic_store(&initialized, true);
        return CUDA_SUCCESS;
}

/* The state's cuda_version is either the API's integer (11030) or "major.minor" ("11.3"). */
CUresult cuDriverGetVersion(int *version) {
        CUresult r = forced("cuDriverGetVersion");
        if (r != CUDA_SUCCESS)
                return r;
        if (!version)
                return CUDA_ERROR_INVALID_VALUE;
        return xpu_fake_state_cuda_version(version) == 0 ? CUDA_SUCCESS : CUDA_ERROR_UNKNOWN;
}

CUresult cuDeviceGetCount(int *count) {
        long long n = 0;
        CUresult r = forced("cuDeviceGetCount");
        if (r != CUDA_SUCCESS)
                return r;
        if (!count)
                return CUDA_ERROR_INVALID_VALUE;
        if (!atomic_load(&initialized))
                return CUDA_ERROR_NOT_INITIALIZED;
        if (xpu_fake_state_get_long(&n, "device_count") < 0 || n < 0 || n > 1024)
                return CUDA_ERROR_UNKNOWN;
        *count = (int)n;
        return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal) {
        long long idx = 0;
        CUresult r = forced("cuDeviceGet");
        if (r != CUDA_SUCCESS)
                return r;
        if (!device)
                return CUDA_ERROR_INVALID_VALUE;
        r = check_device(ordinal, &idx);
        if (r != CUDA_SUCCESS)
                return r;
        *device = ordinal;
        return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice dev) {
        long long idx = 0;
        char var[64];
        CUresult r = forced("cuDeviceGetName");
        if (r != CUDA_SUCCESS)
                return r;
        if (!name || len <= 0)
                return CUDA_ERROR_INVALID_VALUE;
        r = check_device(dev, &idx);
        if (r != CUDA_SUCCESS)
                return r;
        /* "device.N.name_from_env VAR": the name is VAR of this process's environment. */
        if (xpu_fake_state_getf(var, sizeof(var), "device.%lld.name_from_env", idx) == 0) {
                const char *v = getenv(var);
                snprintf(name, (size_t)len, "%s", v ? v : "(unset)");
                return CUDA_SUCCESS;
        }
        if (xpu_fake_state_getf(name, (size_t)len, "device.%lld.name", idx) < 0)
                return CUDA_ERROR_NOT_FOUND;
        return CUDA_SUCCESS;
}

static int hex_value(char c) {
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

/* "GPU-307dcc96-618a-4416-c1ef-87823c2e1a31" → 16 bytes; dashes and the GPU-/MIG- prefix skipped.
 * Returns 0 or -EINVAL when the text does not hold exactly 32 hex digits. */
static int parse_uuid(const char *text, CUuuid *ret) {
        const char *p = strncmp(text, "GPU-", 4) == 0 || strncmp(text, "MIG-", 4) == 0 ? text + 4 : text;
        unsigned nibbles = 0;
        CUuuid u = {{0}};
        for (; *p; p++) {
                if (*p == '-')
                        continue;
                int v = hex_value(*p);
                if (v < 0 || nibbles >= 32)
                        return -EINVAL;
                u.bytes[nibbles / 2] = (char)(u.bytes[nibbles / 2] | (v << (nibbles % 2 ? 0 : 4)));
                nibbles++;
        }
        if (nibbles != 32)
                return -EINVAL;
        *ret = u;
        return 0;
}

/* Both UUID entry points after their own failure modes. */
static CUresult uuid_of(CUuuid *uuid, CUdevice dev) {
        char text[96];
        long long idx = 0;
        if (!uuid)
                return CUDA_ERROR_INVALID_VALUE;
        CUresult r = check_device(dev, &idx);
        if (r != CUDA_SUCCESS)
                return r;
        if (xpu_fake_state_getf(text, sizeof(text), "device.%lld.uuid", idx) < 0)
                return CUDA_ERROR_NOT_FOUND;
        if (parse_uuid(text, uuid) < 0)
                return CUDA_ERROR_UNKNOWN;
        return CUDA_SUCCESS;
}

CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev) {
        CUresult r = forced("cuDeviceGetUuid");
        return r != CUDA_SUCCESS ? r : uuid_of(uuid, dev);
}

CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev) {
        CUresult r = forced("cuDeviceGetUuid_v2");
        return r != CUDA_SUCCESS ? r : uuid_of(uuid, dev);
}

/* "device.N.cc 7.5" of ordinal DEV. */
static CUresult cc_of(CUdevice dev, int *major, int *minor) {
        char text[32];
        int ma = 0, mi = 0;
        char tail;
        long long idx = 0;
        CUresult r = check_device(dev, &idx);
        if (r != CUDA_SUCCESS)
                return r;
        if (xpu_fake_state_getf(text, sizeof(text), "device.%lld.cc", idx) < 0)
                return CUDA_ERROR_NOT_FOUND;
        if (sscanf(text, "%d.%d%c", &ma, &mi, &tail) != 2)
                return CUDA_ERROR_UNKNOWN;
        *major = ma;
        *minor = mi;
        return CUDA_SUCCESS;
}

CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice dev) {
        CUresult r = forced("cuDeviceComputeCapability");
        if (r != CUDA_SUCCESS)
                return r;
        if (!major || !minor)
                return CUDA_ERROR_INVALID_VALUE;
        return cc_of(dev, major, minor);
}

/* "device.N.bus_id" of ordinal DEV split into domain, bus and device (slot). */
static CUresult pci_of(CUdevice dev, unsigned *domain, unsigned *bus, unsigned *slot) {
        char text[64];
        long long idx = 0;
        CUresult r = check_device(dev, &idx);
        if (r != CUDA_SUCCESS)
                return r;
        if (xpu_fake_state_getf(text, sizeof(text), "device.%lld.bus_id", idx) < 0)
                return CUDA_ERROR_NOT_FOUND;
        if (sscanf(text, "%x:%x:%x.", domain, bus, slot) != 3)
                return CUDA_ERROR_UNKNOWN;
        return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *pi, int attrib, CUdevice dev) {
        int major = 0, minor = 0;
        unsigned domain = 0, bus = 0, slot = 0;
        CUresult r = forced("cuDeviceGetAttribute");
        if (r != CUDA_SUCCESS)
                return r;
        if (!pi)
                return CUDA_ERROR_INVALID_VALUE;
        switch (attrib) {
        case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
        case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
                r = cc_of(dev, &major, &minor);
                if (r != CUDA_SUCCESS)
                        return r;
                *pi = attrib == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ? major : minor;
                return CUDA_SUCCESS;
        case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID:
        case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID:
        case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID:
                r = pci_of(dev, &domain, &bus, &slot);
                if (r != CUDA_SUCCESS)
                        return r;
                *pi = (int)(attrib == CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID ? domain
                            : attrib == CU_DEVICE_ATTRIBUTE_PCI_BUS_ID  ? bus
                                                                        : slot);
                return CUDA_SUCCESS;
        default:
                return CUDA_ERROR_INVALID_VALUE;
        }
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev) {
        long long total = 0, idx = 0;
        CUresult r = forced("cuDeviceTotalMem_v2");
        if (r != CUDA_SUCCESS)
                return r;
        if (!bytes)
                return CUDA_ERROR_INVALID_VALUE;
        r = check_device(dev, &idx);
        if (r != CUDA_SUCCESS)
                return r;
        if (xpu_fake_state_get_long(&total, "device.%lld.memory_total", idx) < 0 || total < 0)
                return CUDA_ERROR_NOT_FOUND;
        *bytes = (size_t)total;
        return CUDA_SUCCESS;
}

/* Names and descriptions of the codes this library returns. */
static const struct {
        CUresult code;
        const char *name;
        const char *text;
} errors[] = {
        { CUDA_SUCCESS, "CUDA_SUCCESS", "no error" },
        { CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument" },
        { CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error" },
        { CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected" },
        { CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal" },
        { CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found" },
        { CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
          "system has unsupported display driver / cuda driver combination" },
        { CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
          "forward compatibility was attempted on non supported HW" },
        { CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error" },
};

static CUresult describe(CUresult error, const char **str, int want_name) {
        if (!str)
                return CUDA_ERROR_INVALID_VALUE;
        for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
                if (errors[i].code == error) {
                        *str = want_name ? errors[i].name : errors[i].text;
                        return CUDA_SUCCESS;
                }
        *str = NULL;
        return CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGetErrorName(CUresult error, const char **str) {
        return describe(error, str, 1);
}

CUresult cuGetErrorString(CUresult error, const char **str) {
        return describe(error, str, 0);
}
