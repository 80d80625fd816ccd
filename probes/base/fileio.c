/* SPDX-License-Identifier: Apache-2.0 */
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "str.h"

/* read(2) (OFFSET < 0) or pread(2) at OFFSET until SIZE bytes are in or the file ends. */
static ssize_t read_full_at(int fd, void *buf, size_t size, int64_t offset) {
        size_t len = 0;
        while (len < size) {
                ssize_t n = offset < 0 ? read(fd, (char *)buf + len, size - len)
                                       : pread(fd, (char *)buf + len, size - len, (off_t)(offset + (int64_t)len));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return negative_errno();
                if (n == 0)
                        break;
                len += (size_t)n;
        }
        return (ssize_t)len;
}

ssize_t xpu_read_full(int fd, void *buf, size_t size) {
        return read_full_at(fd, buf, size, -1);
}

ssize_t xpu_pread_full(int fd, void *buf, size_t size, uint64_t offset) {
        if (offset > INT64_MAX)
                return -EINVAL;
        return read_full_at(fd, buf, size, (int64_t)offset);
}

int xpu_write_full(int fd, const void *buf, size_t len) {
        const char *p = buf;
        while (len > 0) {
                ssize_t n = write(fd, p, len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return n < 0 ? negative_errno() : -EIO;
                p += n;
                len -= (size_t)n;
        }
        return 0;
}

int xpu_reopen_regular(int fd, int flags, struct stat *ret) {
        struct stat st;
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (ret)
                *ret = st;
        if (S_ISDIR(st.st_mode))
                return -EISDIR;
        if (!S_ISREG(st.st_mode))
                return -EINVAL;
        char self[64];
        snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
        int rd = open(self, flags | O_RDONLY | O_CLOEXEC | O_NOCTTY);
        return rd < 0 ? negative_errno() : rd;
}

ssize_t xpu_pread_text(int fd, char *buf, size_t size) {
        if (size == 0)
                return -EINVAL;
        ssize_t len = xpu_pread_full(fd, buf, size - 1, 0);
        if (len < 0)
                return len;
        if ((size_t)len == size - 1) {
                /* Full: fine only if the file ends exactly here. */
                char extra;
                ssize_t k = xpu_pread_full(fd, &extra, 1, (uint64_t)len);
                if (k != 0)
                        return k < 0 ? k : -EFBIG;
        }
        buf[len] = '\0';
        /* An embedded NUL would silently cut the text; refuse it. */
        if (memchr(buf, '\0', (size_t)len))
                return -EINVAL;
        return len;
}

/* Strip BUF (N >= 0 from a read) in place; N unchanged when negative. Returns the new length. */
static ssize_t strip_value(char *buf, ssize_t n) {
        if (n < 0)
                return n;
        char *s = xpu_strstrip(buf);
        size_t len = strlen(s);
        memmove(buf, s, len + 1);
        return (ssize_t)len;
}

ssize_t xpu_pread_value(int fd, char *buf, size_t size) {
        return strip_value(buf, xpu_pread_text(fd, buf, size));
}

int xpu_write_file_replace(const char *path, const void *buf, size_t len, mode_t mode) {
        if (!path || !buf)
                return -EINVAL;
        const char *slash = strrchr(path, '/');
        const char *name = slash ? slash + 1 : path;
        if (!*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
                return -EINVAL;
        char dir[PATH_MAX], tmp[NAME_MAX + 2];
        if (!slash)
                snprintf(dir, sizeof dir, ".");
        else if (slash == path)
                snprintf(dir, sizeof dir, "/");
        else if ((size_t)(slash - path) >= sizeof dir)
                return -ENAMETOOLONG;
        else
                snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
        if (strlen(name) + 1 > NAME_MAX)
                return -ENAMETOOLONG;
        snprintf(tmp, sizeof tmp, ".%s", name);

        _cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return negative_errno();
        /* Only a regular file is replaced: a device node (/dev/null), a symlink (/dev/stdout) or a
         * directory at PATH is something else's, which a rename would destroy. */
        struct stat st;
        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode))
                return -EEXIST;
        /* A fresh dot-file, never one that is there: a FIFO would block the open, a file someone
         * else made would stay theirs. So unlink whatever has the name, then create exclusively,
         * without following a symlink or blocking. */
        if (unlinkat(dfd, tmp, 0) < 0 && errno != ENOENT)
                return negative_errno();
        int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode);
        if (fd < 0)
                return negative_errno();
        int r = xpu_write_full(fd, buf, len);
        if (r == 0 && fchmod(fd, mode) < 0)
                r = negative_errno();
        if (r == 0 && fsync(fd) < 0)
                r = negative_errno();
        if (close(fd) < 0 && r == 0)
                r = negative_errno();
        if (r == 0 && renameat(dfd, tmp, dfd, name) < 0)
                r = negative_errno();
        if (r < 0) {
                (void)unlinkat(dfd, tmp, 0);
                return r;
        }
        (void)fsync(dfd); /* the rename itself on disk; the file is complete either way */
        return 0;
}
