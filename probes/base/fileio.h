/* SPDX-License-Identifier: Apache-2.0 */
/* Safe file access below a root directory file descriptor, and small text parsers.
 *
 * Every path is resolved with openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS) against a root
 * fd: absolute symlinks and ".." cannot leave the root, magic links (/proc/self/fd/N) are
 * refused. Nothing here logs; errors are returned as -errno. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "escape.h" /* what the readers return is text to check or clean: callers get the UTF-8 helpers with them */

/* Largest file the read helpers accept, in bytes. sysfs attributes are one page; procfs
 * "information" files are far smaller. */
#define XPU_READ_MAX (64 * 1024)

/* Open a directory to serve as a root for the helpers below (O_PATH | O_DIRECTORY | O_CLOEXEC).
 * Returns the fd or -errno (-ENOENT, -ENOTDIR, -EACCES ...). */
int xpu_open_root(const char *dir);

/* Open PATH below ROOT_FD. PATH may be absolute ("/proc/devices") or relative; either way it is
 * resolved as if ROOT_FD were "/". FLAGS are open(2) flags (O_CLOEXEC is always added), MODE is
 * used with O_CREAT. Returns the fd or -errno; -EXDEV/-ELOOP when a magic link is crossed,
 * -ENOSYS when the kernel lacks openat2 (Linux < 5.6). */
int xpu_open_in_root(int root_fd, const char *path, int flags, mode_t mode);

/* The same resolution done in userspace, one component at a time with O_NOFOLLOW; used when
 * openat2 answers ENOSYS (old kernels, valgrind). Exposed for the tests. */
int xpu_open_in_root_walk(int root_fd, const char *path, int flags, mode_t mode);

/* read(2) from FD into BUF until SIZE bytes are in or the file ends, EINTR retried. Returns
 * the number of bytes read (less than SIZE only at the end of the file) or read's -errno. */
ssize_t xpu_read_full(int fd, void *buf, size_t size);

/* pread(2) from FD at OFFSET into BUF until SIZE bytes are in or the file ends, EINTR retried.
 * Returns the number of bytes read (less than SIZE only at the end of the file), pread's -errno,
 * or -EINVAL for an OFFSET past what off_t holds. */
ssize_t xpu_pread_full(int fd, void *buf, size_t size, uint64_t offset);

/* write(2) all LEN bytes of BUF to FD, EINTR retried; nothing but write runs. Returns 0, -EIO
 * when write wrote nothing, or write's -errno. */
int xpu_write_full(int fd, const void *buf, size_t len);

/* Open PATH below ROOT_FD for reading (O_NONBLOCK, so that a FIFO planted there cannot block the
 * open), a regular file only; fill *RET (may be NULL) with its fstat. Returns the fd, -EISDIR
 * for a directory, -EINVAL for a FIFO, device or socket, or open's -errno. */
int xpu_open_file_in_root(int root_fd, const char *path, struct stat *ret);

/* Open the file FD refers to (typically an O_PATH fd) for reading with FLAGS (O_RDONLY and
 * O_CLOEXEC added), only when it is a regular file: it is reopened through "/proc/self/fd/N", so a
 * FIFO, device node or socket found there is never opened for real (opening a FIFO, even with
 * O_NONBLOCK, wakes a writer blocked on it; opening a device node runs its driver). Fills *RET
 * (may be NULL) with its fstat whenever fstat succeeded, refusals included. Returns the new fd, -EISDIR for a directory, -EINVAL for anything
 * else that is not a regular file, -ENOENT when /proc is not mounted, or fstat's/open's -errno. */
int xpu_reopen_regular(int fd, int flags, struct stat *ret);

/* Read the whole file PATH below ROOT_FD into BUF (SIZE bytes, NUL-terminated).
 * Returns the number of bytes read (without the NUL), -EFBIG when the file does not fit,
 * -EISDIR/-ENOENT/-EACCES... from open/read. Refuses anything that is not a regular file
 * (sysfs and procfs attributes are regular files): -EINVAL for FIFOs, devices, sockets. */
ssize_t xpu_read_file_in_root(int root_fd, const char *path, char *buf, size_t size);

/* Like xpu_read_file_in_root(), then strips leading and trailing white space (spaces, tabs,
 * newlines). Returns the length after stripping or -errno. */
ssize_t xpu_read_value_in_root(int root_fd, const char *path, char *buf, size_t size);

/* The reading part of xpu_read_file_in_root() on an open FD: the whole file from offset 0 (pread,
 * so a kept sysfs attribute is read anew each time) into BUF (SIZE bytes, NUL-terminated).
 * Returns the length, -EFBIG when it does not fit, -EINVAL for an embedded NUL or SIZE 0, or
 * pread's -errno. */
