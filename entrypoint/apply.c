/* SPDX-License-Identifier: Apache-2.0 */
/* apply: walk the plan's operations in order, one switch. Every path in the
 * container root and the driver root is opened through openat2(RESOLVE_IN_ROOT) file
 * descriptors; mounts are made from those descriptors with the new mount API, so no path string
 * is ever joined with a root. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/log.h"
#include "sandbox/privilege.h"
#include "sandbox/seccomp.h"
#include "plan.h"
#include "base/str.h"
#include "base/path.h"
#include "devcode/elf.h"
#include "ldconfig.h"

#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY 0x00000001
#define MOUNT_ATTR_NOSUID 0x00000002
#define MOUNT_ATTR_NODEV 0x00000004
#endif

/* A refused write target: one line naming the path, what it is and the fix. */
static void refusal_error(const struct xpu_path_refusal *why, const char *path, char *err, size_t err_size) {
        char what[PATH_MAX * 2 + 160];
        if (why->kind == XPU_REFUSE_NONE)
                return;
        xpu_path_refusal_format(why, "the container root", what, sizeof what);
        xpu_format_error(err, err_size,
                         "%s; refusing to write there (needed for %s): make the path a plain directory of the "
                         "image, or a link relative to and inside it (docs/safe-paths.md)",
                         what, path);
}

/* The length of PATH's leading part that is there below ROOT_FD (PATH's own length when all of it
 * is): what a mkdir -p of PATH does not make. A component that cannot be looked at for another
 * reason than ENOENT counts as there, so that the undo removes less, never more. */
static size_t existing_prefix(int root_fd, const char *path) {
        char buf[PATH_MAX];
        size_t len = strlen(path), kept = 0;
        if (len >= sizeof buf)
                return len;
        memcpy(buf, path, len + 1);
        for (size_t i = 1; i <= len; i++) {
                if (i < len && buf[i] != '/')
                        continue;
                char c = buf[i];
                buf[i] = '\0';
                int fd = xpu_open_beneath(root_fd, buf, O_PATH, 0, NULL);
                buf[i] = c;
                if (fd == -ENOENT)
                        break;
                if (fd >= 0)
                        close(fd);
                kept = i;
        }
        return kept;
}

static int do_mkdir(int root_fd, const struct xpu_op *op, struct xpu_op_made *m, char *err, size_t err_size) {
        struct xpu_path_refusal why;
        m->kept = existing_prefix(root_fd, op->path);
        int fd = xpu_mkdir_p_in_root(root_fd, op->path, op->mode ? op->mode : 0755, &why);
        if (fd < 0)
                refusal_error(&why, op->path, err, err_size);
        if (fd < 0)
                return fd;
        close(fd);
        return 0;
}

