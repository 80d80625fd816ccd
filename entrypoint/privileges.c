/* SPDX-License-Identifier: Apache-2.0 */
/* The workload's privileges at a start (privileges.h, docs/privileges.md): planned from the
 * profile and xpuinit's own sets, and the device nodes' groups added to xpuinit before the start.
 * Both log one line on failure, naming the cause and the fix. */
#include "privileges.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/macro.h"
#include "sandbox/privilege.h"

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
