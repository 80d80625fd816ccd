/* SPDX-License-Identifier: Apache-2.0 */
/* Output of `xpuinit probe`, `profiles`, `plan` and `inject`: text for people, JSON for programs. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "plan.h"
#include "probe.h"
#include "profile.h"
#include "rich.h"
#include "select.h"

/* Print O (taken: deleted here; NULL stands for -ENOMEM) as indented JSON and a newline. Returns 0,
 * -ENOMEM or -EIO. */
int xpu_render_json_print(cJSON *o, FILE *f);

/* Each returns 0 or -ENOMEM / -EIO. */
/* The inventory; with REPORTS (indexed by enum xpu_source, may be NULL) the outcome of each rich
 * source in SOURCES as "backends" (JSON) or one "backend" line each (text). */
int xpu_render_inventory_json(const struct xpu_inventory *inv, const struct xpu_rich_report *reports,
                              uint32_t sources, FILE *f);
void xpu_render_inventory_text(const struct xpu_inventory *inv, const struct xpu_rich_report *reports,
                               uint32_t sources, FILE *f);
/* One library's own view (probe --source nvml): OPS->to_json(RESULT) with "status": "ok", or, when
 * RESULT is NULL, {"source", "library", "status": "error"|"skipped", "error"/"reason"} from REP. */
int xpu_render_source_json(const struct xpu_rich_ops *ops, const void *result, const struct xpu_rich_report *rep,
                           FILE *f);
void xpu_render_source_text(const struct xpu_rich_ops *ops, const void *result, const struct xpu_rich_report *rep,
                            FILE *f);
int xpu_render_profiles_json(const struct xpu_profile_set *s, const struct xpu_inventory *inv,
                             const struct xpu_selection *sel, const struct xpu_profile *chosen, FILE *f);
int xpu_render_profiles_text(const struct xpu_profile_set *s, const struct xpu_inventory *inv,
                             const struct xpu_selection *sel, const struct xpu_profile *chosen, FILE *f);
/* ENVP is the environment before the plan: only added, changed and removed variables are shown. */
int xpu_render_plan_json(const struct xpu_plan *p, const struct xpu_inventory *inv, char *const *envp,
                         bool filesystem_only, FILE *f);
int xpu_render_plan_text(const struct xpu_plan *p, const struct xpu_inventory *inv, char *const *envp,
                         bool filesystem_only, FILE *f);
