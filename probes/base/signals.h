/* SPDX-License-Identifier: Apache-2.0 */
/* Signal dispositions for processes about to run other programs (the workload, a vendor helper). */
#pragma once

#include <signal.h>
#include <stdint.h>

/* The kernel's struct for rt_sigaction(2). The raw system call is used because glibc's
 * sigaction() refuses the two real-time signals it reserves (32, 33), yet they can arrive
 * ignored from a parent and would stay ignored across exec. */
struct xpu_ksigaction {
        void *handler;
        unsigned long flags;
        void *restorer;
        uint64_t mask;
};

/* rt_sigaction(SIG, ACT, OLD). Returns 0 or -errno. */
int xpu_ksigaction(int sig, const struct xpu_ksigaction *act, struct xpu_ksigaction *old);

/* The ignored signals as a bit mask (bit N-1 = signal N), from the "SigIgn:" line of
 * /proc/self/status: one read instead of a query per signal (~64 system calls). Without /proc,
 * each signal is asked. */
uint64_t xpu_signals_ignored(void);

/* Set every ignored signal (1..64, not SIGKILL/SIGSTOP) back to SIG_DFL. SAVED (64 entries, may
 * be NULL) receives the old actions, *RET_CHANGED (may be NULL) which were changed. */
void xpu_signals_ignored_to_default(struct xpu_ksigaction *saved, uint64_t *ret_changed);

/* The signals xpuinit blocks and reads from its signalfd: every catchable signal except the ones a
 * fault of its own raises synchronously (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS,
 * SIGABRT: blocked, a crash would become a hang or an immediate kill). glibc's sigfillset()
 * leaves out its two internal real-time signals (32, 33). No system call. */
void xpu_signals_supervised(sigset_t *ret);

/* The termination signals a container runtime, a shell or a terminal sends to stop a program:
 * SIGTERM (docker stop, kubelet), SIGINT (^C), SIGHUP (terminal gone), SIGQUIT (^\). No system
 * call. */
void xpu_signals_termination(sigset_t *ret);

/* The lowest-numbered signal of SET that is pending for this thread or this process
 * (sigpending(2): blocked signals that arrived and were not read yet), 0 when none is or when
 * sigpending fails. Reads nothing: the signal stays pending. One system call. */
int xpu_signals_pending(const sigset_t *set);
