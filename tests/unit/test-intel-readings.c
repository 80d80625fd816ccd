/* SPDX-License-Identifier: Apache-2.0 */
/* probes/intel/intel-readings.c: xpud's Intel readings backend ("intel_sysfs") on written trees: an
 * xe card with hwmon and GT frequency files, an i915 card with its error state, a card whose files
 * hold garbage, and a card that is gone. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "intel/intel.h"
#include "readings.h"
#include "testlib.h"
#include "vendor.h"

/* An Intel card N at BUS_ID bound to DRIVER, with its render node. */
static void write_card(const char *root, unsigned n, const char *bus_id, const char *driver) {
        char rel[PATH_MAX], text[128];
        snprintf(rel, sizeof rel, "sys/class/drm/card%u/device/vendor", n);
        xpu_test_write(root, rel, "0x8086\n");
        snprintf(rel, sizeof rel, "sys/class/drm/card%u/device/class", n);
        xpu_test_write(root, rel, "0x030000\n");
        snprintf(rel, sizeof rel, "sys/class/drm/card%u/device/uevent", n);
        snprintf(text, sizeof text, "PCI_SLOT_NAME=%s\n", bus_id);
        xpu_test_write(root, rel, text);
        snprintf(rel, sizeof rel, "sys/class/drm/card%u/device/driver", n);
        snprintf(text, sizeof text, "../../../../bus/pci/drivers/%s", driver);
        xpu_test_symlink(root, rel, text);
        snprintf(rel, sizeof rel, "sys/class/drm/card%u/device/drm/renderD%u/dev", n, 128 + n);
        snprintf(text, sizeof text, "226:%u\n", 128 + n);
        xpu_test_write(root, rel, text);
}

struct run {
        struct xpu_roots roots;
        struct xpu_inventory *inv;
        void *state;
        struct xpu_readings r[4];
        bool fresh[4];
};

static void run_open(struct run *t, const char *root) {
        const char *which = NULL;
        ck_assert_int_eq(xpu_roots_open(&t->roots, root, root, root, &which), 0);
        ck_assert_int_eq(xpu_inventory_probe(&t->roots, &t->inv), 0);
        ck_assert_uint_le(t->inv->n_devices, 4);
        ck_assert_int_eq(xpu_readings_intel.open(&t->state), 0);
}

static void collect(struct run *t) {
        char err[256] = "";
        memset(t->r, 0, sizeof t->r);
        memset(t->fresh, 0, sizeof t->fresh);
        ck_assert_msg(xpu_readings_intel.collect(t->state, &t->roots, 1000, t->inv, t->r, t->fresh, err, sizeof err) == 0,
                      "%s", err);
}

static void run_close(struct run *t) {
        xpu_readings_intel.close(t->state);
        xpu_inventory_free(t->inv);
        xpu_roots_close(&t->roots);
}

