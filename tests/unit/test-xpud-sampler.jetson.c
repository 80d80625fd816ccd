/* SPDX-License-Identifier: Apache-2.0 */
/* xpud on a Jetson: the jetson-orin fixture (its Tegra iGPU, no /proc/driver/nvidia). NVML is not
 * read there, and /v1/health says so as what it is (the GPU is not sampled on this platform), not
 * as a first sample to wait for or a kernel module version to find. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "render-json.h"
#include "sampler.h"
#include "server.h"
#include "shim-root.h"
#include "testlib.h"
#include "xpud-sampler-fx.h"

#define NOT_SAMPLED "not sampled: NVML is not read on a Jetson (the Tegra iGPU has no NVML sampling in xpud)"

START_TEST(test_jetson_not_sampled) {
        struct fixture f = { 0 };
        f.root = xpu_test_copy_host("jetson-orin");
        ck_assert_int_eq(chmod(f.root, 0755), 0);
        sampler_new(&f, 10, 5, NULL);
        struct xpud_snapshot *s = sample(&f);
        ck_assert_uint_eq(s->n_devices, 1);
        bool found = false;
        for (size_t i = 0; i < s->n_backends; i++)
                if (strcmp(s->backends[i].name, "nvml") == 0) {
                        found = true;
                        ck_assert(!s->backends[i].up);
                        ck_assert_str_eq(s->backends[i].error, NOT_SAMPLED);
                }
        ck_assert(found);
        const struct xpud_device *d = &s->devices[0];
        ck_assert_int_eq(d->health, XPUD_HEALTH_UNKNOWN);
        ck_assert_uint_eq(d->n_reasons, 1);
        ck_assert_str_eq(d->reasons[0], "nvml: " NOT_SAMPLED);
        ck_assert_msg(xpu_startswith(d->action, "none: xpud does not sample this GPU on this platform"), "%s",
                      d->action);
        const char *h = body(s, XPUD_ROUTE_HEALTH);
        ck_assert_msg(strstr(h, "NVML is not read on a Jetson") && !strstr(h, "wait for the first sample") &&
                              !strstr(h, "/proc/driver/nvidia/version"),
                      "%s", h);
        xpud_snapshot_unref(s);
        fixture_done(&f);
}
END_TEST

static Suite *jetson_suite(void) {
        Suite *s = suite_create("xpud-sampler-jetson");
        TCase *tc = tcase_create("core");
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_jetson_not_sampled);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(jetson_suite());
}
