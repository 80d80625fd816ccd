/* SPDX-License-Identifier: Apache-2.0 */
/* Driver files that work only at their own path: firmware the kernel or a tool reads by name
 * (/lib/firmware/nvidia/<version>/gsp_*.bin), daemon sockets a library connects to
 * (/run/nvidia-persistenced/socket), loader configuration found by directory (the GLVND EGL
 * vendor file, Vulkan ICD and layer files) and rendezvous directories (the MPS pipe directory).
 * Found in the driver root and placed at the same path in the container. Silent: returns -errno. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "libs.h"

enum xpu_host_file_kind {
        XPU_HOST_FILE_REGULAR = 0, /* bound read-only */
        XPU_HOST_FILE_SOCKET,      /* a UNIX socket: bound writable (connect(2) needs write access) */
        XPU_HOST_FILE_DIRECTORY,   /* bound writable: clients create their pipes in it */
        /* Only from a host's lists (xpu_host_files_take, the CSV files of a Jetson): */
        XPU_HOST_FILE_TREE,        /* a directory bound read-only (firmware, library directories) */
        XPU_HOST_FILE_SYMLINK,     /* a symlink, made again in the container with the same text */
        XPU_HOST_FILE_DEVICE,      /* a character device in the dev root: checked, never mounted */
        _XPU_HOST_FILE_MAX,
};
/* "file", "socket", "directory", "tree", "symlink", "device" */
const char *xpu_host_file_kind_to_string(enum xpu_host_file_kind k);

/* PATH and RESOLVED are one allocation, PATH's, owned by the xpu_host_files that holds the entry
 * (a list of thousands of files must not take 8 KiB each): shorter than PATH_MAX both. */
struct xpu_host_file {
        char *path;              /* absolute, as the pattern names it (links not resolved): the same
                                  * path in the driver root and in the container */
        char *resolved;          /* the file itself inside the driver root, every link followed
                                  * there (the bind source and the link target); for a SYMLINK
                                  * the link's own text */
        char capability[32];     /* capability whose pattern found it ("" from a host's list) */
        char origin[64];         /* the host's list line that named it ("drivers.csv:12"), "" else */
        enum xpu_host_file_kind kind;
        dev_t dev;               /* the file's st_dev and st_ino, when it was found */
        ino_t ino;
};

struct xpu_host_dir; /* host-files.c: a glob's directory, listed once */

struct xpu_host_files {
        struct xpu_host_file *files;
        size_t n;
        char **skipped; /* "<path>: <reason>": a match that is a FIFO or device, that cannot be
                         * resolved inside the root, or beyond the limits below */
        size_t n_skipped;
        /* host-files.c's own, so that many calls (a host's list of thousands of lines) stay
         * bounded: FILES' capacity, an index of their paths, the glob directories listed so far
         * and the directory entries read or matched (XPU_HOST_FILE_VISITS_MAX). Not copied. */
        size_t allocated;
        size_t *by_path, by_path_size;
        struct xpu_host_dir *dirs;
        size_t n_dirs, visited;
};

/* Matches of one pattern placed, the first by name; more are skipped (a directory of firmware
 * holds a few). A directory with more than XPU_HOST_FILE_SCAN_MAX matches places none. */
#define XPU_HOST_FILE_MATCHES_MAX 64
#define XPU_HOST_FILE_SCAN_MAX 4096
/* Directory entries read and glob matches tried by one xpu_host_files_find() or by all the
 * xpu_host_files_take() calls into one xpu_host_files (each directory is read once): beyond it
 * they return -E2BIG. A driver's lists try a few thousand. */
#define XPU_HOST_FILE_VISITS_MAX (1024 * 1024)
/* Files one xpu_host_files holds: beyond it, -E2BIG (L4T's lists name about 250). */
#define XPU_HOST_FILE_FILES_MAX 16384

struct xpu_host_files *xpu_host_files_free(struct xpu_host_files *f);
/* A deep copy of FILES (free with xpu_host_files_free()), or NULL on -ENOMEM. */
struct xpu_host_files *xpu_host_files_copy(const struct xpu_host_files *files);

