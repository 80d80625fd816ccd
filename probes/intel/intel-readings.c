/* SPDX-License-Identifier: Apache-2.0 */
/* Intel live readings for xpud (xpu_readings_ops of vendor.h, backend "intel_sysfs"), from the
 * i915 and xe sysfs and hwmon files, read through the sys root each sample (see intel.h for the
 * list and units). Power is the energy counter's rise over the time between two samples of the
 * same GPU (both drivers publish energy, not power). A file that is absent leaves its reading
 * absent; a value that is not a number, or is implausible (readings-range.h), is left out with one
 * inventory warning naming the file. */
#include "intel/intel.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/root-file.h"
#include "base/macro.h"
#include "base/path.h"
#include "base/str.h"
#include "drm.h"
#include "readings-range.h"
#include "readings.h"
#include "vendor.h"

#define HWMON_MAX 16 /* hwmon directories looked at per card */
#define ERROR_STATE_NONE "No error state collected"

/* The energy counter of one GPU at its last sample, for power. */
struct energy_seen {
        char bus_id[XPU_PCI_BUS_ID_MAX];
        double joules;
        double at; /* CLOCK_MONOTONIC seconds */
};

struct intel_state {
        struct energy_seen *seen;
        size_t n_seen, cap;
};

static double monotonic_s(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Read card N's file LEAF as an unsigned decimal. Returns 0, -ENOENT (absent: quiet), -ENODEV
 * (the device is gone), -EINVAL (warned), -ENOMEM. */
static int read_u64(int fd, struct xpu_inventory *inv, uint32_t n, const char *leaf, uint64_t *ret) {
        char path[192], buf[64];
        snprintf(path, sizeof path, XPU_DRM_CLASS "/card%u/%s", n, leaf);
        ssize_t r = xpu_read_value_in_root(fd, path, buf, sizeof buf);
        if (r == -ENODEV)
                return -ENODEV;
        if (r < 0)
                return -ENOENT;
        if (xpu_parse_u64(buf, 10, ret) == 0)
                return 0;
        return xpu_inventory_warn(inv, "%s: \"%s\" is not a number; left out", path, buf) < 0 ? -ENOMEM : -EINVAL;
}

/* Keep V (of KIND, from LEAF, RAW as read) when plausible, else warn. Returns true to keep it. */
static bool plausible(struct xpu_inventory *inv, uint32_t n, const char *leaf, enum xpu_reading_kind kind,
                      uint64_t raw, double v) {
        const char *why = xpu_reading_implausible(kind, raw, v);
        if (why)
                (void)xpu_inventory_warn(inv, XPU_DRM_CLASS "/card%u/%s: %llu is no reading (%s); left out", n, leaf,
                                         (unsigned long long)raw, why);
        return !why;
}

/* "device/hwmon/hwmonK" of card N whose name is the driver's own ("i915", "xe": the card-level
 * one; per-tile ones are named "i915_gtN", "xe_tileN"), into OUT. Returns 0 or -ENOENT. */
static int hwmon_find(int fd, uint32_t n, const char *driver, char *out, size_t size) {
        char path[160], name[32];
        uint32_t nums[HWMON_MAX];
        snprintf(path, sizeof path, XPU_DRM_CLASS "/card%u/device/hwmon", n);
        int k = xpu_sysfs_list_numbered(fd, path, "hwmon", nums, ELEMENTSOF(nums), NULL);
        for (int i = 0; i < k; i++) {
                snprintf(path, sizeof path, XPU_DRM_CLASS "/card%u/device/hwmon/hwmon%u/name", n, nums[i]);
                if (xpu_read_value_in_root(fd, path, name, sizeof name) >= 0 && strcmp(name, driver) == 0) {
                        snprintf(out, size, "device/hwmon/hwmon%u", nums[i]);
                        return 0;
                }
        }
        return -ENOENT;
}

static struct energy_seen *seen_find(struct intel_state *st, const char *bus_id) {
        for (size_t i = 0; i < st->n_seen; i++)
                if (strcmp(st->seen[i].bus_id, bus_id) == 0)
                        return &st->seen[i];
        if (st->n_seen == st->cap) {
                size_t cap = st->cap ? st->cap * 2 : 8;
                struct energy_seen *p = reallocarray(st->seen, cap, sizeof *p);
                if (!p)
                        return NULL;
                st->seen = p;
                st->cap = cap;
        }
        struct energy_seen *e = &st->seen[st->n_seen++];
        *e = (struct energy_seen){ .at = -1 };
        xpu_strlcpy(e->bus_id, bus_id, sizeof e->bus_id);
        return e;
}

/* The hwmon readings of D: energy (µJ) and power from it, the power limit (µW), xe's package and
 * VRAM temperatures (m°C). Returns 0 or -ENOMEM. */
static int hwmon_read(struct intel_state *st, int fd, struct xpu_inventory *inv, const struct xpu_device *d,
                      struct xpu_readings *r) {
        char dir[64], leaf[96];
        if (!d->kernel_driver[0] || hwmon_find(fd, d->card, d->kernel_driver, dir, sizeof dir) < 0)
                return 0;
        uint64_t v;
        int k;
        snprintf(leaf, sizeof leaf, "%s/energy1_input", dir);
        if ((k = read_u64(fd, inv, d->card, leaf, &v)) == -ENOMEM)
                return k;
        if (k == 0 && plausible(inv, d->card, leaf, XPU_READING_COUNT, v, (double)v / 1e6)) {
                r->energy_joules = (double)v / 1e6;
                r->have |= XPU_READ_ENERGY;
                struct energy_seen *e = seen_find(st, d->pci_bus_id);
                if (!e)
                        return -ENOMEM;
                double now = monotonic_s();
                /* a counter that went back (driver reload) starts over */
                if (e->at >= 0 && now > e->at && r->energy_joules >= e->joules) {
                        double w = (r->energy_joules - e->joules) / (now - e->at);
                        if (!xpu_reading_out_of_range(XPU_READING_WATTS, w)) {
                                r->power_watts = w;
                                r->have |= XPU_READ_POWER;
                        }
                }
                e->joules = r->energy_joules;
                e->at = now;
        }
        snprintf(leaf, sizeof leaf, "%s/power1_max", dir);
        if ((k = read_u64(fd, inv, d->card, leaf, &v)) == -ENOMEM)
                return k;
        /* 0: no limit set */
        if (k == 0 && v > 0 && plausible(inv, d->card, leaf, XPU_READING_WATTS, v, (double)v / 1e6)) {
                r->power_limit_watts = (double)v / 1e6;
                r->have |= XPU_READ_POWER_LIMIT;
        }
        /* xe's ABI documents no temperature limits (up to 6.16, research/intel.md §5); the standard
         * hwmon names temp<K>_crit (slowdown) and temp<K>_emergency (shutdown) are read should a
         * kernel add them. i915's hwmon has no temperature at all. */
        static const struct {
                const char *file;
                enum xpu_temp_sensor sensor;
                int limit; /* enum xpu_temp_limit, or -1 for the reading */
        } temps[] = {
                { "temp2_input", XPU_TEMP_GPU, -1 },
                { "temp2_crit", XPU_TEMP_GPU, XPU_TEMP_LIMIT_SLOWDOWN },
                { "temp2_emergency", XPU_TEMP_GPU, XPU_TEMP_LIMIT_SHUTDOWN },
                { "temp3_input", XPU_TEMP_MEMORY, -1 },
                { "temp3_crit", XPU_TEMP_MEMORY, XPU_TEMP_LIMIT_SLOWDOWN },
                { "temp3_emergency", XPU_TEMP_MEMORY, XPU_TEMP_LIMIT_SHUTDOWN },
        };
        for (size_t i = 0; i < ELEMENTSOF(temps); i++) {
                snprintf(leaf, sizeof leaf, "%s/%s", dir, temps[i].file);
                if ((k = read_u64(fd, inv, d->card, leaf, &v)) == -ENOMEM)
                        return k;
                if (k != 0 || !plausible(inv, d->card, leaf, XPU_READING_CELSIUS, v, (double)v / 1000.0))
                        continue;
                if (temps[i].limit < 0) {
                        r->temperature_celsius[temps[i].sensor] = (double)v / 1000.0;
                        r->have_temperature |= 1u << temps[i].sensor;
                } else {
                        r->temperature_limit_celsius[temps[i].sensor][temps[i].limit] = (double)v / 1000.0;
                        r->have_temperature_limit |= XPU_TEMP_LIMIT_BIT(temps[i].sensor, temps[i].limit);
                }
        }
        return 0;
}

/* The actual GPU frequency (MHz): xe's first tile's first GT, i915's GT0, else i915's card-level
 * file of older kernels. Returns 0, -ENODEV or -ENOMEM. */
static int clock_read(int fd, struct xpu_inventory *inv, const struct xpu_device *d, struct xpu_readings *r) {
        static const char *const files[] = { "device/tile0/gt0/freq0/act_freq", "gt/gt0/rps_act_freq_mhz",
                                             "gt_act_freq_mhz" };
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                uint64_t mhz;
                int k = read_u64(fd, inv, d->card, files[i], &mhz);
                if (k == -ENOMEM || k == -ENODEV)
                        return k;
                if (k == -ENOENT)
                        continue;
                if (k == 0 && plausible(inv, d->card, files[i], XPU_READING_HERTZ, mhz, (double)mhz * 1e6)) {
                        r->clock_hertz[XPU_CLOCK_GRAPHICS] = mhz * 1000000u;
                        r->have_clock |= 1u << XPU_CLOCK_GRAPHICS;
                }
                return 0;
        }
        return 0;
}

