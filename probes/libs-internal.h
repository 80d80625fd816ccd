/* SPDX-License-Identifier: Apache-2.0 */
/* What the driver-file finder (libs.c) and its candidate search (libs-candidates.c) share. Not
 * an interface: libs.h is. Silent: -errno. It includes nothing of libs.h, so that libs.c and its
 * parts form no include circle. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* Where one search looks: the native libraries, or the 32-bit copies of compat32. */
struct search {
        const char *const *dirs; /* library directories, in order */
        int32_t cache_flags;     /* ld.so.cache entries with these flags */
        int elf_class;           /* ELFCLASS32/64 a non-empty file must have; 0: any ELF */
        int other_class;         /* the class skipped when ELF_CLASS is 0 (a 32-bit copy in /usr/lib) */
};

struct xpu_libs_strv {
        char **v;
        size_t n, cap;
};

void xpu_libs_strv_done(struct xpu_libs_strv *s);

/* The last component of PATH. */
const char *xpu_libs_path_basename(const char *path);

/* Follow the symlinks of PATH's final component inside ROOT_FD: OUT gets the in-root path of
 * the file it ends on, *ST that file's stat, checked against the kernel's own resolution
 * (openat2 RESOLVE_IN_ROOT). Returns 0, -ENOENT (dangling), -ELOOP, -EXDEV (the lexical and the
 * kernel's resolution differ), -errno. */
int xpu_libs_resolve_in_root(int root_fd, const char *path, char *out, size_t size, struct stat *st);

/* Length of NAME's "<base>.so" part, 0 when there is none ("libcuda.so.550.90.07" -> 10), and
 * the suffix after "<base>.so." ("" when there is none). */
size_t xpu_libs_so_base_len(const char *name);
const char *xpu_libs_so_suffix(const char *name, size_t base_len);

/* True when NAME's "<base>.so" part matches one of PATTERNS (fnmatch globs). */
bool xpu_libs_base_matches(const char *name, char *const *patterns, size_t n_patterns);

/* Paths in the driver root whose "<base>.so" matches PATTERNS, in SEARCH's order: what the
 * root's ld.so.cache lists (resolved inside the root), then the entries of SEARCH's directories,
 * sorted by name within each. REFUSED (may be NULL): on a directory over XPU_LIBDIR_ENTRIES_MAX (libs.h)
 * entries, the line saying so (malloc'ed); the return is then -E2BIG. Returns 0 or -errno. */
int xpu_libs_collect_candidates(int root_fd, const struct search *search, char *const *patterns, size_t n_patterns,
                                struct xpu_libs_strv *ret, char **refused);
