/* SPDX-License-Identifier: Apache-2.0 */
/* Driver-library candidates in a driver root (libs-internal.h): paths resolved inside the root,
 * and what its ld.so.cache and library directories offer for a name pattern. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/macro.h"
#include "base/ldcache.h"
#include "base/path.h"
#include "base/str.h"
#include "libs-internal.h"
#include "libs.h"

/* Largest ld.so.cache read, in bytes (a full desktop's cache is ~100 KiB). */
#define LDCACHE_SIZE_MAX (16u << 20)
/* Symlinks followed when resolving one path inside the root (the kernel's limit). */
#define SYMLINK_MAX 40

/* ---- paths inside the driver root -------------------------------------------------------- */

/* Normalise PATH lexically into an absolute path inside a root: empty and "." components go,
 * ".." drops the previous component and stops at "/" (as RESOLVE_IN_ROOT does). */
static int path_normalize(const char *path, char *out, size_t size) {
        size_t len = 0;
        if (size < 2)
                return -ENAMETOOLONG;
        out[0] = '\0';
        for (const char *p = path; *p;) {
                while (*p == '/')
                        p++;
                if (!*p)
                        break;
                const char *end = strchrnul(p, '/');
                size_t n = (size_t)(end - p);
                if (n == 2 && p[0] == '.' && p[1] == '.') {
                        char *slash = memrchr(out, '/', len);
                        len = slash ? (size_t)(slash - out) : 0;
                        out[len] = '\0';
                } else if (!(n == 1 && p[0] == '.')) {
                        if (len + 1 + n + 1 > size)
                                return -ENAMETOOLONG;
                        out[len++] = '/';
                        memcpy(out + len, p, n);
                        len += n;
                        out[len] = '\0';
                }
                p = end;
        }
        if (len == 0)
                memcpy(out, "/", 2);
        return 0;
}

const char *xpu_libs_path_basename(const char *path) {
        const char *slash = strrchr(path, '/');
        return slash ? slash + 1 : path;
}

/* Follow the symlinks of PATH's final component inside ROOT_FD: OUT gets the in-root path of
 * the file it ends on, *ST that file's stat. The result is checked against the kernel's own
 * resolution (openat2 RESOLVE_IN_ROOT of PATH names the same inode), so the host outside the
 * root is never looked at. Returns 0, -ENOENT (dangling), -ELOOP, -EXDEV (the lexical and the
 * kernel's resolution differ), -errno. */
int xpu_libs_resolve_in_root(int root_fd, const char *path, char *out, size_t size, struct stat *st) {
        char cur[PATH_MAX], target[PATH_MAX], join[PATH_MAX * 2];
        struct stat kernel;
        int r = path_normalize(path, cur, sizeof cur);
        if (r < 0)
                return r;
        for (unsigned i = 0;; i++) {
                r = xpu_stat_in_root(root_fd, cur, true, st);
                if (r < 0)
                        return r;
                if (!S_ISLNK(st->st_mode))
                        break;
                if (i >= SYMLINK_MAX)
                        return -ELOOP;
                ssize_t n = xpu_readlink_in_root(root_fd, cur, target, sizeof target);
                if (n < 0)
                        return (int)n;
                if (target[0] == '/')
                        snprintf(join, sizeof join, "%s", target);
                else
                        snprintf(join, sizeof join, "%.*s/%s", (int)(xpu_libs_path_basename(cur) - cur), cur,
                                 target);
                r = path_normalize(join, cur, sizeof cur);
                if (r < 0)
                        return r;
        }
        r = xpu_stat_in_root(root_fd, path, false, &kernel);
        if (r < 0)
                return r;
        if (kernel.st_dev != st->st_dev || kernel.st_ino != st->st_ino)
                return -EXDEV;
        return xpu_strlcpy(out, cur, size);
}

/* ---- candidates: what the cache and the library directories offer ------------------------ */

void xpu_libs_strv_done(struct xpu_libs_strv *s) {
        for (size_t i = 0; i < s->n; i++)
                free(s->v[i]);
        free(s->v);
        *s = (struct xpu_libs_strv){0};
}

static int strv_push(struct xpu_libs_strv *s, const char *str) {
        if (s->n == s->cap) {
                size_t cap = s->cap ? s->cap * 2 : 16;
                char **v = reallocarray(s->v, cap, sizeof *v);
                if (!v)
                        return -ENOMEM;
                s->v = v;
                s->cap = cap;
        }
        s->v[s->n] = strdup(str);
        if (!s->v[s->n])
                return -ENOMEM;
        s->n++;
        return 0;
}

static bool strv_contains(const struct xpu_libs_strv *s, const char *str) {
        for (size_t i = 0; i < s->n; i++)
                if (strcmp(s->v[i], str) == 0)
                        return true;
        return false;
}

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Length of NAME's "<base>.so" part: up to the last ".so" that ends NAME or is followed by
 * '.'; 0 when there is none. "libcuda.so.550.90.07" -> 10 ("libcuda.so"). */
