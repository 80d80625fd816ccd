/* SPDX-License-Identifier: Apache-2.0 */
/* Fake ROCm SMI library (librocm_smi64.so.1) for the unit tests of the ROCm SMI helper
 * (probes/amd/amd-rocm-smi.c): the entry points it binds, answering from the state file of state.h
 * (beside the library in a test's driver root). The real library against a fake /sys is
 * tests/e2e/rocm-smi.sh; this one lets a test choose answers the real one gives only on odd
 * hardware. No ROCm header is used; the types follow rocm_smi.h.
 *
 * State keys (decimal numbers; a missing key makes that getter answer RSMI_STATUS_NOT_SUPPORTED):
 *   device_count 2                  rsmi_num_monitor_devices (up to 4096)
 *   device.N.bus_id 0000:03:00.0    rsmi_dev_pci_id_get, encoded as BDFID (domain << 32 | bus << 8
 *                                   | device << 3 | function)
 *   device.N.name AMD Instinct MI210   rsmi_dev_name_get, cut to the caller's buffer
 *   device.N.name_fill A            rsmi_dev_name_get fills the whole buffer with 'A', no NUL
 *   device.N.vendor_id 4098         rsmi_dev_vendor_id_get; device.N.device_id: rsmi_dev_id_get
 *   device.N.unique_id 255          rsmi_dev_unique_id_get
 *   device.N.vram_total 68702699520 rsmi_dev_memory_total_get(VRAM), bytes; vram_used: _usage_get
 *   device.N.busy_percent 7         rsmi_dev_busy_percent_get (any number, 101 included)
 *   device.N.temp_edge 41000        rsmi_dev_temp_metric_get(sensor, CURRENT), millidegrees; also
 *                                   temp_junction, temp_memory
 *   device.N.power 95500000         rsmi_dev_power_ave_get(0), microwatts
 *   error.FUNCTION N                that entry point answers status N
 * Without a state file rsmi_init answers RSMI_STATUS_INIT_ERROR (8), as with no KFD. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "state.h"

typedef uint32_t rsmi_status_t;

enum {
        RSMI_STATUS_SUCCESS = 0,
        RSMI_STATUS_INVALID_ARGS = 1,
        RSMI_STATUS_NOT_SUPPORTED = 2,
        RSMI_STATUS_INIT_ERROR = 8,
        RSMI_STATUS_UNKNOWN_ERROR = 0xFFFFFFFF,
};

#define EXPORT __attribute__((visibility("default")))

EXPORT rsmi_status_t rsmi_init(uint64_t flags);
EXPORT rsmi_status_t rsmi_shut_down(void);
EXPORT rsmi_status_t rsmi_num_monitor_devices(uint32_t *n);
EXPORT rsmi_status_t rsmi_status_string(rsmi_status_t status, const char **text);
EXPORT rsmi_status_t rsmi_dev_pci_id_get(uint32_t dv, uint64_t *bdfid);
EXPORT rsmi_status_t rsmi_dev_name_get(uint32_t dv, char *name, size_t len);
EXPORT rsmi_status_t rsmi_dev_vendor_id_get(uint32_t dv, uint16_t *id);
EXPORT rsmi_status_t rsmi_dev_id_get(uint32_t dv, uint16_t *id);
EXPORT rsmi_status_t rsmi_dev_unique_id_get(uint32_t dv, uint64_t *id);
EXPORT rsmi_status_t rsmi_dev_memory_total_get(uint32_t dv, uint32_t type, uint64_t *total);
EXPORT rsmi_status_t rsmi_dev_memory_usage_get(uint32_t dv, uint32_t type, uint64_t *used);
EXPORT rsmi_status_t rsmi_dev_busy_percent_get(uint32_t dv, uint32_t *percent);
EXPORT rsmi_status_t rsmi_dev_temp_metric_get(uint32_t dv, uint32_t sensor, uint32_t metric, int64_t *temperature);
EXPORT rsmi_status_t rsmi_dev_power_ave_get(uint32_t dv, uint32_t sensor, uint64_t *power);

static bool initialized;

/* "error.FUNCTION N" forces status N; 0 when not set. */
static rsmi_status_t forced(const char *function) {
        long long v = 0;
        if (xpu_fake_state_get_long(&v, "error.%s", function) == 0 && v > 0)
                return (rsmi_status_t)v;
        return RSMI_STATUS_SUCCESS;
}

static long long device_count(void) {
        long long n = 0;
        if (xpu_fake_state_get_long(&n, "device_count") < 0 || n < 0 || n > 4096)
                return -1;
        return n;
}

/* The checks of every getter FUNCTION on device DV with out-pointer P. */
static rsmi_status_t enter(const char *function, uint32_t dv, const void *p) {
        rsmi_status_t r = forced(function);
        if (r != RSMI_STATUS_SUCCESS)
                return r;
        if (!initialized)
                return RSMI_STATUS_INIT_ERROR;
        if (!p || (long long)dv >= device_count())
                return RSMI_STATUS_INVALID_ARGS;
        return RSMI_STATUS_SUCCESS;
}

/* "device.DV.KEY" as a decimal number. */
static rsmi_status_t number(const char *function, uint32_t dv, const void *p, const char *key, long long *ret) {
        rsmi_status_t r = enter(function, dv, p);
        if (r != RSMI_STATUS_SUCCESS)
                return r;
        return xpu_fake_state_get_long(ret, "device.%u.%s", dv, key) == 0 ? RSMI_STATUS_SUCCESS
                                                                          : RSMI_STATUS_NOT_SUPPORTED;
}

