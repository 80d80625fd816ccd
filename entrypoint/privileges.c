/* SPDX-License-Identifier: Apache-2.0 */
/* The workload's privileges at a start (privileges.h, docs/privileges.md): planned from the
 * profile and xpuinit's own sets (xpu_plan_privilege), then the privileged sequence of a start,
 * in this order:
 *   A. mounts: a private mount namespace, then the plan's operations (xpu_plan_apply, before
 *      this file's steps: entrypoint/main.c);
 *   B. in xpuinit, one function top to bottom (xpu_start_privileges, the why of each step
 *      there): 1. the device nodes' groups, 2. the workload's and the supervisor's cap_t and
 *      filters prepared, 3. the stop check (a pending termination signal takes A back),
 *      4. xpuinit's own descriptors closed, 5. the bounding set narrowed once (supervised),
 *      6. no_new_privs and the shared filter;
 *   C. in the workload's process, right before execve (init.c launch_exec calls
 *      xpu_privilege_apply, probes/sandbox/privilege.c, one function with a comment per step):
 *      a. bounding set (with --exec), b. PR_SET_KEEPCAPS, c. setgroups, d. setresgid,
 *      e. setresuid, f. capset (permitted/effective/inheritable), g. ambient set,
 *      h. PR_SET_NO_NEW_PRIVS, i. close stray fds, j. load the seccomp filter (unless shared);
 *   D. execve (init.c exec_search); the supervisor narrows itself to CAP_KILL after the start.
 * Each function logs one line on failure, naming the cause and the fix. */
#include "privileges.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/macro.h"
#include "sandbox/privilege.h"
#include "sandbox/seccomp.h"
#include "stop.h"

int xpu_plan_privilege(const struct xpu_profile *pr, bool user_set, uid_t uid, gid_t gid, struct xpu_plan *p) {
        p->user_set = user_set;
        p->uid = user_set ? uid : getuid();
        p->gid = user_set ? gid : getgid();
        p->seccomp = pr->seccomp ? pr->seccomp : "default";
        struct xpu_capability_request rq = { .explicit_list = pr->keep_capabilities_set,
                                             .workload_root = p->uid == 0 };
        for (size_t i = 0; i < pr->n_keep_capabilities; i++) {
                int cap = xpu_capability_from_name(pr->keep_capabilities[i]);
                if (cap < 0) { /* the profile parser checked the names: not reached */
                        log_error("profile \"%s\": keep_capabilities: unknown capability \"%s\"", pr->name,
                                  pr->keep_capabilities[i]);
                        return -EINVAL;
                }
                rq.requested |= XPU_CAP_BIT(cap);
        }
        int r = xpu_capability_current(&rq.effective, &rq.permitted, &rq.bounding);
        if (r < 0) {
                log_error("cannot read xpuinit's capabilities (capget): %s", strerror(-r));
                return r;
        }
        r = p->user_set ? xpu_user_switch_check(p->uid, p->gid, rq.effective) : 1;
        if (r == -EPERM)
                log_error("--user %u:%u: --user needs CAP_SETUID and CAP_SETGID: start xpuinit as root or drop --user",
                          (unsigned)p->uid, (unsigned)p->gid);
        if (r < 0)
                return r;
        if (r == 0) /* already these ids, no CAP_SETGID: nothing to switch (device groups: xpu_add_device_groups) */
                p->user_set = false;
        struct xpu_capability_plan cp;
        uint64_t missing = 0;
        r = xpu_capability_resolve(&rq, &cp, &missing);
        if (r < 0) {
                char names[512];
                (void)xpu_capability_mask_to_names(missing, names, sizeof names);
                log_error("profile \"%s\" (%s): keep_capabilities asks for %s, which xpuinit does not have; "
                          "start the container with that capability (docker/podman --cap-add) or remove it "
                          "from keep_capabilities",
                          pr->name, pr->origin, names);
                return r;
        }
        p->cap_have_effective = rq.effective;
        p->cap_have_permitted = rq.permitted;
        p->cap_have_bounding = rq.bounding;
        p->cap_explicit = rq.explicit_list;
        p->cap_keep = cp.keep;
        p->cap_bounding = cp.bounding;
        p->cap_ambient = cp.ambient;
        if (cp.bounding_wide)
                log_info("the bounding set stays as it is (xpuinit has no CAP_SETPCAP to narrow it); "
                         "no_new_privs keeps the workload from regaining what it dropped");
        return 0;
}

