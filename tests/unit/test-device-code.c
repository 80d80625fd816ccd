/* SPDX-License-Identifier: Apache-2.0 */
/* entrypoint/device-code.c: the start-time device-code check's facts, read before gather
 * (xpu_device_code_read), and the verdict judged before the plan (device-code-verdict.c) that the
 * planner records in the plan: the mode's precedence, no index, a bad index, `plan`'s wording. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device-code.h"
#include "plan-fx.h"
#include "testlib.h"

/* Read the check's facts for F (setting MODE, given in the environment when MODE_SET, index
 * INDEX), then build the plan with them (SHOW: as `plan` does). */
static struct xpu_plan *plan_with_check(struct fx *f, enum xpu_device_code_mode mode, bool mode_set,
                                        const char *index, bool show, struct xpu_device_code_facts *dc) {
        const struct xpu_device_code_setting s = { .mode = mode, .mode_set = mode_set, .index = index };
        ck_assert_int_eq(xpu_device_code_read(&s, fx_profile(f), f->inv, f->sel, dc), 0);
        struct xpu_plan_options o = fx_options(f, XPU_INJECT_LINK, NULL, workload);
        struct xpu_plan *p = NULL;
        char err[1024] = "";
        ck_assert_msg(xpu_test_plan_checked(f->inv, f->sel, fx_profile(f), &o, dc, show, &p, err, sizeof err) == 0,
                      "%s", err);
        return p;
}

static char *write_file(const char *dir, const char *name, const char *content) {
        char *path = NULL;
        ck_assert_int_ge(asprintf(&path, "%s/%s", dir, name), 0);
        FILE *fp = fopen(path, "w");
        ck_assert_ptr_nonnull(fp);
        ck_assert_int_ge(fputs(content, fp), 0);
        ck_assert_int_eq(fclose(fp), 0);
        return path;
}

START_TEST(test_mode_precedence) {
        struct fx f;
        fx_open(&f, "nvidia-rtx2080ti-x8", NULL, NULL);
        const struct xpu_profile *pr = fx_profile(&f);
        struct xpu_device_code_facts dc;
        /* XPUINIT_DEVICE_CODE given: it wins over the profile. */
        const struct xpu_device_code_setting warn = { .mode = XPU_DEVICE_CODE_WARN, .mode_set = true, .index = "/none" };
        ck_assert_int_eq(xpu_device_code_read(&warn, pr, f.inv, f.sel, &dc), 0);
        ck_assert_int_eq(dc.mode, XPU_DEVICE_CODE_WARN);
        ck_assert(dc.judged);
        xpu_device_code_facts_done(&dc);
        /* Not given: the profile's, else enforce. */
        const struct xpu_device_code_setting unset = { .mode = XPU_DEVICE_CODE_OFF, .mode_set = false, .index = "/none" };
        ck_assert_int_eq(xpu_device_code_read(&unset, pr, f.inv, f.sel, &dc), 0);
        ck_assert_int_eq(dc.mode, pr->device_code_set ? pr->device_code : XPU_DEVICE_CODE_ENFORCE);
        xpu_device_code_facts_done(&dc);
        /* Off: nothing is read or judged. */
        const struct xpu_device_code_setting off = { .mode = XPU_DEVICE_CODE_OFF, .mode_set = true, .index = "/none" };
        ck_assert_int_eq(xpu_device_code_read(&off, pr, f.inv, f.sel, &dc), 0);
        ck_assert(!dc.judged);
        ck_assert_int_eq(dc.error, 0);
        ck_assert_uint_eq(dc.rich_sources, 0);
        xpu_device_code_facts_done(&dc);
        fx_close(&f);
}
END_TEST

START_TEST(test_no_devices_not_judged) {
        struct fx f;
        fx_open(&f, "nvidia-rtx2080ti-x8", "none", NULL);
        struct xpu_device_code_facts dc;
        struct xpu_plan *p = plan_with_check(&f, XPU_DEVICE_CODE_ENFORCE, true, "/nonexistent/index.json", false, &dc);
        ck_assert(!dc.judged);
        ck_assert_ptr_null(p->device_code);
        ck_assert_ptr_null(p->device_code_verdict);
        ck_assert(!p->device_code_refuse);
        xpu_plan_free(p);
        xpu_device_code_facts_done(&dc);
        fx_close(&f);
}
END_TEST

START_TEST(test_no_index) {
        struct fx f;
        fx_open(&f, "nvidia-rtx2080ti-x8", NULL, NULL);
        char *dir = xpu_test_mkdtemp();
        char *index = NULL;
        ck_assert_int_ge(asprintf(&index, "%s/device-code.json", dir), 0);
        struct xpu_device_code_facts dc;
        struct xpu_plan *p = plan_with_check(&f, XPU_DEVICE_CODE_ENFORCE, true, index, false, &dc);
        ck_assert(dc.judged);
        ck_assert_int_eq(dc.error, -ENOENT);
        ck_assert_uint_eq(dc.rich_sources, 0); /* no index: no vendor library for the check */
        ck_assert_ptr_nonnull(p->device_code);
        ck_assert_msg(strstr(p->device_code, "no device-code index at ") && strstr(p->device_code, index) &&
                              strstr(p->device_code, "xpuinit audit --write-index"),
                      "%s", p->device_code);
        ck_assert_int_eq(p->device_code_log, XPU_DEVICE_CODE_LOG_INFO);
        ck_assert(!p->device_code_refuse); /* no index is no refusal, even under enforce */
        ck_assert_ptr_null(p->device_code_verdict);
        xpu_plan_free(p);
        xpu_device_code_facts_done(&dc);
        free(index);
        xpu_test_rm_rf(dir);
        free(dir);
        fx_close(&f);
}
END_TEST

