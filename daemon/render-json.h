/* SPDX-License-Identifier: Apache-2.0 */
/* The JSON bodies of xpud's /v1 routes, from one snapshot. Every body
 * is one object, unformatted, ending in a newline. Units are in the key names; facts a device does
 * not report are omitted, never invented.
 *
 *   /v1/devices    the inventory JSON of `xpuinit probe --json` (xpu_inventory_to_json(): "host", "devices",
 *                  "warnings") whose device objects (xpu_device_to_json()) also carry
 *                  "up", "stale", "lost" (+ "lost_reason"), "sample_time" (unix seconds, when
 *                  sampled), "health": {"state", "reasons": [...], "action"} and "readings":
 *                  {"utilization_ratio", "memory_bandwidth_utilization_ratio", "memory_used_bytes",
 *                  "memory_total_bytes", "temperature_celsius": {"edge": 41, ...},
 *                  "temperature_limit_celsius": {"junction": {"slowdown": 100, "shutdown": 105}, ...}, "power_watts",
 *                  "power_limit_watts", "energy_joules", "clock_hertz": {"graphics": ...},
 *                  "ecc_errors": {"corrected", "uncorrected"}, "throttle_reasons": ["thermal", ...]}
 *                  (empty for a lost device); plus "seq" and "collect_time" of the snapshot.
 *   /v1/devices/K  one such device object.
 *   /v1/health     {"status": worst state (xpud_health_overall()), "devices": [{"index", "vendor",
 *                  "uuid", "pci_bus_id", "state", "reasons", "action"}], "backends": [{"name", "up",
 *                  "error"?, "collect_seconds", "errors_total"}]}
 *   /v1/events     {"events": [{"seq", "time", "kind", "device"?, "message"}] oldest first,
 *                  "dropped": events the full ring dropped}
 *   /v1/version    {"xpud": XPU_VERSION, "api": "v1", "drivers": {"<vendor>": {"version",
 *                  "flavor"?, "cuda_driver_version"?}} for each loaded driver, "backends": [names]} */
#pragma once

#include <cJSON.h>
#include <stddef.h>

#include "snapshot.h"

#define XPUD_CONTENT_TYPE_JSON "application/json"

/* Render a cached JSON route of S (XPUD_ROUTE_DEVICES, _HEALTH, _EVENTS, _VERSION). Returns 0 with
 * *RET (malloc'ed, NUL-terminated, free()) and *RET_LEN, -EINVAL for another route, or -ENOMEM. */
int xpud_render_json(const struct xpud_snapshot *s, enum xpud_route route, char **ret, size_t *ret_len);

/* /v1/devices/KEY: the device of S whose xpud index, UUID or PCI bus id (any spelling;
 * xpud_snapshot_find_device()) is KEY, as one object (xpud_device_to_json()) printed as above.
 * Rendered on each request, not cached: the keys are unbounded. Returns 0 with *RET and *RET_LEN
 * as above, -ENOENT for no such device, or -ENOMEM. */
int xpud_render_device_json(const struct xpud_snapshot *s, const char *key, char **ret, size_t *ret_len);

/* The /v1/devices object of D (xpu_device_to_json() plus the fields above). NULL on -ENOMEM. */
cJSON *xpud_device_to_json(const struct xpud_snapshot *s, const struct xpud_device *d);

/* Print O unformatted with a final newline. Returns 0 with *RET and *RET_LEN as above, or -ENOMEM. */
int xpud_json_print(const cJSON *o, char **ret, size_t *ret_len);
