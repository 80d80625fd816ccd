/* SPDX-License-Identifier: Apache-2.0 */
/* entrypoint/require-start.c: a start's requirement expressions, parsed once (the user's, then the
 * image's NVIDIA_REQUIRE_* in environment order, the disable variable), and the rich sources their
 * checks need together with every profile's match.require. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "require-start.h"
#include "testlib.h"

#define NV XPU_VENDOR_NVIDIA
#define AMD XPU_VENDOR_AMD
#define NO_VENDOR _XPU_VENDOR_MAX

/* The sources of a start: its parsed expressions (the user's, the image's NVIDIA_REQUIRE_*) and
 * every profile's match.require. */
static uint32_t start_sources(const struct xpu_profile_set *set, const char *user, char **envp) {
        struct xpu_require_start s;
        ck_assert_int_eq(xpu_require_start_parse(user, envp, &s), 0);
        uint32_t r = xpu_require_start_sources(set, &s);
        xpu_require_start_done(&s);
        return r;
}

START_TEST(test_start_sources) {
        const uint32_t nvml = 1u << XPU_SOURCE_NVML, cuda = 1u << XPU_SOURCE_CUDA;
        static char path[] = "PATH=/bin", cuda_img[] = "NVIDIA_REQUIRE_CUDA=cuda>=12.4 brand=tesla,driver>=470",
                    cuda124[] = "NVIDIA_REQUIRE_CUDA=cuda>=12.4", off[] = "NVIDIA_DISABLE_REQUIRE=true",
                    jet[] = "NVIDIA_REQUIRE_JETPACK=csv-mounts=all", x[] = "NVIDIA_REQUIRE_X=driver>=1";
        char *plain[] = { path, NULL };
        char *image[] = { cuda_img, NULL };
        char *disabled[] = { cuda124, off, NULL };
        char *jetpack[] = { jet, x, NULL };
        ck_assert_uint_eq(start_sources(NULL, NULL, plain), 0);
        ck_assert_uint_eq(start_sources(NULL, "driver>=1", plain), 0);
        ck_assert_uint_eq(start_sources(NULL, "arch>=8.0", plain), nvml | cuda);
        ck_assert_uint_eq(start_sources(NULL, NULL, image), nvml | cuda);
        ck_assert_uint_eq(start_sources(NULL, NULL, disabled), 0);
        ck_assert_uint_eq(start_sources(NULL, "brand=tesla", disabled), nvml);
        ck_assert_uint_eq(start_sources(NULL, NULL, jetpack), 0);
        ck_assert_uint_eq(start_sources(NULL, "cuda>=x", plain), 0); /* its check reports it */
        ck_assert_uint_eq(xpu_require_start_sources(NULL, NULL), 0);

        struct xpu_require *p12_req = NULL;
        ck_assert_int_eq(xpu_require_parse("cuda>=12.0", &p12_req, NULL, 0), 0);
        struct xpu_profile p12 = { .require = p12_req }, plainp = { .require = NULL };
        struct xpu_profile *list[] = { &plainp, &p12 };
        struct xpu_profile_set set = { .profiles = list, .n = 2 };
        ck_assert_uint_eq(start_sources(&set, NULL, plain), nvml | cuda);
        set.n = 1;
        ck_assert_uint_eq(start_sources(&set, NULL, plain), 0);
        xpu_require_free(p12_req);
}
END_TEST

/* The start's expressions are parsed once: the user's first, then the image's variables of the
 * vendors that have them, in environment order; a parse error is kept for the check to report. */
