/* SPDX-License-Identifier: Apache-2.0 */
/* Driver files placed at their own path: see host-files.h. */
#include "host-files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/macro.h"
#include "base/path.h"
#include "base/str.h"
#include "base/strv.h"

#define PLACEHOLDER "${DRIVER_VERSION}"

static const char *const kind_names[_XPU_HOST_FILE_MAX] = {
        [XPU_HOST_FILE_REGULAR] = "file",
        [XPU_HOST_FILE_SOCKET] = "socket",
        [XPU_HOST_FILE_DIRECTORY] = "directory",
        [XPU_HOST_FILE_TREE] = "tree",
        [XPU_HOST_FILE_SYMLINK] = "symlink",
        [XPU_HOST_FILE_DEVICE] = "device",
};

/* A glob's directory, listed once for all the patterns naming it. */
struct xpu_host_dir {
        char *path;   /* as the pattern names it ("" for "/") */
        int error;    /* 0, the open's -errno, or -E2BIG: more than XPU_LIBDIR_ENTRIES_MAX entries */
        char **names; /* its entries but "." and "..", sorted by strcmp */
        size_t n;
        bool noted;   /* its ERROR is in ->skipped already: one note, not one per line naming it */
};

const char *xpu_host_file_kind_to_string(enum xpu_host_file_kind k) {
        return k < _XPU_HOST_FILE_MAX ? kind_names[k] : "?";
}

struct xpu_host_files *xpu_host_files_free(struct xpu_host_files *f) {
        if (!f)
                return NULL;
        for (size_t i = 0; f->files && i < f->n; i++)
                free(f->files[i].path);
        free(f->files);
        xpu_strv_free(f->skipped);
        free(f->by_path);
        for (size_t i = 0; i < f->n_dirs; i++) {
                free(f->dirs[i].path);
                for (size_t k = 0; k < f->dirs[i].n; k++)
                        free(f->dirs[i].names[k]);
                free(f->dirs[i].names);
        }
        free(f->dirs);
        free(f);
        return NULL;
}

struct xpu_host_files *xpu_host_files_copy(const struct xpu_host_files *files) {
        struct xpu_host_files *c = calloc(1, sizeof *c);
        if (!c)
                return NULL;
        c->files = calloc(files->n ? files->n : 1, sizeof *c->files);
        c->skipped = xpu_strv_copy(files->skipped);
        if (!c->files || (files->skipped && !c->skipped))
                return xpu_host_files_free(c);
        for (size_t i = 0; i < files->n; i++) {
                const struct xpu_host_file *from = &files->files[i];
                size_t lp = strlen(from->path) + 1, lr = strlen(from->resolved) + 1;
                c->files[i] = *from;
                if (!(c->files[i].path = malloc(lp + lr))) {
                        c->n = i;
                        return xpu_host_files_free(c);
                }
                memcpy(c->files[i].path, from->path, lp);
                c->files[i].resolved = memcpy(c->files[i].path + lp, from->resolved, lr);
        }
        c->n = files->n;
        c->allocated = files->n ? files->n : 1;
        c->n_skipped = files->n_skipped;
        return c;
}

const char *xpu_host_file_pattern_invalid(const char *s) {
        static const char *const expected =
                "an absolute path (at most 2047 bytes, no \".\", \"..\" or empty components, no control "
                "characters) whose last component only may be a glob, with \"${DRIVER_VERSION}\" as its "
                "only placeholder";
        size_t len = strlen(s);
        if (s[0] != '/' || len < 2 || len >= PATH_MAX / 2 || s[len - 1] == '/')
                return expected;
        for (const char *p = s; *p; p++)
                if ((unsigned char)*p < 0x20 || *p == 0x7f)
                        return expected;
        for (const char *p = strstr(s, "${"); p; p = strstr(p + 1, "${"))
                if (strncmp(p, PLACEHOLDER, strlen(PLACEHOLDER)) != 0)
                        return expected;
        const char *last = strrchr(s, '/') + 1;
        for (const char *c = s + 1; c <= last; c += strcspn(c, "/") + 1) {
                size_t n = strcspn(c, "/");
                if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
                        return expected;
                if (c != last && strcspn(c, "*?[") < n)
                        return expected;
        }
        return NULL;
}

