/* SPDX-License-Identifier: Apache-2.0 */
/* Paths below a root directory fd, resolved one way with two sets of rules (docs/safe-paths.md):
 *
 *   in root  (reads in a driver root): openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS), or the
 *            same resolution in userspace where the kernel lacks openat2. Absolute symlinks and
 *            ".." stay inside the root, magic links are refused.
 *   beneath  (writes into a container root): a symlink is followed only while it stays beneath
 *            the root; absolute links, ".." above the root and host mounts are refused, and the
 *            refusal says which component and why.
 *
 * Both are the one component walker of path.c (O_PATH | O_NOFOLLOW per component, relative to
 * the directory before it: the kernel never resolves a path string); its table of modes says
 * where the rules differ. Nothing here logs; errors are returned as -errno. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Open a directory to serve as a root for the helpers below (O_PATH | O_DIRECTORY | O_CLOEXEC).
 * Returns the fd or -errno (-ENOENT, -ENOTDIR, -EACCES ...). */
int xpu_open_root(const char *dir);

/* ---- reads: RESOLVE_IN_ROOT ---------------------------------------------------------------- */

/* Open PATH below ROOT_FD. PATH may be absolute ("/proc/devices") or relative; either way it is
 * resolved as if ROOT_FD were "/". FLAGS are open(2) flags (O_CLOEXEC is always added), MODE is
 * used with O_CREAT. Returns the fd or -errno; -EXDEV/-ELOOP when a magic link is crossed. Where
 * the kernel lacks openat2 (Linux < 5.6, valgrind), or it keeps answering EAGAIN because renames
 * or mounts elsewhere race its ".." checks, the walker does the same resolution. */
int xpu_open_in_root(int root_fd, const char *path, int flags, mode_t mode);

/* The walker's in-root mode, which xpu_open_in_root() uses when openat2 answers ENOSYS, or EAGAIN
 * (a rename or mount raced a ".." of the lookup) XPU_OPENAT2_EAGAIN_TRIES times in a row. Exposed
 * for the tests, which compare it with openat2. */
int xpu_open_in_root_walk(int root_fd, const char *path, int flags, mode_t mode);

/* fstatat-like: stat PATH below ROOT_FD without following a final symlink when NOFOLLOW.
 * Returns 0 or -errno. */
int xpu_stat_in_root(int root_fd, const char *path, bool nofollow, struct stat *ret);

/* Open the directory holding PATH below ROOT_FD (FLAGS | O_DIRECTORY: O_PATH to look, O_RDONLY to
 * create entries with *at() calls) and write PATH's final component to NAME (NAME_SIZE bytes).
 * Returns the fd or -errno; -EINVAL when the final component is empty, "." or "..". */
int xpu_open_parent_in_root(int root_fd, const char *path, int flags, char *name, size_t name_size);

/* Read the target text of symlink PATH below ROOT_FD (the link itself is not followed).
 * Returns the length or -errno (-EINVAL when PATH is not a symlink, -ENAMETOOLONG). */
ssize_t xpu_readlink_in_root(int root_fd, const char *path, char *buf, size_t size);

/* Split PATH into its parent directory and final component for the *_parent_* openers: copies
 * PATH into BUF (SIZE bytes, trailing slashes dropped), writes the final component to NAME
 * (NAME_SIZE bytes) and returns the parent ("/" for "/x", "." for "x"), a pointer into BUF or a
 * constant. Returns NULL with *RET = -EINVAL when the final component is empty, "." or "..",
 * -ENAMETOOLONG when PATH or the component does not fit. */
const char *xpu_path_split_parent(const char *path, char *buf, size_t size, char *name, size_t name_size,
                                  int *ret);

/* The path of what FD refers to in this process's view of the file system: readlink() of the
 * magic link /proc/self/fd/FD into BUF (SIZE bytes, NUL-terminated). Returns 0, -ENAMETOOLONG,
 * -errno. */
int xpu_fd_path(int fd, char *buf, size_t size);

/* The path inside the root ROOT_FD of what FD refers to: FD's path (xpu_fd_path) with ROOT_FD's
 * taken off the front (all of it when ROOT_FD is "/"). So every link the kernel followed to open
 * FD, absolute ones included, is resolved. Returns 0, -EXDEV when FD is not below ROOT_FD's path,
 * -ENAMETOOLONG, -errno. */
int xpu_fd_path_in_root(int root_fd, int fd, char *buf, size_t size);

/* ---- write targets: RESOLVE_BENEATH semantics, refusals explained ------------------------- */

/* Why a write target was refused (docs/safe-paths.md). Reads keep RESOLVE_IN_ROOT (a driver root
 * with absolute links inside it is normal); writes into a container root follow a symlink only
 * while it stays beneath the root. */
