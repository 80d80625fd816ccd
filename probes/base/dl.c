/* SPDX-License-Identifier: Apache-2.0 */
/* Loading vendor libraries from a driver root into a typed symbol table (see dl.h). */
#include "base/dl.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <link.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/ldcache.h"
#include "base/macro.h"
#include "base/strv.h"
#include "path.h"
#include "str.h"

/* Candidate fd numbers tried before giving up when every "/proc/self/fd/N" name is taken. */
#define FD_NAME_TRIES 1024

/* A one-line message into ERR (may be NULL); returns R so callers can `return set_err(...)`. */
_printf_(4, 5) static int set_err(int r, char *err, size_t err_size, const char *fmt, ...) {
        if (err && err_size > 0) {
                va_list ap;
                va_start(ap, fmt);
                vsnprintf(err, err_size, fmt, ap);
                va_end(ap);
        }
        return r;
}

/* Append "<sep><s>" to BUF (SIZE bytes, NUL-terminated); truncation is silent (a message). */
static void append(char *buf, size_t size, const char *sep, const char *s) {
        size_t len = strnlen(buf, size);
        if (len + 1 >= size)
                return;
        snprintf(buf + len, size - len, "%s%s", len > 0 ? sep : "", s);
}

static const char *basename_of(const char *path) {
        const char *slash = strrchr(path, '/');
        return slash ? slash + 1 : path;
}

/* Cache entries for one soname: their paths, in cache order, as one NUL-separated list. */
struct cache_match {
        const char *soname;
        char *paths; /* "p1\0p2\0...\0\0" */
        size_t len, cap;
        int error;
};

static void cache_match_cb(const struct xpu_ldcache_entry *e, void *userdata) {
        struct cache_match *m = userdata;
        if (m->error < 0 || e->flags != xpu_ldcache_native_flags() || strcmp(e->key, m->soname) != 0)
                return;
        size_t n = strlen(e->value) + 1;
        if (m->len + n + 1 > m->cap) {
                size_t cap = (m->cap ? m->cap * 2 : 256) + n;
                char *p = realloc(m->paths, cap);
                if (!p) {
                        m->error = -ENOMEM;
                        return;
                }
                m->paths = p;
                m->cap = cap;
        }
        memcpy(m->paths + m->len, e->value, n);
        m->len += n;
        m->paths[m->len] = '\0';
}

/* Candidates that exist but were refused, for the "not found" message: "PATH (WHY)" items. */
struct refusals {
        char text[1024];
};

static void refuse(struct refusals *rf, const char *path, const char *why) {
        char item[PATH_MAX + 64];
        snprintf(item, sizeof item, "%s (%s)", path, why);
        if (!strstr(rf->text, item)) /* the cache and a directory may name the same file */
                append(rf->text, sizeof rf->text, ", ", item);
}

static const char *file_kind(mode_t mode) {
        switch (mode & S_IFMT) {
        case S_IFDIR:
                return "a directory, not a regular file";
        case S_IFIFO:
                return "a FIFO, not a regular file";
        case S_IFCHR:
        case S_IFBLK:
                return "a device node, not a regular file";
        case S_IFSOCK:
                return "a socket, not a regular file";
        default:
                return "not a regular file";
        }
}

/* Open PATH inside the root as O_PATH; the fd when it lands on a regular file this process may
 * read, else -errno (-ENOENT/-ENOTDIR: not there; anything else is noted in RF with why: -EINVAL
 * for a directory, FIFO, device ..., -EACCES, -ELOOP ...). O_PATH: a device node or FIFO is never
 * opened for real. O_PATH checks no permission on the file itself, so a regular file is reopened
 * for reading through its fd (no side effects for a regular file) to learn whether dlopen() could. */
