/* SPDX-License-Identifier: Apache-2.0 */
/* Driver-library discovery in a driver root (see libs.h); the ELF parser is in libs-parse.c, the
 * ld.so.cache reader and the library directories in base/ldcache.c. Facts: NVIDIA
 * libnvidia-container src/ldcache.c and nvidia-container-toolkit internal/lookup (search order,
 * version-suffix matching). Silent: returns -errno. */
#include "libs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/macro.h"
#include "base/path.h"
#include "base/str.h"
#include "devcode/elf.h"
#include "libs-internal.h"

#if defined(__x86_64__) && !defined(__ILP32__)
static const struct search native_search = { xpu_library_dirs, XPU_LDCACHE_FLAGS, 0, 1 /* ELFCLASS32 */ };
#else
static const struct search native_search = { xpu_library_dirs, XPU_LDCACHE_FLAGS, 0, 0 };
#endif
#if defined(__x86_64__) && !defined(__ILP32__)
/* i386 copies on x86-64: FLAG_ELF_LIBC6 without an architecture byte (glibc ldconfig.h). */
static const char *const lib32_dirs[] = {
        "/usr/lib32",              /* Arch, Debian's lib32 packages */
        "/usr/lib/i386-linux-gnu", /* Debian, Ubuntu multiarch */
        "/lib32",
        "/lib/i386-linux-gnu",
        "/usr/lib",                /* Fedora, RHEL, SUSE: 32-bit libraries are in /usr/lib */
        NULL,
};
static const struct search compat32_search = { lib32_dirs, 0x0003, 1 /* ELFCLASS32 */, 0 };
#define HAVE_COMPAT32 1
#endif

/* Where binaries (nvidia-smi, ...) are looked for, in order. */
static const char *const binary_dirs[] = {"/usr/bin", "/usr/sbin", "/bin", "/sbin", NULL};

/* ---- the finder -------------------------------------------------------------------------- */

struct finder {
        int root_fd;
        const char *version;
        int elf_class, other_class; /* the search's (struct search) */
        struct xpu_driver_files *out;
        size_t cap_files, cap_skipped;
        struct file_id {
                dev_t dev;
                ino_t ino;
        } *seen; /* files taken so far (a file reached twice is listed once) */
        size_t n_seen;
};

struct xpu_driver_files *xpu_driver_files_copy(const struct xpu_driver_files *files) {
        struct xpu_driver_files *c = calloc(1, sizeof *c);
        if (!c)
                return NULL;
        c->files = calloc(files->n ? files->n : 1, sizeof *c->files);
        c->skipped = calloc(files->n_skipped ? files->n_skipped : 1, sizeof(char *));
        if (!c->files || !c->skipped || (files->refused && !(c->refused = strdup(files->refused))))
                return xpu_driver_files_free(c);
        if (files->n)
                memcpy(c->files, files->files, files->n * sizeof *c->files);
        c->n = files->n;
        for (; c->n_skipped < files->n_skipped; c->n_skipped++)
                if (!(c->skipped[c->n_skipped] = strdup(files->skipped[c->n_skipped])))
                        return xpu_driver_files_free(c);
        return c;
}

struct xpu_driver_files *xpu_driver_files_free(struct xpu_driver_files *f) {
        if (!f)
                return NULL;
        for (size_t i = 0; i < f->n_skipped; i++)
                free(f->skipped[i]);
        free(f->skipped);
        free(f->refused);
        free(f->files);
        free(f);
        return NULL;
}

/* Record "<PATH>: <reason>" in ->skipped, once. */
_printf_(3, 4) static int finder_skip(struct finder *f, const char *path, const char *fmt, ...) {
        char reason[256], line[PATH_MAX + 300];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(reason, sizeof reason, fmt, ap);
        va_end(ap);
        snprintf(line, sizeof line, "%s: %s", path, reason);
        struct xpu_driver_files *o = f->out;
        for (size_t i = 0; i < o->n_skipped; i++)
                if (strcmp(o->skipped[i], line) == 0)
                        return 0;
        if (o->n_skipped == f->cap_skipped) {
                size_t cap = f->cap_skipped ? f->cap_skipped * 2 : 8;
                char **v = reallocarray(o->skipped, cap, sizeof *v);
                if (!v)
                        return -ENOMEM;
                o->skipped = v;
                f->cap_skipped = cap;
        }
        o->skipped[o->n_skipped] = strdup(line);
        if (!o->skipped[o->n_skipped])
                return -ENOMEM;
        o->n_skipped++;
        return 0;
}