/* i915's error state: "No error state collected" or a GPU coredump. The file is root-only (0600):
 * unreadable means unknown, never an error. */
static void error_state_read(int fd, const struct xpu_device *d, struct xpu_readings *r) {
        char path[96], buf[64];
        snprintf(path, sizeof path, XPU_DRM_CLASS "/card%u/error", d->card);
        if (xpu_read_file_in_root(fd, path, buf, sizeof buf) < 0)
                return;
        r->have |= XPU_READ_ERROR_STATE;
        r->error_state = !xpu_startswith(buf, ERROR_STATE_NONE) && buf[0] != '\0';
}

static int intel_readings_read(struct intel_state *st, const struct xpu_roots *roots, struct xpu_inventory *inv,
                               const struct xpu_device *d, struct xpu_readings *r) {
        int fd = roots->sys_fd;
        *r = (struct xpu_readings){ 0 };
        char path[64];
        struct stat sb;
        snprintf(path, sizeof path, XPU_DRM_CLASS "/card%u/device", d->card);
        int k = xpu_stat_in_root(fd, path, false, &sb);
        if (k == -ENOENT || k == -ENODEV) {
                r->lost = true;
                snprintf(r->lost_reason, sizeof r->lost_reason, "%s is gone", path);
                return 0;
        }
        if ((k = clock_read(fd, inv, d, r)) == -ENOMEM)
                return k;
        if (k == -ENODEV) {
                r->lost = true;
                snprintf(r->lost_reason, sizeof r->lost_reason, "%s: no such device", path);
                return 0;
        }
        if ((k = hwmon_read(st, fd, inv, d, r)) < 0)
                return k;
        error_state_read(fd, d, r);
        if (d->have & XPU_HAVE_MEMORY_TOTAL) {
                r->memory_total_bytes = d->memory_total_bytes;
                r->have |= XPU_READ_MEMORY_TOTAL;
        }
        return 0;
}

static int intel_open(void **ret) {
        return (*ret = calloc(1, sizeof(struct intel_state))) ? 0 : -ENOMEM;
}

static int intel_collect(void *state, const struct xpu_roots *roots, unsigned timeout_ms, struct xpu_inventory *inv,
                         struct xpu_readings *r, bool *fresh, char *err, size_t err_size) {
        for (size_t i = 0; i < inv->n_devices; i++) {
                if (inv->devices[i].vendor != XPU_VENDOR_INTEL)
                        continue;
                int k = intel_readings_read(state, roots, inv, &inv->devices[i], &r[i]);
                if (k < 0)
                        return k;
                fresh[i] = true;
        }
        return 0;
}

static void intel_close(void *state) {
        struct intel_state *st = state;
        if (!st)
                return;
        free(st->seen);
        free(st);
}

const struct xpu_readings_ops xpu_readings_intel = {
        .name = "intel_sysfs",
        .open = intel_open,
        .collect = intel_collect,
        .close = intel_close,
};
