/* SPDX-License-Identifier: Apache-2.0 */
/* Undo of an apply (apply-undo.h): the operations it completed, backwards, each taking back only
 * what its record says it made; each path reached beneath the container root exactly as apply.c
 * reached it when writing. */
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

/* A file the apply wrote (a loader drop-in), when it still holds OP's content. Returns whether it
 * was removed. */
static bool undo_write_file(int root_fd, const struct xpu_op *op, struct undo_result *u) {
        char name[NAME_MAX + 1];
        _cleanup_close_ int dfd = open_parent(root_fd, op->path, name, "the file", u);
        if (dfd < 0)
                return false;
        _cleanup_close_ int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0) {
                if (errno != ENOENT)
                        undo_failed(u, negative_errno(), "the file", op->path);
                return false;
        }
        size_t want = op->content ? strlen(op->content) : 0;
        char buf[4096];
        struct stat st;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size != want || want >= sizeof buf)
                return false; /* not what we wrote (or not readable as such): someone else's */
        ssize_t n = xpu_read_full(fd, buf, sizeof buf);
        if (n != (ssize_t)want || memcmp(buf, op->content, want) != 0)
                return false;
        if (unlinkat(dfd, name, 0) < 0 && errno != ENOENT) {
                undo_failed(u, negative_errno(), "the file", op->path);
                return false;
        }
        return true;
}

/* A link the apply made (removed) or put over the image's link (the image's text put back), when
 * it still points where the apply made it point. */
static void undo_symlink(int root_fd, const struct xpu_op *op, const struct xpu_op_made *m, struct undo_result *u) {
        if (!m->created && !m->replaced)
                return; /* it was there already, or the image's file was left */
        char name[NAME_MAX + 1], cur[PATH_MAX];
        _cleanup_close_ int dfd = open_parent(root_fd, op->path, name, "the link", u);
        if (dfd < 0)
                return;
        ssize_t n = readlinkat(dfd, name, cur, sizeof cur - 1);
        if (n < 0)
                return;
        cur[n] = '\0';
        if (strcmp(cur, op->target) != 0)
                return; /* changed since: someone else's */
        if (m->created) {
                if (unlinkat(dfd, name, 0) < 0 && errno != ENOENT)
                        undo_failed(u, negative_errno(), "the link", op->path);
                return;
        }
        /* The image's link again, under a temporary name first, as apply.c made ours. */
        char tmp[NAME_MAX + 1];
        snprintf(tmp, sizeof tmp, ".xpuinit-%d.tmp", (int)getpid());
        (void)unlinkat(dfd, tmp, 0);
        if (symlinkat(m->replaced, dfd, tmp) < 0 || renameat(dfd, tmp, dfd, name) < 0) {
                undo_failed(u, negative_errno(), "the link", op->path);
                (void)unlinkat(dfd, tmp, 0);
        }
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

/* A bind mount outside the tmpfs (a file at its own path): detached through its descriptor, then
 * its mount point removed when the apply made it and it is still what it made (an empty file, an
 * empty directory). */
static void undo_bind(int root_fd, const struct xpu_op *op, const struct xpu_op_made *m, struct undo_result *u) {
        char name[NAME_MAX + 1];
        _cleanup_close_ int dfd = open_parent(root_fd, op->path, name, "the mount on", u);
        if (dfd < 0)
                return;
        _cleanup_close_ int fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
                if (errno != ENOENT)
                        undo_failed(u, negative_errno(), "the mount on", op->path);
                return;
        }
        struct statx stx;
        if (statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx) == 0 &&
            (stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) && (stx.stx_attributes & STATX_ATTR_MOUNT_ROOT)) {
                char proc[64];
                snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
                if (umount2(proc, MNT_DETACH) < 0) {
                        undo_failed(u, negative_errno(), "the mount on", op->path);
                        return;
                }
        }
        if (!m->created)
                return; /* the image's own file or directory, hidden by the mount until now */
        struct stat st;
        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return;
        int r = 0;
        if (S_ISREG(st.st_mode) && st.st_size == 0)
                r = unlinkat(dfd, name, 0) < 0 && errno != ENOENT ? negative_errno() : 0;
        else if (S_ISDIR(st.st_mode))
                r = unlinkat(dfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT && errno != ENOTEMPTY &&
                                    errno != EEXIST
                            ? negative_errno()
                            : 0;
        if (r < 0)
                undo_failed(u, r, "the mount point", op->path);
}

