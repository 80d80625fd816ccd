/* SPDX-License-Identifier: Apache-2.0 */
/* Device health: one state per device from its readings, the same device in
 * the previous snapshot and the state of the backend that read it. Pure functions: no I/O, no
 * logging, no clock. The rules, in the order they are checked (docs/xpud-metrics.md "Health"):
 *
 *   unhealthy  the device fell off the bus (xpu_readings.lost, set by the backend that read it)
 *   unhealthy  volatile uncorrected ECC count > 0 (the reason says when it grew since the
 *              previous sample)
 *   unhealthy  NVML's row remapping failed (xpu_readings.remap_failed: no spare row left)
 *   degraded   a row remap or page retirement is pending (it takes effect at the next reset);
 *              the driver holds a GPU error state (i915: the GPU hung and was reset)
 *   unhealthy  or degraded: d->kernel holds a GPU driver's kernel log event of that weight (an
 *              Xid of NVIDIA's catalogue, an amdgpu RAS error, reset or ring timeout, kmsg.h) of
 *              the last XPUD_KMSG_HOLD_S seconds; its reason and action are the event's
 *   unhealthy  a temperature at or above its sensor's shutdown limit (readings.h enum
 *              xpu_temp_limit: NVML's threshold, amdgpu's temp*_emergency); fresh samples only
 *   degraded   else a temperature at or above its slowdown limit (NVML's, amdgpu's temp*_crit):
 *              "junction temperature 103 °C at or above its slowdown limit 100 °C"
 *   unknown    no reading yet: never sampled, or its backend failed before a first good sample
 *   degraded   stale: the backend failed this sample and r is the last good one
 *   degraded   thermal throttling (XPU_THROTTLE_THERMAL), hardware slowdown
 *              (XPU_THROTTLE_HW_SLOWDOWN), power throttling (XPU_THROTTLE_POWER); fresh samples only
 *   degraded   corrected ECC storm: the volatile corrected count grew by at least
 *              XPUD_ECC_CORRECTED_STORM_MIN since the previous sample, at a rate of at least
 *              XPUD_ECC_CORRECTED_STORM_PER_MINUTE per minute
 *   degraded   the PCIe link trained narrower than it can be (current_link_width below
 *              max_link_width: a bad slot, riser or seating); fresh samples only. A lower link
 *              speed is no reason: GPUs lower it themselves when idle (power saving)
 *   healthy    none of the above
 *
 * Every matching rule adds a reason (worst first, at most XPUD_REASONS_MAX, each at most
 * XPUD_REASON_SIZE - 1 bytes, cut with "..." by xpud_text_cut()); the state is the worst one and
 * the action is the one of the first (worst) reason. When the backend's error says its vendor
 * library was not found (probes/base/dl.c: "not available: ... not found in ..."), the unknown and
 * stale rules suggest pointing --driver-root at the host's driver files instead. */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/macro.h"
#include "snapshot.h"
#include "text.h"

/* Corrected-ECC storm: growth of the volatile corrected count between two samples of at least
 * this many errors ... */
#define XPUD_ECC_CORRECTED_STORM_MIN 10u
/* ... at a rate of at least this many per minute (both must hold: one error in a 1 s interval is
 * no storm, 10 in a day are none either). */
#define XPUD_ECC_CORRECTED_STORM_PER_MINUTE 10.0

/* Evaluate D's health in place: sets d->health, d->reasons/n_reasons and d->action from
 *   D        this sample's device: d->r, d->up, d->stale, d->sample_time as the sampler set them
 *            (up: fresh readings; stale: r is the last good sample; neither: no reading at all);
 *   PREV     the same device in the previous snapshot (xpud_snapshot_find_same()), or NULL: used
 *            for the growth of the ECC counts (counts that went down, a driver reload, are taken
 *            as a new start) and the time between the samples (sample_time, seconds);
 *   BACKEND  the backend that reads D's readings (for the error text of a stale or unknown
 *            device), or NULL when none.
 * Never fails. */
void xpud_health_evaluate(struct xpud_device *d, const struct xpud_device *prev, const struct xpud_backend *backend);

/* Are A and B one device (seen in two samples)? Same vendor, same partition number (AMD
 * partitions share their GPU's UUID and bus id), and the same UUID (any case) when both have one,
 * else the same PCI bus id (a device whose UUID is not known yet, or no longer); with neither on
 * both (WSL2's driver-store entries), the same source and vendor ordinal. */
bool xpud_device_same(const struct xpu_device *a, const struct xpu_device *b);

/* The device of PREV that is D (xpud_device_same()); NULL when PREV is NULL or has no such
 * device. */
const struct xpud_device *xpud_snapshot_find_same(const struct xpud_snapshot *prev, const struct xpud_device *d);

/* xpud_text_cut(), xpud_text_vcut(): text.h. */


/* The backend of S named NAME ("nvml"), or NULL. */
const struct xpud_backend *xpud_snapshot_find_backend(const struct xpud_snapshot *s, const char *name);

/* Rank of H for the overall status, worst highest: healthy 0 < unknown 1 < degraded 2 <
 * unhealthy 3 (enum xpud_health puts unknown first, but for a node an unknown device is worse
 * than a healthy one). */
int xpud_health_rank(enum xpud_health h);

/* The overall status of S (/v1/health "status"): the worst device state by xpud_health_rank();
 * healthy when S has no device. */
enum xpud_health xpud_health_overall(const struct xpud_snapshot *s);
