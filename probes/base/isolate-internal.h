/* SPDX-License-Identifier: Apache-2.0 */
/* Between the two halves of the helper runner: isolate.c (the parent: fork, deadline, reply,
 * outcome) and isolate-child.c (everything that runs in the forked helper). Not a public API:
 * only these two files include it. docs/isolation.md describes the whole. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/isolate.h"

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

/* The helper's whole life after fork(): set-up, then FN (fallback), or set-up, fork of the
 * worker and reaping (PID namespace). Ends with _exit(). */
_Noreturn void xpu_isolate_child_main(const struct xpu_isolate_child *c);
