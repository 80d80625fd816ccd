/* SPDX-License-Identifier: Apache-2.0 */
#include "signals.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "procfs.h"
#include "macro.h"

int xpu_ksigaction(int sig, const struct xpu_ksigaction *act, struct xpu_ksigaction *old) {
        return syscall(SYS_rt_sigaction, sig, act, old, sizeof(uint64_t)) < 0 ? negative_errno() : 0;
}

uint64_t xpu_signals_ignored(void) {
        uint64_t mask = 0;
        if (xpu_proc_status_mask("/proc/self/status", "SigIgn", &mask) == 0)
                return mask;
        for (int sig = 1; sig <= 64; sig++) {
                struct xpu_ksigaction old;
                if (xpu_ksigaction(sig, NULL, &old) == 0 && old.handler == SIG_IGN)
                        mask |= UINT64_C(1) << (sig - 1);
        }
        return mask;
}

void xpu_signals_ignored_to_default(struct xpu_ksigaction *saved, uint64_t *ret_changed) {
        const struct xpu_ksigaction dfl = { .handler = SIG_DFL };
        uint64_t ign = xpu_signals_ignored(), changed = 0;
        for (int sig = 1; sig <= 64; sig++) {
                if (!(ign & (UINT64_C(1) << (sig - 1))) || sig == SIGKILL || sig == SIGSTOP)
                        continue;
                if (xpu_ksigaction(sig, &dfl, saved ? &saved[sig - 1] : NULL) == 0)
                        changed |= UINT64_C(1) << (sig - 1);
        }
        if (ret_changed)
                *ret_changed = changed;
}

/* Raised synchronously by a fault of the process itself: never blocked (xpu_signals_supervised()). */
static const int fault_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS, SIGABRT };

/* What `docker stop`, kubelet, ^C, ^\ and a closed terminal send (xpu_signals_termination()). */
static const int termination_signals[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT };

void xpu_signals_supervised(sigset_t *ret) {
        sigfillset(ret);
        for (size_t i = 0; i < ELEMENTSOF(fault_signals); i++)
                sigdelset(ret, fault_signals[i]);
}

void xpu_signals_termination(sigset_t *ret) {
        sigemptyset(ret);
        for (size_t i = 0; i < ELEMENTSOF(termination_signals); i++)
                sigaddset(ret, termination_signals[i]);
}

int xpu_signals_pending(const sigset_t *set) {
        sigset_t pending;
        if (sigpending(&pending) < 0)
                return 0;
        for (int sig = 1; sig < NSIG; sig++)
                if (sigismember(set, sig) == 1 && sigismember(&pending, sig) == 1)
                        return sig;
        return 0;
}
