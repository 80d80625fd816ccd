/* SPDX-License-Identifier: Apache-2.0 */
/* A termination signal during set-up (docs/supervision.md, "A termination signal before the
 * workload runs"): SIGTERM, SIGINT, SIGHUP or SIGQUIT, blocked since main()'s first line, ends a
 * start with 128+N before the workload runs. These are the checks main.c makes where set-up
 * waits and right before the start. */
#pragma once

#include "plan.h"

/* For a start (not the other subcommands): make the termination signals count from now on,
 * including in every vendor-library helper run (xpu_isolate_set_interrupt()), which then ends at
 * once. The caller has blocked them. No system call. */
void xpu_stop_arm(void);

/* The pending termination signal, 0 when none is or before xpu_stop_arm(). Silent. */
int xpu_stop_pending(void);

/* 128+N when termination signal N is pending, after one info line saying that the workload is not
 * started; else 0. */
int xpu_stop_requested(void);

/* The last check, after xpu_plan_apply() (P applied with ROOTS): when a termination signal is
 * pending, take back what the apply put into the container (xpu_plan_undo(); what stays is named
 * in one warning line) and return 128+N; else 0. A signal that arrives after this check is
 * forwarded to the workload as it starts (xpu_supervise()). */
int xpu_stop_after_apply(const struct xpu_plan *p, const struct xpu_apply_roots *roots);