/* Stop the search at a file of the running version that cannot be a driver library: a FIFO,
 * device, socket or directory, or a non-ELF file (a link to /etc/shadow). PATH is the name found,
 * RESOLVED where it led. Returns -ECANCELED (xpu_driver_files_find() hands ->refused back). */
static int finder_refuse(struct finder *f, const char *path, const char *resolved, const char *what) {
        char via[PATH_MAX + 32] = "";
        if (strcmp(path, resolved) != 0)
                snprintf(via, sizeof via, " (it leads to %s)", resolved);
        free(f->out->refused);
        if (asprintf(&f->out->refused,
                     "driver library %s in the driver root%s is %s, not a regular ELF file of driver version %s; "
                     "refusing it: point --driver-root at the host's driver files",
                     path, via, what, f->version) < 0) {
                f->out->refused = NULL;
                return -ENOMEM;
        }
        return -ECANCELED;
}

/* 1 when RESOLVED (a regular file whose stat is ST) is empty or starts with the ELF magic, 0 when
 * not, -errno. Opened O_NONBLOCK | O_NOFOLLOW and compared with ST, so a file swapped for a FIFO
 * or a link in between is not read. An empty file discloses nothing (fixture trees use them). */
/* 1 when RESOLVED (ST) is an ELF file (of ELF_CLASS, 1 = 32-bit, 2 = 64-bit, when not 0) or empty
 * (a fixture's stand-in); 2 when ELF_CLASS is 0 and it is a whole ELF file of OTHER_CLASS (a
 * 32-bit copy the native search must not take); 0 when not ELF (or not of ELF_CLASS), -errno. */
static int check_elf(int root_fd, const char *resolved, const struct stat *st, int elf_class, int other_class) {
        if (st->st_size == 0)
                return 1;
        _cleanup_close_ int fd = xpu_open_in_root(root_fd, resolved, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW, 0);
        if (fd < 0)
                return fd;
        struct stat now;
        if (fstat(fd, &now) < 0)
                return negative_errno();
        if (now.st_dev != st->st_dev || now.st_ino != st->st_ino || !S_ISREG(now.st_mode))
                return 0;
        int r = xpu_fd_is_elf(fd);
        unsigned char cls;
        if (r > 0 && elf_class == 0 && other_class)
                return pread(fd, &cls, 1, 4 /* EI_CLASS */) == 1 && cls == other_class && now.st_size >= 52 ? 2 : 1;
        if (r <= 0 || elf_class == 0)
                return r;
        /* at least a whole ELF32 header (52 bytes, elf.h Elf32_Ehdr) of that class */
        return now.st_size >= 52 && pread(fd, &cls, 1, 4 /* EI_CLASS */) == 1 && cls == elf_class;
}

static const char *file_type(mode_t mode) {
        static const struct {
                mode_t type;
                const char *name;
        } types[] = {
                {S_IFDIR, "a directory"},      {S_IFIFO, "a FIFO"},
                {S_IFCHR, "a character device"}, {S_IFBLK, "a block device"},
                {S_IFSOCK, "a socket"},        {S_IFREG, "a regular file"},
        };
        for (size_t i = 0; i < ELEMENTSOF(types); i++)
                if ((mode & S_IFMT) == types[i].type)
                        return types[i].name;
        return "of unknown type";
}

static bool finder_has(const struct finder *f, const char *name, bool is_binary, const struct stat *st) {
        for (size_t i = 0; i < f->out->n; i++)
                if (f->out->files[i].is_binary == is_binary && strcmp(f->out->files[i].name, name) == 0)
                        return true;
        for (size_t i = 0; st && i < f->n_seen; i++)
                if (f->seen[i].dev == st->st_dev && f->seen[i].ino == st->st_ino)
                        return true;
        return false;
}

static int finder_add(struct finder *f, const struct xpu_driver_file *file, const struct stat *st) {
        struct xpu_driver_files *o = f->out;
        if (o->n == f->cap_files) {
                size_t cap = f->cap_files ? f->cap_files * 2 : 16;
                struct xpu_driver_file *v = reallocarray(o->files, cap, sizeof *v);
                struct file_id *s = reallocarray(f->seen, cap, sizeof *s);
                if (s)
                        f->seen = s;
                if (v)
                        o->files = v;
                if (!v || !s)
                        return -ENOMEM;
                f->cap_files = cap;
        }
        o->files[o->n++] = *file;
        f->seen[f->n_seen++] = (struct file_id){st->st_dev, st->st_ino};
        return 0;
}

