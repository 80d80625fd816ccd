/* SPDX-License-Identifier: Apache-2.0 */
/* What a process tells about itself and others in /proc (proc(5)): /proc/PID/stat fields and the
 * hex masks of /proc/PID/status. One reader each, for the supervisor (job control, leftovers),
 * the capability sets and the tmpfs-origin rule. Nothing here logs. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Fields 1, 3, 4, 5, 6 and 22 of /proc/PID/stat. */
struct xpu_proc_stat {
        pid_t pid;
        char state;         /* 'R', 'S', 'D', 'T' (stopped), 't' (traced), 'Z' (zombie), ... */
        pid_t ppid;         /* 0 when the parent is outside this pid namespace */
        pid_t pgrp;
        pid_t session;
        uint64_t starttime; /* clock ticks (sysconf(_SC_CLK_TCK)) after boot */
};

/* Parse the stat file at PATH ("/proc/PID/stat"; tests pass their own). The command name
 * (field 2) may hold spaces and parentheses, so the fields after it are counted from its last
 * ')'. Returns 0, -ENOENT (no such process, or no /proc), -EBADMSG (not the format proc(5)
 * gives), -errno. */
int xpu_proc_stat_read_file(const char *path, struct xpu_proc_stat *ret);

/* The same for /proc/PID/stat. */
int xpu_proc_stat_read(pid_t pid, struct xpu_proc_stat *ret);

/* Whether /proc belongs to the pid namespace in which this process is PID (getpid()): its
 * "self" link names PID. False when it does not, or when /proc cannot be read. */
bool xpu_proc_self_is(pid_t pid);

/* The hex mask on the line "KEY:\t..." of the status file at PATH ("/proc/PID/status",
 * "/proc/thread-self/status"; KEY such as "SigIgn", "SigCgt", "CapBnd"). Returns 0, -ENOENT
 * (no such file or no such line), -EBADMSG (not 1-16 hex digits), -errno. */
int xpu_proc_status_mask(const char *path, const char *key, uint64_t *ret);

/* Read the whole file PATH (a /proc file, whose size stat does not tell) into a malloc'd,
 * NUL-terminated buffer of at most MAX bytes (*RET, free()). Returns its length or -errno (-EFBIG
 * when longer, -ENOMEM). */
ssize_t xpu_proc_read_alloc(const char *path, size_t max, char **ret);

/* Look up a character device major by name in TEXT, the content of /proc/devices (its
 * "Character devices:" section; the caller reads it, below its sys root, with root-file.h's
 * xpu_read_file_in_root()). TEXT is not changed. Returns the major (>= 0, below 4096: MINORBITS 20
 * leaves 12 bits) or -ENOENT when NAME is not there (also for a NULL TEXT). */
int xpu_proc_devices_major(const char *text, const char *name);