int xpu_add_device_groups(const struct xpu_plan *p, int dev_fd) {
        if (p->n_groups == 0)
                return 0;
        int n = getgroups(0, NULL);
        if (n < 0)
                return negative_errno();
        _cleanup_free_ gid_t *g = calloc((size_t)n + p->n_groups, sizeof(gid_t));
        if (!g)
                return -ENOMEM;
        n = getgroups(n, g);
        if (n < 0)
                return negative_errno();
        size_t total = (size_t)n;
        for (size_t i = 0; i < p->n_groups; i++) {
                bool have = getegid() == p->groups[i];
                for (size_t j = 0; j < total && !have; j++)
                        have = g[j] == p->groups[i];
                if (!have)
                        g[total++] = p->groups[i];
        }
        if (total == (size_t)n || setgroups(total, g) == 0)
                return 0;
        int r = negative_errno();
        /* Without CAP_SETGID the groups cannot be added; fine if the nodes are usable anyway. */
        for (size_t i = 0; i < p->n_groups; i++) {
                const char *rel = p->groups_from[i] + strspn(p->groups_from[i], "/");
                if (faccessat(dev_fd, rel, R_OK | W_OK, AT_EACCESS) < 0) {
                        log_error("cannot add group %u (owner of %s) to the workload: %s; give the container "
                                  "CAP_SETGID or run it with --group-add %u",
                                  (unsigned)p->groups[i], p->groups_from[i], strerror(-r), (unsigned)p->groups[i]);
                        return r;
                }
        }
        log_info("could not add the device groups (%s), but the device nodes are accessible", strerror(-r));
        return 0;
}

void xpu_start_privileges_done(struct xpu_start_privileges *s) {
        xpu_privilege_done(&s->workload);
        xpu_privilege_done(&s->supervisor);
        s->filter = xpu_seccomp_free(s->filter);
        s->self_filter = xpu_seccomp_free(s->self_filter);
        s->shared = NULL;
}

/* Step 2: the workload's and the supervisor's privileges (cap_t) and filters (S->filter: the
 * plan's). */
static int prepare(struct xpu_start_privileges *s, const struct xpu_plan *p, bool exec) {
        struct xpu_seccomp_program *filter = s->filter;
        struct xpu_privilege *priv = &s->workload, *self = &s->supervisor;
        priv->set_ids = p->user_set;
        priv->uid = p->uid;
        priv->gid = p->gid;
        priv->groups = p->groups;
        priv->n_groups = p->n_groups;
        priv->bounding = p->cap_bounding;
        priv->keep = p->cap_keep;
        priv->ambient = p->cap_ambient;
        priv->seccomp = filter;
        priv->close_fds = true; /* init.c sets the fds to keep (report pipe, LISTEN_FDS) */
        /* The supervisor itself keeps CAP_KILL at most once the workload runs (not with --exec).
         * Without CAP_SETPCAP the bounding set stays as it is: all bits kept, so no prctl at all
         * (reading it here cost 41 PR_CAPBSET_READ per start, docs/performance.md). xpuinit's own
         * sets are as the plan read them (nothing changed them since). */
        self->keep = p->cap_have_permitted & XPU_CAP_BIT(CAP_KILL);
        self->bounding = p->cap_have_effective & XPU_CAP_BIT(CAP_SETPCAP) ? XPU_CAP_BIT(CAP_KILL) : ~UINT64_C(0);
        /* And the "default" filter (a ready built-in, nothing is compiled): a workload that may
         * open /proc/1/mem despite PR_SET_DUMPABLE 0 (one kept CAP_SYS_PTRACE) and runs code in
         * the supervisor still meets a filter there, with no more than CAP_KILL. */
        char ferr[256];
        int r = exec ? 0 : xpu_seccomp_build("default", -1, &s->self_filter, ferr, sizeof ferr);
        if (r < 0) {
                log_error("cannot build xpuinit's own seccomp filter: %s", ferr);
                return r;
        }
        self->seccomp = s->self_filter;
        /* One filter serves both when the workload's is the supervisor's ("default", the usual
         * case): xpuinit loads it right before the workload is started (step 6), and the workload
         * inherits it (fork and clone keep the filter). Each load costs the kernel a check, a JIT
         * compilation and a walk of the program for every system call number (its cache): the
         * most expensive step of a start, not to be paid twice. Any other filter is
         * loaded by the workload itself, and the supervisor's after the start, as before: stacked,
         * the supervisor's denials would narrow a list that allows more (ptrace for a debugger). */
        s->shared = !exec && xpu_seccomp_same(filter, s->self_filter) ? filter : NULL;
        if (s->shared)
                priv->seccomp = self->seccomp = NULL;
        r = xpu_privilege_prepare(priv);
        if (r == 0 && !exec)
                r = xpu_privilege_prepare(self);
        if (r < 0) {
                log_error("cannot prepare the workload's capabilities: %s", strerror(-r));
                return r;
        }
        return 0;
}

