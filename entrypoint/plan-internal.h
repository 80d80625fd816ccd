/* SPDX-License-Identifier: Apache-2.0 */
/* The steps of xpu_plan_build() (plan.c) that live in their own files, and what they share. Not
 * an interface: plan.h is. Each returns 0 or -ENOMEM unless it says more. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "base/macro.h"
#include "gathered.h"
#include "plan.h"
#include "profile.h"

/* A problem that does not stop the start: one line of P's warnings. */
int xpu_plan_warning(struct xpu_plan *p, const char *fmt, ...) _printf_(2, 3);

/* ---- plan-env.c ---- */


/* Capabilities in effect into P, as N decided them from the image's list ENV (VAR the variable
 * that gave it; NULL: NVIDIA_DRIVER_CAPABILITIES). A word the profile has no files for never stops
 * the start: one plan warning names the ignored words and what the profile knows. Returns 0,
 * -ENOMEM, or -EINVAL with ERR (a list without a word). */
int xpu_plan_capabilities(struct xpu_plan *p, const struct xpu_profile *pr, const struct xpu_plan_needs *n,
                          const char *env, const char *var, char *err, size_t err_size);

/* Comma list of the selected devices of P's vendor (malloc'ed; NULL on -ENOMEM): UUID when it
 * names exactly one device, else the vendor index; MIG devices as CUDA names them; INDICES_ONLY
 * lists the vendor index of each device once. */
char *xpu_plan_visible_ids(const struct xpu_inventory *inv, const struct xpu_selection *sel, const struct xpu_plan *p,
                           bool indices_only);

/* The profile's environment edits into P's environment, with the placeholders of profile.h
 * expanded from VALUES. */
int xpu_plan_env_edits(struct xpu_plan *p, const struct xpu_profile *pr, const char *const values[_XPU_PLACEHOLDER_MAX]);

/* ---- plan-devices.c ---- */

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
