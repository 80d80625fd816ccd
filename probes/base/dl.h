/* SPDX-License-Identifier: Apache-2.0 */
/* Loading vendor libraries (libnvidia-ml, libcuda, librocm_smi64) from a driver root into a
 * typed symbol table, in systemd's dlopen style.
 *
 * The library is looked up IN THE DRIVER ROOT, never through the process's own loader search
 * path (LD_LIBRARY_PATH or the image's ld.so.cache could steer that): the root's
 * /etc/ld.so.cache first, then xpu_library_dirs (base/ldcache.h). The file is opened with
 * RESOLVE_IN_ROOT (symlinks are followed as if the root were "/") and handed to dlopen() as
 * "/proc/self/fd/N", so no path string is ever joined with the root.
 *
 * dlopen() runs the library's constructors: call these only in the unprivileged helper child of
 * xpu_isolate_run() (docs/isolation.md). The library's own dependencies (libc, libm, libdl ...)
 * are resolved by the process's loader as usual, which is why the helper's environment carries no
 * LD_* variables. Silent: every function returns -errno and writes one line into ERR. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* One entry of a typed symbol table: *PTR receives dlsym(NAME), else dlsym(FALLBACK). */
struct xpu_dl_symbol {
        const char *name;     /* preferred (versioned) name: "nvmlInit_v2" */
        const char *fallback; /* older unversioned name, e.g. "nvmlInit" for "nvmlInit_v2"; or NULL */
        void **ptr;           /* where the address goes; NULL is written for a missing optional one */
        bool optional;        /* missing is fine (a newer entry point an older driver lacks) */
};

/* Largest /etc/ld.so.cache xpu_dl_open() reads, in bytes (a full desktop's cache is ~100 KiB). */
#define XPU_DL_LDCACHE_MAX (4u << 20)

/* Find the first of SONAMES (NULL-terminated; plain file names such as "libnvidia-ml.so.1", in
 * order of preference) in the driver root DRIVER_ROOT_FD and dlopen() it RTLD_NOW | RTLD_LOCAL.
 *
 * Per soname, in order: the entries of the root's /etc/ld.so.cache with that key and the build
 * architecture's flags (both cache formats, at most XPU_DL_LDCACHE_MAX bytes; a missing or
 * malformed cache is skipped), then "<dir>/<soname>" for each of xpu_library_dirs. Each candidate
 * is opened O_PATH inside the root (the soname link chain is followed inside it; a link to
 * "/etc/shadow" means the root's /etc/shadow); the first that is a regular file this process may
 * read (checked by reopening it for reading: O_PATH checks no file permission) is loaded. The fd
 * name given to dlopen() is one no loaded object already carries (glibc matches loaded objects by
 * name first, and a closed fd number comes back).
 *
 * On success writes to LOADED_PATH (SIZE bytes) the path inside the root of the file itself,
 * links resolved ("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.90.07"; when the root's own
 * path cannot be read back, the directory of the candidate joined with the file's name), and
 * *RET_HANDLE (release with dlclose()). LOADED_PATH may be NULL.
 *
 * Returns 0; -ENOENT with ERR "not available: libnvidia-ml.so.1 not found in /host/root:
 * /etc/ld.so.cache, /usr/lib64, /usr/lib/x86_64-linux-gnu, ..." (the cache only when it was
 * read; several sonames are listed with ", "), followed, when candidates exist but were refused,
 * by "; found but not usable: /usr/lib64/libnvidia-ml.so.1 (Permission denied),
 * /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1 (a FIFO, not a regular file)" (unreadable for this
 * process, a directory, FIFO, device node or socket, a symlink loop: "Too many levels of symbolic
 * links"; a refused candidate does not stop the search); -ELIBBAD with ERR "cannot load <path>: <dlerror>"
 * when dlopen() fails (not ELF, wrong architecture, missing dependency, failing constructor);
 * -EINVAL for an empty list or a soname with '/'; -ENAMETOOLONG, -ENOMEM. ERR may be NULL. */
