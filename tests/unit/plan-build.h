/* SPDX-License-Identifier: Apache-2.0 */
/* The plan as a start builds it: the needs decided (needs.h), the facts gathered (gather.h),
 * forward_compat.require checked as after the rich facts (rich-facts.h), then the plan built from
 * them (planner.h), the facts freed. */
#pragma once

#include <stddef.h>

#include "gather.h"
#include "plan.h"
#include "planner.h"
#include "rich-facts.h"
#include "testlib.h"

/* The needs and gather steps of a start: *RET as xpu_plan_gather() has it. */
static inline int xpu_test_gather(const struct xpu_inventory *inv, const struct xpu_selection *sel,
                                  const struct xpu_profile *pr, const struct xpu_plan_options *o,
                                  struct xpu_plan_facts **ret, char *err, size_t err_size) {
        struct xpu_plan_needs needs = { 0 };
        int r = xpu_plan_needs(sel, pr, o, &needs);
        return r < 0 ? r : xpu_plan_gather(inv, sel, pr, o, &needs, ret, err, err_size);
}

static inline int xpu_test_plan(const struct xpu_inventory *inv, const struct xpu_selection *sel,
                                const struct xpu_profile *pr, const struct xpu_plan_options *o, struct xpu_plan **ret,
                                char *err, size_t err_size) {
        struct xpu_plan_facts *facts = NULL;
        int r = xpu_test_gather(inv, sel, pr, o, &facts, err, err_size);
        if (r < 0)
                return r;
        r = xpu_rich_facts_forward_compat(facts, inv, sel, pr); /* after the rich facts, in a start */
        if (r < 0) {
                xpu_plan_facts_free(facts);
                return r;
        }
        r = xpu_plan_build(inv, sel, pr, facts, o, ret, err, err_size);
        xpu_plan_facts_free(facts);
        return r;
}
