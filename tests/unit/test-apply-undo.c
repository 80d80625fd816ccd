/* SPDX-License-Identifier: Apache-2.0 */
/* entrypoint/apply-undo.c: plans built by hand in the planner's order (plan-libdir.c), applied to
 * a temporary container root by xpu_plan_apply(), then taken back by xpu_plan_undo(): each kind
 * of operation of link mode, what is someone else's left alone, a plan applied only in part (a
 * mount mode one too, quiet about the tmpfs it never made), files at their own paths (only the
 * directories the apply made go; the image's file and link stay or come back), a path that leads
 * outside the root (reported, never followed), and ldconfig run once more only when the drop-in
 * went (mount mode: test-apply-undo.mount.c; both through apply-undo-fx.h).
 * ldconfig is the host's (`ldconfig -X -r ROOT`, the apply from outside), so nothing of this
 * machine's own loader is touched; its chroot needs root. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply-undo-fx.h"

/* Link mode, all applied: every link, the drop-in and xpuinit's directories go; ldconfig runs
 * again (the cache, removed here, is written anew); the image's directories stay. */
START_TEST(test_link_mode_undone) {
        struct xpu_plan *p = plan_new(false);
        apply(p, SIZE_MAX);
        ck_assert_int_eq(at(LIBDIR "/libfoo.so.1.2"), 'l');
        ck_assert_int_eq(at(LIBDIR "/libfoo.so.1"), 'l');
        ck_assert_int_eq(at(DROPIN), 'f');
        ck_assert_int_eq(at("/etc/ld.so.cache"), 'f'); /* the apply's ldconfig ran */
        char path[PATH_MAX * 2];
        in_container(path, sizeof path, "/etc/ld.so.cache");
        ck_assert_int_eq(unlink(path), 0);
        char err[1024];
        ck_assert_msg(undo(p, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(err, "");
        ck_assert_int_eq(at(LIBDIR "/libfoo.so.1.2"), 0);
        ck_assert_int_eq(at(LIBDIR "/libfoo.so.1"), 0);
        ck_assert_int_eq(at(LIBDIR), 0);
        ck_assert_int_eq(at(BASE), 0);
        ck_assert_int_eq(at(DROPIN), 0);
        ck_assert_int_eq(at("/run"), 'd');                     /* the image's */
        ck_assert_int_eq(at("/etc/ld.so.conf.d"), 'd');        /* the image's */
        ck_assert_int_eq(at("/etc/ld.so.conf.d/libc.conf"), 'f');
        ck_assert_int_eq(at("/etc/ld.so.cache"), 'f');         /* rebuilt without the drop-in */
        /* The driver root is never touched. */
        char lib[PATH_MAX * 2];
        snprintf(lib, sizeof lib, "%s/usr/lib/libfoo.so.1.2", driver);
        ck_assert_str_eq(contents(lib), "\177ELF driver library\n");
        /* Undoing again finds nothing left: no error. */
        ck_assert_msg(undo(p, err, sizeof err) == 0, "%s", err);
        xpu_plan_free(p);
}
END_TEST

/* What changed since the apply is someone else's: a drop-in with other content, a link that
 * points elsewhere now and a directory holding another file stay; ldconfig is not run again,
 * since the drop-in it would forget is still there. */
START_TEST(test_others_changes_stay) {
        struct xpu_plan *p = plan_new(false);
        apply(p, SIZE_MAX);
        char path[PATH_MAX * 2];
        in_container(path, sizeof path, DROPIN);
        ck_assert_int_eq(unlink(path), 0);
        xpu_test_write(container, DROPIN, "# mine\n/opt/lib\n");
        in_container(path, sizeof path, LIBDIR "/libfoo.so.1");
        ck_assert_int_eq(unlink(path), 0);
        ck_assert_int_eq(symlink("/opt/lib/libfoo.so.1", path), 0);
        xpu_test_write(container, LIBDIR "/notes.txt", "someone's\n");
        in_container(path, sizeof path, "/etc/ld.so.cache");
        ck_assert_int_eq(unlink(path), 0);
        char err[1024];
        ck_assert_msg(undo(p, err, sizeof err) == 0, "%s", err);
        in_container(path, sizeof path, DROPIN);
        ck_assert_str_eq(contents(path), "# mine\n/opt/lib\n");
        char buf[PATH_MAX];
        in_container(path, sizeof path, LIBDIR "/libfoo.so.1");
        ssize_t n = readlink(path, buf, sizeof buf - 1);
        ck_assert_int_gt(n, 0);
        buf[n] = '\0';
        ck_assert_str_eq(buf, "/opt/lib/libfoo.so.1");
        ck_assert_int_eq(at(LIBDIR "/libfoo.so.1.2"), 0); /* still ours: removed */
        ck_assert_int_eq(at(LIBDIR "/notes.txt"), 'f');
        ck_assert_int_eq(at(LIBDIR), 'd');
        ck_assert_int_eq(at("/etc/ld.so.cache"), 0); /* not rebuilt */
        xpu_plan_free(p);
}
END_TEST

/* A plan applied only up to its first link (a failure or a stop in the middle): the undo of the
 * whole plan takes back what is there and finds the rest missing, without an error. */
START_TEST(test_half_applied) {
        struct xpu_plan *p = plan_new(false);
        apply(p, 2); /* mkdir LIBDIR, the library's link */
        ck_assert_int_eq(at(LIBDIR "/libfoo.so.1.2"), 'l');
        ck_assert_int_eq(at(LIBDIR "/libfoo.so.1"), 0);
        char err[1024];
        ck_assert_msg(undo(p, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(err, "");
        ck_assert_int_eq(at(LIBDIR "/libfoo.so.1.2"), 0);
        ck_assert_int_eq(at(BASE), 0);
        ck_assert_int_eq(at(DROPIN), 0);
        ck_assert_int_eq(at("/etc/ld.so.cache"), 0); /* no drop-in went: ldconfig not run */
        ck_assert_int_eq(at("/etc/ld.so.conf.d/libc.conf"), 'f');
        xpu_plan_free(p);
}
END_TEST

/* A mount mode plan stopped after its first directory (the tmpfs never mounted): the undo takes
 * the directory back and says nothing of the tmpfs it never made. */
START_TEST(test_half_applied_mount_quiet) {
        struct xpu_plan *p = plan_new(true);
        apply(p, 1); /* mkdir /run/xpuinit */
        ck_assert_int_eq(at(BASE), 'd');
        char err[1024];
        ck_assert_msg(undo(p, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(err, "");
        ck_assert_int_eq(at(BASE), 0);
        ck_assert_int_eq(at("/run"), 'd');
        xpu_plan_free(p);
}
END_TEST

/* Files at their own paths (a host list's, link mode): the directories a mkdir -p made go, the
 * image's part of the path stays; a file of the image's where a link goes is left as it is by the
 * apply and by the undo; a link of the image's that the apply replaced gets its text back. */
START_TEST(test_own_paths_link) {
        xpu_test_write(container, "usr/lib/keep", "");
        xpu_test_write(container, "opt/img/libimg.so.1.1", "image's\n");
        char path[PATH_MAX * 2], buf[PATH_MAX];
        in_container(path, sizeof path, "/opt/img/libimg.so.1");
        ck_assert_int_eq(symlink("libimg.so.1.0", path), 0);
        struct xpu_plan *p = calloc(1, sizeof *p);
        ck_assert_ptr_nonnull(p);
        p->inject = XPU_INJECT_LINK;
        add(p, XPU_OP_MKDIR, "/usr/lib/gpu/sub");
        struct xpu_op *op = add(p, XPU_OP_SYMLINK, "/usr/lib/gpu/sub/libcuda.so.1.1");
        snprintf(op->target, sizeof op->target, "%s/usr/lib/libfoo.so.1.2", driver);
        add(p, XPU_OP_MKDIR, "/opt/img");
        op = add(p, XPU_OP_SYMLINK, "/opt/img/libimg.so.1.1");
        snprintf(op->target, sizeof op->target, "%s/usr/lib/libfoo.so.1.2", driver);
        op = add(p, XPU_OP_SYMLINK, "/opt/img/libimg.so.1");
        snprintf(op->target, sizeof op->target, "libimg.so.1.1");
        apply(p, SIZE_MAX);
        ck_assert_int_eq(at("/usr/lib/gpu/sub/libcuda.so.1.1"), 'l');
        in_container(path, sizeof path, "/opt/img/libimg.so.1.1");
        ck_assert_int_eq(at("/opt/img/libimg.so.1.1"), 'f'); /* the image's, left */
        ck_assert_str_eq(contents(path), "image's\n");
        in_container(path, sizeof path, "/opt/img/libimg.so.1");
        ssize_t n = readlink(path, buf, sizeof buf - 1);
        ck_assert_int_gt(n, 0);
        buf[n] = '\0';
        ck_assert_str_eq(buf, "libimg.so.1.1");
        char err[1024];
        ck_assert_msg(undo(p, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(err, "");
        ck_assert_int_eq(at("/usr/lib/gpu"), 0);
        ck_assert_int_eq(at("/usr/lib/keep"), 'f');
        in_container(path, sizeof path, "/opt/img/libimg.so.1.1");
        ck_assert_str_eq(contents(path), "image's\n");
        in_container(path, sizeof path, "/opt/img/libimg.so.1");
        n = readlink(path, buf, sizeof buf - 1);
        ck_assert_int_gt(n, 0);
        buf[n] = '\0';
        ck_assert_str_eq(buf, "libimg.so.1.0"); /* the image's text again */
        ck_assert_int_eq(at("/opt/img"), 'd');
        xpu_plan_free(p);
}
END_TEST

/* Nothing recorded (an undo without the apply's record): nothing is known to be ours, nothing is
 * removed. */
START_TEST(test_no_record_nothing_removed) {
        struct xpu_plan *p = plan_new(false);
        apply(p, SIZE_MAX);
        struct xpu_apply_roots r = roots();
        r.record = NULL;
        char err[1024];
        ck_assert_int_eq(xpu_plan_undo(p, &r, err, sizeof err), 0);
        ck_assert_int_eq(at(LIBDIR "/libfoo.so.1.2"), 'l');
        ck_assert_int_eq(at(DROPIN), 'f');
        xpu_plan_free(p);
}
END_TEST

/* After the apply, the drop-in's directory became a link out of the root, to a directory with a
 * file of the same name and content: the undo does not follow it (the file outside stays),
 * names what stays behind and how to remove it, and still takes back everything else. */
START_TEST(test_link_out_of_root_not_followed) {
        struct xpu_plan *p = plan_new(false);
        apply(p, SIZE_MAX);
        char outside[PATH_MAX], path[PATH_MAX * 2];
        snprintf(outside, sizeof outside, "%s/outside", tmp);
        xpu_test_write(outside, "000-xpuinit.conf", DROPIN_TEXT);
        xpu_test_write(outside, "libc.conf", "/usr/local/lib\n");
        in_container(path, sizeof path, "/etc/ld.so.conf.d");
        xpu_test_rm_rf(path);
        ck_assert_int_eq(symlink(outside, path), 0);
        char err[1024];
        int r = undo(p, err, sizeof err);
        ck_assert_int_lt(r, 0);
        ck_assert_msg(strstr(err, "cannot remove the file " DROPIN " from the container") &&
                              strstr(err, "remove it by hand"),
                      "%s", err);
        snprintf(path, sizeof path, "%s/000-xpuinit.conf", outside);
        ck_assert_str_eq(contents(path), DROPIN_TEXT);
        ck_assert_int_eq(at(LIBDIR "/libfoo.so.1.2"), 0); /* every other step was tried */
        ck_assert_int_eq(at(BASE), 0);
        xpu_plan_free(p);
}
END_TEST

int main(void) {
        Suite *s = suite_create("apply-undo");
        TCase *tc = tcase_create("undo");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_link_mode_undone);
        tcase_add_test(tc, test_others_changes_stay);
        tcase_add_test(tc, test_half_applied);
        tcase_add_test(tc, test_half_applied_mount_quiet);
        tcase_add_test(tc, test_own_paths_link);
        tcase_add_test(tc, test_no_record_nothing_removed);
        tcase_add_test(tc, test_link_out_of_root_not_followed);
        suite_add_tcase(s, tc);
        return xpu_test_run(s);
}
