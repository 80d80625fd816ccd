/* SPDX-License-Identifier: Apache-2.0 */
/* Termination signals during set-up (stop.h). */
#include "stop.h"

#include <signal.h>
#include <string.h>

#include "sandbox/isolate.h"
#include "base/log.h"
#include "base/signals.h"
#include "apply-undo.h"

/* Empty until xpu_stop_arm(): the other subcommands never stop this way. */
static sigset_t termination_signals;

void xpu_stop_arm(void) {
        xpu_signals_termination(&termination_signals);
        xpu_isolate_set_interrupt(&termination_signals);
}

int xpu_stop_pending(void) {
        return xpu_signals_pending(&termination_signals);
}

int xpu_stop_requested(void) {
        int sig = xpu_stop_pending();
        if (!sig)
                return 0;
        log_info("SIG%s arrived before the workload started: not starting it", sigabbrev_np(sig) ?: "?");
        return 128 + sig;
}

int xpu_stop_after_apply(const struct xpu_plan *p, const struct xpu_apply_roots *roots) {
        int status = xpu_stop_requested();
        char err[1024];
        if (status && p->n_ops > 0 && xpu_plan_undo(p, roots, err, sizeof err) < 0)
                log_warning("%s", err);
        return status;
}