/* A private tmpfs on PATH: fsopen/fsmount, attached with move_mount on the directory fd. */
static int do_tmpfs(int root_fd, const struct xpu_op *op, char *err, size_t err_size) {
        struct xpu_path_refusal why;
        _cleanup_close_ int dfd = xpu_open_beneath(root_fd, op->path, O_PATH | O_DIRECTORY | O_NOFOLLOW, 0, &why);
        if (dfd < 0) {
                refusal_error(&why, op->path, err, err_size);
                return dfd;
        }
        /* Injected before (a hook run twice)? Stacking a second tmpfs would hide the first. */
        struct statx stx;
        if (statx(dfd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx) == 0 &&
            (stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) && (stx.stx_attributes & STATX_ATTR_MOUNT_ROOT)) {
                xpu_format_error(err, err_size,
                                 "%s is already a mount point (injected before? undo a trial by hand with "
                                 "umount -R ROOTFS%s); refusing to stack another",
                                 op->path, op->path);
                return -EBUSY;
        }
        _cleanup_close_ int fs = fsopen("tmpfs", FSOPEN_CLOEXEC);
        if (fs < 0)
                return negative_errno();
        if (fsconfig(fs, FSCONFIG_SET_STRING, "mode", "0755", 0) < 0 ||
            fsconfig(fs, FSCONFIG_SET_STRING, "size", "4m", 0) < 0 ||
            fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
                return negative_errno();
        _cleanup_close_ int mnt = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
        if (mnt < 0)
                return negative_errno();
        struct mount_attr attr = { .propagation = MS_PRIVATE };
        if (mount_setattr(mnt, "", AT_EMPTY_PATH, &attr, sizeof attr) < 0)
                return negative_errno();
        if (move_mount(mnt, "", dfd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
                return negative_errno();
        return 0;
}

/* Bind-mount a driver-root file read-only, nosuid, nodev, private onto a new empty file. */
static int do_bind(int root_fd, int driver_fd, const struct xpu_op *op, struct xpu_op_made *m, char *err,
                   size_t err_size) {
        /* Reads in the driver root keep RESOLVE_IN_ROOT (absolute links inside a driver root are
         * normal); O_PATH first, so a FIFO is never opened for reading and cannot block. */
        _cleanup_close_ int src = xpu_open_in_root(driver_fd, op->source, O_PATH, 0);
        if (src < 0) {
                xpu_format_error(err, err_size, "open %s in the driver root: %s", op->source, strerror(-src));
                return src;
        }
        struct stat st;
        if (fstat(src, &st) < 0)
                return negative_errno();
        /* A file at its own path is of the kind the plan found; a library is a regular file. */
        static const mode_t kind_types[_XPU_HOST_FILE_MAX] = {
                [XPU_HOST_FILE_REGULAR] = S_IFREG,
                [XPU_HOST_FILE_SOCKET] = S_IFSOCK,
                [XPU_HOST_FILE_DIRECTORY] = S_IFDIR,
                [XPU_HOST_FILE_TREE] = S_IFDIR,
        };
        const mode_t want = op->host_file && op->host_kind < _XPU_HOST_FILE_MAX ? kind_types[op->host_kind] : S_IFREG;
        if ((st.st_mode & S_IFMT) != want) {
                xpu_format_error(err, err_size, "%s in the driver root is not a %s (it changed since the plan?); "
                                 "refusing to mount it", op->source,
                                 op->host_file ? xpu_host_file_kind_to_string(op->host_kind) : "regular file");
                return -EINVAL;
        }
        if (!op->host_file && st.st_size > 0) {
                /* A regular file now: reading it cannot block. Only ELF files are driver files (an
                 * empty one discloses nothing: fixture trees use empty stand-ins). */
                _cleanup_close_ int rfd = xpu_open_in_root(driver_fd, op->source, O_RDONLY | O_NONBLOCK | O_NOCTTY, 0);
                struct stat now;
                int elf = rfd < 0 ? rfd : fstat(rfd, &now) < 0 ? negative_errno() : xpu_fd_is_elf(rfd);
                if (elf >= 0 && (now.st_dev != st.st_dev || now.st_ino != st.st_ino))
                        elf = -EAGAIN;
                if (elf <= 0) {
                        xpu_format_error(err, err_size, "%s in the driver root is not an ELF file (%s); refusing to "
                                         "mount it: the driver root must hold the host's driver files",
                                         op->source, elf < 0 ? strerror(-elf) : "no ELF magic");
                        return elf < 0 ? elf : -ENOEXEC;
                }
        }
        char name[NAME_MAX + 1];
        struct xpu_path_refusal why;
        _cleanup_close_ int dfd = xpu_open_parent_beneath(root_fd, op->path, O_RDONLY, name, sizeof name, &why);
        if (dfd < 0) {
                refusal_error(&why, op->path, err, err_size);
                if (!err[0])
                        xpu_format_error(err, err_size, "open the parent of %s in the container: %s", op->path,
                                         strerror(-dfd));
                return dfd;
        }
        const bool dir = want == S_IFDIR;
        if (dir && mkdirat(dfd, name, 0755) == 0)
                m->created = true;
        else if (dir && errno != EEXIST) {
                int r = negative_errno();
                xpu_format_error(err, err_size, "create mount point %s in the container: %s", op->path, strerror(-r));
                return r;
        }
        /* What is there is looked at through O_PATH, never opened: the image could have put a
         * device node or FIFO at the path. Only a missing file is created (O_EXCL). */
        int dst0 = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (dst0 < 0 && errno == ENOENT && !dir) {
                dst0 = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0444);
                m->created = dst0 >= 0;
        }
        struct stat lst;
        if (dst0 >= 0 && fstat(dst0, &lst) == 0 && S_ISLNK(lst.st_mode)) {
                close(dst0);
                dst0 = -1;
                errno = ELOOP;
        }
        _cleanup_close_ int dst = dst0;
        if (dst < 0) {
                int r = negative_errno();
                char target[PATH_MAX] = "";
                ssize_t n = r == -ELOOP ? readlinkat(dfd, name, target, sizeof target - 1) : -1;
                if (n >= 0) {
                        target[n] = '\0';
                        xpu_format_error(err, err_size, "%s is a symlink to %s in the container root; refusing to mount "
                                         "on it: remove the link from the image", op->path, target);
                } else
                        xpu_format_error(err, err_size, "create mount point %s in the container: %s", op->path,
                                         strerror(-r));
                return r;
        }
        struct stat dst_st;
        if (fstat(dst, &dst_st) < 0)
                return negative_errno();
        if ((dst_st.st_mode & S_IFMT) != (dir ? S_IFDIR : S_IFREG)) {
                xpu_format_error(err, err_size, "%s in the container root is %s, not a %s; refusing to mount on it: "
                                 "remove it from the image", op->path,
                                 S_ISCHR(dst_st.st_mode) || S_ISBLK(dst_st.st_mode) ? "a device node"
                                 : S_ISFIFO(dst_st.st_mode)                         ? "a FIFO"
                                 : S_ISSOCK(dst_st.st_mode)                         ? "a socket"
                                 : S_ISDIR(dst_st.st_mode)                          ? "a directory"
                                                                                    : "a regular file",
                                 dir ? "directory" : "regular file");
                return -EINVAL;
        }
        _cleanup_close_ int tree = open_tree(src, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
        if (tree < 0) {
                int r = negative_errno();
                xpu_format_error(err, err_size, "clone mount of %s: %s", op->source, strerror(-r));
                return r;
        }
        /* A socket or a pipe directory stays writable: clients connect(2) and create pipes (the
         * toolkit's IPC mounts drop "ro" too); neither runs code. */
        /* A socket or a pipe directory is not made read-only (clients connect(2) and use the
         * pipes; the toolkit's IPC mounts drop "ro" too) but never more writable than the driver
         * root's own mount: the clone keeps its flags, and nothing clears them. */
        /* A host list's directory (firmware, libraries) is read-only, and not noexec: its
         * libraries are mapped executable. */
        const bool ro = want == S_IFREG || (op->host_file && op->host_kind == XPU_HOST_FILE_TREE);
        struct mount_attr attr = {
                .attr_set = (ro ? MOUNT_ATTR_RDONLY : MOUNT_ATTR_NOEXEC) | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
                .propagation = MS_PRIVATE,
        };
        int set = mount_setattr(tree, "", AT_EMPTY_PATH, &attr, sizeof attr);
        if (set < 0 || move_mount(tree, "", dst, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0) {
                int r = negative_errno();
                xpu_format_error(err, err_size, "bind-mount %s on %s: %s", op->source, op->path, strerror(-r));
                return r;
        }
        return 0;
}

/* The link OP asks for. Something of the image's at the path that is not a link (a file, a
 * directory, a device node) is its own and stays, with a warning; a link of the image's is
 * replaced, and its text kept in M for the undo. */
static int do_symlink(int root_fd, const struct xpu_op *op, struct xpu_op_made *m, bool keep_replaced, char *err,
                      size_t err_size) {
        char name[NAME_MAX + 1];
        struct xpu_path_refusal why;
        _cleanup_close_ int dfd = xpu_open_parent_beneath(root_fd, op->path, O_RDONLY, name, sizeof name, &why);
        if (dfd < 0) {
                refusal_error(&why, op->path, err, err_size);
                return dfd;
        }
        char cur[PATH_MAX];
        ssize_t n = readlinkat(dfd, name, cur, sizeof cur - 1);
        if (n >= 0) {
                cur[n] = '\0';
                if (strcmp(cur, op->target) == 0)
                        return 0; /* already there */
                if (keep_replaced && !(m->replaced = strdup(cur)))
                        return -ENOMEM;
        } else if (errno == ENOENT)
                m->created = true;
        else if (errno == EINVAL) {
                struct stat st;
                bool d = fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
                log_warning("%s: the image has a %s there, not a link; it is left as it is and the link to %s is not "
                            "made (docs/xpuinit.md)",
                            op->path, d ? "directory" : "file", op->target);
                return 0;
        }
        /* Create under a temporary name, then rename over whatever is there (never follow it). */
        char tmp[NAME_MAX + 1];
        if (snprintf(tmp, sizeof tmp, ".xpuinit-%d.tmp", (int)getpid()) >= (int)sizeof tmp)
                return -ENAMETOOLONG;
        unlinkat(dfd, tmp, 0);
        if (symlinkat(op->target, dfd, tmp) < 0)
                return negative_errno();
        if (renameat(dfd, tmp, dfd, name) < 0) {
                int r = negative_errno();
                unlinkat(dfd, tmp, 0);
                return r;
        }
        return 0;
}

static int do_remount_ro(int root_fd, const struct xpu_op *op, char *err, size_t err_size) {
        struct xpu_path_refusal why;
        _cleanup_close_ int dfd = xpu_open_beneath(root_fd, op->path, O_PATH | O_DIRECTORY | O_NOFOLLOW, 0, &why);
        if (dfd < 0) {
                refusal_error(&why, op->path, err, err_size);
                return dfd;
        }
        struct mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY };
        if (mount_setattr(dfd, "", AT_EMPTY_PATH, &attr, sizeof attr) < 0)
                return negative_errno();
        return 0;
}

static int do_check_devnode(const struct xpu_apply_roots *roots, const struct xpu_op *op, char *err, size_t err_size) {
        struct stat st;
        int r = xpu_stat_in_root(roots->dev_fd, op->path, false, &st);
        /* In a container the dev root is "/": say "in the container"; else name the dev root. */
        char where[PATH_MAX + 32] = "in the container";
        if (roots->dev_path && strcmp(roots->dev_path, "/") != 0)
                snprintf(where, sizeof where, "under the dev root %s", roots->dev_path);
        if (r < 0) {
                if (op->optional) {
                        log_info("%s is not %s (optional)", op->path, where);
                        return 0;
                }
                xpu_format_error(err, err_size,
                        "device node %s is not %s (%s): the container runtime must pass it "
                        "(docker --device/--gpus, a Kubernetes device plugin, or CDI)",
                        op->path, where, strerror(-r));
                return r;
        }
        if (!S_ISCHR(st.st_mode)) {
                xpu_format_error(err, err_size, "%s %s is not a character device", op->path, where);
                return -ENODEV;
        }
        if (op->any_number)
                return 0; /* a host list's or a Jetson's node: its numbers are the host's own */
        if (!op->have_major)
                log_warning("%s: the host driver does not say its major number (not in /proc/devices or "
                            "sysfs); only the minor %u was checked",
                            op->path, op->minor);
        if (minor(st.st_rdev) != op->minor || (op->have_major && major(st.st_rdev) != op->major)) {
                char want[32];
                if (op->have_major)
                        snprintf(want, sizeof want, "%u:%u", op->major, op->minor);
                else
                        snprintf(want, sizeof want, "?:%u", op->minor);
                xpu_format_error(err, err_size,
                        "device node %s is %u:%u %s but the host driver says %s; the container "
                        "runtime passed the wrong device",
                        op->path, major(st.st_rdev), minor(st.st_rdev), where, want);
                return -ENODEV;
        }
        return 0;
}

/* Undo a mount of a failed apply (the tmpfs, which carries the library binds, or a file placed at
 * its own path): detach it through the descriptor of its mount point, so the path is not resolved
 * again. Best effort; says what stays. */
static void undo_mount(int root_fd, const struct xpu_op *op, char *err, size_t err_size) {
        /* the parent beneath the root, then the mount point itself (beneath-resolution stops at a
         * mount on the final component) */
        char name[NAME_MAX + 1];
        _cleanup_close_ int dfd = xpu_open_parent_beneath(root_fd, op->path, O_RDONLY, name, sizeof name, NULL);
        _cleanup_close_ int fd = dfd < 0 ? dfd : openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (dfd >= 0 && fd < 0)
                fd = negative_errno();
        char proc[64];
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
        if (fd >= 0 && umount2(proc, MNT_DETACH) == 0)
                return;
        size_t len = strlen(err);
        snprintf(err + len, err_size - len, "; the mount on %s could not be removed (%s): unmount it by hand",
                 op->path, fd < 0 ? strerror(-fd) : strerror(errno));
}


int xpu_plan_apply(const struct xpu_plan *p, const struct xpu_apply_roots *roots, bool filesystem_only, char *err,
                   size_t err_size) {
        const int container_fd = roots->container_fd;
        const struct xpu_op *mounted = NULL; /* our tmpfs, once made: undone if a later step fails */
        struct xpu_op_made *made = NULL;     /* what each operation made, for an undo */
        if (roots->record) {
                xpu_apply_record_done(roots->record);
                made = p->n_ops ? calloc(p->n_ops, sizeof *made) : NULL;
                if (p->n_ops && !made) {
                        xpu_format_error(err, err_size, "cannot record the apply: %s", strerror(ENOMEM));
                        return -ENOMEM;
                }
                *roots->record = (struct xpu_apply_record){ .ops = made, .n = p->n_ops };
        }
        /* Every write target first: a refused one stops the apply before anything is created. */
        for (size_t i = 0; i < p->n_ops; i++) {
                const struct xpu_op *op = &p->ops[i];
                if ((filesystem_only && !op->filesystem) || op->type == XPU_OP_CHECK_DEVNODE)
                        continue;
                err[0] = '\0';
                int r;
                if (op->type == XPU_OP_LDCONFIG) {
                        r = xpu_ldconfig_check_files(container_fd,
                                                 roots->container_path && strcmp(roots->container_path, "/") != 0,
                                                 err, err_size);
                        if (r < 0)
                                return r;
                        continue;
                }
                struct xpu_path_refusal why;
                r = xpu_check_beneath(container_fd, op->path, &why);
                if (r >= 0 && op->type != XPU_OP_SYMLINK) {
                        /* The final component too: a directory may be a link that stays inside;
                         * a file, mount point or tmpfs point must not be a link at all (a symlink
                         * op replaces a link, never follows it). */
                        int fl = O_PATH | (op->type == XPU_OP_MKDIR ? 0 : O_NOFOLLOW);
                        int fd = xpu_open_beneath(container_fd, op->path, fl, 0, &why);
                        if (fd >= 0)
                                close(fd);
                        else if (why.kind != XPU_REFUSE_NONE &&
                                 !(why.kind == XPU_REFUSE_MOUNT && strcmp(why.path, op->path) == 0))
                                r = fd; /* (a mount on the final component is the operation's to judge) */
                }
                if (r < 0) {
                        refusal_error(&why, op->path, err, err_size);
                        if (!err[0])
                                xpu_format_error(err, err_size, "%s %s: %s", xpu_op_type_to_string(op->type), op->path,
                                                 strerror(-r));
                        return r;
                }
        }
        for (size_t i = 0; i < p->n_ops; i++) {
                const struct xpu_op *op = &p->ops[i];
                if (filesystem_only && !op->filesystem)
                        continue;
                int r;
                err[0] = '\0';
                struct xpu_op_made scratch = { 0 };
                struct xpu_op_made *m = made ? &made[i] : &scratch;
                switch (op->type) {
                case XPU_OP_MKDIR:
                        r = do_mkdir(container_fd, op, m, err, err_size);
                        break;
                case XPU_OP_TMPFS:
                        r = do_tmpfs(container_fd, op, err, err_size);
                        break;
                case XPU_OP_BIND:
                        r = do_bind(container_fd, roots->driver_fd, op, m, err, err_size);
                        break;
                case XPU_OP_SYMLINK:
                        r = do_symlink(container_fd, op, m, made != NULL, err, err_size);
                        break;
                case XPU_OP_REMOUNT_RO:
                        r = do_remount_ro(container_fd, op, err, err_size);
                        break;
                case XPU_OP_WRITE_FILE: {
                        struct xpu_path_refusal why;
                        struct stat st;
                        m->created = xpu_stat_in_root(container_fd, op->path, true, &st) == -ENOENT;
                        r = xpu_write_file_in_root(container_fd, op->path, op->content, strlen(op->content),
                                                   op->mode ? op->mode : 0644, &why);
                        if (r < 0)
                                refusal_error(&why, op->path, err, err_size);
                        break;
                }
                case XPU_OP_LDCONFIG:
                        r = xpu_ldconfig_run(container_fd, op->path, roots->container_path, err, err_size);
                        break;
                case XPU_OP_CHECK_DEVNODE:
                        r = do_check_devnode(roots, op, err, err_size);
                        break;
                default:
                        r = -EINVAL;
                        break;
                }
                if (r < 0) {
                        if (!err[0])
                                xpu_format_error(err, err_size, "%s %s: %s%s", xpu_op_type_to_string(op->type),
                                                 op->path, strerror(-r),
                                                 r == -ENOENT && op->type == XPU_OP_MKDIR
                                                         ? " (a component may be a symlink whose target is not "
                                                           "inside the root)"
                                                         : "");
                        /* files placed at their own path so far, then the tmpfs */
                        for (size_t k = i; k-- > 0;)
                                if (p->ops[k].type == XPU_OP_BIND && p->ops[k].host_file &&
                                    (!filesystem_only || p->ops[k].filesystem))
                                        undo_mount(container_fd, &p->ops[k], err, err_size);
                        if (mounted)
                                undo_mount(container_fd, mounted, err, err_size);
                        return r;
                }
                m->done = true;
                if (op->type == XPU_OP_TMPFS)
                        mounted = op;
                log_debug("applied %s %s", xpu_op_type_to_string(op->type), op->path);
        }
        return 0;
}

void xpu_apply_record_done(struct xpu_apply_record *r) {
        for (size_t i = 0; r->ops && i < r->n; i++)
                free(r->ops[i].replaced);
        free(r->ops);
        *r = (struct xpu_apply_record){ 0 };
}

/* Loader and libc variables that run or load code, or redirect files, in a dynamically linked
 * process (glibc's list of variables it drops for setuid programs, plus GLIBC_TUNABLES); every
 * other "LD_*" counts too. */
static const char *const loader_vars[] = {
        "GCONV_PATH", "GETCONF_DIR", "GLIBC_TUNABLES", "HOSTALIASES", "LOCALDOMAIN", "LOCPATH",
        "MALLOC_TRACE", "NIS_PATH", "NLSPATH", "RESOLV_HOST_CONF", "RES_OPTIONS", "TZDIR",
};

/* True when a program interpreter (ld.so) started this process: PT_INTERP among its program
 * headers (getauxval AT_PHDR/AT_PHNUM); false for the static(-pie) build, which no loader touches. */
static bool started_by_loader(void) {
        const ElfW(Phdr) *ph = (const ElfW(Phdr) *)getauxval(AT_PHDR);
        unsigned long n = getauxval(AT_PHNUM);
        for (unsigned long i = 0; ph && i < n; i++)
                if (ph[i].p_type == PT_INTERP)
                        return true;
        return false;
}

int xpu_loader_env_check(char *const *envp, char *err, size_t err_size) {
        for (size_t i = 0; envp && envp[i]; i++) {
                const char *e = envp[i], *eq = strchr(e, '=');
                size_t n = eq ? (size_t)(eq - e) : strlen(e);
                bool bad = n > 3 && strncmp(e, "LD_", 3) == 0;
                for (size_t j = 0; j < ELEMENTSOF(loader_vars) && !bad; j++)
                        bad = strlen(loader_vars[j]) == n && strncmp(e, loader_vars[j], n) == 0;
                if (!bad)
                        continue;
                char value[256];
                snprintf(value, sizeof value, "%s", eq ? eq + 1 : "");
                if (!xpu_str_is_printable(value) && value[0])
                        snprintf(value, sizeof value, "(unprintable)");
                if (started_by_loader())
                        xpu_format_error(err, err_size,
                                         "the environment carries %.*s=%s: the loader that started this process "
                                         "honours it before main(), so nothing here can be trusted; give the hook an "
                                         "explicit env (OCI hook \"env\": [\"PATH=/usr/bin:/bin\"]) and run the static "
                                         "build, xpuinit-static (docs/safe-paths.md)",
                                         (int)n, e, value);
                else
                        xpu_format_error(err, err_size,
                                         "the environment carries %.*s=%s: this static build has no loader to act on "
                                         "it, but the hook's environment did not come from the runtime's config alone "
                                         "(it may be the image's); give the hook an explicit env (OCI hook \"env\": "
                                         "[\"PATH=/usr/bin:/bin\"]) (docs/safe-paths.md)",
                                         (int)n, e, value);
                return -EPERM;
        }
        return 0;
}

int xpu_inject_mount_ns_check(char *err, size_t err_size) {
        struct stat self, init;
        const char *path = "/proc/self/ns/mnt";
        if (stat(path, &self) < 0 || stat((path = "/proc/1/ns/mnt"), &init) < 0) {
                snprintf(err, err_size,
                         "cannot stat %s (%s), so cannot tell whether this is the host's mount namespace, where "
                         "the mounts would outlive the container; refusing (run it where /proc is mounted and "
                         "PID 1's namespace is readable: root with CAP_SYS_PTRACE, and no security module or "
                         "outer PID namespace hiding PID 1; for a trial by hand, give it a PID namespace whose "
                         "PID 1 stands for the host's init: unshare -p -f --mount-proc sh -c 'unshare -m ... "
                         "inject ...')",
                         path, strerror(errno));
                return -1;
        }
        if (self.st_dev == init.st_dev && self.st_ino == init.st_ino) {
                snprintf(err, err_size,
                         "this is PID 1's (the host's) mount namespace: the container would not see the mounts "
                         "and they would outlive it; run it as a createContainer hook, or inside `unshare -m` "
                         "(createRuntime and prestart hooks run in the runtime's namespace)");
                return -1;
        }
        return 0;
}
