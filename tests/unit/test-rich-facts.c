/* SPDX-License-Identifier: Apache-2.0 */
/* entrypoint/rich-facts.c: which vendor-library facts a start reads before the plan, and
 * forward_compat.require checked with them. */
#include <errno.h>
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

static Suite *rich_facts_suite(void) {
        Suite *s = suite_create("rich-facts");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_sources);
        tcase_add_test(tc, test_forward_compat);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(rich_facts_suite());
}
