/* SPDX-License-Identifier: Apache-2.0 */
/* Jetson's CSV host lists: parsed, bounded, and resolved through host-files.c (nvidia-csv.h). */
#include "nvidia/nvidia-csv.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/escape.h"
#include "base/fileio.h"
#include "base/log.h"
#include "base/macro.h"
#include "base/path.h"
#include "base/root-file.h"
#include "base/str.h"
#include "base/strv.h"

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
                char raw[20], shown[sizeof raw * 4];
                size_t n = (size_t)(ke - k) < sizeof raw - 1 ? (size_t)(ke - k) : sizeof raw - 1;
                memcpy(raw, k, n);
                raw[n] = '\0';
                xpu_escape_text(raw, shown, sizeof shown);
                return line_error(err, err_size, file, no, "unknown kind \"%s\"; %s", shown, expected);
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
                struct xpu_csv_line *nl2 = reallocarray(*lines, *n + 1, sizeof **lines);
                if (!nl2)
                        return -ENOMEM;
                *lines = nl2;
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

/* The *.csv names of DIR_FD (an open directory), sorted, into *RET (NULL-terminated). */
static int list_csv(int dir_fd, char ***ret, size_t *n, char *err, size_t err_size) {
        int fd = fcntl(dir_fd, F_DUPFD_CLOEXEC, 3);
        if (fd < 0)
                return negative_errno();
        _cleanup_closedir_ DIR *d = fdopendir(fd);
        if (!d) {
                close(fd);
                return -ENOMEM;
        }
        char **names = NULL;
        size_t count = 0, entries = 0;
        int r = 0;
        for (struct dirent *de; (de = readdir(d));) {
                if (++entries > XPU_LIBDIR_ENTRIES_MAX) {
                        snprintf(err, err_size, "%s: more than %d entries; a host-list directory holds a few files",
                                 XPU_CSV_HOST_DIR, XPU_LIBDIR_ENTRIES_MAX);
                        r = -EINVAL;
                        break;
                }
                size_t l = strlen(de->d_name);
                if (l < 5 || strcmp(de->d_name + l - 4, ".csv") != 0 || de->d_name[0] == '.')
                        continue;
                if (++count > XPU_CSV_FILES_MAX) {
                        snprintf(err, err_size, "%s: more than %d *.csv files; remove the ones the host does not need",
                                 XPU_CSV_HOST_DIR, XPU_CSV_FILES_MAX);
                        r = -EINVAL;
                        break;
                }
                if (!xpu_str_is_printable(de->d_name)) {
                        snprintf(err, err_size, "%s: a *.csv file's name holds unprintable characters; rename it",
                                 XPU_CSV_HOST_DIR);
                        r = -EINVAL;
                        break;
                }
                if (xpu_strv_push(&names, de->d_name) < 0) {
                        r = -ENOMEM;
                        break;
                }
        }
        if (r < 0) {
                xpu_strv_free(names);
                return r;
        }
        if (count)
                qsort(names, count, sizeof *names, cmp_names);
        *ret = names;
        *n = count;
        return 0;
}

/* Read and parse every file of NAMES (N) below DIR in the driver root. */
static int read_files(int driver_fd, char **names, size_t n, struct xpu_csv_line **lines, size_t *n_lines,
                      char *err, size_t err_size) {
        _cleanup_free_ char *buf = malloc(XPU_CSV_FILE_SIZE_MAX + 1);
        if (!buf)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                char path[PATH_MAX];
                snprintf(path, sizeof path, "%s/%s", XPU_CSV_HOST_DIR, names[i]);
                ssize_t len = xpu_read_file_in_root(driver_fd, path, buf, XPU_CSV_FILE_SIZE_MAX + 1);
                if (len == -EFBIG) {
                        snprintf(err, err_size, "%s: larger than %d bytes; a host list is a few KiB", path,
                                 XPU_CSV_FILE_SIZE_MAX);
                        return -EINVAL;
                }
                if (len == -EINVAL) {
                        snprintf(err, err_size, "%s: not a regular file of text (a FIFO, a device or a NUL byte); "
                                 "the host lists are text files", path);
                        return -EINVAL;
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
        return 0;
}

/* The host list of the CSV files NAMES (N, sorted) of XPU_CSV_DIR: see xpu_nvidia_csv_host_list(). */
static int read_list(int driver_fd, int dev_fd, char *const *envp, char **names, size_t n,
                     struct xpu_host_list **ret, char *err, size_t err_size) {
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
        /* NAMES keeps its strings: the ones read are moved to the front. */
        size_t kept = 0;
        int r;
        for (size_t i = 0; i < n; i++) {
                if (all || xpu_csv_is_base_file(names[i])) {
                        char *t = names[kept];
                        names[kept++] = names[i];
                        names[i] = t;
                        continue;
                }
                _cleanup_free_ char *note = NULL;
                if (asprintf(&note, "%s not read: only devices.csv, drivers.csv and l4t.csv are unless the image "
                                    "sets %s=%s", names[i], JETPACK_VARIABLE, JETPACK_ALL) < 0 ||
                    xpu_strv_push(&list->notes, note) < 0)
                        return -ENOMEM;
                list->n_notes++;
        }

        _cleanup_free_ struct xpu_csv_line *lines = NULL;
        size_t n_lines = 0;
        r = read_files(driver_fd, names, kept, &lines, &n_lines, err, err_size);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n_lines; i++) {
                const struct xpu_csv_line *cl = &lines[i];
                bool dev = cl->kind == XPU_CSV_DEV;
                r = xpu_host_files_take(dev ? dev_fd : driver_fd, cl->path, kind_files[cl->kind], cl->origin,
                                        dev ? list->nodes : list->files);
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(list);
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
        char **names = NULL;
        size_t n = 0;
        int r = list_csv(dir, &names, &n, err, err_size);
        if (r < 0)
                return r;
        r = read_list(driver_fd, dev_fd, envp, names, n, ret, err, err_size);
        xpu_strv_free(names);
        return r;
}
