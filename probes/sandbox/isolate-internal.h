/* SPDX-License-Identifier: Apache-2.0 */
/* Between the parts of the helper runner: isolate.c (the parent: fork, deadline, reply, outcome),
 * isolate-child.c (everything that runs in the forked helper) and isolate-session.c (the
 * long-lived helper). Not a public API: only these three files include it. docs/isolation.md
 * describes the whole. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct xpu_isolate_options; /* sandbox/isolate.h: only pointed to here, so this header includes
                             * nothing of isolate.c's and forms no include circle with it */

/* Steps of the helper's set-up, in the order they run; the parent names the failed one. */
enum xpu_isolate_step {
        XPU_ISOLATE_STEP_SETSID,     /* first process: new session, no controlling terminal */
        XPU_ISOLATE_STEP_PDEATHSIG,
        XPU_ISOLATE_STEP_SIGNALS,
        XPU_ISOLATE_STEP_FDS,
        XPU_ISOLATE_STEP_DEVNULL,
        XPU_ISOLATE_STEP_STDIO,
        XPU_ISOLATE_STEP_CLOSE,
        XPU_ISOLATE_STEP_RLIMIT,
        XPU_ISOLATE_STEP_CHDIR,
        XPU_ISOLATE_STEP_FORK,       /* PID namespace: the reaper forks the worker */
        XPU_ISOLATE_STEP_REAP,       /* PID namespace: the reaper waits for the worker */
        XPU_ISOLATE_STEP_SETPGID,    /* PID namespace: the worker's own process group */
        XPU_ISOLATE_STEP_AMBIENT,
        XPU_ISOLATE_STEP_BOUNDING,
        XPU_ISOLATE_STEP_SETGROUPS,
        XPU_ISOLATE_STEP_SETRESGID,
        XPU_ISOLATE_STEP_SETRESUID,
        XPU_ISOLATE_STEP_CAPSET,
        XPU_ISOLATE_STEP_NNP,
        _XPU_ISOLATE_STEP_MAX,
};

/* The step's name as the reason shows it ("setresuid"); NULL out of range. */
const char *xpu_isolate_step_name(int step);

/* Record kind for the worker's fate (not a step): VALUE is the worker's raw wait status. */
#define XPU_ISOLATE_RECORD_FATE 1000

/* What the helper writes to the side channel (a pipe whose write end the worker closes before
 * FN runs, so vendor code can never write one). A set-up failure: STEP and VALUE = its errno
 * (> 0). In a PID namespace the reaper adds, once the worker is reaped, STEP =
 * XPU_ISOLATE_RECORD_FATE and VALUE = the worker's wait status, because PID 1 of a namespace
 * cannot pass a terminating signal on by dying of it. Each record is one write of 8 bytes (atomic
 * on a pipe). */
struct xpu_isolate_record {
        int32_t step;
        int32_t value;
};

/* What the forked helper needs to know; filled by the parent before fork. */
struct xpu_isolate_child {
        int (*fn)(void *arg, int out_fd);
        void *arg;
        const struct xpu_isolate_options *o;
        int out_fd;      /* reply pipe, write end (O_CLOEXEC) */
        int err_fd;      /* side channel, write end (O_CLOEXEC) */
        pid_t parent;    /* getpid() of the parent, for the check after PR_SET_PDEATHSIG */
        int parent_fd;   /* PID namespace: a pidfd of the parent (getppid() is 0 there); else -1 */
        bool pid_ns;     /* the helper is PID 1 of a new PID namespace: reaper + worker */
};

/* ---- parent side, shared by xpu_isolate_run() (isolate.c) and the sessions (isolate-session.c) ---- */

/* CLOCK_MONOTONIC in milliseconds. */
uint64_t xpu_isolate_now_ms(void);
/* Fork the helper C describes (C->fn, arg, o, out_fd and err_fd set by the caller; parent,
 * parent_fd and pid_ns are filled here): PID 1 of a new PID namespace when this thread may create
 * one and return to its own, else a plain child. The child runs xpu_isolate_child_main(). Returns
 * 0 with *RET_PID, or -errno with REASON "not started: fork: ..." (nothing left running). The
 * caller closes its copies of the write ends. */
int xpu_isolate_fork(struct xpu_isolate_child *c, pid_t *ret_pid, char *reason, size_t reason_size);
/* Has PID exited (without reaping it)? 1 yes, 0 no, -errno (-ECHILD: reaped by someone else). */
int xpu_isolate_child_exited(pid_t pid);
/* Sleep until PIDFD is readable (the child exited) or MS pass; MS is capped at 10 when there is
 * no pidfd (-1), so the caller polls waitid. */
void xpu_isolate_wait_a_little(int pidfd, uint64_t ms);
/* Reap PID with waitpid(); give up at DEADLINE (CLOCK_MONOTONIC ms). 0 or -errno/-ETIMEDOUT. */
int xpu_isolate_reap(pid_t pid, int pidfd, uint64_t deadline, int *status);
/* "10 s" or "200 ms" into BUF. */
void xpu_isolate_format_ms(char *buf, size_t size, unsigned ms);
/* Turn the helper's wait STATUS into 0 or -errno and REASON (see xpu_isolate_run()). ERR_FD holds
 * the side channel's records: a set-up failure, and in a PID namespace the worker's own wait
 * status (the fate), which stands in for the reaper's. */
int xpu_isolate_status_reason(int status, int err_fd, const struct xpu_isolate_options *o, char *reason,
                              size_t size);

/* The helper's whole life after fork(): set-up, then FN (fallback), or set-up, fork of the
 * worker and reaping (PID namespace). Ends with _exit(). */
_Noreturn void xpu_isolate_child_main(const struct xpu_isolate_child *c);