int xpu_start_privileges(struct xpu_start_privileges *s, const struct xpu_plan *p, struct xpu_seccomp_program *filter,
                         const struct xpu_start_own *own, bool exec) {
        s->filter = filter;
        /* 1. The device nodes' groups, added to xpuinit itself while it may still setgroups: the
         *    workload inherits them, and a node it could not open is reported once, here. With
         *    --user they are the workload's only supplementary groups instead (C.c). */
        if (!p->user_set && xpu_add_device_groups(p, own->applied->dev_fd) < 0)
                return -EPERM;
        /* 2. Everything the workload's process and the supervisor will apply, prepared now: the
         *    child between clone and execve shares xpuinit's memory and must not allocate. */
        int r = prepare(s, p, exec);
        if (r < 0)
                return r;
        /* 3. The stop check, as late as can be: a termination signal that came during set-up
         *    takes back what the apply put into the container, through descriptors still open,
         *    and ends the start with 128+N before anything is dropped. One that comes after is
         *    forwarded to the workload as it starts (xpu_supervise()). */
        r = xpu_stop_after_apply(p, own->applied);
        if (r > 0)
                return r;
        /* 4. xpuinit's own descriptors (the roots it read from and applied into): nothing of
         *    ours may reach the workload, and the supervisor needs none of them. */
        for (size_t i = 0; i < ELEMENTSOF(own->fds); i++)
                if (own->fds[i] && *own->fds[i] >= 0) {
                        close(*own->fds[i]);
                        *own->fds[i] = -EBADF;
                }
        /* 5. The bounding set, narrowed once, here, when supervised: the workload inherits it,
         *    and the supervisor narrows it further to CAP_KILL after the start. Each drop commits
         *    new credentials, and dropping twice (in the workload, and again in the supervisor
         *    from the full set) was a third of a start's system calls. xpuinit's own permitted
         *    and effective sets are untouched by it. With --exec the workload's own
         *    xpu_privilege_apply() drops it (C.a). After step 3: a stop leaves xpuinit as it was. */
        uint64_t bnd = p->cap_have_bounding;
        if (!exec) {
                r = xpu_capability_bounding_drop(p->cap_bounding, bnd);
                if (r < 0) {
                        log_error("cannot narrow the bounding set for the workload: %s", strerror(-r));
                        return r;
                }
                bnd &= p->cap_bounding;
        }
        s->workload.bounding_now = s->supervisor.bounding_now = bnd;
        /* 6. The shared filter (step 2), with no_new_privs first as the kernel wants without
         *    CAP_SYS_ADMIN; both are inherited and are the workload's last steps anyway. Last
         *    here: the filter denies what the undo of step 3 may need (umount2), and nothing of
         *    xpuinit's set-up runs after it. */
        if (!s->shared)
                return 0;
        r = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ? -errno : xpu_seccomp_load(s->shared);
        if (r < 0)
                log_error("cannot load the seccomp filter \"%s\": %s", xpu_seccomp_name(s->shared), strerror(-r));
        return r < 0 ? r : 0;
}