START_TEST(test_start_parse) {
        static char a[] = "NVIDIA_REQUIRE_CUDA=cuda>=12.4 brand=tesla,driver>=470", b[] = "NVIDIA_REQUIRE_BAD=nvml>1",
                    jet[] = "NVIDIA_REQUIRE_JETPACK_HOST_MOUNTS=cuda>=1", noeq[] = "NVIDIA_REQUIRE_X", other[] = "XPU_REQUIRE=x",
                    maybe[] = "NVIDIA_DISABLE_REQUIRE=maybe", off[] = "NVIDIA_DISABLE_REQUIRE=1";
        char *env[] = { a, jet, noeq, other, b, maybe, NULL };
        struct xpu_require_start s;
        ck_assert_int_eq(xpu_require_start_parse("  driver>=1 ", env, &s), 0);
        ck_assert_uint_eq(s.n, 3);
        ck_assert_str_eq(s.exprs[0].name, "--require/XPU_REQUIRE");
        ck_assert_int_eq(s.exprs[0].vendor, NO_VENDOR);
        ck_assert_str_eq(xpu_require_to_string(s.exprs[0].req), "driver>=1");
        ck_assert_str_eq(s.exprs[1].name, "NVIDIA_REQUIRE_CUDA");
        ck_assert_int_eq(s.exprs[1].vendor, NV);
        ck_assert_int_eq(s.exprs[1].error, 0);
        ck_assert_str_eq(xpu_require_to_string(s.exprs[1].req), "cuda>=12.4 brand=tesla,driver>=470");
        ck_assert_str_eq(s.exprs[2].name, "NVIDIA_REQUIRE_BAD");
        ck_assert_int_eq(s.exprs[2].error, -EINVAL);
        ck_assert_ptr_null(s.exprs[2].req);
        ck_assert_str_eq(s.exprs[2].message, "requirement \"nvml>1\": unknown key \"nvml\"; expected one of vendor, "
                                              "driver, cuda, arch, brand, rocm, gfx, memory, l4t");
        ck_assert_str_eq(s.disable[NV], "maybe"); /* not a boolean: still checked (with a warning) */
        ck_assert_ptr_null(s.disable[AMD]);
        xpu_require_start_done(&s);
        ck_assert_uint_eq(s.n, 0);
        ck_assert_ptr_null(s.exprs);
        /* disabled: not parsed at all; no user expression */
        env[5] = off;
        ck_assert_int_eq(xpu_require_start_parse(NULL, env, &s), 0);
        ck_assert_uint_eq(s.n, 0);
        ck_assert_str_eq(s.disable[NV], "1");
        xpu_require_start_done(&s);
}
END_TEST

/* NVIDIA_REQUIRE_JETPACK is an image variable checked like the others (e.g. l4t>=36) unless it is
 * the toolkit's csv-mounts=all; NVIDIA_REQUIRE_JETPACK_* never is. */
START_TEST(test_jetpack) {
        static char jp[] = "NVIDIA_REQUIRE_JETPACK=l4t>=36", all[] = "NVIDIA_REQUIRE_JETPACK=csv-mounts=all",
                    mounts[] = "NVIDIA_REQUIRE_JETPACK_HOST_MOUNTS=";
        char *env[] = { jp, NULL }, *skipped[] = { all, mounts, NULL };
        struct xpu_require_start st;
        ck_assert_int_eq(xpu_require_start_parse(NULL, env, &st), 0);
        ck_assert_uint_eq(st.n, 1);
        ck_assert_str_eq(st.exprs[0].name, "NVIDIA_REQUIRE_JETPACK");
        ck_assert_str_eq(xpu_require_to_string(st.exprs[0].req), "l4t>=36");
        ck_assert_uint_eq(xpu_require_start_sources(NULL, &st), 0); /* the fast path knows it */
        xpu_require_start_done(&st);
        ck_assert_int_eq(xpu_require_start_parse(NULL, skipped, &st), 0);
        ck_assert_uint_eq(st.n, 0);
        xpu_require_start_done(&st);
}
END_TEST

static Suite *require_start_suite(void) {
        Suite *s = suite_create("require-start");
        TCase *tc = tcase_create("require-start");
        tcase_add_test(tc, test_start_sources);
        tcase_add_test(tc, test_start_parse);
        tcase_add_test(tc, test_jetpack);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(require_start_suite());
}
