/* SPDX-License-Identifier: Apache-2.0 */
/* Intel GPUs (i915 and xe kernel drivers): the fast path is xpu_vendor_intel (probe.h), from
 * sysfs only (probes/intel/intel.c says which files). Nothing here logs. */
#pragma once

#include "probe.h"

/* Level Zero's ZE_AFFINITY_MASK=VALUE as the Intel GPUs it selects. Its numbers are Level Zero's
 * inside this container: the given GPUs (xpu_device_available()) in vendor order, in the
 * hierarchy ZE_FLAT_DEVICE_HIERARCHY (read from the environment; unset = FLAT) names:
 *   FLAT, COMBINED  "D": the D-th tile across the given GPUs (tile_count each)
 *   COMPOSITE       "D": given GPU D whole; "D.S": tile S of it
 * LIST gets the GPUs named, whole, as vendor indices ("0,2"; "all" for a blank VALUE): the list
 * the vendor visibility rules read. Returns 0, -ENOMEM, or -EINVAL with ERR naming the variable,
 * the entry and what exists ("ZE_AFFINITY_MASK=\"5\": no device 5 in the FLAT hierarchy: the
 * Intel GPUs here have 4 tiles, devices 0 to 3"). */
int xpu_intel_affinity_translate(const struct xpu_inventory *inv, const char *value, char *list, size_t list_size,
                                 char *err, size_t err_size);

/* The ZE_AFFINITY_MASK that selects the Intel GPUs SELECTED[i] marks (one flag per inventory
 * device) among the given ones, in the workload's hierarchy (FLAT, COMBINED: every tile of each;
 * COMPOSITE: each GPU), into OUT; "" when they are all the given GPUs (nothing to filter).
 * Returns 0, -ENOMEM, -ENOBUFS, or -EINVAL with ERR (an unknown ZE_FLAT_DEVICE_HIERARCHY). */
int xpu_intel_affinity_mask(const struct xpu_inventory *inv, const bool *selected, char *out, size_t size,
                            char *err, size_t err_size);
