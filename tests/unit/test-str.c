/* SPDX-License-Identifier: Apache-2.0 */
/* probes/base/str.c: string copies, strips and the number and boolean parsers. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "base/str.h"
#include "testlib.h"

START_TEST(test_parse_u64) {
        uint64_t v = 0;
        ck_assert_int_eq(xpu_parse_u64(" 42\n", 10, &v), 0);
        ck_assert_uint_eq(v, 42);
        ck_assert_int_eq(xpu_parse_u64("0x1002", 0, &v), 0);
        ck_assert_uint_eq(v, 0x1002);
        ck_assert_int_eq(xpu_parse_u64("18446744073709551615", 10, &v), 0);
        ck_assert_uint_eq(v, UINT64_MAX);
        ck_assert_int_eq(xpu_parse_u64("18446744073709551616", 10, &v), -ERANGE);
        ck_assert_int_eq(xpu_parse_u64("-1", 10, &v), -ERANGE);
        ck_assert_int_eq(xpu_parse_u64("12abc", 10, &v), -EINVAL);
        ck_assert_int_eq(xpu_parse_u64("", 10, &v), -EINVAL);
        ck_assert_int_eq(xpu_parse_u64("   ", 10, &v), -EINVAL);
}
END_TEST

START_TEST(test_parse_i64) {
        int64_t v = 0;
        ck_assert_int_eq(xpu_parse_i64("-1\n", 10, &v), 0);
        ck_assert_int_eq(v, -1);
        ck_assert_int_eq(xpu_parse_i64("x", 10, &v), -EINVAL);
        ck_assert_int_eq(xpu_parse_i64(" +5 ", 10, &v), 0); /* a sign is fine when signed */
        ck_assert_int_eq(v, 5);
        ck_assert_int_eq(xpu_parse_i64("-9223372036854775808", 10, &v), 0);
        ck_assert(v == INT64_MIN);
        ck_assert_int_eq(xpu_parse_i64("0x7f", 0, &v), 0);
        ck_assert_int_eq(v, 0x7f);
        v = 7;
        ck_assert_int_eq(xpu_parse_i64("9223372036854775808", 10, &v), -ERANGE);
        ck_assert_int_eq(xpu_parse_i64("-9223372036854775809", 10, &v), -ERANGE);
        ck_assert_int_eq(xpu_parse_i64("", 10, &v), -EINVAL);
        ck_assert_int_eq(xpu_parse_i64("  ", 10, &v), -EINVAL);
        ck_assert_int_eq(xpu_parse_i64("1 2", 10, &v), -EINVAL);
        ck_assert_int_eq(xpu_parse_i64(NULL, 10, &v), -EINVAL);
        ck_assert_int_eq(v, 7); /* untouched by every refusal */
}
END_TEST

/* The unsigned parser refuses a sign: strtoull would take "-1" as UINT64_MAX. */
START_TEST(test_parse_u64_sign) {
        uint64_t v = 7;
        ck_assert_int_eq(xpu_parse_u64("+1", 10, &v), -EINVAL);
        ck_assert_int_eq(xpu_parse_u64(" -0", 10, &v), -ERANGE);
        ck_assert_int_eq(xpu_parse_u64("-", 10, &v), -ERANGE);
        ck_assert_int_eq(xpu_parse_u64(NULL, 10, &v), -EINVAL);
        ck_assert_int_eq(xpu_parse_u64("0x", 16, &v), -EINVAL);
        ck_assert_uint_eq(v, 7);
        ck_assert_int_eq(xpu_parse_u64("ff", 16, &v), 0);
        ck_assert_uint_eq(v, 255);
}
END_TEST

START_TEST(test_parse_bool) {
        static const char *const yes[] = { "1", "true", "YES", "On" }, *const no[] = { "0", "False", "no", "OFF", "" };
        for (size_t i = 0; i < ELEMENTSOF(yes); i++)
                ck_assert_msg(xpu_parse_bool(yes[i]) == 1, "%s", yes[i]);
        for (size_t i = 0; i < ELEMENTSOF(no); i++)
                ck_assert_msg(xpu_parse_bool(no[i]) == 0, "%s", no[i]);
        ck_assert_int_eq(xpu_parse_bool("2"), -EINVAL);
        ck_assert_int_eq(xpu_parse_bool(" yes"), -EINVAL);
        ck_assert_int_eq(xpu_parse_bool(NULL), -EINVAL);
}
END_TEST

START_TEST(test_copy_strip_test) {
        char buf[6];
        ck_assert_int_eq(xpu_strlcpy(buf, "abcde", sizeof buf), 0);
        ck_assert_str_eq(buf, "abcde");
        ck_assert_int_eq(xpu_strlcpy(buf, "abcdef", sizeof buf), -ENAMETOOLONG); /* cut, terminated */
        ck_assert_str_eq(buf, "abcde");
        ck_assert_int_eq(xpu_strlcpy(buf, "x", 0), -ENAMETOOLONG);
        char s[] = " \t a b \n";
        ck_assert_str_eq(xpu_strstrip(s), "a b");
        char e[] = "   ";
        ck_assert_str_eq(xpu_strstrip(e), "");
        ck_assert(xpu_startswith("nvidia-uvm", "nvidia"));
        ck_assert(!xpu_startswith("nv", "nvidia"));
        ck_assert(xpu_str_is_printable("Radeon RX Vega"));
        ck_assert(!xpu_str_is_printable(NULL));
        ck_assert(!xpu_str_is_printable("a\x7f"));
}
END_TEST

static Suite *str_suite(void) {
        Suite *s = suite_create("str");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_parse_u64);
        tcase_add_test(tc, test_parse_i64);
        tcase_add_test(tc, test_parse_u64_sign);
        tcase_add_test(tc, test_parse_bool);
        tcase_add_test(tc, test_copy_strip_test);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(str_suite());
}
