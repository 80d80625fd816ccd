/* SPDX-License-Identifier: Apache-2.0 */
/* Undo of a completed apply (apply-undo.h): the operations backwards, each path reached beneath the
 * container root exactly as apply.c reached it when writing. */
#include "apply-undo.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/log.h"
#include "base/macro.h"
#include "base/path.h"
#include "base/str.h"
#include "ldconfig.h"

/* Keep the first failure's message; later ones only count. */
struct undo_result {
        int error;
        char *err;
        size_t err_size;
};

static void undo_failed(struct undo_result *u, int r, const char *what, const char *path) {
        if (u->error < 0)
                return;
        u->error = r;
        xpu_format_error(u->err, u->err_size, "cannot remove %s %s from the container (%s); remove it by hand", what,
                         path, strerror(-r));
}

/* The directory holding PATH and PATH's last component, as apply.c opens write targets. A
 * failure other than -ENOENT (nothing left to undo) is recorded as WHAT's. Returns the fd or
 * -errno. */
static int open_parent(int root_fd, const char *path, char name[NAME_MAX + 1], const char *what,
                       struct undo_result *u) {
        int dfd = xpu_open_parent_beneath(root_fd, path, O_RDONLY, name, NAME_MAX + 1, NULL);
        if (dfd < 0 && dfd != -ENOENT)
                undo_failed(u, dfd, what, path);
        return dfd;
}

/* The loader drop-in, when it still holds CONTENT. */
static void undo_write_file(int root_fd, const struct xpu_op *op, bool *removed, struct undo_result *u) {
        char name[NAME_MAX + 1];
        _cleanup_close_ int dfd = open_parent(root_fd, op->path, name, "the file", u);
        if (dfd < 0)
                return;
        _cleanup_close_ int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0) {
                if (errno != ENOENT)
                        undo_failed(u, negative_errno(), "the file", op->path);
                return;
        }
        size_t want = op->content ? strlen(op->content) : 0;
        char buf[4096];
        struct stat st;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size != want || want >= sizeof buf)
                return; /* not what we wrote (or not readable as such): someone else's */
        ssize_t n = xpu_read_full(fd, buf, sizeof buf);
        if (n != (ssize_t)want || memcmp(buf, op->content, want) != 0)
                return;
        if (unlinkat(dfd, name, 0) < 0 && errno != ENOENT) {
                undo_failed(u, negative_errno(), "the file", op->path);
                return;
        }
        *removed = true;
}

/* A link mode symlink, when it still points where apply made it point. */
static void undo_symlink(int root_fd, const struct xpu_op *op, struct undo_result *u) {
        char name[NAME_MAX + 1], cur[PATH_MAX];
        _cleanup_close_ int dfd = open_parent(root_fd, op->path, name, "the link", u);
        if (dfd < 0)
                return;
        ssize_t n = readlinkat(dfd, name, cur, sizeof cur - 1);
        if (n < 0)
                return;
        cur[n] = '\0';
        if (strcmp(cur, op->target) == 0 && unlinkat(dfd, name, 0) < 0 && errno != ENOENT)
                undo_failed(u, negative_errno(), "the link", op->path);
}

/* Detach the tmpfs of mount mode through its directory's descriptor (the path is not resolved
 * again by the kernel). */
static void undo_tmpfs(int root_fd, const struct xpu_op *op, struct undo_result *u) {
        _cleanup_close_ int fd = xpu_open_beneath(root_fd, op->path, O_PATH | O_DIRECTORY | O_NOFOLLOW, 0, NULL);
        if (fd < 0) {
                undo_failed(u, fd, "the tmpfs on", op->path);
                return;
        }
        char proc[64];
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
        if (umount2(proc, MNT_DETACH) < 0)
                undo_failed(u, negative_errno(), "the tmpfs on", op->path);
}

/* An empty directory; one that is not empty holds something that is not ours. */
static void undo_mkdir(int root_fd, const char *path, struct undo_result *u) {
        char name[NAME_MAX + 1];
        _cleanup_close_ int dfd = open_parent(root_fd, path, name, "the directory", u);
        if (dfd < 0)
                return;
        if (unlinkat(dfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT && errno != ENOTEMPTY && errno != EEXIST)
                undo_failed(u, negative_errno(), "the directory", path);
}

/* PATH is BASE or below it. */
static bool path_under(const char *path, const char *base) {
        size_t n = strlen(base);
        return strncmp(path, base, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

int xpu_plan_undo(const struct xpu_plan *p, const struct xpu_apply_roots *roots, char *err, size_t err_size) {
        struct undo_result u = { .err = err, .err_size = err_size };
        err[0] = '\0';
        const int root_fd = roots->container_fd;
        const bool mount = p->inject == XPU_INJECT_MOUNT;
        /* xpuinit's own directory: the parent of the library directory ("/run/xpuinit"). */
        char base[PATH_MAX];
        if (xpu_strlcpy(base, p->library_dir, sizeof base) < 0)
                return -ENAMETOOLONG;
        char *slash = strrchr(base, '/');
        if (slash && slash != base)
                *slash = '\0';
        size_t ldconfig = SIZE_MAX; /* index of the ldconfig operation */
        bool dropin_removed = false;
        for (size_t i = p->n_ops; i-- > 0;) {
                const struct xpu_op *op = &p->ops[i];
                switch (op->type) {
                case XPU_OP_LDCONFIG:
                        ldconfig = i;
                        break;
                case XPU_OP_WRITE_FILE:
                        undo_write_file(root_fd, op, &dropin_removed, &u);
                        break;
                case XPU_OP_SYMLINK:
                        if (!mount) /* in mount mode they are on the tmpfs */
                                undo_symlink(root_fd, op, &u);
                        break;
                case XPU_OP_TMPFS:
                        undo_tmpfs(root_fd, op, &u);
                        break;
                case XPU_OP_MKDIR:
                        /* Below the tmpfs in mount mode: gone with it. */
                        if (path_under(op->path, base) && !(mount && strcmp(op->path, base) != 0))
                                undo_mkdir(root_fd, op->path, &u);
                        break;
                case XPU_OP_BIND:
                case XPU_OP_REMOUNT_RO:
                case XPU_OP_CHECK_DEVNODE:
                default:
                        break;
                }
        }
        if (!mount && strcmp(base, p->library_dir) != 0)
                undo_mkdir(root_fd, base, &u); /* made by mkdir -p as the library directory's parent */
        if (ldconfig != SIZE_MAX && dropin_removed) {
                /* The cache names the library directory until it is rebuilt without the drop-in. */
                char why[1024];
                int r = xpu_ldconfig_run(root_fd, p->ops[ldconfig].path, roots->container_path, why, sizeof why);
                if (r < 0 && u.error == 0) {
                        u.error = r;
                        xpu_format_error(err, err_size, "%s (rebuilding /etc/ld.so.cache without %s)", why,
                                         p->library_dir);
                }
        }
        return u.error;
}
