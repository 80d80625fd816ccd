/* SPDX-License-Identifier: Apache-2.0 */
#include "root-file.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "macro.h"
#include "path.h"

int xpu_open_file_in_root(int root_fd, const char *path, struct stat *ret) {
        /* O_NONBLOCK: a FIFO planted where a file should be must not block the open. */
        _cleanup_close_ int fd = xpu_open_in_root(root_fd, path, O_RDONLY | O_NOCTTY | O_NONBLOCK, 0);
        if (fd < 0)
                return fd;
        struct stat st;
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (S_ISDIR(st.st_mode))
                return -EISDIR;
        if (!S_ISREG(st.st_mode))
                return -EINVAL;
        if (ret)
                *ret = st;
        return TAKE_FD(fd);
}

ssize_t xpu_read_file_in_root(int root_fd, const char *path, char *buf, size_t size) {
        if (size == 0)
                return -EINVAL;
        _cleanup_close_ int fd = xpu_open_file_in_root(root_fd, path, NULL);
        if (fd < 0)
                return fd;
        return xpu_pread_text(fd, buf, size);
}

ssize_t xpu_read_value_in_root(int root_fd, const char *path, char *buf, size_t size) {
        if (size == 0)
                return -EINVAL;
        _cleanup_close_ int fd = xpu_open_file_in_root(root_fd, path, NULL);
        if (fd < 0)
                return fd;
        return xpu_pread_value(fd, buf, size);
}
