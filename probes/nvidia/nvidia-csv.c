/* SPDX-License-Identifier: Apache-2.0 */
/* Jetson's CSV host lists: parsed, bounded, and resolved through host-files.c (nvidia-csv.h). */
#include "nvidia/nvidia-csv.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/log.h"
#include "base/macro.h"
#include "base/path.h"
#include "base/root-file.h"
#include "base/str.h"
#include "base/strv.h"
#include "sandbox/isolate.h"

/* The image variable that asks for every CSV file, and its one value (the toolkit's
 * internal/modifier/csv.go: anything else reads the base files only). */
#define JETPACK_VARIABLE "NVIDIA_REQUIRE_JETPACK"
#define JETPACK_ALL "csv-mounts=all"

static const char *const kind_names[_XPU_CSV_KIND_MAX] = {
        [XPU_CSV_DEV] = "dev",
        [XPU_CSV_LIB] = "lib",
        [XPU_CSV_SYM] = "sym",
        [XPU_CSV_DIR] = "dir",
};

/* What each kind becomes (host-files.h). */
static const enum xpu_host_file_kind kind_files[_XPU_CSV_KIND_MAX] = {
        [XPU_CSV_DEV] = XPU_HOST_FILE_DEVICE,
        [XPU_CSV_LIB] = XPU_HOST_FILE_REGULAR,
        [XPU_CSV_SYM] = XPU_HOST_FILE_SYMLINK,
        [XPU_CSV_DIR] = XPU_HOST_FILE_TREE,
};

static const char *const base_files[] = { "devices.csv", "drivers.csv", "l4t.csv" };

const char *xpu_csv_kind_to_string(enum xpu_csv_kind k) {
        return (unsigned)k < _XPU_CSV_KIND_MAX ? kind_names[k] : NULL;
}

bool xpu_csv_is_base_file(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(base_files); i++)
                if (strcmp(name, base_files[i]) == 0)
                        return true;
        return false;
}

/* One line's error: "<file>:<line>: <what>". */
_printf_(5, 6) static int line_error(char *err, size_t err_size, const char *file, size_t line, const char *fmt, ...) {
        char what[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof what, fmt, ap);
        va_end(ap);
        snprintf(err, err_size, "%s:%zu: %s", file, line, what);
        return -EINVAL;
}

static bool blank(char c) {
        return c == ' ' || c == '\t';
}

/* Parse one line S (LEN bytes, no newline) into L. */
static int parse_line(const char *file, size_t no, const char *s, size_t len, struct xpu_csv_line *l, char *err,
                      size_t err_size) {
        static const char expected[] = "expected \"KIND, PATH\" with KIND dev, lib, sym or dir and an absolute PATH "
                                       "(\"lib, /usr/lib/aarch64-linux-gnu/tegra/libcuda.so.1.1\")";
        const char *comma = memchr(s, ',', len);
        if (!comma)
                return line_error(err, err_size, file, no, "no comma; %s", expected);
        const char *k = s, *ke = comma;
        while (k < ke && blank(*k))
                k++;
        while (ke > k && blank(ke[-1]))
                ke--;
        int kind = -1;
        for (int i = 0; i < _XPU_CSV_KIND_MAX; i++)
                if ((size_t)(ke - k) == strlen(kind_names[i]) && strncasecmp(k, kind_names[i], (size_t)(ke - k)) == 0)
                        kind = i;
        if (kind < 0) {
                /* As read (at most 19 bytes): the logger escapes it, once. */
                int shown = (ke - k) < 19 ? (int)(ke - k) : 19;
                return line_error(err, err_size, file, no, "unknown kind \"%.*s\"; %s", shown, k, expected);
        }
        const char *p = comma + 1, *pe = s + len;
        while (p < pe && blank(*p))
                p++;
        while (pe > p && blank(pe[-1]))
                pe--;
        if (p == pe || *p != '/')
                return line_error(err, err_size, file, no, "the path is not absolute; %s", expected);
        /* Fold repeated slashes: L4T's own drivers.csv has "//lib/firmware/...". */
        size_t o = 0;
        for (const char *c = p; c < pe; c++) {
                if (*c == '/' && o && l->path[o - 1] == '/')
                        continue;
                if ((unsigned char)*c < 0x20 || *c == 0x7f)
                        return line_error(err, err_size, file, no, "the path holds a control character; %s",
                                          expected);
                l->path[o++] = *c;
        }
        l->path[o] = '\0';
        if (xpu_host_file_pattern_invalid(l->path) || strstr(l->path, "${"))
                return line_error(err, err_size, file, no,
                                  "the path has a \".\" or \"..\" component, ends in \"/\", has a glob before its last "
                                  "component or a \"${\"; the lines name files by their own absolute path");
        l->kind = (enum xpu_csv_kind)kind;
        snprintf(l->origin, sizeof l->origin, "%.50s:%zu", file, no);
        return 0;
}

