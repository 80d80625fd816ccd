/* SPDX-License-Identifier: Apache-2.0 */
/* A regular file below a root (a driver root, the sys root of /sys and /proc): its path resolved
 * with xpu_open_in_root() (path.h), then opened, read whole or read as one value with fileio.h's
 * readers. Anything that is not a regular file is refused without opening it for real (a FIFO
 * would block, a device node would run its driver). Nothing here logs; errors are -errno. */
#pragma once

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Open PATH below ROOT_FD for reading (O_NONBLOCK, so that a FIFO planted there cannot block the
 * open), a regular file only; fill *RET (may be NULL) with its fstat. Returns the fd, -EISDIR
 * for a directory, -EINVAL for a FIFO, device or socket, or open's -errno. */
int xpu_open_file_in_root(int root_fd, const char *path, struct stat *ret);

/* Read the whole file PATH below ROOT_FD into BUF (SIZE bytes, NUL-terminated).
 * Returns the number of bytes read (without the NUL), -EFBIG when the file does not fit,
 * -EISDIR/-ENOENT/-EACCES... from open/read. Refuses anything that is not a regular file
 * (sysfs and procfs attributes are regular files): -EINVAL for FIFOs, devices, sockets. */
ssize_t xpu_read_file_in_root(int root_fd, const char *path, char *buf, size_t size);

/* Like xpu_read_file_in_root(), then strips leading and trailing white space (spaces, tabs,
 * newlines). Returns the length after stripping or -errno. */
ssize_t xpu_read_value_in_root(int root_fd, const char *path, char *buf, size_t size);
