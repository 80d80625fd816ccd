/* SPDX-License-Identifier: Apache-2.0 */
/* Jetson's host lists (nvidia-csv.c): the CSV files of
 * /etc/nvidia-container-runtime/host-files-for-container.d in which L4T says what a container of its
 * GPU needs, one "KIND, PATH" line each (the NVIDIA Container Toolkit's csv mode,
 * internal/platform-support/tegra/csv; libnvidia-container's jetson branch, src/csv.c):
 *   dev  a device node              lib  a file (library, firmware, configuration, program)
 *   sym  a symlink, made again      dir  a directory, mounted
 * Read in the driver root (lib, sym, dir) and the dev root (dev), bounded, and resolved through the
 * host-files machinery (host-files.h): every line is checked like any other driver file. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "host-files.h"
#include "probe.h"

#define XPU_CSV_HOST_DIR "/etc/nvidia-container-runtime/host-files-for-container.d"
#define XPU_CSV_LINE_MAX 1024      /* bytes of one line, its newline excluded */
#define XPU_CSV_LINES_MAX 4096     /* lines of one file (L4T 36's drivers.csv has about 250) */
#define XPU_CSV_FILES_MAX 64       /* *.csv files read from the directory */
#define XPU_CSV_ENTRIES_MAX 8192   /* lines of all files together */
#define XPU_CSV_FILE_SIZE_MAX (1024 * 1024)

enum xpu_csv_kind {
        XPU_CSV_DEV = 0,
        XPU_CSV_LIB,
        XPU_CSV_SYM,
        XPU_CSV_DIR,
        _XPU_CSV_KIND_MAX,
};
/* "dev", "lib", "sym", "dir"; NULL out of range. */
const char *xpu_csv_kind_to_string(enum xpu_csv_kind k);

struct xpu_csv_line {
        enum xpu_csv_kind kind;
        char path[XPU_CSV_LINE_MAX]; /* absolute, repeated slashes folded ("//lib/x" -> "/lib/x") */
        char origin[64];             /* "drivers.csv:12" */
};

/* Parse TEXT (LEN bytes, the contents of the file named FILE, its base name) and append its lines
 * to *LINES (*N used; at most MAX in all). Blank lines and lines starting with '#' are skipped;
 * spaces around the kind and the path are not part of them; a '\r' before the newline is dropped.
 * A line that is not "KIND, PATH" with KIND one of dev, lib, sym, dir (any case) and PATH an
 * absolute path without ".", ".." or control characters, a glob only in its last component
 * (xpu_host_file_pattern_invalid()) and no "${", a line longer than XPU_CSV_LINE_MAX, a NUL byte,
 * more than XPU_CSV_LINES_MAX lines or more than MAX entries: -EINVAL with ERR one line,
 *   drivers.csv:12: unknown kind "libs"; expected dev, lib, sym or dir ("lib, /usr/lib/...")
 * naming the file, the line and what is expected (the bytes of a bad kind as read: the logger
 * escapes them). *LINES grows by doubling its room: pass NULL and 0 first, then what the last
 * call left. Pure. Returns 0, -EINVAL, -ENOMEM. */
int xpu_csv_parse(const char *file, const char *text, size_t len, struct xpu_csv_line **lines, size_t *n,
                  size_t max, char *err, size_t err_size);

/* Is NAME one of the toolkit's base files (devices.csv, drivers.csv, l4t.csv), the ones read
 * unless the image asks for every file with NVIDIA_REQUIRE_JETPACK=csv-mounts=all
 * (internal/modifier/csv.go, csv.BaseFilesOnly)? */
bool xpu_csv_is_base_file(const char *name);

/* The vendor descriptor's host-list hook (vendor.h, xpu_vendor_plan.host_list): on a Tegra host
 * (INV's platform), read the *.csv files of XPU_CSV_HOST_DIR in the driver root DRIVER_FD, in name
 * order, only the base files unless ENVP has NVIDIA_REQUIRE_JETPACK=csv-mounts=all (a note names
 * each file left out), and resolve their lines: dev lines in the dev root DEV_FD, the others in
 * the driver root. *RET is NULL (and 0 returned) when the host is no Tegra or has no such
 * directory. A line naming the kind and path of an earlier one is read once (one note per file
 * counts them). A file that is not a regular file, larger than XPU_CSV_FILE_SIZE_MAX, more than
 * XPU_CSV_FILES_MAX files to read, a line xpu_csv_parse() refuses, or lines over host-files.h's
 * XPU_HOST_FILE_VISITS_MAX or XPU_HOST_FILE_FILES_MAX: -EINVAL with ERR naming the file (and
 * line) and the fix. A termination signal (xpu_isolate_set_interrupt()) pending between lines:
 * -EINTR, the signal left pending. Returns 0 (free *RET with xpu_host_list_free()), -EINVAL,
 * -EINTR, -ENOMEM (ERR names the lists), or a file's or the directory's -errno with ERR. Silent. */
int xpu_nvidia_csv_host_list(const struct xpu_inventory *inv, int driver_fd, int dev_fd, char *const *envp,
                             struct xpu_host_list **ret, char *err, size_t err_size);
