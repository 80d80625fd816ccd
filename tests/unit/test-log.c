/* SPDX-License-Identifier: Apache-2.0 */
/* probes/base/log.c: one escaping on stderr, whether the text is raw (xpu_log) or escaped
 * already (xpu_log_escaped: an inventory warning, a CSV line's error). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "probe.h"
#include "testlib.h"

/* What LOG (called with ARG) writes to stderr, into OUT. */
static void captured(void (*log)(const char *arg), const char *arg, char *out, size_t size) {
        FILE *f = tmpfile();
        ck_assert_ptr_nonnull(f);
        int saved = dup(STDERR_FILENO);
        ck_assert_int_ge(saved, 0);
        ck_assert_int_ge(dup2(fileno(f), STDERR_FILENO), 0);
        log(arg);
        ck_assert_int_ge(dup2(saved, STDERR_FILENO), 0);
        close(saved);
        rewind(f);
        size_t n = fread(out, 1, size - 1, f);
        out[n] = '\0';
        fclose(f);
}

static void raw(const char *arg) {
        log_warning("%s", arg);
}

static void escaped(const char *arg) {
        xpu_log_escaped(XPU_LOG_WARNING, arg);
}

/* A newline in a file's text shows as "\x0a" once, however the warning went: straight to the log
 * or kept in the inventory first (escaped there for JSON, and not again on stderr). */
START_TEST(test_one_escaping) {
        xpu_log_set_program("xpuinit");
        char out[512];
        captured(raw, "name \"a\nb\"", out, sizeof out);
        ck_assert_str_eq(out, "xpuinit: warning: name \"a\\x0ab\"\n");
        struct xpu_inventory *inv = xpu_inventory_new();
        ck_assert_ptr_nonnull(inv);
        ck_assert_int_eq(xpu_inventory_warn(inv, "name \"%s\"", "a\nb\\c"), 0);
        ck_assert_str_eq(inv->warnings[0], "name \"a\\x0ab\\\\c\"");
        captured(escaped, inv->warnings[0], out, sizeof out);
        ck_assert_str_eq(out, "xpuinit: warning: name \"a\\x0ab\\\\c\"\n");
        xpu_inventory_free(inv);
        /* a control byte left in escaped text is still escaped, its backslash not doubled */
        captured(escaped, "x\x1b[2Jy \\x0a", out, sizeof out);
        ck_assert_str_eq(out, "xpuinit: warning: x\\x1b[2Jy \\x0a\n");
        /* below the level: nothing */
        xpu_log_set_level(XPU_LOG_ERROR);
        captured(escaped, "quiet", out, sizeof out);
        ck_assert_str_eq(out, "");
        xpu_log_set_level(XPU_LOG_WARNING);
}
END_TEST

static Suite *log_suite(void) {
        Suite *s = suite_create("log");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_one_escaping);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(log_suite());
}