int xpu_dl_open(int driver_root_fd, const char *const *sonames, char *loaded_path, size_t size,
                void **ret_handle, char *err, size_t err_size);

/* Most directories one wildcard pattern of xpu_dl_open_dirs() expands to. */
#define XPU_DL_GLOB_MAX 64

/* xpu_dl_open(), and after the standard library directories, per soname, the directories
 * EXTRA_DIRS names (NULL-terminated, may be NULL; absolute paths inside the root). An entry may
 * hold wildcards (fnmatch(3): '*', '?', "[...]") in one path component, the first that has any:
 * for the entry "/opt/rocm-[0-9]*" + "/lib", the "lib" directory of every entry of the root's
 * /opt that matches "rocm-[0-9]*", newest version first (strverscmp(3) descending: rocm-6.2.0,
 * rocm-6.0.2, rocm-5.7.1), at most XPU_DL_GLOB_MAX of them; a leading '.' must be matched
 * explicitly (FNM_PERIOD). The "not found" message lists EXTRA_DIRS after the standard
 * directories, as written. Returns what xpu_dl_open() returns, and -EINVAL with ERR "library
 * directory \"DIR\" is not absolute". ROCm SMI uses it for the /opt/rocm trees. */
int xpu_dl_open_dirs(int driver_root_fd, const char *const *sonames, const char *const *extra_dirs,
                     char *loaded_path, size_t size, void **ret_handle, char *err, size_t err_size);

/* xpu_dl_open_dirs() with DIRS searched first, per soname, before the loader cache and the
 * standard directories (the "not found" message lists them first): for a library that must be the
 * one in its own folder whatever else the root holds (WSL2's /usr/lib/wsl/lib). */
int xpu_dl_open_dirs_first(int driver_root_fd, const char *const *sonames, const char *const *dirs,
                           char *loaded_path, size_t size, void **ret_handle, char *err, size_t err_size);

/* xpu_dl_open(), checking the file found against DRIVER_VERSION (xpu_dl_version_matches()) before
 * dlopen(): on a mismatch the library is never loaded, so none of its code (constructors
 * included) runs. Returns what xpu_dl_open() and xpu_dl_version_matches() return. */
int xpu_dl_open_version(int driver_root_fd, const char *const *sonames, const char *driver_version,
                        char *loaded_path, size_t size, void **ret_handle, char *err, size_t err_size);

/* Resolve the N entries of SYMS in HANDLE: dlsym(name), else dlsym(fallback) when set.
 * A missing optional entry gets NULL. Returns 0, or -ENOENT with ERR "symbol nvmlInit_v2 (or
 * nvmlInit) not found: <dlerror>" for the first missing required entry; then the pointers of the
 * entries before it are set and the rest untouched (callers discard the table on error).
 * -EINVAL when HANDLE is NULL or an entry lacks NAME or PTR. */
int xpu_dl_bind(void *handle, const struct xpu_dl_symbol *syms, size_t n, char *err, size_t err_size);

/* Compare the version in the file name of LOADED_PATH (its basename "<base>.so.<VERSION>", as
 * xpu_dl_open() reports it: "libnvidia-ml.so.550.90.07") with DRIVER_VERSION, the running
 * kernel module's ("550.90.07", /proc/driver/nvidia/version). Versions are digits and dots and
 * compared as strings.
 *
 * Returns 0 when equal; -EPROTO with ERR "driver/library version mismatch: kernel module
 * 550.90.07, libnvidia-ml.so.535.54.03" (what NVML itself would only say as "Driver/library
 * version mismatch" after loading); -ENODATA with ERR "no driver version in the library's file
 * name: libfoo.so.1" when the suffix is not a dotted version (e.g. only ".so.1"); -EINVAL when
 * DRIVER_VERSION is not digits and dots or an argument is NULL. */
int xpu_dl_version_matches(const char *loaded_path, const char *driver_version, char *err, size_t err_size);

/* True for a driver version as the files' suffixes carry it: digits separated by single dots,
 * at least one dot ("550.90.07"). */
bool xpu_is_driver_version(const char *s);
