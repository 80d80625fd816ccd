/* SPDX-License-Identifier: Apache-2.0 */
/* probes/base/reply: what a helper's "error ERRNO TEXT" line may make the caller believe, and the
 * driver-root handoff's hint for a root the helper (nobody) cannot search. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/path.h"
#include "sandbox/reply.h"
#include "testlib.h"

/* Parse the one-line reply TEXT; the return of the first xpu_reply_next() and ERR. */
static int parse(const char *text, char *err, size_t size) {
        struct xpu_reply_parser p;
        xpu_reply_parser_init(&p, "TEST", text);
        err[0] = '\0';
        return xpu_reply_next(&p, err, size);
}

/* The errnos callers act on in their own right never come through from a helper: -ENOMEM would
 * abort the whole probe as if xpuinit itself ran out of memory. The TEXT stays. */
START_TEST(test_error_errno_not_trusted) {
        static const struct {
                int sent, got;
        } cases[] = {
                { -ENOMEM, -EIO },     { -EINVAL, -EIO },        { -EFAULT, -EIO },     { -EAGAIN, -EIO },
                { -ECHILD, -EIO },     { -ECONNABORTED, -EIO },  { -EBADMSG, -EIO },    { -EINTR, -EIO },
                { -4095, -EIO },       { -ENOENT, -ENOENT },     { -EPROTO, -EPROTO },  { -ENODEV, -ENODEV },
                { -EIO, -EIO },        { -EPERM, -EPERM },       { -EACCES, -EACCES },  { -EOPNOTSUPP, -EOPNOTSUPP },
                { -EBUSY, -EBUSY },    { -ETIMEDOUT, -ETIMEDOUT }, { -EMSGSIZE, -EMSGSIZE }, { -ESTALE, -ESTALE },
                { -ENODATA, -ENODATA }, { -ELIBBAD, -ELIBBAD },  { -ENAMETOOLONG, -ENAMETOOLONG },
                { -EXDEV, -EXDEV },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char text[64], err[128];
                snprintf(text, sizeof text, "error %d boom %zu\n", cases[i].sent, i);
                ck_assert_msg(parse(text, err, sizeof err) == cases[i].got, "%s", text);
                char want[32];
                snprintf(want, sizeof want, "boom %zu", i);
                ck_assert_str_eq(err, want);
        }
        char err[128];
        ck_assert_int_eq(parse("error -12 boom\n", err, sizeof err), -EIO);
        ck_assert_str_eq(err, "boom");
        /* Malformed error lines stay garbage, not an errno. */
        ck_assert_int_eq(parse("error 12 boom\n", err, sizeof err), -EBADMSG);
        ck_assert_str_eq(err, "garbage from the TEST helper: line 1");
        ck_assert_int_eq(parse("error -4096 boom\n", err, sizeof err), -EBADMSG);
        ck_assert_int_eq(parse("error -12\n", err, sizeof err), -EBADMSG);
}
END_TEST

/* The helper side's xpu_reply_fail() with any errno, through the parser: the same rule. */
START_TEST(test_reply_fail_round_trip) {
        static struct xpu_reply r;
        int fds[2];
        ck_assert_int_eq(pipe(fds), 0);
        ck_assert_int_eq(xpu_reply_fail(&r, fds[1], -ENOMEM, "cannot allocate %d bytes", 64), 0);
        ck_assert_int_eq(xpu_reply_fail(&r, fds[1], -ENODEV, "nvmlInit_v2 failed: Driver Not Loaded (error 9)"), 0);
        close(fds[1]);
        char buf[512] = "";
        ssize_t n = read(fds[0], buf, sizeof buf - 1);
        ck_assert_int_gt(n, 0);
        close(fds[0]);
        ck_assert_str_eq(buf, "error -12 cannot allocate 64 bytes\n"
                              "error -19 nvmlInit_v2 failed: Driver Not Loaded (error 9)\n");
        char err[128];
        ck_assert_int_eq(parse("error -12 cannot allocate 64 bytes\n", err, sizeof err), -EIO);
        ck_assert_str_eq(err, "cannot allocate 64 bytes");
        ck_assert_int_eq(parse("error -19 nvmlInit_v2 failed: Driver Not Loaded (error 9)\n", err, sizeof err),
                         -ENODEV);
        ck_assert_str_eq(err, "nvmlInit_v2 failed: Driver Not Loaded (error 9)");
}
END_TEST

