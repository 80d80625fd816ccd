/* SPDX-License-Identifier: Apache-2.0 */
/* Product names in UTF-8 through xpud: the amd-mi100x4 fixture host with a product_name in UTF-8
 * ("AMD Radeon™ Pro W7900"), one with bytes that are not UTF-8 and a control character, sampled by
 * the sampler: the name is kept byte for byte in the snapshot, in /v1/devices and in the `name`
 * label of xpu_info; the bad bytes are U+FFFD there; the NFD product label still follows the
 * label rules (at most 63 of [A-Za-z0-9._-]). The NVML path is in test-xpud-sampler.c
 * (test_nvidia_utf8_name). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nfd.h"
#include "render-json.h"
#include "sampler.h"
#include "server.h"
#include "testlib.h"

#define W7900 "AMD Radeon\xe2\x84\xa2 Pro W7900"
#define FFFD "\xef\xbf\xbd"

static const char *route_body(struct xpud_snapshot *s, enum xpud_route route) {
        struct xpud_body b;
        ck_assert_int_eq(xpud_route_body(s, route, &b), 0);
        return b.data;
}

START_TEST(test_utf8_names) {
        char *root = xpu_test_copy_host("amd-mi100x4");
        xpu_test_write(root, "sys/class/drm/card0/device/product_name", W7900 "\n");
        xpu_test_write(root, "sys/class/drm/card1/device/product_name", "Radeon\xff Pro\x1b[2J\n");
        char nfd[PATH_MAX];
        snprintf(nfd, sizeof nfd, "%s/labels", root);
        struct xpud_sampler_options o = {
                .sys_root = root,
                .dev_root = root,
                .driver_root = root,
                .interval_s = 10,
                .vendor_timeout_s = 5,
                .nfd_file = nfd,
        };
        struct xpud_store store;
        struct xpud_sampler *smp = NULL;
        xpud_store_init(&store);
        ck_assert_int_eq(xpud_sampler_new(&o, &store, NULL, NULL, &smp), 0);
        ck_assert_int_eq(xpud_sampler_sample(smp), 0);
        struct xpud_snapshot *s = xpud_store_acquire(&store);
        ck_assert_ptr_nonnull(s);

        ck_assert_str_eq(s->devices[0].dev.name, W7900);
        ck_assert_str_eq(s->devices[1].dev.name, "Radeon" FFFD " Pro" FFFD "[2J");
        const char *m = route_body(s, XPUD_ROUTE_METRICS);
        ck_assert_msg(strstr(m, "name=\"" W7900 "\""), "%s", m);
        ck_assert_msg(strstr(m, "name=\"Radeon" FFFD " Pro" FFFD "[2J\""), "%s", m);
        ck_assert_msg(!strchr(m, '\x1b') && !strstr(m, "\xff"), "raw bytes in /metrics");
        const char *j = route_body(s, XPUD_ROUTE_DEVICES);
        ck_assert_msg(strstr(j, "\"name\":\"" W7900 "\""), "%s", j);
        ck_assert_msg(strstr(j, "\"name\":\"Radeon" FFFD " Pro" FFFD "[2J\""), "%s", j);
        ck_assert_msg(strstr(j, "product_name: not UTF-8 text: 2 character(s) shown as U+FFFD"), "%s", j);
        char *dev = NULL;
        size_t len = 0;
        ck_assert_int_eq(xpud_render_device_json(s, "0", &dev, &len), 0);
        ck_assert_msg(strstr(dev, "\"name\":\"" W7900 "\""), "%s", dev);
        free(dev);
        xpud_snapshot_unref(s);

        /* The NFD label of the first device's name: the label rules, not UTF-8. */
        FILE *fp = fopen(nfd, "re");
        ck_assert_ptr_nonnull(fp);
        char labels[4096];
        size_t n = fread(labels, 1, sizeof labels - 1, fp);
        labels[n] = '\0';
        fclose(fp);
        ck_assert_msg(strstr(labels, "feature.node.kubernetes.io/xpu.amd.product=AMD-Radeon-Pro-W7900\n"), "%s", labels);

        smp = xpud_sampler_free(smp);
        xpud_store_done(&store);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

static Suite *names_suite(void) {
        Suite *s = suite_create("xpud-sampler.names");
        TCase *tc = tcase_create("names");
        tcase_set_timeout(tc, 20);
        tcase_add_test(tc, test_utf8_names);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(names_suite());
}
