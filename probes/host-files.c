/* SPDX-License-Identifier: Apache-2.0 */
/* Driver files placed at their own path: see host-files.h. */
#include "host-files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
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

const char *xpu_host_file_kind_to_string(enum xpu_host_file_kind k) {
        return k < _XPU_HOST_FILE_MAX ? kind_names[k] : "?";
}

struct xpu_host_files *xpu_host_files_free(struct xpu_host_files *f) {
        if (!f)
                return NULL;
        free(f->files);
        xpu_strv_free(f->skipped);
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
        if (files->n)
                memcpy(c->files, files->files, files->n * sizeof *c->files);
        c->n = files->n;
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

static int add_file(struct finder *fi, const char *path, const char *resolved, const char *capability,
                    enum xpu_host_file_kind kind, const struct stat *st) {
        struct xpu_host_file *n = reallocarray(fi->f->files, fi->f->n + 1, sizeof *n);
        if (!n)
                return -ENOMEM;
        fi->f->files = n;
        struct xpu_host_file *hf = &n[fi->f->n++];
        memset(hf, 0, sizeof *hf);
        memcpy(hf->path, path, strlen(path) + 1); /* < PATH_MAX: checked by the caller */
        memcpy(hf->resolved, resolved, strlen(resolved) + 1);
        xpu_strlcpy(hf->capability, capability, sizeof hf->capability);
        if (fi->origin)
                xpu_strlcpy(hf->origin, fi->origin, sizeof hf->origin);
        hf->kind = kind;
        hf->dev = st->st_dev;
        hf->ino = st->st_ino;
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
        for (size_t i = 0; i < fi->f->n; i++)
                if (strcmp(fi->f->files[i].path, path) == 0)
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

/* The entries of PATH's directory that match its last component. */
static int find_glob(struct finder *fi, const char *path, const char *capability) {
        const char *slash = strrchr(path, '/');
        char dir[PATH_MAX];
        size_t dl = (size_t)(slash - path);
        memcpy(dir, path, dl);
        dir[dl] = '\0';
        const char *glob = slash + 1;
        int fd = xpu_open_in_root(fi->root_fd, dl ? dir : "/", O_RDONLY | O_DIRECTORY, 0);
        if (fd == -ENOENT || fd == -ENOTDIR)
                return 0;
        if (fd < 0) {
                char why[128];
                snprintf(why, sizeof why, "directory cannot be read inside the driver root (%s); not placed",
                         strerror(-fd));
                return skip(fi, dl ? dir : "/", why);
        }
        _cleanup_closedir_ DIR *d = fdopendir(fd);
        if (!d) {
                close(fd);
                return -ENOMEM;
        }
        /* All matches first, then sorted: which are placed must not depend on readdir order. */
        char **names = NULL;
        size_t n = 0;
        int r = 0;
        size_t entries = 0;
        bool odd_name = false;
        for (struct dirent *de; (de = readdir(d));) {
                if (++entries > XPU_LIBDIR_ENTRIES_MAX) {
                        r = 1; /* a directory like that is not a driver's */
                        break;
                }
                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
                    fnmatch(glob, de->d_name, FNM_PERIOD) != 0)
                        continue;
                bool control = false;
                for (const char *c = de->d_name; *c && !control; c++)
                        control = (unsigned char)*c < 0x20 || *c == 0x7f;
                if (control) { /* never printed: it could forge lines of the plan */
                        odd_name = true;
                        continue;
                }
                if (n == XPU_HOST_FILE_SCAN_MAX) {
                        r = 1;
                        break;
                }
                char **nn = reallocarray(names, n + 1, sizeof *names);
                if (!nn || !(nn[n] = strdup(de->d_name))) {
                        names = nn ? nn : names;
                        r = -ENOMEM;
                        break;
                }
                names = nn;
                n++;
        }
        if (r == 1) { /* not a driver's directory: none of it */
                char why[160];
                if (entries > XPU_LIBDIR_ENTRIES_MAX)
                        snprintf(why, sizeof why, "more than %d entries; none placed", XPU_LIBDIR_ENTRIES_MAX);
                else
                        snprintf(why, sizeof why, "more than %d entries match \"%s\"; none placed",
                                 XPU_HOST_FILE_SCAN_MAX, glob);
                r = skip(fi, dl ? dir : "/", why);
                for (size_t i = 0; i < n; i++)
                        free(names[i]);
                free(names);
                return r;
        }
        if (r >= 0 && odd_name)
                r = skip(fi, dl ? dir : "/", "a matching name holds control characters; that entry not placed");
        if (n)
                qsort(names, n, sizeof names[0], cmp_names);
        for (size_t i = 0; i < n; i++) {
                char full[PATH_MAX];
                if (r >= 0 && i < XPU_HOST_FILE_MATCHES_MAX) {
                        if (snprintf(full, sizeof full, "%s/%s", dir, names[i]) >= (int)sizeof full)
                                r = skip(fi, dir, "a match's path is too long; not placed");
                        else
                                r = take(fi, full, capability);
                }
                free(names[i]);
        }
        free(names);
        if (r >= 0 && n > XPU_HOST_FILE_MATCHES_MAX) {
                char why[160];
                snprintf(why, sizeof why, "%zu entries match \"%s\"; the first %d by name are placed", n, glob,
                         XPU_HOST_FILE_MATCHES_MAX);
                r = skip(fi, dl ? dir : "/", why);
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