size_t xpu_libs_so_base_len(const char *name) {
        size_t best = 0;
        for (const char *p = strstr(name, ".so"); p; p = strstr(p + 1, ".so"))
                if (p[3] == '\0' || p[3] == '.')
                        best = (size_t)(p - name) + 3;
        return best;
}

/* The suffix after "<base>.so.", "" when there is none. */
const char *xpu_libs_so_suffix(const char *name, size_t base_len) {
        return name[base_len] == '.' ? name + base_len + 1 : "";
}

/* True when NAME's "<base>.so" part matches one of PATTERNS (fnmatch globs). */
bool xpu_libs_base_matches(const char *name, char *const *patterns, size_t n_patterns) {
        char base[NAME_MAX + 1];
        size_t len = xpu_libs_so_base_len(name);
        if (len == 0 || len >= sizeof base)
                return false;
        memcpy(base, name, len);
        base[len] = '\0';
        for (size_t i = 0; i < n_patterns; i++)
                if (patterns[i] && fnmatch(patterns[i], base, 0) == 0)
                        return true;
        return false;
}

struct cache_collect {
        char *const *patterns;
        size_t n_patterns;
        struct xpu_libs_strv *values;
        int error;
        int32_t flags;
};

static void cache_collect_cb(const struct xpu_ldcache_entry *e, void *userdata) {
        struct cache_collect *c = userdata;
        if (c->error < 0 || e->flags != c->flags || e->value[0] != '/')
                return;
        if (!xpu_libs_base_matches(xpu_libs_path_basename(e->value), c->patterns, c->n_patterns))
                return;
        int r = strv_push(c->values, e->value);
        if (r < 0)
                c->error = r;
}

/* Paths in the driver root whose "<base>.so" matches PATTERNS, in search order: what the
 * root's ld.so.cache lists (resolved inside the root: the cache names soname links), then the
 * entries of xpu_library_dirs, sorted by name within each directory. */
/* REFUSED (may be NULL): on a directory over XPU_LIBDIR_ENTRIES_MAX entries, the line saying so
 * (malloc'ed); the return is then -E2BIG. */
int xpu_libs_collect_candidates(int root_fd, const struct search *search, char *const *patterns, size_t n_patterns,
                                struct xpu_libs_strv *ret, char **refused) {
        _cleanup_free_ unsigned char *cache = NULL;
        struct xpu_libs_strv values = {0};
        size_t cache_size = 0;
        int r = 0;

        /* A missing or malformed cache is not an error: the directories follow. */
        if (xpu_ldcache_read(root_fd, LDCACHE_SIZE_MAX, &cache, &cache_size) == 0) {
                struct cache_collect c = {patterns, n_patterns, &values, 0, search->cache_flags};
                if (xpu_ldcache_parse_entries(cache, cache_size, cache_collect_cb, &c) >= 0 && c.error < 0)
                        r = c.error;
        }
        for (size_t i = 0; r >= 0 && i < values.n; i++) {
                char resolved[PATH_MAX];
                struct stat st;
                if (xpu_libs_resolve_in_root(root_fd, values.v[i], resolved, sizeof resolved, &st) < 0)
                        continue;
                if (!strv_contains(ret, resolved))
                        r = strv_push(ret, resolved);
        }
        xpu_libs_strv_done(&values);

        for (const char *const *dir = search->dirs; r >= 0 && *dir; dir++) {
                int dfd = xpu_open_in_root(root_fd, *dir, O_RDONLY | O_DIRECTORY, 0);
                if (dfd < 0)
                        continue;
                _cleanup_closedir_ DIR *d = fdopendir(dfd);
                if (!d) {
                        close(dfd);
                        continue;
                }
                struct xpu_libs_strv names = {0};
                struct dirent *de;
                size_t entries = 0;
                while (r >= 0 && (de = readdir(d))) {
                        if (++entries > XPU_LIBDIR_ENTRIES_MAX) {
                                if (refused && asprintf(refused,
                                                        "driver root directory %s has more than %d entries; refusing "
                                                        "to read it (a broken or hostile driver root): point "
                                                        "--driver-root at the host's driver files",
                                                        *dir, XPU_LIBDIR_ENTRIES_MAX) < 0)
                                        *refused = NULL;
                                r = -E2BIG;
                                break;
                        }
                        if (de->d_name[0] != '.' && xpu_libs_base_matches(de->d_name, patterns, n_patterns))
                                r = strv_push(&names, de->d_name);
                }
                if (names.n)
                        qsort(names.v, names.n, sizeof *names.v, cmp_str);
                for (size_t i = 0; r >= 0 && i < names.n; i++) {
                        char path[PATH_MAX];
                        if (snprintf(path, sizeof path, "%s/%s", *dir, names.v[i]) >= (int)sizeof path)
                                continue;
                        r = strv_push(ret, path);
                }
                xpu_libs_strv_done(&names);
        }
        return r;
}
