/* SPDX-License-Identifier: Apache-2.0 */
/* probes/base/procfs.c: /proc/PID/stat fields and /proc/PID/status masks. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/procfs.h"
#include "testlib.h"

START_TEST(test_stat_file) {
        _cleanup_free_ char *d = xpu_test_mkdtemp();
        char path[4200];
        snprintf(path, sizeof path, "%s/stat", d);
        struct xpu_proc_stat st;
        /* a comm with spaces and parentheses: fields are counted from the last ')' */
        xpu_test_write(d, "stat", "42 (a) (b c)) T 7 42 40 0 -1 4194560 100 0 0 0 1 2 0 0 20 -5 1 0 987654 1000 10\n");
        ck_assert_int_eq(xpu_proc_stat_read_file(path, &st), 0);
        ck_assert_int_eq(st.pid, 42);
        ck_assert_int_eq(st.state, 'T');
        ck_assert_int_eq(st.ppid, 7);
        ck_assert_int_eq(st.pgrp, 42);
        ck_assert_int_eq(st.session, 40);
        ck_assert_uint_eq(st.starttime, 987654);
        /* too few fields, no ')', a field that is no number */
        xpu_test_write(d, "stat", "42 (a) S 7 42 40\n");
        ck_assert_int_eq(xpu_proc_stat_read_file(path, &st), -EBADMSG);
        xpu_test_write(d, "stat", "42 a S 7 42 40 0 -1 4194560 100 0 0 0 1 2 0 0 20 -5 1 0 9 1\n");
        ck_assert_int_eq(xpu_proc_stat_read_file(path, &st), -EBADMSG);
        xpu_test_write(d, "stat", "42 (a) S 7 x 40 0 -1 4194560 100 0 0 0 1 2 0 0 20 -5 1 0 9 1\n");
        ck_assert_int_eq(xpu_proc_stat_read_file(path, &st), -EBADMSG);
        xpu_test_write(d, "stat", "");
        ck_assert_int_eq(xpu_proc_stat_read_file(path, &st), -EBADMSG);
        snprintf(path, sizeof path, "%s/none", d);
        ck_assert_int_eq(xpu_proc_stat_read_file(path, &st), -ENOENT);
        /* the real thing: this process */
        ck_assert_int_eq(xpu_proc_stat_read(getpid(), &st), 0);
        ck_assert_int_eq(st.pid, getpid());
        ck_assert_int_eq(st.ppid, getppid());
        ck_assert_int_eq(st.pgrp, getpgrp());
        ck_assert_int_eq(st.session, getsid(0));
        ck_assert_uint_gt(st.starttime, 0);
        xpu_test_rm_rf(d);
}
END_TEST

START_TEST(test_status_mask) {
        _cleanup_free_ char *d = xpu_test_mkdtemp();
        char path[4200];
        snprintf(path, sizeof path, "%s/status", d);
        xpu_test_write(d, "status", "Name:\tx\nSigIgn:\t0000000000001000\nCapBnd:\t000001ffffffffff\nBad:\tzz\nLong:\t00000000000000000\n");
        uint64_t m = 0;
        ck_assert_int_eq(xpu_proc_status_mask(path, "SigIgn", &m), 0);
        ck_assert_uint_eq(m, 0x1000);
        ck_assert_int_eq(xpu_proc_status_mask(path, "CapBnd", &m), 0);
        ck_assert_uint_eq(m, 0x1ffffffffffull);
        ck_assert_int_eq(xpu_proc_status_mask(path, "Bad", &m), -EBADMSG);
        ck_assert_int_eq(xpu_proc_status_mask(path, "Long", &m), -EBADMSG);
        ck_assert_int_eq(xpu_proc_status_mask(path, "SigCgt", &m), -ENOENT);
        ck_assert_int_eq(xpu_proc_status_mask(path, "Name", &m), -EBADMSG); /* "x" is no mask */
        /* a key that is the start of another is not it */
        ck_assert_int_eq(xpu_proc_status_mask(path, "Sig", &m), -ENOENT);
        ck_assert_int_eq(xpu_proc_status_mask("/proc/self/status", "SigBlk", &m), 0);
        xpu_test_rm_rf(d);
}
END_TEST

/* /proc/self names this process in its own pid namespace's /proc, and no other pid. */
START_TEST(test_self_is) {
        ck_assert(xpu_proc_self_is(getpid()));
        ck_assert(!xpu_proc_self_is(getppid()));
        ck_assert(!xpu_proc_self_is(0));
}
END_TEST

/* Character device majors by name from the text of /proc/devices, its block section ignored, the
 * text unchanged. */
START_TEST(test_proc_devices_major) {
        static const char text[] = "Character devices:\n  1 mem\n195 nvidia-frontend\n"
                                   "235 nvidia-caps  \n510\tnvidia-uvm\n4096 toobig\nx bad\n12345 long\n\n"
                                   "Block devices:\n  7 loop\n259 blkext\n";
        char copy[sizeof text];
        memcpy(copy, text, sizeof text);
        ck_assert_int_eq(xpu_proc_devices_major(copy, "nvidia-frontend"), 195);
        ck_assert_int_eq(xpu_proc_devices_major(copy, "nvidia-uvm"), 510);     /* after a tab */
        ck_assert_int_eq(xpu_proc_devices_major(copy, "nvidia-caps"), 235);    /* trailing blanks */
        ck_assert_int_eq(xpu_proc_devices_major(copy, "mem"), 1);
        ck_assert_int_eq(xpu_proc_devices_major(copy, "nvidia"), -ENOENT); /* no prefix match */
        ck_assert_int_eq(xpu_proc_devices_major(copy, "nvidia-fr"), -ENOENT);
        ck_assert_int_eq(xpu_proc_devices_major(copy, "loop"), -ENOENT);   /* a block device */
        ck_assert_int_eq(xpu_proc_devices_major(copy, "toobig"), -ENOENT); /* above 12 bits */
        ck_assert_int_eq(xpu_proc_devices_major(copy, "bad"), -ENOENT);
        ck_assert_int_eq(xpu_proc_devices_major(copy, "long"), -ENOENT);
        ck_assert_int_eq(memcmp(copy, text, sizeof text), 0);
        /* No section header: nothing is a character device; no text at all (the read failed). */
        ck_assert_int_eq(xpu_proc_devices_major("195 nvidia\n", "nvidia"), -ENOENT);
        /* no final newline */
        ck_assert_int_eq(xpu_proc_devices_major("Character devices:\n195 nvidia", "nvidia"), 195);
        ck_assert_int_eq(xpu_proc_devices_major("", "nvidia"), -ENOENT);
        ck_assert_int_eq(xpu_proc_devices_major(NULL, "nvidia"), -ENOENT);
}
END_TEST

static Suite *procfs_suite(void) {
        Suite *s = suite_create("procfs");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_stat_file);
        tcase_add_test(tc, test_status_mask);
        tcase_add_test(tc, test_self_is);
        tcase_add_test(tc, test_proc_devices_major);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(procfs_suite());
}
