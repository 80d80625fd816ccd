/* SPDX-License-Identifier: Apache-2.0 */
/* The gathering's CDI part: driver files that the container's CDI spec already mounted, which the
 * plan does not inject again (gather.h, xpu_gather_given). Reads only: stat and the image's
 * ld.so.cache below the container root. Silent. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/macro.h"
#include "base/path.h"
#include "base/str.h"
#include "gather.h"
#include "libs.h"

/* Where a CDI spec mounts binaries: the host's own paths, which PATH holds
 * (nvidia-ctk: nvidia-smi, nvidia-persistenced at /usr/bin). */
static const char *const given_bin_dirs[] = { "/usr/bin", "/usr/sbin", "/bin", "/sbin", NULL };

/* The image's ld.so.cache is read up to this size (a real one is a few hundred KiB). */
#define GIVEN_LDCACHE_MAX (16u << 20)

/* DIR/NAME below CONTAINER_FD when it is a regular file (symlinks followed inside the root): its
 * path into OUT and its stat into *ST. */
static bool regular_at(int container_fd, const char *dir, const char *name, char out[PATH_MAX], struct stat *st) {
        size_t len = strlen(dir);
        int n = snprintf(out, PATH_MAX, "%s%s%s", dir, len && dir[len - 1] == '/' ? "" : "/", name);
        return n > 0 && n < PATH_MAX && xpu_stat_in_root(container_fd, out, false, st) == 0 && S_ISREG(st->st_mode);
}

/* One ld.so.cache entry of the build architecture whose soname one of the given files wants. */
struct cache_match {
        const struct xpu_given_file *given;
        const struct stat *st; /* the given files' stats, parallel to GIVEN */
        size_t n;
        int container_fd;
        bool *found; /* parallel to GIVEN */
};

static void cache_cb(const struct xpu_ldcache_entry *e, void *userdata) {
        struct cache_match *m = userdata;
        if (e->flags != xpu_ldcache_native_flags())
                return;
        for (size_t i = 0; i < m->n; i++) {
                struct stat st;
                if (m->found[i] || !m->given[i].soname[0] || strcmp(e->key, m->given[i].soname) != 0)
                        continue;
                /* The cache lists soname links: resolved in the container, it must be this file. */
                if (xpu_stat_in_root(m->container_fd, e->value, false, &st) == 0 && st.st_dev == m->st[i].st_dev &&
                    st.st_ino == m->st[i].st_ino)
                        m->found[i] = true;
        }
}

int xpu_gather_given(int container_fd, const char *cdi_libdir, const struct xpu_driver_files *files,
                     struct xpu_given_file **ret, size_t *ret_n) {
        if (container_fd < 0 || !files || files->n == 0) {
                *ret = NULL;
                *ret_n = 0;
                return 0;
        }
        _cleanup_free_ struct xpu_given_file *given = calloc(files->n, sizeof *given);
        _cleanup_free_ struct stat *sts = calloc(files->n, sizeof *sts);
        _cleanup_free_ bool *found = calloc(files->n, sizeof *found);
        if (!given || !sts || !found)
                return -ENOMEM;
        size_t n = 0;
        for (size_t i = 0; i < files->n; i++) {
                const struct xpu_driver_file *f = &files->files[i];
                struct xpu_given_file *g = &given[n];
                bool hit = false;
                if (f->is_binary) {
                        for (size_t d = 0; given_bin_dirs[d] && !hit; d++)
                                hit = regular_at(container_fd, given_bin_dirs[d], f->name, g->path, &sts[n]);
                } else {
                        if (cdi_libdir)
                                hit = regular_at(container_fd, cdi_libdir, f->name, g->path, &sts[n]);
                        for (size_t d = 0; xpu_library_dirs[d] && !hit; d++)
                                hit = regular_at(container_fd, xpu_library_dirs[d], f->name, g->path, &sts[n]);
                }
                if (!hit)
                        continue; /* left to inject */
                xpu_strlcpy(g->name, f->name, sizeof g->name);
                xpu_strlcpy(g->capability, f->capability, sizeof g->capability);
                g->is_binary = f->is_binary;
                /* (libs.c only hands out plain file names; a '/' would leave the directory.) */
                if (!f->is_binary && f->soname[0] && strcmp(f->soname, f->name) != 0 && !strchr(f->soname, '/'))
                        xpu_strlcpy(g->soname, f->soname, sizeof g->soname);
                n++;
        }
        if (n == 0) {
                *ret = NULL;
                *ret_n = 0;
                return 0;
        }

        /* Does the image's loader find each soname as that file? Only its ld.so.cache is asked
         * (what a CDI createContainer hook such as nvidia-cdi-hook update-ldcache rebuilds): a soname
         * link beside the file counts only once ldconfig listed it. */
        _cleanup_free_ unsigned char *cache = NULL;
        size_t cache_size = 0;
        if (xpu_ldcache_read(container_fd, GIVEN_LDCACHE_MAX, &cache, &cache_size) == 0) {
                struct cache_match m = {
                        .given = given, .st = sts, .n = n, .container_fd = container_fd, .found = found,
                };
                (void)xpu_ldcache_parse_entries(cache, cache_size, cache_cb, &m); /* malformed: nothing found */
        }
        for (size_t i = 0; i < n; i++)
                given[i].link = given[i].soname[0] && !found[i];
        *ret = TAKE_PTR(given);
        *ret_n = n;
        return (int)n;
}
