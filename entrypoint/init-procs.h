/* SPDX-License-Identifier: Apache-2.0 */
/* What the supervisor (init.c) reads about processes from /proc (proc(5)): only when a
 * job-control signal arrives or when processes outlive the workload's main process, never on the
 * start path. Nothing here logs. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/procfs.h" /* struct xpu_proc_stat, xpu_proc_stat_read() */

/* How process PID treats signal SIG, from the SigIgn and SigCgt masks of /proc/PID/status. */
enum xpu_signal_action {
        XPU_SIGNAL_DEFAULT = 0,
        XPU_SIGNAL_IGNORED = 1,
        XPU_SIGNAL_CAUGHT = 2, /* a handler is installed */
};
/* Returns an enum xpu_signal_action, or -ENOENT/-EBADMSG/-errno as xpu_proc_status_mask(). */
int xpu_proc_signal_action(pid_t pid, int sig);

/* Whether process group PGRP of session SID is orphaned in the POSIX sense the kernel applies to
 * SIGTSTP, SIGTTIN and SIGTTOU (kernel/exit.c will_become_orphaned_pgrp()): no live member has a
 * parent in a different process group of the same session. A parent this pid namespace does not
 * show (ppid 0) counts as outside the session, as a container's PID 1 is: its group is orphaned.
 * Reads /proc/PID/stat of every process, then of each member's parent. Returns 1 (orphaned),
 * 0, or -errno when /proc cannot be read. */
int xpu_proc_pgrp_orphaned(pid_t pgrp, pid_t sid);

/* The children of this process, of every thread, as this process's pid namespace numbers them:
 * /proc/self/task/TID/children (Linux 3.5, CONFIG_PROC_CHILDREN), else every /proc/PID/stat whose
 * ppid is SELF (getpid()). Refuses a /proc that belongs to another pid namespace (its "self" is
 * not SELF), where the numbers would name other processes. *RET (malloc'd, free()) and *RET_N are
 * set on success; zero children is success with *RET NULL. Returns 0, -ENOENT (no usable
 * /proc), -ENOMEM, -errno. */
int xpu_proc_children(pid_t self, pid_t **ret, size_t *ret_n);
