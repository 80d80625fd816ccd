/* SPDX-License-Identifier: Apache-2.0 */
/* The workload's exec, for the supervisor (init.c): the PATH search and the report of a failure. */
#pragma once

#include <stdbool.h>

/* PATH used when the workload's environment has none (the same as Debian's login default and
 * the OCI runtime spec's examples). */
#define XPU_DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* Exit statuses (docs/supervision.md, "Exit status"). */
enum {
        XPU_STATUS_SETUP = 125,     /* the child could not be set up */
        XPU_STATUS_NOEXEC = 126,    /* found but not executable */
        XPU_STATUS_NOTFOUND = 127,  /* not found */
        XPU_STATUS_SIGNAL_BASE = 128, /* + signal number */
};

/* execve ARGV[0] with ENVP; without a '/' in it, try each directory of ENVP's PATH (default
 * XPU_DEFAULT_PATH; an empty entry is the current directory) like execvpe(3), except that a file
 * without a #! line is an error (ENOEXEC), not a shell script. Returns only on failure: -ENOENT
 * when nothing was found, -EACCES when only non-executable candidates were found, else the
 * -errno of the first candidate that failed otherwise. */
int xpu_exec_search(char *const argv[], char *const envp[]);

/* Log the one error line for a child that failed with errno ERR (positive), in its set-up when
 * SETUP (STEP names the step) or at its exec, and return the status xpuinit exits with: 125
 * (setup), 127 (not found), 126 (any other exec failure). */
int xpu_exec_report(char *const argv[], char *const envp[], bool setup, int err, const char *step);
