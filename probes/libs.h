/* SPDX-License-Identifier: Apache-2.0 */
/* Driver-library discovery in a driver root: which files of the running driver version a
 * capability needs, and their sonames. Reads the driver root's /etc/ld.so.cache (both formats)
 * when present, then the standard library directories. Silent: returns -errno. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "probe.h"

/* Names (library base names without the version suffix, e.g. "libcuda.so", globs such as
 * "libnvidia-*.so", or binary names) that one capability needs; profile data. */
struct xpu_capability_files {
        char *capability; /* "compute", "utility", ... */
        char **names;
        size_t n_names;
};

struct xpu_driver_file {
        char path[PATH_MAX];     /* absolute path inside the driver root: "/usr/lib/x86_64-linux-gnu/libcuda.so.550.90.07" */
        char name[256];          /* file name: "libcuda.so.550.90.07" */
        char soname[256];        /* ELF DT_SONAME, else derived "<base>.so.1"-style link name; "" for binaries */
        char capability[32];     /* capability that asked for it */
        bool is_binary;          /* an executable (nvidia-smi) rather than a library */
};

struct xpu_driver_files {
        struct xpu_driver_file *files;
        size_t n;
        char **skipped; /* "<path>: <reason>" for stale versions and refused files */
        size_t n_skipped;
};

struct xpu_driver_files *xpu_driver_files_free(struct xpu_driver_files *f);

/* Library directories searched in the driver root when its ld.so.cache does not list a name
 * (NULL-terminated): /usr/lib64, /usr/lib/<triplet>, /usr/lib/<triplet>/nvidia/current, /lib64,
 * /lib/<triplet>, /usr/lib. */
extern const char *const xpu_library_dirs[];

/* Find the files for the given capabilities. LIBRARIES/BINARIES are the profile's per-capability
 * name lists (library names "libcuda.so" match "libcuda.so.<DRIVER_VERSION>" only; binaries are
 * found in /usr/bin, /usr/sbin, /bin, /sbin). Only regular files whose names end in
 * DRIVER_VERSION are taken; other versions beside them, symlinks that leave the driver root,
 * and non-regular files are listed in ->skipped. Returns 0 (possibly with no files) or -errno. */
int xpu_driver_files_find(int driver_root_fd, const char *driver_version,
                          const char *const *capabilities, size_t n_capabilities,
                          const struct xpu_capability_files *libraries, size_t n_libraries,
                          const struct xpu_capability_files *binaries, size_t n_binaries,
                          struct xpu_driver_files **ret);

/* Parse an ld.so.cache image (old "ld.so-1.7.0" and new "glibc-ld.so.cache1.1" formats) and call
 * CB(key, value, userdata) for every entry (key = soname, value = path). Returns the number of
 * entries or -EINVAL for a malformed cache. Never reads outside BUF. */
int xpu_ldcache_parse(const void *buf, size_t size,
                      void (*cb)(const char *key, const char *value, void *userdata), void *userdata);

/* Read DT_SONAME of the ELF file FD (32- or 64-bit, either endianness). Returns 0, -ENOENT when
 * the file has no SONAME, -EINVAL when it is not ELF. */
int xpu_elf_soname(int fd, char *buf, size_t size);
