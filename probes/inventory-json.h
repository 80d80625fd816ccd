/* SPDX-License-Identifier: Apache-2.0 */
/* The inventory as JSON (also xpud's /v1/devices), and the small builders the vendors' own device
 * views (struct xpu_vendor_ops.view.facts_json) share. */
#pragma once

#include <cJSON.h>

#include "probe.h"

/* Build {"host": {...}, "devices": [...], "warnings": [...]}. Absent facts are omitted.
 * Returns a new cJSON tree (cJSON_Delete) or NULL on -ENOMEM. */
cJSON *xpu_inventory_to_json(const struct xpu_inventory *inv);
/* One device object (the element of "devices"): the vendor-neutral facts, then the vendor's own
 * (its descriptor's facts_json). Returns a new object or NULL on -ENOMEM. */
cJSON *xpu_device_to_json(const struct xpu_device *d);

/* Add the string member K = V to O; an absent fact (V NULL or "") adds nothing. Returns false
 * only on -ENOMEM. */
bool xpu_json_add_str(cJSON *o, const char *k, const char *v);
/* Add the number member K = V to O. Returns false on -ENOMEM. */
bool xpu_json_add_num(cJSON *o, const char *k, double v);
/* The paths of NODES[0..N) as a new JSON array of strings, or NULL on -ENOMEM. */
cJSON *xpu_json_nodes(const struct xpu_devnode *nodes, size_t n);
/* B bytes as text with a binary unit and one decimal ("79.6 GiB") into BUF (SIZE bytes). */
void xpu_format_bytes(uint64_t b, char *buf, size_t size);