/* One empty directory. Returns 1 when it is gone (or was), 0 when it stays (not empty: it holds
 * something that is not ours), -errno after recording the failure. */
static int remove_dir(int root_fd, const char *path, struct undo_result *u) {
        char name[NAME_MAX + 1];
        _cleanup_close_ int dfd = open_parent(root_fd, path, name, "the directory", u);
        if (dfd == -ENOENT)
                return 1;
        if (dfd < 0)
                return dfd;
        if (unlinkat(dfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
                return 1;
        if (errno == ENOTEMPTY || errno == EEXIST)
                return 0;
        int r = negative_errno();
        undo_failed(u, r, "the directory", path);
        return r;
}

/* The directories a mkdir -p made: PATH, then its parents, down to the part that was there
 * (KEPT bytes of it), each while empty. */
static void undo_mkdir(int root_fd, const char *path, size_t kept, struct undo_result *u) {
        char buf[PATH_MAX];
        if (xpu_strlcpy(buf, path, sizeof buf) < 0)
                return;
        for (size_t len = strlen(buf); len > kept && len > 1;) {
                if (remove_dir(root_fd, buf, u) <= 0)
                        return;
                char *slash = strrchr(buf, '/');
                if (!slash || slash == buf)
                        return;
                *slash = '\0';
                len = (size_t)(slash - buf);
        }
}

/* PATH is strictly below BASE. */
static bool path_below(const char *path, const char *base) {
        size_t n = strlen(base);
        return strncmp(path, base, n) == 0 && path[n] == '/';
}

/* Operation I of P is on a tmpfs the apply mounted (mount mode's /run/xpuinit): it goes with it. */
static bool on_our_tmpfs(const struct xpu_plan *p, const struct xpu_apply_record *rec, size_t i) {
        for (size_t j = 0; j < i; j++)
                if (p->ops[j].type == XPU_OP_TMPFS && rec->ops[j].done && path_below(p->ops[i].path, p->ops[j].path))
                        return true;
        return false;
}

int xpu_plan_undo(const struct xpu_plan *p, const struct xpu_apply_roots *roots, char *err, size_t err_size) {
        struct undo_result u = { .err = err, .err_size = err_size };
        err[0] = '\0';
        const struct xpu_apply_record *rec = roots->record;
        if (!rec || !rec->ops)
                return 0; /* nothing recorded: nothing known to be ours */
        const int root_fd = roots->container_fd;
        size_t ldconfig = SIZE_MAX; /* index of the ldconfig operation, when it ran */
        const char *dropin = NULL; /* a loader drop-in removed */
        for (size_t i = p->n_ops < rec->n ? p->n_ops : rec->n; i-- > 0;) {
                const struct xpu_op *op = &p->ops[i];
                const struct xpu_op_made *m = &rec->ops[i];
                if (!m->done || on_our_tmpfs(p, rec, i))
                        continue; /* never made, or detached with the tmpfs */
                switch (op->type) {
                case XPU_OP_LDCONFIG:
                        ldconfig = i;
                        break;
                case XPU_OP_WRITE_FILE:
                        if (m->created && undo_write_file(root_fd, op, &u))
                                dropin = op->path;
                        break;
                case XPU_OP_SYMLINK:
                        undo_symlink(root_fd, op, m, &u);
                        break;
                case XPU_OP_TMPFS:
                        undo_tmpfs(root_fd, op, &u);
                        break;
                case XPU_OP_BIND:
                        undo_bind(root_fd, op, m, &u);
                        break;
                case XPU_OP_MKDIR:
                        undo_mkdir(root_fd, op->path, m->kept, &u);
                        break;
                case XPU_OP_REMOUNT_RO:
                case XPU_OP_CHECK_DEVNODE:
                default:
                        break;
                }
        }
        if (ldconfig != SIZE_MAX && dropin) {
                /* The cache names the drop-in's directories until it is rebuilt without it. */
                char why[1024];
                int r = xpu_ldconfig_run(root_fd, p->ops[ldconfig].path, roots->container_path, why, sizeof why);
                if (r < 0 && u.error == 0) {
                        u.error = r;
                        xpu_format_error(err, err_size, "%s (rebuilding /etc/ld.so.cache without %s)", why, dropin);
                }
        }
        return u.error;
}
