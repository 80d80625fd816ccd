/* SPDX-License-Identifier: Apache-2.0 */
/* probes/base/escape.c: UTF-8 text and the escapes of what warnings quote. */
#include <errno.h>
#include <string.h>

#include "base/escape.h"
#include "base/str.h"
#include "probe.h"
#include "testlib.h"

/* Names are UTF-8 text: well-formed sequences kept byte for byte, every ill-formed byte and every
 * control character one U+FFFD, a cut only at a character boundary. */
START_TEST(test_utf8_text) {
        static const struct {
                const char *s;
                size_t len;
        } lens[] = {
                { "A", 1 }, { "", 1 }, { "\xc3\xa9", 2 }, { "\xe2\x84\xa2", 3 }, { "\xf0\x9f\x98\x80", 4 },
                { "\xf4\x8f\xbf\xbf", 4 }, /* U+10FFFF */
                { "\x80", 0 },                 /* a continuation byte alone */
                { "\xc0\xaf", 0 },             /* overlong '/' */
                { "\xc1\xbf", 0 },             /* overlong */
                { "\xe0\x80\xaf", 0 },         /* overlong 3-byte */
                { "\xed\xa0\x80", 0 },         /* UTF-16 surrogate U+D800 */
                { "\xf0\x80\x80\xaf", 0 },     /* overlong 4-byte */
                { "\xf4\x90\x80\x80", 0 },     /* above U+10FFFF */
                { "\xf5\x80\x80\x80", 0 },     /* no such lead byte */
                { "\xe2\x84", 0 },             /* cut short */
                { "\xe2\x84" "A", 0 },
                { "\xff", 0 },
        };
        for (size_t i = 0; i < ELEMENTSOF(lens); i++)
                ck_assert_msg(xpu_utf8_char_len(lens[i].s) == lens[i].len, "case %zu: %zu", i, xpu_utf8_char_len(lens[i].s));

        ck_assert(xpu_str_is_text("AMD Radeon\xe2\x84\xa2 Pro W7900"));
        ck_assert(xpu_str_is_text("Radeon RX Vega"));
        ck_assert(!xpu_str_is_text(""));
        ck_assert(!xpu_str_is_text(NULL));
        ck_assert(!xpu_str_is_text("a\tb"));
        ck_assert(!xpu_str_is_text("a\x7f"));
        ck_assert(!xpu_str_is_text("a\xc2\x9b[2J")); /* C1 CSI */
        ck_assert(xpu_str_is_text("a\xc2\xa0" "b"));    /* NO-BREAK SPACE is text */
        ck_assert(!xpu_str_is_text("Radeon\377"));

        char out[64];
        bool cut = true;
        ck_assert_uint_eq(xpu_utf8_sanitize(out, sizeof out, "AMD Radeon\xe2\x84\xa2 Pro W7900", &cut), 0);
        ck_assert_str_eq(out, "AMD Radeon\xe2\x84\xa2 Pro W7900");
        ck_assert(!cut);
        ck_assert_uint_eq(xpu_utf8_sanitize(out, sizeof out, "a\xff\x1b[1mb\xc2\x9b\xe2\x84", &cut), 5);
        ck_assert_str_eq(out, "a\xef\xbf\xbd\xef\xbf\xbd[1mb\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
        ck_assert(xpu_str_is_text(out));
        /* Cut at a character boundary: "ab™" in 5 bytes is "ab", in 6 all of it. */
        ck_assert_uint_eq(xpu_utf8_sanitize(out, 5, "ab\xe2\x84\xa2", &cut), 0);
        ck_assert_str_eq(out, "ab");
        ck_assert(cut);
        ck_assert_uint_eq(xpu_utf8_sanitize(out, 6, "ab\xe2\x84\xa2", &cut), 0);
        ck_assert_str_eq(out, "ab\xe2\x84\xa2");
        ck_assert(!cut);
        /* A replacement that does not fit is not put in half. */
        ck_assert_uint_eq(xpu_utf8_sanitize(out, 4, "a\xff", NULL), 0);
        ck_assert_str_eq(out, "a");
        ck_assert_uint_eq(xpu_utf8_sanitize(out, 1, "abc", &cut), 0);
        ck_assert_str_eq(out, "");
        ck_assert(cut);
        ck_assert_uint_eq(xpu_utf8_sanitize(out, sizeof out, NULL, &cut), 0);
        ck_assert_str_eq(out, "");
}
END_TEST

/* Warnings quote file contents: non-printable bytes are escaped, never passed through. */
START_TEST(test_warning_escapes) {
        struct xpu_inventory *inv = xpu_inventory_new();
        ck_assert_ptr_nonnull(inv);
        ck_assert_int_eq(xpu_inventory_warn(inv, "%s: \"%s\"", "/sys/x", "ok\033[2J\377\n"), 0);
        ck_assert_str_eq(inv->warnings[0], "/sys/x: \"ok\\x1b[2J\\xff\\x0a\"");
        xpu_inventory_free(inv);
        ck_assert(xpu_str_is_printable("Radeon RX Vega"));
        ck_assert(!xpu_str_is_printable(""));
        ck_assert(!xpu_str_is_printable("Radeon\377"));
        ck_assert(!xpu_str_is_printable("a\tb"));
}
END_TEST

START_TEST(test_escape_text) {
        char out[256];
        /* printable UTF-8 is kept: "Radeon\u2122 Pro", U+00E9, a 4-byte emoji */
        ck_assert_str_eq(xpu_escape_text("AMD Radeon\xe2\x84\xa2 Pro \xc3\xa9 \xf0\x9f\x98\x80", out, sizeof out),
                         "AMD Radeon\xe2\x84\xa2 Pro \xc3\xa9 \xf0\x9f\x98\x80");
        /* controls (C0, DEL, C1 U+0085) and invalid bytes are escaped, byte by byte */
        ck_assert_str_eq(xpu_escape_text("a\nb\tc\033[2J\x7f\xc2\x85", out, sizeof out),
                         "a\\x0ab\\x09c\\x1b[2J\\x7f\\xc2\\x85");
        ck_assert_str_eq(xpu_escape_text("\xff\xc0\xaf\xed\xa0\x80\xe2\x84", out, sizeof out),
                         "\\xff\\xc0\\xaf\\xed\\xa0\\x80\\xe2\\x84");
        ck_assert_str_eq(xpu_escape_text("\xf4\x90\x80\x80", out, sizeof out), "\\xf4\\x90\\x80\\x80");
        /* format characters that change how a line reads: U+2028, U+202E, U+2066, U+FEFF, U+200B */
        ck_assert_str_eq(xpu_escape_text("a\xe2\x80\xa8" "b\xe2\x80\xae" "c\xe2\x81\xa6" "d\xef\xbb\xbf\xe2\x80\x8b", out,
                                         sizeof out),
                         "a\\xe2\\x80\\xa8b\\xe2\\x80\\xaec\\xe2\\x81\\xa6d\\xef\\xbb\\xbf\\xe2\\x80\\x8b");
        ck_assert(!xpu_str_is_text("Radeon\xe2\x80\xae"));
        /* their neighbours are text: U+2027, U+202F, U+2122 */
        ck_assert(xpu_str_is_text("\xe2\x80\xa7\xe2\x80\xaf\xe2\x84\xa2"));
        /* a literal backslash is doubled: "\x0a" typed in a value is not an escaped newline */
        ck_assert_str_eq(xpu_escape_text("a\\x0a\n", out, sizeof out), "a\\\\x0a\\x0a");
        ck_assert_uint_eq(xpu_utf8_printable_len("\xe2\x84\xa2"), 3);
        ck_assert_uint_eq(xpu_utf8_printable_len("\xe2\x84"), 0);
        ck_assert_uint_eq(xpu_utf8_printable_len(""), 0);
        /* cut at a whole escape or character, always terminated */
        ck_assert_str_eq(xpu_escape_text("ab\ncd", out, 6), "ab");
        ck_assert_str_eq(xpu_escape_text("a\xe2\x84\xa2", out, 4), "a");
        ck_assert_str_eq(xpu_escape_text("abc", out, 1), "");
}
END_TEST

static Suite *escape_suite(void) {
        Suite *s = suite_create("escape");
        TCase *tc = tcase_create("text");
        tcase_add_test(tc, test_utf8_text);
        tcase_add_test(tc, test_warning_escapes);
        tcase_add_test(tc, test_escape_text);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(escape_suite());
}
