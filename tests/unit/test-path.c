/* SPDX-License-Identifier: Apache-2.0 */
/* probes/base/path.c: the one walker, in its in-root and beneath modes. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/path.h"
#include "testlib.h"

START_TEST(test_read_in_root_confined) {
        char *t = xpu_test_mkdtemp();
        xpu_test_write(t, "root/etc/value", "  hello \n");
        xpu_test_write(t, "outside", "secret\n");
        char root[4096];
        snprintf(root, sizeof root, "%s/root", t);
        xpu_test_symlink(root, "etc/abs", "/etc/value");
        xpu_test_symlink(root, "etc/up", "../../outside");
        int rfd = xpu_open_root(root);
        ck_assert_int_ge(rfd, 0);
        char buf[64];
        ck_assert_int_eq(xpu_read_value_in_root(rfd, "/etc/value", buf, sizeof buf), 5);
        ck_assert_str_eq(buf, "hello");
        /* An absolute symlink resolves inside the root. */
        ck_assert_int_eq(xpu_read_value_in_root(rfd, "etc/abs", buf, sizeof buf), 5);
        ck_assert_str_eq(buf, "hello");
        /* ".." cannot climb out of the root: ../../outside lands on /outside inside it. */
        ck_assert_int_eq(xpu_read_value_in_root(rfd, "etc/up", buf, sizeof buf), -ENOENT);
        ck_assert_int_eq(xpu_read_value_in_root(rfd, "/../../outside", buf, sizeof buf), -ENOENT);
        /* Too small a buffer is an error, never a silent cut. */
        ck_assert_int_eq(xpu_read_file_in_root(rfd, "/etc/value", buf, 4), -EFBIG);
        ck_assert_int_eq(xpu_read_file_in_root(rfd, "/etc", buf, sizeof buf), -EISDIR);
        /* Magic links are refused. */
        char self[64];
        snprintf(self, sizeof self, "/proc/self/fd/%d", rfd);
        int procfd = xpu_open_root("/");
        ck_assert_int_lt(xpu_read_file_in_root(procfd, self, buf, sizeof buf), 0);
        close(procfd);
        close(rfd);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

