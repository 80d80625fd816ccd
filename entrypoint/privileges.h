/* SPDX-License-Identifier: Apache-2.0 */
/* The workload's privileges at a start (docs/privileges.md): the plan's part (ids, capability
 * sets), then the privileged sequence of a start in one function (xpu_start_privileges,
 * privileges.c, in the order written there once). */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "plan.h"
#include "sandbox/privilege.h"
#include "sandbox/seccomp.h"
#include "profile.h"

/* Fill P's privilege fields: the ids (USER_SET: UID and GID from --user/XPUINIT_USER, else
 * xpuinit's own), the capability sets from PR's keep_capabilities and xpuinit's own sets
 * (capget(2), the bounding set from /proc/thread-self/status; kept in P->cap_have_*), and the
 * seccomp spec (default "default"). A --user that changes nothing is dropped (P->user_set
 * false). Returns 0, or -errno after logging one line naming the cause and the fix (-EPERM: a
 * --user xpuinit cannot switch to, or a listed capability xpuinit does not have). */
int xpu_plan_privilege(const struct xpu_profile *pr, bool user_set, uid_t uid, gid_t gid, struct xpu_plan *p);

/* Add the supplementary groups of the device nodes (P->groups) to xpuinit itself before the
 * workload starts, so the workload inherits them and a failure is reported once, here. Without
 * CAP_SETGID the groups cannot be added, which is fine when the nodes are usable anyway
 * (faccessat R_OK|W_OK below DEV_FD, the dev root). Returns 0, or -errno after logging one line
 * naming the group, the node and the fix. */
int xpu_add_device_groups(const struct xpu_plan *p, int dev_fd);

/* What the privileged sequence prepared for the workload and for the supervisor (xpuinit itself
 * once the workload runs), handed to xpu_supervise()/xpu_exec_workload() (init.h). */
struct xpu_start_privileges {
        struct xpu_privilege workload;            /* applied in the workload right before execve */
        struct xpu_privilege supervisor;          /* applied to the supervisor after the start */
        struct xpu_seccomp_program *filter;       /* the plan's filter (owned) */
        struct xpu_seccomp_program *self_filter;  /* the supervisor's "default" (owned; NULL with --exec) */
        const struct xpu_seccomp_program *shared; /* the one filter both use, loaded once by
                                                   * xpu_start_privileges (step 6); NULL: each loads its own */
};
#define XPU_START_PRIVILEGES_INIT \
        { .workload = XPU_PRIVILEGE_INIT, .supervisor = XPU_PRIVILEGE_INIT, .filter = NULL, .self_filter = NULL, \
          .shared = NULL }
void xpu_start_privileges_done(struct xpu_start_privileges *s);

/* What xpuinit hands to the privileged sequence besides the plan: where the plan was applied
 * (the stop check takes the apply back through it; its dev_fd is the dev root the device nodes'
 * access is checked under) and xpuinit's own descriptors, which the workload must not inherit. */
#define XPU_START_OWN_FDS 4
struct xpu_start_own {
        const struct xpu_apply_roots *applied; /* where xpu_plan_apply() ran (its fds stay open until step 4) */
        int *fds[XPU_START_OWN_FDS];           /* closed in step 4 and set to -EBADF (NULL, or a negative
                                                * fd: nothing to close) */
};

/* The privileged sequence of a start, in xpuinit after the plan P was applied (mounts done) and
 * right before the workload is cloned (or execve'd with EXEC, --exec: no supervisor), top to
 * bottom: 1. the device nodes' groups added to xpuinit (without --user; their access checked
 * under OWN->applied->dev_fd when they cannot be), 2. the workload's and the supervisor's
 * privileges and filters prepared (FILTER, the plan's compiled filter, is taken over: S owns it
 * whatever the result), 3. the stop check (xpu_stop_after_apply(): a pending termination signal
 * takes the apply back), 4. OWN->fds closed, 5. the bounding set narrowed once for the workload
 * (supervised), 6. no_new_privs and the filter the workload and the supervisor share (S->shared).
 * Returns 0 (S ready for xpu_supervise()/xpu_exec_workload(), init.h), 128+N when termination
 * signal N was pending at step 3 (nothing closed or dropped), or -errno after logging one line. */
int xpu_start_privileges(struct xpu_start_privileges *s, const struct xpu_plan *p, struct xpu_seccomp_program *filter,
                         const struct xpu_start_own *own, bool exec);
