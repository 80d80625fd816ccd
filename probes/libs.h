/* SPDX-License-Identifier: Apache-2.0 */
/* Driver-library discovery in a driver root: which files of the running driver version a
 * capability needs, and their sonames. Reads the driver root's /etc/ld.so.cache (both formats)
 * when present, then the standard library directories (base/ldcache.h). Silent: returns -errno. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/dl.h"      /* xpu_is_driver_version(): the suffix a driver file carries */
#include "base/ldcache.h" /* ld.so.cache and the library directories the finder searches */
#include "probe.h"

/* Names (library base names without the version suffix, e.g. "libcuda.so", globs such as
 * "libnvidia-*.so", or binary names) that one capability needs; profile data. */
struct xpu_capability_files {
        char *capability; /* "compute", "utility", ... */
        char **names;
        size_t n_names;
};

struct xpu_driver_file {
        char path[PATH_MAX];     /* absolute path inside the driver root of the regular file itself (symlinks
                                  * resolved): "/usr/lib/x86_64-linux-gnu/libcuda.so.550.90.07" */
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
        char *refused;  /* set when the search stopped at a hostile or broken driver root: one line
                         * naming the path, what it is and the fix (a file of the running version
                         * that is a FIFO, device, socket or directory, or a non-empty file without
                         * the ELF magic; a library directory over XPU_LIBDIR_ENTRIES_MAX entries).
                         * The caller must not use ->files then. */
};

/* Entries read from one library directory of the driver root before the search stops (a real
 * /usr/lib/x86_64-linux-gnu holds a few thousand). */
#define XPU_LIBDIR_ENTRIES_MAX 65536

struct xpu_driver_files *xpu_driver_files_free(struct xpu_driver_files *f);
/* A deep copy of FILES (free with xpu_driver_files_free()), or NULL on -ENOMEM. */
struct xpu_driver_files *xpu_driver_files_copy(const struct xpu_driver_files *files);

/* Find the files for the given capabilities, in the driver root DRIVER_ROOT_FD.
 *
 * LIBRARIES/BINARIES are the profile's per-capability name lists (entries whose capability is
 * not in CAPABILITIES are unused; a capability without an entry adds nothing). A library name is
 * "<base>.so" or an fnmatch glob of one ("libnvidia-*.so"); it matches the file
 * "<base>.so.<DRIVER_VERSION>" only (DRIVER_VERSION: digits and dots, else -EINVAL) -- the real
 * file, not the .so/.so.1 links. Search order: the driver root's /etc/ld.so.cache (when it exists
 * and parses; entries of the build architecture only, each resolved inside the root since the
 * cache lists soname links), then xpu_library_dirs in order, names sorted within a directory.
 * Binaries (plain names, no '/') are looked for in /usr/bin, /usr/sbin, /bin, /sbin and must be
 * executable regular files.
 *
 * Every candidate is resolved inside the root (symlinks followed as if the root were "/", never
 * leaving it); only regular files are taken, and only ELF ones (or empty ones); on x86-64 a
 * 32-bit ELF file (EI_CLASS, a whole header long) is skipped with a note, since /usr/lib holds
 * Fedora's 32-bit copies (xpu_driver_files_find32 takes those). A name of the
 * running version that lands on a FIFO, device, socket or directory, or on a non-empty file without
 * the ELF magic, stops the search: ->refused says which (docs/safe-paths.md). Recorded in ->skipped
 * as "<path>: <reason>": a matching name whose resolution fails (dangling, escapes to a file
 * missing in the root, loops); a regular file of the same base with another
 * version ("older/other driver version (460.73.01, running 465.19.01)"); a binary that is not an
 * executable regular file. A library that does not exist at all is no error and not recorded.
 * A file is listed once: the first match of a file name wins, and a file reached twice (/lib ->
 * usr/lib) is not listed again. ->files are in CAPABILITIES order, within a capability
 * libraries before binaries, each sorted by name. ->soname is DT_SONAME for ELF files, else the
 * name of a "<base>.so.<digits>" symlink beside the file pointing to it, else "<base>.so.1".
 *
 * A library directory with more than XPU_LIBDIR_ENTRIES_MAX entries also stops it (->refused).
 *
 * Returns 0 (possibly with no files, or with ->refused set; free *RET with
 * xpu_driver_files_free()), -EINVAL, -ENOMEM. */
