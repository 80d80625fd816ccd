/* SPDX-License-Identifier: Apache-2.0 */
/* Files on an open fd: whole reads and writes with EINTR retried, a regular file reopened from an
 * O_PATH fd, a file's text read whole, and atomic replacement. Nothing here resolves a path below a
 * root (root-file.h builds on this for that) and nothing logs; errors are returned as -errno. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Largest file the read helpers accept, in bytes. sysfs attributes are one page; procfs
 * "information" files are far smaller. */
#define XPU_READ_MAX (64 * 1024)

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

/* Open the file FD refers to (typically an O_PATH fd) for reading with FLAGS (O_RDONLY and
 * O_CLOEXEC added), only when it is a regular file: it is reopened through "/proc/self/fd/N", so a
 * FIFO, device node or socket found there is never opened for real (opening a FIFO, even with
 * O_NONBLOCK, wakes a writer blocked on it; opening a device node runs its driver). Fills *RET
 * (may be NULL) with its fstat whenever fstat succeeded, refusals included. Returns the new fd,
 * -EISDIR for a directory, -EINVAL for anything else that is not a regular file, -ENOENT when
 * /proc is not mounted, or fstat's/open's -errno. */
int xpu_reopen_regular(int fd, int flags, struct stat *ret);

/* The whole file on an open FD from offset 0 (pread, so a kept sysfs attribute is read anew each
 * time) into BUF (SIZE bytes, NUL-terminated). Returns the length, -EFBIG when it does not fit,
 * -EINVAL for an embedded NUL or SIZE 0, or pread's -errno. */
ssize_t xpu_pread_text(int fd, char *buf, size_t size);
/* xpu_pread_text(), then leading and trailing white space (spaces, tabs, newlines) stripped.
 * Returns the length after stripping or -errno. */
ssize_t xpu_pread_value(int fd, char *buf, size_t size);

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
