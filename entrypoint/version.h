/* SPDX-License-Identifier: Apache-2.0 */
/* Version numbers as the steps of a start compare them: dotted numbers (requirements, driver
 * branches, forward-compatibility builds) and CUDA versions. A library no step owns: the select,
 * gather, rich-facts and plan steps each call down into it (docs/architecture.md, "A start, step
 * by step"). Pure and silent. */
#pragma once

#include <stdbool.h>

/* S is a dotted number: digits ('.' digits)*, each component within 64 bits ("12.4", "535.54.03"). */
bool xpu_version_is_dotted(const char *s);

/* Compare two dotted numbers ("550.90.07", "12.4"): <0, 0, >0; a missing component is 0. Only for
 * strings of digits and dots (as xpu_is_driver_version() or a parsed requirement has them): a
 * component that does not parse compares as equal. */
int xpu_version_cmp(const char *a, const char *b);

/* A driver version as NVIDIA numbers them: components of 1 to 9 digits without a leading zero
 * ("575.57.08" has one in its last component, which is allowed: only the branch is compared). */
bool xpu_plain_driver_version(const char *v);

/* Is the image's forward-compatibility build (xpu_forward_compat_find, gather.h) of a newer driver
 * branch (first version component) than HOST_VERSION, the running driver? Then the profile's
 * forward_compat.require decides (xpuinit reads the facts it names, NVML's brand, only then). */
bool xpu_forward_compat_newer(const char *compat_version, const char *host_version);

/* Parse a CUDA version "X.Y" or "X" (--cuda-driver, NVML's and libcuda's version) into
 * cuDriverGetVersion()'s spelling (13.0: 13000). Returns it, or -EINVAL. */
int xpu_version_parse_cuda(const char *s);
