/* SPDX-License-Identifier: Apache-2.0 */
/* Intel GPUs (i915 and xe kernel drivers): the fast path is xpu_vendor_intel (probe.h), from
 * sysfs only (probes/intel/intel.c says which files). Nothing here logs. */
#pragma once

#include "probe.h"
