/* SPDX-License-Identifier: Apache-2.0 */
/* What test-apply-undo.c and test-apply-undo.mount.c share: a container root and a driver root
 * in a scratch directory, the plan the planner makes for one driver library (plan-libdir.c's
 * order), its apply (xpu_plan_apply(), from outside: the host's ldconfig -X -r ROOT) and undo
 * (xpu_plan_undo()), and what is left at a path of the container. */
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply-undo.h"
#include "base/path.h"
#include "plan.h"
#include "testlib.h"

#define LIBDIR "/run/xpuinit/lib"
#define BASE "/run/xpuinit"
#define DROPIN "/etc/ld.so.conf.d/000-xpuinit.conf"
#define DROPIN_TEXT "# written by xpuinit: host driver libraries\n" LIBDIR "\n"

static char *tmp;              /* per-test scratch directory */
static char container[PATH_MAX]; /* the container root */
static char driver[PATH_MAX];    /* the driver root (bind sources) */
static int container_fd = -1, driver_fd = -1;
static struct xpu_apply_record record; /* what the last apply() made, for undo() */

static void setup(void) {
        tmp = xpu_test_mkdtemp();
        snprintf(container, sizeof container, "%s/rootfs", tmp);
        snprintf(driver, sizeof driver, "%s/driver", tmp);
        /* An image with a loader configuration and its own /run and /etc/ld.so.conf.d. */
        xpu_test_write(container, "etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n");
        xpu_test_write(container, "etc/ld.so.conf.d/libc.conf", "/usr/local/lib\n");
        xpu_test_write(container, "run/.keep", "");
        xpu_test_write(driver, "usr/lib/libfoo.so.1.2", "\177ELF driver library\n");
        container_fd = xpu_open_root(container);
        driver_fd = xpu_open_root(driver);
        ck_assert_int_ge(container_fd, 0);
        ck_assert_int_ge(driver_fd, 0);
}

static void teardown(void) {
        close(container_fd);
        close(driver_fd);
        xpu_apply_record_done(&record);
        xpu_test_rm_rf(tmp);
        free(tmp);
}

static struct xpu_op *add(struct xpu_plan *p, enum xpu_op_type type, const char *path) {
        struct xpu_op *op = xpu_plan_add_op(p, type, path);
        ck_assert_ptr_nonnull(op);
        op->mode = type == XPU_OP_WRITE_FILE ? 0644 : 0755;
        return op;
}

/* The plan the planner makes for one driver library libfoo.so.1.2 (soname libfoo.so.1): MOUNT,
 * a tmpfs on /run/xpuinit with a read-only bind mount; else symlinks into the driver root. Then
 * the loader drop-in and ldconfig. */
static struct xpu_plan *plan_new(bool mount) {
        struct xpu_plan *p = calloc(1, sizeof *p);
        ck_assert_ptr_nonnull(p);
        p->inject = mount ? XPU_INJECT_MOUNT : XPU_INJECT_LINK;
        snprintf(p->library_dir, sizeof p->library_dir, LIBDIR);
        if (mount) {
                add(p, XPU_OP_MKDIR, BASE);
                add(p, XPU_OP_TMPFS, BASE);
        }
        add(p, XPU_OP_MKDIR, LIBDIR);
        struct xpu_op *op = add(p, mount ? XPU_OP_BIND : XPU_OP_SYMLINK, LIBDIR "/libfoo.so.1.2");
        if (mount)
                snprintf(op->source, sizeof op->source, "/usr/lib/libfoo.so.1.2");
        else
                snprintf(op->target, sizeof op->target, "%s/usr/lib/libfoo.so.1.2", driver);
        op = add(p, XPU_OP_SYMLINK, LIBDIR "/libfoo.so.1");
        snprintf(op->target, sizeof op->target, "libfoo.so.1.2");
        if (mount)
                add(p, XPU_OP_REMOUNT_RO, BASE);
        add(p, XPU_OP_MKDIR, "/etc/ld.so.conf.d");
        op = add(p, XPU_OP_WRITE_FILE, DROPIN);
        op->content = strdup(DROPIN_TEXT);
        ck_assert_ptr_nonnull(op->content);
        add(p, XPU_OP_LDCONFIG, "/sbin/ldconfig");
        return p;
}

static struct xpu_apply_roots roots(void) {
        return (struct xpu_apply_roots){ .container_fd = container_fd, .container_path = container,
                                         .driver_fd = driver_fd, .dev_fd = container_fd, .dev_path = container,
                                         .record = &record };
}

/* Apply the first N operations of P (all: SIZE_MAX), recording what they made. */
static void apply(const struct xpu_plan *p, size_t n) {
        struct xpu_plan part = *p;
        part.n_ops = n < p->n_ops ? n : p->n_ops;
        const struct xpu_apply_roots r = roots();
        char err[1024] = "";
        ck_assert_msg(xpu_plan_apply(&part, &r, false, err, sizeof err) == 0, "%s", err);
}

static int undo(const struct xpu_plan *p, char *err, size_t size) {
        const struct xpu_apply_roots r = roots();
        return xpu_plan_undo(p, &r, err, size);
}

/* What is at REL in the container: 'f' file, 'l' link, 'd' directory, 0 nothing. */
static char at(const char *rel) {
        char path[PATH_MAX * 2];
        snprintf(path, sizeof path, "%s%s", container, rel);
        struct stat st;
        if (lstat(path, &st) < 0) {
                ck_assert_int_eq(errno, ENOENT);
                return 0;
        }
        return S_ISREG(st.st_mode) ? 'f' : S_ISLNK(st.st_mode) ? 'l' : S_ISDIR(st.st_mode) ? 'd' : '?';
}

static char *contents(const char *path) {
        static char buf[4096];
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        buf[n > 0 ? n : 0] = '\0';
        return buf;
}

static void in_container(char *buf, size_t size, const char *rel) {
        snprintf(buf, size, "%s%s", container, rel);
}

