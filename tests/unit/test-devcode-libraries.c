/* SPDX-License-Identifier: Apache-2.0 */
/* probes/devcode/libraries.c: the table of the vendors' device-code libraries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strv.h"
#include "devcode/libraries.h"
#include "devcode/object.h"
#include "testlib.h"

START_TEST(test_library_table) {
        const struct xpu_vendor_library *l = xpu_vendor_library_find("libcublasLt.so.13");
        ck_assert_ptr_nonnull(l);
        ck_assert_str_eq(l->name, "libcublasLt");
        ck_assert_int_eq(l->layer, XPU_LAYER_BLAS);
        ck_assert_int_eq(xpu_vendor_library_find("libcublas.so.13")->layer, XPU_LAYER_BLAS);
        ck_assert_int_eq(xpu_vendor_library_find("libcudnn_engines_precompiled.so.9")->layer, XPU_LAYER_DNN);
        ck_assert_int_eq(xpu_vendor_library_find("libnccl.so.2")->layer, XPU_LAYER_COLLECTIVES);
        ck_assert_int_eq(xpu_vendor_library_find("librocsparse.so.0")->vendor, XPU_CODE_VENDOR_AMD);
        ck_assert_int_eq(xpu_vendor_library_find("librocsparse.so.0")->layer, XPU_LAYER_SPARSE);
        ck_assert_int_eq(xpu_vendor_library_find("libamdhip64.so.5")->layer, XPU_LAYER_RUNTIME);
        ck_assert_int_eq(xpu_vendor_library_find("libnvrtc-builtins.so.13.0")->layer, XPU_LAYER_JIT);
        ck_assert(xpu_vendor_library_find("libcuda.so.1")->driver);
        ck_assert(!xpu_vendor_library_find("libcudart.so.13")->driver);
        ck_assert_ptr_null(xpu_vendor_library_find("libcudaxyz.so.1")); /* no family prefix */
        ck_assert_ptr_null(xpu_vendor_library_find("libc.so.6"));
        ck_assert_ptr_null(xpu_vendor_library_find("libcublas")); /* not a shared object name */
        ck_assert_ptr_null(xpu_vendor_library_find(NULL));
        ck_assert_uint_eq(xpu_cudart_major("libcudart.so.13"), 13);
        ck_assert_uint_eq(xpu_cudart_major("libcudart.so.12.4.127"), 12);
        ck_assert_uint_eq(xpu_cudart_major("libcudart.so"), 0);
        ck_assert_uint_eq(xpu_cudart_major("libcudart.so.x"), 0);
        /* Report order: SM numbers and processor versions, not bytes. */
        char a[] = "sm_100", b[] = "sm_90a", c[] = "gfx1030", d[] = "gfx90a:xnack-", e[] = "gfx803", f[] = "gfx11-generic";
        char *v[] = { a, b, c, d, e, f };
        qsort(v, 2, sizeof v[0], xpu_code_name_cmp);
        ck_assert_str_eq(v[0], "sm_90a");
        qsort(v + 2, 4, sizeof v[0], xpu_code_name_cmp);
        ck_assert_str_eq(v[2], "gfx803");
        ck_assert_str_eq(v[3], "gfx90a:xnack-");
        ck_assert_str_eq(v[4], "gfx1030");
        ck_assert_str_eq(v[5], "gfx11-generic");
        ck_assert_str_eq(xpu_layer_name(XPU_LAYER_FFT_RAND_SOLVER), "fft-rand-solver");
        ck_assert_str_eq(xpu_code_vendor_name(XPU_CODE_VENDOR_NVIDIA | XPU_CODE_VENDOR_AMD), "nvidia+amd");
        ck_assert_ptr_null(xpu_code_vendor_name(0));
}
END_TEST

int main(void) {
        Suite *s = suite_create("devcode-libraries");
        TCase *tc = tcase_create("core");
        tcase_set_timeout(tc, 30);
        tcase_add_test(tc, test_library_table);
        suite_add_tcase(s, tc);
        return xpu_test_run(s);
}
