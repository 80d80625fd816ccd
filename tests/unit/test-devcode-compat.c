/* SPDX-License-Identifier: Apache-2.0 */
/* probes/devcode/compat.c: the NVIDIA and AMD device-code compatibility rules. */
#include <errno.h>
#include <string.h>

#include "devcode/compat.h"
#include "testlib.h"

START_TEST(test_sass) {
        ck_assert(xpu_sass_runs_on(80, XPU_SM_PLAIN, 80));
        ck_assert(xpu_sass_runs_on(80, XPU_SM_PLAIN, 86));  /* later minor of the same major */
        ck_assert(!xpu_sass_runs_on(86, XPU_SM_PLAIN, 80)); /* never an earlier minor */
        ck_assert(!xpu_sass_runs_on(80, XPU_SM_PLAIN, 90)); /* never across majors */
        ck_assert(!xpu_sass_runs_on(90, XPU_SM_PLAIN, 100));
        ck_assert(xpu_sass_runs_on(90, XPU_SM_ARCH, 90));  /* sm_90a: exactly 9.0 */
        ck_assert(!xpu_sass_runs_on(100, XPU_SM_ARCH, 103));
        ck_assert(xpu_sass_runs_on(100, XPU_SM_FAMILY, 103)); /* sm_100f: 10.0 and 10.3 */
        ck_assert(!xpu_sass_runs_on(100, XPU_SM_FAMILY, 110));
        ck_assert(!xpu_sass_runs_on(120, XPU_SM_PLAIN, 100));
        ck_assert(xpu_sass_runs_on(120, XPU_SM_PLAIN, 121));
}
END_TEST

START_TEST(test_ptx) {
        ck_assert(xpu_ptx_jits_on(75, XPU_SM_PLAIN, 120)); /* plain PTX: any later capability */
        ck_assert(xpu_ptx_jits_on(90, XPU_SM_PLAIN, 90));
        ck_assert(!xpu_ptx_jits_on(90, XPU_SM_PLAIN, 89));
        ck_assert(!xpu_ptx_jits_on(120, XPU_SM_PLAIN, 100));
        ck_assert(xpu_ptx_jits_on(90, XPU_SM_ARCH, 90));
        ck_assert(!xpu_ptx_jits_on(90, XPU_SM_ARCH, 100));
        ck_assert(xpu_ptx_jits_on(120, XPU_SM_FAMILY, 121));
        ck_assert(!xpu_ptx_jits_on(100, XPU_SM_FAMILY, 120));

        ck_assert_int_eq(xpu_ptx_isa_cuda(9, 0), 13000);
        ck_assert_int_eq(xpu_ptx_isa_cuda(9, 1), 13010);
        ck_assert_int_eq(xpu_ptx_isa_cuda(8, 8), 12090);
        ck_assert_int_eq(xpu_ptx_isa_cuda(8, 7), 12080);
        ck_assert_int_eq(xpu_ptx_isa_cuda(8, 6), 12070); /* CUDA 12.6 kept ISA 8.5 */
        ck_assert_int_eq(xpu_ptx_isa_cuda(8, 5), 12050);
        ck_assert_int_eq(xpu_ptx_isa_cuda(7, 8), 11080);
        ck_assert_int_eq(xpu_ptx_isa_cuda(6, 3), 10000);
        ck_assert_int_eq(xpu_ptx_isa_cuda(9, 9), -ENOENT);
        ck_assert_int_eq(xpu_ptx_isa_cuda(8, 9), -ENOENT);
}
END_TEST