/* A DT_SONAME we may turn into a link name next to the library: a plain file name of printable
 * ASCII that begins with the library's own "<base>.so." (so a crafted library cannot name
 * "../../etc/passwd" or pose as another library). */
static bool soname_is_sane(const char *soname, const char *name, size_t base_len) {
        if (strncmp(soname, name, base_len) != 0 || soname[base_len] != '.' || strchr(soname, '/'))
                return false;
        for (const char *p = soname; *p; p++)
                if (*p <= ' ' || *p >= 0x7f)
                        return false;
        return true;
}

/* The soname of library PATH (named NAME, its "<base>.so" BASE_LEN long): DT_SONAME when it is
 * ELF and sane (soname_is_sane()); else the name of a "<base>.so.<digits>" symlink beside it that
 * points to NAME; else "<base>.so.1". */
static void library_soname(int root_fd, const char *path, const struct stat *st, const char *name,
                           size_t base_len, char *out, size_t size) {
        _cleanup_close_ int fd = xpu_open_in_root(root_fd, path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW, 0);
        struct stat now;
        if (fd >= 0 && fstat(fd, &now) == 0 && now.st_dev == st->st_dev && now.st_ino == st->st_ino &&
            xpu_elf_soname(fd, out, size) == 0 && soname_is_sane(out, name, base_len))
                return;

        char dir[PATH_MAX], best[NAME_MAX + 1] = "";
        snprintf(dir, sizeof dir, "%.*s", (int)(xpu_libs_path_basename(path) - path), path);
        int dfd = xpu_open_in_root(root_fd, dir, O_RDONLY | O_DIRECTORY, 0);
        _cleanup_closedir_ DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
        if (dfd >= 0 && !d)
                close(dfd);
        size_t entries = 0;
        for (struct dirent *de; d && ++entries <= XPU_LIBDIR_ENTRIES_MAX && (de = readdir(d));) {
                const char *n = de->d_name;
                if (strncmp(n, name, base_len) != 0 || n[base_len] != '.' || !n[base_len + 1] ||
                    strspn(n + base_len + 1, "0123456789") != strlen(n + base_len + 1))
                        continue;
                char target[PATH_MAX];
                ssize_t k = readlinkat(dirfd(d), n, target, sizeof target - 1);
                if (k <= 0)
                        continue;
                target[k] = '\0';
                if (strcmp(xpu_libs_path_basename(target), name) == 0 && (!best[0] || strcmp(n, best) < 0))
                        snprintf(best, sizeof best, "%s", n);
        }
        if (best[0])
                snprintf(out, size, "%s", best);
        else
                snprintf(out, size, "%.*s.1", (int)base_len, name);
}

static int consider_library(struct finder *f, const char *path, const struct xpu_capability_files *lib) {
        const char *name = xpu_libs_path_basename(path);
        size_t base_len = xpu_libs_so_base_len(name);
        if (base_len == 0 || !xpu_libs_base_matches(name, lib->names, lib->n_names))
                return 0;
        const char *suffix = xpu_libs_so_suffix(name, base_len);
        struct stat st;
        if (strcmp(suffix, f->version) != 0) {
                if (xpu_is_driver_version(suffix) && xpu_stat_in_root(f->root_fd, path, true, &st) == 0 &&
                    S_ISREG(st.st_mode))
                        return finder_skip(f, path, "older/other driver version (%s, running %s)",
                                           suffix, f->version);
                return 0;
        }
        if (finder_has(f, name, false, NULL))
                return 0;
        struct xpu_driver_file file = {.is_binary = false};
        int r = xpu_libs_resolve_in_root(f->root_fd, path, file.path, sizeof file.path, &st);
        if (r < 0)
                return finder_skip(f, path, "cannot be resolved inside the driver root: %s", strerror(-r));
        if (!S_ISREG(st.st_mode))
                return finder_refuse(f, path, file.path, file_type(st.st_mode));
        if (finder_has(f, name, false, &st))
                return 0;
        r = check_elf(f->root_fd, file.path, &st, f->elf_class, f->other_class);
        if (r < 0)
                return r;
        if (r == 2)
                return finder_skip(f, path, "a 32-bit ELF file (compat32 takes those)");
        if (r == 0 && f->elf_class)
                return finder_skip(f, path, "not a 32-bit ELF file");
        if (r == 0)
                return finder_refuse(f, path, file.path, "a file without the ELF magic");
        if (xpu_strlcpy(file.name, name, sizeof file.name) < 0 ||
            xpu_strlcpy(file.capability, lib->capability, sizeof file.capability) < 0)
                return finder_skip(f, path, "name too long");
        library_soname(f->root_fd, file.path, &st, name, base_len, file.soname, sizeof file.soname);
        return finder_add(f, &file, &st);
}

