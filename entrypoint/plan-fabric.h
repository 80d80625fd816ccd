/* SPDX-License-Identifier: Apache-2.0 */
/* A part of the planner (planner.c): the fabric device sets asked for (fabric.h), plan-fabric.c. */
#pragma once

#include <stddef.h>

#include "gathered.h"
#include "plan.h"

/* Every node of each fabric set FACTS->needs.fabric asks for, checked as every device node is
 * (a character device; its major the one /proc/devices gives its driver) and its group added;
 * a note per set. Returns 0, -ENOMEM, or with ERR (one line naming the variable and the fix):
 * -EINVAL for a bad value, -ENOENT when the environment asked for nodes the container lacks (a
 * channel that does not exist), -ENODEV for a node that is not its driver's. */
int xpu_plan_fabric(struct xpu_plan *p, const struct xpu_plan_facts *facts, char *err, size_t err_size);