START_TEST(test_gfx_parse) {
        struct xpu_gfx_target t;
        ck_assert_int_eq(xpu_gfx_target_parse("gfx90a:sramecc+:xnack-", &t), 0);
        ck_assert_str_eq(t.processor, "gfx90a");
        ck_assert_int_eq(t.sramecc, 1);
        ck_assert_int_eq(t.xnack, 0);
        ck_assert_int_eq(xpu_gfx_target_parse("gfx90a:xnack+", &t), 0);
        ck_assert_int_eq(t.sramecc, -1);
        ck_assert_int_eq(t.xnack, 1);
        ck_assert_int_eq(xpu_gfx_target_parse("gfx1030", &t), 0);
        ck_assert_int_eq(t.xnack, -1);
        ck_assert_int_eq(xpu_gfx_target_parse("gfx11-generic", &t), 0);
        ck_assert_str_eq(t.processor, "gfx11-generic");
        static const char *const bad[] = { "",        "gfx",           "sm_90",          "gfx90a:",
                                           "gfx90a:xnack", "gfx90a:xnack*", "gfx90a:xnack+:xnack-",
                                           "gfx90a:tgsplit+", "GFX90A",  "gfx9 0a",
                                           "gfx1234567890123456789012345678901" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                ck_assert_msg(xpu_gfx_target_parse(bad[i], &t) == -EINVAL, "accepted \"%s\"", bad[i]);
}
END_TEST

static bool runs(const char *code, const char *device) {
        struct xpu_gfx_target c, d;
        ck_assert_int_eq(xpu_gfx_target_parse(code, &c), 0);
        ck_assert_int_eq(xpu_gfx_target_parse(device, &d), 0);
        return xpu_gfx_code_runs_on(&c, &d);
}

START_TEST(test_gfx_rules) {
        ck_assert(runs("gfx1030", "gfx1030"));
        ck_assert(!runs("gfx1030", "gfx1031")); /* the HSA_OVERRIDE_GFX_VERSION case */
        ck_assert(runs("gfx10-3-generic", "gfx1031"));
        ck_assert(runs("gfx11-generic", "gfx1103"));
        ck_assert(!runs("gfx11-generic", "gfx1030"));
        ck_assert(!runs("gfx9-generic", "gfx90a")); /* gfx90a has no generic family */
        ck_assert(runs("gfx9-4-generic", "gfx942:sramecc+:xnack-"));
        /* Features: unstated code runs in either mode; stated must match the device's mode. */
        ck_assert(runs("gfx90a", "gfx90a:sramecc+:xnack-"));
        ck_assert(runs("gfx90a:xnack-", "gfx90a:sramecc+:xnack-"));
        ck_assert(!runs("gfx90a:xnack+", "gfx90a:sramecc+:xnack-"));
        ck_assert(!runs("gfx90a:sramecc-", "gfx90a:sramecc+:xnack-"));
        /* A feature the device's processor does not have is ignored. */
        ck_assert(runs("gfx1030:xnack-", "gfx1030"));

        ck_assert_str_eq(xpu_gfx_generic_of("gfx1036"), "gfx10-3-generic");
        ck_assert_str_eq(xpu_gfx_generic_of("gfx1151"), "gfx11-generic");
        ck_assert_ptr_null(xpu_gfx_generic_of("gfx908"));
        ck_assert_ptr_null(xpu_gfx_generic_of("gfx9999"));
}
END_TEST

START_TEST(test_override_version) {
        char v[16];
        ck_assert_int_eq(xpu_gfx_override_version("gfx1030", v, sizeof v), 0);
        ck_assert_str_eq(v, "10.3.0");
        ck_assert_int_eq(xpu_gfx_override_version("gfx1100", v, sizeof v), 0);
        ck_assert_str_eq(v, "11.0.0");
        ck_assert_int_eq(xpu_gfx_override_version("gfx90a", v, sizeof v), 0);
        ck_assert_str_eq(v, "9.0.10");
        ck_assert_int_eq(xpu_gfx_override_version("gfx942", v, sizeof v), 0);
        ck_assert_str_eq(v, "9.4.2");
        ck_assert_int_eq(xpu_gfx_override_version("gfx90c", v, sizeof v), 0);
        ck_assert_str_eq(v, "9.0.12");
        ck_assert_int_eq(xpu_gfx_override_version("gfx11-generic", v, sizeof v), -EINVAL);
        ck_assert_int_eq(xpu_gfx_override_version("gfx12345", v, sizeof v), -EINVAL);
        ck_assert_int_eq(xpu_gfx_override_version("gfx10z", v, sizeof v), -EINVAL);
        ck_assert_int_eq(xpu_gfx_override_version("gfx1030", v, 4), -ENOBUFS);

        ck_assert_str_eq(xpu_code_level_name(XPU_CODE_PTX_JIT), "ptx-jit");
        ck_assert_str_eq(xpu_code_level_name(XPU_CODE_CANNOT_RUN), "cannot-run");
        ck_assert_str_eq(xpu_code_level_name((enum xpu_code_level)42), "cannot-run");
}
END_TEST

static Suite *compat_suite(void) {
        Suite *s = suite_create("devcode-compat");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_sass);
        tcase_add_test(tc, test_ptx);
        tcase_add_test(tc, test_gfx_parse);
        tcase_add_test(tc, test_gfx_rules);
        tcase_add_test(tc, test_override_version);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(compat_suite());
}