/* Is S a valid "files" pattern? An absolute path without "." or ".." components, empty
 * components or control characters, shorter than PATH_MAX / 2, whose last component only may be
 * an fnmatch glob (*, ?, [...]) and whose only "${...}" is "${DRIVER_VERSION}". Returns NULL when
 * valid, else what was expected (for the profile loader's error). */
const char *xpu_host_file_pattern_invalid(const char *s);

/* Find the files the patterns of CAPABILITIES name in the driver root DRIVER_ROOT_FD. FILES are
 * the profile's per-capability pattern lists (xpu_host_file_pattern_invalid() holds for each);
 * "${DRIVER_VERSION}" becomes DRIVER_VERSION ("" leaves patterns with it unmatched). A pattern
 * without a glob names one path; one with a glob in its last component names the entries of its
 * directory that match (fnmatch with FNM_PERIOD), in name order. Each is resolved inside the
 * root (links followed as if the root were "/", never leaving it): a regular file, socket or
 * directory is listed once, in CAPABILITIES order; a path that does not exist (or whose
 * directory does not) is no error and not recorded, since these files are optional (a host
 * without fabricmanager has no socket); anything else is recorded in ->skipped. Reads only.
 * Returns 0 (free *RET with xpu_host_files_free()), -EINVAL, -ENOMEM, -E2BIG (over
 * XPU_HOST_FILE_VISITS_MAX or XPU_HOST_FILE_FILES_MAX). */
int xpu_host_files_find(int driver_root_fd, const char *driver_version, const char *const *capabilities,
                        size_t n_capabilities, const struct xpu_capability_files *files, size_t n_files,
                        struct xpu_host_files **ret);

/* Add to FILES what one line of a host's list names (ORIGIN: "drivers.csv:12"): PATTERN (valid
 * for xpu_host_file_pattern_invalid(), without a placeholder; a glob in its last component takes
 * its matches as xpu_host_files_find() does) resolved inside ROOT_FD and of the kind WANT:
 *   REGULAR  a regular file every user may read, links followed inside the root
 *   TREE     a directory every user may read and search, links followed
 *   SYMLINK  the path itself a symlink (not followed); its text (at most PATH_MAX - 1 bytes, no
 *            control characters) is kept in ->resolved
 *   DEVICE   a character device, links followed (ROOT_FD is then the dev root)
 * A path that does not exist is no error and not recorded (a list names the files of every
 * board); one of another kind, or that cannot be resolved inside the root, is recorded in
 * ->skipped with ORIGIN and the kind found. A glob's directory is read once per FILES, whatever
 * the number of lines naming it. Reads only. Returns 0, -EINVAL (bad pattern or kind), -ENOMEM,
 * -E2BIG (FILES is over XPU_HOST_FILE_VISITS_MAX or XPU_HOST_FILE_FILES_MAX: a list of that
 * many globs or files is no driver's). */
int xpu_host_files_take(int root_fd, const char *pattern, enum xpu_host_file_kind want, const char *origin,
                        struct xpu_host_files *files);

/* What a host lists for its containers (a Jetson's CSV files, probes/nvidia/nvidia-csv.c): the
 * files of its lib, dir and sym lines found in the driver root, and the nodes of its dev lines
 * found in the dev root, each with its origin; NOTES say what was not read and why. */
struct xpu_host_list {
        struct xpu_host_files *files; /* kinds REGULAR, TREE, SYMLINK */
        struct xpu_host_files *nodes; /* kind DEVICE */
        char **notes;
        size_t n_notes;
        char source[128]; /* what was read, for the plan: "/etc/nvidia-container-runtime/host-files-for-container.d/\*.csv" */
        char dir[128];    /* the lists' directory in the driver root ("/etc/nvidia-container-runtime/host-files-for-container.d"):
                           * a CDI spec mounts it, so xpuinit in the image reads the same lists */
};
struct xpu_host_list *xpu_host_list_free(struct xpu_host_list *l);
static inline void xpu_host_list_freep(struct xpu_host_list **l) {
        xpu_host_list_free(*l);
}
