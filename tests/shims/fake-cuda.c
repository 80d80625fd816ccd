/* SPDX-License-Identifier: Apache-2.0 */
/* Fake CUDA driver API library (libcuda.so.1) for tests: the entry points a workload calls to
 * find its GPUs, answering from the state file described in state.h. No NVIDIA header is used;
 * the few types and result codes below follow the CUDA driver API's published values. */
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        CUDA_ERROR_UNKNOWN = 999,
};

/* CUdevice_attribute values used here. */
enum {
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

/* Forced failure of FUNCTION ("error.FUNCTION N" in the state file), else CUDA_SUCCESS. */
static CUresult forced(const char *function) {
        return (CUresult)xpu_fake_forced_error(function);
}

/* Check that cuInit() ran and DEV is an ordinal below device_count. */
static CUresult check_device(CUdevice dev) {
        long long count = 0;
        if (!atomic_load(&initialized))
                return CUDA_ERROR_NOT_INITIALIZED;
        if (xpu_fake_state_get_long(&count, "device_count") < 0)
                return CUDA_ERROR_UNKNOWN;
        if (dev < 0 || dev >= count)
                return CUDA_ERROR_INVALID_DEVICE;
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
        CUresult r = forced("cuDeviceGet");
        if (r != CUDA_SUCCESS)
                return r;
        if (!device)
                return CUDA_ERROR_INVALID_VALUE;
        r = check_device(ordinal);
        if (r != CUDA_SUCCESS)
                return r;
        *device = ordinal;
        return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice dev) {
        CUresult r = forced("cuDeviceGetName");
        if (r != CUDA_SUCCESS)
                return r;
        if (!name || len <= 0)
                return CUDA_ERROR_INVALID_VALUE;
        r = check_device(dev);
        if (r != CUDA_SUCCESS)
                return r;
        if (xpu_fake_state_getf(name, (size_t)len, "device.%d.name", dev) < 0)
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

CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev) {
        char text[96];
        CUresult r = forced("cuDeviceGetUuid");
        if (r != CUDA_SUCCESS)
                return r;
        if (!uuid)
                return CUDA_ERROR_INVALID_VALUE;
        r = check_device(dev);
        if (r != CUDA_SUCCESS)
                return r;
        if (xpu_fake_state_getf(text, sizeof(text), "device.%d.uuid", dev) < 0)
                return CUDA_ERROR_NOT_FOUND;
        if (parse_uuid(text, uuid) < 0)
                return CUDA_ERROR_UNKNOWN;
        return CUDA_SUCCESS;
}

CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev) {
        return cuDeviceGetUuid(uuid, dev);
}

CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice dev) {
        char text[32];
        int ma = 0, mi = 0;
        char tail;
        CUresult r = forced("cuDeviceComputeCapability");
        if (r != CUDA_SUCCESS)
                return r;
        if (!major || !minor)
                return CUDA_ERROR_INVALID_VALUE;
        r = check_device(dev);
        if (r != CUDA_SUCCESS)
                return r;
        if (xpu_fake_state_getf(text, sizeof(text), "device.%d.cc", dev) < 0)
                return CUDA_ERROR_NOT_FOUND;
        if (sscanf(text, "%d.%d%c", &ma, &mi, &tail) != 2)
                return CUDA_ERROR_UNKNOWN;
        *major = ma;
        *minor = mi;
        return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *pi, int attrib, CUdevice dev) {
        int major = 0, minor = 0;
        CUresult r = forced("cuDeviceGetAttribute");
        if (r != CUDA_SUCCESS)
                return r;
        if (!pi)
                return CUDA_ERROR_INVALID_VALUE;
        switch (attrib) {
        case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
        case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
                r = cuDeviceComputeCapability(&major, &minor, dev);
                if (r != CUDA_SUCCESS)
                        return r;
                *pi = attrib == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ? major : minor;
                return CUDA_SUCCESS;
        default:
                return CUDA_ERROR_INVALID_VALUE;
        }
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev) {
        long long total = 0;
        CUresult r = forced("cuDeviceTotalMem_v2");
        if (r != CUDA_SUCCESS)
                return r;
        if (!bytes)
                return CUDA_ERROR_INVALID_VALUE;
        r = check_device(dev);
        if (r != CUDA_SUCCESS)
                return r;
        if (xpu_fake_state_get_long(&total, "device.%d.memory_total", dev) < 0 || total < 0)
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
