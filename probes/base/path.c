/* SPDX-License-Identifier: Apache-2.0 */
/* The component walker behind every path below a root (path.h, docs/safe-paths.md): reads in a
 * driver root (RESOLVE_IN_ROOT, where openat2 is missing) and write targets in a container root
 * (RESOLVE_BENEATH, refusals explained). Each component is opened O_PATH | O_NOFOLLOW relative to
 * the one before; links are judged here, never handed to the kernel to follow. */
#include "path.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fileio.h"
#include "macro.h"
#include "mountinfo.h"
#include "str.h"

#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x00001000U
#endif

/* Symlinks one walk follows, as the kernel's own limit (MAXSYMLINKS, path_resolution(7)). */
#define WALK_LINKS_MAX 40
/* Calls of openat2 that answer EAGAIN (a concurrent rename or mount) before xpu_open_in_root() walks. */
#define XPU_OPENAT2_EAGAIN_TRIES 8
/* Directories below the root an in-root walk may hold open (one fd each). */
#define WALK_IN_ROOT_DEPTH_MAX 255
#define WALK_DEPTH_MAX (WALK_IN_ROOT_DEPTH_MAX > XPU_BENEATH_DEPTH_MAX ? WALK_IN_ROOT_DEPTH_MAX : XPU_BENEATH_DEPTH_MAX)

/* What the walk does with the final component. */
enum walk_op {
        WALK_OPEN,  /* open it with the caller's flags */
        WALK_CHECK, /* check what exists, create nothing */
        WALK_MKDIR, /* create missing directories; return an O_PATH fd of the last */
};

/* The walker's modes: the only places where reads in a driver root and writes in a container
 * root differ. Everything else (one O_PATH | O_NOFOLLOW open per component, link text read and
 * resolved here, 40 links at most, the final open checked against what was walked) is common. */
enum walk_mode {
        WALK_IN_ROOT,       /* xpu_open_in_root() without openat2 */
        WALK_BENEATH,       /* xpu_open_beneath() */
        WALK_BENEATH_CHECK, /* xpu_check_beneath(), xpu_mkdir_p_in_root()'s first pass */
        WALK_BENEATH_MKDIR, /* xpu_mkdir_p_in_root()'s second pass */
};

static const struct walk_rules {
        enum walk_op op;
        /* An absolute link restarts at the root (true) or is refused. A driver root's absolute
         * links are normal (libcuda.so.1 -> /usr/lib/...) and name a file of that root; in a
         * container root the same text is a path on the host to whoever resolves it there. */
        bool absolute_link_restarts;
        /* ".." at the root stays at the root (true, as RESOLVE_IN_ROOT) or is refused: a write
         * target whose ".." climbs out is an escape attempt to name, not to tidy up. */
        bool dotdot_stays;
        /* A component on another mount must be a tmpfs of the container's own (true): a bind
         * mount of a host directory would take a write onto the host. Reads in a driver root
         * cross its mounts (a driver container's root is made of them). */
        bool judge_mounts;
        /* A final symlink with O_CREAT or O_NOFOLLOW is refused (true: a new file or mount
         * point must be the path's own), or opened as openat(2) would (followed for O_CREAT,
         * the link itself for O_NOFOLLOW | O_PATH). */
        bool final_link_refused;
        /* A refusal is named (WHY): the path walked so far is kept for its text, and one longer
         * than PATH_MAX is refused (-ENAMETOOLONG) rather than named cut. */
        bool explains;
        /* Directories below the root. */
        size_t depth_max;
} walk_rules[] = {
        /*                       op          abs-link   ".."   mounts final-link explains depth */
        [WALK_IN_ROOT] =       { WALK_OPEN,  true,      true,  false, false,     false,   WALK_IN_ROOT_DEPTH_MAX },
        [WALK_BENEATH] =       { WALK_OPEN,  false,     false, true,  true,      true,    XPU_BENEATH_DEPTH_MAX },
        [WALK_BENEATH_CHECK] = { WALK_CHECK, false,     false, true,  true,      true,    XPU_BENEATH_DEPTH_MAX },
        [WALK_BENEATH_MKDIR] = { WALK_MKDIR, false,     false, true,  true,      true,    XPU_BENEATH_DEPTH_MAX },
};

