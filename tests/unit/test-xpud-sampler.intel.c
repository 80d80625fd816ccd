/* SPDX-License-Identifier: Apache-2.0 */
/* xpud on Intel hosts (daemon/sampler.c with the "intel_sysfs" backend of probes/intel/): the
 * intel-arc-b580-xe capture with xe hwmon and GT frequency files written in, and the
 * intel-max1550-x6-aurora capture (i915) with a GPU error state. Values asserted on the snapshot,
 * /metrics, /v1/health and the NFD labels. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "health.h"
#include "nfd.h"
#include "sampler.h"
#include "shim-root.h"
#include "xpud-sampler-fx.h"

static void put(const char *root, const char *rel, const char *text) {
        xpu_test_write(root, rel, text);
}

/* An Arc B580 on xe: frequency, energy, power limit, temperatures; the second sample gives power. */
START_TEST(test_xe_arc_b580) {
        struct fixture f = { .root = xpu_test_copy_host("intel-arc-b580-xe") };
        put(f.root, "sys/class/drm/card0/device/hwmon/hwmon2/name", "xe\n");
        put(f.root, "sys/class/drm/card0/device/hwmon/hwmon2/energy1_input", "1000000000\n");
        put(f.root, "sys/class/drm/card0/device/hwmon/hwmon2/power1_max", "190000000\n");
        put(f.root, "sys/class/drm/card0/device/hwmon/hwmon2/temp2_input", "47000\n");
        put(f.root, "sys/class/drm/card0/device/tile0/gt0/freq0/act_freq", "2850\n");
        sampler_new(&f, 10, 5, NULL);
        struct xpud_snapshot *s = sample(&f);
        ck_assert_uint_eq(s->n_devices, 1);
        ck_assert_uint_eq(s->n_backends, 1); /* no NVIDIA or AMD driver: only Intel's backend */
        ck_assert_str_eq(s->backends[0].name, "intel_sysfs");
        ck_assert(s->backends[0].up);
        const struct xpud_device *d = &s->devices[0];
        ck_assert_int_eq(d->dev.vendor, XPU_VENDOR_INTEL);
        ck_assert(d->up);
        ck_assert_int_eq(d->health, XPUD_HEALTH_HEALTHY);
        const char *m = body(s, XPUD_ROUTE_METRICS);
        ASSERT_SAMPLE(m, "xpud_backend_up{backend=\"intel_sysfs\"}", "1");
        ASSERT_SAMPLE(m, "xpu_power_limit_watts{vendor=\"intel\",gpu=\"0\",", "190");
        ASSERT_SAMPLE(m, "xpu_energy_joules_total{vendor=\"intel\",gpu=\"0\",", "1000");
        ASSERT_SAMPLE(m, "xpu_temperature_celsius{vendor=\"intel\",gpu=\"0\",", "47");
        ASSERT_SAMPLE(m, "xpu_clock_hertz{vendor=\"intel\",gpu=\"0\",", "2850000000");
        ASSERT_SAMPLE(m, "xpu_up{vendor=\"intel\",gpu=\"0\",", "1");
        ASSERT_NO_SERIES(m, "xpu_power_watts{vendor=\"intel\"");
        xpud_snapshot_unref(s);

        struct timespec ts = { 0, 100 * 1000 * 1000 };
        nanosleep(&ts, NULL);
        put(f.root, "sys/class/drm/card0/device/hwmon/hwmon2/energy1_input", "1001000000\n");
        s = sample(&f);
        d = &s->devices[0];
        ck_assert(d->r.have & XPU_READ_POWER);
        ck_assert_msg(d->r.power_watts > 0 && d->r.power_watts <= 10.0, "%f W", d->r.power_watts);
        m = body(s, XPUD_ROUTE_METRICS);
        ck_assert_ptr_nonnull(strstr(m, "xpu_power_watts{vendor=\"intel\",gpu=\"0\","));
        xpud_snapshot_unref(s);
        fixture_done(&f);
}
END_TEST

/* Six Max 1550 on i915: all up; a GPU error state on card 2 makes that GPU degraded with the
 * reason and action, in /v1/health and the NFD labels; the others stay healthy. */
START_TEST(test_i915_error_state) {
        struct fixture f = { .root = xpu_test_copy_host("intel-max1550-x6-aurora") };
        char nfd[PATH_MAX];
        snprintf(nfd, sizeof nfd, "%s/labels", f.root);
        for (int c = 0; c < 6; c++) {
                char rel[64];
                snprintf(rel, sizeof rel, "sys/class/drm/card%d/error", c);
                put(f.root, rel, "No error state collected\n");
        }
        sampler_new(&f, 10, 5, nfd);
        struct xpud_snapshot *s = sample(&f);
        ck_assert_uint_eq(s->n_devices, 6);
        for (size_t i = 0; i < 6; i++)
                ck_assert_int_eq(s->devices[i].health, XPUD_HEALTH_HEALTHY);
        xpud_snapshot_unref(s);
        put(f.root, "sys/class/drm/card2/error", "GPU HANG: ecode 12:1:85dffffb, in python3 [4242]\n");
        s = sample(&f);
        const struct xpud_device *d = &s->devices[2];
        ck_assert_str_eq(d->dev.pci_bus_id, "0000:6c:00.0");
        ck_assert_int_eq(d->health, XPUD_HEALTH_DEGRADED);
        ck_assert_uint_eq(d->n_reasons, 1);
        ck_assert_str_eq(d->reasons[0], "the driver holds a GPU error state (/sys/class/drm/card2/error)");
        ck_assert_ptr_nonnull(strstr(d->action, "the GPU hung and the driver reset it"));
        ck_assert_int_eq(s->devices[1].health, XPUD_HEALTH_HEALTHY);
        const char *h = body(s, XPUD_ROUTE_HEALTH);
        ck_assert_ptr_nonnull(strstr(h, "GPU error state"));
        xpud_snapshot_unref(s);
        FILE *fp = fopen(nfd, "re");
        ck_assert_ptr_nonnull(fp);
        char labels[4096] = "";
        size_t n = fread(labels, 1, sizeof labels - 1, fp);
        labels[n] = '\0';
        fclose(fp);
        ck_assert_msg(strstr(labels, "xpu.intel.count=6\n"), "%s", labels);
        ck_assert_msg(strstr(labels, "xpu.intel.healthy=5\n"), "%s", labels);
        ck_assert_msg(strstr(labels, "xpu.vendor=intel\n"), "%s", labels);
        fixture_done(&f);
}
END_TEST

static Suite *xpud_intel_suite(void) {
        Suite *s = suite_create("xpud-sampler.intel");
        TCase *tc = tcase_create("sampler");
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_xe_arc_b580);
        tcase_add_test(tc, test_i915_error_state);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(xpud_intel_suite());
}