static int open_candidate(int root_fd, const char *path, struct refusals *rf) {
        _cleanup_close_ int fd = xpu_open_in_root(root_fd, path, O_PATH, 0);
        if (fd < 0) {
                if (fd != -ENOENT && fd != -ENOTDIR)
                        refuse(rf, path, strerror(-fd));
                return fd;
        }
        struct stat st = { 0 };
        int rd = xpu_reopen_regular(fd, 0, &st);
        if (rd == -EISDIR || rd == -EINVAL) {
                refuse(rf, path, file_kind(st.st_mode));
                return -EINVAL;
        }
        if (rd < 0) {
                refuse(rf, path, strerror(-rd));
                return rd;
        }
        close(rd);
        return TAKE_FD(fd);
}

static void cache_validate_cb(const struct xpu_ldcache_entry *e, void *userdata) {
}

struct name_in_use {
        const char *name;
        bool found;
};

static int name_in_use_cb(struct dl_phdr_info *info, size_t size, void *userdata) {
        struct name_in_use *u = userdata;
        if (info->dlpi_name && strcmp(info->dlpi_name, u->name) == 0) {
                u->found = true;
                return 1;
        }
        return 0;
}

/* An fd for the same file as FD whose "/proc/self/fd/N" name no loaded object carries: glibc's
 * dlopen() returns an already loaded object whose name matches before it opens anything, and
 * an earlier load through a since-closed fd of the same number keeps that name. Consumes FD;
 * writes the name into NAME. Returns the fd or -errno (-EMFILE when no number is free). */
static int fd_with_fresh_name(int fd, char *name, size_t size) {
        _cleanup_close_ int cur = fd;
        for (int i = 0; i < FD_NAME_TRIES; i++) {
                snprintf(name, size, "/proc/self/fd/%d", cur);
                struct name_in_use u = {name, false};
                dl_iterate_phdr(name_in_use_cb, &u);
                if (!u.found)
                        return TAKE_FD(cur);
                int next = fcntl(cur, F_DUPFD_CLOEXEC, cur + 1);
                if (next < 0)
                        return negative_errno();
                close(cur);
                cur = next;
        }
        return -EMFILE;
}

/* The path inside the root of the file FD refers to: FD's host path with ROOT_FD's host path
 * taken off the front. Falls back to CANDIDATE's directory joined with the file's name. */
static int path_in_root(int root_fd, int fd, const char *candidate, char *buf, size_t size) {
        char file[PATH_MAX];
        if (xpu_fd_path_in_root(root_fd, fd, buf, size) == 0)
                return 0;
        if (xpu_fd_path(fd, file, sizeof file) < 0)
                return xpu_strlcpy(buf, candidate, size);
        const char *slash = strrchr(candidate, '/');
        int dlen = slash ? (int)(slash - candidate) : 0;
        int n = snprintf(buf, size, "%.*s/%s", dlen, candidate, basename_of(file));
        return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* "<dir>/<soname>" inside the root: the O_PATH fd of the regular file, -ENOENT (refusals noted
 * in RF), or -ENAMETOOLONG. */
static int find_in_dir(int root_fd, const char *dir, const char *soname, char *candidate, size_t size,
                       struct refusals *rf) {
        int n = snprintf(candidate, size, "%s/%s", strcmp(dir, "/") == 0 ? "" : dir, soname);
        if (n < 0 || (size_t)n >= size)
                return -ENAMETOOLONG;
        int fd = open_candidate(root_fd, candidate, rf);
        return fd >= 0 ? fd : -ENOENT;
}

static int name_cmp_newest_first(const void *a, const void *b) {
        return strverscmp(*(char *const *)b, *(char *const *)a);
}

/* SONAME in the directories PATTERN names inside the root: PATTERN itself when it has no
 * wildcard, else its first component with one (COMPONENT below; the part before it is PARENT, the
 * rest END) matched with fnmatch(3) against the entries of PARENT, newest version first, at most
 * XPU_DL_GLOB_MAX of them. Returns the fd, -ENOENT, or -errno. */
static int find_in_pattern(int root_fd, const char *pattern, const char *soname, char *candidate, size_t size,
                           struct refusals *rf) {
        const char *glob = strpbrk(pattern, "*?[");
        if (!glob)
                return find_in_dir(root_fd, pattern, soname, candidate, size, rf);
        const char *start = glob;
        while (start > pattern && start[-1] != '/')
                start--;
        const char *end = strchrnul(glob, '/');
        char parent[PATH_MAX], component[NAME_MAX + 1];
        if ((size_t)(start - pattern) >= sizeof parent || (size_t)(end - start) >= sizeof component)
                return -ENAMETOOLONG;
        snprintf(parent, sizeof parent, "%.*s", (int)(start - pattern), pattern);
        snprintf(component, sizeof component, "%.*s", (int)(end - start), start);

        int dfd = xpu_open_in_root(root_fd, parent[0] ? parent : ".", O_RDONLY | O_DIRECTORY, 0);
        if (dfd < 0)
                return -ENOENT;
        _cleanup_closedir_ DIR *d = fdopendir(dfd);
        if (!d) {
                close(dfd);
                return -ENOENT;
        }
        char **names = NULL;
        size_t n = 0;
        int r = 0;
        struct dirent *de;
        while (r >= 0 && n < XPU_DL_GLOB_MAX && (de = readdir(d)))
                if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0 &&
                    fnmatch(component, de->d_name, FNM_PERIOD) == 0 && (r = xpu_strv_push(&names, de->d_name)) >= 0)
                        n++;
        if (r < 0) {
                xpu_strv_free(names);
                return r;
        }
        if (n > 1)
                qsort(names, n, sizeof *names, name_cmp_newest_first);
        int fd = -ENOENT;
        for (size_t i = 0; i < n && fd == -ENOENT; i++) {
                char dir[PATH_MAX];
                int len = snprintf(dir, sizeof dir, "%s%s%s", parent, names[i], end);
                fd = len < 0 || (size_t)len >= sizeof dir ? -ENAMETOOLONG
                                                         : find_in_dir(root_fd, dir, soname, candidate, size, rf);
        }
        xpu_strv_free(names);
        return fd;
}