int xpu_open_root(const char *dir) {
        int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        return fd < 0 ? negative_errno() : fd;
}

/* The next component of the path at *REST: skips leading slashes, copies the component into
 * COMP (NUL-terminated), advances *REST past it and the slashes after it, sets *LAST when nothing
 * follows. Returns the component's length (0 at the end of the path) or -ENAMETOOLONG above
 * NAME_MAX bytes. */
static ssize_t next_component(char **rest, char comp[NAME_MAX + 1], bool *last) {
        char *p = *rest;
        while (*p == '/')
                p++;
        size_t len = strcspn(p, "/");
        if (len > NAME_MAX)
                return -ENAMETOOLONG;
        memcpy(comp, p, len);
        comp[len] = '\0';
        p += len;
        while (*p == '/')
                p++;
        *last = *p == '\0';
        *rest = p;
        return (ssize_t)len;
}

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

/* Whether the tmpfs or other mount FD (mount ID, the component HERE) may be crossed from its
 * parent's mount: only a tmpfs of the container's own. Returns 0 or -EXDEV with WHY filled. */
static int judge_mount(int root_fd, int fd, uint64_t id, const char *here, struct xpu_path_refusal *why) {
        struct statfs sf;
        if (fstatfs(fd, &sf) < 0)
                return negative_errno();
        if (sf.f_type != TMPFS_MAGIC) {
                char buf[48];
                refuse(why, XPU_REFUSE_MOUNT, here, fs_name((long)sf.f_type, buf, sizeof buf));
                return -EXDEV;
        }
        /* A tmpfs is crossed only when it is the container's own, not a bind mount of a host's
         * tmpfs (the host's /run, /dev/shm, /tmp). */
        struct xpu_tmpfs_verdict v;
        if (xpu_tmpfs_origin(fd, id, "/proc/self/mountinfo", "/proc/1/stat", root_is_own(root_fd), &v) < 0) {
                refuse(why, XPU_REFUSE_TMPFS_UNKNOWN, here, "/proc/self/mountinfo cannot be read");
                return -EXDEV;
        }
        if (v.origin == XPU_TMPFS_OWN)
                return 0;
        static const enum xpu_refusal_kind kinds[] = {
                [XPU_TMPFS_SUBDIR] = XPU_REFUSE_TMPFS_SUBDIR,
                [XPU_TMPFS_PROPAGATED] = XPU_REFUSE_TMPFS_PROPAGATED,
                [XPU_TMPFS_SHARED] = XPU_REFUSE_TMPFS_SHARED,
                [XPU_TMPFS_OLDER] = XPU_REFUSE_TMPFS_OLDER,
                [XPU_TMPFS_UNKNOWN] = XPU_REFUSE_TMPFS_UNKNOWN,
        };
        refuse(why, kinds[v.origin], here, v.detail);
        return -EXDEV;
}

/* Open the final component COMP of a walk in DIR with the caller's FLAGS, never following: it
 * must be the file that was walked to (ST), not one put there since (-EAGAIN). */
static int reopen_final(int dir, const char *comp, int flags, mode_t mode, const struct stat *st) {
        _cleanup_close_ int o = openat(dir, comp, flags | O_NOFOLLOW | O_CLOEXEC, mode);
        struct stat now;
        if (o < 0 || fstat(o, &now) < 0)
                return negative_errno();
        if (now.st_dev != st->st_dev || now.st_ino != st->st_ino)
                return -EAGAIN;
        return TAKE_FD(o);
}

/* Resolve PATH below ROOT_FD by the rules of MODE (walk_rules[]) and do its operation on the
 * final component. Keeps one O_PATH fd per directory walked (a ".." closes the last), so a
 * component renamed or replaced meanwhile is never reached by its name again. WHY is filled on a
 * refusal (beneath modes). Returns an fd (WALK_OPEN, WALK_MKDIR), 0 (WALK_CHECK) or -errno. */
