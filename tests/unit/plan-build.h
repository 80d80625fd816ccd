/* SPDX-License-Identifier: Apache-2.0 */
/* The plan as a start builds it: the needs decided (needs.h), the facts gathered (gather.h),
 * what the rich-facts step computes (rich-facts.h: forward_compat.require checked, the
 * placeholders' values, the device-code verdict), then the plan built from them (planner.h), the
 * facts freed. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "device-code-verdict.h"
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

/* The rest of a start's steps before the plan (rich-facts.h, the vendor libraries' read left
 * out): forward_compat.require checked, the placeholders' values, and with DC the device-code
 * verdict (SHOW: as `plan` says it); then the plan built with them. */
static inline int xpu_test_plan_checked(const struct xpu_inventory *inv, const struct xpu_selection *sel,
                                        const struct xpu_profile *pr, const struct xpu_plan_options *o,
                                        const struct xpu_device_code_facts *dc, bool show, struct xpu_plan **ret,
                                        char *err, size_t err_size) {
        struct xpu_plan_facts *facts = NULL;
        int r = xpu_test_gather(inv, sel, pr, o, &facts, err, err_size);
        if (r < 0)
                return r;
        struct xpu_device_code_outcome verdict = { 0 };
        struct xpu_plan_options with = *o;
        r = xpu_rich_facts_forward_compat(facts, inv, sel, pr);
        if (r >= 0)
                r = xpu_rich_facts_placeholders(facts, inv, sel, pr, o->library_dir);
        if (r >= 0 && dc) {
                r = xpu_device_code_verdict(dc, inv, sel, pr, o->envp, (const char *const *)facts->placeholders, show,
                                            &verdict);
                with.device_code = &verdict;
        }
        if (r >= 0)
                r = xpu_plan_build(inv, sel, pr, facts, &with, ret, err, err_size);
        xpu_device_code_outcome_clear(&verdict);
        xpu_plan_facts_free(facts);
        return r;
}

static inline int xpu_test_plan(const struct xpu_inventory *inv, const struct xpu_selection *sel,
                                const struct xpu_profile *pr, const struct xpu_plan_options *o, struct xpu_plan **ret,
                                char *err, size_t err_size) {
        return xpu_test_plan_checked(inv, sel, pr, o, NULL, false, ret, err, err_size);
}
