/* SPDX-License-Identifier: Apache-2.0 */
/* The planner: the plan (plan.h) built from what the start needs (needs.h) and the facts gathered
 * for it (gathered.h), reading nothing itself (planner.c and its parts, plan-*.c). */
#pragma once

#include <stddef.h>

#include "gathered.h"
#include "needs.h"
#include "plan.h"
#include "probe.h"
#include "profile.h"
#include "select.h"

/* Build the plan from the inventory, the selection, the profile and FACTS, what xpu_plan_gather()
 * read for these same inputs and options. Pure: no system call, no descriptor used (O's are
 * ignored); the plan owns copies of what it takes from FACTS, which may be freed after. Returns 0,
 * or -errno with ERR holding one line naming the cause and the fix (unknown capability, no driver
 * version, missing library directory ...). */
int xpu_plan_build(const struct xpu_inventory *inv, const struct xpu_selection *sel,
                   const struct xpu_profile *profile, const struct xpu_plan_facts *facts,
                   const struct xpu_plan_options *o, struct xpu_plan **ret, char *err, size_t err_size);