int xpu_csv_parse(const char *file, const char *text, size_t len, struct xpu_csv_line **lines, size_t *n,
                  size_t max, char *err, size_t err_size) {
        if (!file || !text || !lines || !n)
                return -EINVAL;
        const char *nul = memchr(text, '\0', len);
        if (nul) {
                size_t line = 1;
                for (const char *c = text; c < nul; c++)
                        line += *c == '\n';
                return line_error(err, err_size, file, line, "a NUL byte; a CSV file is text");
        }
        size_t no = 0;
        for (const char *s = text, *end = text + len; s < end;) {
                const char *nl = memchr(s, '\n', (size_t)(end - s));
                size_t l = nl ? (size_t)(nl - s) : (size_t)(end - s);
                const char *next = nl ? nl + 1 : end;
                if (++no > XPU_CSV_LINES_MAX)
                        return line_error(err, err_size, file, no, "more than %d lines; a host list is a few hundred",
                                          XPU_CSV_LINES_MAX);
                if (l > XPU_CSV_LINE_MAX)
                        return line_error(err, err_size, file, no, "longer than %d bytes; a line is \"KIND, PATH\"",
                                          XPU_CSV_LINE_MAX);
                if (l && s[l - 1] == '\r')
                        l--;
                size_t b = 0;
                while (b < l && blank(s[b]))
                        b++;
                if (b == l || s[b] == '#') {
                        s = next;
                        continue;
                }
                if (*n >= max)
                        return line_error(err, err_size, file, no, "more than %zu lines in all the CSV files", max);
                struct xpu_csv_line *nl2 = *lines;
                if ((*n & (*n - 1)) == 0) { /* 0 or a power of two: doubled */
                        nl2 = reallocarray(*lines, *n ? *n * 2 : 16, sizeof **lines);
                        if (!nl2)
                                return -ENOMEM;
                        *lines = nl2;
                }
                int r = parse_line(file, no, s + b, l - b, &nl2[*n], err, err_size);
                if (r < 0)
                        return r;
                (*n)++;
                s = next;
        }
        return 0;
}

static int cmp_names(const void *a, const void *b) {
        return strcmp(*(char *const *)a, *(char *const *)b);
}

static void strv_freep(char ***v) {
        xpu_strv_free(*v);
}
#define _cleanup_strv_free_ _cleanup_(strv_freep)

/* Files left out are named in notes up to this many; the rest are counted. */
#define NOTED_MAX 16

/* The *.csv names of DIR_FD (an open directory) to read (the base files, every one with ALL),
 * sorted, into *RET (NULL-terminated, *N); a note in LIST for those left out. */
