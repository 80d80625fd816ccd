/* SPDX-License-Identifier: Apache-2.0 */
/* probes/base/root-file.c: a regular file below a root, opened, read whole or as a value; anything
 * else refused without blocking. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/path.h"
#include "base/root-file.h"
#include "testlib.h"

START_TEST(test_read_refuses_fifo) {
        char *t = xpu_test_mkdtemp();
        char p[4096];
        snprintf(p, sizeof p, "%s/fifo", t);
        ck_assert_int_eq(mkfifo(p, 0600), 0);
        int rfd = xpu_open_root(t);
        char buf[16];
        ck_assert_int_eq(xpu_read_file_in_root(rfd, "fifo", buf, sizeof buf), -EINVAL);
        ck_assert_int_eq(xpu_read_value_in_root(rfd, "fifo", buf, sizeof buf), -EINVAL);
        close(rfd);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

/* Only regular files open: a directory, a FIFO (without blocking) and a missing file are told
 * apart; the reads are whole, NUL-terminated, stripped for a value, refused when too long. */
START_TEST(test_open_and_read) {
        char *t = xpu_test_mkdtemp();
        xpu_test_write(t, "dir/file", "12345");
        xpu_test_write(t, "dir/value", "\t 7 \n");
        char fifo[4096];
        snprintf(fifo, sizeof fifo, "%s/fifo", t);
        ck_assert_int_eq(mkfifo(fifo, 0600), 0);
        int rfd = xpu_open_root(t);
        struct stat st;
        int fd = xpu_open_file_in_root(rfd, "/dir/file", &st);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(st.st_size, 5);
        char buf[16];
        ck_assert_int_eq(xpu_read_full(fd, buf, sizeof buf), 5);
        close(fd);
        ck_assert_int_eq(xpu_open_file_in_root(rfd, "dir", NULL), -EISDIR);
        ck_assert_int_eq(xpu_open_file_in_root(rfd, "fifo", NULL), -EINVAL); /* and did not block */
        ck_assert_int_eq(xpu_open_file_in_root(rfd, "none", NULL), -ENOENT);

        ck_assert_int_eq(xpu_read_file_in_root(rfd, "dir/file", buf, sizeof buf), 5);
        ck_assert_str_eq(buf, "12345");
        ck_assert_int_eq(xpu_read_file_in_root(rfd, "dir/file", buf, 5), -EFBIG); /* no room for the NUL */
        ck_assert_int_eq(xpu_read_file_in_root(rfd, "dir/file", buf, 0), -EINVAL);
        ck_assert_int_eq(xpu_read_value_in_root(rfd, "dir/value", buf, sizeof buf), 1);
        ck_assert_str_eq(buf, "7");
        ck_assert_int_eq(xpu_read_value_in_root(rfd, "dir/none", buf, sizeof buf), -ENOENT);
        ck_assert_int_eq(xpu_read_value_in_root(rfd, "dir/value", buf, 0), -EINVAL);
        close(rfd);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

static Suite *root_file_suite(void) {
        Suite *s = suite_create("root-file");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_read_refuses_fifo);
        tcase_add_test(tc, test_open_and_read);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(root_file_suite());
}
