/* SPDX-License-Identifier: Apache-2.0 */
/* probes/devcode/find.c: the 4-byte search against a plain one, at every offset and length up to
 * a few vector steps, on bytes of the needle only (partial matches everywhere). */
#include <string.h>

#include "devcode/find.h"
#include "testlib.h"

static const uint8_t magic[4] = { 0x50, 0xed, 0x55, 0xba };

static uint32_t rnd_state = 12345;
static uint32_t rnd(void) {
        rnd_state = rnd_state * 1103515245u + 12345u;
        return rnd_state >> 8;
}

static const uint8_t *naive_find4(const uint8_t *b, size_t len, const uint8_t n[4]) {
        for (size_t i = 0; i + 4 <= len; i++)
                if (memcmp(b + i, n, 4) == 0)
                        return b + i;
        return NULL;
}

START_TEST(test_find4) {
        uint8_t b[300];
        for (size_t len = 0; len <= sizeof b; len++) {
                /* Bytes of the needle only, so partial matches are everywhere. */
                for (size_t i = 0; i < len; i++)
                        b[i] = magic[rnd() % 4];
                for (size_t at = 0; at + 4 <= len; at++) {
                        uint8_t c[sizeof b];
                        memcpy(c, b, len);
                        for (size_t i = 0; i + 4 <= len; i++) /* no other match */
                                if (memcmp(c + i, magic, 4) == 0)
                                        c[i] = 0;
                        ck_assert_ptr_null(xpu_find4(c, len, magic));
                        memcpy(c + at, magic, 4);
                        ck_assert_ptr_eq(xpu_find4(c, len, magic), naive_find4(c, len, magic));
                        ck_assert_ptr_eq(xpu_find4(c + 1, len - 1, magic), naive_find4(c + 1, len - 1, magic));
                }
        }
}
END_TEST

static Suite *find_suite(void) {
        Suite *s = suite_create("devcode-find");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_find4);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(find_suite());
}