START_TEST(test_root_ref_hint) {
        static const char hint[] = "; the vendor-library helper runs as nobody: make the driver root and its parent "
                                   "directories searchable by others (chmod o+x)";
        ck_assert_str_eq(xpu_root_ref_hint(-EACCES), hint);
        ck_assert_str_eq(xpu_root_ref_hint(-EPERM), hint);
        ck_assert_str_eq(xpu_root_ref_hint(-ESTALE), "");
        ck_assert_str_eq(xpu_root_ref_hint(-ENOENT), "");
        ck_assert_str_eq(xpu_root_ref_hint(0), "");
}
END_TEST

/* A driver root under a directory of mode 0700 (a clone under /root): the parent names it, the
 * helper (nobody) cannot reopen it: -EACCES, and the hint that says why. Then made searchable
 * (o+x on the directory above), the same reference opens. */
START_TEST(test_root_ref_unsearchable) {
        char *top = xpu_test_mkdtemp(); /* mode 0700, like /root */
        xpu_test_write(top, "driver/usr/lib64/.keep", "");
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s/driver", top);
        int fd = xpu_open_root(dir);
        ck_assert_int_ge(fd, 0);
        struct xpu_root_ref ref;
        char err[256] = "";
        ck_assert_msg(xpu_root_ref_init(&ref, fd, err, sizeof err) == 0, "%s", err);
        close(fd);
        for (int searchable = 0; searchable <= 1; searchable++) {
                ck_assert_int_eq(chmod(top, searchable ? 0711 : 0700), 0);
                pid_t pid = fork();
                ck_assert_int_ge(pid, 0);
                if (pid == 0) {
                        if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
                            setresuid(65534, 65534, 65534) < 0)
                                _exit(100);
                        int r = xpu_root_ref_open(&ref);
                        if (r >= 0)
                                _exit(0);
                        char msg[1024];
                        snprintf(msg, sizeof msg, "cannot reopen the driver root %s: %s%s", ref.path, strerror(-r),
                                 xpu_root_ref_hint(r));
                        char want[1024];
                        snprintf(want, sizeof want,
                                 "cannot reopen the driver root %s: Permission denied; the vendor-library helper "
                                 "runs as nobody: make the driver root and its parent directories searchable by "
                                 "others (chmod o+x)",
                                 ref.path);
                        _exit(r == -EACCES && strcmp(msg, want) == 0 ? 1 : 2);
                }
                int st = 0;
                ck_assert_int_eq(waitpid(pid, &st, 0), pid);
                ck_assert(WIFEXITED(st));
                ck_assert_int_eq(WEXITSTATUS(st), searchable ? 0 : 1);
        }
        xpu_test_rm_rf(top);
        free(top);
}
END_TEST

static Suite *reply_suite(void) {
        Suite *s = suite_create("reply");
        TCase *tc = tcase_create("core");
        tcase_add_test(tc, test_error_errno_not_trusted);
        tcase_add_test(tc, test_reply_fail_round_trip);
        tcase_add_test(tc, test_root_ref_hint);
        suite_add_tcase(s, tc);
        if (geteuid() == 0) {
                TCase *priv = tcase_create("root");
                tcase_add_test(priv, test_root_ref_unsearchable);
                suite_add_tcase(s, priv);
        }
        return s;
}

int main(void) {
        return xpu_test_run(reply_suite());
}
