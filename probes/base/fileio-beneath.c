/* SPDX-License-Identifier: Apache-2.0 */
/* Write targets in a container root: xpu_open_beneath() and the helpers built on it
 * (fileio.h, docs/safe-paths.md). Each component is opened O_PATH | O_NOFOLLOW relative to the
 * one before; links are judged here, never handed to the kernel to follow. */
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "macro.h"
#include "mountinfo.h"

#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x00001000U
#endif

#define BENEATH_LINKS_MAX 40

enum walk_how {
        WALK_OPEN,  /* open the final component with the caller's flags */
        WALK_CHECK, /* check what exists, create nothing */
        WALK_MKDIR, /* create missing directories; return an O_PATH fd of the last */
};

/* Filesystem names for the refusal text (statfs(2) f_type values, linux/magic.h). */
static const char *fs_name(long type, char *buf, size_t size) {
        static const struct {
                long magic;
                const char *name;
        } names[] = {
                {0xEF53, "ext4"},      {0x58465342, "xfs"},   {0x9123683E, "btrfs"},  {0x794c7630, "overlay"},
                {0x9fa0, "proc"},      {0x62656572, "sysfs"}, {0x6969, "nfs"},        {0x1021994, "tmpfs"},
                {0x1373, "devfs"},     {0x27e0eb, "cgroup"},  {0x63677270, "cgroup2"}, {0x858458f6, "ramfs"},
                {0x65735546, "fuse"},  {0xca451a4e, "bcachefs"}, {0x2fc12fc1, "zfs"},
        };
        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (names[i].magic == type)
                        return names[i].name;
        snprintf(buf, size, "filesystem type 0x%lx", (unsigned long)type);
        return buf;
}

/* Identity of the mount FD is on: the mount id (statx STATX_MNT_ID, Linux 5.8), else st_dev. */
static int mount_of(int fd, uint64_t *ret) {
        struct statx stx;
        if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS | STATX_MNT_ID, &stx) < 0)
                return negative_errno();
        if (stx.stx_mask & STATX_MNT_ID)
                *ret = stx.stx_mnt_id;
        else
                *ret = ((uint64_t)stx.stx_dev_major << 32 | stx.stx_dev_minor) | (1ull << 63);
        return 0;
}