START_TEST(test_xe_hwmon_and_clock) {
        char *root = xpu_test_mkdtemp();
        write_card(root, 0, "0000:03:00.0", "xe");
        xpu_test_write(root, "sys/class/drm/card0/device/hwmon/hwmon3/name", "xe\n");
        xpu_test_write(root, "sys/class/drm/card0/device/hwmon/hwmon3/energy1_input", "5000000\n");
        xpu_test_write(root, "sys/class/drm/card0/device/hwmon/hwmon3/power1_max", "190000000\n");
        xpu_test_write(root, "sys/class/drm/card0/device/hwmon/hwmon3/temp2_input", "45500\n");
        xpu_test_write(root, "sys/class/drm/card0/device/hwmon/hwmon3/temp3_input", "52000\n");
        /* a per-tile hwmon and another driver's are not the card's */
        xpu_test_write(root, "sys/class/drm/card0/device/hwmon/hwmon2/name", "xe_tile0\n");
        xpu_test_write(root, "sys/class/drm/card0/device/hwmon/hwmon2/energy1_input", "1\n");
        xpu_test_write(root, "sys/class/drm/card0/device/tile0/gt0/freq0/act_freq", "2850\n");
        struct run t;
        run_open(&t, root);
        ck_assert_uint_eq(t.inv->n_devices, 1);
        collect(&t);
        const struct xpu_readings *r = &t.r[0];
        ck_assert(t.fresh[0]);
        ck_assert(!r->lost);
        ck_assert(r->have & XPU_READ_ENERGY);
        ck_assert_double_eq(r->energy_joules, 5.0);
        ck_assert(!(r->have & XPU_READ_POWER)); /* one sample: no rise yet */
        ck_assert(r->have & XPU_READ_POWER_LIMIT);
        ck_assert_double_eq(r->power_limit_watts, 190.0);
        ck_assert_uint_eq(r->have_temperature, (1u << XPU_TEMP_GPU) | (1u << XPU_TEMP_MEMORY));
        ck_assert_double_eq(r->temperature_celsius[XPU_TEMP_GPU], 45.5);
        ck_assert_double_eq(r->temperature_celsius[XPU_TEMP_MEMORY], 52.0);
        ck_assert(r->have_clock & (1u << XPU_CLOCK_GRAPHICS));
        ck_assert_uint_eq(r->clock_hertz[XPU_CLOCK_GRAPHICS], 2850000000ull);
        ck_assert(!(r->have & XPU_READ_ERROR_STATE)); /* xe has no error file */
        ck_assert_uint_eq(r->have_temperature_limit, 0); /* xe's documented ABI has no limits */

        /* one joule more 50 ms later: power is the rise over the time between the samples */
        struct timespec ts = { 0, 50 * 1000 * 1000 };
        nanosleep(&ts, NULL);
        xpu_test_write(root, "sys/class/drm/card0/device/hwmon/hwmon3/energy1_input", "6000000\n");
        collect(&t);
        r = &t.r[0];
        ck_assert(r->have & XPU_READ_POWER);
        ck_assert_msg(r->power_watts > 0.0 && r->power_watts <= 20.0, "power %f W", r->power_watts);
        /* a counter that went back (driver reload) gives no power, and starts over */
        xpu_test_write(root, "sys/class/drm/card0/device/hwmon/hwmon3/energy1_input", "1000\n");
        collect(&t);
        ck_assert(!(t.r[0].have & XPU_READ_POWER));
        ck_assert_uint_eq(t.inv->n_warnings, 0);

        /* a kernel that adds the standard hwmon limit files: read as the package's and VRAM's */
        xpu_test_write(root, "sys/class/drm/card0/device/hwmon/hwmon3/temp2_crit", "100000\n");
        xpu_test_write(root, "sys/class/drm/card0/device/hwmon/hwmon3/temp2_emergency", "105000\n");
        xpu_test_write(root, "sys/class/drm/card0/device/hwmon/hwmon3/temp3_crit", "95500\n");
        collect(&t);
        r = &t.r[0];
        ck_assert_uint_eq(r->have_temperature_limit, XPU_TEMP_LIMIT_BIT(XPU_TEMP_GPU, XPU_TEMP_LIMIT_SLOWDOWN) |
                                                              XPU_TEMP_LIMIT_BIT(XPU_TEMP_GPU, XPU_TEMP_LIMIT_SHUTDOWN) |
                                                              XPU_TEMP_LIMIT_BIT(XPU_TEMP_MEMORY, XPU_TEMP_LIMIT_SLOWDOWN));
        ck_assert_double_eq(r->temperature_limit_celsius[XPU_TEMP_GPU][XPU_TEMP_LIMIT_SLOWDOWN], 100.0);
        ck_assert_double_eq(r->temperature_limit_celsius[XPU_TEMP_GPU][XPU_TEMP_LIMIT_SHUTDOWN], 105.0);
        ck_assert_double_eq(r->temperature_limit_celsius[XPU_TEMP_MEMORY][XPU_TEMP_LIMIT_SLOWDOWN], 95.5);
        ck_assert_uint_eq(t.inv->n_warnings, 0);
        run_close(&t);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

/* i915: GT0's rps frequency, the error state (none, then a hang recorded), garbage warned about
 * naming the file, and a card whose device directory went away is lost. */
START_TEST(test_i915_error_state_garbage_lost) {
        char *root = xpu_test_mkdtemp();
        write_card(root, 0, "0000:00:02.0", "i915");
        xpu_test_write(root, "sys/class/drm/card0/gt/gt0/rps_act_freq_mhz", "1300\n");
        xpu_test_write(root, "sys/class/drm/card0/error", "No error state collected\n");
        write_card(root, 1, "0000:03:00.0", "i915");
        xpu_test_write(root, "sys/class/drm/card1/gt_act_freq_mhz", "fast\n");
        xpu_test_write(root, "sys/class/drm/card1/device/hwmon/hwmon0/name", "i915\n");
        xpu_test_write(root, "sys/class/drm/card1/device/hwmon/hwmon0/power1_max", "4294967295\n");
        struct run t;
        run_open(&t, root);
        ck_assert_uint_eq(t.inv->n_devices, 2);
        collect(&t);
        ck_assert(t.r[0].have_clock & (1u << XPU_CLOCK_GRAPHICS));
        ck_assert_uint_eq(t.r[0].clock_hertz[XPU_CLOCK_GRAPHICS], 1300000000ull);
        ck_assert(t.r[0].have & XPU_READ_ERROR_STATE);
        ck_assert(!t.r[0].error_state);
        ck_assert(!t.r[1].have_clock);
        ck_assert(!(t.r[1].have & XPU_READ_POWER_LIMIT));
        ck_assert_uint_eq(t.inv->n_warnings, 2);
        ck_assert_ptr_nonnull(strstr(t.inv->warnings[0], "card1/gt_act_freq_mhz: \"fast\" is not a number"));
        ck_assert_ptr_nonnull(strstr(t.inv->warnings[1], "card1/device/hwmon/hwmon0/power1_max: 4294967295 is no reading"));

        xpu_test_write(root, "sys/class/drm/card0/error", "GPU HANG: ecode 12:1:85dffffb, in gem_exec [1234]\n");
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/sys/class/drm/card1", root);
        xpu_test_rm_rf(path);
        collect(&t);
        ck_assert(t.r[0].error_state);
        ck_assert(t.fresh[1]);
        ck_assert(t.r[1].lost);
        ck_assert_ptr_nonnull(strstr(t.r[1].lost_reason, "card1/device is gone"));
        run_close(&t);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

static Suite *intel_readings_suite(void) {
        Suite *s = suite_create("intel-readings");
        TCase *tc = tcase_create("readings");
        tcase_add_test(tc, test_xe_hwmon_and_clock);
        tcase_add_test(tc, test_i915_error_state_garbage_lost);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(intel_readings_suite());
}