/* PATTERN with "${DRIVER_VERSION}" replaced by VERSION, into OUT. -ENAMETOOLONG, -ENOENT when
 * the pattern needs a version and there is none. */
static int expand(const char *pattern, const char *version, char *out, size_t size) {
        size_t o = 0;
        for (const char *p = pattern; *p;) {
                const char *put = p;
                size_t n = 1;
                if (strncmp(p, PLACEHOLDER, strlen(PLACEHOLDER)) == 0) {
                        if (!version || !version[0])
                                return -ENOENT;
                        put = version;
                        n = strlen(version);
                        p += strlen(PLACEHOLDER);
                } else
                        p++;
                if (o + n >= size)
                        return -ENAMETOOLONG;
                memcpy(out + o, put, n);
                o += n;
        }
        out[o] = '\0';
        return 0;
}

struct finder {
        int root_fd;
        struct xpu_host_files *f;
        int want;           /* enum xpu_host_file_kind a host's list asks for; -1: any the profile may name */
        const char *origin; /* the list's line ("drivers.csv:12"), NULL for a profile's pattern */
};

static const char *mode_kind(mode_t m) {
        return S_ISREG(m) ? "a regular file" : S_ISDIR(m) ? "a directory" : S_ISLNK(m) ? "a symlink"
               : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket"
               : S_ISFIFO(m) ? "a FIFO" : "of another type";
}

static int skip(struct finder *fi, const char *path, const char *why) {
        _cleanup_free_ char *line = NULL;
        if (fi->origin ? asprintf(&line, "%s (%s): %s", path, fi->origin, why) < 0
                       : asprintf(&line, "%s: %s", path, why) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < fi->f->n_skipped; i++)
                if (strcmp(fi->f->skipped[i], line) == 0)
                        return 0; /* (a pattern two capabilities share) */
        int r = xpu_strv_push(&fi->f->skipped, line);
        if (r >= 0)
                fi->f->n_skipped++;
        return r;
}

/* PATH resolved inside ROOT_FD with every link followed, as a path inside the root (the kernel's
 * own resolution, xpu_fd_path_in_root): a link target made from it names the file that was
 * checked, whatever absolute links the path crossed (resolved against the container's root
 * instead, those would name the image's files). Returns 0, -errno, -EXDEV. */
static int full_path_in_root(int root_fd, const char *path, char out[PATH_MAX], struct stat *st) {
        _cleanup_close_ int fd = xpu_open_in_root(root_fd, path, O_PATH, 0);
        if (fd < 0)
                return fd;
        if (fstat(fd, st) < 0)
                return negative_errno();
        return xpu_fd_path_in_root(root_fd, fd, out, PATH_MAX);
}

/* FNV-1a of a path, for the index of FILES' paths. */
static size_t path_hash(const char *s) {
        uint64_t h = 14695981039346656037u;
        for (; *s; s++)
                h = (h ^ (unsigned char)*s) * 1099511628211u;
        return (size_t)h;
}

static void index_add(struct xpu_host_files *f, size_t i) {
        size_t mask = f->by_path_size - 1;
        for (size_t k = path_hash(f->files[i].path) & mask;; k = (k + 1) & mask)
                if (!f->by_path[k]) {
                        f->by_path[k] = i + 1;
                        return;
                }
}

/* Make room in the index for one more path (at most half full), building it anew when it is
 * missing (a copy) or too small. Returns 0, -ENOMEM. */