static int list_csv(int dir_fd, bool all, char ***ret, size_t *n, struct xpu_host_list *list, char *err,
                    size_t err_size) {
        int fd = fcntl(dir_fd, F_DUPFD_CLOEXEC, 3);
        if (fd < 0)
                return negative_errno();
        _cleanup_closedir_ DIR *d = fdopendir(fd);
        if (!d) {
                close(fd);
                return -ENOMEM;
        }
        _cleanup_strv_free_ char **names = NULL, **left = NULL;
        size_t count = 0, entries = 0, n_left = 0;
        for (struct dirent *de; (de = readdir(d));) {
                if (++entries > XPU_LIBDIR_ENTRIES_MAX) {
                        snprintf(err, err_size, "%s: more than %d entries; a host-list directory holds a few files",
                                 XPU_CSV_HOST_DIR, XPU_LIBDIR_ENTRIES_MAX);
                        return -EINVAL;
                }
                size_t l = strlen(de->d_name);
                if (l < 5 || strcmp(de->d_name + l - 4, ".csv") != 0 || de->d_name[0] == '.')
                        continue;
                if (!all && !xpu_csv_is_base_file(de->d_name)) {
                        /* Not read: named in a note when printable, else only counted. */
                        if (n_left++ < NOTED_MAX && xpu_str_is_printable(de->d_name) &&
                            xpu_strv_push(&left, de->d_name) < 0)
                                return -ENOMEM;
                        continue;
                }
                if (++count > XPU_CSV_FILES_MAX) {
                        snprintf(err, err_size, "%s: more than %d *.csv files to read; remove the ones the host does "
                                 "not need", XPU_CSV_HOST_DIR, XPU_CSV_FILES_MAX);
                        return -EINVAL;
                }
                if (!xpu_str_is_printable(de->d_name)) {
                        /* As read: the logger escapes it, once. */
                        snprintf(err, err_size, "%s: the name of the *.csv file \"%s\" holds unprintable characters; "
                                 "rename it", XPU_CSV_HOST_DIR, de->d_name);
                        return -EINVAL;
                }
                if (xpu_strv_push(&names, de->d_name) < 0)
                        return -ENOMEM;
        }
        size_t noted = left ? xpu_strv_length(left) : 0;
        if (noted)
                qsort(left, noted, sizeof *left, cmp_names);
        for (size_t i = 0; i < noted; i++) {
                _cleanup_free_ char *note = NULL;
                if (asprintf(&note, "%s not read: only devices.csv, drivers.csv and l4t.csv are unless the image "
                                    "sets %s=%s", left[i], JETPACK_VARIABLE, JETPACK_ALL) < 0 ||
                    xpu_strv_push(&list->notes, note) < 0)
                        return -ENOMEM;
                list->n_notes++;
        }
        if (n_left > noted) {
                _cleanup_free_ char *note = NULL;
                if (asprintf(&note, "%zu %s*.csv file(s) not read either", n_left - noted, noted ? "more " : "") < 0 ||
                    xpu_strv_push(&list->notes, note) < 0)
                        return -ENOMEM;
                list->n_notes++;
        }
        if (count)
                qsort(names, count, sizeof *names, cmp_names);
        *ret = TAKE_PTR(names);
        *n = count;
        return 0;
}

/* Why the host list PATH (its open's -ENOENT: it was listed, so a link that leads nowhere) cannot
 * be read, into ERR. */
static void why_dangling(int driver_fd, const char *path, char *err, size_t err_size) {
        char text[PATH_MAX];
        ssize_t n = xpu_readlink_in_root(driver_fd, path, text, sizeof text);
        if (n > 0 && (size_t)n < sizeof text) {
                text[n] = '\0';
                snprintf(err, err_size, "%s: a symlink to %.512s, which does not exist inside the driver root (links "
                         "are followed there, as if it were /); point it at a file inside the driver root or remove "
                         "it", path, text);
        } else
                snprintf(err, err_size, "%s: %s; the host lists must be readable in the driver root", path,
                         strerror(ENOENT));
}

/* Read and parse every file of NAMES (N) below DIR in the driver root; FIRST[i] (N + 1 of them)
 * gets the index of file i's first line. */
