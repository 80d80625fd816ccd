/* SPDX-License-Identifier: Apache-2.0 */
/* A part of the planner (planner.c): the device nodes' checks and groups, and the MIG devices',
 * plan-devices.c. Each returns 0 or -ENOMEM unless it says more. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "gathered.h"
#include "needs.h"
#include "plan.h"
#include "probe.h"
#include "profile.h"
#include "select.h"

/* A check of NODE against the node under the dev root, once per path, and the group of that node
 * (as FACTS found it there) added to the workload's. */
int xpu_plan_node_check(struct xpu_plan *p, const struct xpu_devnode *node, const struct xpu_plan_facts *facts);

/* The MIG devices of the selection: their capability nodes checked like the GPU's own, and the
 * warnings CUDA's use of them needs. */
int xpu_plan_mig(struct xpu_plan *p, const struct xpu_inventory *inv, const struct xpu_selection *sel,
                 const struct xpu_plan_facts *facts);

/* The host-wide MIG capabilities asked for (NVIDIA_MIG_CONFIG_DEVICES / _MONITOR_DEVICES=all):
 * their nodes checked, or -ENOENT with ERR when the host has none to give. */
int xpu_plan_mig_caps(struct xpu_plan *p, const struct xpu_vendor_info *vi, const struct xpu_selection *sel,
                      const struct xpu_plan_facts *facts, char *err, size_t err_size);
