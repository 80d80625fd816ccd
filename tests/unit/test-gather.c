/* SPDX-License-Identifier: Apache-2.0 */
/* gather: what the gathering step reads from a fixture host and container. The plan built from
 * those facts alone is test-planner.c's. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/strv.h"
#include "plan-fx.h"

#define LIBDIR "usr/lib/x86_64-linux-gnu"
#define VER "465.19.01"

static bool has_file(const struct xpu_driver_files *files, const char *name) {
        for (size_t i = 0; files && i < files->n; i++)
                if (strcmp(files->files[i].name, name) == 0)
                        return true;
        return false;
}

/* The facts, value by value: the needs, the nodes and their groups, the driver's version and
 * files, the file CDI gave, the image's loader and its forward-compatibility build. */
START_TEST(test_gather_values) {
        struct fx f;
        fx_rich(&f);
        const struct xpu_plan_options o = fx_options(&f, XPU_INJECT_AUTO, "utility,compute,ngz", workload);
        struct xpu_plan_facts *facts = NULL;
        char err[512] = "";
        ck_assert_msg(xpu_test_gather(f.inv, f.sel, fx_profile(&f), &o, &facts, err, sizeof err) == 0, "%s", err);

        const struct xpu_plan_needs *n = &facts->needs;
        ck_assert_int_eq(n->inject, XPU_INJECT_LINK); /* AUTO without CAP_SYS_ADMIN */
        ck_assert_uint_eq(n->n_capabilities, 2);
        ck_assert_str_eq(n->capabilities[0], "utility");
        ck_assert_str_eq(n->capabilities[1], "compute");
        ck_assert_uint_eq(n->n_ignored, 1);
        ck_assert_str_eq(n->ignored[0], "ngz");
        ck_assert(!n->no_capability);
        ck_assert(!n->void_request); /* void with the CDI mark: the devices CDI gave */
        ck_assert(n->files && n->names_files && n->names_libraries);
        ck_assert(!n->files32);

        const struct xpu_node_fact *node = xpu_plan_facts_node(facts, "/dev/nvidiactl");
        ck_assert_ptr_nonnull(node);
        ck_assert(node->found);
        ck_assert_uint_eq(node->gid, 44);
        node = xpu_plan_facts_node(facts, "/dev/nvidia7");
        ck_assert_ptr_nonnull(node);
        ck_assert(node->found);
        ck_assert_uint_eq(node->gid, 0);
        node = xpu_plan_facts_node(facts, "/dev/nvidia-modeset"); /* the profile's; not on this host */
        ck_assert_ptr_nonnull(node);
        ck_assert(!node->found);
        ck_assert_ptr_null(xpu_plan_facts_node(facts, "/dev/kfd"));
        /* 4 vendor-wide nodes of the profile, 8 GPUs */
        ck_assert_uint_eq(facts->n_nodes, 12);

        ck_assert_str_eq(facts->driver_version, VER);
        ck_assert(!facts->driver_version_from_libraries);
        ck_assert_int_eq(facts->files_error, 0);
        ck_assert_ptr_nonnull(facts->files);
        ck_assert_ptr_null(facts->files->refused);
        ck_assert(has_file(facts->files, "libnvidia-ml.so." VER));
        ck_assert(has_file(facts->files, "libcuda.so." VER));
        ck_assert(!has_file(facts->files, "libnvidia-compiler.so.460.73.01"));
        ck_assert_ptr_null(facts->files32);

        ck_assert_uint_eq(facts->n_given, 1);
        ck_assert_str_eq(facts->given[0].path, "/" LIBDIR "/libnvidia-ml.so." VER);
        ck_assert_str_eq(facts->given[0].soname, "libnvidia-ml.so.1");
        ck_assert(facts->given[0].link); /* the image has no ld.so.cache */

        ck_assert_int_eq(facts->host_files_error, 0);
        ck_assert_uint_eq(facts->host_files->n, 1);
        ck_assert_str_eq(facts->host_files->files[0].path, "/lib/firmware/nvidia/" VER "/gsp_tu10x.bin");
        ck_assert(!facts->host_file_present[0]);
        ck_assert(!facts->host_dir_has_entries[0]);

        ck_assert_str_eq(facts->ldconfig, "/sbin/ldconfig");
        ck_assert(facts->ld_so_conf);
        ck_assert_int_eq(facts->forward_compat, 1);
        ck_assert_str_eq(facts->forward_compat_version, "575.57.08");
        xpu_plan_facts_free(facts);
        fx_close(&f);
}
END_TEST

/* A kernel driver that reports no version: the libraries' names give it. */
START_TEST(test_gather_version_from_libraries) {
        struct fx f;
        fx_open(&f, "nvidia-rtx2080ti-x8", NULL, NULL);
        f.inv->vendors[XPU_VENDOR_NVIDIA].driver_version[0] = '\0';
        const struct xpu_plan_options o = fx_options(&f, XPU_INJECT_LINK, "utility", workload);
        struct xpu_plan_facts *facts = NULL;
        char err[512] = "";
        ck_assert_msg(xpu_test_gather(f.inv, f.sel, fx_profile(&f), &o, &facts, err, sizeof err) == 0, "%s", err);
        ck_assert(facts->driver_version_from_libraries);
        ck_assert_int_eq(facts->driver_version_error, 0);
        ck_assert_str_eq(facts->driver_version, VER);
        ck_assert(has_file(facts->files, "libnvidia-ml.so." VER));
        xpu_plan_facts_free(facts);
        fx_close(&f);
}
END_TEST

/* The cpu profile needs nothing: no node, no driver file, no look into the image. */
START_TEST(test_gather_cpu_needs_nothing) {
        struct fx f;
        fx_open(&f, "nvidia-rtx2080ti-x8", "none", NULL);
        const struct xpu_profile *pr = fx_profile(&f);
        ck_assert_str_eq(pr->name, "cpu");
        const struct xpu_plan_options o = fx_options(&f, XPU_INJECT_AUTO, NULL, workload);
        struct xpu_plan_facts *facts = NULL;
        char err[512] = "";
        ck_assert_msg(xpu_test_gather(f.inv, f.sel, pr, &o, &facts, err, sizeof err) == 0, "%s", err);
        ck_assert_uint_eq(facts->n_nodes, 0);
        ck_assert_uint_eq(facts->needs.n_capabilities, 0);
        ck_assert(!facts->needs.files);
        ck_assert_ptr_null(facts->files);
        ck_assert_ptr_null(facts->host_files);
        ck_assert_ptr_null(facts->ldconfig);
        ck_assert_int_eq(facts->forward_compat, 0);
        xpu_plan_facts_free(facts);
        fx_close(&f);
}
END_TEST


int main(void) {
        Suite *s = suite_create("gather");
        TCase *tc = tcase_create("gather");
        tcase_add_test(tc, test_gather_values);
        tcase_add_test(tc, test_gather_version_from_libraries);
        tcase_add_test(tc, test_gather_cpu_needs_nothing);
        suite_add_tcase(s, tc);
        return xpu_test_run(s);
}