/* Look SONAME up in the root: cache entries (when CACHE is set), the library dirs, then the
 * EXTRA_DIRS patterns (may be NULL; with DIRS_FIRST before the others). Returns an O_PATH fd of
 * the regular file and the candidate path that led to it, or -ENOENT; candidates that exist but
 * were refused are noted in RF. */
static int find_soname(int root_fd, const unsigned char *cache, size_t cache_size, const char *soname,
                       const char *const *extra_dirs, bool dirs_first, char *candidate, size_t size,
                       struct refusals *rf) {
        for (size_t i = 0; dirs_first && extra_dirs && extra_dirs[i]; i++) {
                int fd = find_in_pattern(root_fd, extra_dirs[i], soname, candidate, size, rf);
                if (fd != -ENOENT)
                        return fd;
        }
        if (cache) {
                struct cache_match m = {soname, NULL, 0, 0, 0};
                int r = xpu_ldcache_parse_entries(cache, cache_size, cache_match_cb, &m);
                _cleanup_free_ char *paths = m.paths;
                if (m.error < 0)
                        return m.error;
                for (const char *p = paths; r >= 0 && p && *p; p += strlen(p) + 1) {
                        int fd = open_candidate(root_fd, p, rf);
                        if (fd >= 0) {
                                if (xpu_strlcpy(candidate, p, size) < 0) {
                                        close(fd);
                                        return -ENAMETOOLONG;
                                }
                                return fd;
                        }
                }
        }
        for (size_t i = 0; xpu_library_dirs[i]; i++) {
                int fd = find_in_dir(root_fd, xpu_library_dirs[i], soname, candidate, size, rf);
                if (fd != -ENOENT)
                        return fd;
        }
        for (size_t i = 0; !dirs_first && extra_dirs && extra_dirs[i]; i++) {
                int fd = find_in_pattern(root_fd, extra_dirs[i], soname, candidate, size, rf);
                if (fd != -ENOENT)
                        return fd;
        }
        return -ENOENT;
}

/* xpu_dl_open(), and with DRIVER_VERSION the version check of the file found, made before dlopen()
 * runs any of the library's code. */
