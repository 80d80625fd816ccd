/* SPDX-License-Identifier: Apache-2.0 */
/* probes/base/fileio.c: whole reads and writes, regular files only. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/path.h"
#include "testlib.h"

START_TEST(test_read_refuses_fifo) {
        char *t = xpu_test_mkdtemp();
        char p[4096];
        snprintf(p, sizeof p, "%s/fifo", t);
        ck_assert_int_eq(mkfifo(p, 0600), 0);
        int rfd = xpu_open_root(t);
        char buf[16];
        ck_assert_int_eq(xpu_read_file_in_root(rfd, "fifo", buf, sizeof buf), -EINVAL);
        close(rfd);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

/* The read and write loops: a pipe hands its bytes over in pieces, and the file helpers see
 * only regular files. */
START_TEST(test_full_read_write_and_open_file) {
        int p[2];
        ck_assert_int_eq(pipe(p), 0);
        ck_assert_int_eq(xpu_write_full(p[1], "abc", 3), 0);
        ck_assert_int_eq(xpu_write_full(p[1], "defg", 4), 0);
        close(p[1]);
        char buf[16];
        ck_assert_int_eq(xpu_read_full(p[0], buf, 5), 5); /* across both writes */
        ck_assert_int_eq(memcmp(buf, "abcde", 5), 0);
        ck_assert_int_eq(xpu_read_full(p[0], buf, sizeof buf), 2); /* short only at the end */
        ck_assert_int_eq(memcmp(buf, "fg", 2), 0);
        ck_assert_int_eq(xpu_read_full(p[0], buf, sizeof buf), 0);
        ck_assert_int_eq(xpu_read_full(-1, buf, sizeof buf), -EBADF);
        ck_assert_int_eq(xpu_write_full(-1, "x", 1), -EBADF);
        close(p[0]);

        char *t = xpu_test_mkdtemp();
        xpu_test_write(t, "dir/file", "12345");
        char fifo[4096];
        snprintf(fifo, sizeof fifo, "%s/fifo", t);
        ck_assert_int_eq(mkfifo(fifo, 0600), 0);
        int rfd = xpu_open_root(t);
        struct stat st;
        int fd = xpu_open_file_in_root(rfd, "/dir/file", &st);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(st.st_size, 5);
        ck_assert_int_eq(xpu_read_full(fd, buf, sizeof buf), 5);
        ck_assert_int_eq(xpu_pread_full(fd, buf, 2, 1), 2); /* at an offset, file position unused */
        ck_assert_int_eq(memcmp(buf, "23", 2), 0);
        ck_assert_int_eq(xpu_pread_full(fd, buf, sizeof buf, 3), 2); /* short only at the end */
        ck_assert_int_eq(xpu_pread_full(fd, buf, sizeof buf, 99), 0);
        close(fd);
        ck_assert_int_eq(xpu_pread_full(-1, buf, 1, 0), -EBADF);
        ck_assert_int_eq(xpu_open_file_in_root(rfd, "dir", NULL), -EISDIR);
        ck_assert_int_eq(xpu_open_file_in_root(rfd, "fifo", NULL), -EINVAL); /* and did not block */
        ck_assert_int_eq(xpu_open_file_in_root(rfd, "none", NULL), -ENOENT);
        close(rfd);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

static Suite *fileio_suite(void) {
        Suite *s = suite_create("fileio");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_read_refuses_fifo);
        tcase_add_test(tc, test_full_read_write_and_open_file);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(fileio_suite());
}
