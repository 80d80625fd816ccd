/* SPDX-License-Identifier: Apache-2.0 */
/* Built-in profiles: the static data packaging/profile-cgen compiled into the binary. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin-profiles.h"
#include "nvidia/nvidia-facts.h"
#include "profile.h"
#include "require.h"
#include "testlib.h"

/* The compiled built-ins (packaging/profile-cgen) must equal what the parser makes of their
 * JSON files today: a field the generator forgot would show here. */
static void eq_str(const char *a, const char *b, const char *what) {
        ck_assert_msg((a == NULL) == (b == NULL) && (!a || strcmp(a, b) == 0), "%s differs", what);
}

/* The compiled requirement is the parser's, factor by factor. */
static void eq_require(const struct xpu_require *a, const struct xpu_require *b, const char *what) {
        ck_assert_msg((a == NULL) == (b == NULL), "%s: present in one only", what);
        if (!a)
                return;
        eq_str(xpu_require_to_string(a), xpu_require_to_string(b), what);
        ck_assert_msg(a->n_terms == b->n_terms && a->n_factors == b->n_factors, "%s: terms or factors differ", what);
        for (size_t t = 0; t < a->n_terms; t++)
                ck_assert_msg(a->terms[t].first == b->terms[t].first && a->terms[t].n == b->terms[t].n,
                              "%s: term %zu differs", what, t);
        for (size_t i = 0; i < a->n_factors; i++) {
                const struct factor *x = &a->factors[i], *y = &b->factors[i];
                ck_assert_msg(x->key == y->key && x->op == y->op && x->bytes == y->bytes, "%s: factor %zu differs",
                              what, i);
                eq_str(x->value, y->value, what);
                eq_str(x->text, y->text, what);
        }
        ck_assert_uint_eq(xpu_require_sources(a), xpu_require_sources(b));
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
                eq_require(p->require, b->require, "match.require");
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
                eq_str(p->forward_compat_dir, b->forward_compat_dir, "forward_compat.dir");
                eq_str(p->forward_compat_library, b->forward_compat_library, "forward_compat.library");
                eq_require(p->forward_compat_require, b->forward_compat_require, "forward_compat.require");
                xpu_profile_free(p);
                free(text);
                /* Static data: freeing a built-in is a no-op, never a crash. */
                ck_assert_ptr_null(xpu_profile_free(xpu_builtin_profiles[n]));
        }
        ck_assert_uint_eq(n, 4);
}
END_TEST

/* A compiled requirement is checked as a parsed one: nvidia-cuda's forward_compat.require. */
START_TEST(test_builtin_require_checks) {
        const struct xpu_profile *cuda = NULL;
        for (size_t i = 0; xpu_builtin_profiles[i]; i++)
                if (strcmp(xpu_builtin_profiles[i]->name, "nvidia-cuda") == 0)
                        cuda = xpu_builtin_profiles[i];
        ck_assert_ptr_nonnull(cuda);
        ck_assert_str_eq(xpu_require_to_string(cuda->forward_compat_require), "brand=tesla brand=nvidia");
        ck_assert_uint_eq(xpu_require_sources(cuda->forward_compat_require), 1u << XPU_SOURCE_NVML);
        struct xpu_inventory *inv = xpu_inventory_new();
        ck_assert_ptr_nonnull(inv);
        struct xpu_device d = { .vendor = cuda->vendor };
        snprintf(xpu_nvidia_facts(&d)->brand, sizeof xpu_nvidia_facts(&d)->brand, "Tesla");
        ck_assert_ptr_nonnull(xpu_inventory_add_device(inv, &d));
        const bool all[1] = { true };
        char why[512];
        const struct xpu_require *req = cuda->forward_compat_require;
        ck_assert_int_eq(xpu_require_check_selected(req, inv, all, cuda->vendor, why, sizeof why), 1);
        ck_assert_str_eq(why, "requirement \"brand=tesla brand=nvidia\" met");
        snprintf(xpu_nvidia_facts(&inv->devices[0])->brand, sizeof xpu_nvidia_facts(&inv->devices[0])->brand, "geforce");
        ck_assert_int_eq(xpu_require_check_selected(req, inv, all, cuda->vendor, why, sizeof why), 0);
        xpu_inventory_free(inv);
}
END_TEST

static Suite *builtin_suite(void) {
        Suite *s = suite_create("profile-set");
        TCase *tc = tcase_create("builtin");
        tcase_add_test(tc, test_builtins_match_json);
        tcase_add_test(tc, test_builtin_require_checks);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(builtin_suite());
}