static int dl_open(int driver_root_fd, const char *const *sonames, const char *const *extra_dirs, bool dirs_first,
                   const char *driver_version, char *loaded_path, size_t size, void **ret_handle, char *err,
                   size_t err_size) {
        if (!sonames || !sonames[0] || !ret_handle)
                return set_err(-EINVAL, err, err_size, "no library name given");
        for (size_t i = 0; sonames[i]; i++)
                if (!*sonames[i] || strchr(sonames[i], '/'))
                        return set_err(-EINVAL, err, err_size, "invalid library name \"%s\"", sonames[i]);

        _cleanup_free_ unsigned char *cache = NULL;
        size_t cache_size = 0;
        /* A missing, oversized or malformed cache is not an error: the directories follow. */
        if (xpu_ldcache_read(driver_root_fd, XPU_DL_LDCACHE_MAX, &cache, &cache_size) < 0 ||
            xpu_ldcache_parse_entries(cache, cache_size, cache_validate_cb, NULL) < 0) {
                free(cache);
                cache = NULL;
        }

        char candidate[PATH_MAX];
        struct refusals rf = {""};
        _cleanup_close_ int fd = -EBADF;
        for (size_t i = 0; sonames[i] && fd < 0; i++) {
                fd = find_soname(driver_root_fd, cache, cache_size, sonames[i], extra_dirs, dirs_first, candidate,
                                 sizeof candidate, &rf);
                if (fd < 0 && fd != -ENOENT)
                        return set_err(fd, err, err_size, "looking up %s: %s", sonames[i], strerror(-fd));
        }
        if (fd < 0) {
                char names[512] = "", searched[2048] = "", root[PATH_MAX];
                for (size_t i = 0; sonames[i]; i++)
                        append(names, sizeof names, ", ", sonames[i]);
                for (size_t i = 0; dirs_first && extra_dirs && extra_dirs[i]; i++)
                        append(searched, sizeof searched, ", ", extra_dirs[i]);
                if (cache)
                        append(searched, sizeof searched, ", ", "/etc/ld.so.cache");
                for (size_t i = 0; xpu_library_dirs[i]; i++)
                        append(searched, sizeof searched, ", ", xpu_library_dirs[i]);
                for (size_t i = 0; !dirs_first && extra_dirs && extra_dirs[i]; i++)
                        append(searched, sizeof searched, ", ", extra_dirs[i]);
                if (xpu_fd_path(driver_root_fd, root, sizeof root) < 0)
                        xpu_strlcpy(root, "the driver root", sizeof root);
                return set_err(-ENOENT, err, err_size, "not available: %s not found in %s: %s%s%s", names, root,
                               searched, rf.text[0] ? "; found but not usable: " : "", rf.text);
        }

        char inside[PATH_MAX];
        int r = path_in_root(driver_root_fd, fd, candidate, inside, sizeof inside);
        if (r < 0)
                return set_err(r, err, err_size, "path of %s too long", candidate);
        if (driver_version && (r = xpu_dl_version_matches(inside, driver_version, err, err_size)) < 0)
                return r;
        char name[64];
        fd = fd_with_fresh_name(TAKE_FD(fd), name, sizeof name);
        if (fd < 0)
                return set_err(fd, err, err_size, "cannot load %s: %s", inside, strerror(-fd));

        dlerror();
        void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
                const char *e = dlerror();
                return set_err(-ELIBBAD, err, err_size, "cannot load %s: %s", inside, e ? e : "dlopen failed");
        }
        if (loaded_path && xpu_strlcpy(loaded_path, inside, size) < 0) {
                dlclose(handle);
                return set_err(-ENAMETOOLONG, err, err_size, "path of %s too long", inside);
        }
        *ret_handle = handle;
        return 0;
}

int xpu_dl_open(int driver_root_fd, const char *const *sonames, char *loaded_path, size_t size,
                void **ret_handle, char *err, size_t err_size) {
        return dl_open(driver_root_fd, sonames, NULL, false, NULL, loaded_path, size, ret_handle, err, err_size);
}

