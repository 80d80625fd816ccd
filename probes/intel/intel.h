/* SPDX-License-Identifier: Apache-2.0 */
/* Intel GPUs (i915 and xe kernel drivers): the fast path is xpu_vendor_intel (vendor.h), from
 * sysfs only (probes/intel/intel.c says which files). Nothing here logs.
 *
 * xpud's readings (xpu_readings_intel, backend "intel_sysfs", intel-readings.c), below
 * /sys/class/drm/cardN, each absent when its file is:
 *   device/tile0/gt0/freq0/act_freq   xe: actual GPU frequency of the first GT, MHz
 *   gt/gt0/rps_act_freq_mhz           i915: the same (gt_act_freq_mhz on older kernels)
 *   device/hwmon/hwmonK/              the one whose name is the driver's ("i915", "xe"):
 *     energy1_input                   card energy, microjoules (power: its rise per second)
 *     power1_max                      sustained power limit (PL1), microwatts; 0 = none
 *     temp2_input, temp3_input        xe: package and VRAM temperature, millidegrees Celsius
 *   error                             i915: "No error state collected", or a GPU error state
 *                                     (the GPU hung and was reset); root-only
 * (Documentation/ABI/testing/sysfs-driver-intel-{i915,xe}-hwmon, xe_gt_freq.c, i915_sysfs.c.) */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "intel/intel-facts.h"
#include "probe.h"

/* Most tiles one GPU is taken to have (a Max 1550 has 2); a card listing more has no tile count. */
#define XPU_INTEL_TILES_MAX 16u

/* Is ID (PCI device id) a Data Center GPU Max (Ponte Vecchio, pciids.h INTEL_PVC_IDS)? Its GTs are
 * tiles, and it is the part on which Level Zero's default hierarchy is FLAT. */
bool xpu_intel_is_pvc(uint16_t id);

/* Level Zero's ZE_AFFINITY_MASK=VALUE as the Intel GPUs it selects. Its numbers are Level Zero's
 * inside this container: the given GPUs (xpu_device_available()) with a render node in vendor
 * order, in the hierarchy ZE_FLAT_DEVICE_HIERARCHY (read from the environment, exact spelling;
 * unset: FLAT when a given GPU is a Data Center GPU Max, else COMPOSITE, the runtime's default)
 * names:
 *   FLAT, COMBINED  "D": the D-th tile across the given GPUs (tile_count each)
 *   COMPOSITE       "D": given GPU D whole; "D.S": tile S of it
 * LIST gets the GPUs named, whole, as vendor indices ("0,2"; "all" for a blank VALUE or
 * "default"; empty entries name nothing): the list
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

struct xpu_readings_ops;
/* xpud's Intel readings backend "intel_sysfs" (vendor.h), the files above. */
extern const struct xpu_readings_ops xpu_readings_intel;

struct xpu_vendor_k8s;
/* How Intel's Kubernetes device plugin names its GPUs (intel-k8s.c): the descriptor's k8s. */
extern const struct xpu_vendor_k8s xpu_k8s_intel;
/* Intel's GPUs on WSL2 (intel-wsl.c): the descriptor's wsl. */
extern const struct xpu_vendor_wsl xpu_wsl_intel;
