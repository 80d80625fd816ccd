/* SPDX-License-Identifier: Apache-2.0 */
/* entrypoint/rich-facts.c: which vendor-library facts a start reads before the plan,
 * forward_compat.require checked with them, and the placeholders' values. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/str.h"
#include "require-parse.h"
#include "rich-facts.h"
#include "testlib.h"

#define NVML (1u << XPU_SOURCE_NVML)
#define CUDA (1u << XPU_SOURCE_CUDA)

/* A host with the NVIDIA driver DRIVER, a profile of that vendor, gathered facts with the
 * forward-compatibility build COMPAT ("" none) and forward_compat.require's sources SOURCES. */
struct rf {
        struct xpu_inventory *inv;
        struct xpu_profile pr;
        struct xpu_plan_facts f;
        struct xpu_selection sel;
};

static void rf_init(struct rf *t, const char *driver, const char *compat, uint32_t sources) {
        memset(t, 0, sizeof *t);
        t->inv = calloc(1, sizeof *t->inv);
        ck_assert_ptr_nonnull(t->inv);
        xpu_strlcpy(t->inv->vendors[XPU_VENDOR_NVIDIA].driver_version, driver,
                    sizeof t->inv->vendors[XPU_VENDOR_NVIDIA].driver_version);
        t->pr.vendor = XPU_VENDOR_NVIDIA;
        t->f.needs.forward_compat_sources = sources;
        t->f.forward_compat = compat[0] ? 1 : 0;
        xpu_strlcpy(t->f.forward_compat_version, compat, sizeof t->f.forward_compat_version);
}

START_TEST(test_sources) {
        struct rf t;
        uint32_t required = 7;
        const struct xpu_device_code_facts dc = { .rich_sources = CUDA };

        /* A newer build: forward_compat.require's sources, required; the check's added. */
        rf_init(&t, "465.19.01", "575.57.08", NVML);
        ck_assert_uint_eq(xpu_rich_facts_sources(&t.f, t.inv, &t.pr, NULL, &required), NVML);
        ck_assert_uint_eq(required, NVML);
        ck_assert_uint_eq(xpu_rich_facts_sources(&t.f, t.inv, &t.pr, &dc, NULL), NVML | CUDA);
        free(t.inv);

        /* The same branch, no build, or a requirement that names no rich fact: nothing for it. */
        rf_init(&t, "575.20.01", "575.57.08", NVML);
        ck_assert_uint_eq(xpu_rich_facts_sources(&t.f, t.inv, &t.pr, &dc, &required), CUDA);
        ck_assert_uint_eq(required, 0);
        free(t.inv);
        rf_init(&t, "465.19.01", "", NVML);
        ck_assert_uint_eq(xpu_rich_facts_sources(&t.f, t.inv, &t.pr, NULL, &required), 0);
        ck_assert_uint_eq(required, 0);
        free(t.inv);
        rf_init(&t, "465.19.01", "575.57.08", 0);
        ck_assert_uint_eq(xpu_rich_facts_sources(&t.f, t.inv, &t.pr, NULL, &required), 0);
        free(t.inv);
}
END_TEST

START_TEST(test_forward_compat) {
        struct rf t;
        char err[XPU_REQUIRE_ERROR_MAX];
        rf_init(&t, "465.19.01", "575.57.08", 0);
        /* No requirement: met. */
        ck_assert_int_eq(xpu_rich_facts_forward_compat(&t.f, t.inv, &t.sel, &t.pr), 0);
        ck_assert_int_eq(t.f.forward_compat_require, 1);
        ck_assert_str_eq(t.f.forward_compat_why, "no requirement");
        /* A requirement the host fails: 0, and why. */
        ck_assert_int_eq(xpu_require_parse("driver>=999", &t.pr.forward_compat_require, err, sizeof err), 0);
        ck_assert_int_eq(xpu_rich_facts_forward_compat(&t.f, t.inv, &t.sel, &t.pr), 0);
        ck_assert_int_eq(t.f.forward_compat_require, 0);
        ck_assert_msg(strstr(t.f.forward_compat_why, "465.19.01"), "%s", t.f.forward_compat_why);
        /* No build found: the requirement is not asked. */
        t.f.forward_compat = 0;
        ck_assert_int_eq(xpu_rich_facts_forward_compat(&t.f, t.inv, &t.sel, &t.pr), 0);
        ck_assert_int_eq(t.f.forward_compat_require, 1);
        xpu_require_free(t.pr.forward_compat_require);
        free(t.inv);
}
END_TEST