static int read_files(int driver_fd, char **names, size_t n, struct xpu_csv_line **lines, size_t *n_lines,
                      size_t *first, char *err, size_t err_size) {
        _cleanup_free_ char *buf = malloc(XPU_CSV_FILE_SIZE_MAX + 1);
        if (!buf)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                first[i] = *n_lines;
                char path[PATH_MAX];
                snprintf(path, sizeof path, "%s/%s", XPU_CSV_HOST_DIR, names[i]);
                /* Read as bytes: a NUL byte is the parser's to report, with its line. */
                _cleanup_close_ int fd = xpu_open_file_in_root(driver_fd, path, NULL);
                ssize_t len = fd < 0 ? fd : xpu_pread_full(fd, buf, XPU_CSV_FILE_SIZE_MAX + 1, 0);
                if (len > XPU_CSV_FILE_SIZE_MAX) {
                        snprintf(err, err_size, "%s: larger than %d bytes; a host list is a few KiB", path,
                                 XPU_CSV_FILE_SIZE_MAX);
                        return -EINVAL;
                }
                if (len == -EINVAL || len == -EISDIR) {
                        snprintf(err, err_size, "%s: not a regular file (a FIFO, a device, a socket or a directory); "
                                 "the host lists are text files", path);
                        return -EINVAL;
                }
                if (len == -ENOENT) {
                        why_dangling(driver_fd, path, err, err_size);
                        return -ENOENT;
                }
                if (len < 0) {
                        snprintf(err, err_size, "%s: %s; the host lists must be readable in the driver root", path,
                                 strerror((int)-len));
                        return (int)len;
                }
                char cerr[600];
                int r = xpu_csv_parse(names[i], buf, (size_t)len, lines, n_lines, XPU_CSV_ENTRIES_MAX, cerr,
                                      sizeof cerr);
                if (r == -EINVAL)
                        snprintf(err, err_size, "%s/%s; fix or remove that line", XPU_CSV_HOST_DIR, cerr);
                if (r < 0)
                        return r;
        }
        first[n] = *n_lines;
        return 0;
}

/* Lines (LINES, qsort_r's argument) in order of kind, then path, then position (to find the
 * repeated ones). */
static int cmp_lines(const void *a, const void *b, void *lines) {
        size_t i = *(const size_t *)a, k = *(const size_t *)b;
        const struct xpu_csv_line *x = &((const struct xpu_csv_line *)lines)[i];
        const struct xpu_csv_line *y = &((const struct xpu_csv_line *)lines)[k];
        if (x->kind != y->kind)
                return x->kind < y->kind ? -1 : 1;
        int c = strcmp(x->path, y->path);
        return c ? c : i < k ? -1 : i > k;
}

/* REPEATED[i] true for every line naming the kind and path of an earlier line: read once. */
static int mark_repeated(const struct xpu_csv_line *lines, size_t n, bool *repeated) {
        _cleanup_free_ size_t *order = calloc(n ? n : 1, sizeof *order);
        if (!order)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                order[i] = i;
        qsort_r(order, n, sizeof *order, cmp_lines, (void *)lines);
        for (size_t i = 1; i < n; i++) {
                const struct xpu_csv_line *a = &lines[order[i - 1]], *b = &lines[order[i]];
                repeated[order[i]] = a->kind == b->kind && strcmp(a->path, b->path) == 0;
        }
        return 0;
}

/* The host list of the CSV files NAMES (N, sorted) of XPU_CSV_DIR into LIST: see
 * xpu_nvidia_csv_host_list(). */