/* Whether ROOT_FD is this process's own root directory: a start inside the container. */
static bool root_is_own(int root_fd) {
        struct stat a, b;
        return fstat(root_fd, &a) == 0 && stat("/", &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static void refuse(struct xpu_path_refusal *why, enum xpu_refusal_kind kind, const char *path, const char *detail) {
        why->kind = kind;
        xpu_strlcpy(why->path, path[0] ? path : "/", sizeof why->path);
        xpu_strlcpy(why->detail, detail ? detail : "", sizeof why->detail);
}

static int walk_beneath(int root_fd, const char *path, int flags, mode_t mode, enum walk_how how,
                        struct xpu_path_refusal *why) {
        struct xpu_path_refusal dummy;
        if (!why)
                why = &dummy;
        why->kind = XPU_REFUSE_NONE;
        why->path[0] = why->detail[0] = '\0';
        if (!path)
                return -EINVAL;
        int fds[XPU_BENEATH_DEPTH_MAX + 1];
        uint64_t mnt[XPU_BENEATH_DEPTH_MAX + 1];
        size_t offs[XPU_BENEATH_DEPTH_MAX + 1];
        size_t depth = 0;
        int links = 0, r;
        char walked[PATH_MAX] = "", here[PATH_MAX];
        char last_link[PATH_MAX] = "", last_target[PATH_MAX] = ""; /* for a ".." refusal after a link */
        _cleanup_free_ char *pending = strdup(path);
        if (!pending)
                return -ENOMEM;
        fds[0] = fcntl(root_fd, F_DUPFD_CLOEXEC, 3);
        if (fds[0] < 0)
                return negative_errno();
        offs[0] = 0;
        r = mount_of(fds[0], &mnt[0]);
        if (r < 0)
                goto out;
        char *rest = pending;
        for (;;) {
                char comp[NAME_MAX + 1];
                bool last;
                ssize_t clen = xpu_path_next_component(&rest, comp, &last);
                if (clen < 0) {
                        r = (int)clen;
                        goto out;
                }
                size_t len = (size_t)clen;
                if (len == 2 && comp[0] == '.' && comp[1] == '.') {
                        if (depth == 0) {
                                if (last_link[0])
                                        refuse(why, XPU_REFUSE_DOTDOT, last_link, last_target);
                                else
                                        refuse(why, XPU_REFUSE_DOTDOT, path, NULL);
                                r = -EXDEV;
                                goto out;
                        }
                        close(fds[depth--]);
                        walked[offs[depth]] = '\0';
                        len = 0; /* now in the parent: handled like "." */
                }
                if (len == 0 || (len == 1 && comp[0] == '.')) {
                        if (!last)
                                continue;
                        if (how == WALK_CHECK)
                                r = 0;
                        else if (how == WALK_MKDIR)
                                r = fcntl(fds[depth], F_DUPFD_CLOEXEC, 3);
                        else
                                r = openat(fds[depth], ".", flags | O_CLOEXEC, mode);
                        if (r < 0)
                                r = negative_errno();
                        goto out;
                }
                if (snprintf(here, sizeof here, "%s/%s", walked, comp) >= (int)sizeof here) {
                        r = -ENAMETOOLONG;
                        goto out;
                }
                _cleanup_close_ int fd = openat(fds[depth], comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0 && errno == ENOENT && how == WALK_MKDIR) {
                        if (mkdirat(fds[depth], comp, mode) < 0 && errno != EEXIST) {
                                r = negative_errno();
                                goto out;
                        }
                        fd = openat(fds[depth], comp, O_PATH | O_NOFOLLOW | O_CLOEXEC); /* checked below */
                }
                if (fd < 0) {
                        r = negative_errno();
                        if (r == -ENOENT && how == WALK_CHECK) {
                                /* The rest is created new; a ".." in it would be resolved only
                                 * after the first mkdir, so it is refused now. */
                                r = 0;
                                for (const char *q = rest; *q; q += strcspn(q, "/"), q += strspn(q, "/"))
                                        if (q[0] == '.' && q[1] == '.' && (q[2] == '/' || !q[2])) {
                                                refuse(why, XPU_REFUSE_DOTDOT, path, NULL);
                                                r = -EXDEV;
                                        }
                                goto out;
                        } else if (r == -ENOENT && last && (flags & O_CREAT)) {
                                r = openat(fds[depth], comp, flags | O_NOFOLLOW | O_CLOEXEC, mode);
                                if (r < 0)
                                        r = negative_errno();
                        }
                        goto out;
                }
                struct stat st;
                if (fstat(fd, &st) < 0) {
                        r = negative_errno();
                        goto out;
                }
                if (S_ISLNK(st.st_mode)) {
                        char target[PATH_MAX];
                        ssize_t n = readlinkat(fd, "", target, sizeof target - 1);
                        if (n < 0) {
                                r = negative_errno();
                                goto out;
                        }
                        target[n] = '\0';
                        /* A final link is the operation's business (a symlink op replaces it, the
                         * others refuse it with their own words); the check looks at the way there. */
                        if (last && how == WALK_CHECK) {
                                r = 0;
                                goto out;
                        }
                        if (last && how == WALK_OPEN && (flags & (O_CREAT | O_NOFOLLOW))) {
                                refuse(why, XPU_REFUSE_FINAL_LINK, here, target);
                                r = -ELOOP;
                                goto out;
                        }
                        if (++links > BENEATH_LINKS_MAX) {
                                refuse(why, XPU_REFUSE_LOOP, here, target);
                                r = -ELOOP;
                                goto out;
                        }
                        if (target[0] == '/' || n == 0) {
                                refuse(why, XPU_REFUSE_ABSOLUTE_LINK, here, target);
                                r = -EXDEV;
                                goto out;
                        }
                        xpu_strlcpy(last_link, here, sizeof last_link);
                        xpu_strlcpy(last_target, target, sizeof last_target);
                        char *np = NULL;
                        if (asprintf(&np, "%s/%s", target, rest) < 0) {
                                r = -ENOMEM;
                                goto out;
                        }
                        free(pending);
                        pending = rest = np;
                        continue;
                }
                if (last && how == WALK_CHECK) {
                        /* The final component is the operation's: a mount on it is refused by the
                         * operation (tmpfs: "already a mount point"; rename: EBUSY). */
                        r = 0;
                        goto out;
                }
                uint64_t id;
                r = mount_of(fd, &id);
                if (r < 0)
                        goto out;
                if (id != mnt[depth]) {
                        struct statfs sf;
                        if (fstatfs(fd, &sf) < 0) {
                                r = negative_errno();
                                goto out;
                        }
                        if (sf.f_type != TMPFS_MAGIC) {
                                char buf[48];
                                refuse(why, XPU_REFUSE_MOUNT, here, fs_name((long)sf.f_type, buf, sizeof buf));
                                r = -EXDEV;
                                goto out;
                        }
                        /* A tmpfs is crossed only when it is the container's own, not a bind
                         * mount of a host's tmpfs (the host's /run, /dev/shm, /tmp). */
                        struct xpu_tmpfs_verdict v;
                        r = xpu_tmpfs_origin(fd, id, "/proc/self/mountinfo", "/proc/1/stat", root_is_own(root_fd), &v);
                        if (r < 0) {
                                refuse(why, XPU_REFUSE_TMPFS_UNKNOWN, here, "/proc/self/mountinfo cannot be read");
                                r = -EXDEV;
                                goto out;
                        }
                        if (v.origin != XPU_TMPFS_OWN) {
                                static const enum xpu_refusal_kind kinds[] = {
                                        [XPU_TMPFS_SUBDIR] = XPU_REFUSE_TMPFS_SUBDIR,
                                        [XPU_TMPFS_PROPAGATED] = XPU_REFUSE_TMPFS_PROPAGATED,
                                        [XPU_TMPFS_SHARED] = XPU_REFUSE_TMPFS_SHARED,
                                        [XPU_TMPFS_OLDER] = XPU_REFUSE_TMPFS_OLDER,
                                        [XPU_TMPFS_UNKNOWN] = XPU_REFUSE_TMPFS_UNKNOWN,
                                };
                                refuse(why, kinds[v.origin], here, v.detail);
                                r = -EXDEV;
                                goto out;
                        }
                }
                if (last) {
                        if (how == WALK_CHECK) {
                                r = 0;
                        } else if (how == WALK_MKDIR) {
                                if (!S_ISDIR(st.st_mode)) {
                                        refuse(why, XPU_REFUSE_NOT_DIR, here, NULL);
                                        r = -ENOTDIR;
                                } else
                                        r = TAKE_FD(fd);
                        } else {
                                /* Reopen with the caller's flags, never following; it must be the
                                 * same file that was checked. */
                                _cleanup_close_ int o = openat(fds[depth], comp, flags | O_NOFOLLOW | O_CLOEXEC, mode);
                                struct stat now;
                                if (o < 0)
                                        r = negative_errno();
                                else if (fstat(o, &now) < 0)
                                        r = negative_errno();
                                else if (now.st_dev != st.st_dev || now.st_ino != st.st_ino)
                                        r = -EAGAIN;
                                else
                                        r = TAKE_FD(o);
                        }
                        goto out;
                }
                if (!S_ISDIR(st.st_mode)) {
                        refuse(why, XPU_REFUSE_NOT_DIR, here, NULL);
                        r = -ENOTDIR;
                        goto out;
                }
                if (depth + 1 > XPU_BENEATH_DEPTH_MAX) {
                        /* Name the link that led there, if one did: that is what to fix. */
                        if (last_link[0])
                                refuse(why, XPU_REFUSE_TOO_DEEP, last_link, last_target);
                        else
                                refuse(why, XPU_REFUSE_TOO_DEEP, here, NULL);
                        r = -ENAMETOOLONG;
                        goto out;
                }
                fds[++depth] = TAKE_FD(fd);
                mnt[depth] = id;
                xpu_strlcpy(walked, here, sizeof walked);
                offs[depth] = strlen(walked);
        }
out:
        for (size_t i = 0; i <= depth; i++)
                close(fds[i]);
        return r;
}

int xpu_open_beneath(int root_fd, const char *path, int flags, mode_t mode, struct xpu_path_refusal *why) {
        return walk_beneath(root_fd, path, flags, mode, WALK_OPEN, why);
}

int xpu_check_beneath(int root_fd, const char *path, struct xpu_path_refusal *why) {
        return walk_beneath(root_fd, path, 0, 0, WALK_CHECK, why);
}

char *xpu_path_refusal_format(const struct xpu_path_refusal *why, const char *root_name, char *buf, size_t size) {
        const char *p = why->path, *d = why->detail;
        switch (why->kind) {
        case XPU_REFUSE_ABSOLUTE_LINK:
                snprintf(buf, size, "%s is a symlink to %s (absolute) that leads outside %s", p, d, root_name);
                break;
        case XPU_REFUSE_DOTDOT:
                if (d[0])
                        snprintf(buf, size, "%s is a symlink to %s whose \"..\" leads outside %s", p, d, root_name);
                else
                        snprintf(buf, size, "%s has a \"..\" that leads outside %s", p, root_name);
                break;
        case XPU_REFUSE_MOUNT:
                snprintf(buf, size, "%s is a mount point of another filesystem (%s, not a tmpfs), e.g. a bind mount "
                         "of a host directory, inside %s", p, d, root_name);
                break;
        case XPU_REFUSE_TMPFS_SUBDIR:
                snprintf(buf, size, "%s is a mount point of the directory %s of a tmpfs, i.e. a bind mount of a host "
                         "directory, not a tmpfs made for the container, inside %s", p, d, root_name);
                break;
        case XPU_REFUSE_TMPFS_SHARED:
                snprintf(buf, size, "%s is a mount point of a tmpfs that is mounted at %s too, e.g. a bind mount of "
                         "a host's tmpfs, not one made for the container, inside %s", p, d, root_name);
                break;
        case XPU_REFUSE_TMPFS_OLDER:
                snprintf(buf, size, "%s is a mount point of a tmpfs made %s before the container's first process "
                         "(PID 1), e.g. a bind mount of the host's /run, /dev/shm or /tmp, inside %s", p, d,
                         root_name);
                break;
        case XPU_REFUSE_TMPFS_PROPAGATED:
                snprintf(buf, size, "%s is a mount point of a tmpfs that came by mount propagation from outside "
                         "the container (mountinfo %s), e.g. a host directory bound with HostToContainer or "
                         "rslave propagation, inside %s", p, d, root_name);
                break;
        case XPU_REFUSE_TMPFS_UNKNOWN:
                snprintf(buf, size, "%s is a mount point of a tmpfs whose origin cannot be told (%s), inside %s",
                         p, d, root_name);
                break;
        case XPU_REFUSE_FINAL_LINK:
                snprintf(buf, size, "%s is a symlink to %s, where a file or mount point of its own must be made in %s",
                         p, d, root_name);
                break;
        case XPU_REFUSE_LOOP:
                snprintf(buf, size, "%s is a symlink (to %s) past the limit of %d links in %s", p, d,
                         BENEATH_LINKS_MAX, root_name);
                break;
        case XPU_REFUSE_TOO_DEEP:
                if (d[0])
                        snprintf(buf, size, "%s is a symlink to %.60s%s that leads more than %d directories deep in %s",
                                 p, d, strlen(d) > 60 ? "..." : "", XPU_BENEATH_DEPTH_MAX, root_name);
                else
                        snprintf(buf, size, "%.200s%s is nested more than %d directories deep in %s", p,
                                 strlen(p) > 200 ? "..." : "", XPU_BENEATH_DEPTH_MAX, root_name);
                break;
        case XPU_REFUSE_NOT_DIR:
                snprintf(buf, size, "%s is not a directory in %s", p, root_name);
                break;
        case XPU_REFUSE_NONE:
        default:
                snprintf(buf, size, "%s", p);
                break;
        }
        return buf;
}

int xpu_open_parent_beneath(int root_fd, const char *path, int flags, char *name, size_t name_size,
                            struct xpu_path_refusal *why) {
        char buf[PATH_MAX];
        int r;
        const char *dir = xpu_path_split_parent(path, buf, sizeof buf, name, name_size, &r);
        return dir ? xpu_open_beneath(root_fd, dir, flags | O_DIRECTORY, 0, why) : r;
}

int xpu_mkdir_p_in_root(int root_fd, const char *path, mode_t mode, struct xpu_path_refusal *why) {
        /* The whole existing part first: nothing is created when any of it is refused. */
        int r = walk_beneath(root_fd, path, 0, 0, WALK_CHECK, why);
        if (r < 0)
                return r;
        return walk_beneath(root_fd, path, 0, mode, WALK_MKDIR, why);
}

int xpu_write_file_in_root(int root_fd, const char *path, const void *data, size_t len, mode_t mode,
                           struct xpu_path_refusal *why) {
        char name[NAME_MAX + 1];
        _cleanup_close_ int wdfd = xpu_open_parent_beneath(root_fd, path, O_RDONLY, name, sizeof name, why);
        if (wdfd < 0)
                return wdfd;
        struct stat st;
        if (fstatat(wdfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
                if (S_ISLNK(st.st_mode)) {
                        char target[PATH_MAX] = "";
                        ssize_t n = readlinkat(wdfd, name, target, sizeof target - 1);
                        target[n > 0 ? n : 0] = '\0';
                        if (why)
                                refuse(why, XPU_REFUSE_FINAL_LINK, path, target);
                        return -ELOOP;
                }
                if (S_ISDIR(st.st_mode))
                        return -EISDIR;
        }
        char tmp[NAME_MAX + 16];
        if (snprintf(tmp, sizeof tmp, ".%s.%d.tmp", name, (int)getpid()) >= (int)sizeof tmp)
                return -ENAMETOOLONG;
        _cleanup_close_ int fd =
                openat(wdfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd < 0)
                return negative_errno();
        int r = xpu_write_full(fd, data, len);
        if (r == 0 && (fchmod(fd, mode) < 0 || renameat(wdfd, tmp, wdfd, name) < 0))
                r = negative_errno();
        if (r < 0) {
                unlinkat(wdfd, tmp, 0);
                return r;
        }
        return 0;
}
