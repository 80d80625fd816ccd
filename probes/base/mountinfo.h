/* SPDX-License-Identifier: Apache-2.0 */
/* Where a tmpfs that a write target crosses comes from: /proc/self/mountinfo (proc(5)), the
 * tmpfs root's birth time (statx STATX_BTIME) and the start time of this PID namespace's first
 * process (/proc/1/stat). A tmpfs the container runtime made for this container is crossed; a
 * bind mount of a host's tmpfs (the host's /run, /dev/shm, /tmp, or a directory inside one) is
 * not (docs/safe-paths.md). Nothing here logs. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One line of /proc/PID/mountinfo (proc(5), "/proc/pid/mountinfo"): fields 1, 3, 4, 5 and the
 * filesystem type after the " - " separator. Octal escapes (\040 for a space) are decoded. */
struct xpu_mount_entry {
        uint64_t id;                /* (1) mount ID, as statx STATX_MNT_ID reports it */
        unsigned major, minor;      /* (3) st_dev of the filesystem */
        char root[PATH_MAX];        /* (4) the directory of the filesystem mounted here: "/" for
                                     * the whole filesystem, "/sub" for a bind of a directory */
        char point[PATH_MAX];       /* (5) the mount point, relative to this process's root */
        char fstype[64];            /* the filesystem type ("tmpfs") */
        uint64_t master;            /* (7) "master:N": a slave of peer group N, whose mounts
                                     * propagate here from another mount namespace; 0: none */
};

/* Parse one mountinfo LINE (without or with its newline). Returns 0, or -EINVAL for a line
 * with fewer fields than proc(5) gives, a missing " - " separator, a number that does not
 * parse, or a field that does not fit. */
int xpu_mountinfo_parse_line(const char *line, struct xpu_mount_entry *ret);

/* Why a tmpfs is not the container's own (enum values in the order they are checked). */
enum xpu_tmpfs_origin {
        XPU_TMPFS_OWN = 0,      /* made for this container: may be written */
        XPU_TMPFS_SUBDIR,       /* mountinfo root is not "/": a bind of a directory in a tmpfs */
        XPU_TMPFS_PROPAGATED,   /* "master:N": it came by propagation from a mount outside */
        XPU_TMPFS_SHARED,       /* the same tmpfs (major:minor) is mounted at another point too */
        XPU_TMPFS_OLDER,        /* its root was made before PID 1 of this PID namespace started */
        XPU_TMPFS_UNKNOWN,      /* cannot tell: no mountinfo line for it, a line that does not
                                 * parse, or a /proc of another PID namespace */
};

/* What xpu_tmpfs_origin() found; DETAIL is for the refusal text. */
struct xpu_tmpfs_verdict {
        enum xpu_tmpfs_origin origin;
        char detail[PATH_MAX]; /* SUBDIR: the root ("/sub"); PROPAGATED: "master:N"; SHARED: the
                                * other mount point; OLDER: how much older, "12.5 s"; UNKNOWN:
                                * why, in words */
};

/* Judge the tmpfs whose root FD is (an O_PATH fd of the mount's root directory), mount ID
 * MNT_ID (statx STATX_MNT_ID). MOUNTINFO is the file to read ("/proc/self/mountinfo";
 * tests pass their own), INIT_STAT PID 1's stat file ("/proc/1/stat"). INSIDE: the container
 * root is this process's own root (a start inside the container, where nothing outside it is
 * seen); then a /proc of another PID namespace (its self link does not name getpid()) makes the
 * origin UNKNOWN, since that namespace's PID 1 says nothing of this container. From outside (a
 * runtime hook, whose /proc is the host's while it runs in the container's PID namespace), the
 * birth-time rule is left out in that case, and the host's mounts, which it sees, are judged by
 * the other rules. The birth-time rule applies only where the kernel reports a tmpfs birth time
 * and INIT_STAT is readable; the others always. Returns 0 with *RET filled, or -errno when MOUNTINFO cannot be read (-ENOENT
 * without /proc). */
int xpu_tmpfs_origin(int fd, uint64_t mnt_id, const char *mountinfo, const char *init_stat, bool inside,
                     struct xpu_tmpfs_verdict *ret);

/* Start time of the process whose stat file is PATH ("/proc/1/stat": field 22, starttime, in
 * clock ticks since boot, sysconf(_SC_CLK_TCK)), as CLOCK_REALTIME nanoseconds (boot time from
 * CLOCK_REALTIME - CLOCK_BOOTTIME now). Returns 0 or -errno (-EINVAL for a malformed file). */
int xpu_process_start_realtime_ns(const char *path, int64_t *ret);