static int read_list(int driver_fd, int dev_fd, char **names, size_t n, struct xpu_host_list *list, char *err,
                     size_t err_size) {
        _cleanup_free_ struct xpu_csv_line *lines = NULL;
        _cleanup_free_ size_t *first = calloc(n + 1, sizeof *first);
        if (!first)
                return -ENOMEM;
        size_t n_lines = 0;
        int r = read_files(driver_fd, names, n, &lines, &n_lines, first, err, err_size);
        if (r < 0)
                return r;
        _cleanup_free_ bool *repeated = calloc(n_lines ? n_lines : 1, sizeof *repeated);
        if (!repeated)
                return -ENOMEM;
        if ((r = mark_repeated(lines, n_lines, repeated)) < 0)
                return r;
        for (size_t f = 0; f < n; f++) {
                size_t again = 0;
                for (size_t i = first[f]; i < first[f + 1]; i++) {
                        if (repeated[i]) {
                                again++;
                                continue;
                        }
                        /* A list's lines are bounded work each (host-files.h's budget); a stop
                         * request between them ends the start at once. */
                        int sig = xpu_isolate_interrupted();
                        if (sig) {
                                snprintf(err, err_size, "%s: reading stopped by SIG%s", XPU_CSV_HOST_DIR,
                                         sigabbrev_np(sig) ?: "?");
                                return -EINTR;
                        }
                        const struct xpu_csv_line *cl = &lines[i];
                        bool dev = cl->kind == XPU_CSV_DEV;
                        r = xpu_host_files_take(dev ? dev_fd : driver_fd, cl->path, kind_files[cl->kind], cl->origin,
                                                dev ? list->nodes : list->files);
                        if (r == -E2BIG) {
                                snprintf(err, err_size, "%s/%s: the lines up to this one visit more than %d directory "
                                         "entries or name more than %d files; a host list names a driver's files, "
                                         "so name them without globs over large directories",
                                         XPU_CSV_HOST_DIR, cl->origin, XPU_HOST_FILE_VISITS_MAX,
                                         XPU_HOST_FILE_FILES_MAX);
                                return -EINVAL;
                        }
                        if (r < 0)
                                return r;
                }
                _cleanup_free_ char *note = NULL;
                if (again && (asprintf(&note, "%zu more line(s) of %s name the same files as an earlier line; each "
                                              "is read once", again, names[f]) < 0 ||
                              xpu_strv_push(&list->notes, note) < 0))
                        return -ENOMEM;
                list->n_notes += again != 0;
        }
        return 0;
}

int xpu_nvidia_csv_host_list(const struct xpu_inventory *inv, int driver_fd, int dev_fd, char *const *envp,
                             struct xpu_host_list **ret, char *err, size_t err_size) {
        *ret = NULL;
        if (inv->platform != XPU_PLATFORM_TEGRA)
                return 0;
        _cleanup_close_ int dir = xpu_open_in_root(driver_fd, XPU_CSV_HOST_DIR, O_RDONLY | O_DIRECTORY, 0);
        if (dir == -ENOENT || dir == -ENOTDIR)
                return 0;
        if (dir < 0) {
                snprintf(err, err_size, "%s in the driver root: %s", XPU_CSV_HOST_DIR, strerror(-dir));
                return dir;
        }
        const char *jetpack = xpu_env_get(envp, JETPACK_VARIABLE);
        const bool all = jetpack && strcmp(jetpack, JETPACK_ALL) == 0;
        _cleanup_(xpu_host_list_freep) struct xpu_host_list *list = calloc(1, sizeof *list);
        if (!list)
                return -ENOMEM;
        snprintf(list->source, sizeof list->source, "%s/*.csv", XPU_CSV_HOST_DIR);
        snprintf(list->dir, sizeof list->dir, "%s", XPU_CSV_HOST_DIR);
        list->files = calloc(1, sizeof *list->files);
        list->nodes = calloc(1, sizeof *list->nodes);
        if (!list->files || !list->nodes)
                return -ENOMEM;
        _cleanup_strv_free_ char **names = NULL;
        size_t n = 0;
        int r = list_csv(dir, all, &names, &n, list, err, err_size);
        if (r >= 0)
                r = read_list(driver_fd, dev_fd, names, n, list, err, err_size);
        if (r == -ENOMEM)
                snprintf(err, err_size, "%s: out of memory while reading the host lists; give xpuinit more memory "
                         "(ulimit -v) or shorten the lists", XPU_CSV_HOST_DIR);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(list);
        return 0;
}
