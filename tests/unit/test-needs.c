/* SPDX-License-Identifier: Apache-2.0 */
/* entrypoint/needs.c: what a start needs, decided before gather from the built-in profiles, a
 * selection and the options alone: the mode in effect, the capabilities in effect and the words
 * ignored, whether driver files are looked for, and the rich sources forward_compat.require names. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "needs.h"
#include "testlib.h"

static struct xpu_profile_set *builtins(void) {
        struct xpu_profile_set *set = NULL;
        char err[512] = "";
        ck_assert_msg(xpu_profile_set_load(NULL, &set, err, sizeof err) == 0, "%s", err);
        return set;
}

static const struct xpu_profile *profile(const struct xpu_profile_set *set, const char *name) {
        const struct xpu_profile *pr = xpu_profile_set_find(set, name);
        ck_assert_ptr_nonnull(pr);
        return pr;
}

START_TEST(test_nvidia_needs) {
        struct xpu_profile_set *set = builtins();
        const struct xpu_profile *pr = profile(set, "nvidia-cuda");
        struct xpu_selection sel = { .n = 0 };
        struct xpu_plan_options o = {
                .inject = XPU_INJECT_AUTO, .can_mount = false, .capabilities_env = "utility, compute,ngz"
        };
        struct xpu_plan_needs n;
        ck_assert_int_eq(xpu_plan_needs(&sel, pr, &o, &n), 0);
        ck_assert_int_eq(n.inject, XPU_INJECT_LINK); /* AUTO without CAP_SYS_ADMIN */
        ck_assert_uint_eq(n.n_capabilities, 2);
        ck_assert_str_eq(n.capabilities[0], "utility");
        ck_assert_str_eq(n.capabilities[1], "compute");
        ck_assert_uint_eq(n.n_ignored, 1);
        ck_assert_str_eq(n.ignored[0], "ngz");
        ck_assert(n.names_files && n.names_libraries && n.files && !n.files32 && !n.void_request);
        /* forward_compat.require "brand=tesla brand=nvidia": NVML's brand, read only for a newer build */
        ck_assert_uint_eq(n.forward_compat_sources, 1u << XPU_SOURCE_NVML);
        xpu_plan_needs_done(&n);
        ck_assert_ptr_null(n.capabilities);

        /* With CAP_SYS_ADMIN: mount; the profile's default capabilities when the variable is blank. */
        o.can_mount = true;
        o.capabilities_env = "  ";
        ck_assert_int_eq(xpu_plan_needs(&sel, pr, &o, &n), 0);
        ck_assert_int_eq(n.inject, XPU_INJECT_MOUNT);
        ck_assert_uint_eq(n.n_capabilities, pr->n_capabilities);
        ck_assert_uint_eq(n.n_ignored, 0);
        xpu_plan_needs_done(&n);

        /* none: nothing looked for; void: no driver files; ",,,": names no capability. */
        o.inject = XPU_INJECT_NONE;
        ck_assert_int_eq(xpu_plan_needs(&sel, pr, &o, &n), 0);
        ck_assert(!n.files);
        xpu_plan_needs_done(&n);
        o.inject = XPU_INJECT_LINK;
        sel.request[XPU_VENDOR_NVIDIA] = XPU_REQUEST_VOID;
        ck_assert_int_eq(xpu_plan_needs(&sel, pr, &o, &n), 0);
        ck_assert(n.void_request && !n.files);
        xpu_plan_needs_done(&n);
        sel.request[XPU_VENDOR_NVIDIA] = XPU_REQUEST_DEFAULT;
        o.capabilities_env = ",,,";
        ck_assert_int_eq(xpu_plan_needs(&sel, pr, &o, &n), 0);
        ck_assert(n.no_capability && !n.files);
        xpu_plan_needs_done(&n);
        xpu_profile_set_free(set);
}
END_TEST

START_TEST(test_no_forward_compat) {
        struct xpu_profile_set *set = builtins();
        struct xpu_selection sel = { .n = 0 };
        const struct xpu_plan_options o = { .inject = XPU_INJECT_LINK, .capabilities_env = "all" };
        struct xpu_plan_needs n;
        /* No vendor (cpu) and no forward compatibility (amd-rocm): no rich source, no files. */
        const char *names[] = { "cpu", "amd-rocm" };
        for (size_t i = 0; i < 2; i++) {
                ck_assert_int_eq(xpu_plan_needs(&sel, profile(set, names[i]), &o, &n), 0);
                ck_assert_uint_eq(n.forward_compat_sources, 0);
                ck_assert_uint_eq(n.n_capabilities, 0); /* it injects no files: capabilities mean nothing */
                ck_assert(!n.files);
                xpu_plan_needs_done(&n);
        }
        xpu_profile_set_free(set);
}
END_TEST

static Suite *needs_suite(void) {
        Suite *s = suite_create("needs");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_nvidia_needs);
        tcase_add_test(tc, test_no_forward_compat);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(needs_suite());
}