enum xpu_refusal_kind {
        XPU_REFUSE_NONE = 0,
        XPU_REFUSE_ABSOLUTE_LINK, /* a symlink with an absolute target ("/host/etc") */
        XPU_REFUSE_DOTDOT,        /* ".." (in the path or a link's target) that climbs above the root */
        XPU_REFUSE_MOUNT,         /* a mount point of another filesystem that is not a tmpfs */
        XPU_REFUSE_FINAL_LINK,    /* the final component is a symlink where a new file/mount point goes */
        XPU_REFUSE_LOOP,          /* more than 40 symlinks */
        XPU_REFUSE_TOO_DEEP,      /* more than XPU_BENEATH_DEPTH_MAX directories deep */
        XPU_REFUSE_NOT_DIR,       /* a component that must be a directory is a file, FIFO, device... */
        XPU_REFUSE_TMPFS_SUBDIR,  /* a tmpfs mount whose mountinfo root is not "/": a bind of a directory */
        XPU_REFUSE_TMPFS_SHARED,  /* a tmpfs also mounted elsewhere: a bind of a host's tmpfs */
        XPU_REFUSE_TMPFS_PROPAGATED, /* a tmpfs with mountinfo "master:N": propagated from outside */
        XPU_REFUSE_TMPFS_OLDER,   /* a tmpfs born before PID 1 of this PID namespace started */
        XPU_REFUSE_TMPFS_UNKNOWN, /* a tmpfs /proc/self/mountinfo has no line for (or no /proc) */
};

/* Directory depth a write target may reach while resolved (links included). */
#define XPU_BENEATH_DEPTH_MAX 128

struct xpu_path_refusal {
        enum xpu_refusal_kind kind;
        char path[PATH_MAX];   /* the offending component as a path in the root: "/etc/ld.so.conf.d" */
        char detail[PATH_MAX]; /* a link's target text, or the filesystem type ("ext4", "proc") */
};

/* Open PATH below ROOT_FD for writing or as a mount target. Each component is opened with
 * O_PATH | O_NOFOLLOW relative to the one before (no kernel path resolution at all); a symlink
 * is followed only when its target is relative and stays beneath the root; an absolute link, a
 * ".." above the root, a component on another mount that is not a tmpfs (statx STATX_MNT_ID
 * against its parent, fstatfs f_type), a tmpfs that is not the container's own (a bind of a
 * host's tmpfs or of a directory in one: xpu_tmpfs_origin(), mountinfo.h), a final symlink
 * (always, for O_CREAT and O_NOFOLLOW;
 * O_NOFOLLOW is implied) are refused. FLAGS/MODE as for openat(2) (O_CLOEXEC added). WHY (may be
 * NULL) is filled on a refusal. Returns the fd, or -EXDEV (leaves the root / other filesystem),
 * -ELOOP (symlink loop or final symlink), -ENAMETOOLONG (too deep), -ENOTDIR, -ENOENT... */
int xpu_open_beneath(int root_fd, const char *path, int flags, mode_t mode, struct xpu_path_refusal *why);

/* Check the part of PATH below ROOT_FD that exists, with xpu_open_beneath()'s rules, creating
 * nothing: a missing component ends the check with success (what is created later is new).
 * Used to validate every write target before the first one is made. Returns 0 or -errno (WHY
 * filled on a refusal). */
int xpu_check_beneath(int root_fd, const char *path, struct xpu_path_refusal *why);

/* Format a refusal as "PATH is WHAT" ("/etc/ld.so.conf.d is a symlink to /host/etc that leads
 * outside ROOT_NAME"), for the caller's error line. Returns BUF. */
char *xpu_path_refusal_format(const struct xpu_path_refusal *why, const char *root_name, char *buf, size_t size);

/* Open the directory holding PATH below ROOT_FD with xpu_open_beneath()'s rules (FLAGS |
 * O_DIRECTORY) and write PATH's final component to NAME. Returns the fd or -errno; -EINVAL when
 * the final component is empty, "." or "..". */
int xpu_open_parent_beneath(int root_fd, const char *path, int flags, char *name, size_t name_size,
                            struct xpu_path_refusal *why);

/* Create directory PATH and its missing parents below ROOT_FD with MODE, with
 * xpu_open_beneath()'s rules for the existing part (checked in full before the first mkdir).
 * Existing directories are fine; an existing non-directory is -ENOTDIR. Returns an O_PATH fd of
 * the final directory, or -errno (WHY filled on a refusal). */
int xpu_mkdir_p_in_root(int root_fd, const char *path, mode_t mode, struct xpu_path_refusal *why);

/* Write BUF (LEN bytes) to PATH below ROOT_FD: written to a temporary name in the same
 * directory (reached with xpu_open_beneath()'s rules), then renamed over PATH, mode MODE; an
 * existing PATH that is a symlink is refused (-ELOOP), a directory -EISDIR. Returns 0 or -errno. */
int xpu_write_file_in_root(int root_fd, const char *path, const void *buf, size_t len, mode_t mode,
                           struct xpu_path_refusal *why);