static int open_dirs(int driver_root_fd, const char *const *sonames, const char *const *extra_dirs, bool first,
                     char *loaded_path, size_t size, void **ret_handle, char *err, size_t err_size) {
        for (size_t i = 0; extra_dirs && extra_dirs[i]; i++)
                if (extra_dirs[i][0] != '/')
                        return set_err(-EINVAL, err, err_size, "library directory \"%s\" is not absolute",
                                       extra_dirs[i]);
        return dl_open(driver_root_fd, sonames, extra_dirs, first, NULL, loaded_path, size, ret_handle, err, err_size);
}

int xpu_dl_open_dirs(int driver_root_fd, const char *const *sonames, const char *const *extra_dirs,
                     char *loaded_path, size_t size, void **ret_handle, char *err, size_t err_size) {
        return open_dirs(driver_root_fd, sonames, extra_dirs, false, loaded_path, size, ret_handle, err, err_size);
}

int xpu_dl_open_dirs_first(int driver_root_fd, const char *const *sonames, const char *const *dirs,
                           char *loaded_path, size_t size, void **ret_handle, char *err, size_t err_size) {
        return open_dirs(driver_root_fd, sonames, dirs, true, loaded_path, size, ret_handle, err, err_size);
}

int xpu_dl_open_version(int driver_root_fd, const char *const *sonames, const char *driver_version,
                        char *loaded_path, size_t size, void **ret_handle, char *err, size_t err_size) {
        if (!driver_version)
                return set_err(-EINVAL, err, err_size, "no driver version to check the library against");
        return dl_open(driver_root_fd, sonames, NULL, false, driver_version, loaded_path, size, ret_handle, err,
                       err_size);
}

int xpu_dl_bind(void *handle, const struct xpu_dl_symbol *syms, size_t n, char *err, size_t err_size) {
        if (!handle || (!syms && n > 0))
                return set_err(-EINVAL, err, err_size, "no library handle");
        for (size_t i = 0; i < n; i++)
                if (!syms[i].name || !syms[i].ptr)
                        return set_err(-EINVAL, err, err_size, "symbol table entry %zu incomplete", i);

        for (size_t i = 0; i < n; i++) {
                const struct xpu_dl_symbol *s = &syms[i];
                dlerror();
                void *p = dlsym(handle, s->name);
                if (!p && s->fallback) {
                        dlerror();
                        p = dlsym(handle, s->fallback);
                }
                if (!p && !s->optional) {
                        const char *e = dlerror();
                        if (s->fallback)
                                return set_err(-ENOENT, err, err_size, "symbol %s (or %s) not found: %s", s->name,
                                               s->fallback, e ? e : "NULL address");
                        return set_err(-ENOENT, err, err_size, "symbol %s not found: %s", s->name,
                                       e ? e : "NULL address");
                }
                *s->ptr = p;
        }
        return 0;
}

int xpu_dl_version_matches(const char *loaded_path, const char *driver_version, char *err, size_t err_size) {
        if (!loaded_path || !driver_version || !xpu_is_driver_version(driver_version))
                return set_err(-EINVAL, err, err_size, "invalid driver version \"%s\"",
                               driver_version ? driver_version : "(null)");
        const char *name = basename_of(loaded_path);
        const char *so = strstr(name, ".so.");
        const char *version = so ? so + 4 : NULL;
        if (!version || !xpu_is_driver_version(version))
                return set_err(-ENODATA, err, err_size, "no driver version in the library's file name: %s", name);
        if (strcmp(version, driver_version) != 0)
                return set_err(-EPROTO, err, err_size, "driver/library version mismatch: kernel module %s, %s",
                               driver_version, name);
        return 0;
}

bool xpu_is_driver_version(const char *s) {
        bool dot = false;
        if (!s || !*s)
                return false;
        for (const char *p = s; *p; p++) {
                if (*p == '.') {
                        if (p == s || p[1] == '\0' || p[1] == '.')
                                return false;
                        dot = true;
                } else if (*p < '0' || *p > '9')
                        return false;
        }
        return dot;
}