START_TEST(test_bad_index) {
        struct fx f;
        fx_open(&f, "nvidia-rtx2080ti-x8", NULL, NULL);
        char *dir = xpu_test_mkdtemp();
        char *index = write_file(dir, "device-code.json", "{ not json");
        struct xpu_device_code_facts dc;

        /* A start under enforce: refused, one error line naming the way out. */
        struct xpu_plan *p = plan_with_check(&f, XPU_DEVICE_CODE_ENFORCE, true, index, false, &dc);
        ck_assert_int_lt(dc.error, 0);
        ck_assert_int_ne(dc.error, -ENOENT);
        ck_assert_msg(strstr(dc.err, index), "%s", dc.err);
        ck_assert(p->device_code_refuse);
        ck_assert_int_eq(p->device_code_log, XPU_DEVICE_CODE_LOG_ERROR);
        ck_assert_msg(strstr(p->device_code, "(or set XPUINIT_DEVICE_CODE=off to start without the check)"), "%s",
                      p->device_code);
        xpu_plan_free(p);
        xpu_device_code_facts_done(&dc);

        /* `plan` under enforce: what a start would do, nothing refused, nothing logged. */
        p = plan_with_check(&f, XPU_DEVICE_CODE_ENFORCE, true, index, true, &dc);
        ck_assert(!p->device_code_refuse);
        ck_assert_int_eq(p->device_code_log, XPU_DEVICE_CODE_LOG_NONE);
        ck_assert_msg(strncmp(p->device_code, "a start exits 125: ", 19) == 0, "%s", p->device_code);
        xpu_plan_free(p);
        xpu_device_code_facts_done(&dc);

        /* A start under warn: a warning, the start goes on. */
        p = plan_with_check(&f, XPU_DEVICE_CODE_WARN, true, index, false, &dc);
        ck_assert(!p->device_code_refuse);
        ck_assert_int_eq(p->device_code_log, XPU_DEVICE_CODE_LOG_WARNING);
        ck_assert_str_eq(p->device_code, dc.err);
        xpu_plan_free(p);
        xpu_device_code_facts_done(&dc);

        free(index);
        xpu_test_rm_rf(dir);
        free(dir);
        fx_close(&f);
}
END_TEST

START_TEST(test_no_check_without_facts) {
        /* inject --rootfs builds without the check's facts: the plan says nothing about device code. */
        struct fx f;
        fx_open(&f, "nvidia-rtx2080ti-x8", NULL, NULL);
        struct xpu_plan *p = NULL;
        char err[1024] = "";
        ck_assert_msg(fx_plan(&f, XPU_INJECT_LINK, NULL, workload, &p, err, sizeof err) == 0, "%s", err);
        ck_assert_ptr_null(p->device_code);
        ck_assert_ptr_null(p->device_code_verdict);
        ck_assert(!p->device_code_refuse);
        xpu_plan_free(p);
        fx_close(&f);
}
END_TEST

/* The rich path is asked for only by what the descriptors say needs it: device code of a vendor
 * whose GPUs' targets come from rich sources (NVIDIA's compute capability), or a CUDA runtime (the
 * CUDA driver version); AMD device code is judged on KFD's gfx target, from the fast path. */
START_TEST(test_needs_rich_facts) {
        char target[] = "gfx90a", *gfx[] = { target, NULL };
        struct xpu_object o[3] = { { .kind = XPU_OBJECT_ELF } };
        ck_assert(!xpu_device_code_needs_rich_facts(o, 0));
        ck_assert(!xpu_device_code_needs_rich_facts(o, 1)); /* no device code */
        o[1].amd_gfx = gfx;
        ck_assert(!xpu_device_code_needs_rich_facts(o, 2));
        o[2].n_nv_code = 1;
        ck_assert(xpu_device_code_needs_rich_facts(o, 3));
        o[2].n_nv_code = 0;
        o[0].cudart_major = 12;
        ck_assert(xpu_device_code_needs_rich_facts(o, 3));
}
END_TEST

int main(void) {
        Suite *s = suite_create("device-code");
        TCase *tc = tcase_create("device-code");
        tcase_add_test(tc, test_mode_precedence);
        tcase_add_test(tc, test_no_devices_not_judged);
        tcase_add_test(tc, test_no_index);
        tcase_add_test(tc, test_bad_index);
        tcase_add_test(tc, test_no_check_without_facts);
        tcase_add_test(tc, test_needs_rich_facts);
        suite_add_tcase(s, tc);
        return xpu_test_run(s);
}
