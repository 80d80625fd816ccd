/* SPDX-License-Identifier: Apache-2.0 */
/* Fake NVML library (libnvidia-ml.so.1) for tests: the entry points used to list GPUs and read
 * driver facts, answering from the state file described in state.h. This file holds the
 * library's state, the failure modes and checks every entry point makes, init and shutdown, the
 * system queries and the device handles; fake-nvml-device.c the per-device queries (fake-nvml.h). */
#include <stdatomic.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake-nvml.h"
#include "state.h"

/* The handles (fake-nvml.h). */
struct nvmlDevice_st devices[MAX_DEVICES];
struct nvmlDevice_st mig_devices[MAX_DEVICES][MAX_MIG];

/* nvmlInit*() calls not yet matched by nvmlShutdown(), as NVML counts them. */
static atomic_int init_count;

/* Failure modes of entry point FUNCTION, for all devices ("hang.FUNCTION 1" never returns,
 * "abort.FUNCTION 1" calls abort(), "error.FUNCTION N" returns N) or, with INDEX >= 0, for
 * device INDEX only ("hang.FUNCTION.2 1", "abort.FUNCTION.2 1", "error.FUNCTION.2 15"). */
nvmlReturn_t fake_forced_at(const char *function, long long index) {
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

nvmlReturn_t fake_forced(const char *function) {
        return fake_forced_at(function, -1);
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
nvmlReturn_t fake_check_device(nvmlDevice_t device) {
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
nvmlReturn_t fake_enter(const char *function, nvmlDevice_t device) {
        nvmlReturn_t r = fake_forced(function);
        if (r == NVML_SUCCESS)
                r = fake_check_device(device);
        if (r == NVML_SUCCESS)
                r = fake_forced_at(function, device->index);
        return r;
}

/* "device.N.KEY" of DEVICE as an unsigned number (decimal or 0x hex) at most MAX:
 * NOT_SUPPORTED when absent (as NVML answers on boards without that sensor), UNKNOWN when
 * malformed or too large. */
nvmlReturn_t fake_device_number(nvmlDevice_t device, const char *key, unsigned long long max,
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
nvmlReturn_t fake_copy_string(char *buf, unsigned int length, const char *key) {
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
        nvmlReturn_t r = fake_forced("nvmlInit_v2");
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
        nvmlReturn_t r = fake_forced("nvmlShutdown");
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
        nvmlReturn_t r = fake_forced("nvmlSystemGetDriverVersion");
        if (r != NVML_SUCCESS)
                return r;
        if (atomic_load(&init_count) <= 0)
                return NVML_ERROR_UNINITIALIZED;
        return fake_copy_string(version, length, "driver_version");
}

/* Same encodings as the fake libcuda: 11030 or "11.3". */
nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *version) {
        nvmlReturn_t r = fake_forced("nvmlSystemGetCudaDriverVersion");
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
        nvmlReturn_t r = fake_forced("nvmlDeviceGetCount_v2");
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
        nvmlReturn_t r = fake_forced("nvmlDeviceGetHandleByIndex_v2");
        if (r != NVML_SUCCESS)
                return r;
        if (!device || index >= MAX_DEVICES)
                return NVML_ERROR_INVALID_ARGUMENT;
        r = fake_check_device(&devices[index]);
        if (r == NVML_SUCCESS)
                r = fake_forced_at("nvmlDeviceGetHandleByIndex_v2", index);
        if (r != NVML_SUCCESS)
                return r;
        *device = &devices[index];
        return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device) {
        return nvmlDeviceGetHandleByIndex_v2(index, device);
}

/* A MIG handle of nvmlDeviceGetMigDeviceHandleByIndex, or NULL. */
const struct nvmlDevice_st *fake_mig_handle(nvmlDevice_t device) {
        const struct nvmlDevice_st *first = &mig_devices[0][0];
        if (!device || device < first || device >= first + MAX_DEVICES * MAX_MIG)
                return NULL;
        return device;
}