ssize_t xpu_pread_text(int fd, char *buf, size_t size);
/* xpu_pread_text(), then stripped as xpu_read_value_in_root() strips. */
ssize_t xpu_pread_value(int fd, char *buf, size_t size);

/* fstatat-like: stat PATH below ROOT_FD without following a final symlink when NOFOLLOW.
 * Returns 0 or -errno. */
int xpu_stat_in_root(int root_fd, const char *path, bool nofollow, struct stat *ret);

/* Open the directory holding PATH below ROOT_FD (FLAGS | O_DIRECTORY: O_PATH to look, O_RDONLY to
 * create entries with *at() calls) and write PATH's final component to NAME (NAME_SIZE bytes).
 * Returns the fd or -errno; -EINVAL when the final component is empty, "." or "..". */
int xpu_open_parent_in_root(int root_fd, const char *path, int flags, char *name, size_t name_size);

/* The next component of the path at *REST for the component walks (fileio.c's fallback walk,
 * fileio-beneath.c): skips leading slashes, copies the component into COMP (NUL-terminated),
 * advances *REST past it and the slashes after it, sets *LAST when nothing follows. Returns the
 * component's length (0 at the end of the path) or -ENAMETOOLONG above NAME_MAX bytes. */
ssize_t xpu_path_next_component(char **rest, char comp[NAME_MAX + 1], bool *last);

/* Split PATH into its parent directory and final component for the *_parent_* openers: copies
 * PATH into BUF (SIZE bytes, trailing slashes dropped), writes the final component to NAME
 * (NAME_SIZE bytes) and returns the parent ("/" for "/x", "." for "x"), a pointer into BUF or a
 * constant. Returns NULL with *RET = -EINVAL when the final component is empty, "." or "..",
 * -ENAMETOOLONG when PATH or the component does not fit. */
const char *xpu_path_split_parent(const char *path, char *buf, size_t size, char *name, size_t name_size,
                                  int *ret);

/* Read the target text of symlink PATH below ROOT_FD (the link itself is not followed).
 * Returns the length or -errno (-EINVAL when PATH is not a symlink, -ENAMETOOLONG). */
ssize_t xpu_readlink_in_root(int root_fd, const char *path, char *buf, size_t size);

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

/* Text helpers. */

/* Strip leading and trailing white space in place; returns S. */
char *xpu_strstrip(char *s);
/* True when S is non-empty printable ASCII (0x20..0x7e): what a name or version read from sysfs
 * or procfs must be before it reaches JSON, a terminal or an environment variable. */
bool xpu_str_is_printable(const char *s);
/* True when S starts with PREFIX. */
bool xpu_startswith(const char *s, const char *prefix);
/* Parse an unsigned integer in BASE (0 = auto, as strtoull) spanning the whole string (white space
 * around it allowed). Returns 0 and sets *RET, -EINVAL for empty/garbage, -ERANGE on overflow or
 * a minus sign. */
int xpu_parse_u64(const char *s, int base, uint64_t *ret);
/* Parse a boolean: 1/true/yes/on → 1, 0/false/no/off/"" → 0 (any case). Returns 1, 0 or -EINVAL. */
int xpu_parse_bool(const char *s);
/* Parse a signed integer spanning the whole string. Returns 0, -EINVAL or -ERANGE. */
int xpu_parse_i64(const char *s, int base, int64_t *ret);
/* Copy SRC into DST (SIZE bytes) always NUL-terminating; returns -ENAMETOOLONG when truncated. */
int xpu_strlcpy(char *dst, const char *src, size_t size);

/* Replace PATH's content by BUF (LEN bytes) atomically: whatever is at ".<name of PATH>" in the
 * same directory is unlinked, the dot-file created afresh (O_CREAT|O_EXCL|O_NOFOLLOW|O_NONBLOCK:
 * never a FIFO, a symlink or a file someone else made) with MODE (fchmod, whatever the umask),
 * written, fsync'ed, renamed over PATH, then the directory fsync'ed. Readers that skip dot-files
 * (NFD's features.d, container engines' CDI directories) see the old content or the new, never
 * half of it. The directory should be writable only by the writer: in one others can write, they
 * could race the unlink with a file of their own, which O_EXCL then refuses (-EEXIST). The
 * dot-file is removed on failure. Something at PATH that is not a regular file (a device node, a
 * symlink such as /dev/stdout, a directory) is never replaced: -EEXIST. Returns 0 or -errno
 * (-EINVAL for a PATH without a file name). Silent. */
int xpu_write_file_replace(const char *path, const void *buf, size_t len, mode_t mode);
