/* SPDX-License-Identifier: Apache-2.0 */
/* probes/base/helper-job: the frame the vendor-library readers share. The refusals of both
 * sides (no version to check a library against, bad arguments), the helper-side string cleaning
 * and the parent-side parsers of the "library" and "devices_total" lines. The whole frame with a
 * real helper and fake libraries runs in test-nvidia-nvml.c, test-nvidia-cuda.c and test-amd-rocm-smi.c. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/path.h"
#include "sandbox/helper-job.h"
#include "testlib.h"

static int never_called(void *job, int out_fd) {
        (void)job;
        (void)out_fd;
        abort();
}

/* The parent refuses before any helper runs. */
START_TEST(test_run_refusals) {
        struct xpu_helper_job job;
        char *reply = NULL, err[256] = "";
        int fd = xpu_open_root("/");
        ck_assert_int_ge(fd, 0);
        static const char *const bad[] = { "", "x", "550", "550.90.", ".550.90", "550.9a.07" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                ck_assert_int_eq(xpu_helper_job_run(never_called, &job, "T", 1000, fd, bad[i], &reply, err, sizeof err),
                                 -ENODATA);
                ck_assert_str_eq(err, "no driver version to check the library against");
        }
        ck_assert_int_eq(xpu_helper_job_run(never_called, &job, "T", 1000, fd,
                                            "1.2.3.4.5.6.7.8.9.10.11.12.13.14.15.16.17.18.19.20.21.22.23.24.25.26", &reply,
                                            err, sizeof err),
                         -EINVAL);
        ck_assert_str_eq(err, "driver version too long");
        ck_assert_int_eq(xpu_helper_job_run(never_called, &job, "T", 1000, -1, NULL, &reply, err, sizeof err), -EINVAL);
        ck_assert_str_eq(err, "invalid arguments");
        ck_assert_int_eq(xpu_helper_job_run(never_called, &job, "T", 1000, fd, NULL, NULL, err, sizeof err), -EINVAL);
        ck_assert_int_eq(xpu_helper_job_run(never_called, &job, "T", 1000, fd, NULL, NULL, NULL, 0), -EINVAL);
        ck_assert_ptr_null(reply);
        close(fd);
}
END_TEST

/* The helper never loads unchecked: a job that asks for the version check without a version is
 * refused in the helper too, with an error reply, before the library is even looked for. */
START_TEST(test_load_refuses_unchecked) {
        static struct xpu_reply r;
        static const char *const sonames[] = { "libnvidia-ml.so.1", NULL };
        struct xpu_helper_job job;
        char err[256], loaded[PATH_MAX], buf[512];
        void *handle = NULL;
        int pipefd[2], status = -1;
        int fd = xpu_open_root("/");
        ck_assert_int_ge(fd, 0);
        memset(&job, 0, sizeof job);
        ck_assert_int_eq(xpu_root_ref_init(&job.root, fd, err, sizeof err), 0);
        job.check_version = true;
        ck_assert_int_eq(pipe(pipefd), 0);
        ck_assert_int_eq(xpu_helper_job_load(&job, sonames, NULL, NULL, 0, &handle, loaded, &r, pipefd[1], &status),
                         -ENODATA);
        ck_assert_int_eq(status, 0); /* the error reply was written */
        ck_assert_ptr_null(handle);
        close(pipefd[1]);
        ssize_t n = read(pipefd[0], buf, sizeof buf - 1);
        ck_assert_int_gt(n, 0);
        buf[n] = '\0';
        ck_assert_str_eq(buf, "error -61 not loading libnvidia-ml.so.1: no driver version to check its file name "
                              "against\n");
        close(pipefd[0]);

        /* A version check with extra directories is a caller's mistake. */
        static const char *const dirs[] = { "/opt", NULL };
        snprintf(job.driver_version, sizeof job.driver_version, "550.90.07");
        ck_assert_int_eq(pipe(pipefd), 0);
        ck_assert_int_eq(xpu_helper_job_load(&job, sonames, dirs, NULL, 0, &handle, loaded, &r, pipefd[1], &status),
                         -EINVAL);
        close(pipefd[1]);
        close(pipefd[0]);
        close(fd);
}
END_TEST

static void check_clean(const char *in, size_t field, bool may_cut, bool want_ret, const char *want) {
        char buf[256];
        memset(buf, 0, sizeof buf);
        memcpy(buf, in, strlen(in));
        ck_assert_msg(xpu_helper_clean_string(buf, sizeof buf, field, may_cut) == want_ret, "\"%s\"", in);
        ck_assert_str_eq(buf, want);
}

START_TEST(test_clean_string) {
        check_clean("NVIDIA A100", 128, true, true, "NVIDIA A100");
        check_clean("  NVIDIA A100  ", 128, true, true, "NVIDIA A100");
        check_clean("", 128, true, false, "");
        check_clean("   ", 128, true, false, "");
        /* A name keeps its UTF-8 (é, ™); a control character and a byte that is not UTF-8 become
         * U+FFFD; an identifier keeps printable ASCII only. */
        check_clean("a\tb\x01\xc3\xa9", 128, true, true, "a\xef\xbf\xbd" "b\xef\xbf\xbd\xc3\xa9");
        check_clean("NVIDIA RTX\xe2\x84\xa2 A6000", 128, true, true, "NVIDIA RTX\xe2\x84\xa2 A6000");
        check_clean("RTX\xff A6000", 128, true, true, "RTX\xef\xbf\xbd A6000");
        check_clean("ab\xe2\x84\xa2", 5, true, true, "ab");   /* cut before the ™, not inside it */
        check_clean("ab\xe2\x84\xa2", 6, true, true, "ab\xe2\x84\xa2");
        check_clean("\tNVIDIA\t", 128, true, true, "NVIDIA");
        check_clean("GPU-\xc3\xa9", 64, false, true, "GPU-??"); /* an identifier: ASCII only */
        check_clean("abcdefgh", 5, true, true, "abcd");
        check_clean("abc efgh", 5, true, true, "abc");   /* no blank left at the cut */
        check_clean("GPU-1234", 5, false, false, "");    /* an id is never cut */
        check_clean("GPU-", 5, false, true, "GPU-");
        /* A library that filled the whole buffer without a NUL. */
        char buf[16];
        memset(buf, 'A', sizeof buf);
        ck_assert(xpu_helper_clean_string(buf, sizeof buf, 8, true));
        ck_assert_str_eq(buf, "AAAAAAA");
        memset(buf, 'A', sizeof buf);
        ck_assert(xpu_helper_clean_string(buf, sizeof buf, 64, false));
        ck_assert_str_eq(buf, "AAAAAAAAAAAAAAA");
        ck_assert(!xpu_helper_clean_string(NULL, 4, 4, true));
        ck_assert(!xpu_helper_clean_string(buf, 0, 4, true));
}
END_TEST

static Suite *helper_job_suite(void) {
        Suite *s = suite_create("helper-job");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_run_refusals);
        tcase_add_test(tc, test_load_refuses_unchecked);
        tcase_add_test(tc, test_clean_string);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(helper_job_suite());
}
