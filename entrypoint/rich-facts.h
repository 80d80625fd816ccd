/* SPDX-License-Identifier: Apache-2.0 */
/* The rich-facts step, between gather and plan: which vendor-library facts the plan reads
 * (decided from what the needs step and gather produced), and, once the start has read them in
 * one helper run (probes/rich.h), what the plan reads of them: the profile's
 * forward_compat.require checked, the values of the profile's environment placeholders, and the
 * device-code verdict (device-code-verdict.h). The inventory is not changed after this step. */
#pragma once

#include <stdint.h>

#include "device-code.h"
#include "gathered.h"
#include "probe.h"
#include "profile.h"
#include "select.h"

/* The rich sources (bits of enum xpu_source) to read before the plan: those the profile's
 * forward_compat.require names (F->needs.forward_compat_sources) when gather found a
 * forward-compatibility build of a newer driver branch than INV's driver of PR's vendor, and those
 * the device-code check needs (DC->rich_sources; DC may be NULL: no check). *RET_REQUIRED (may be
 * NULL) gets the forward-compatibility part, whose read failing fails the start; the check's part
 * failing is a warning (its verdict says what is unknown). */
uint32_t xpu_rich_facts_sources(const struct xpu_plan_facts *f, const struct xpu_inventory *inv,
                                const struct xpu_profile *pr, const struct xpu_device_code_facts *dc,
                                uint32_t *ret_required);

/* After the read: when F found a forward-compatibility build, check PR's forward_compat.require
 * for the selected devices of SEL against INV (strictly: an unknown fact fails) into
 * F->forward_compat_require and F->forward_compat_why, for the planner; with no build or no
 * requirement, 1 and "no requirement". Returns 0, or -ENOMEM. */
int xpu_rich_facts_forward_compat(struct xpu_plan_facts *f, const struct xpu_inventory *inv,
                                  const struct xpu_selection *sel, const struct xpu_profile *pr);

/* The values of PR's environment placeholders (profile.h) into F->placeholders, as the plan
 * expands them: the devices of PR's vendor selected in SEL as INV (after the rich facts: NVML's
 * MIG UUIDs) names them (XPU_VISIBLE_IDS: each UUID that names one device, else the vendor index;
 * selected MIG devices as "MIG-<uuid>", else "MIG-<gpu uuid>/<gi>/<ci>"), their vendor indices,
 * the plan's driver version (the kernel driver's, else the gathered one when driver files are
 * looked for) and LIBRARY_DIR (NULL: XPU_DEFAULT_LIBRARY_DIR). Returns 0, or -ENOMEM. */
int xpu_rich_facts_placeholders(struct xpu_plan_facts *f, const struct xpu_inventory *inv,
                                const struct xpu_selection *sel, const struct xpu_profile *pr,
                                const char *library_dir);