static int index_reserve(struct xpu_host_files *f) {
        if (f->by_path_size >= 2 * (f->n + 1))
                return 0;
        size_t size = 64;
        while (size < 4 * (f->n + 1))
                size *= 2;
        size_t *t = calloc(size, sizeof *t);
        if (!t)
                return -ENOMEM;
        free(f->by_path);
        f->by_path = t;
        f->by_path_size = size;
        for (size_t i = 0; i < f->n; i++)
                index_add(f, i);
        return 0;
}

/* Is PATH one of F's files? (after index_reserve()) */
static bool index_has(const struct xpu_host_files *f, const char *path) {
        size_t mask = f->by_path_size - 1;
        for (size_t k = path_hash(path) & mask; f->by_path[k]; k = (k + 1) & mask)
                if (strcmp(f->files[f->by_path[k] - 1].path, path) == 0)
                        return true;
        return false;
}

static int add_file(struct finder *fi, const char *path, const char *resolved, const char *capability,
                    enum xpu_host_file_kind kind, const struct stat *st) {
        struct xpu_host_files *f = fi->f;
        if (f->n >= XPU_HOST_FILE_FILES_MAX)
                return -E2BIG;
        if (f->n >= f->allocated) { /* doubled: a list of thousands of lines is not copied thousands of times */
                size_t cap = f->allocated ? f->allocated * 2 : 16;
                struct xpu_host_file *n = reallocarray(f->files, cap, sizeof *n);
                if (!n)
                        return -ENOMEM;
                f->files = n;
                f->allocated = cap;
        }
        size_t lp = strlen(path) + 1, lr = strlen(resolved) + 1; /* < PATH_MAX: checked by the caller */
        char *both = malloc(lp + lr);
        if (!both)
                return -ENOMEM;
        size_t at = f->n++;
        struct xpu_host_file *hf = &f->files[at];
        memset(hf, 0, sizeof *hf);
        hf->path = memcpy(both, path, lp);
        hf->resolved = memcpy(both + lp, resolved, lr);
        xpu_strlcpy(hf->capability, capability, sizeof hf->capability);
        if (fi->origin)
                xpu_strlcpy(hf->origin, fi->origin, sizeof hf->origin);
        hf->kind = kind;
        hf->dev = st->st_dev;
        hf->ino = st->st_ino;
        index_add(f, at);
        return 0;
}

/* A host list's sym line: PATH itself must be a symlink; its text is what the container gets. */
static int take_symlink(struct finder *fi, const char *path) {
        struct stat st;
        int r = xpu_stat_in_root(fi->root_fd, path, true, &st);
        if (r == -ENOENT || r == -ENOTDIR)
                return 0;
        if (r < 0) {
                char why[128];
                snprintf(why, sizeof why, "cannot be looked at inside the driver root (%s); not placed", strerror(-r));
                return skip(fi, path, why);
        }
        if (!S_ISLNK(st.st_mode)) {
                char why[128];
                snprintf(why, sizeof why, "listed as a symlink but is %s; not placed", mode_kind(st.st_mode));
                return skip(fi, path, why);
        }
        char text[PATH_MAX];
        ssize_t n = xpu_readlink_in_root(fi->root_fd, path, text, sizeof text);
        if (n <= 0 || (size_t)n >= sizeof text)
                return skip(fi, path, "the link's text cannot be read or is too long; not placed");
        text[n] = '\0';
        for (const char *c = text; *c; c++)
                if ((unsigned char)*c < 0x20 || *c == 0x7f)
                        return skip(fi, path, "the link's text holds control characters; not placed");
        return add_file(fi, path, text, "", XPU_HOST_FILE_SYMLINK, &st);
}

