/* SPDX-License-Identifier: Apache-2.0 */
/* /metrics: a snapshot as Prometheus text format 0.0.4 (the metric list with units and labels is
 * in docs/xpud-metrics.md "Metrics").
 *
 * Device series carry the labels vendor, gpu (xpud index), uuid, pci_bus_id; metadata only on
 * xpu_info. Each metric has one # HELP and one # TYPE line before its samples, all samples of a
 * name are grouped, a metric without samples is left out entirely. Readings a device does not
 * report (their have bit clear) are omitted, never written as sentinels; a lost device keeps only
 * xpu_info, xpu_up 0 and xpu_health_state. */
#pragma once

#include <stddef.h>

#include "snapshot.h"

#define XPUD_CONTENT_TYPE_PROM "text/plain; version=0.0.4; charset=utf-8"

/* Render S. Returns 0 with *RET (malloc'ed, NUL-terminated, free()) and *RET_LEN (bytes, without
 * the NUL), or -ENOMEM. */
int xpud_render_prom(const struct xpud_snapshot *s, char **ret, size_t *ret_len);

