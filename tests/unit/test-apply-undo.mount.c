/* SPDX-License-Identifier: Apache-2.0 */
/* entrypoint/apply-undo.c in mount mode (the link mode and the rules: test-apply-undo.c): in a
 * mount namespace of the test's own, the tmpfs on /run/xpuinit made by the apply (fsopen,
 * fsmount, move_mount) is detached by the undo with its bind mount and links, and the directory
 * removed; files bound at their own paths (a host list's) are detached and their mount points and
 * directories removed where the apply made them. Needs root (unshare(CLONE_NEWNS), mounts). */
#include <sched.h>
#include <sys/mount.h>

#include "apply-undo-fx.h"

/* Is PATH a mount point in this mount namespace? */
static bool mounted(const char *path) {
        FILE *f = fopen("/proc/self/mountinfo", "re");
        ck_assert_ptr_nonnull(f);
        char line[4096], mnt[PATH_MAX];
        bool found = false;
        while (!found && fgets(line, sizeof line, f))
                found = sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1 && strcmp(mnt, path) == 0;
        fclose(f);
        return found;
}

/* Mount mode, in a mount namespace of the test's own: the tmpfs on /run/xpuinit is detached
 * (its bind mount and links go with it) and the directory removed; the drop-in goes and
 * ldconfig runs again. */
START_TEST(test_mount_mode_undone) {
        ck_assert_msg(unshare(CLONE_NEWNS) == 0, "unshare(CLONE_NEWNS): %s (needs root)", strerror(errno));
        ck_assert_int_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
        /* Descriptors of the old namespace cannot take a mount of this one (as main.c's
         * reopen_roots). */
        close(container_fd);
        close(driver_fd);
        container_fd = xpu_open_root(container);
        driver_fd = xpu_open_root(driver);
        ck_assert_int_ge(container_fd, 0);
        ck_assert_int_ge(driver_fd, 0);
        struct xpu_plan *p = plan_new(true);
        apply(p, SIZE_MAX);
        char path[PATH_MAX * 2];
        in_container(path, sizeof path, BASE);
        ck_assert(mounted(path));
        in_container(path, sizeof path, LIBDIR "/libfoo.so.1");
        ck_assert_str_eq(contents(path), "\177ELF driver library\n"); /* through the link to the bind mount */
        in_container(path, sizeof path, "/etc/ld.so.cache");
        ck_assert_int_eq(unlink(path), 0);
        char err[1024];
        ck_assert_msg(undo(p, err, sizeof err) == 0, "%s", err);
        in_container(path, sizeof path, BASE);
        ck_assert(!mounted(path));
        ck_assert_int_eq(at(BASE), 0);
        ck_assert_int_eq(at("/run"), 'd');
        ck_assert_int_eq(at(DROPIN), 0);
        ck_assert_int_eq(at("/etc/ld.so.cache"), 'f');
        char lib[PATH_MAX * 2];
        snprintf(lib, sizeof lib, "%s/usr/lib/libfoo.so.1.2", driver);
        ck_assert_str_eq(contents(lib), "\177ELF driver library\n");
        xpu_plan_free(p);
}
END_TEST

/* Files at their own paths in mount mode (a host list's): each bind is detached and its mount
 * point removed when the apply made it (an empty file, a directory), with the directories made for
 * them; a file of the image's under a bind is uncovered as it was; a link outside the tmpfs goes. */
START_TEST(test_own_path_binds_undone) {
        ck_assert_msg(unshare(CLONE_NEWNS) == 0, "unshare(CLONE_NEWNS): %s (needs root)", strerror(errno));
        ck_assert_int_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
        close(container_fd);
        close(driver_fd);
        xpu_test_write(container, "usr/lib/keep", "");
        xpu_test_write(container, "usr/sbin/nvidia-smi", "image's smi\n");
        xpu_test_write(driver, "fw/a.bin", "firmware\n");
        container_fd = xpu_open_root(container);
        driver_fd = xpu_open_root(driver);
        ck_assert_int_ge(container_fd, 0);
        ck_assert_int_ge(driver_fd, 0);
        struct xpu_plan *p = calloc(1, sizeof *p);
        ck_assert_ptr_nonnull(p);
        p->inject = XPU_INJECT_MOUNT;
        add(p, XPU_OP_MKDIR, "/usr/lib/gpu");
        struct xpu_op *op = add(p, XPU_OP_BIND, "/usr/lib/gpu/libfoo.so.1.2");
        snprintf(op->source, sizeof op->source, "/usr/lib/libfoo.so.1.2");
        op->host_file = true;
        op->host_kind = XPU_HOST_FILE_REGULAR;
        op = add(p, XPU_OP_SYMLINK, "/usr/lib/gpu/libfoo.so.1");
        snprintf(op->target, sizeof op->target, "libfoo.so.1.2");
        add(p, XPU_OP_MKDIR, "/usr/sbin");
        op = add(p, XPU_OP_BIND, "/usr/sbin/nvidia-smi");
        snprintf(op->source, sizeof op->source, "/usr/lib/libfoo.so.1.2");
        op->host_file = true;
        op->host_kind = XPU_HOST_FILE_REGULAR;
        add(p, XPU_OP_MKDIR, "/lib");
        op = add(p, XPU_OP_BIND, "/lib/fw");
        snprintf(op->source, sizeof op->source, "/fw");
        op->host_file = true;
        op->host_kind = XPU_HOST_FILE_TREE;
        apply(p, SIZE_MAX);
        char path[PATH_MAX * 2];
        in_container(path, sizeof path, "/usr/lib/gpu/libfoo.so.1");
        ck_assert_str_eq(contents(path), "\177ELF driver library\n");
        in_container(path, sizeof path, "/usr/sbin/nvidia-smi");
        ck_assert_str_eq(contents(path), "\177ELF driver library\n");
        ck_assert(mounted(path));
        in_container(path, sizeof path, "/lib/fw/a.bin");
        ck_assert_str_eq(contents(path), "firmware\n");
        char err[1024];
        ck_assert_msg(undo(p, err, sizeof err) == 0, "%s", err);
        ck_assert_str_eq(err, "");
        in_container(path, sizeof path, "/usr/sbin/nvidia-smi");
        ck_assert(!mounted(path));
        ck_assert_str_eq(contents(path), "image's smi\n");
        in_container(path, sizeof path, "/lib/fw");
        ck_assert(!mounted(path));
        ck_assert_int_eq(at("/lib"), 0);
        ck_assert_int_eq(at("/usr/lib/gpu"), 0);
        ck_assert_int_eq(at("/usr/lib/keep"), 'f');
        ck_assert_int_eq(at("/usr/sbin"), 'd');
        xpu_plan_free(p);
}
END_TEST

int main(void) {
        Suite *s = suite_create("apply-undo.mount");
        TCase *tc = tcase_create("undo");
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_set_timeout(tc, 60);
        tcase_add_test(tc, test_mount_mode_undone);
        tcase_add_test(tc, test_own_path_binds_undone);
        suite_add_tcase(s, tc);
        return xpu_test_run(s);
}
