/* SPDX-License-Identifier: Apache-2.0 */
/* Launch and supervision of the workload, PID 1 or not (docs/supervision.md). */
#pragma once

#include <stdbool.h>

struct xpu_privilege;

struct xpu_supervise_options {
        bool group;             /* -g/--group: forward signals to the workload's process group */
        unsigned grace_seconds; /* --grace: SIGTERM/SIGINT → SIGKILL delay (default 10) */
        /* Runs in the child after fork, before exec (supplementary groups, privilege drop).
         * Returns 0 or -errno; a failure makes the child exit 125 after printing the error. */
        int (*child_setup)(void *userdata);
        void *userdata;
        /* Applied right before execve, after CHILD_SETUP (probes/sandbox/privilege.h; prepared by
         * the caller: xpu_privilege_prepare). NULL: the workload keeps xpuinit's privilege.
         * Its fd and parent-death fields are set here: every fd above 2 is closed except the
         * socket-activation fds (LISTEN_FDS) and the report pipe. A failure makes the child exit
         * 125 with one line naming the step ("cannot set up the workload \"x\": setresuid: ..."). */
        const struct xpu_privilege *privilege;
        /* Applied to xpuinit itself once the workload has started (xpu_supervise only; prepared
         * by the caller): the supervisor only reaps and forwards signals, so it keeps CAP_KILL
         * at most, with no_new_privs. NULL: xpuinit keeps what it has. A failure is a warning:
         * the workload already runs. */
        const struct xpu_privilege *supervisor_privilege;
};

/* Run ARGV[0] (looked up in the PATH of ENVP when it has no '/') with ENVP as xpuinit's child
 * and supervise it until it exits: signals forwarded (SIGSTOP instead of SIGTSTP/SIGTTIN/SIGTTOU
 * in an orphaned process group, where the kernel would discard them), zombies reaped, subreaper
 * when not PID 1, PR_SET_PDEATHSIG, clean signal mask, terminal foreground group. Signals already
 * pending when it is called (blocked by the caller) are forwarded once the workload runs. When the
 * main process has exited, whatever it left behind gets SIGTERM, then SIGKILL after the grace
 * period, and is reaped before this returns (docs/supervision.md, "When the workload exits").
 * Returns the status xpuinit must exit with: the workload's exit code, 128+N when killed by
 * signal N, 126 when not executable, 127 when not found, 125 when the child could not be set up.
 * Prints one error line for 125/126/127. */
int xpu_supervise(char *const argv[], char *const envp[], const struct xpu_supervise_options *o);

/* --exec: run CHILD_SETUP in this process, then replace xpuinit with the workload. Returns only on
 * failure, with the status to exit with (125, 126, 127) after printing one error line. */
int xpu_exec_workload(char *const argv[], char *const envp[], const struct xpu_supervise_options *o);
