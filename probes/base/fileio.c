/* SPDX-License-Identifier: Apache-2.0 */
#include "fileio.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "macro.h"


int xpu_open_root(const char *dir) {
        int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        return fd < 0 ? negative_errno() : fd;
}

/* Userspace equivalent of openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS) for kernels without
 * openat2 (Linux < 5.6) and for valgrind, which does not know the syscall. Each component is
 * opened with O_NOFOLLOW relative to the directory before it; a symlink's text is read and
 * resolved again inside the root (absolute targets restart at the root, ".." never climbs above
 * it), so the kernel never follows a link, magic or not. */
#define WALK_DEPTH_MAX 256
#define WALK_LINKS_MAX 40

int xpu_open_in_root_walk(int root_fd, const char *path, int flags, mode_t mode) {
        int fds[WALK_DEPTH_MAX];
        size_t depth = 0;
        int links = 0, r;
        _cleanup_free_ char *pending = strdup(path);
        if (!pending)
                return -ENOMEM;
        fds[0] = fcntl(root_fd, F_DUPFD_CLOEXEC, 3);
        if (fds[0] < 0)
                return negative_errno();
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
                if (len == 0 || strcmp(comp, ".") == 0) {
                        if (!last)
                                continue;
                        r = openat(fds[depth], ".", flags | O_CLOEXEC, mode);
                        r = r < 0 ? negative_errno() : r;
                        goto out;
                }
                if (strcmp(comp, "..") == 0) {
                        if (depth > 0)
                                close(fds[depth--]);
                        if (!last)
                                continue;
                        r = openat(fds[depth], ".", flags | O_CLOEXEC, mode);
                        r = r < 0 ? negative_errno() : r;
                        goto out;
                }
                struct stat st;
                bool exists = fstatat(fds[depth], comp, &st, AT_SYMLINK_NOFOLLOW) == 0;
                if (exists && S_ISLNK(st.st_mode) && !(last && (flags & O_NOFOLLOW))) {
                        if (++links > WALK_LINKS_MAX) {
                                r = -ELOOP;
                                goto out;
                        }
                        char target[PATH_MAX];
                        ssize_t n = readlinkat(fds[depth], comp, target, sizeof target - 1);
                        if (n < 0) {
                                r = negative_errno();
                                goto out;
                        }
                        target[n] = '\0';
                        if (target[0] == '/')
                                while (depth > 0)
                                        close(fds[depth--]);
                        char *np = NULL;
                        if (asprintf(&np, "%s/%s", target, rest) < 0) {
                                r = -ENOMEM;
                                goto out;
                        }
                        free(pending);
                        pending = np;
                        rest = pending;
                        continue;
                }
                if (last) {
                        r = openat(fds[depth], comp, flags | O_NOFOLLOW | O_CLOEXEC, mode);
                        r = r < 0 ? negative_errno() : r;
                        goto out;
                }
                if (depth + 1 >= WALK_DEPTH_MAX) {
                        r = -ENAMETOOLONG;
                        goto out;
                }
                int next = openat(fds[depth], comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (next < 0) {
                        r = negative_errno();
                        goto out;
                }
                fds[++depth] = next;
        }
out:
        for (size_t i = 0; i <= depth; i++)
                close(fds[i]);
        return r;
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
                long fd = syscall(SYS_openat2, root_fd, path, &how, sizeof how);
                if (fd >= 0)
                        return (int)fd;
                if (errno != ENOSYS)
                        return negative_errno();
                no_openat2 = true;
        }
        return xpu_open_in_root_walk(root_fd, path, flags, mode);
}

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

ssize_t xpu_read_file_in_root(int root_fd, const char *path, char *buf, size_t size) {
        if (size == 0)
                return -EINVAL;
        _cleanup_close_ int fd = xpu_open_file_in_root(root_fd, path, NULL);
        if (fd < 0)
                return fd;
        return xpu_pread_text(fd, buf, size);
}

ssize_t xpu_read_value_in_root(int root_fd, const char *path, char *buf, size_t size) {
        return strip_value(buf, xpu_read_file_in_root(root_fd, path, buf, size));
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

ssize_t xpu_path_next_component(char **rest, char comp[NAME_MAX + 1], bool *last) {
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

char *xpu_strstrip(char *s) {
        while (*s && isspace((unsigned char)*s))
                s++;
        size_t len = strlen(s);
        while (len > 0 && isspace((unsigned char)s[len - 1]))
                s[--len] = '\0';
        return s;
}

bool xpu_str_is_printable(const char *s) {
        if (!s || !*s)
                return false;
        for (const unsigned char *p = (const unsigned char *)s; *p; p++)
                if (*p < 0x20 || *p > 0x7e)
                        return false;
        return true;
}

bool xpu_startswith(const char *s, const char *prefix) {
        return strncmp(s, prefix, strlen(prefix)) == 0;
}

int xpu_parse_u64(const char *s, int base, uint64_t *ret) {
        if (!s)
                return -EINVAL;
        while (isspace((unsigned char)*s))
                s++;
        if (*s == '-')
                return -ERANGE;
        if (!*s || *s == '+')
                return -EINVAL;
        char *end = NULL;
        errno = 0;
        unsigned long long v = strtoull(s, &end, base);
        if (errno == ERANGE)
                return -ERANGE;
        if (end == s)
                return -EINVAL;
        while (isspace((unsigned char)*end))
                end++;
        if (*end)
                return -EINVAL;
        *ret = (uint64_t)v;
        return 0;
}

int xpu_parse_bool(const char *s) {
        static const char *const yes[] = { "1", "true", "yes", "on" }, *const no[] = { "0", "false", "no", "off", "" };
        for (size_t i = 0; s && i < ELEMENTSOF(yes); i++)
                if (strcasecmp(s, yes[i]) == 0)
                        return 1;
        for (size_t i = 0; s && i < ELEMENTSOF(no); i++)
                if (strcasecmp(s, no[i]) == 0)
                        return 0;
        return -EINVAL;
}

int xpu_parse_i64(const char *s, int base, int64_t *ret) {
        if (!s)
                return -EINVAL;
        while (isspace((unsigned char)*s))
                s++;
        if (!*s)
                return -EINVAL;
        char *end = NULL;
        errno = 0;
        long long v = strtoll(s, &end, base);
        if (errno == ERANGE)
                return -ERANGE;
        if (end == s)
                return -EINVAL;
        while (isspace((unsigned char)*end))
                end++;
        if (*end)
                return -EINVAL;
        *ret = (int64_t)v;
        return 0;
}

int xpu_strlcpy(char *dst, const char *src, size_t size) {
        if (size == 0)
                return -ENAMETOOLONG;
        size_t len = strlen(src);
        if (len >= size) {
                memcpy(dst, src, size - 1);
                dst[size - 1] = '\0';
                return -ENAMETOOLONG;
        }
        memcpy(dst, src, len + 1);
        return 0;
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