/* Take PATH (found by CAPABILITY) when it resolves inside the root to a kind we place. */
static int take(struct finder *fi, const char *path, const char *capability) {
        int e = index_reserve(fi->f);
        if (e < 0)
                return e;
        if (index_has(fi->f, path))
                return 0;
        if (fi->want == XPU_HOST_FILE_SYMLINK)
                return take_symlink(fi, path);
        struct stat st;
        char resolved[PATH_MAX];
        int r = full_path_in_root(fi->root_fd, path, resolved, &st);
        if (r == -ENOENT || r == -ENOTDIR)
                return 0; /* absent: optional (a dangling link counts as absent too) */
        if (r < 0) {
                char why[128];
                snprintf(why, sizeof why, "cannot be resolved inside the driver root (%s); not placed", strerror(-r));
                return skip(fi, path, why);
        }
        enum xpu_host_file_kind kind;
        if (fi->want >= 0) {
                /* A host's list says what each line is: another kind is a stale or hostile list. */
                static const mode_t types[_XPU_HOST_FILE_MAX] = {
                        [XPU_HOST_FILE_REGULAR] = S_IFREG,
                        [XPU_HOST_FILE_TREE] = S_IFDIR,
                        [XPU_HOST_FILE_DEVICE] = S_IFCHR,
                };
                kind = (enum xpu_host_file_kind)fi->want;
                if ((st.st_mode & S_IFMT) != types[kind]) {
                        char why[128];
                        snprintf(why, sizeof why, "listed as %s but is %s; not placed",
                                 kind == XPU_HOST_FILE_REGULAR ? "a file" : kind == XPU_HOST_FILE_TREE ? "a directory"
                                                                                                 : "a character device",
                                 mode_kind(st.st_mode));
                        return skip(fi, path, why);
                }
                if (kind == XPU_HOST_FILE_DEVICE)
                        return add_file(fi, path, resolved, capability, kind, &st);
        } else if (S_ISREG(st.st_mode))
                kind = XPU_HOST_FILE_REGULAR;
        else if (S_ISSOCK(st.st_mode))
                kind = XPU_HOST_FILE_SOCKET;
        else if (S_ISDIR(st.st_mode))
                kind = XPU_HOST_FILE_DIRECTORY;
        else
                return skip(fi, path, "not a regular file, socket or directory (a FIFO or device); not placed");
        /* Only what every user of the driver root may already use: a file others may read, a
         * socket others may connect to, a directory others may write (the MPS pipe directory).
         * A profile comes with the image, and the image must not reach more of the host than any
         * local user does (the host's /etc/shadow, /root or a daemon's 0660 socket). */
        static const mode_t need[_XPU_HOST_FILE_MAX] = {
                [XPU_HOST_FILE_REGULAR] = S_IROTH,
                [XPU_HOST_FILE_SOCKET] = S_IWOTH,
                [XPU_HOST_FILE_DIRECTORY] = S_IROTH | S_IWOTH | S_IXOTH,
                [XPU_HOST_FILE_TREE] = S_IROTH | S_IXOTH,
        };
        if ((st.st_mode & need[kind]) != need[kind]) {
                char why[160];
                snprintf(why, sizeof why, "mode %04o: not %s by every user, so not for a container; not placed",
                         (unsigned)(st.st_mode & 07777),
                         kind == XPU_HOST_FILE_REGULAR  ? "readable"
                         : kind == XPU_HOST_FILE_SOCKET ? "connectable"
                         : kind == XPU_HOST_FILE_TREE   ? "readable and searchable"
                                                        : "readable, writable and searchable");
                return skip(fi, path, why);
        }
        return add_file(fi, path, resolved, capability, kind, &st);
}

