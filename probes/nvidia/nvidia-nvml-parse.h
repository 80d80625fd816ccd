/* SPDX-License-Identifier: Apache-2.0 */
/* The NVML reader's reply in the parent: the strict parser of the helper's text (wire format at
 * the top of nvidia-nvml-parse.c), the merge of a result into the fast-path inventory, and the
 * result's JSON and text views (the rich-path backend's, nvidia-nvml.h). Silent: -errno, and
 * warnings go to the inventory. */
#pragma once

#include <stdio.h>

#include <cJSON.h>

#include "nvidia/nvidia-nvml-result.h"
#include "probe.h"

/* Parse the helper's reply TEXT (NUL-terminated; the wire format is described in
 * nvidia-nvml-parse.c; read by xpu_reply_read()). Exposed for tests and the fuzz target. Strict:
 * an unknown key, a repeated head, MIG or memory-repair key (a repeated plain device field keeps
 * its last value), a value of the wrong form, too long for its field or out of range (a
 * percentage above 100, a MIG mode other than 0/1, more MIG devices than XPU_MIG_DEVICES_MAX, a
 * MIG UUID without "MIG-", a devices_total not above a full device_count), no library or
 * device_count line, or a MIG list with a hole is garbage. A device may lack uuid and name (the
 * helper leaves out empty ones). Returns 0 and *RET, -EBADMSG with ERR "garbage from the NVML
 * helper: line N" (or "...: device N ..."), the helper's own error (an "error ERRNO TEXT" line)
 * with ERR = TEXT, or -ENOMEM. ERR may be NULL. */
int xpu_nvml_parse_reply(const char *text, struct xpu_nvml_result **ret, char *err, size_t err_size);

/* Merge R into INV: for each NVIDIA device of INV whose pci_bus_id equals an NVML device's (never
 * by position), through the one merge rule of probe.h (fill when absent, keep and warn when
 * different, each field marked XPU_SOURCE_NVML): memory_total_bytes (XPU_HAVE_MEMORY_TOTAL),
 * compute_capability, brand, name, uuid; memory_used_bytes (XPU_HAVE_MEMORY_USED) only when
 * absent and never a warning (a live reading); MIG mode and MIG UUIDs (mig_enabled, mig_uuids,
 * n_mig, XPU_HAVE_MIG_MODE, field XPU_FIELD_MIG) when NVML answered the MIG mode and the device
 * has none yet (a different one is a warning). NVML's minor number is not merged (procfs owns
 * it); a different one is a warning. Sets inv->vendors[XPU_VENDOR_NVIDIA].cuda_driver_version
 * when R has one. An NVML device the fast path does not list becomes a warning, not a device; a
 * lost device becomes a warning with its reason (what was read before the loss is merged); a
 * second NVML device at a bus id an earlier one had is ignored with a warning
 * (xpu_merge_bus_id_repeated()); a UUID another device of INV already has is not filled (the rule
 * of xpu_device_merge_string()); R->total above R->n becomes the warning "nvml: 70 devices, only
 * the first 64 read". The readings are not merged. Returns the number of devices matched, or
 * -ENOMEM. */
int xpu_nvml_merge(struct xpu_inventory *inv, const struct xpu_nvml_result *r);

/* R as the backend's JSON view (xpuinit probe --source nvml --json; NULL on -ENOMEM) and as text
 * lines (nvidia-nvml-parse.c). */
cJSON *xpu_nvml_result_to_json(const struct xpu_nvml_result *r);
void xpu_nvml_result_print(const struct xpu_nvml_result *r, FILE *f);