static int consider_binary(struct finder *f, const char *name, const char *capability) {
        if (!*name || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
                return 0;
        for (const char *const *dir = binary_dirs; *dir; dir++) {
                char path[PATH_MAX];
                struct xpu_driver_file file = {.is_binary = true};
                struct stat st;
                snprintf(path, sizeof path, "%s/%s", *dir, name);
                int r = xpu_libs_resolve_in_root(f->root_fd, path, file.path, sizeof file.path, &st);
                /* Not there at all: try the next directory. A link that is there but leads
                 * nowhere inside the root is worth a note. */
                if ((r == -ENOENT || r == -ENOTDIR) && xpu_stat_in_root(f->root_fd, path, true, &st) < 0)
                        continue;
                if (r < 0) {
                        r = finder_skip(f, path, "cannot be resolved inside the driver root: %s", strerror(-r));
                        if (r < 0)
                                return r;
                        continue;
                }
                if (!S_ISREG(st.st_mode) || !(st.st_mode & 0111)) {
                        r = finder_skip(f, path, "not an executable regular file (%s)", file_type(st.st_mode));
                        if (r < 0)
                                return r;
                        continue;
                }
                /* A binary is any name a profile gives (the image's own profiles too), not one
                 * ending in the driver version, and the container will read it: only what every
                 * user of the driver root may read and run, never a file kept from them there (a
                 * host's 0700 admin tool in /usr/sbin). */
                if ((st.st_mode & (S_IROTH | S_IXOTH)) != (S_IROTH | S_IXOTH)) {
                        r = finder_skip(f, path, "mode %04o: not readable and executable by others, so not for a "
                                        "container", (unsigned)(st.st_mode & 07777));
                        if (r < 0)
                                return r;
                        continue;
                }
                if (finder_has(f, name, true, &st))
                        return 0;
                if (xpu_strlcpy(file.name, name, sizeof file.name) < 0 ||
                    xpu_strlcpy(file.capability, capability, sizeof file.capability) < 0)
                        return finder_skip(f, path, "name too long");
                return finder_add(f, &file, &st);
        }
        return 0;
}

static const struct xpu_capability_files *find_capability(const struct xpu_capability_files *v, size_t n,
                                                          const char *capability) {
        for (size_t i = 0; v && i < n; i++)
                if (v[i].capability && strcmp(v[i].capability, capability) == 0)
                        return &v[i];
        return NULL;
}

static int cmp_file(const void *a, const void *b) {
        const struct xpu_driver_file *x = a, *y = b;
        if (x->is_binary != y->is_binary)
                return x->is_binary ? 1 : -1;
        return strcmp(x->name, y->name);
}

/* A driver version we are willing to put into file names: "550.90.07", "570.86.15". */
static bool version_valid(const char *v) {
        size_t n = strlen(v);
        return n > 0 && n < 64 && strspn(v, "0123456789.") == n && v[0] != '.';
}

static int files_find(const struct search *search, int driver_root_fd, const char *driver_version,
                      const char *const *capabilities, size_t n_capabilities,
                      const struct xpu_capability_files *libraries, size_t n_libraries,
                      const struct xpu_capability_files *binaries, size_t n_binaries,
                      struct xpu_driver_files **ret) {
        if (!driver_version || !version_valid(driver_version) || (n_capabilities && !capabilities) || !ret)
                return -EINVAL;
        struct xpu_driver_files *out = calloc(1, sizeof *out);
        if (!out)
                return -ENOMEM;
        struct finder f = {.root_fd = driver_root_fd, .version = driver_version, .elf_class = search->elf_class,
                           .other_class = search->other_class, .out = out};
        int r = 0;
        for (size_t c = 0; r >= 0 && c < n_capabilities; c++) {
                size_t first = out->n;
                const struct xpu_capability_files *lib = find_capability(libraries, n_libraries, capabilities[c]);
                if (lib && lib->n_names) {
                        struct xpu_libs_strv cands = {0};
                        r = xpu_libs_collect_candidates(driver_root_fd, search, lib->names, lib->n_names, &cands,
                                               &out->refused);
                        for (size_t i = 0; r >= 0 && i < cands.n; i++)
                                r = consider_library(&f, cands.v[i], lib);
                        xpu_libs_strv_done(&cands);
                }
                const struct xpu_capability_files *bin = find_capability(binaries, n_binaries, capabilities[c]);
                for (size_t i = 0; r >= 0 && bin && i < bin->n_names; i++)
                        if (bin->names[i])
                                r = consider_binary(&f, bin->names[i], capabilities[c]);
                if (out->n > first)
                        qsort(out->files + first, out->n - first, sizeof *out->files, cmp_file);
        }
        free(f.seen);
        if ((r == -ECANCELED || r == -E2BIG) && out->refused)
                r = 0; /* the caller reads ->refused */
        if (r < 0) {
                xpu_driver_files_free(out);
                return r;
        }
        *ret = out;
        return 0;
}

int xpu_driver_files_find(int driver_root_fd, const char *driver_version,
                          const char *const *capabilities, size_t n_capabilities,
                          const struct xpu_capability_files *libraries, size_t n_libraries,
                          const struct xpu_capability_files *binaries, size_t n_binaries,
                          struct xpu_driver_files **ret) {
        return files_find(&native_search, driver_root_fd, driver_version, capabilities, n_capabilities, libraries,
                          n_libraries, binaries, n_binaries, ret);
}

int xpu_driver_files_find32(int driver_root_fd, const char *driver_version, const char *const *capabilities,
                            size_t n_capabilities, const struct xpu_capability_files *libraries,
                            size_t n_libraries, struct xpu_driver_files **ret) {
#ifdef HAVE_COMPAT32
        return files_find(&compat32_search, driver_root_fd, driver_version, capabilities, n_capabilities, libraries,
                          n_libraries, NULL, 0, ret);
#else
        (void)driver_root_fd, (void)capabilities, (void)n_capabilities, (void)libraries, (void)n_libraries;
        if (!driver_version || !version_valid(driver_version) || !ret)
                return -EINVAL;
        return (*ret = calloc(1, sizeof **ret)) ? 0 : -ENOMEM;
#endif
}

int xpu_driver_version_from_libraries(int driver_root_fd, char *buf, size_t size) {
        /* The CDI generator's order: libcuda first, NVML when the host has no CUDA driver. */
        static const char *const sources[] = {"libcuda.so", "libnvidia-ml.so"};
        for (size_t s = 0; s < ELEMENTSOF(sources); s++) {
                struct xpu_libs_strv cands = {0};
                char *const pattern[] = {(char *)sources[s]};
                int r = xpu_libs_collect_candidates(driver_root_fd, &native_search, pattern, 1, &cands, NULL);
                for (size_t i = 0; r >= 0 && i < cands.n; i++) {
                        char resolved[PATH_MAX];
                        struct stat st;
                        if (xpu_libs_resolve_in_root(driver_root_fd, cands.v[i], resolved, sizeof resolved, &st) < 0 ||
                            !S_ISREG(st.st_mode))
                                continue;
                        const char *name = xpu_libs_path_basename(resolved);
                        size_t len = xpu_libs_so_base_len(name);
                        if (len != strlen(sources[s]) || strncmp(name, sources[s], len) != 0 ||
                            !xpu_is_driver_version(xpu_libs_so_suffix(name, len)))
                                continue;
                        r = xpu_strlcpy(buf, xpu_libs_so_suffix(name, len), size);
                        xpu_libs_strv_done(&cands);
                        return r;
                }
                xpu_libs_strv_done(&cands);
                if (r < 0)
                        return r;
        }
        return -ENOENT;
}

/* The default driver roots in the order they are tried; the last is taken when none before it
 * holds driver libraries. The reasons name them for xpuinit's info line. */
#define DRIVER_ROOT_HOST "/host"
static const char *const default_driver_roots[] = { XPU_DRIVER_ROOT_FIRST, DRIVER_ROOT_HOST, "/" };

const char *xpu_default_driver_root(const char **why) {
        for (size_t i = 0; i + 1 < ELEMENTSOF(default_driver_roots); i++) {
                int fd = xpu_open_root(default_driver_roots[i]);
                if (fd < 0)
                        continue;
                char ver[64];
                bool has = xpu_driver_version_from_libraries(fd, ver, sizeof ver) >= 0;
                close(fd);
                if (has) {
                        if (why)
                                *why = "the first of " XPU_DRIVER_ROOT_FIRST ", " DRIVER_ROOT_HOST
                                       ", / that holds driver libraries";
                        return default_driver_roots[i];
                }
        }
        if (why)
                *why = "neither " XPU_DRIVER_ROOT_FIRST " nor " DRIVER_ROOT_HOST " holds driver libraries";
        return default_driver_roots[ELEMENTSOF(default_driver_roots) - 1];
}
