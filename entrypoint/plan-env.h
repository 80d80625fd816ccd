/* SPDX-License-Identifier: Apache-2.0 */
/* A part of the planner (planner.c): the plan's capabilities (which driver files the image asks
 * for) and its environment (the profile's edits with the placeholders expanded), plan-env.c.
 * Each returns 0 or -ENOMEM unless it says more. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "gathered.h"
#include "needs.h"
#include "plan.h"
#include "probe.h"
#include "profile.h"
#include "select.h"


/* Capabilities in effect into P, as N decided them from the image's list ENV (VAR the variable
 * that gave it; NULL: NVIDIA_DRIVER_CAPABILITIES). A word the profile has no files for never stops
 * the start: one plan warning names the ignored words and what the profile knows. Returns 0,
 * -ENOMEM, or -EINVAL with ERR (a list without a word). */
int xpu_plan_capabilities(struct xpu_plan *p, const struct xpu_profile *pr, const struct xpu_plan_needs *n,
                          const char *env, const char *var, char *err, size_t err_size);

/* The profile's environment edits into P's environment, with the placeholders of profile.h
 * expanded from VALUES (the rich-facts step's, gathered.h placeholders). */
int xpu_plan_env_edits(struct xpu_plan *p, const struct xpu_profile *pr, const char *const values[_XPU_PLACEHOLDER_MAX]);