int xpu_driver_files_find(int driver_root_fd, const char *driver_version,
                          const char *const *capabilities, size_t n_capabilities,
                          const struct xpu_capability_files *libraries, size_t n_libraries,
                          const struct xpu_capability_files *binaries, size_t n_binaries,
                          struct xpu_driver_files **ret);

/* The 32-bit copies of the libraries (the toolkit's compat32): as xpu_driver_files_find() for
 * LIBRARIES only, searching the driver root's ld.so.cache entries of i386 libraries (flags
 * 0x0003) and /usr/lib32, /usr/lib/i386-linux-gnu, /lib32, /lib/i386-linux-gnu, /usr/lib (where
 * Fedora keeps them), taking only 32-bit ELF files (EI_CLASS ELFCLASS32; empty stand-ins too); a
 * 64-bit file of the right name there is skipped with a note. On builds for other architectures
 * than x86-64: none found. Returns 0, -EINVAL, -ENOMEM. */
int xpu_driver_files_find32(int driver_root_fd, const char *driver_version, const char *const *capabilities,
                            size_t n_capabilities, const struct xpu_capability_files *libraries,
                            size_t n_libraries, struct xpu_driver_files **ret);

/* Read DT_SONAME of the ELF file FD (32- or 64-bit, either endianness) with pread(): program
 * headers -> PT_DYNAMIC -> DT_SONAME/DT_STRTAB/DT_STRSZ, the string table's address mapped
 * through PT_LOAD. Every offset is checked against the file size. Writes a NUL-terminated name
 * into BUF (SIZE bytes). Returns 0, -ENOENT when the file has no SONAME (or no PT_DYNAMIC),
 * -EINVAL when it is not ELF or is malformed (also for non-regular files), -ENAMETOOLONG when the
 * name does not fit, -errno from fstat/pread. */
int xpu_elf_soname(int fd, char *buf, size_t size);

/* The driver version as the libraries' file names say: the suffix of libcuda.so.<VERSION>, else
 * of libnvidia-ml.so.<VERSION> (the NVIDIA CDI generator's method), for hosts where
 * /proc/driver/nvidia/version cannot be read. Searched in the driver root's ld.so.cache, then
 * xpu_library_dirs; each candidate (the soname link "libcuda.so.1" included) is resolved inside
 * the root, and the first that lands on a regular file named "<base>.so.<digits.digits...>" wins,
 * so a leftover older file beside the current one is not chosen when the soname link exists.
 * Writes the version ("550.90.07") into BUF. Returns 0, -ENOENT when no such file exists,
 * -ENAMETOOLONG when BUF is too small, -ENOMEM. */
int xpu_driver_version_from_libraries(int driver_root_fd, char *buf, size_t size);

/* The first driver root searched when none is given: the NVIDIA GPU Operator's driver container,
 * a path convention of the node (where a CDI spec also puts the host's driver files, cdi-spec.h). */
#define XPU_DRIVER_ROOT_FIRST "/run/nvidia/driver"

/* The driver root when none is given (xpuinit's --driver-root/XPUINIT_DRIVER_ROOT, xpud's
 * --driver-root): the first of XPU_DRIVER_ROOT_FIRST, "/host" (a pod's mount of the host's "/")
 * that holds versioned driver libraries (xpu_driver_version_from_libraries()), else "/". *WHY (may
 * be NULL) says how it was chosen, for an info line. Returns a static string; reads each candidate
 * root's library cache and directories, so a caller asks only when it needs driver files. */
const char *xpu_default_driver_root(const char **why);
