/* SPDX-License-Identifier: Apache-2.0 */
/* Safe file access below a root directory file descriptor, and small text parsers.
 *
 * Every path is resolved with openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS) against a root
 * fd: absolute symlinks and ".." cannot leave the root, magic links (/proc/self/fd/N) are
 * refused. Nothing here logs (style guide item 2); errors are returned as -errno. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

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

/* Read the whole file PATH below ROOT_FD into BUF (SIZE bytes, NUL-terminated).
 * Returns the number of bytes read (without the NUL), -EFBIG when the file does not fit,
 * -EISDIR/-ENOENT/-EACCES... from open/read. Refuses anything that is not a regular file
 * (sysfs and procfs attributes are regular files): -EINVAL for FIFOs, devices, sockets. */
ssize_t xpu_read_file_in_root(int root_fd, const char *path, char *buf, size_t size);

/* Like xpu_read_file_in_root(), then strips leading and trailing white space (spaces, tabs,
 * newlines). Returns the length after stripping or -errno. */
ssize_t xpu_read_value_in_root(int root_fd, const char *path, char *buf, size_t size);

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

/* Create directory PATH and its missing parents below ROOT_FD with MODE. Existing directories
 * are fine; an existing non-directory is -ENOTDIR. Symlinked components are resolved inside the
 * root. Returns an O_PATH fd of the final directory, or -errno. */
int xpu_mkdir_p_in_root(int root_fd, const char *path, mode_t mode);

/* Write BUF (LEN bytes) to PATH below ROOT_FD: written to a temporary name in the same
 * directory, then renamed over PATH, mode MODE. Returns 0 or -errno. */
int xpu_write_file_in_root(int root_fd, const char *path, const void *buf, size_t len, mode_t mode);

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

/* PCI bus ids. The normal form is the kernel's: "%04x:%02x:%02x.%x", lower case, so a 32-bit
 * domain keeps all its digits ("3f8cfdd:00:00.0") and nvidia-smi's "00000000:1A:00.0" becomes
 * "0000:1a:00.0". */
#define XPU_PCI_BUS_ID_MAX 20
/* Parse "[domain:]bus:dev.fn" (hex, any case, domain up to 32 bits, missing domain = 0) into
 * OUT in normal form. Returns 0 or -EINVAL. */
int xpu_pci_bus_id_normalize(const char *in, char out[XPU_PCI_BUS_ID_MAX]);
/* Build the normal form from numbers. */
void xpu_pci_bus_id_format(uint32_t domain, uint8_t bus, uint8_t dev, uint8_t fn,
                           char out[XPU_PCI_BUS_ID_MAX]);
