/* SPDX-License-Identifier: Apache-2.0 */
/* probes/devcode/walk.c: how the audit walks a hostile tree (links, special files, a huge file,
 * depth and file limits). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/strv.h"
#include "devcode/object.h"
#include "devcode/walk.h"
#include "testlib.h"

static bool has(char *const *v, const char *s) {
        for (char *const *p = v; p && *p; p++)
                if (strcmp(*p, s) == 0)
                        return true;
        return false;
}


struct seen_files {
        char **paths;
};

static int note_file(int fd, const char *path, const struct stat *st, void *userdata) {
        struct seen_files *s = userdata;
        ck_assert(S_ISREG(st->st_mode));
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(xpu_strv_push(&s->paths, path), 0);
        return 0;
}

START_TEST(test_walk_hostile) {
        char *root = xpu_test_mkdtemp(), p[1024];
        xpu_test_write(root, "usr/lib/libx.so.1", "x");
        xpu_test_symlink(root, "usr/lib/libx.so", "libx.so.1");
        xpu_test_symlink(root, "usr/lib/loop", "loop");          /* a link to itself */
        xpu_test_symlink(root, "usr/lib/up", "../..");           /* a directory cycle through a link */
        xpu_test_symlink(root, "usr/lib/host", "/");             /* out of the root */
        snprintf(p, sizeof p, "%s/usr/lib/fifo.so", root);
        ck_assert_int_eq(mkfifo(p, 0600), 0);                   /* opening it would block */
        snprintf(p, sizeof p, "%s/usr/lib/libhard.so", root);
        char q[1024];
        snprintf(q, sizeof q, "%s/usr/lib/libx.so.1", root);
        ck_assert_int_eq(link(q, p), 0);                        /* a hard link: visited once */
        /* A 4 GiB sparse file named like a library: read 64 bytes, found not ELF. */
        snprintf(p, sizeof p, "%s/usr/lib/libhuge.so", root);
        int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(ftruncate(fd, 4ll << 30), 0);
        close(fd);
        xpu_test_write(root, "a/b/c/d/e/deep.so", "x");

        int rfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        struct seen_files s = { 0 };
        struct xpu_walk_stats st;
        struct xpu_walk_limits lim = XPU_WALK_LIMITS_DEFAULT;
        ck_assert_int_eq(xpu_walk(rfd, &lim, note_file, &s, &st), 0);
        ck_assert_uint_eq(xpu_strv_length(s.paths), 3); /* libx.so.1 or libhard.so, libhuge.so, deep.so */
        ck_assert(has(s.paths, "usr/lib/libhuge.so") && has(s.paths, "a/b/c/d/e/deep.so"));
        ck_assert(has(s.paths, "usr/lib/libx.so.1") != has(s.paths, "usr/lib/libhard.so"));
        ck_assert_uint_eq(st.links, 4);
        ck_assert_uint_eq(st.special, 1);
        ck_assert_ptr_null(st.stopped_by);

        /* The huge file costs 64 bytes: not an object. */
        snprintf(p, sizeof p, "%s/usr/lib/libhuge.so", root);
        fd = open(p, O_RDONLY | O_CLOEXEC);
        struct xpu_object o;
        ck_assert_int_eq(xpu_object_read(fd, "usr/lib/libhuge.so", 4ull << 30, &o), -ENOEXEC);
        close(fd);

        /* Limits stop the walk and say so. */
        s.paths = xpu_strv_free(s.paths);
        lim.max_depth = 2;
        ck_assert_int_eq(xpu_walk(rfd, &lim, note_file, &s, &st), 0);
        ck_assert_ptr_null(st.stopped_by); /* the rest is read */
        ck_assert_uint_eq(st.skipped_deep, 1);
        ck_assert(!has(s.paths, "a/b/c/d/e/deep.so") && has(s.paths, "usr/lib/libhuge.so"));
        s.paths = xpu_strv_free(s.paths);
        lim = XPU_WALK_LIMITS_DEFAULT;
        lim.max_files = 1;
        ck_assert_int_eq(xpu_walk(rfd, &lim, note_file, &s, &st), 0);
        ck_assert_str_eq(st.stopped_by, "file limit");
        ck_assert_uint_eq(xpu_strv_length(s.paths), 1);
        s.paths = xpu_strv_free(s.paths);

        /* /proc under the root is a pseudo filesystem: skipped (needs root: a bind mount). */
        close(rfd);
        xpu_test_rm_rf(root);
        free(root);
}
END_TEST

int main(void) {
        Suite *s = suite_create("devcode-walk");
        TCase *tc = tcase_create("core");
        tcase_set_timeout(tc, 30);
        tcase_add_test(tc, test_walk_hostile);
        suite_add_tcase(s, tc);
        return xpu_test_run(s);
}
