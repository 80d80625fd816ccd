/* SPDX-License-Identifier: Apache-2.0 */
/* The workload's privileges at a start: the plan's part (ids, capability sets) and the device
 * nodes' groups added to xpuinit itself (docs/privileges.md). */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "plan.h"
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