/* The placeholders' values, as the plan expands them: the selected devices of the profile's vendor
 * by UUID (by index where two share one), their indices, the plan's driver version, the library
 * directory. */
START_TEST(test_placeholders) {
        struct rf t;
        rf_init(&t, "465.19.01", "", 0);
        struct xpu_device devs[3] = {
                { .vendor = XPU_VENDOR_NVIDIA, .vendor_index = 0, .uuid = "GPU-a" },
                { .vendor = XPU_VENDOR_NVIDIA, .vendor_index = 1, .uuid = "GPU-b" },
                { .vendor = XPU_VENDOR_AMD, .vendor_index = 0, .uuid = "GPU-c" },
        };
        bool selected[3] = { true, true, true };
        uint32_t mig[3] = { 0 };
        t.inv->devices = devs;
        t.inv->n_devices = 3;
        t.sel = (struct xpu_selection){ .selected = selected, .mig = mig, .n = 3 };
        ck_assert_int_eq(xpu_rich_facts_placeholders(&t.f, t.inv, &t.sel, &t.pr, NULL), 0);
        ck_assert_str_eq(t.f.placeholders[XPU_PLACEHOLDER_VISIBLE_IDS], "GPU-a,GPU-b"); /* not the AMD GPU */
        ck_assert_str_eq(t.f.placeholders[XPU_PLACEHOLDER_VISIBLE_INDICES], "0,1");
        ck_assert_str_eq(t.f.placeholders[XPU_PLACEHOLDER_DRIVER_VERSION], "465.19.01");
        ck_assert_str_eq(t.f.placeholders[XPU_PLACEHOLDER_LIBRARY_DIR], XPU_DEFAULT_LIBRARY_DIR);

        /* Two devices with one UUID: indices; no kernel driver version: the gathered one when
         * driver files are looked for, else none; the options' library directory. */
        xpu_strlcpy(devs[1].uuid, "GPU-a", sizeof devs[1].uuid);
        selected[0] = false;
        t.inv->vendors[XPU_VENDOR_NVIDIA].driver_version[0] = '\0';
        xpu_strlcpy(t.f.driver_version, "550.54.15", sizeof t.f.driver_version);
        t.f.needs.files = true;
        ck_assert_int_eq(xpu_rich_facts_placeholders(&t.f, t.inv, &t.sel, &t.pr, "/opt/lib"), 0);
        ck_assert_str_eq(t.f.placeholders[XPU_PLACEHOLDER_VISIBLE_IDS], "1");
        ck_assert_str_eq(t.f.placeholders[XPU_PLACEHOLDER_DRIVER_VERSION], "550.54.15");
        ck_assert_str_eq(t.f.placeholders[XPU_PLACEHOLDER_LIBRARY_DIR], "/opt/lib");
        t.f.needs.files = false;
        ck_assert_int_eq(xpu_rich_facts_placeholders(&t.f, t.inv, &t.sel, &t.pr, NULL), 0);
        ck_assert_str_eq(t.f.placeholders[XPU_PLACEHOLDER_DRIVER_VERSION], "");

        /* A profile without a vendor (cpu) takes no device. */
        t.pr.match_any = true;
        ck_assert_int_eq(xpu_rich_facts_placeholders(&t.f, t.inv, &t.sel, &t.pr, NULL), 0);
        ck_assert_str_eq(t.f.placeholders[XPU_PLACEHOLDER_VISIBLE_IDS], "");
        for (int i = 0; i < _XPU_PLACEHOLDER_MAX; i++)
                free(t.f.placeholders[i]);
        free(t.inv);
}
END_TEST

static Suite *rich_facts_suite(void) {
        Suite *s = suite_create("rich-facts");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_sources);
        tcase_add_test(tc, test_forward_compat);
        tcase_add_test(tc, test_placeholders);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(rich_facts_suite());
}
