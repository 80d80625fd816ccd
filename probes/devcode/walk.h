/* SPDX-License-Identifier: Apache-2.0 */
/* A bounded walk of an image's root: every regular file below a directory, opened read-only and
 * handed to a callback. Never follows a symbolic link (libraries' version links are seen once,
 * as the file they name), never opens anything but regular files (FIFOs would block, devices do
 * I/O), skips pseudo filesystems (proc, sysfs, cgroup, debugfs, ... by statfs(2) f_type, checked
 * where the walk crosses into another st_dev), refuses directory cycles (a bind mount of an
 * ancestor: the same st_dev/st_ino already on the path), and visits a hard-linked file once. It
 * stops at a number of files and a deadline, and says which; directories below the depth limit
 * are counted and left out. Silent. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

struct xpu_walk_limits {
        uint64_t max_files;     /* regular files handed to the callback */
        unsigned max_depth;     /* directories below the root (at most 255) */
        uint64_t max_ns;        /* CLOCK_MONOTONIC nanoseconds from the start */
};

#define XPU_WALK_LIMITS_DEFAULT ((struct xpu_walk_limits){ 1000000, 200, 600ull * 1000000000ull })

struct xpu_walk_stats {
        uint64_t files;           /* handed to the callback */
        uint64_t dirs;
        uint64_t links;           /* symbolic links, not followed */
        uint64_t special;         /* FIFOs, sockets, devices: not opened */
        uint64_t pseudo;          /* pseudo-filesystem mounts skipped */
        uint64_t cycles;          /* directories already on the path */
        uint64_t errors;          /* entries that could not be opened or stat'ed */
        const char *first_error;  /* static text naming the first one's kind, or NULL */
        int first_error_errno;    /* its errno */
        char first_error_path[512]; /* its path, relative to the root (cut when longer) */
        uint64_t skipped_deep;    /* directories below the depth limit, not read (the walk goes on) */
        const char *stopped_by;   /* "file limit", "time limit": the walk stopped there; NULL when whole */
};

/* Called with an fd open on a regular file (O_RDONLY, closed after the call), its path relative
 * to the root ("usr/lib/libx.so") and its stat. A negative return stops the walk and is returned. */
typedef int (*xpu_walk_cb)(int fd, const char *path, const struct stat *st, void *userdata);

/* Walk the directory ROOT_FD (not closed). Returns 0 (STATS says what was skipped and whether a
 * limit stopped it), -errno when ROOT_FD cannot be read as a directory, -ENOMEM, or the
 * callback's negative value. */
int xpu_walk(int root_fd, const struct xpu_walk_limits *limits, xpu_walk_cb cb, void *userdata,
             struct xpu_walk_stats *stats);