static int walk(int root_fd, const char *path, int flags, mode_t mode, enum walk_mode wm,
                struct xpu_path_refusal *why) {
        const struct walk_rules *m = &walk_rules[wm];
        struct xpu_path_refusal dummy;
        if (!why)
                why = &dummy;
        why->kind = XPU_REFUSE_NONE;
        why->path[0] = why->detail[0] = '\0';
        if (!path)
                return -EINVAL;
        int fds[WALK_DEPTH_MAX + 1];
        uint64_t mnt[WALK_DEPTH_MAX + 1];
        size_t offs[WALK_DEPTH_MAX + 1];
        size_t depth = 0;
        int links = 0, r = 0;
        /* The path walked so far inside the root, for a refusal's text. */
        char walked[PATH_MAX] = "", here[PATH_MAX];
        char last_link[PATH_MAX] = "", last_target[PATH_MAX] = ""; /* for a ".." refusal after a link */
        _cleanup_free_ char *pending = strdup(path);
        if (!pending)
                return -ENOMEM;
        fds[0] = fcntl(root_fd, F_DUPFD_CLOEXEC, 3);
        if (fds[0] < 0)
                return negative_errno();
        offs[0] = 0;
        mnt[0] = 0;
        if (m->judge_mounts && (r = mount_of(fds[0], &mnt[0])) < 0)
                goto out;
        char *rest = pending;
        for (;;) {
                char comp[NAME_MAX + 1];
                bool last;
                ssize_t clen = next_component(&rest, comp, &last);
                if (clen < 0) {
                        r = (int)clen;
                        goto out;
                }
                size_t len = (size_t)clen;
                if (len == 2 && comp[0] == '.' && comp[1] == '.') {
                        if (depth > 0) {
                                close(fds[depth--]);
                                walked[offs[depth]] = '\0';
                        } else if (!m->dotdot_stays) {
                                if (last_link[0])
                                        refuse(why, XPU_REFUSE_DOTDOT, last_link, last_target);
                                else
                                        refuse(why, XPU_REFUSE_DOTDOT, path, NULL);
                                r = -EXDEV;
                                goto out;
                        }
                        len = 0; /* now in the parent (or still at the root): handled like "." */
                }
                if (len == 0 || (len == 1 && comp[0] == '.')) {
                        if (!last)
                                continue;
                        if (m->op == WALK_CHECK)
                                r = 0;
                        else if (m->op == WALK_MKDIR)
                                r = fcntl(fds[depth], F_DUPFD_CLOEXEC, 3);
                        else
                                r = openat(fds[depth], ".", flags | O_CLOEXEC, mode);
                        if (r < 0)
                                r = negative_errno();
                        goto out;
                }
                /* For a refusal's text only: a walk that names none goes on with it cut. */
                if (snprintf(here, sizeof here, "%s/%s", walked, comp) >= (int)sizeof here && m->explains) {
                        r = -ENAMETOOLONG;
                        goto out;
                }
                _cleanup_close_ int fd = openat(fds[depth], comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0 && errno == ENOENT && m->op == WALK_MKDIR) {
                        if (mkdirat(fds[depth], comp, mode) < 0 && errno != EEXIST) {
                                r = negative_errno();
                                goto out;
                        }
                        fd = openat(fds[depth], comp, O_PATH | O_NOFOLLOW | O_CLOEXEC); /* checked below */
                }
                if (fd < 0) {
                        r = negative_errno();
                        if (r == -ENOENT && m->op == WALK_CHECK) {
                                /* The rest is created new; a ".." in it would be resolved only
                                 * after the first mkdir, so it is refused now. */
                                r = 0;
                                for (const char *q = rest; *q; q += strcspn(q, "/"), q += strspn(q, "/"))
                                        if (q[0] == '.' && q[1] == '.' && (q[2] == '/' || !q[2])) {
                                                refuse(why, XPU_REFUSE_DOTDOT, path, NULL);
                                                r = -EXDEV;
                                        }
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
                /* O_NOFOLLOW on the final component, where the rules let openat(2)'s meaning
                 * stand: the link itself is what is opened (O_PATH), or -ELOOP. */
                bool link_itself = last && m->op == WALK_OPEN && !m->final_link_refused && (flags & O_NOFOLLOW);
                if (S_ISLNK(st.st_mode) && !link_itself) {
                        char target[PATH_MAX];
                        ssize_t n = readlinkat(fd, "", target, sizeof target - 1);
                        if (n < 0) {
                                r = negative_errno();
                                goto out;
                        }
                        target[n] = '\0';
                        /* A final link is the operation's business (a symlink op replaces it, the
                         * others refuse it with their own words); the check looks at the way there. */
                        if (last && m->op == WALK_CHECK) {
                                r = 0;
                                goto out;
                        }
                        if (last && m->op == WALK_OPEN && m->final_link_refused && (flags & (O_CREAT | O_NOFOLLOW))) {
                                refuse(why, XPU_REFUSE_FINAL_LINK, here, target);
                                r = -ELOOP;
                                goto out;
                        }
                        if (++links > WALK_LINKS_MAX) {
                                refuse(why, XPU_REFUSE_LOOP, here, target);
                                r = -ELOOP;
                                goto out;
                        }
                        if (n == 0 && m->absolute_link_restarts) {
                                r = -ENOENT; /* as the kernel answers for an empty link (symlink(2) makes none) */
                                goto out;
                        }
                        if (target[0] == '/' || n == 0) {
                                if (!m->absolute_link_restarts) {
                                        refuse(why, XPU_REFUSE_ABSOLUTE_LINK, here, target);
                                        r = -EXDEV;
                                        goto out;
                                }
                                while (depth > 0)
                                        close(fds[depth--]);
                                walked[0] = '\0';
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
                if (last && m->op == WALK_CHECK) {
                        /* The final component is the operation's: a mount on it is refused by the
                         * operation (tmpfs: "already a mount point"; rename: EBUSY). */
                        r = 0;
                        goto out;
                }
                uint64_t id = 0;
                if (m->judge_mounts) {
                        r = mount_of(fd, &id);
                        if (r == 0 && id != mnt[depth])
                                r = judge_mount(root_fd, fd, id, here, why);
                        if (r < 0)
                                goto out;
                }
                if (last) {
                        if (m->op == WALK_MKDIR && !S_ISDIR(st.st_mode)) {
                                refuse(why, XPU_REFUSE_NOT_DIR, here, NULL);
                                r = -ENOTDIR;
                        } else if (m->op == WALK_MKDIR)
                                r = TAKE_FD(fd);
                        else
                                r = reopen_final(fds[depth], comp, flags, mode, &st);
                        goto out;
                }
                if (!S_ISDIR(st.st_mode)) {
                        refuse(why, XPU_REFUSE_NOT_DIR, here, NULL);
                        r = -ENOTDIR;
                        goto out;
                }
                if (depth + 1 > m->depth_max) {
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

int xpu_open_in_root_walk(int root_fd, const char *path, int flags, mode_t mode) {
        return walk(root_fd, path, flags, mode, WALK_IN_ROOT, NULL);
}

int xpu_open_in_root(int root_fd, const char *path, int flags, mode_t mode) {
        static bool no_openat2;
        struct open_how how = {
                .flags = (uint64_t)(flags | O_CLOEXEC),
                .mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0,
                .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
        };
        if (!path || !*path)
                return -EINVAL;
        /* RESOLVE_IN_ROOT treats a leading "/" as the root itself; skip it so "/" alone means
         * the root directory. */
        while (*path == '/')
                path++;
        if (!*path)
                path = ".";
        if (!no_openat2) {
                /* openat2 answers EAGAIN when a rename or mount anywhere on the system raced a ".."
                 * of this lookup (RESOLVE_IN_ROOT checks the kernel's rename and mount sequence
                 * counts); sysfs links are full of "..", so a busy host sees it now and then. It
                 * is no answer about PATH: ask again a few times, then walk, which takes ".." one
                 * component at a time and is not subject to that check. */
                for (int tries = 0; tries < XPU_OPENAT2_EAGAIN_TRIES; tries++) {
                        long fd = syscall(SYS_openat2, root_fd, path, &how, sizeof how);
                        if (fd >= 0)
                                return (int)fd;
                        if (errno != EAGAIN)
                                break;
                }
                if (errno == ENOSYS)
                        no_openat2 = true;
                else if (errno != EAGAIN)
                        return negative_errno();
        }
        return xpu_open_in_root_walk(root_fd, path, flags, mode);
}

int xpu_stat_in_root(int root_fd, const char *path, bool nofollow, struct stat *ret) {
        _cleanup_close_ int fd =
                xpu_open_in_root(root_fd, path, O_PATH | (nofollow ? O_NOFOLLOW : 0), 0);
        if (fd < 0)
                return fd;
        if (fstat(fd, ret) < 0)
                return negative_errno();
        return 0;
}

const char *xpu_path_split_parent(const char *path, char *buf, size_t size, char *name, size_t name_size,
                                  int *ret) {
        *ret = xpu_strlcpy(buf, path, size) < 0 ? -ENAMETOOLONG : 0;
        if (*ret < 0)
                return NULL;
        size_t len = strlen(buf);
        while (len > 1 && buf[len - 1] == '/')
                buf[--len] = '\0';
        char *slash = strrchr(buf, '/');
        const char *base = slash ? slash + 1 : buf;
        if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
                *ret = -EINVAL;
                return NULL;
        }
        if (xpu_strlcpy(name, base, name_size) < 0) {
                *ret = -ENAMETOOLONG;
                return NULL;
        }
        if (slash)
                *slash = '\0';
        return slash ? (buf[0] ? buf : "/") : ".";
}

int xpu_open_parent_in_root(int root_fd, const char *path, int flags, char *name, size_t name_size) {
        char buf[PATH_MAX];
        int r;
        const char *dir = xpu_path_split_parent(path, buf, sizeof buf, name, name_size, &r);
        return dir ? xpu_open_in_root(root_fd, dir, flags | O_DIRECTORY, 0) : r;
}

ssize_t xpu_readlink_in_root(int root_fd, const char *path, char *buf, size_t size) {
        char name[NAME_MAX + 1];
        _cleanup_close_ int dfd = xpu_open_parent_in_root(root_fd, path, O_PATH, name, sizeof name);
        if (dfd < 0)
                return dfd;
        if (size == 0)
                return -EINVAL;
        ssize_t n = readlinkat(dfd, name, buf, size);
        if (n < 0)
                return negative_errno();
        if ((size_t)n >= size)
                return -ENAMETOOLONG;
        buf[n] = '\0';
        return n;
}

int xpu_fd_path(int fd, char *buf, size_t size) {
        char link[64];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(link, buf, size);
        if (n < 0)
                return negative_errno();
        if ((size_t)n >= size)
                return -ENAMETOOLONG;
        buf[n] = '\0';
        return 0;
}

int xpu_fd_path_in_root(int root_fd, int fd, char *buf, size_t size) {
        char root[PATH_MAX], file[PATH_MAX];
        int r = xpu_fd_path(fd, file, sizeof file);
        if (r == 0)
                r = xpu_fd_path(root_fd, root, sizeof root);
        if (r < 0)
                return r;
        size_t rlen = strcmp(root, "/") == 0 ? 0 : strlen(root);
        if (strncmp(file, root, rlen) != 0 || file[rlen] != '/')
                return -EXDEV;
        return xpu_strlcpy(buf, file + rlen, size);
}

int xpu_open_beneath(int root_fd, const char *path, int flags, mode_t mode, struct xpu_path_refusal *why) {
        return walk(root_fd, path, flags, mode, WALK_BENEATH, why);
}

int xpu_check_beneath(int root_fd, const char *path, struct xpu_path_refusal *why) {
        return walk(root_fd, path, 0, 0, WALK_BENEATH_CHECK, why);
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
        int r = walk(root_fd, path, 0, 0, WALK_BENEATH_CHECK, why);
        if (r < 0)
                return r;
        return walk(root_fd, path, 0, mode, WALK_BENEATH_MKDIR, why);
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
                         WALK_LINKS_MAX, root_name);
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
