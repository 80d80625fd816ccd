/* SPDX-License-Identifier: Apache-2.0 */
/* The inventory as JSON (also xpud's /v1/devices). */
#pragma once

#include <cJSON.h>

#include "probe.h"

/* Build {"host": {...}, "devices": [...], "warnings": [...]}. Absent facts are omitted.
 * Returns a new cJSON tree (cJSON_Delete) or NULL on -ENOMEM. */
cJSON *xpu_inventory_to_json(const struct xpu_inventory *inv);
/* One device object (the element of "devices"). */
cJSON *xpu_device_to_json(const struct xpu_device *d);