rsmi_status_t rsmi_init(uint64_t flags) {
        (void)flags;
        rsmi_status_t r = forced("rsmi_init");
        if (r != RSMI_STATUS_SUCCESS)
                return r;
        if (xpu_fake_state_available() < 0)
                return RSMI_STATUS_INIT_ERROR;
        initialized = true;
        return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_shut_down(void) {
        initialized = false;
        return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_num_monitor_devices(uint32_t *n) {
        rsmi_status_t r = forced("rsmi_num_monitor_devices");
        long long c = device_count();
        if (r != RSMI_STATUS_SUCCESS)
                return r;
        if (!n)
                return RSMI_STATUS_INVALID_ARGS;
        if (!initialized)
                return RSMI_STATUS_INIT_ERROR;
        *n = c < 0 ? 0 : (uint32_t)c;
        return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_status_string(rsmi_status_t status, const char **text) {
        if (!text)
                return RSMI_STATUS_INVALID_ARGS;
        *text = status == RSMI_STATUS_INIT_ERROR ? "An error occurred during initialization" : "fake status";
        return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_pci_id_get(uint32_t dv, uint64_t *bdfid) {
        char value[64];
        unsigned domain = 0, bus = 0, dev = 0, fn = 0;
        rsmi_status_t r = enter("rsmi_dev_pci_id_get", dv, bdfid);
        if (r != RSMI_STATUS_SUCCESS)
                return r;
        if (xpu_fake_state_getf(value, sizeof(value), "device.%u.bus_id", dv) < 0)
                return RSMI_STATUS_NOT_SUPPORTED;
        if (sscanf(value, "%x:%x:%x.%x", &domain, &bus, &dev, &fn) != 4)
                return RSMI_STATUS_UNKNOWN_ERROR;
        *bdfid = (uint64_t)domain << 32 | (uint64_t)(bus & 0xff) << 8 | (uint64_t)(dev & 0x1f) << 3 | (fn & 7);
        return RSMI_STATUS_SUCCESS;
}

rsmi_status_t rsmi_dev_name_get(uint32_t dv, char *name, size_t len) {
        char value[256];
        rsmi_status_t r = enter("rsmi_dev_name_get", dv, name);
        if (r != RSMI_STATUS_SUCCESS)
                return r;
        if (len == 0)
                return RSMI_STATUS_INVALID_ARGS;
        if (xpu_fake_state_getf(value, sizeof(value), "device.%u.name_fill", dv) == 0 && value[0]) {
                memset(name, value[0], len);
                return RSMI_STATUS_SUCCESS;
        }
        if (xpu_fake_state_getf(value, sizeof(value), "device.%u.name", dv) < 0)
                return RSMI_STATUS_NOT_SUPPORTED;
        snprintf(name, len, "%s", value);
        return RSMI_STATUS_SUCCESS;
}

static rsmi_status_t id16(const char *function, uint32_t dv, uint16_t *id, const char *key) {
        long long v = 0;
        rsmi_status_t r = number(function, dv, id, key, &v);
        if (r == RSMI_STATUS_SUCCESS)
                *id = (uint16_t)v;
        return r;
}

rsmi_status_t rsmi_dev_vendor_id_get(uint32_t dv, uint16_t *id) {
        return id16("rsmi_dev_vendor_id_get", dv, id, "vendor_id");
}

rsmi_status_t rsmi_dev_id_get(uint32_t dv, uint16_t *id) {
        return id16("rsmi_dev_id_get", dv, id, "device_id");
}

static rsmi_status_t u64(const char *function, uint32_t dv, uint64_t *out, const char *key) {
        long long v = 0;
        rsmi_status_t r = number(function, dv, out, key, &v);
        if (r == RSMI_STATUS_SUCCESS)
                *out = (uint64_t)v;
        return r;
}

rsmi_status_t rsmi_dev_unique_id_get(uint32_t dv, uint64_t *id) {
        return u64("rsmi_dev_unique_id_get", dv, id, "unique_id");
}

rsmi_status_t rsmi_dev_memory_total_get(uint32_t dv, uint32_t type, uint64_t *total) {
        return type != 0 ? RSMI_STATUS_NOT_SUPPORTED : u64("rsmi_dev_memory_total_get", dv, total, "vram_total");
}

rsmi_status_t rsmi_dev_memory_usage_get(uint32_t dv, uint32_t type, uint64_t *used) {
        return type != 0 ? RSMI_STATUS_NOT_SUPPORTED : u64("rsmi_dev_memory_usage_get", dv, used, "vram_used");
}

rsmi_status_t rsmi_dev_busy_percent_get(uint32_t dv, uint32_t *percent) {
        long long v = 0;
        rsmi_status_t r = number("rsmi_dev_busy_percent_get", dv, percent, "busy_percent", &v);
        if (r == RSMI_STATUS_SUCCESS)
                *percent = (uint32_t)v;
        return r;
}

rsmi_status_t rsmi_dev_temp_metric_get(uint32_t dv, uint32_t sensor, uint32_t metric, int64_t *temperature) {
        static const char *const keys[] = { "temp_edge", "temp_junction", "temp_memory" };
        long long v = 0;
        if (sensor >= sizeof(keys) / sizeof(keys[0]) || metric != 0)
                return RSMI_STATUS_NOT_SUPPORTED;
        rsmi_status_t r = number("rsmi_dev_temp_metric_get", dv, temperature, keys[sensor], &v);
        if (r == RSMI_STATUS_SUCCESS)
                *temperature = v;
        return r;
}

rsmi_status_t rsmi_dev_power_ave_get(uint32_t dv, uint32_t sensor, uint64_t *power) {
        return sensor != 0 ? RSMI_STATUS_NOT_SUPPORTED : u64("rsmi_dev_power_ave_get", dv, power, "power");
}
