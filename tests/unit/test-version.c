/* SPDX-License-Identifier: Apache-2.0 */
/* entrypoint/version.c: dotted numbers compared, driver branches, CUDA versions parsed. */
#include <errno.h>

#include "testlib.h"
#include "version.h"

START_TEST(test_dotted_and_cmp) {
        ck_assert(xpu_version_is_dotted("12"));
        ck_assert(xpu_version_is_dotted("535.54.03"));
        ck_assert(!xpu_version_is_dotted(""));
        ck_assert(!xpu_version_is_dotted("12."));
        ck_assert(!xpu_version_is_dotted("12..1"));
        ck_assert(!xpu_version_is_dotted(".1"));
        ck_assert(!xpu_version_is_dotted("12a"));
        ck_assert(!xpu_version_is_dotted("18446744073709551616")); /* above 64 bits */
        ck_assert_int_gt(xpu_version_cmp("12.10", "12.9"), 0);
        ck_assert_int_lt(xpu_version_cmp("12.9", "12.10"), 0);
        ck_assert_int_eq(xpu_version_cmp("12", "12.0"), 0); /* a missing component is 0 */
        ck_assert_int_lt(xpu_version_cmp("12.0", "12.0.1"), 0);
        ck_assert_int_gt(xpu_version_cmp("535.54.03", "535.54"), 0);
        ck_assert_int_eq(xpu_version_cmp("", ""), 0);
}
END_TEST

START_TEST(test_driver_branches) {
        ck_assert(xpu_plain_driver_version("575.57.08"));
        ck_assert(!xpu_plain_driver_version("0999.1"));               /* a leading zero in the branch */
        ck_assert(!xpu_plain_driver_version("1234567890.1"));         /* ten digits */
        ck_assert(!xpu_plain_driver_version(""));
        ck_assert(xpu_forward_compat_newer("575.57.08", "465.19.01"));
        ck_assert(!xpu_forward_compat_newer("465.89.02", "465.19.01")); /* the same branch */
        ck_assert(!xpu_forward_compat_newer("575.57.08", ""));
}
END_TEST

START_TEST(test_parse_cuda) {
        ck_assert_int_eq(xpu_version_parse_cuda("13.0"), 13000);
        ck_assert_int_eq(xpu_version_parse_cuda("12.4"), 12040);
        ck_assert_int_eq(xpu_version_parse_cuda("12"), 12000);
        ck_assert_int_eq(xpu_version_parse_cuda(NULL), -EINVAL);
        ck_assert_int_eq(xpu_version_parse_cuda(""), -EINVAL);
        ck_assert_int_eq(xpu_version_parse_cuda("12.10"), -EINVAL); /* minor above 9 */
        ck_assert_int_eq(xpu_version_parse_cuda("0.5"), -EINVAL);
        ck_assert_int_eq(xpu_version_parse_cuda("100"), -EINVAL);
        ck_assert_int_eq(xpu_version_parse_cuda("12.4.1"), -EINVAL);
        ck_assert_int_eq(xpu_version_parse_cuda("12.x"), -EINVAL);
}
END_TEST

static Suite *version_suite(void) {
        Suite *s = suite_create("version");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_dotted_and_cmp);
        tcase_add_test(tc, test_driver_branches);
        tcase_add_test(tc, test_parse_cuda);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(version_suite());
}
