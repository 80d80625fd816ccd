/* SPDX-License-Identifier: Apache-2.0 */
/* probes/base/fileio.c: whole reads and writes on an open fd, a file's text read whole. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "testlib.h"

/* The read and write loops: a pipe hands its bytes over in pieces; pread at an offset, short only
 * at the end of the file. */
START_TEST(test_full_read_write) {
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
        xpu_test_write(t, "file", "12345");
        char path[4096];
        snprintf(path, sizeof path, "%s/file", t);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(xpu_read_full(fd, buf, sizeof buf), 5);
        ck_assert_int_eq(xpu_pread_full(fd, buf, 2, 1), 2); /* at an offset, file position unused */
        ck_assert_int_eq(memcmp(buf, "23", 2), 0);
        ck_assert_int_eq(xpu_pread_full(fd, buf, sizeof buf, 3), 2); /* short only at the end */
        ck_assert_int_eq(xpu_pread_full(fd, buf, sizeof buf, 99), 0);
        close(fd);
        ck_assert_int_eq(xpu_pread_full(-1, buf, 1, 0), -EBADF);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

/* A file's text read whole from offset 0: NUL-terminated, refused when it does not fit or holds a
 * NUL; the value form stripped. */
START_TEST(test_pread_text_and_value) {
        char *t = xpu_test_mkdtemp();
        xpu_test_write(t, "value", "  42\n");
        char path[4096];
        snprintf(path, sizeof path, "%s/value", t);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ck_assert_int_ge(fd, 0);
        char buf[8], small[5];
        ck_assert_int_eq(xpu_pread_text(fd, buf, sizeof buf), 5);
        ck_assert_str_eq(buf, "  42\n");
        ck_assert_int_eq(xpu_pread_value(fd, buf, sizeof buf), 2); /* read anew from offset 0 */
        ck_assert_str_eq(buf, "42");
        ck_assert_int_eq(xpu_pread_text(fd, small, sizeof small), -EFBIG); /* 5 bytes, room for 4 */
        ck_assert_int_eq(xpu_pread_text(fd, buf, 0), -EINVAL);
        close(fd);
        ck_assert_int_eq(xpu_write_file_replace(path, "a\0b", 3, 0600), 0);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(xpu_pread_text(fd, buf, sizeof buf), -EINVAL); /* an embedded NUL */
        close(fd);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

static Suite *fileio_suite(void) {
        Suite *s = suite_create("fileio");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_full_read_write);
        tcase_add_test(tc, test_pread_text_and_value);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(fileio_suite());
}
