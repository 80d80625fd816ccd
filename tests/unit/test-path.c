/* SPDX-License-Identifier: Apache-2.0 */
/* probes/base/path.c: the one walker, in its in-root and beneath modes. */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/root-file.h"
#include "base/path.h"
#include "testlib.h"

/* The reads below a root, as every reader sees them. Returns 0, or the line of the first check
 * that failed (below 250: this function stays near the top of the file): also run in a child
 * without openat2, which reports it as its exit status. */
#define CHECK(c)                         \
        do {                             \
                if (!(c))                \
                        return __LINE__; \
        } while (0)
static int confined_reads(int rfd) {
        char buf[64];
        CHECK(xpu_read_value_in_root(rfd, "/etc/value", buf, sizeof buf) == 5);
        CHECK(strcmp(buf, "hello") == 0);
        /* An absolute symlink resolves inside the root. */
        CHECK(xpu_read_value_in_root(rfd, "etc/abs", buf, sizeof buf) == 5);
        CHECK(strcmp(buf, "hello") == 0);
        /* ".." cannot climb out of the root: ../../outside lands on /outside inside it. */
        CHECK(xpu_read_value_in_root(rfd, "etc/up", buf, sizeof buf) == -ENOENT);
        CHECK(xpu_read_value_in_root(rfd, "/../../outside", buf, sizeof buf) == -ENOENT);
        /* Too small a buffer is an error, never a silent cut. */
        CHECK(xpu_read_file_in_root(rfd, "/etc/value", buf, 4) == -EFBIG);
        CHECK(xpu_read_file_in_root(rfd, "/etc", buf, sizeof buf) == -EISDIR);
        struct stat st;
        CHECK(xpu_stat_in_root(rfd, "etc/abs", true, &st) == 0 && S_ISLNK(st.st_mode));
        CHECK(xpu_stat_in_root(rfd, "etc/abs", false, &st) == 0 && S_ISREG(st.st_mode));
        CHECK(xpu_readlink_in_root(rfd, "etc/abs", buf, sizeof buf) == 10 && strcmp(buf, "/etc/value") == 0);
        /* Magic links are refused. */
        char self[64];
        snprintf(self, sizeof self, "/proc/self/fd/%d", rfd);
        int procfd = xpu_open_root("/");
        CHECK(procfd >= 0);
        ssize_t n = xpu_read_file_in_root(procfd, self, buf, sizeof buf);
        close(procfd);
        CHECK(n < 0);
        return 0;
}

static char *confined_tree(int *rfd) {
        char *t = xpu_test_mkdtemp();
        xpu_test_write(t, "root/etc/value", "  hello \n");
        xpu_test_write(t, "outside", "secret\n");
        char root[4096];
        snprintf(root, sizeof root, "%s/root", t);
        xpu_test_symlink(root, "etc/abs", "/etc/value");
        xpu_test_symlink(root, "etc/up", "../../outside");
        *rfd = xpu_open_root(root);
        ck_assert_int_ge(*rfd, 0);
        return t;
}

START_TEST(test_read_in_root_confined) {
        int rfd;
        char *t = confined_tree(&rfd);
        ck_assert_int_eq(confined_reads(rfd), 0);
        close(rfd);
        xpu_test_rm_rf(t);
        free(t);
}
END_TEST

/* Where the kernel has no openat2 (before Linux 5.6, valgrind), xpu_open_in_root() and every
 * reader on it go through the walker's in-root mode: the same reads give the same answers in a
 * child whose seccomp filter makes openat2 fail with ENOSYS. */
#if defined(__x86_64__)
#define TEST_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define TEST_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif
/* The confined reads in a child whose seccomp filter makes every openat2 answer ERR: ENOSYS (a
 * kernel without it) or EAGAIN (a rename or mount racing each lookup, forever): the walker must
 * give the same answers. */
static void reads_with_openat2_answering(int err) {
#ifndef TEST_AUDIT_ARCH
        ck_abort_msg("no seccomp audit arch for this machine: add it to test_read_in_root_without_openat2");
#else
        int rfd;
        char *t = confined_tree(&rfd);
        struct sock_filter f[] = {
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TEST_AUDIT_ARCH, 1, 0),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat2, 0, 1),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned)err),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        };
        struct sock_fprog prog = { .len = (unsigned short)ELEMENTSOF(f), .filter = f };
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
                if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
                        _exit(250);
                struct open_how how = { .flags = O_PATH | O_CLOEXEC };
                if (syscall(SYS_openat2, rfd, ".", &how, sizeof how) >= 0 || errno != err)
                        _exit(251); /* the filter must take openat2 away, or this tests nothing */
                int line = confined_reads(rfd);
                _exit(line < 250 ? line : 249);
        }
        int status;
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                      "child: exit %d, signal %d (exit 250: no seccomp filter, 251: openat2 not refused, else "
                      "the line in test-path.c of the read that differs without openat2)",
                      WIFEXITED(status) ? WEXITSTATUS(status) : -1, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
        close(rfd);
        xpu_test_rm_rf(t);
        free(t);
#endif
}

START_TEST(test_read_in_root_without_openat2) {
        reads_with_openat2_answering(ENOSYS);
}
END_TEST

START_TEST(test_read_in_root_openat2_eagain) {
        reads_with_openat2_answering(EAGAIN);
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
        tcase_add_test(tc, test_read_in_root_without_openat2);
        tcase_add_test(tc, test_read_in_root_openat2_eagain);
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
