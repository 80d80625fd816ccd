/* SPDX-License-Identifier: Apache-2.0 */
/* Built-in profiles: the static data packaging/profile-cgen compiled into the binary. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin-profiles.h"
#include "profile.h"
#include "testlib.h"

/* The compiled built-ins (packaging/profile-cgen) must equal what the parser makes of their
 * JSON files today: a field the generator forgot would show here. */
static void eq_str(const char *a, const char *b, const char *what) {
        ck_assert_msg((a == NULL) == (b == NULL) && (!a || strcmp(a, b) == 0), "%s differs", what);
}

static void eq_strv(char *const *a, size_t na, char *const *b, size_t nb, const char *what) {
        ck_assert_msg(na == nb, "%s: %zu vs %zu entries", what, na, nb);
        for (size_t i = 0; i < na; i++)
                eq_str(a[i], b[i], what);
}

static void eq_capfiles(const struct xpu_capability_files *a, size_t na, const struct xpu_capability_files *b,
                        size_t nb, const char *what) {
        ck_assert_msg(na == nb, "%s: %zu vs %zu", what, na, nb);
        for (size_t i = 0; i < na; i++) {
                eq_str(a[i].capability, b[i].capability, what);
                eq_strv(a[i].names, a[i].n_names, b[i].names, b[i].n_names, what);
        }
}

START_TEST(test_builtins_match_json) {
        size_t n = 0;
        for (; xpu_builtin_profiles[n]; n++) {
                const struct xpu_profile *b = xpu_builtin_profiles[n];
                char path[4096];
                snprintf(path, sizeof path, "%s/profiles/%s.json", XPU_SRCDIR, b->name);
                FILE *f = fopen(path, "re");
                ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
                char *text = calloc(1, 1 << 20);
                ck_assert_ptr_nonnull(text);
                size_t len = fread(text, 1, (1 << 20) - 1, f);
                fclose(f);
                text[len] = '\0';
                char origin[256], err[512] = "";
                snprintf(origin, sizeof origin, "built-in %s.json", b->name);
                struct xpu_profile *p = NULL;
                ck_assert_msg(xpu_profile_parse(text, origin, &p, err, sizeof err) == 0, "%s", err);
                ck_assert(b->builtin);
                eq_str(p->name, b->name, "name");
                eq_str(p->description, b->description, "description");
                eq_str(p->origin, b->origin, "origin");
                ck_assert_int_eq(p->priority, b->priority);
                ck_assert_int_eq(p->match_any, b->match_any);
                if (!p->match_any)
                        ck_assert_int_eq(p->vendor, b->vendor);
                ck_assert_uint_eq(p->min_devices, b->min_devices);
                eq_str(p->require, b->require, "require");
                eq_strv(p->capabilities, p->n_capabilities, b->capabilities, b->n_capabilities, "capabilities");
                eq_capfiles(p->libraries, p->n_libraries, b->libraries, b->n_libraries, "libraries");
                eq_capfiles(p->binaries, p->n_binaries, b->binaries, b->n_binaries, "binaries");
                eq_strv(p->device_nodes, p->n_device_nodes, b->device_nodes, b->n_device_nodes, "device_nodes");
                ck_assert_uint_eq(p->n_env, b->n_env);
                for (size_t i = 0; i < p->n_env; i++) {
                        ck_assert_int_eq(p->env[i].op, b->env[i].op);
                        eq_str(p->env[i].name, b->env[i].name, "env name");
                        eq_str(p->env[i].value, b->env[i].value, "env value");
                }
                ck_assert_int_eq(p->command_mode, b->command_mode);
                eq_strv(p->command, p->n_command, b->command, b->n_command, "command");
                eq_strv(p->keep_capabilities, p->n_keep_capabilities, b->keep_capabilities, b->n_keep_capabilities,
                        "keep_capabilities");
                eq_str(p->seccomp, b->seccomp, "seccomp");
                xpu_profile_free(p);
                free(text);
                /* Static data: freeing a built-in is a no-op, never a crash. */
                ck_assert_ptr_null(xpu_profile_free(xpu_builtin_profiles[n]));
        }
        ck_assert_uint_eq(n, 4);
}
END_TEST

static Suite *builtin_suite(void) {
        Suite *s = suite_create("builtin-profiles");
        TCase *tc = tcase_create("builtin");
        tcase_add_test(tc, test_builtins_match_json);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(builtin_suite());
}