START_TEST(test_mkdir_and_write_in_root) {
        char *t = xpu_test_mkdtemp();
        xpu_test_write(t, "outside/keep", "x");
        char root[4096];
        snprintf(root, sizeof root, "%s/root", t);
        ck_assert_int_eq(mkdir(root, 0755), 0);
        /* An absolute symlink is refused for writes, named, and nothing is created anywhere. */
        char target[4096];
        snprintf(target, sizeof target, "%s/outside", t);
        xpu_test_symlink(root, "run", target);
        int rfd = xpu_open_root(root);
        struct xpu_path_refusal why;
        ck_assert_int_eq(xpu_mkdir_p_in_root(rfd, "/run/xpuinit/lib", 0755, &why), -EXDEV);
        ck_assert_int_eq(why.kind, XPU_REFUSE_ABSOLUTE_LINK);
        ck_assert_str_eq(why.path, "/run");
        ck_assert_str_eq(why.detail, target);
        char check[8192], msg[8192];
        xpu_path_refusal_format(&why, "the container root", msg, sizeof msg);
        ck_assert_msg(strstr(msg, "/run is a symlink to ") && strstr(msg, "outside the container root"), "%s", msg);
        snprintf(check, sizeof check, "%s/outside/xpuinit", t);
        struct stat st;
        ck_assert_int_eq(stat(check, &st), -1);
        /* A relative link that stays beneath the root is followed. */
        xpu_test_symlink(root, "var/run", "../srv");
        snprintf(check, sizeof check, "%s/srv", root);
        ck_assert_int_eq(mkdir(check, 0755), 0);
        int dfd = xpu_mkdir_p_in_root(rfd, "/var/run/xpuinit/lib", 0755, &why);
        ck_assert_int_ge(dfd, 0);
        close(dfd);
        ck_assert_int_eq(xpu_write_file_in_root(rfd, "/var/run/xpuinit/x.conf", "a\n", 2, 0644, &why), 0);
        snprintf(check, sizeof check, "%s/srv/xpuinit/x.conf", root);
        ck_assert_int_eq(stat(check, &st), 0);
        ck_assert_int_eq(st.st_mode & 0777, 0644);
        /* ".." above the root, in the path or in a link's target. */
        ck_assert_int_eq(xpu_mkdir_p_in_root(rfd, "/a/../../b", 0755, &why), -EXDEV);
        ck_assert_int_eq(why.kind, XPU_REFUSE_DOTDOT);
        snprintf(check, sizeof check, "%s/a", root);
        ck_assert_int_eq(stat(check, &st), -1); /* checked in full before the first mkdir */
        xpu_test_symlink(root, "etc/up", "../..");
        ck_assert_int_eq(xpu_write_file_in_root(rfd, "/etc/up/evil", "x", 1, 0644, &why), -EXDEV);
        ck_assert_int_eq(why.kind, XPU_REFUSE_DOTDOT);
        ck_assert_str_eq(why.path, "/etc/up");
        /* ".." that stays inside is fine (through an existing directory). */
        snprintf(check, sizeof check, "%s/a", root);
        ck_assert_int_eq(mkdir(check, 0755), 0);
        dfd = xpu_mkdir_p_in_root(rfd, "/a/../b", 0755, &why);
        ck_assert_int_ge(dfd, 0);
        close(dfd);
        /* A final symlink is never written through. */
        xpu_test_symlink(root, "etc/ld.conf", "../srv/xpuinit/x.conf");
        ck_assert_int_eq(xpu_write_file_in_root(rfd, "/etc/ld.conf", "b", 1, 0644, &why), -ELOOP);
        ck_assert_int_eq(why.kind, XPU_REFUSE_FINAL_LINK);
        ck_assert_int_eq(xpu_open_beneath(rfd, "/etc/ld.conf", O_WRONLY | O_CREAT, 0644, &why), -ELOOP);
        /* A magic link (procfs) is another filesystem: refused, never followed. */
        xpu_test_symlink(root, "proc", "/proc");
        ck_assert_int_eq(xpu_open_beneath(rfd, "/proc/self/cwd/x", O_WRONLY | O_CREAT, 0644, &why), -EXDEV);
        close(rfd);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

/* Deep nesting and link loops end in a clear refusal, not a hang. */
START_TEST(test_beneath_bounds) {
        char *t = xpu_test_mkdtemp();
        int rfd = xpu_open_root(t);
        char deep[4096] = "";
        for (int i = 0; i < XPU_BENEATH_DEPTH_MAX + 2; i++)
                memcpy(deep + 2 * i, "/d", 3);
        struct xpu_path_refusal why;
        ck_assert_int_eq(xpu_mkdir_p_in_root(rfd, deep, 0755, &why), -ENAMETOOLONG);
        ck_assert_int_eq(why.kind, XPU_REFUSE_TOO_DEEP);
        xpu_test_symlink(t, "l1", "l2");
        xpu_test_symlink(t, "l2", "l1");
        ck_assert_int_eq(xpu_open_beneath(rfd, "/l1/x", O_RDONLY, 0, &why), -ELOOP);
        ck_assert_int_eq(why.kind, XPU_REFUSE_LOOP);
        close(rfd);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

/* The userspace walk (no openat2) must resolve exactly like RESOLVE_IN_ROOT. */
START_TEST(test_walk_matches_openat2) {
        char *t = xpu_test_mkdtemp();
        xpu_test_write(t, "root/etc/value", "hello\n");
        xpu_test_write(t, "root/a/b/file", "deep\n");
        xpu_test_write(t, "outside", "secret\n");
        char root[4096];
        snprintf(root, sizeof root, "%s/root", t);
        xpu_test_symlink(root, "etc/abs", "/etc/value");
        xpu_test_symlink(root, "etc/up", "../../outside");
        xpu_test_symlink(root, "etc/dirlink", "/a/b");
        xpu_test_symlink(root, "etc/loop", "/etc/loop");
        xpu_test_symlink(root, "etc/host", t); /* absolute path of the host's temp dir */
        int rfd = xpu_open_root(root);
        ck_assert_int_ge(rfd, 0);
        const char *paths[] = { "/etc/value", "etc/abs", "etc/up", "/../../outside", "etc/dirlink/file",
                                "/a/./b/../b/file", "etc/loop", "etc/host/outside", "/", "a/b/" };
        for (size_t i = 0; i < ELEMENTSOF(paths); i++) {
                int a = xpu_open_in_root(rfd, paths[i], O_RDONLY, 0);
                int b = xpu_open_in_root_walk(rfd, paths[i], O_RDONLY, 0);
                ck_assert_msg((a >= 0) == (b >= 0), "%s: openat2 %d, walk %d", paths[i], a, b);
                if (a >= 0) {
                        struct stat sa, sb;
                        ck_assert_int_eq(fstat(a, &sa), 0);
                        ck_assert_int_eq(fstat(b, &sb), 0);
                        ck_assert_msg(sa.st_ino == sb.st_ino, "%s: different files", paths[i]);
                        close(a);
                        close(b);
                } else {
                        ck_assert_msg(a == b || (a == -ELOOP && b == -ELOOP) || (a < 0 && b < 0), "%s", paths[i]);
                }
        }
        /* The escapes fail (nothing named /outside inside the root). */
        ck_assert_int_eq(xpu_open_in_root_walk(rfd, "etc/up", O_RDONLY, 0), -ENOENT);
        ck_assert_int_eq(xpu_open_in_root_walk(rfd, "etc/host/outside", O_RDONLY, 0), -ENOENT);
        ck_assert_int_eq(xpu_open_in_root_walk(rfd, "etc/loop", O_RDONLY, 0), -ELOOP);
        /* O_CREAT through a symlinked directory stays inside. */
        int c = xpu_open_in_root_walk(rfd, "etc/dirlink/new", O_WRONLY | O_CREAT | O_EXCL, 0600);
        ck_assert_int_ge(c, 0);
        close(c);
        char check[8192];
        snprintf(check, sizeof check, "%s/a/b/new", root);
        struct stat st;
        ck_assert_int_eq(stat(check, &st), 0);
        close(rfd);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

/* The walker's modes on one tree: what reads in a driver root follow (inside the root), writes
 * into a container root refuse, and the one-component rules both keep. */
START_TEST(test_walk_modes) {
        char *t = xpu_test_mkdtemp();
        xpu_test_write(t, "root/etc/value", "v\n");
        xpu_test_write(t, "outside/value", "secret\n");
        char root[4096];
        snprintf(root, sizeof root, "%s/root", t);
        xpu_test_symlink(root, "abs", "/etc");           /* absolute: inside for a read, refused for a write */
        xpu_test_symlink(root, "rel", "etc");            /* relative, beneath: both follow */
        xpu_test_symlink(root, "etc/link", "value");     /* a final link */
        xpu_test_symlink(root, "empty-up", "../../..");  /* ".." above the root */
        int rfd = xpu_open_root(root);
        ck_assert_int_ge(rfd, 0);
        struct xpu_path_refusal why;
        struct stat want, got;
        ck_assert_int_eq(stat(root, &want), 0);
        ck_assert_int_eq(fstatat(rfd, "etc/value", &want, 0), 0);

        /* An absolute link: restarts at the root (in root), refused naming it (beneath). */
        int fd = xpu_open_in_root_walk(rfd, "/abs/value", O_RDONLY, 0);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(fstat(fd, &got), 0);
        ck_assert(got.st_ino == want.st_ino);
        close(fd);
        ck_assert_int_eq(xpu_open_beneath(rfd, "/abs/value", O_RDONLY, 0, &why), -EXDEV);
        ck_assert_int_eq(why.kind, XPU_REFUSE_ABSOLUTE_LINK);
        ck_assert_str_eq(why.path, "/abs");
        ck_assert_str_eq(why.detail, "/etc");

        /* A relative link beneath the root: both follow to the same file. */
        fd = xpu_open_in_root_walk(rfd, "rel/value", O_RDONLY, 0);
        ck_assert_int_ge(fd, 0);
        close(fd);
        fd = xpu_open_beneath(rfd, "rel/value", O_RDONLY, 0, &why);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(fstat(fd, &got), 0);
        ck_assert(got.st_ino == want.st_ino);
        close(fd);

        /* ".." above the root: stays at the root (in root), refused (beneath). */
        fd = xpu_open_in_root_walk(rfd, "empty-up/etc/value", O_RDONLY, 0);
        ck_assert_int_ge(fd, 0);
        close(fd);
        ck_assert_int_eq(xpu_open_beneath(rfd, "empty-up/etc/value", O_RDONLY, 0, &why), -EXDEV);
        ck_assert_int_eq(why.kind, XPU_REFUSE_DOTDOT);
        ck_assert_str_eq(why.path, "/empty-up");

        /* A final link with O_NOFOLLOW: the link itself for O_PATH, -ELOOP to read (in root, as
         * openat(2)); refused for a write target (beneath). */
        fd = xpu_open_in_root_walk(rfd, "etc/link", O_PATH | O_NOFOLLOW, 0);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(fstatat(fd, "", &got, AT_EMPTY_PATH), 0);
        ck_assert(S_ISLNK(got.st_mode));
        close(fd);
        ck_assert_int_eq(xpu_open_in_root_walk(rfd, "etc/link", O_RDONLY | O_NOFOLLOW, 0), -ELOOP);
        ck_assert_int_eq(xpu_open_beneath(rfd, "etc/link", O_PATH | O_NOFOLLOW, 0, &why), -ELOOP);
        ck_assert_int_eq(why.kind, XPU_REFUSE_FINAL_LINK);
        /* Without O_NOFOLLOW both follow it to the file. */
        fd = xpu_open_in_root_walk(rfd, "etc/link", O_RDONLY, 0);
        ck_assert_int_ge(fd, 0);
        close(fd);
        fd = xpu_open_beneath(rfd, "etc/link", O_RDONLY, 0, &why);
        ck_assert_int_ge(fd, 0);
        close(fd);

        /* A file where a directory must be: -ENOTDIR in both, named beneath. */
        ck_assert_int_eq(xpu_open_in_root_walk(rfd, "etc/value/x", O_RDONLY, 0), -ENOTDIR);
        ck_assert_int_eq(xpu_open_beneath(rfd, "etc/value/x", O_RDONLY, 0, &why), -ENOTDIR);
        ck_assert_int_eq(why.kind, XPU_REFUSE_NOT_DIR);
        ck_assert_str_eq(why.path, "/etc/value");
        /* A component longer than NAME_MAX: -ENAMETOOLONG in both. */
        char longname[NAME_MAX + 8];
        memset(longname, 'x', sizeof longname - 1);
        longname[sizeof longname - 1] = '\0';
        ck_assert_int_eq(xpu_open_in_root_walk(rfd, longname, O_RDONLY, 0), -ENAMETOOLONG);
        ck_assert_int_eq(xpu_open_beneath(rfd, longname, O_RDONLY, 0, &why), -ENAMETOOLONG);
        /* Nothing was created outside. */
        ck_assert_int_eq(fstatat(rfd, "../outside/x", &got, 0), -1);
        close(rfd);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

static Suite *path_suite(void) {
        Suite *s = suite_create("path");
        TCase *tc = tcase_create("walk");
        tcase_add_test(tc, test_read_in_root_confined);
        tcase_add_test(tc, test_mkdir_and_write_in_root);
        tcase_add_test(tc, test_beneath_bounds);
        tcase_add_test(tc, test_walk_matches_openat2);
        tcase_add_test(tc, test_walk_modes);
        suite_add_tcase(s, tc);
        return s;
}

int main(void) {
        return xpu_test_run(path_suite());
}
