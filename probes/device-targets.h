/* SPDX-License-Identifier: Apache-2.0 */
/* The kinds of GPU an inventory holds, named as device-code targets ("sm_90", "gfx942"): what the
 * start-time device-code check judges and what xpud's node labels publish. Pure: no I/O. */
#pragma once

#include <stddef.h>

#include "devcode/judge.h"
#include "probe.h"

/* Most kinds of GPU judged at once (a node mixes few). */
#define XPU_DEVICE_CODE_TARGETS_MAX 16

/* The targets of the devices INV->devices[DEVICES[i]] for i < N (all of them when DEVICES is
 * NULL), one per kind, as each vendor's descriptor names them (xpu_vendor_ops.code.target): NVIDIA
 * by compute capability (xpu_device.compute_capability, rich path: NVML or the CUDA driver API),
 * AMD by gfx target (KFD gfx_target_version); devices of a vendor whose device code is not judged
 * (Intel: SPIR-V is compiled at run time) are left out. GPUS says how many of
 * which ("8 × AMD Instinct MI300X") and COUNT how many. Devices whose kind is not known are
 * counted in *UNKNOWN and become one target per vendor with .unknown set (only "nothing for this
 * vendor" is judged for it).
 * Returns the number of targets written to T (at most MAX). */
size_t xpu_device_code_targets(const struct xpu_inventory *inv, const size_t *devices, size_t n,
                               struct xpu_code_target *t, size_t max, size_t *unknown);

/* How device D is partitioned, as a label value (xpu_vendor_ops.view.partition): "mig" (NVIDIA with
 * MIG mode on: NVML), the AMD partition mode ("cpx_nps4", xpu_device.partition_mode), "none" (MIG
 * mode off; an AMD GPU that is not one of several partitions and whose driver shows no mode; a
 * vendor without partitions), or NULL when it is not known (NVIDIA without NVML; an AMD partition
 * whose driver shows no mode). */
const char *xpu_device_partition(const struct xpu_device *d);