static int cmp_names(const void *a, const void *b) {
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Count N more directory entries read or matched against F's budget. */
static int visit(struct xpu_host_files *f, size_t n) {
        f->visited += n;
        return f->visited > XPU_HOST_FILE_VISITS_MAX ? -E2BIG : 0;
}

/* The listing of DIR ("" for "/") inside the root, read on its first use only. */
static int list_dir(struct finder *fi, const char *dir, struct xpu_host_dir **ret) {
        struct xpu_host_files *f = fi->f;
        for (size_t i = 0; i < f->n_dirs; i++)
                if (strcmp(f->dirs[i].path, dir) == 0) {
                        *ret = &f->dirs[i];
                        return 0;
                }
        if ((f->n_dirs & (f->n_dirs - 1)) == 0) { /* 0 or a power of two: doubled */
                struct xpu_host_dir *nd = reallocarray(f->dirs, f->n_dirs ? f->n_dirs * 2 : 4, sizeof *nd);
                if (!nd)
                        return -ENOMEM;
                f->dirs = nd;
        }
        struct xpu_host_dir *d = &f->dirs[f->n_dirs];
        *d = (struct xpu_host_dir){ .path = strdup(dir) };
        if (!d->path)
                return -ENOMEM;
        f->n_dirs++;
        *ret = d;
        int fd = xpu_open_in_root(fi->root_fd, dir[0] ? dir : "/", O_RDONLY | O_DIRECTORY, 0);
        if (fd < 0) {
                d->error = fd;
                return visit(f, 1);
        }
        _cleanup_closedir_ DIR *dd = fdopendir(fd);
        if (!dd) {
                close(fd);
                return -ENOMEM;
        }
        size_t entries = 0, allocated = 0;
        int r = 0;
        for (struct dirent *de; r >= 0 && (de = readdir(dd));) {
                if (++entries > XPU_LIBDIR_ENTRIES_MAX) {
                        d->error = -E2BIG; /* a directory like that is not a driver's */
                        break;
                }
                if ((r = visit(f, 1)) < 0 || strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                if (d->n == allocated) {
                        size_t cap = allocated ? allocated * 2 : 16;
                        char **nn = reallocarray(d->names, cap, sizeof *nn);
                        if (!nn) {
                                r = -ENOMEM;
                                break;
                        }
                        d->names = nn;
                        allocated = cap;
                }
                if (!(d->names[d->n] = strdup(de->d_name)))
                        r = -ENOMEM;
                else
                        d->n++;
        }
        if (r < 0 || d->error) {
                for (size_t i = 0; i < d->n; i++)
                        free(d->names[i]);
                free(d->names);
                d->names = NULL;
                d->n = 0;
        } else if (d->n)
                qsort(d->names, d->n, sizeof *d->names, cmp_names);
        return r;
}

/* The entries of PATH's directory that match its last component. */
static int find_glob(struct finder *fi, const char *path, const char *capability) {
        const char *slash = strrchr(path, '/');
        char dir[PATH_MAX];
        size_t dl = (size_t)(slash - path);
        memcpy(dir, path, dl);
        dir[dl] = '\0';
        const char *shown = dl ? dir : "/";
        const char *glob = slash + 1;
        struct xpu_host_dir *d;
        int r = list_dir(fi, dir, &d);
        if (r < 0)
                return r;
        if (d->error == -ENOENT || d->error == -ENOTDIR || (d->error < 0 && d->noted))
                return 0;
        d->noted = d->error < 0;
        char why[160];
        if (d->error == -E2BIG) {
                snprintf(why, sizeof why, "more than %d entries; none placed", XPU_LIBDIR_ENTRIES_MAX);
                return skip(fi, shown, why);
        }
        if (d->error < 0) {
                snprintf(why, sizeof why, "directory cannot be read inside the driver root (%s); not placed",
                         strerror(-d->error));
                return skip(fi, shown, why);
        }
        if ((r = visit(fi->f, d->n)) < 0)
                return r;
        /* The listing is sorted: which are placed does not depend on readdir order. */
        size_t first[XPU_HOST_FILE_MATCHES_MAX], n = 0;
        bool odd_name = false;
        for (size_t i = 0; i < d->n; i++) {
                const char *name = d->names[i];
                if (fnmatch(glob, name, FNM_PERIOD) != 0)
                        continue;
                bool control = false;
                for (const char *c = name; *c && !control; c++)
                        control = (unsigned char)*c < 0x20 || *c == 0x7f;
                if (control) { /* never printed: it could forge lines of the plan */
                        odd_name = true;
                        continue;
                }
                if (n < XPU_HOST_FILE_MATCHES_MAX)
                        first[n] = i;
                n++;
        }
        if (n > XPU_HOST_FILE_SCAN_MAX) { /* not a driver's directory: none of it */
                snprintf(why, sizeof why, "more than %d entries match \"%s\"; none placed", XPU_HOST_FILE_SCAN_MAX,
                         glob);
                return skip(fi, shown, why);
        }
        if (odd_name)
                r = skip(fi, shown, "a matching name holds control characters; that entry not placed");
        for (size_t i = 0; i < n && i < XPU_HOST_FILE_MATCHES_MAX && r >= 0; i++) {
                char full[PATH_MAX];
                if (snprintf(full, sizeof full, "%s/%s", dir, d->names[first[i]]) >= (int)sizeof full)
                        r = skip(fi, dir, "a match's path is too long; not placed");
                else
                        r = take(fi, full, capability);
        }
        if (r >= 0 && n > XPU_HOST_FILE_MATCHES_MAX) {
                snprintf(why, sizeof why, "%zu entries match \"%s\"; the first %d by name are placed", n, glob,
                         XPU_HOST_FILE_MATCHES_MAX);
                r = skip(fi, shown, why);
        }
        return r;
}

int xpu_host_files_find(int driver_root_fd, const char *driver_version, const char *const *capabilities,
                        size_t n_capabilities, const struct xpu_capability_files *files, size_t n_files,
                        struct xpu_host_files **ret) {
        if (!ret || (n_capabilities && !capabilities) || (n_files && !files))
                return -EINVAL;
        struct finder fi = { .root_fd = driver_root_fd, .f = calloc(1, sizeof(struct xpu_host_files)), .want = -1 };
        if (!fi.f)
                return -ENOMEM;
        int r = 0;
        for (size_t c = 0; c < n_capabilities && r >= 0; c++)
                for (size_t i = 0; i < n_files && r >= 0; i++) {
                        if (strcmp(files[i].capability, capabilities[c]) != 0)
                                continue;
                        for (size_t k = 0; k < files[i].n_names && r >= 0; k++) {
                                const char *pattern = files[i].names[k];
                                char path[PATH_MAX];
                                if (xpu_host_file_pattern_invalid(pattern)) {
                                        r = -EINVAL;
                                        break;
                                }
                                int e = expand(pattern, driver_version, path, sizeof path);
                                if (e == -ENOENT)
                                        continue; /* no version known: nothing of it to find */
                                if (e < 0)
                                        r = skip(&fi, pattern, "too long once the driver version is put in");
                                else if (strpbrk(strrchr(path, '/') + 1, "*?["))
                                        r = find_glob(&fi, path, files[i].capability);
                                else
                                        r = take(&fi, path, files[i].capability);
                        }
                }
        if (r < 0) {
                xpu_host_files_free(fi.f);
                return r;
        }
        *ret = fi.f;
        return 0;
}

int xpu_host_files_take(int root_fd, const char *pattern, enum xpu_host_file_kind want, const char *origin,
                        struct xpu_host_files *files) {
        if (!files || !pattern || xpu_host_file_pattern_invalid(pattern) || strstr(pattern, "${") ||
            (want != XPU_HOST_FILE_REGULAR && want != XPU_HOST_FILE_TREE && want != XPU_HOST_FILE_SYMLINK &&
             want != XPU_HOST_FILE_DEVICE))
                return -EINVAL;
        struct finder fi = { .root_fd = root_fd, .f = files, .want = (int)want, .origin = origin };
        return strpbrk(strrchr(pattern, '/') + 1, "*?[") ? find_glob(&fi, pattern, "") : take(&fi, pattern, "");
}

struct xpu_host_list *xpu_host_list_free(struct xpu_host_list *l) {
        if (!l)
                return NULL;
        xpu_host_files_free(l->files);
        xpu_host_files_free(l->nodes);
        xpu_strv_free(l->notes);
        free(l);
        return NULL;
}
